"""The admin's "Agent card" page and the v1.0 AgentCard schema it checks the card with.

The schema is ours, from a2a.proto's field facts: it is held against the proto table of
``protocol/card_payload.py`` (itself checked against the official SDK's descriptors), the
served card passes it (plain, signed, with every kind of security scheme), and a broken
card is reported field by field with its JSON path.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from jsonschema import Draft202012Validator

from a2a_app.card_schema import CardProblem, schema, validate_card
from a2a_app.models import AgentProfile, Skill
from a2a_app.protocol.card_payload import MESSAGES
from tests.test_card import card_json, skill_rows, with_a2a_settings
from tests.test_card_signing import RICH, new_pem, signing

pytestmark = pytest.mark.django_db

__all__ = ["skill_rows"]  # a fixture, used by name

PAGE = "/admin/a2a_app/agentcard/"


# --- the schema -------------------------------------------------------------------------------


def test_the_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(schema())


@pytest.mark.parametrize("message", sorted(MESSAGES))
def test_the_schema_has_each_proto_message_with_its_fields_and_required_ones(message):
    definition = schema()["$defs"][message]
    fields = MESSAGES[message]
    assert set(definition["properties"]) == set(fields)
    required = {name for name, field in fields.items() if field.required}
    assert set(definition.get("required", ())) == required


@pytest.mark.parametrize("v03_compat", [True, False], ids=["with-v03-fields", "v1-only"])
@pytest.mark.parametrize("signed", [False, True], ids=["unsigned", "signed"])
def test_the_served_card_is_valid(client, skill_rows, v03_compat, signed):
    keys = [("k1", new_pem())] if signed else []
    with signing(*keys, CARD_V03_COMPAT=v03_compat, **RICH):
        card = card_json(client)
    assert ("signatures" in card) is signed
    assert set(card["securitySchemes"]) == {"key", "basic", "mtls", "oauth"}
    assert validate_card(card) == []


def test_the_served_card_with_a_profile_is_valid(client, skill_rows):
    AgentProfile.objects.create(
        name="Agent", provider_organization="Org", provider_url="https://org.example"
    )
    assert validate_card(card_json(client)) == []


@pytest.fixture
def valid_card(client, skill_rows) -> dict[str, Any]:
    with signing(("k1", new_pem()), **RICH):
        return card_json(client)


def problems_of(card: dict[str, Any]) -> dict[str, str]:
    return {problem.path: problem.message for problem in validate_card(card)}


class TestBrokenCards:
    def test_a_missing_required_field_is_named_by_its_path(self, valid_card):
        del valid_card["version"]
        del valid_card["skills"][1]["tags"]
        assert problems_of(valid_card) == {
            "$.version": "required, but missing",
            "$.skills[1].tags": "required, but missing",
        }

    def test_a_wrong_type_is_named_with_both_types(self, valid_card):
        valid_card["capabilities"]["streaming"] = "yes"
        valid_card["skills"][0]["examples"] = "What's on?"
        valid_card["supportedInterfaces"][0]["url"] = 443
        assert problems_of(valid_card) == {
            "$.capabilities.streaming": "must be of JSON type boolean, not string",
            "$.skills[0].examples": "must be of JSON type array, not string",
            "$.supportedInterfaces[0].url": "must be of JSON type string, not number",
        }

    def test_empty_required_values_are_reported(self, valid_card):
        valid_card["name"] = ""
        valid_card["skills"][0]["tags"] = []
        valid_card["defaultInputModes"] = []
        assert problems_of(valid_card) == {
            "$.name": "required, but empty",
            "$.skills[0].tags": "required: needs at least one element",
            "$.defaultInputModes": "required: needs at least one element",
        }

    def test_a_security_scheme_sets_exactly_one_kind(self, valid_card):
        scheme = valid_card["securitySchemes"]["key"]
        scheme["mtlsSecurityScheme"] = {}
        del valid_card["securitySchemes"]["basic"]["httpAuthSecurityScheme"]
        found = problems_of(valid_card)
        assert set(found) == {"$.securitySchemes.key", "$.securitySchemes.basic"}
        assert found["$.securitySchemes.key"].startswith("must set exactly one of: apiKey")

    def test_a_broken_signature_entry(self, valid_card):
        valid_card["signatures"][0].pop("signature")
        assert problems_of(valid_card) == {"$.signatures[0].signature": "required, but missing"}

    def test_unknown_members_are_allowed(self, valid_card):
        valid_card["somethingNew"] = {"x": 1}
        assert validate_card(valid_card) == []

    def test_not_an_object_at_all(self):
        assert validate_card([]) == [CardProblem("$", "must be of JSON type object, not array")]


# --- the page ---------------------------------------------------------------------------------


@pytest.fixture
def owner(client) -> User:
    user = User.objects.create_superuser("owner", "owner@example.com", "pw-owner-1")
    client.force_login(user)
    return user


def page_of(client) -> str:
    response = client.get(PAGE)
    assert response.status_code == 200
    return response.content.decode()


class TestPage:
    def test_shows_the_card_and_says_it_is_valid(self, client, owner, skill_rows):
        AgentProfile.objects.create(name="Trattoria's agent", description="Books tables.")
        page = page_of(client)
        assert "Trattoria&#x27;s agent" in page and "Books tables." in page
        assert 'data-valid="true"' in page and 'data-valid="false"' not in page
        for shown in ("View menu", "What&#x27;s on the menu?", "menu", "/a2a/jsonrpc"):
            assert shown in page
        assert "Signed-in callers only" in page  # my-bookings' access level
        assert "extended card only" in page
        assert "The card is not signed" in page
        assert "apiKeySecurityScheme" not in page.split('id="json"')[0]  # kinds, in words

    def test_shows_the_json_as_served(self, client, owner, skill_rows):
        page = page_of(client)
        served = client.get("/.well-known/agent-card.json")
        assert served["ETag"] in page.replace("&quot;", '"')
        pretty = json.dumps(json.loads(served.content), indent=2, ensure_ascii=False)
        assert pretty.replace('"', "&quot;").replace("'", "&#x27;") in page

    def test_shows_the_extended_card_the_admin_would_get(self, client, owner, skill_rows):
        page = page_of(client)
        assert 'id="extended-json"' in page
        extended = page.split('id="extended-json">')[1].split("</pre>")[0]
        assert "my-bookings" in extended

    def test_lists_every_problem_with_its_path(self, client, owner, skill_rows):
        Skill.objects.filter(pk="book-table").update(tags=[])
        Skill.objects.get(pk="view-menu").save()  # moves the marker
        page = page_of(client)
        assert 'data-valid="false"' in page
        assert "<code>$.skills[1].tags</code>: required: needs at least one element" in page

    def test_renders_extensions_generically(self, client, owner):
        extension = {
            "uri": "https://example.com/ext/forms/v1",
            "description": "Fields of the skills declared as forms",
            "required": False,
            "params": {"skills": {"book": {"fields": ["day", "name"]}}},
        }
        with with_a2a_settings(EXTENSIONS=[extension]):
            page = page_of(client)
        assert "https://example.com/ext/forms/v1" in page
        assert "Fields of the skills declared as forms" in page
        assert "&quot;fields&quot;: [" in page  # params, pretty JSON

    def test_lists_the_signatures(self, client, owner, skill_rows):
        with signing(("card-key-1", new_pem())):
            page = page_of(client)
        assert "ES256" in page and "card-key-1" in page and "/.well-known/jwks.json" in page

    def test_a_card_that_cannot_be_drawn_is_explained(self, client, owner):
        with signing(("k1", "not a PEM")):
            page = page_of(client)
        assert "The card cannot be drawn" in page and "not an unencrypted PEM" in page

    def test_links_to_the_profile(self, client, owner):
        assert "/admin/a2a_app/agentprofile/1/change/" in page_of(client)

    def test_is_listed_in_the_app_index(self, client, owner):
        for index in ("/admin/", "/admin/a2a_app/"):
            page = client.get(index).content.decode()
            assert f'href="{PAGE}"' in page and "Agent card" in page


class TestPermissions:
    def test_anonymous_visitors_are_sent_to_log_in(self, client):
        response = client.get(PAGE)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]

    def test_staff_without_the_permission_are_refused(self, client):
        staff = User.objects.create_user("staff", password="pw-staff-1", is_staff=True)
        client.force_login(staff)
        assert client.get(PAGE).status_code == 403
        assert f'href="{PAGE}"' not in client.get("/admin/").content.decode()

    def test_staff_with_the_permission_see_it(self, client, skill_rows):
        staff = User.objects.create_user("staff", password="pw-staff-1", is_staff=True)
        staff.user_permissions.add(Permission.objects.get(codename="view_agentcard"))
        client.force_login(staff)
        page = page_of(client)
        assert 'data-valid="true"' in page
        assert "Edit the agent profile" not in page  # they may not change the profile
        # The extended card shown is theirs: my-bookings is for any signed-in caller.
        extended = page.split('id="extended-json">')[1].split("</pre>")[0]
        assert "my-bookings" in extended

    def test_the_page_writes_nothing(self, client, owner, skill_rows):
        before = copy.deepcopy(card_json(client))
        page_of(client)
        assert not AgentProfile.objects.exists()
        assert card_json(client) == before
