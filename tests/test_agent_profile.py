"""The agent profile: who the agent says it is in its card, edited in the admin, with the
``A2A_APP`` settings as defaults; a save reaches every process's card through the change
marker, at no query on the card's hot path."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from a2a_app.models import AgentProfile, CatalogChange
from tests.test_access import HOLDER, extended, users
from tests.test_access import skill_rows as restricted_rows
from tests.test_card import CARD_URL, card_json, get_card, skill_rows, with_a2a_settings
from tests.test_card_signing import new_pem, sdk_verify, served, signing

pytestmark = pytest.mark.django_db

__all__ = ["restricted_rows", "skill_rows", "users"]  # fixtures, used by name

PROFILE = {
    "name": "Trattoria's agent",
    "description": "Books tables at the Trattoria.",
    "version": "2.1.0",
    "provider_organization": "Trattoria GmbH",
    "provider_url": "https://trattoria.example",
    "documentation_url": "https://trattoria.example/agent",
    "icon_url": "https://trattoria.example/icon.png",
}
SETTINGS = {
    "NAME": "From settings",
    "DESCRIPTION": "Described in settings.",
    "VERSION": "0.9",
    "PROVIDER": {"organization": "Settings Org", "url": "https://settings.example"},
    "DOCUMENTATION_URL": "https://settings.example/docs",
    "ICON_URL": None,
}


def identity(card: dict) -> dict:
    fields = ("name", "description", "version", "provider", "documentationUrl", "iconUrl")
    return {field: card[field] for field in fields if field in card}


def table_queries(captured: CaptureQueriesContext, table: str) -> int:
    return sum(1 for q in captured.captured_queries if table in q["sql"])


class TestFallback:
    def test_without_a_profile_the_settings_say_everything(self, client):
        with with_a2a_settings(**SETTINGS):
            card = card_json(client)
        assert identity(card) == {
            "name": "From settings",
            "description": "Described in settings.",
            "version": "0.9",
            "provider": {"organization": "Settings Org", "url": "https://settings.example"},
            "documentationUrl": "https://settings.example/docs",
        }

    def test_a_full_profile_replaces_the_settings(self, client):
        AgentProfile.objects.create(**PROFILE)
        with with_a2a_settings(**SETTINGS):
            card = card_json(client)
        assert identity(card) == {
            "name": "Trattoria's agent",
            "description": "Books tables at the Trattoria.",
            "version": "2.1.0",
            "provider": {"organization": "Trattoria GmbH", "url": "https://trattoria.example"},
            "documentationUrl": "https://trattoria.example/agent",
            "iconUrl": "https://trattoria.example/icon.png",
        }

    def test_each_empty_field_falls_back_to_its_setting(self, client):
        AgentProfile.objects.create(name="  Only a name  ", icon_url="https://x.example/i.png")
        with with_a2a_settings(**SETTINGS):
            card = card_json(client)
        assert card["name"] == "Only a name"  # stripped
        assert card["description"] == "Described in settings."
        assert card["version"] == "0.9"
        assert card["provider"]["organization"] == "Settings Org"
        assert card["iconUrl"] == "https://x.example/i.png"

    def test_a_settings_change_still_shows_under_a_profile(self, client):
        AgentProfile.objects.create(name="Profiled")
        with with_a2a_settings(DESCRIPTION="New words"):
            card = card_json(client)
        assert (card["name"], card["description"]) == ("Profiled", "New words")

    def test_the_extended_card_says_the_same(self, client, restricted_rows, users):
        AgentProfile.objects.create(**PROFILE)
        response = extended(client, HOLDER)
        assert response.status_code == 200
        assert identity(response.json()) == identity(card_json(client))
        assert response.json()["name"] == "Trattoria's agent"

    def test_v03_clients_read_the_profile_too(self, client, rpc, restricted_rows, users):
        AgentProfile.objects.create(**PROFILE)
        headers = {**HOLDER, "A2A-Version": "0.3"}
        result = rpc("agent/getAuthenticatedExtendedCard", None, headers=headers)["result"]
        rest = extended(client, HOLDER, "/v1/card").json()
        public = card_json(client)  # v1.0 and the v0.3 fields side by side
        for card in (result, rest, public):
            assert card["protocolVersion"] == "0.3.0"
            assert card["name"] == "Trattoria's agent"
            assert card["provider"]["organization"] == "Trattoria GmbH"

    def test_a_provider_needs_both_parts(self):
        with pytest.raises(ValidationError) as caught:
            AgentProfile(provider_organization="Org").full_clean()
        assert "provider_url" in caught.value.message_dict
        with pytest.raises(ValidationError) as caught:
            AgentProfile(provider_url="https://org.example").full_clean()
        assert "provider_organization" in caught.value.message_dict
        AgentProfile(provider_organization="Org", provider_url="https://org.example").full_clean()

    def test_conformance_mode_serves_the_settings(self, client, conformance_mode):
        AgentProfile.objects.create(name="Not for the TCK")
        assert card_json(client)["name"] != "Not for the TCK"


class TestChanges:
    def test_a_save_changes_the_card_and_its_etag(self, client, skill_rows):
        before = get_card(client)["ETag"]
        profile = AgentProfile.objects.create(name="First")
        after = get_card(client, **{"If-None-Match": before})
        assert after.status_code == 200 and after["ETag"] != before
        assert json.loads(after.content)["name"] == "First"
        profile.description = "Second thoughts."
        profile.save()
        again = get_card(client, **{"If-None-Match": after["ETag"]})
        assert again.status_code == 200 and again["ETag"] != after["ETag"]
        assert json.loads(again.content)["description"] == "Second thoughts."

    def test_a_save_moves_the_marker(self, skill_rows):
        before = CatalogChange.objects.get().changed_at
        AgentProfile.objects.create(name="Moved")
        assert CatalogChange.objects.get().changed_at > before

    def test_a_save_in_another_process_reaches_this_one_by_the_marker(self, client, skill_rows):
        with with_a2a_settings(CARD_REVALIDATE_SECONDS=0):
            AgentProfile.objects.create(name="Old name")
            first = get_card(client)
            # Another process saves: the row and the marker change in the database, and
            # this process's caches are not told.
            AgentProfile.objects.update(name="New name")
            assert json.loads(get_card(client).content)["name"] == "Old name"  # marker still
            later = CatalogChange.objects.get().changed_at + timedelta(seconds=1)
            CatalogChange.objects.update(changed_at=later)
            response = get_card(client)
        assert json.loads(response.content)["name"] == "New name"
        assert response["ETag"] != first["ETag"]

    def test_last_modified_follows_a_save(self, client, skill_rows):
        from django.utils.http import parse_http_date

        AgentProfile.objects.create(name="Dated")
        changed = CatalogChange.objects.get().changed_at
        assert parse_http_date(get_card(client)["Last-Modified"]) >= int(changed.timestamp())
        assert changed > timezone.now() - timedelta(minutes=1)


class TestQueries:
    def test_the_profile_is_read_once_per_marker_move(self, client, skill_rows):
        AgentProfile.objects.create(name="Counted")
        with with_a2a_settings(CARD_REVALIDATE_SECONDS=0):
            with CaptureQueriesContext(connection) as captured:
                for _ in range(5):
                    assert get_card(client).status_code == 200
            # Each request checks the marker (the window is 0); the profile is read for
            # the one rendering.
            assert table_queries(captured, "a2a_app_agentprofile") == 1
            assert table_queries(captured, "a2a_app_catalogchange") == 5
            with CaptureQueriesContext(connection) as cached:
                assert get_card(client).status_code == 200
            assert len(cached.captured_queries) == 1  # the marker, as before profiles

    def test_a_cached_card_costs_no_query_in_the_window(self, client, skill_rows):
        AgentProfile.objects.create(name="Counted")
        get_card(client)
        with CaptureQueriesContext(connection) as captured:
            assert get_card(client).status_code == 200
        assert captured.captured_queries == []

    def test_routing_never_reads_the_profile(self, rpc, conformance_mode):
        AgentProfile.objects.create(name="Unread")
        with CaptureQueriesContext(connection) as captured:
            rpc("SendMessage", {"message": _message("hello")})
        assert table_queries(captured, "a2a_app_agentprofile") == 0


def _message(text: str) -> dict:
    return {"messageId": "m-profile", "role": "ROLE_USER", "parts": [{"text": text}]}


class TestSigned:
    def test_a_signed_card_covers_the_profile_and_verifies(self, client, skill_rows):
        AgentProfile.objects.create(**PROFILE)
        with signing(("k1", new_pem())):
            raw, key_set = served(client)
        assert raw["name"] == "Trattoria's agent" and raw["signatures"]
        sdk_verify(raw, key_set)
        tampered = {**raw, "name": "Someone else"}
        with pytest.raises(Exception, match="(?i)signature"):
            sdk_verify(tampered, key_set)


class TestAdmin:
    @pytest.fixture
    def owner(self, client):
        user = User.objects.create_superuser("owner", "owner@example.com", "pw-owner-1")
        client.force_login(user)
        return user

    def test_the_list_opens_the_one_row(self, client, owner):
        response = client.get("/admin/a2a_app/agentprofile/")
        assert response.status_code == 302
        assert response["Location"] == "/admin/a2a_app/agentprofile/1/change/"

    def test_the_page_opens_before_any_save_and_shows_the_settings(self, client, owner):
        with with_a2a_settings(**SETTINGS):
            response = client.get("/admin/a2a_app/agentprofile/1/change/")
        assert response.status_code == 200
        page = response.content.decode()
        assert 'placeholder="From settings"' in page
        assert "from A2A_APP[&#x27;NAME&#x27;]" in page
        assert "View the agent card" in page
        assert not AgentProfile.objects.exists()  # opening it writes nothing

    def test_no_add_and_no_delete(self, client, owner):
        assert client.get("/admin/a2a_app/agentprofile/add/").status_code == 403
        AgentProfile.objects.create(name="Kept")
        assert client.get("/admin/a2a_app/agentprofile/1/delete/").status_code == 403

    def test_saving_creates_the_row_and_changes_the_card(self, client, owner, skill_rows):
        before = get_card(client)["ETag"]
        form = {**PROFILE, "_save": "Save"}
        response = client.post("/admin/a2a_app/agentprofile/1/change/", form)
        assert response.status_code == 302, response.content.decode()[:2000]
        assert AgentProfile.objects.get().name == "Trattoria's agent"
        after = get_card(client)
        assert after["ETag"] != before
        assert json.loads(after.content)["provider"]["organization"] == "Trattoria GmbH"

    def test_half_a_provider_is_refused_with_a_message(self, client, owner):
        form = {"provider_organization": "Only an org", "_save": "Save"}
        response = client.post("/admin/a2a_app/agentprofile/1/change/", form)
        assert response.status_code == 200
        assert "Give both the organization and its website" in response.content.decode()
        assert not AgentProfile.objects.exists()

    def test_a_user_without_permission_is_refused(self, client):
        staff = User.objects.create_user("staff", password="pw-staff-1", is_staff=True)
        client.force_login(staff)
        assert client.get("/admin/a2a_app/agentprofile/1/change/").status_code == 403
        assert client.post("/admin/a2a_app/agentprofile/1/change/", PROFILE).status_code == 403
        assert not AgentProfile.objects.exists()


def test_the_card_url_stays_pure_json_for_browsers(client):
    AgentProfile.objects.create(name="Plain")
    response = client.get(CARD_URL, headers={"Accept": "text/html"})
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content)["name"] == "Plain"
