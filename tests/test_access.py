"""Who may use which skill (anyone, signed in, holding a permission), the extended agent
card, and anonymous callers' contexts (docs/security.md)."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import GetExtendedAgentCardRequest
from a2a.utils.constants import TransportProtocol
from django.conf import settings
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.test import override_settings

from a2a_app import checks
from a2a_app.asgi import get_asgi_application
from a2a_app.bindings import card
from a2a_app.caller import ANONYMOUS, Caller
from a2a_app.core import contexts, sending
from a2a_app.models import Skill, Task
from a2a_app.protocol.errors import PermissionDeniedError
from a2a_app.protocol.params import SendMessageRequest
from a2a_app.skills import catalogue
from a2a_app.skills.catalogue import SkillInfo
from a2a_app.skills.registry import SkillSpec, registered, skill
from a2a_app.testing import installed_skill
from tests.conftest import user_message
from tests.support import error_info, error_of, new_task, rest_error, send

pytestmark = pytest.mark.django_db

#: A Django permission that exists in every project with a2a_app (Task's "view").
PERMISSION = "a2a_app.view_task"
#: An API-key scope, which no Django user holds by itself.
SCOPE = "bookings:write"
REST = "/a2a/rest"


def _handler(ctx):
    if "wait" in ctx.text and not ctx.is_follow_up:
        return ctx.ask("Anything else?")
    return ctx.complete(f"{ctx.skill.id} done")


SKILLS = (
    SkillSpec("menu", _handler, "Menu", "Today's menu", tags=("menu", "food")),
    SkillSpec(
        "members", _handler, "Members", "For members", tags=("members",), access="authenticated"
    ),
    SkillSpec(
        "ledger",
        _handler,
        "Ledger",
        "The accounts",
        tags=("ledger", "accounts"),
        access="permission",
        permission=PERMISSION,
    ),
    SkillSpec(
        "bookings",
        _handler,
        "Bookings",
        "Book for others",
        tags=("bookings",),
        access="permission",
        permission=SCOPE,
    ),
)


@pytest.fixture
def skill_rows():
    """The four skills, with rows made from their declarations (``a2a_skills --sync``)."""
    with registered(*SKILLS):
        catalogue.sync_rows()
        catalogue.clear_cache()
        yield
    catalogue.clear_cache()


@pytest.fixture
def users(settings, django_user_model):
    """``holder`` has PERMISSION, ``plain`` has nothing; Basic auth with a fast hash."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    holder = django_user_model.objects.create_user("holder", password="holder-pw")
    app_label, codename = PERMISSION.split(".")
    holder.user_permissions.add(
        Permission.objects.get(content_type__app_label=app_label, codename=codename)
    )
    plain = django_user_model.objects.create_user("plain", password="plain-pw")
    return holder, plain


def basic(username: str) -> dict[str, str]:
    import base64

    token = base64.b64encode(f"{username}:{username}-pw".encode()).decode()
    return {"Authorization": f"Basic {token}"}


HOLDER, PLAIN = basic("holder"), basic("plain")


def named(skill_id: str, text: str = "hello") -> dict[str, Any]:
    return {"message": user_message(text, metadata={"skillId": skill_id})}


def with_a2a_settings(**overrides: Any):
    return override_settings(A2A_APP={**settings.A2A_APP, **overrides})


def info(access: str, permission: str = "", skill_id: str = "s") -> SkillInfo:
    return SkillInfo(skill_id, skill_id, "S", "d", (), (), (), (), access, permission=permission)


# --- the rule -----------------------------------------------------------------------------------


