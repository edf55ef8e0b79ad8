"""System checks (``manage.py check``): configuration mistakes caught at start-up."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, DatabaseError, router

from a2a_app.card_signing import key_problems
from a2a_app.conf import DEFAULTS, IMPORT_STRINGS, SETTING_NAME, a2a_settings
from a2a_app.core.dispatch import celery_app_configured, get_dispatcher
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
    if a2a_settings.EXTENDED_CARD and not a2a_settings.AUTHENTICATION_CLASSES:
        errors.append(
            Warning(
                f"{SETTING_NAME}['EXTENDED_CARD'] is True but AUTHENTICATION_CLASSES is empty: "
                "nobody can sign in for the extended card.",
                hint="GetExtendedAgentCard answers ExtendedAgentCardNotConfigured until an "
                "authentication class is configured (or set EXTENDED_CARD to None).",
                id="a2a_app.W040",
            )
        )
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
                id="a2a_app.E070",
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
                id="a2a_app.E071",
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
    if reason and reason != "it is a published default":  # that one is E071 already
        return [
            Error(
                f"Webhook secrets are encrypted with a key derived from SECRET_KEY, and "
                f"SECRET_KEY is weak: {reason}.",
                hint=f"Set a strong SECRET_KEY and explicit {SETTING_NAME}['ENCRYPTION_KEYS'].",
                id="a2a_app.E072",
            )
        ]
    return [
        Warning(
            f"{SETTING_NAME}['ENCRYPTION_KEYS'] is empty: webhook secrets (push config tokens "
            "and credentials) are encrypted with a key derived from SECRET_KEY.",
            hint="Set explicit Fernet keys (newest first) so that rotating SECRET_KEY does not "
            "make stored secrets unreadable, and a leaked SECRET_KEY does not reveal them.",
            id="a2a_app.W073",
        )
    ]


@register(Tags.database)
def check_skill_handlers(app_configs: Any = None, databases: Any = None, **kwargs: Any) -> list:
    """Rows and handlers that do not match: a row whose handler is no longer registered
    or that asks for a permission it does not name, a handler without a row.

    Reads the databases ``check --database`` names, else the default one if it answers
    (a check run without a database, or before ``migrate``, finds nothing to say).
    """
    from a2a_app.models import Skill

    problems = []
    rows = []
    read = False
    for alias in databases if databases is not None else [DEFAULT_DB_ALIAS]:
        if not router.allow_migrate_model(alias, Skill):
            continue
        try:
            rows += list(
                Skill.objects.using(alias).values_list(
                    "id", "handler", "enabled", "access", "permission"
                )
            )
        except (DatabaseError, ImproperlyConfigured):
            continue  # not migrated yet, or no database: nothing to check
        read = True
    known = registry.all_skills()
    for skill_id, handler, enabled, access, permission in rows:
        if access == Skill.Access.PERMISSION and not permission.strip():
            problems.append(
                Warning(
                    f"Skill {skill_id!r} is for callers with a permission but names none: "
                    "nobody may use it.",
                    hint="Set its permission in the admin (a Django permission "
                    "'app_label.codename' or an API-key scope).",
                    id="a2a_app.W011",
                )
            )
        if handler not in known:
            problems.append(
                (Error if enabled else Warning)(
                    f"Skill {skill_id!r} uses handler {handler!r}, which is not registered.",
                    hint="Register it with @skill in an app's a2a_skills.py, or change the row "
                    "in the admin. Until then the skill is not offered. Known handlers: "
                    + (", ".join(sorted(known)) or "none"),
                    id="a2a_app.E010" if enabled else "a2a_app.W010",
                )
            )
    if not read:
        return problems  # no database read: a handler without a row cannot be told apart
    return problems + _handlers_without_rows(rows)


def _handlers_without_rows(rows: list[tuple]) -> list:
    """W080: a row will be made; W081: it cannot be, its id is another row's."""
    from a2a_app.skills.sync import missing_specs

    pairs = [(skill_id, handler) for skill_id, handler, *_ in rows]
    found = []
    creatable = {spec.key for _, spec in missing_specs(pairs)}
    published = {handler for _, handler in pairs}
    state = "enabled" if a2a_settings.NEW_SKILLS_ENABLED else "disabled"
    for key in sorted(registry.all_skills()):
        if key in published or key == "conformance":
            continue
        if key in creatable:
            found.append(
                Warning(
                    f"Skill handler {key!r} is registered but has no Skill row yet.",
                    hint=f"Its row is created ({state}, NEW_SKILLS_ENABLED) by the next "
                    "`manage.py migrate` or the first request that reads the skills; "
                    "`manage.py a2a_skills --sync` creates it now.",
                    id="a2a_app.W080",
                )
            )
        else:
            found.append(
                Warning(
                    f"Skill handler {key!r} is registered but no Skill row uses it, and its "
                    f"id is taken by a row that runs another handler: it is not served.",
                    hint=f"Add a Skill row with another id and handler {key!r} in the "
                    "admin, or give the existing row another id.",
                    id="a2a_app.W081",
                )
            )
    return found


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
            "app.autodiscover_tasks()) and import it in the project's __init__.py. Then "
            "either set CELERY_TASK_ALWAYS_EAGER = True (no broker, no worker: the work runs "
            "in the web process; for a start) or set CELERY_BROKER_URL and run "
            "`celery -A yourproject worker -B`. Without background skills, "
            "A2A_APP['PUSH_NOTIFICATIONS'] = False needs no Celery.",
            id="a2a_app.E020",
        )
    ]


