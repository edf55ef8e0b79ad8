"""The agent profile and the "Agent card" admin page in a real headless browser (Debian's
Chromium, driven by Playwright): the owner renames the agent, and the card page (and the
card agents fetch) says the new name, checked valid against the v1.0 schema.

Screenshots go to ``A2A_SCREENSHOTS`` when it names a folder (docs/screenshots holds the
committed ones: admin-agent-profile.png, admin-agent-card.png), else to the test's
temporary folder.
"""

from __future__ import annotations

import pytest
import requests
from django.conf import settings
from django.test import override_settings

from tests.integration.conftest import STAFF_PASSWORD, sign_in

pytestmark = pytest.mark.integration

FORMS_EXTENSION = {
    "uri": "https://example.com/a2a/ext/form-fields/v1",
    "description": "The fields each form skill asks for.",
    "required": False,
    "params": {"book-table": {"required": ["day", "time", "party_size", "name"]}},
}


def _handler(ctx):
    return ctx.complete("ok")


@pytest.fixture
def trattoria():
    """Two public skills and one for signed-in callers, as the demo restaurant has."""
    from a2a_app.models import Skill
    from a2a_app.skills.registry import SkillSpec, registered

    specs = [
        SkillSpec(key=key, handler=_handler, name=key, description=key)
        for key in ("view-menu", "book-table", "my-bookings")
    ]
    with registered(*specs):
        Skill.objects.create(
            id="view-menu",
            handler="view-menu",
            name="View the menu",
            description="Today's dishes with prices, vegetarian and vegan ones marked.",
            tags=["menu", "food", "prices"],
            examples=["What's on the menu today?", "Do you have vegan dishes?"],
            order=1,
        )
        Skill.objects.create(
            id="book-table",
            handler="book-table",
            name="Book a table",
            description="Reserve a table for a day, a time and a party size.",
            tags=["booking", "reservation"],
            examples=["A table for 4 on Friday at 7pm"],
            order=2,
        )
        Skill.objects.create(
            id="my-bookings",
            handler="my-bookings",
            name="My bookings",
            description="List or cancel your own reservations.",
            tags=["booking"],
            access=Skill.Access.AUTHENTICATED,
            order=3,
        )
        yield


@pytest.mark.django_db(transaction=True)
def test_the_owner_edits_the_profile_and_checks_the_card(
    live_server, browser_page, shots, trattoria
) -> None:
    from django.contrib.auth.models import User

    User.objects.create_superuser("owner", "owner@example.com", STAFF_PASSWORD)
    page = browser_page
    a2a = {**settings.A2A_APP, "EXTENSIONS": [FORMS_EXTENSION], "CARD_REVALIDATE_SECONDS": 0}

    with override_settings(A2A_APP=a2a):
        sign_in(page, live_server.url, "owner", "/admin/a2a_app/agentprofile/")
        # The list of one opens the row itself; empty fields show the settings' values.
        assert page.url.endswith("/admin/a2a_app/agentprofile/1/change/")
        assert page.get_attribute("#id_name", "placeholder") == a2a.get("NAME", "Django A2A agent")
        page.fill("#id_name", "Trattoria Django")
        page.fill(
            "#id_description",
            "Shows the menu of Trattoria Django and books tables, in English and German.",
        )
        page.fill("#id_version", "2.0.0")
        page.fill("#id_provider_organization", "Trattoria Django")
        page.fill("#id_provider_url", "https://trattoria.example")
        page.fill("#id_documentation_url", "https://trattoria.example/agent")
        page.screenshot(path=str(shots / "admin-agent-profile.png"), full_page=True)
        page.click("input[name=_continue]")
        assert "was changed successfully" in page.locator(".messagelist").inner_text()

        # The card agents fetch says it at once (the marker moved).
        served = requests.get(f"{live_server.url}/.well-known/agent-card.json", timeout=10)
        assert served.json()["name"] == "Trattoria Django"
        assert served.json()["provider"]["url"] == "https://trattoria.example"

        page.click("text=View the agent card")
        assert page.url.endswith("/admin/a2a_app/agentcard/")
        assert page.locator("#validation [data-valid=true]").count() == 2  # public, extended
        assert page.locator("#identity h2").inner_text().startswith("Trattoria Django")
        skills = page.locator("#skills").inner_text()
        for shown in ("View the menu", "Do you have vegan dishes?", "Signed-in callers only"):
            assert shown in skills
        assert FORMS_EXTENSION["uri"] in page.locator("#capabilities").inner_text()
        assert '"name": "Trattoria Django"' in page.locator("#card-json").inner_text()
        page.screenshot(path=str(shots / "admin-agent-card.png"), full_page=True)
