"""The restaurant's admin pages in German: every model and field name of the demo (and of
a2a_app beside it) is marked for translation, and the catalogue has it."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from tests.test_locale_de import unmarked_admin_names


def test_every_admin_name_is_marked_for_translation() -> None:
    assert unmarked_admin_names() == []


@pytest.mark.django_db
def test_the_reservation_form_reads_german(admin_user) -> None:
    client = Client()
    client.force_login(admin_user)
    with translation.override("de"):
        html = client.get("/admin/skills/reservation/add/").content
    text = html.decode()
    assert "Reservierungen" in text  # the breadcrumb: the plural, not "Reservierungs"
    assert "Personenzahl" in text and "Party size" not in text