@register(deploy=True)
def check_eager_celery(app_configs: Any = None, **kwargs: Any) -> list:
    """``check --deploy``: background work run in the web process (an eager Celery app),
    the README's way to start without broker or worker, is no way to run a site."""
    try:
        app = getattr(get_dispatcher(), "app", None)
    except ImportError:
        return []  # A2A_APP["DISPATCHER"] does not import: reported by check_settings
    if app is None or not celery_app_configured(app) or not app.conf.task_always_eager:
        return []
    return [
        Warning(
            "CELERY_TASK_ALWAYS_EAGER is on: a2a_app's background skills and webhook "
            "deliveries run in the web process, failed webhooks are not retried and lost "
            "tasks are not swept.",
            hint="Set CELERY_TASK_ALWAYS_EAGER = False and CELERY_BROKER_URL, schedule "
            "a2a_app.tasks.sweep in CELERY_BEAT_SCHEDULE and run `celery -A yourproject "
            "worker -B` (docs/operations.md).",
            id="a2a_app.W130",
        )
    ]


@register()
def check_card_signing_keys(app_configs: Any = None, **kwargs: Any) -> list:
    """Each ``CARD_SIGNING_KEYS`` entry must be an EC P-256 private key with a kid."""
    return [
        Error(
            problem,
            hint="Make a key with `manage.py a2a_card_keys generate --out PATH` and list it "
            'as {"kid": ..., "private_key": "file:PATH"}.',
            id="a2a_app.E060",
        )
        for problem in key_problems(a2a_settings.CARD_SIGNING_KEYS)
    ]


@register(Tags.security)
def check_authentication(app_configs: Any = None, **kwargs: Any) -> list:
    """The card must be able to declare what is enforced, and Basic must be guarded."""
    from rest_framework import authentication as drf

    from a2a_app.authentication import undeclared_classes

    try:
        classes = a2a_settings.AUTHENTICATION_CLASSES
    except ImportError:
        return []  # E003 reports it
    found = [
        Warning(
            f"{cls.__module__}.{cls.__qualname__} in AUTHENTICATION_CLASSES is not declared "
            "in the agent card: callers cannot learn that it exists.",
            hint="Give the class an a2a_security_scheme = (name, SecurityScheme) attribute, "
            "or set A2A_APP['SECURITY_SCHEMES'].",
            id="a2a_app.W030",
        )
        for cls in undeclared_classes()
    ]
    if drf.BasicAuthentication in classes:
        found.append(
            Warning(
                "rest_framework's BasicAuthentication hashes every password tried, with no "
                "limit on guesses.",
                hint="Use a2a_app.authentication.BasicAuthentication, which refuses "
                "guessers before hashing.",
                id="a2a_app.W031",
            )
        )
    if not classes and not a2a_settings.ALLOW_ANONYMOUS:
        found.append(
            Error(
                "ALLOW_ANONYMOUS is false and no AUTHENTICATION_CLASSES are set: every call "
                "would be refused.",
                hint="List an authentication class, e.g. "
                "a2a_app.authentication.ApiKeyAuthentication.",
                id="a2a_app.E030",
            )
        )
    seconds = a2a_settings.API_KEY_CACHE_SECONDS
    if not (_is_number(seconds) and seconds >= 0):
        found.append(
            Error(
                f"{SETTING_NAME}['API_KEY_CACHE_SECONDS'] must be a number of seconds >= 0, "
                f"not {seconds!r}.",
                hint="e.g. 5; 0 reads the key on every request (docs/security.md, API keys).",
                id="a2a_app.E031",
            )
        )
    return found


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