class TestWhoMayUseASkill:
    def test_public_skills_are_for_everyone(self, users):
        holder, plain = users
        for caller in (ANONYMOUS, Caller(user=plain), Caller(user=holder, scopes=frozenset())):
            assert info("public").allows(caller)

    def test_authenticated_skills_are_for_signed_in_callers(self, users):
        _, plain = users
        assert info("authenticated").allows(Caller(user=plain))
        assert not info("authenticated").allows(ANONYMOUS)

    def test_a_django_permission_of_the_user(self, users):
        holder, plain = users
        ledger = info("permission", PERMISSION)
        assert ledger.allows(Caller(user=holder))
        assert not ledger.allows(Caller(user=plain))
        assert not ledger.allows(ANONYMOUS)

    def test_an_api_key_scope(self, users):
        _, plain = users
        bookings = info("permission", SCOPE)
        assert bookings.allows(Caller(user=plain, scopes=frozenset({SCOPE})))
        assert not bookings.allows(Caller(user=plain, scopes=frozenset({"other:scope"})))
        assert not bookings.allows(Caller(user=plain))  # a scope is no Django permission

    def test_a_key_without_the_permission_withholds_the_users(self, users):
        holder, _ = users
        key = Caller(user=holder, scopes=frozenset({"operation:SendMessage"}))
        assert not info("permission", PERMISSION).allows(key)
        assert info("permission", PERMISSION).allows(
            Caller(user=holder, scopes=frozenset({PERMISSION}))
        )

    def test_a_key_limited_to_some_skills_uses_no_other(self, users):
        holder, _ = users
        key = Caller(user=holder, scopes=frozenset({"skill:menu"}))
        assert info("public", skill_id="menu").allows(key)
        assert not info("public", skill_id="other").allows(key)
        assert not info("permission", PERMISSION, skill_id="other").allows(key)

    @pytest.mark.parametrize(("access", "permission"), [("permission", ""), ("staff", "")])
    def test_a_broken_rule_lets_nobody_in(self, users, access, permission):
        holder, _ = users
        assert not info(access, permission).allows(Caller(user=holder))


class TestDeclaringAccess:
    @pytest.mark.parametrize(
        ("access", "permission"),
        [("permission", ""), ("permission", "  "), ("permission", "two words"), ("public", "x.y")],
    )
    def test_the_row_names_a_permission_exactly_when_it_needs_one(self, access, permission):
        row = Skill(id="s", handler="s", name="S", description="d", access=access)
        row.permission = permission
        with pytest.raises(ValidationError) as raised:
            row.full_clean()
        assert set(raised.value.message_dict) == {"permission"}

    @pytest.mark.parametrize(("access", "permission"), [("permission", PERMISSION), ("public", "")])
    def test_valid_rows(self, access, permission):
        row = Skill(id="s", handler="s", name="S", description="d", access=access)
        row.permission = permission
        row.full_clean()

    @pytest.mark.parametrize(
        "declared",
        [
            {"access": "permission"},
            {"access": "staff"},
            {"permission": PERMISSION},
            {"access": "authenticated", "permission": PERMISSION},
        ],
    )
    def test_the_decorator_refuses_a_mistake_at_import(self, declared):
        with pytest.raises(ValueError, match="'s'"):
            skill("s", **declared)

    def test_rows_start_from_the_declaration(self, skill_rows):
        row = Skill.objects.get(pk="ledger")
        assert (row.access, row.permission) == ("permission", PERMISSION)
        assert Skill.objects.get(pk="members").access == "authenticated"

    def test_the_test_kit_makes_the_row_as_declared(self):
        with installed_skill(_handler, "kit", access="permission", permission=SCOPE):
            row = Skill.objects.get(pk="kit")
            assert (row.access, row.permission) == ("permission", SCOPE)


class TestChecks:
    def test_a_row_asking_for_a_permission_it_does_not_name(self, skill_rows):
        assert [p.id for p in checks.check_skill_handlers()] == []
        Skill.objects.filter(pk="ledger").update(permission="")  # past the form's validation
        [problem] = checks.check_skill_handlers()
        assert problem.id == "a2a_app.W011" and "'ledger'" in problem.msg

    def test_an_extended_card_nobody_can_sign_in_for(self):
        with with_a2a_settings(EXTENDED_CARD=True, AUTHENTICATION_CLASSES=[]):
            assert [p.id for p in checks.check_settings()] == ["a2a_app.W040"]
        with with_a2a_settings(EXTENDED_CARD=None, AUTHENTICATION_CLASSES=[]):
            assert checks.check_settings() == []


# --- SendMessage ----------------------------------------------------------------------------------


