"""The demo restaurant's tests: they run against the demo site (``a2a_site.settings``),
apart from a2a_app's own (``make test`` runs both)."""

import io
from collections.abc import Iterator

import pytest
from django.core.management import call_command

from a2a_app.testing import reset_caches


@pytest.fixture
def demo(db) -> Iterator[None]:
    """The demo restaurant's menu, tables, hours and skill rows, as ``load_demo`` makes them."""
    call_command("load_demo", stdout=io.StringIO())
    reset_caches()  # the catalogue is cached per process
    yield
    reset_caches()
