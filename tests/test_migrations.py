"""Models and committed migrations agree (a changed model without a migration fails here)."""

import io

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_missing_migrations() -> None:
    out = io.StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exc:  # --check exits non-zero when a migration is missing
        pytest.fail(f"models changed without a migration:\n{out.getvalue()}\n(exit {exc.code})")
    assert "No changes detected" in out.getvalue()
