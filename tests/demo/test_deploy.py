"""The demo's production settings: ``manage.py check --deploy`` is clean with DEBUG off and
keys of its own, and the published SECRET_KEY is refused at start (docs/security.md)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

from cryptography.fernet import Fernet

from tests.conftest import ROOT


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG")}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**environment, "DJANGO_SETTINGS_MODULE": "a2a_site.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "A2A_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
    "ALLOWED_HOSTS": "trattoria.example.com",
    "CACHE_URL": "redis://127.0.0.1:6379/1",
}


def test_check_deploy_is_clean_in_production() -> None:
    result = manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    assert "W0" not in result.stdout + result.stderr


def test_production_defaults_are_https_only() -> None:
    code = (
        "from django.conf import settings as s; "
        "print(s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, "
        "s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_PROXY_SSL_HEADER)"
    )
    result = manage("shell", "--no-imports", "-c", code, **PRODUCTION)
    assert result.stdout.split() == ["True", "31536000", "True", "True", "True", "None"], result
    behind_proxy = manage(
        "shell",
        "--no-imports",
        "-c",
        code,
        **PRODUCTION,
        SECURE_PROXY_SSL_HEADER="HTTP_X_FORWARDED_PROTO,https",
    )
    assert behind_proxy.stdout.split()[-2:] == ["('HTTP_X_FORWARDED_PROTO',", "'https')"]


def test_without_a_key_of_its_own_production_refuses_to_start() -> None:
    environment = {k: v for k, v in PRODUCTION.items() if k != "SECRET_KEY"}
    result = manage("check", **environment)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "SECRET_KEY is the demo's published default" in result.stderr
    for published in ("change-me", "insecure-demo-key-change-me-in-production"):
        result = manage("check", **{**environment, "SECRET_KEY": published})
        assert "ImproperlyConfigured" in result.stderr, published


def test_check_deploy_without_encryption_keys_recommends_them() -> None:
    environment = {k: v for k, v in PRODUCTION.items() if k != "A2A_ENCRYPTION_KEYS"}
    result = manage("check", "--deploy", **environment)
    assert "a2a_app.W073" in result.stderr
    assert "ENCRYPTION_KEYS" in result.stderr


def test_a_wsgi_site_may_keep_one_connection_per_worker_instead_of_the_pool() -> None:
    """PostgreSQL: the pool by default (ASGI needs it); ``DB_CONN_MAX_AGE`` keeps one
    connection per worker instead (docs/operations.md). Settings only: nothing connects."""
    code = (
        "from django.conf import settings as s; d = s.DATABASES['default']; "
        "print(d['CONN_MAX_AGE'], sorted(d['OPTIONS'].get('pool', {})), "
        "d['OPTIONS']['prepare_threshold'])"
    )
    postgres = {**PRODUCTION, "DATABASE_URL": "postgres://a2a@db.example.com:5432/a2a"}
    pooled = manage("shell", "--no-imports", "-c", code, **postgres)
    assert pooled.stdout.split() == ["0", "['max_size',", "'min_size',", "'timeout']", "5"]
    kept = manage("shell", "--no-imports", "-c", code, **postgres, DB_CONN_MAX_AGE="600")
    assert kept.stdout.split() == ["600", "[]", "5"], kept.stderr
