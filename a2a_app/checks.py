"""System checks (``manage.py check``): configuration mistakes caught at start-up."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register
from django.db import DatabaseError

from a2a_app.conf import DEFAULTS, IMPORT_STRINGS, SETTING_NAME, a2a_settings
from a2a_app.core.dispatch import get_dispatcher
from a2a_app.crypto import insecure_secret_key, invalid_encryption_keys
from a2a_app.skills import registry


@register()
def check_settings(app_configs: Any = None, **kwargs: Any) -> list:
    from django.conf import settings

    errors = []
    user = getattr(settings, SETTING_NAME, {}) or {}
    if not isinstance(user, dict):
        return [Error(f"{SETTING_NAME} must be a dict.", id="a2a_app.E001")]
    for key in sorted(set(user) - set(DEFAULTS)):
        errors.append(
            Error(
                f"{SETTING_NAME}[{key!r}] is not a known setting.",
                hint=f"Known settings: {', '.join(sorted(DEFAULTS))}.",
                id="a2a_app.E002",
            )
        )
    for key in IMPORT_STRINGS:
        try:
            getattr(a2a_settings, key)
        except ImportError as exc:
            errors.append(Error(str(exc), id="a2a_app.E003"))
    public_url = user.get("PUBLIC_URL")
    if public_url and not str(public_url).startswith(("http://", "https://")):
        errors.append(
            Error(
                f"{SETTING_NAME}['PUBLIC_URL'] must be an absolute http(s) URL.",
                hint="For example 'https://www.example.com'.",
                id="a2a_app.E004",
            )
        )
    heartbeat, lease = a2a_settings.WORKER_HEARTBEAT_SECONDS, a2a_settings.WORKER_LEASE_SECONDS
    if heartbeat and heartbeat * 2 > lease:
        errors.append(
            Error(
                f"{SETTING_NAME}['WORKER_HEARTBEAT_SECONDS'] ({heartbeat:g}) must be at most "
                f"half of WORKER_LEASE_SECONDS ({lease:g}).",
                hint="A lease should outlast a missed heartbeat or two, e.g. heartbeat 5 "
                "and lease 15, or live tasks are run twice.",
                id="a2a_app.E005",
            )
        )
    return errors


@register(Tags.security)
def check_keys(app_configs: Any = None, **kwargs: Any) -> list:
    """Keys that protect stored webhook secrets: refused when published, or malformed."""
    errors = []
    for problem in invalid_encryption_keys(a2a_settings.ENCRYPTION_KEYS):
        errors.append(
            Error(
                f"{SETTING_NAME}['ENCRYPTION_KEYS']: {problem}.",
                hint="Make one with: python -c 'from cryptography.fernet import Fernet; "
                "print(Fernet.generate_key().decode())'",
                id="a2a_app.E030",
            )
        )
    secret_key = str(getattr(settings, "SECRET_KEY", "") or "")
    if not settings.DEBUG and insecure_secret_key(secret_key) == "it is a published default":
        # Published: anyone can sign sessions and, without ENCRYPTION_KEYS, read the
        # webhook secrets stored with a key derived from it.
        errors.append(
            Error(
                "SECRET_KEY is a published default and DEBUG is off.",
                hint="Set SECRET_KEY to a long random value of your own, e.g. python -c "
                "'import secrets; print(secrets.token_urlsafe(50))', and keep it secret.",
                id="a2a_app.E031",
            )
        )
    return errors


@register(Tags.security, deploy=True)
def check_deploy_keys(app_configs: Any = None, **kwargs: Any) -> list:
    """``check --deploy``: webhook secrets encrypted with keys of their own, and strong."""
    if a2a_settings.ENCRYPTION_KEYS:
        return []
    secret_key = str(getattr(settings, "SECRET_KEY", "") or "")
    reason = insecure_secret_key(secret_key)
    if reason and reason != "it is a published default":  # that one is E031 already
        return [
            Error(
                f"Webhook secrets are encrypted with a key derived from SECRET_KEY, and "
                f"SECRET_KEY is weak: {reason}.",
                hint=f"Set a strong SECRET_KEY and explicit {SETTING_NAME}['ENCRYPTION_KEYS'].",
                id="a2a_app.E032",
            )
        ]
    return [
        Warning(
            f"{SETTING_NAME}['ENCRYPTION_KEYS'] is empty: webhook secrets (push config tokens "
            "and credentials) are encrypted with a key derived from SECRET_KEY.",
            hint="Set explicit Fernet keys (newest first) so that rotating SECRET_KEY does not "
            "make stored secrets unreadable, and a leaked SECRET_KEY does not reveal them.",
            id="a2a_app.W033",
        )
    ]


@register(Tags.database)
def check_skill_handlers(app_configs: Any = None, **kwargs: Any) -> list:
    """Rows whose handler is no longer registered (run with ``check --database default``)."""
    from a2a_app.models import Skill

    problems = []
    try:
        rows = list(Skill.objects.values_list("id", "handler", "enabled"))
    except DatabaseError:
        return []  # not migrated yet: nothing to check
    known = registry.all_skills()
    for skill_id, handler, enabled in rows:
        if handler not in known:
            problems.append(
                (Error if enabled else Warning)(
                    f"Skill {skill_id!r} uses handler {handler!r}, which is not registered.",
                    hint="Register it with @skill in an app's a2a_skills.py, or change the row "
                    "in the admin. Known handlers: " + (", ".join(sorted(known)) or "none"),
                    id="a2a_app.E010" if enabled else "a2a_app.W010",
                )
            )
    return problems


@register()
def check_celery(app_configs: Any = None, **kwargs: Any) -> list:
    """Background skills and webhooks run in Celery: a site that uses them needs an app."""
    needs = []
    background = sorted(key for key, spec in registry.all_skills().items() if spec.background)
    if background:
        needs.append(f"background skills ({', '.join(background)})")
    if a2a_settings.PUSH_NOTIFICATIONS:
        needs.append("push notifications (A2A_APP['PUSH_NOTIFICATIONS'])")
    try:
        if not needs or get_dispatcher().can_run_in_background:
            return []
    except ImportError:
        return []  # A2A_APP["DISPATCHER"] does not import: reported by check_settings
    return [
        Error(
            f"{' and '.join(needs)} run in Celery, but this site has no Celery app.",
            hint="Create one in your project's celery.py (app = Celery('yourproject'); "
            "app.config_from_object('django.conf:settings', namespace='CELERY'); "
            "app.autodiscover_tasks()), import it in the project's __init__.py, set "
            "CELERY_BROKER_URL, and run `celery -A yourproject worker -B`. Without "
            "background skills, A2A_APP['PUSH_NOTIFICATIONS'] = False needs no Celery.",
            id="a2a_app.E020",
        )
    ]