class TestNamingASkill:
    @pytest.mark.parametrize("private", ["members", "ledger", "bookings"])
    def test_anonymous_callers_are_answered_as_for_an_unknown_skill(self, rpc, skill_rows, private):
        unknown = rpc("SendMessage", named("no-such-skill"))["error"]
        answer = rpc("SendMessage", named(private))["error"]
        assert answer == json.loads(json.dumps(unknown).replace("no-such-skill", private))
        assert answer["code"] == -32602
        assert Task.objects.count() == 0

    def test_a_signed_in_caller_without_the_permission_is_refused(self, rpc, skill_rows, users):
        error = error_of(rpc("SendMessage", named("ledger"), headers=PLAIN, status=403), -32000)
        assert error_info(error)["reason"] == "PERMISSION_DENIED"
        assert error_info(error)["metadata"] == {"skillId": "ledger"}
        assert error["message"].startswith("message.metadata.skillId: ")
        assert PERMISSION in error["message"]
        assert Task.objects.count() == 0

    def test_the_refusal_is_http_403_over_rest(self, client, skill_rows, users):
        response = client.post(
            f"{REST}/message:send",
            json.dumps(named("ledger")),
            content_type="application/json",
            headers=PLAIN,
        )
        rest_error(response, 403, "PERMISSION_DENIED", "PERMISSION_DENIED")

    def test_request_metadata_is_checked_too(self, rpc, skill_rows, users):
        params = {"message": user_message("hello"), "metadata": {"skillId": "ledger"}}
        error = error_of(rpc("SendMessage", params, headers=PLAIN, status=403), -32000)
        assert error["message"].startswith("metadata.skillId: ")

    def test_the_holder_may_use_it(self, rpc, skill_rows, users):
        task = new_task(rpc, "hello", metadata={"skillId": "ledger"}, headers=HOLDER)
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"
        assert Task.objects.get(pk=task["id"]).skill_id == "ledger"

    def test_a_disabled_skill_is_unknown_to_everyone(self, rpc, skill_rows, users):
        Skill.objects.filter(pk="ledger").update(enabled=False)
        catalogue.mark_changed()
        error_of(rpc("SendMessage", named("ledger"), headers=HOLDER), -32602)
        error_of(rpc("SendMessage", named("ledger"), headers=PLAIN), -32602)


class TestRouting:
    def listed(self, body: dict[str, Any]) -> list[str]:
        [data] = [p["data"] for p in body["result"]["message"]["parts"] if "data" in p]
        return [s["id"] for s in data["skills"]]

    def test_words_never_reach_a_skill_the_caller_may_not_use(self, rpc, skill_rows, users):
        body = send(rpc, "ledger accounts bookings", headers=PLAIN)
        assert self.listed(body) == ["members", "menu"]
        assert Task.objects.count() == 0

    def test_the_listing_shows_what_each_caller_may_use(self, rpc, skill_rows, users):
        # Anonymous callers may use one skill only: it takes everything.
        task = new_task(rpc, "quantum chromodynamics")
        assert Task.objects.get(pk=task["id"]).skill_id == "menu"
        everything = self.listed(send(rpc, "quantum chromodynamics", headers=HOLDER))
        assert everything == ["ledger", "members", "menu"]

    def test_the_holder_is_routed_by_words(self, rpc, skill_rows, users):
        task = new_task(rpc, "ledger accounts", headers=HOLDER)
        assert Task.objects.get(pk=task["id"]).skill_id == "ledger"


def send_as(caller: Caller, skill_id: str) -> dict[str, Any]:
    return sending.send_message(SendMessageRequest.from_wire(named(skill_id)), caller)


