"""System checks that need a project of their own: a site without a Celery app.

Each runs ``manage.py check`` (``django-admin check``) on the minimal project in
``tests/newsite`` in a subprocess, where no Celery app exists, as on a new site.
"""

from __future__ import annotations

import os
import subprocess
import sys

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

    assert checks.celery_app_configured()
    assert checks.check_celery() == []
