"""System checks that need a project of their own: a site without a Celery app.

Each runs ``manage.py check`` (``django-admin check``) on the minimal project in
``tests/newsite`` in a subprocess, where no Celery app exists, as on a new site.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from celery import Celery

from a2a_app.core.dispatch import CeleryDispatcher, celery_app_configured, dispatching_to
from a2a_app.models import Task
from a2a_app.testing import A2AClient
from tests.conftest import ROOT


def check(**env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "django", "check"],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.newsite.settings",
            "PYTHONPATH": str(ROOT),
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_push_without_a_celery_app_is_an_error_that_says_what_to_add() -> None:
    result = check()
    assert result.returncode == 1, result.stdout + result.stderr
    assert "a2a_app.E020" in result.stderr
    assert "push notifications (A2A_APP['PUSH_NOTIFICATIONS']) run in Celery" in result.stderr
    assert "app = Celery('yourproject')" in result.stderr


def test_no_push_and_no_background_skill_needs_no_celery() -> None:
    result = check(TEST_PROJECT_PUSH="0")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_a_project_with_a_celery_app_passes() -> None:
    from a2a_app import checks

    assert celery_app_configured(CeleryDispatcher().app)
    assert checks.check_celery() == []


def test_an_eager_celery_app_warns_on_deploy() -> None:
    from a2a_app import checks

    site = Celery("mysite", set_as_current=False)  # the README's start: no broker, no worker
    site.conf.task_always_eager = True
    with dispatching_to(CeleryDispatcher(app=site)):
        assert ids(checks.check_eager_celery()) == ["a2a_app.W130"]
    site.conf.task_always_eager = False
    with dispatching_to(CeleryDispatcher(app=site)):
        assert checks.check_eager_celery() == []
    # Without a Celery app there is nothing eager to warn about (E020 says the rest).
    fallback = Celery("default", fixups=[], set_as_current=False)
    fallback.conf.task_always_eager = True
    with dispatching_to(CeleryDispatcher(app=fallback)):
        assert checks.check_eager_celery() == []


@pytest.mark.django_db
@pytest.mark.usefixtures("conformance_mode")
def test_without_a_worker_return_immediately_runs_the_skill_here(rpc) -> None:
    # What a site without a Celery app has: Celery's fallback app, which no worker reads.
    fallback = Celery("default", fixups=[], set_as_current=False)
    assert not celery_app_configured(fallback)
    with dispatching_to(CeleryDispatcher(app=fallback)):
        params = A2AClient.send_params("hello", configuration={"returnImmediately": True})
        task = rpc("SendMessage", params)["result"]["task"]
    # Not a task left SUBMITTED for a worker that will never come: the skill ran.
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert Task.objects.get(pk=task["id"]).background is False


# --- keys ------------------------------------------------------------------------------------

STRONG_KEY = "k" + "".join(chr(ord("a") + i % 26) for i in range(60))
FERNET_KEY = "tCOx4F4DJXgCMDrJcM7bBLpk7uT2OgGAEwgsJ3cmOKE="


def ids(messages: list) -> list[str]:
    return [m.id for m in messages]


@pytest.mark.parametrize(
    "key", ["insecure-demo-key-change-me-in-production", "change-me", "django-insecure-abc123"]
)
def test_a_published_secret_key_with_debug_off_is_an_error(settings, key) -> None:
    from a2a_app import checks

    settings.DEBUG, settings.SECRET_KEY = False, key
    [error] = checks.check_keys()
    assert error.id == "a2a_app.E071"
    assert "SECRET_KEY" in error.msg and "secrets.token_urlsafe" in error.hint
    settings.DEBUG = True  # a developer's machine
    assert checks.check_keys() == []


def test_malformed_encryption_keys_are_an_error_naming_the_entry(settings) -> None:
    from a2a_app import checks

    settings.A2A_APP = {**settings.A2A_APP, "ENCRYPTION_KEYS": [FERNET_KEY, "not-a-key"]}
    [error] = checks.check_keys()
    assert error.id == "a2a_app.E070"
    assert "entry 1 is not a Fernet key" in error.msg
    settings.A2A_APP = {**settings.A2A_APP, "ENCRYPTION_KEYS": FERNET_KEY}
    assert ids(checks.check_keys()) == ["a2a_app.E070"]  # a string, not a list


def test_deploy_check_wants_encryption_keys_of_their_own(settings) -> None:
    from a2a_app import checks

    settings.DEBUG, settings.SECRET_KEY = False, STRONG_KEY
    settings.A2A_APP = {**settings.A2A_APP, "ENCRYPTION_KEYS": []}
    assert ids(checks.check_deploy_keys()) == ["a2a_app.W073"]
    settings.SECRET_KEY = "short-but-not-published"
    assert ids(checks.check_deploy_keys()) == ["a2a_app.E072"]
    settings.A2A_APP = {**settings.A2A_APP, "ENCRYPTION_KEYS": [FERNET_KEY]}
    assert checks.check_deploy_keys() == []
    assert checks.check_keys() == []


def test_a_heartbeat_as_long_as_the_lease_is_an_error(settings) -> None:
    from a2a_app import checks

    settings.A2A_APP = {
        **settings.A2A_APP,
        "WORKER_HEARTBEAT_SECONDS": 10,
        "WORKER_LEASE_SECONDS": 15,
    }
    assert "a2a_app.E005" in ids(checks.check_settings())
    settings.A2A_APP = {**settings.A2A_APP, "WORKER_HEARTBEAT_SECONDS": 5}
    assert "a2a_app.E005" not in ids(checks.check_settings())


def test_rates_that_do_not_parse_and_unknown_caches_are_errors(settings) -> None:
    from a2a_app.checks import check_limits

    settings.A2A_APP = {
        **settings.A2A_APP,
        "RATE_LIMITS": {"SendMessage": "lots", "skill:x": ["1/min", "2/fortnight"], "a": None},
        "RATE_LIMIT_CACHE": "nowhere",
    }
    errors = check_limits()
    assert [e.id for e in errors] == ["a2a_app.E050", "a2a_app.E050", "a2a_app.E051"]
    assert "'lots'" in errors[0].msg and "'2/fortnight'" in errors[1].msg


def test_rate_limits_in_a_per_process_cache_warn_on_deploy(settings) -> None:
    from a2a_app.checks import check_limits_deploy

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    assert [w.id for w in check_limits_deploy()] == ["a2a_app.W050"]
    settings.A2A_APP = {**settings.A2A_APP, "RATE_LIMITS": {}}
    assert check_limits_deploy() == []


def test_a_setting_read_before_a_change_is_read_anew_after_it(settings) -> None:
    from a2a_app.conf import a2a_settings

    a2a_settings.MAX_MESSAGE_PARTS  # noqa: B018  (read once: kept as an attribute)
    assert "MAX_MESSAGE_PARTS" in vars(a2a_settings)
    settings.A2A_APP = {**getattr(settings, "A2A_APP", {}), "MAX_MESSAGE_PARTS": 3}
    assert a2a_settings.MAX_MESSAGE_PARTS == 3
    settings.A2A_APP = {**settings.A2A_APP, "MAX_MESSAGE_PARTS": 4}
    assert a2a_settings.MAX_MESSAGE_PARTS == 4
    with pytest.raises(AttributeError, match="Invalid A2A_APP setting"):
        a2a_settings.NO_SUCH_SETTING  # noqa: B018