class TestApiKeyScopes:
    def test_a_key_with_the_scope_uses_the_skill(self, skill_rows, users):
        _, plain = users
        result = send_as(Caller(user=plain, scopes=frozenset({SCOPE})), "bookings")
        assert Task.objects.get(pk=result["task"]["id"]).skill_id == "bookings"

    def test_a_key_for_other_skills_is_refused_by_name(self, skill_rows, users):
        holder, _ = users
        key = Caller(user=holder, scopes=frozenset({"skill:menu", PERMISSION}))
        with pytest.raises(PermissionDeniedError, match="API key does not cover skill 'ledger'"):
            send_as(key, "ledger")
        assert send_as(key, "menu")["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


class TestFollowUps:
    def test_a_withdrawn_permission_stops_the_conversation(self, rpc, skill_rows, users):
        holder, _ = users
        first = new_task(rpc, "wait", metadata={"skillId": "ledger"}, headers=HOLDER)
        assert first["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        before = Task.objects.get(pk=first["id"]).message_count
        holder.user_permissions.clear()
        body = send(rpc, "more", taskId=first["id"], headers=HOLDER, status=403)
        error = error_of(body, -32000)
        assert error_info(error)["reason"] == "PERMISSION_DENIED"
        assert error_info(error)["metadata"] == {"taskId": first["id"], "skillId": "ledger"}
        task = Task.objects.get(pk=first["id"])
        assert (task.state, task.message_count) == ("TASK_STATE_INPUT_REQUIRED", before)

    def test_an_anonymous_caller_learns_nothing_of_a_skill_that_turned_private(
        self, rpc, skill_rows
    ):
        first = new_task(rpc, "wait", metadata={"skillId": "menu"})
        waiting = new_task(rpc, "wait", metadata={"skillId": "menu"})
        # As the owner's save in the admin does: the row's access now wins over the code's.
        Skill.objects.filter(pk="menu").update(
            access="permission", permission=PERMISSION, edited_fields=["access", "permission"]
        )
        catalogue.mark_changed()
        turned_private = error_of(send(rpc, "more", taskId=first["id"]), -32004)
        Skill.objects.filter(pk="menu").update(enabled=False)
        catalogue.mark_changed()
        disabled = error_of(send(rpc, "more", taskId=waiting["id"]), -32004)
        assert turned_private == json.loads(
            json.dumps(disabled).replace(waiting["id"], first["id"])
        )


# --- the cards ------------------------------------------------------------------------------------


def public_card(client) -> dict[str, Any]:
    response = client.get("/.well-known/agent-card.json")
    assert response.status_code == 200
    return response.json()


def extended(client, headers: dict[str, str] | None = None, path: str = "/extendedAgentCard"):
    return client.get(REST + path, headers=headers or {})


def skill_ids(card_json: dict[str, Any]) -> list[str]:
    return [s["id"] for s in card_json["skills"]]


class TestPublicCard:
    def test_only_public_skills_and_the_extended_card_is_declared(self, client, skill_rows):
        data = public_card(client)
        assert skill_ids(data) == ["menu"]
        assert data["capabilities"]["extendedAgentCard"] is True
        assert data["supportsAuthenticatedExtendedCard"] is True
        assert PERMISSION not in json.dumps(data) and SCOPE not in json.dumps(data)

    def test_nothing_private_nothing_declared(self, client, skill_rows):
        Skill.objects.update(access="public", permission="", edited_fields=["access", "permission"])
        catalogue.mark_changed()
        assert public_card(client)["capabilities"]["extendedAgentCard"] is False

    @pytest.mark.parametrize(("setting", "declared"), [(True, True), (False, False)])
    def test_the_setting_decides_when_set(self, client, setting, declared):
        with with_a2a_settings(EXTENDED_CARD=setting):
            assert public_card(client)["capabilities"]["extendedAgentCard"] is declared

    def test_without_authentication_classes_nothing_is_declared(self, client, skill_rows):
        with with_a2a_settings(AUTHENTICATION_CLASSES=[]):
            assert public_card(client)["capabilities"]["extendedAgentCard"] is False

    def test_stays_cached_and_shared_while_extended_cards_are_served(
        self, client, skill_rows, users
    ):
        first = client.get("/.well-known/agent-card.json")
        cached = dict(card._cache)
        assert len(cached) == 1
        assert extended(client, HOLDER).status_code == 200
        assert extended(client, PLAIN).status_code == 200
        assert card._cache == cached  # the extended cards went into no shared cache
        again = client.get("/.well-known/agent-card.json")
        assert again["ETag"] == first["ETag"] and again.content == first.content


class TestExtendedCard:
    def test_anonymous_callers_are_asked_to_sign_in(self, client, rpc, skill_rows):
        response = extended(client)
        error = rest_error(response, 401, "UNAUTHENTICATED", "UNAUTHENTICATED")
        assert "authenticated" in error["message"]
        assert "Basic" in response["WWW-Authenticate"]
        rpc_response = client.post(
            "/a2a/jsonrpc",
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "GetExtendedAgentCard"}),
            content_type="application/json",
        )
        assert rpc_response.status_code == 401
        assert "Basic" in rpc_response["WWW-Authenticate"]
        assert rpc_response.json()["error"]["code"] == -32000

    def test_each_caller_sees_the_skills_it_may_use(self, client, skill_rows, users):
        response = extended(client, HOLDER)
        assert response.status_code == 200
        assert response["Cache-Control"] == "private"
        assert "Authorization" in response["Vary"]
        holder_card = response.json()
        assert skill_ids(holder_card) == ["ledger", "members", "menu"]
        assert skill_ids(extended(client, PLAIN).json()) == ["members", "menu"]
        public = public_card(client)
        assert holder_card["capabilities"]["extendedAgentCard"] is True
        for field in ("name", "description", "version", "supportedInterfaces"):
            assert holder_card[field] == public[field]

    def test_over_jsonrpc(self, rpc, skill_rows, users):
        result = rpc("GetExtendedAgentCard", {}, headers=HOLDER)["result"]
        assert skill_ids(result) == ["ledger", "members", "menu"]
        assert result["capabilities"]["extendedAgentCard"] is True

    def test_v03_jsonrpc_and_rest(self, client, rpc, skill_rows, users):
        headers = {**HOLDER, "A2A-Version": "0.3"}
        with with_a2a_settings(CARD_V03_COMPAT=False):  # v0.3 clients get their fields anyway
            result = rpc("agent/getAuthenticatedExtendedCard", None, headers=headers)["result"]
            response = extended(client, HOLDER, "/v1/card")
        assert result["protocolVersion"] == "0.3.0"
        assert result["supportsAuthenticatedExtendedCard"] is True
        assert skill_ids(result) == ["ledger", "members", "menu"]
        assert response.status_code == 200 and response["Cache-Control"] == "private"
        assert response.json() == result

    def test_not_declared_is_unsupported(self, client, rpc, skill_rows, users):
        with with_a2a_settings(EXTENDED_CARD=False):
            error = error_of(rpc("GetExtendedAgentCard", {}, headers=HOLDER), -32004)
            rest_error(
                extended(client, HOLDER), 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"
            )
        assert error_info(error)["reason"] == "UNSUPPORTED_OPERATION"

    def test_declared_without_a_way_to_sign_in_is_not_configured(self, rpc):
        with with_a2a_settings(EXTENDED_CARD=True, AUTHENTICATION_CLASSES=[]):
            error = error_of(rpc("GetExtendedAgentCard", {}), -32007)
        assert error_info(error)["reason"] == "EXTENDED_AGENT_CARD_NOT_CONFIGURED"