@register()
def check_form_skills(app_configs: Any = None, **kwargs: Any) -> list:
    """The interpreter form skills read text with, and forms the library can bind."""
    problems = []
    try:
        interpreter = a2a_settings.INTERPRETER
    except ImportError:
        interpreter = None  # check_settings reports it (E003)
    if interpreter is not None and not callable(getattr(interpreter, "interpret", None)):
        problems.append(
            Error(
                f"{SETTING_NAME}['INTERPRETER'] has no interpret() method: {interpreter!r}.",
                hint="Name a class or an object with interpret(text, form_class, *, asked, "
                "known, language, now) -> dict (docs/skills.md, 'Skills declared as forms').",
                id="a2a_app.E090",
            )
        )
    for key, spec in sorted(registry.all_skills().items()):
        if spec.form is None:
            continue
        try:
            spec.form(data={})
        except Exception as exc:  # any failure: the first message would meet it too
            problems.append(
                Error(
                    f"Skill {key!r}: its form {spec.form.__name__} cannot be made from the "
                    f"collected values alone ({type(exc).__name__}: {exc}).",
                    hint="The library binds form_class(data=values): give the form's other "
                    "__init__ arguments defaults.",
                    id="a2a_app.E091",
                )
            )
    return problems


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@register()
def check_retention(app_configs: Any = None, **kwargs: Any) -> list:
    """The retention settings: ages are None or days >= 0; batches and time positive."""
    errors = []
    for name in ("RETENTION_DAYS", "RETENTION_INTERRUPTED_DAYS"):
        value = getattr(a2a_settings, name)
        if value is not None and not (_is_number(value) and value >= 0):
            errors.append(
                Error(
                    f"{SETTING_NAME}[{name!r}] must be None (keep forever) or a number of "
                    f"days >= 0, not {value!r}.",
                    hint="e.g. 30 (docs/operations.md, Retention).",
                    id="a2a_app.E170",
                )
            )
    size = a2a_settings.RETENTION_BATCH_SIZE
    seconds = a2a_settings.RETENTION_SWEEP_SECONDS
    if not (isinstance(size, int) and not isinstance(size, bool) and size > 0):
        errors.append(
            Error(
                f"{SETTING_NAME}['RETENTION_BATCH_SIZE'] must be a whole number > 0, not {size!r}.",
                id="a2a_app.E171",
            )
        )
    if not (_is_number(seconds) and seconds > 0):
        errors.append(
            Error(
                f"{SETTING_NAME}['RETENTION_SWEEP_SECONDS'] must be a number > 0, not {seconds!r}.",
                id="a2a_app.E172",
            )
        )
    return errors


@register(deploy=True)
def check_retention_deploy(app_configs: Any = None, **kwargs: Any) -> list:
    """``check --deploy``: tasks kept forever make the tables grow without end, and keep
    callers' messages longer than most sites may."""
    if a2a_settings.RETENTION_DAYS is not None:
        return []
    return [
        Warning(
            "A2A tasks are kept forever (A2A_APP['RETENTION_DAYS'] is None): the task "
            "tables only grow, and callers' messages are never deleted.",
            hint="Set A2A_APP['RETENTION_DAYS'] to the days your site keeps ended tasks, "
            "or silence a2a_app.W170 if keeping them is intended (docs/operations.md).",
            id="a2a_app.W170",
        )
    ]


@register()
def check_activity(app_configs: Any = None, **kwargs: Any) -> list:
    """The activity page's default range must be a number of days it can draw."""
    days = a2a_settings.ACTIVITY_DAYS
    if isinstance(days, int) and not isinstance(days, bool) and 1 <= days <= 366:
        return []
    return [
        Error(
            f"{SETTING_NAME}['ACTIVITY_DAYS'] is {days!r}, not a number of days from 1 to 366.",
            hint="The admin's activity page shows that many days when none are chosen "
            "(it offers 7, 14, 30 and 90).",
            id="a2a_app.E200",
        )
    ]


@register(Tags.database)
def check_task_count_triggers(
    app_configs: Any = None, databases: Any = None, **kwargs: Any
) -> list:
    """ListTasks' totalSize reads counts that triggers keep (migration 0007): a database
    restored or altered without them would answer wrong totals."""
    from a2a_app.core import task_counts
    from a2a_app.models import TaskCount

    problems = []
    for alias in databases if databases is not None else [DEFAULT_DB_ALIAS]:
        if not router.allow_migrate_model(alias, TaskCount) or not task_counts.kept(alias):
            continue
        try:
            TaskCount.objects.using(alias).exists()  # migrated this far?
            missing = task_counts.missing_triggers(alias)
        except (DatabaseError, ImproperlyConfigured):
            continue  # not migrated yet, or no database: nothing to check
        if missing:
            problems.append(
                Warning(
                    f"Database {alias!r}: the task table lacks the counting triggers "
                    f"{', '.join(missing)}: ListTasks' totalSize will be wrong.",
                    hint="Re-create them: manage.py migrate a2a_app 0008, then manage.py "
                    "migrate (recounts every task). A restore with --disable-triggers needs "
                    "manage.py a2a_task_counts --rebuild afterwards.",
                    id="a2a_app.W140",
                )
            )
    return problems


@register()
def check_stream_notifier(app_configs: Any = None, **kwargs: Any) -> list:
    """On PostgreSQL streams are woken by LISTEN/NOTIFY, which a2a_app does through
    psycopg 3; with psycopg2 (and no Redis) they poll the database instead."""
    from django.db import connection

    from a2a_app.core.notify import listen_notify_available

    if (
        a2a_settings.NOTIFIER_REDIS_URL
        or connection.vendor != "postgresql"
        or listen_notify_available()
    ):
        return []
    return [
        Warning(
            "PostgreSQL through psycopg2: streams poll the database every "
            "STREAM_POLL_SECONDS instead of being woken by LISTEN/NOTIFY.",
            hint="Install psycopg 3 (pip install 'psycopg[binary]'), or set "
            'A2A_APP["NOTIFIER_REDIS_URL"] (docs/operations.md, "Streams and their notifier").',
            id="a2a_app.W150",
        )
    ]
