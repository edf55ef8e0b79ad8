"""Choosing a skill for a new task: the default router as a pure function, then through
SendMessage with real Skill rows (outside conformance mode)."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import override_settings

from a2a_app.models import Skill, Task
from a2a_app.protocol.errors import InvalidParamsError
from a2a_app.protocol.types import Message, Part, Role
from a2a_app.skills.catalogue import SkillInfo
from a2a_app.skills.registry import SkillSpec, registered
from a2a_app.skills.routing import route_message, words
from tests.conftest import user_message


def info(
    skill_id: str,
    *,
    name: str = "",
    tags: tuple[str, ...] = (),
    examples: tuple[str, ...] = (),
    description: str = "",
    access: str = "public",
) -> SkillInfo:
    return SkillInfo(
        id=skill_id,
        handler_key=skill_id,
        name=name or skill_id,
        description=description,
        tags=tags,
        examples=examples,
        input_modes=(),
        output_modes=(),
        access=access,
    )


def message(text: str = "", *, metadata: dict[str, Any] | None = None, parts=None) -> Message:
    return Message(
        message_id="m",
        role=Role.USER,
        parts=parts if parts is not None else [Part.text_part(text)],
        metadata=metadata or {},
    )


MENU = info("view-menu", name="View menu", tags=("menu", "food", "dishes"))
BOOKING = info(
    "make-reservation",
    name="Make a reservation",
    tags=("booking", "table"),
    examples=("Book a table for two tonight",),
)
VEGAN = info("vegan-dishes", name="Plant based", tags=("vegan",))
HOURS = info("opening-hours", name="Opening hours", tags=("hours", "open"))
CATALOGUE = [MENU, BOOKING, VEGAN, HOURS]


# --- the router as a function -------------------------------------------------------------------


class TestExplicitSkill:
    def test_message_metadata_names_the_skill(self):
        chosen = route_message(
            message("book a table", metadata={"skillId": "opening-hours"}), {}, CATALOGUE
        )
        assert chosen is HOURS

    def test_request_metadata_names_the_skill(self):
        chosen = route_message(message("book a table"), {"skillId": "view-menu"}, CATALOGUE)
        assert chosen is MENU

    def test_message_metadata_wins_over_request_metadata(self):
        chosen = route_message(
            message("x", metadata={"skillId": "vegan-dishes"}),
            {"skillId": "view-menu"},
            CATALOGUE,
        )
        assert chosen is VEGAN

    def test_unknown_skill_on_message_names_the_field(self):
        with pytest.raises(InvalidParamsError) as caught:
            route_message(message("menu", metadata={"skillId": "nope"}), {}, CATALOGUE)
        error = caught.value
        assert [v.field for v in error.violations] == ["message.metadata.skillId"]
        assert "nope" in error.message
        assert "view-menu" in error.message

    def test_unknown_skill_on_request_names_the_field(self):
        with pytest.raises(InvalidParamsError) as caught:
            route_message(message("menu"), {"skillId": "nope"}, CATALOGUE)
        assert [v.field for v in caught.value.violations] == ["metadata.skillId"]

    def test_unknown_skill_with_a_single_skill_is_still_an_error(self):
        with pytest.raises(InvalidParamsError):
            route_message(message("menu"), {"skillId": "nope"}, [MENU])

    def test_unknown_skill_with_no_skills(self):
        with pytest.raises(InvalidParamsError) as caught:
            route_message(message("x"), {"skillId": "view-menu"}, [])
        assert "none" in caught.value.message


class TestWordOverlap:
    def test_single_skill_is_chosen_without_overlap(self):
        assert route_message(message("completely unrelated"), {}, [HOURS]) is HOURS
        assert route_message(message(""), {}, [HOURS]) is HOURS

    def test_no_skills(self):
        assert route_message(message("menu"), {}, []) is None

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("What food is on the menu?", MENU),
            ("Can I book a table for two?", BOOKING),
            ("When are you open? What are your hours?", HOURS),
            ("MENU please", MENU),
            ("make-reservation", BOOKING),
        ],
    )
    def test_best_overlap_wins(self, text, expected):
        assert route_message(message(text), {}, CATALOGUE) is expected

    def test_more_shared_words_beat_fewer(self):
        # "menu" matches MENU once; "book", "table", "tonight" match BOOKING three times.
        text = "menu? no: book a table tonight"
        assert route_message(message(text), {}, CATALOGUE) is BOOKING

    def test_examples_count(self):
        assert route_message(message("tonight"), {}, CATALOGUE) is BOOKING

    def test_prefix_match(self):
        assert route_message(message("Habt ihr vegane Gerichte?"), {}, CATALOGUE) is VEGAN
        assert route_message(message("veganism"), {}, CATALOGUE) is VEGAN

    def test_short_words_do_not_prefix_match(self):
        # "veg" is shorter than 4 letters: no prefix match with "vegan".
        assert route_message(message("veg"), {}, CATALOGUE) is None

    def test_ties_go_to_the_first_listed(self):
        first = info("first", tags=("pizza",))
        second = info("second", tags=("pizza",))
        third = info("third", tags=("wine",))
        assert route_message(message("pizza"), {}, [first, second, third]) is first
        assert route_message(message("pizza"), {}, [second, first, third]) is second

    def test_a_word_every_skill_has_says_nothing(self):
        first = info("first", tags=("pizza",))
        second = info("second", tags=("pizza",))
        assert route_message(message("pizza"), {}, [first, second]) is None

    def test_no_overlap_is_none(self):
        assert route_message(message("quantum chromodynamics"), {}, CATALOGUE) is None

    def test_stop_words_alone_do_not_match(self):
        what = info("what", tags=("the",))
        other = info("other", tags=("x",))
        assert route_message(message("what is the"), {}, [what, other]) is None

    def test_description_is_not_vocabulary(self):
        described = info("a", tags=("alpha",), description="Knows about zebras")
        other = info("b", tags=("beta",))
        assert route_message(message("zebras"), {}, [described, other]) is None

    def test_no_text_parts_is_none(self):
        data_only = message(parts=[Part.data_part({"menu": True})])
        assert route_message(data_only, {}, CATALOGUE) is None

    def test_words(self):
        # Folded, stemmed ("Personen" -> "person"), numbers and stop words left out.
        assert words("The MENU, please: Ｍｅｎｕ für 2 Personen!") == {"menu", "person"}


# --- through SendMessage ----------------------------------------------------------------------


def _menu(ctx):
    return ctx.complete(f"menu for: {ctx.text}")


def _booking(ctx):
    if not ctx.is_follow_up:
        return ctx.ask("For how many people?", missing=["party_size"])
    return ctx.complete(f"booked: {ctx.text}")


def _private(ctx):
    return ctx.complete("private")


@pytest.fixture
def site_skills(db):
    specs = [
        SkillSpec(key="menu", handler=_menu, name="Menu", description="The menu"),
        SkillSpec(key="booking", handler=_booking, name="Booking", description="Tables"),
        SkillSpec(key="private", handler=_private, name="Private", description="Members"),
    ]
    with registered(*specs):
        Skill.objects.create(
            id="view-menu",
            handler="menu",
            name="View menu",
            description="Read the menu.",
            tags=["menu", "food"],
            order=1,
        )
        Skill.objects.create(
            id="book-table",
            handler="booking",
            name="Book a table",
            description="Reserve a table.",
            tags=["booking", "table", "reservation"],
            order=2,
        )
        Skill.objects.create(
            id="members-area",
            handler="private",
            name="Members area",
            description="Only for members.",
            tags=["members", "secret"],
            access=Skill.Access.AUTHENTICATED,
            order=3,
        )
        yield


def send(rpc, text: str, *, metadata=None, headers=None, **fields) -> dict[str, Any]:
    params: dict[str, Any] = {"message": user_message(text, **fields)}
    if metadata is not None:
        params["metadata"] = metadata
    return rpc("SendMessage", params, headers=headers)


@pytest.mark.django_db
class TestRoutingThroughSendMessage:
    def test_overlap_picks_the_skill(self, rpc, site_skills):
        task = send(rpc, "What food do you have?")["result"]["task"]
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"
        assert task["artifacts"][0]["parts"][0]["text"] == "menu for: What food do you have?"
        assert Task.objects.get(pk=task["id"]).skill_id == "view-menu"

    def test_no_overlap_lists_the_skills_in_a_direct_message(self, rpc, site_skills):
        body = send(rpc, "quantum chromodynamics", contextId="ctx-lost")
        result = body["result"]
        assert set(result) == {"message"}
        reply = result["message"]
        assert reply["role"] == "ROLE_AGENT"
        assert reply["contextId"] == "ctx-lost"
        assert "taskId" not in reply
        text = reply["parts"][0]["text"]
        assert "View menu" in text and "Book a table" in text
        [data] = [p for p in reply["parts"] if "data" in p]
        assert data["mediaType"] == "application/json"
        assert [s["id"] for s in data["data"]["skills"]] == ["view-menu", "book-table"]
        assert data["data"]["skills"][0] == {
            "id": "view-menu",
            "name": "View menu",
            "description": "Read the menu.",
            "examples": [],
        }
        assert data["data"]["language"] == "en"
        assert Task.objects.count() == 0

    def test_listing_has_a_context_when_none_was_given(self, rpc, site_skills):
        reply = send(rpc, "quantum chromodynamics")["result"]["message"]
        assert reply["contextId"]

    def test_request_metadata_skill_id(self, rpc, site_skills):
        task = send(rpc, "What food do you have?", metadata={"skillId": "book-table"})
        task = task["result"]["task"]
        assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        assert Task.objects.get(pk=task["id"]).skill_id == "book-table"

    def test_message_metadata_skill_id(self, rpc, site_skills):
        body = rpc(
            "SendMessage",
            {"message": user_message("table please", metadata={"skillId": "book-table"})},
        )
        assert body["result"]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        body = rpc(
            "SendMessage",
            {
                "message": user_message("table please", metadata={"skillId": "view-menu"}),
                "metadata": {"skillId": "book-table"},
            },
        )
        task = body["result"]["task"]
        assert Task.objects.get(pk=task["id"]).skill_id == "view-menu"

    @pytest.mark.parametrize(
        ("where", "field"),
        [("message", "message.metadata.skillId"), ("request", "metadata.skillId")],
    )
    def test_unknown_skill_id(self, rpc, site_skills, where, field):
        if where == "message":
            params = {"message": user_message("menu", metadata={"skillId": "nope"})}
        else:
            params = {"message": user_message("menu"), "metadata": {"skillId": "nope"}}
        error = rpc("SendMessage", params)["error"]
        assert error["code"] == -32602
        fields = [v["field"] for d in error["data"] for v in d.get("fieldViolations", [])]
        assert fields == [field]
        assert Task.objects.count() == 0

    def test_disabled_skill_is_not_routed(self, rpc, site_skills):
        row = Skill.objects.get(pk="view-menu")
        row.enabled = False
        row.save()
        error = send(rpc, "menu", metadata={"skillId": "view-menu"})["error"]
        assert error["code"] == -32602
        # The only skill left for an anonymous caller takes everything.
        task = send(rpc, "menu food")["result"]["task"]
        assert Task.objects.get(pk=task["id"]).skill_id == "book-table"

    def test_authenticated_skill_is_hidden_from_anonymous_callers(self, rpc, site_skills):
        error = send(rpc, "members secret", metadata={"skillId": "members-area"})["error"]
        assert error["code"] == -32602
        reply = send(rpc, "quantum")["result"]["message"]
        [data] = [p["data"] for p in reply["parts"] if "data" in p]
        assert "members-area" not in [s["id"] for s in data["skills"]]

    def test_authenticated_skill_is_available_to_users(self, rpc, site_skills):
        get_user_model().objects.create_user("member", password="member-pw")
        auth = "Basic " + base64.b64encode(b"member:member-pw").decode()
        task = send(rpc, "members secret", headers={"Authorization": auth})["result"]["task"]
        assert Task.objects.get(pk=task["id"]).skill_id == "members-area"
        assert task["artifacts"][0]["parts"][0]["text"] == "private"

    def test_follow_up_stays_with_the_task_skill(self, rpc, site_skills):
        first = send(rpc, "book a table")["result"]["task"]
        assert first["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        data = [p["data"] for p in first["status"]["message"]["parts"] if "data" in p]
        assert data == [{"missing": ["party_size"]}]
        # The follow-up text would route to the menu skill if it were routed.
        done = send(rpc, "menu food menu", taskId=first["id"])["result"]["task"]
        assert done["status"]["state"] == "TASK_STATE_COMPLETED"
        assert done["artifacts"][0]["parts"][0]["text"] == "booked: menu food menu"

    def test_follow_up_when_the_skill_was_disabled(self, rpc, site_skills):
        first = send(rpc, "book a table")["result"]["task"]
        row = Skill.objects.get(pk="book-table")
        row.enabled = False
        row.save()
        error = send(rpc, "four", taskId=first["id"])["error"]
        assert error["code"] == -32004

    def test_follow_up_when_the_skill_became_authenticated_only(self, rpc, site_skills):
        first = send(rpc, "book a table")["result"]["task"]
        row = Skill.objects.get(pk="book-table")
        row.access = Skill.Access.AUTHENTICATED
        row.save()
        body = send(rpc, "four", taskId=first["id"])
        assert "error" in body
        assert Task.objects.get(pk=first["id"]).state == "TASK_STATE_INPUT_REQUIRED"

    def test_custom_router_setting(self, rpc, site_skills):
        overrides = {**settings.A2A_APP, "ROUTER": "tests.test_routing.always_last"}
        with override_settings(A2A_APP=overrides):
            task = send(rpc, "menu food")["result"]["task"]
        assert Task.objects.get(pk=task["id"]).skill_id == "book-table"


def always_last(message, metadata, skills_available):
    """A custom ROUTER for the settings test: the last available skill."""
    return skills_available[-1] if skills_available else None
