"""The demo restaurant's tests: they run against the demo site (``a2a_site.settings``),
apart from a2a_app's own (``make test`` runs both)."""

import io
from collections.abc import Iterator

import pytest
from django.core.management import call_command

from a2a_app.testing import reset_caches

# The live parts of the end-to-end tests (test_live_site.py): uvicorn, a Celery worker,
# Redis, an HTTPS webhook receiver.
from tests.integration.conftest import (  # noqa: F401
    private_ca,
    redis_url,
    start_web,
    start_worker,
    tls_receiver,
)


@pytest.fixture
def demo(db) -> Iterator[None]:
    """The demo restaurant's menu, tables, hours and skill rows, as ``load_demo`` makes them."""
    call_command("load_demo", stdout=io.StringIO())
    reset_caches()  # the catalogue is cached per process
    yield
    reset_caches()
