"""System checks (``manage.py check``): configuration mistakes caught at start-up."""

from __future__ import annotations

from typing import Any

from django.core.checks import Error, Tags, Warning, register
from django.db import DatabaseError

from a2a_app.conf import DEFAULTS, IMPORT_STRINGS, SETTING_NAME, a2a_settings
from a2a_app.core.dispatch import get_dispatcher
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
    return errors


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


@register()
def check_limits(app_configs: Any = None, **kwargs: Any) -> list:
    """Rates that do not parse, and a rate-limit cache that does not exist."""
    from django.conf import settings

    from a2a_app.core.limits import parse_rate

    errors = []
    rules = a2a_settings.RATE_LIMITS or {}
    for rule, value in rules.items() if isinstance(rules, dict) else []:
        for text in [value] if isinstance(value, str) or value is None else value:
            try:
                if text is not None:
                    parse_rate(text)
            except (ValueError, AttributeError):
                errors.append(
                    Error(
                        f"{SETTING_NAME}['RATE_LIMITS'][{rule!r}]: {text!r} is not a rate.",
                        hint="A rate is 'N/unit' ('60/min', '10/hour', '100/5min'), a list "
                        "of them, or None.",
                        id="a2a_app.E050",
                    )
                )
    cache = a2a_settings.RATE_LIMIT_CACHE
    if rules and cache not in settings.CACHES:
        errors.append(
            Error(
                f"{SETTING_NAME}['RATE_LIMIT_CACHE'] is {cache!r}, which is not in CACHES.",
                hint="Name a cache of settings.CACHES (a shared one, such as Redis, when the "
                "site runs several processes).",
                id="a2a_app.E051",
            )
        )
    return errors


@register(Tags.security, deploy=True)
def check_limits_deploy(app_configs: Any = None, **kwargs: Any) -> list:
    """Rate limits counted per process (``check --deploy``)."""
    from django.conf import settings

    cache = settings.CACHES.get(a2a_settings.RATE_LIMIT_CACHE, {})
    if not a2a_settings.RATE_LIMITS or "locmem" not in cache.get("BACKEND", "").lower():
        return []
    return [
        Warning(
            "Rate limits are counted in a local-memory cache: each process counts alone, "
            "so a site with N processes lets N times the rate through.",
            hint="Point A2A_APP['RATE_LIMIT_CACHE'] at a shared cache (Redis, Memcached).",
            id="a2a_app.W050",
        )
    ]