@pytest.mark.django_db(transaction=True)  # the ASGI handler reads from its own thread
@pytest.mark.parametrize("binding", [TransportProtocol.JSONRPC, TransportProtocol.HTTP_JSON])
def test_the_official_sdk_client_reads_the_extended_card(skill_rows, users, binding):
    async def scenario() -> tuple[list[str], list[str]]:
        transport = httpx.ASGITransport(app=get_asgi_application())
        async with httpx.AsyncClient(
            transport=transport, base_url="http://testserver", headers=HOLDER
        ) as http:
            public = await A2ACardResolver(http, "http://testserver").get_agent_card()
            assert public.capabilities.extended_agent_card
            config = ClientConfig(httpx_client=http, supported_protocol_bindings=[binding])
            client = ClientFactory(config).create(public)
            extended = await client.get_extended_agent_card(GetExtendedAgentCardRequest())
            return [s.id for s in public.skills], [s.id for s in extended.skills]

    public, extended = asyncio.run(scenario())
    assert public == ["menu"]
    assert extended == ["ledger", "members", "menu"]


# --- anonymous contexts ---------------------------------------------------------------------------


class TestContextIds:
    def test_generated_ids_are_time_ordered_uuids_and_recognised(self):
        before = int(time.time())
        made = {contexts.new_context_id() for _ in range(50)}
        after = int(time.time())
        assert len(made) == 50
        for context_id in made:
            value = uuid.UUID(context_id)
            assert value.version == 8 and str(value) == context_id
            assert before <= int(context_id[:8], 16) <= after  # the second it was made
            assert contexts.is_generated(context_id)

    def test_ids_generated_before_the_time_ordered_ones_are_still_recognised(self):
        # What new_context_id made until 0012: a uuid4's first 24 digits, then the tag.
        head = uuid.uuid4().hex[:24]
        digits = head + contexts._tag(head, settings.SECRET_KEY)
        old = str(uuid.UUID(hex=digits))
        assert uuid.UUID(old).version == 4
        assert contexts.is_generated(old)

    @pytest.mark.parametrize(
        "chosen", ["session-1", "", None, 42, "00000000-0000-4000-8000-000000000000"]
    )
    def test_client_chosen_ids_are_not(self, chosen):
        assert not contexts.is_generated(chosen)

    def test_altered_ids_are_not(self):
        made = contexts.new_context_id()
        last = "0" if made[-1] != "0" else "1"
        assert not contexts.is_generated(made[:-1] + last)
        assert not contexts.is_generated(made.upper())
        assert not contexts.is_generated(made.replace("-", ""))
        assert not contexts.is_generated(str(uuid.uuid4()))

    def test_a_rotated_key_keeps_its_contexts_through_the_fallbacks(self, settings):
        made = contexts.new_context_id()
        old = settings.SECRET_KEY
        settings.SECRET_KEY = "a-new-secret-key-" + "x" * 40
        assert not contexts.is_generated(made)
        settings.SECRET_KEY_FALLBACKS = [old]

    def test_the_tag_is_djangos_salted_hmac_so_ids_made_before_stay_recognised(self, settings):
        # The key derivation is cached; the tag must stay what salted_hmac gives, or
        # every context handed out by an earlier release would stop being recognised.
        from django.utils.crypto import salted_hmac

        made = contexts.new_context_id()
        head = uuid.UUID(made).hex[:-8]
        expected = salted_hmac(contexts._SALT, head, secret=settings.SECRET_KEY, algorithm="sha256")
        assert uuid.UUID(made).hex[-8:] == expected.hexdigest()[:8]
        assert contexts.is_generated(made)


