"""The public agent card (spec reference §3.5, §5.11), the skill catalogue behind it,
the system checks and the ``a2a_skills`` management command."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import Client, override_settings
from django.utils.http import http_date, parse_http_date

from a2a_app import checks
from a2a_app.bindings import card
from a2a_app.models import CatalogChange, Skill
from a2a_app.skills import catalogue as skills
from a2a_app.skills.registry import SkillSpec, registered

pytestmark = pytest.mark.django_db

CARD_URL = "/.well-known/agent-card.json"


def _handler(ctx):
    return ctx.complete("ok")


SPECS = [
    SkillSpec(key="view-menu", handler=_handler, name="View menu", description="The menu"),
    SkillSpec(key="book-table", handler=_handler, name="Book", description="Reservations"),
    SkillSpec(key="my-bookings", handler=_handler, name="Mine", description="Your bookings"),
]


@pytest.fixture
def skill_rows():
    with registered(*SPECS):
        Skill.objects.create(
            id="view-menu",
            handler="view-menu",
            name="View menu",
            description="Read today's menu.",
            tags=["menu", "food"],
            examples=["What's on the menu?"],
            order=1,
        )
        Skill.objects.create(
            id="book-table",
            handler="book-table",
            name="Book a table",
            description="Reserve a table.",
            tags=["booking"],
            input_modes=["application/json"],
            output_modes=["application/json"],
            order=2,
        )
        Skill.objects.create(
            id="my-bookings",
            handler="my-bookings",
            name="My bookings",
            description="List your bookings.",
            tags=["booking"],
            access=Skill.Access.AUTHENTICATED,
            order=3,
        )
        yield


def get_card(client: Client, **headers: str):
    return client.get(CARD_URL, headers=headers)


def card_json(client: Client) -> dict[str, Any]:
    response = get_card(client)
    assert response.status_code == 200
    return json.loads(response.content)


def with_a2a_settings(**overrides: Any):
    return override_settings(A2A_APP={**settings.A2A_APP, **overrides})


# --- content ----------------------------------------------------------------------------------


class TestCardContent:
    def test_served_as_json(self, client, skill_rows):
        response = get_card(client)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
        assert response["Access-Control-Allow-Origin"] == "*"
        assert isinstance(json.loads(response.content), dict)

    def test_required_fields(self, client, skill_rows):
        data = card_json(client)
        for field in (
            "name",
            "description",
            "supportedInterfaces",
            "version",
            "capabilities",
            "defaultInputModes",
            "defaultOutputModes",
            "skills",
        ):
            assert field in data, field
        assert data["name"] == settings.A2A_APP["NAME"]
        assert data["description"] == settings.A2A_APP["DESCRIPTION"]
        assert data["version"] == settings.A2A_APP["VERSION"]
        assert data["provider"] == settings.A2A_APP["PROVIDER"]
        assert data["defaultInputModes"] == ["text/plain", "application/json"]
        assert data["defaultOutputModes"] == ["text/plain", "application/json"]
        # The v0.3 top-level fields, for v0.3 clients (CARD_V03_COMPAT, on by default).
        assert data["protocolVersion"] == "0.3.0"
        assert data["url"] == "http://testserver/a2a/jsonrpc"
        assert data["preferredTransport"] == "JSONRPC"
        assert data["additionalInterfaces"] == [
            {"url": "http://testserver/a2a/jsonrpc", "transport": "JSONRPC"},
            {"url": "http://testserver/a2a/rest", "transport": "HTTP+JSON"},
        ]
        # "my-bookings" is for signed-in callers: the extended card has more to show.
        assert data["supportsAuthenticatedExtendedCard"] is True

    def test_a_pure_v1_card_without_v03_fields(self, client, settings):
        settings.A2A_APP = {**settings.A2A_APP, "CARD_V03_COMPAT": False}
        data = card_json(client)
        for legacy in ("protocolVersion", "url", "preferredTransport", "additionalInterfaces"):
            assert legacy not in data
        assert {i["protocolVersion"] for i in data["supportedInterfaces"]} == {"1.0"}

    def test_interface(self, client):
        interface, rest, interface_03, rest_03 = card_json(client)["supportedInterfaces"]
        assert interface_03 == {**interface, "protocolVersion": "0.3"}
        assert rest_03 == {**rest, "protocolVersion": "0.3"}
        assert interface == {
            "url": "http://testserver/a2a/jsonrpc",
            "protocolBinding": "JSONRPC",
            "protocolVersion": "1.0",
        }
        assert rest == {
            "url": "http://testserver/a2a/rest",
            "protocolBinding": "HTTP+JSON",
            "protocolVersion": "1.0",
        }

    def test_interface_follows_the_host(self, client):
        response = client.get(CARD_URL, HTTP_HOST="localhost")
        interface = json.loads(response.content)["supportedInterfaces"][0]
        assert interface["url"] == "http://localhost/a2a/jsonrpc"
        assert "Host" in response["Vary"]

    def test_interface_is_https_behind_https(self, client):
        response = client.get(CARD_URL, secure=True)
        interface = json.loads(response.content)["supportedInterfaces"][0]
        assert interface["url"] == "https://testserver/a2a/jsonrpc"

    def test_public_url_setting(self, client):
        with with_a2a_settings(PUBLIC_URL="https://agent.example.com/"):
            response = get_card(client)
        interface = json.loads(response.content)["supportedInterfaces"][0]
        assert interface["url"] == "https://agent.example.com/a2a/jsonrpc"
        assert "Host" not in response.get("Vary", "")

    def test_capabilities_are_truthful(self, client):
        assert card_json(client)["capabilities"] == {
            "streaming": False,
            "pushNotifications": True,
            "extendedAgentCard": False,
        }

    def test_declared_extensions_are_in_capabilities(self, client):
        extension = {"uri": "https://x/ext", "required": True}
        with with_a2a_settings(EXTENSIONS=[extension]):
            capabilities = card_json(client)["capabilities"]
        assert capabilities["extensions"] == [extension]
        assert capabilities["streaming"] is False

    def test_skills(self, client, skill_rows):
        listed = card_json(client)["skills"]
        assert listed == [
            {
                "id": "view-menu",
                "name": "View menu",
                "description": "Read today's menu.",
                "tags": ["menu", "food"],
                "examples": ["What's on the menu?"],
            },
            {
                "id": "book-table",
                "name": "Book a table",
                "description": "Reserve a table.",
                "tags": ["booking"],
                "inputModes": ["application/json"],
                "outputModes": ["application/json"],
            },
        ]

    def test_authenticated_skills_are_not_listed(self, client, skill_rows):
        ids = [s["id"] for s in card_json(client)["skills"]]
        assert "my-bookings" not in ids
        Skill.objects.filter(pk="my-bookings").update(access=Skill.Access.PUBLIC)
        skills.mark_changed()
        assert "my-bookings" in [s["id"] for s in card_json(client)["skills"]]

    def test_skills_follow_order(self, client, skill_rows):
        row = Skill.objects.get(pk="view-menu")
        row.order = 10
        row.save()
        assert [s["id"] for s in card_json(client)["skills"]] == ["book-table", "view-menu"]

    def test_no_skills(self, client):
        data = card_json(client)
        assert data["skills"] == []

    def test_conformance_mode_lists_the_conformance_skill(self, client, conformance_mode):
        [only] = card_json(client)["skills"]
        assert only["id"] == "conformance"
        assert only["tags"] == ["conformance", "echo", "test"]

    def test_optional_urls(self, client):
        with with_a2a_settings(
            DOCUMENTATION_URL="https://docs.example.com", ICON_URL="https://x/icon.png"
        ):
            data = card_json(client)
        assert data["documentationUrl"] == "https://docs.example.com"
        assert data["iconUrl"] == "https://x/icon.png"
        assert "documentationUrl" not in card_json(client)


# --- caching ----------------------------------------------------------------------------------


class TestCardCaching:
    def test_cache_control(self, client):
        response = get_card(client)
        assert "max-age=300" in response["Cache-Control"]
        with with_a2a_settings(CARD_MAX_AGE=60):
            assert "max-age=60" in get_card(client)["Cache-Control"]

    def test_strong_etag(self, client, skill_rows):
        etag = get_card(client)["ETag"]
        assert not etag.startswith("W/")
        assert etag.startswith('"') and etag.endswith('"') and len(etag) > 2
        assert get_card(client)["ETag"] == etag

    @pytest.mark.parametrize("form", ["{etag}", "W/{etag}", '"other", {etag}', "*"])
    def test_if_none_match_gives_304(self, client, skill_rows, form):
        etag = get_card(client)["ETag"]
        response = get_card(client, **{"If-None-Match": form.format(etag=etag)})
        assert response.status_code == 304
        assert response.content == b""
        assert response["ETag"] == etag
        assert "max-age" in response["Cache-Control"]

    def test_304_carries_what_a_cache_needs_and_no_representation_metadata(self, client):
        full = get_card(client)
        response = get_card(client, **{"If-None-Match": full["ETag"]})
        assert response.status_code == 304
        # RFC 9110 15.4.5: the validators and caching headers of the 200 ...
        for name in ("ETag", "Cache-Control", "Vary", "Access-Control-Allow-Origin"):
            assert response[name] == full[name], name
        # ... but no Content-Type, and Last-Modified only matters without an ETag.
        assert not response.has_header("Content-Type")
        assert not response.has_header("Last-Modified")

    def test_if_none_match_other_etag_gives_200(self, client, skill_rows):
        response = get_card(client, **{"If-None-Match": '"not-the-etag"'})
        assert response.status_code == 200
        assert json.loads(response.content)["skills"]

    def test_if_none_match_takes_precedence_over_if_modified_since(self, client, skill_rows):
        last_modified = get_card(client)["Last-Modified"]
        response = get_card(
            client, **{"If-None-Match": '"stale"', "If-Modified-Since": last_modified}
        )
        assert response.status_code == 200

    def test_last_modified(self, client, skill_rows):
        response = get_card(client)
        last_modified = parse_http_date(response["Last-Modified"])
        changed_at = CatalogChange.objects.get().changed_at
        assert last_modified == int(changed_at.timestamp())

        same = get_card(client, **{"If-Modified-Since": response["Last-Modified"]})
        assert same.status_code == 304
        assert same.content == b""
        later = get_card(client, **{"If-Modified-Since": http_date(last_modified + 3600)})
        assert later.status_code == 304
        earlier = get_card(client, **{"If-Modified-Since": http_date(last_modified - 10)})
        assert earlier.status_code == 200
        assert json.loads(earlier.content)["name"]

    def test_last_modified_in_conformance_mode(self, client, conformance_mode):
        response = get_card(client)
        revalidated = get_card(client, **{"If-Modified-Since": response["Last-Modified"]})
        assert revalidated.status_code == 304

    def test_etag_changes_with_a_description(self, client, skill_rows):
        before = get_card(client)["ETag"]
        row = Skill.objects.get(pk="view-menu")
        row.description = "Read tonight's menu."
        row.save()
        response = get_card(client, **{"If-None-Match": before})
        assert response.status_code == 200
        assert response["ETag"] != before
        described = {s["id"]: s["description"] for s in json.loads(response.content)["skills"]}
        assert described["view-menu"] == "Read tonight's menu."

    def test_disabled_skill_disappears(self, client, skill_rows):
        before = get_card(client)["ETag"]
        row = Skill.objects.get(pk="view-menu")
        row.enabled = False
        row.save()
        response = get_card(client, **{"If-None-Match": before})
        assert response.status_code == 200
        assert response["ETag"] != before
        assert [s["id"] for s in json.loads(response.content)["skills"]] == ["book-table"]

    def test_deleted_skill_disappears(self, client, skill_rows):
        before = get_card(client)["ETag"]
        Skill.objects.get(pk="book-table").delete()
        response = get_card(client)
        assert response["ETag"] != before
        assert [s["id"] for s in json.loads(response.content)["skills"]] == ["view-menu"]

    def test_etag_changes_with_settings(self, client):
        before = get_card(client)["ETag"]
        with with_a2a_settings(NAME="Another agent"):
            response = get_card(client, **{"If-None-Match": before})
            assert response.status_code == 200
            assert response["ETag"] != before
            assert json.loads(response.content)["name"] == "Another agent"
        assert get_card(client)["ETag"] == before

    def test_last_modified_is_not_older_than_the_process(self, client, skill_rows, monkeypatch):
        # Skills changed long ago; this process (maybe with new settings) started later.
        changed_at = CatalogChange.objects.get().changed_at
        started = (changed_at + timedelta(hours=1)).replace(microsecond=0)
        monkeypatch.setattr(card, "_STARTED_AT", started)
        response = get_card(client)
        assert parse_http_date(response["Last-Modified"]) == int(started.timestamp())
        before_start = http_date(int(changed_at.timestamp()) + 60)
        assert get_card(client, **{"If-Modified-Since": before_start}).status_code == 200

    def test_etag_differs_per_host(self, client):
        here = get_card(client)["ETag"]
        there = client.get(CARD_URL, HTTP_HOST="localhost")["ETag"]
        assert here != there

    def test_head(self, client):
        response = client.head(CARD_URL)
        assert response.status_code == 200
        assert response["ETag"]


# --- methods ----------------------------------------------------------------------------------


class TestCardMethods:
    @pytest.mark.parametrize("method", ["post", "put", "delete"])
    def test_unsafe_methods_are_405(self, client, method):
        response = getattr(client, method)(CARD_URL)
        assert response.status_code == 405
        assert "GET" in response["Allow"]

    def test_post_is_405_even_with_csrf_checks(self):
        response = Client(enforce_csrf_checks=True).post(CARD_URL)
        assert response.status_code == 405
        assert "GET" in response["Allow"]


# --- system checks ----------------------------------------------------------------------------


class TestSystemChecks:
    def test_unregistered_handler_is_an_error(self):
        Skill.objects.create(id="lost", handler="no-such-handler", name="Lost", description="-")
        problems = checks.check_skill_handlers()
        assert [p.id for p in problems] == ["a2a_app.E010"]
        assert "no-such-handler" in problems[0].msg
        with pytest.raises(SystemCheckError, match="a2a_app.E010"):
            call_command("check", "--database", "default", stdout=StringIO(), stderr=StringIO())

    def test_unregistered_handler_of_a_disabled_skill_is_a_warning(self):
        Skill.objects.create(
            id="lost", handler="no-such-handler", name="Lost", description="-", enabled=False
        )
        assert [p.id for p in checks.check_skill_handlers()] == ["a2a_app.W010"]

    def test_registered_handlers_pass(self, skill_rows):
        assert checks.check_skill_handlers() == []

    def test_unknown_setting_is_an_error(self):
        with with_a2a_settings(COLOUR="blue"):
            problems = checks.check_settings()
        assert [p.id for p in problems] == ["a2a_app.E002"]
        assert "COLOUR" in problems[0].msg
        with with_a2a_settings(COLOUR="blue"), pytest.raises(SystemCheckError, match="E002"):
            call_command("check", stdout=StringIO(), stderr=StringIO())

    @pytest.mark.parametrize(
        ("key", "value"),
        [
            ("ROUTER", "no.such.module.route"),
            # An import path from before the layout change names no module now.
            ("WEBHOOK_SENDER", "a2a_app.webhooks.OutboxSender"),
            ("DISPATCHER", "a2a_app.tasks.Dispatcher"),
        ],
    )
    def test_bad_import_string_is_an_error(self, key, value):
        with with_a2a_settings(**{key: value}):
            problems = checks.check_settings()
        assert [p.id for p in problems] == ["a2a_app.E003"]
        assert f"{value!r} for setting A2A_APP[{key!r}]" in problems[0].msg

    def test_relative_public_url_is_an_error(self):
        with with_a2a_settings(PUBLIC_URL="agent.example.com"):
            problems = checks.check_settings()
        assert [p.id for p in problems] == ["a2a_app.E004"]

    def test_default_settings_pass(self):
        assert checks.check_settings() == []


# --- the a2a_skills command -------------------------------------------------------------------


class TestSkillsCommand:
    SPEC = SkillSpec(
        key="sync-me",
        handler=_handler,
        name="Sync me",
        description="Created by --sync",
        tags=("a", "b"),
        examples=("do it",),
        input_modes=("text/plain",),
        access="authenticated",
    )

    def test_sync_creates_missing_rows(self):
        with registered(self.SPEC):
            out = StringIO()
            call_command("a2a_skills", "--sync", stdout=out)
            row = Skill.objects.get(pk="sync-me")
            assert "created Skill row 'sync-me'" in out.getvalue()
            assert row.handler == "sync-me"
            assert row.name == "Sync me"
            assert row.description == "Created by --sync"
            assert row.tags == ["a", "b"]
            assert row.examples == ["do it"]
            assert row.input_modes == ["text/plain"]
            assert row.access == "authenticated"
            assert row.enabled is True
            # Running again creates nothing new.
            again = StringIO()
            call_command("a2a_skills", "--sync", stdout=again)
            assert "created" not in again.getvalue()
            assert Skill.objects.filter(handler="sync-me").count() == 1
        assert not Skill.objects.filter(pk="conformance").exists()

    def test_sync_keeps_edited_rows(self):
        with registered(self.SPEC):
            Skill.objects.create(id="custom-id", handler="sync-me", name="Edited", description="x")
            call_command("a2a_skills", "--sync", stdout=StringIO())
            assert list(Skill.objects.filter(handler="sync-me").values_list("id", "name")) == [
                ("custom-id", "Edited")
            ]

    def test_without_sync_only_lists(self):
        with registered(self.SPEC):
            out = StringIO()
            call_command("a2a_skills", stdout=out)
            assert "sync-me" in out.getvalue()
            assert "no row" in out.getvalue()
        assert not Skill.objects.filter(handler="sync-me").exists()

    def test_sync_does_not_crash_when_the_id_is_taken(self):
        with registered(self.SPEC):
            Skill.objects.create(id="sync-me", handler="renamed", name="Kept", description="x")
            call_command("a2a_skills", "--sync", stdout=StringIO())
            row = Skill.objects.get(pk="sync-me")
            assert (row.handler, row.name) == ("renamed", "Kept")