@pytest.mark.usefixtures("conformance_mode")
class TestAnonymousCallers:
    """Two anonymous clients share one scope; a contextId must not be a way in."""

    def test_one_cannot_list_the_others_tasks_by_any_context_it_names(self, rpc):
        # Client A: one conversation in a context it chose, one in a context we made.
        chosen = new_task(rpc, "hello", contextId="session-1")
        made = new_task(rpc, "hello")
        secret = made["contextId"]
        last = "0" if secret[-1] != "0" else "1"
        # Client B names every context it can think of, and near misses of A's.
        for guess in ("session-1", str(uuid.uuid4()), secret.upper(), secret[:-1] + last):
            result = rpc("ListTasks", {"contextId": guess})["result"]
            assert (result["tasks"], result["totalSize"]) == ([], 0), guess
        assert rpc("ListTasks", {})["result"]["tasks"] == []
        # B joins A's chosen context: A does not see B's task there, nor B A's.
        planted = new_task(rpc, "planted", contextId="session-1")
        assert planted["contextId"] == chosen["contextId"] == "session-1"
        assert rpc("ListTasks", {"contextId": "session-1"})["result"]["tasks"] == []
        # A still lists its own conversation by the id we gave it.
        listed = rpc("ListTasks", {"contextId": secret})["result"]
        assert [t["id"] for t in listed["tasks"]] == [made["id"]]

    def test_a_bad_page_token_is_still_a_bad_request(self, rpc):
        params = {"contextId": "session-1", "pageToken": "garbage!!"}
        error_of(rpc("ListTasks", params), -32602)

    def test_signed_in_callers_list_the_contexts_they_chose(self, rpc, users):
        task = new_task(rpc, "hello", contextId="my-own", headers=PLAIN)
        listed = rpc("ListTasks", {"contextId": "my-own"}, headers=PLAIN)["result"]
        assert [t["id"] for t in listed["tasks"]] == [task["id"]]


# --- the admin ------------------------------------------------------------------------------------


@pytest.fixture
def staff_client(client, django_user_model, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    client.force_login(django_user_model.objects.create_superuser("boss", "b@example.com", "pw"))
    return client


def admin_form(**changes: Any) -> dict[str, Any]:
    form = {
        "id": "ledger",
        "handler": "ledger",
        "name": "Ledger",
        "description": "The accounts",
        "tags": "ledger",  # lists are edited one item per line
        "examples": "",
        "input_modes": "",
        "output_modes": "",
        "enabled": "on",
        "access": "permission",
        "permission": PERMISSION,
        "execution": "",
        "order": "0",
    }
    form.update(changes)
    return form


class TestAdmin:
    URL = "/admin/a2a_app/skill/ledger/change/"

    def test_the_access_fields_are_shown_and_filterable(self, staff_client, skill_rows):
        page = staff_client.get(self.URL).content.decode()
        assert 'name="permission"' in page and "Who may use it" in page
        listing = staff_client.get("/admin/a2a_app/skill/", {"access__exact": "permission"})
        assert listing.status_code == 200
        assert [row.pk for row in listing.context["cl"].result_list] == ["bookings", "ledger"]

    @pytest.mark.parametrize(
        "changes", [{"permission": ""}, {"access": "public"}, {"permission": "a b"}]
    )
    def test_a_permission_exactly_when_access_asks_for_one(self, staff_client, skill_rows, changes):
        response = staff_client.post(self.URL, admin_form(**changes))
        assert response.status_code == 200  # the form again, with the error
        assert "permission" in response.context["adminform"].form.errors
        row = Skill.objects.get(pk="ledger")
        assert (row.access, row.permission) == ("permission", PERMISSION)

    def test_saving_a_new_permission(self, staff_client, skill_rows):
        response = staff_client.post(self.URL, admin_form(permission=SCOPE))
        assert response.status_code == 302, response.content
        assert Skill.objects.get(pk="ledger").permission == SCOPE
