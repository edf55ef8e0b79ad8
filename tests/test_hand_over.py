"""``ctx.hand_over``: a task continues with another skill in the same turn.

The task's skill changes with a WORKING status that says so (events, streams and
webhooks see it), the other skill's form starts from the values handed over plus the
collected ones with its field names, its handler answers the turn, and later turns go
to it. Only to a skill the caller may use, and once per turn.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from django import forms

from a2a_app import HandOverError, InputRequired, SkillContext
from a2a_app.models import Task, TaskEvent
from a2a_app.testing import A2AClient, SkillConversation, installed_skill, record_dispatch

pytestmark = pytest.mark.django_db


class TableForm(forms.Form):
    day = forms.DateField()
    party_size = forms.IntegerField(min_value=1)
    contact = forms.EmailField()


class EventForm(forms.Form):
    day = forms.DateField()
    guests = forms.IntegerField(min_value=9, max_value=500)
    contact = forms.EmailField()
    menu = forms.CharField()


def table(ctx: SkillContext):
    """Tables for up to 8; bigger parties go to the event skill."""
    size = ctx.cleaned_data["party_size"]
    if size > 8:
        return ctx.hand_over(
            "event",
            values={"guests": size},
            note="A party of more than 8 is an event for us.",
        )
    return ctx.complete("Table booked", message="Booked.")


def event(ctx: SkillContext):
    """Events for 9 to 500 guests."""
    data = ctx.cleaned_data
    ctx.state["came_from"] = ctx.handed_over_from
    return ctx.complete(f"Event for {data['guests']}", message=f"Event for {data['guests']}.")


def parts_of(message: dict) -> tuple[str, dict]:
    text = " ".join(p["text"] for p in message["parts"] if "text" in p)
    data = next((p["data"] for p in message["parts"] if "data" in p), {})
    return text, data


@contextlib.contextmanager
def two_skills(**event_spec) -> Iterator[None]:
    with (
        installed_skill(table, "table", form=TableForm),
        installed_skill(event, "event", form=EventForm, **event_spec),
    ):
        yield


FORM = {"day": "2026-12-18", "contact": "ada@example.com"}


def test_a_hand_over_continues_the_task_with_the_other_skill_in_the_same_turn():
    agent = A2AClient()
    with two_skills():
        task = agent.send(data={**FORM, "party_size": 40}, metadata={"skillId": "table"})["task"]
        # The other skill's question is the turn's answer, the note ahead of it.
        assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        text, data = parts_of(task["status"]["message"])
        assert text.startswith("A party of more than 8 is an event for us. ")
        assert "Menu" in text
        assert data["missing"] == ["menu"]
        stored = Task.objects.get(pk=task["id"])
        assert stored.skill_id == "event"
        assert stored.skill_state["a2a_hand_over"] == {"from": "table", "to": "event"}
        # The hand-over is a WORKING status event of its own.
        statuses = [
            e.body["statusUpdate"]["status"]
            for e in TaskEvent.objects.filter(task_id=task["id"], kind="status")
        ]
        handed = [s for s in statuses if s["state"] == "TASK_STATE_WORKING" and "message" in s]
        assert handed, statuses
        _, hand_data = parts_of(handed[-1]["message"])
        assert hand_data == {"handOver": {"from": "table", "to": "event"}}

        # The follow-up goes to the new skill, which kept the values handed over.
        done = agent.send("A buffet", taskId=task["id"], contextId=task["contextId"])["task"]
        assert done["status"]["state"] == "TASK_STATE_COMPLETED"
        assert parts_of(done["status"]["message"])[0] == "Event for 40."
        assert Task.objects.get(pk=task["id"]).skill_state["came_from"] == ""


def test_the_new_skill_starts_from_the_values_and_the_collected_ones_with_its_names():
    with two_skills():
        talk = SkillConversation("table")
        asked = talk.say(data={**FORM, "party_size": 12})
        assert isinstance(asked, InputRequired) and asked.missing == ["menu"]
        values = talk.state["a2a_form"]["values"]
        # day and contact: collected, same names; guests: handed over; party_size: not a field.
        assert values == {"day": "2026-12-18", "contact": "ada@example.com", "guests": 12}
        assert talk.sink.handed_over_to == "event"
        done = talk.say(data={"menu": "buffet"})
        assert done.message == "Event for 12."
        # The hand-over happened in an earlier turn, not this one.
        assert talk.state["came_from"] == ""


def test_the_new_skill_reads_its_other_fields_from_the_same_message():
    with two_skills():
        talk = SkillConversation("table")
        done = talk.say(data={**FORM, "party_size": 12, "menu": "buffet"})
        # The first skill's form has no "menu": the new one reads it from the message.
        assert done.message == "A party of more than 8 is an event for us. Event for 12."
        assert talk.state["came_from"] == "table"


def test_a_completed_hand_over_answers_with_the_new_skills_message_and_the_note():
    agent = A2AClient()
    with two_skills():
        task = agent.send(data={**FORM, "party_size": 30}, metadata={"skillId": "table"})["task"]
        done = agent.send(data={"menu": "pasta"}, taskId=task["id"], contextId=task["contextId"])
        assert done["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_a_skill_the_caller_may_not_use_is_an_error_the_handler_can_handle():
    seen = {}

    def careful(ctx: SkillContext):
        try:
            return ctx.hand_over("event", values={"guests": 20})
        except HandOverError as error:
            seen["error"] = str(error)
            return ctx.reject("Please call us for events.")

    with (
        installed_skill(careful, "careful"),
        installed_skill(event, "event", form=EventForm, access="authenticated"),
    ):
        task = A2AClient().send("twenty people", metadata={"skillId": "careful"})["task"]
    assert task["status"]["state"] == "TASK_STATE_REJECTED"
    assert "may not use" in seen["error"]
    assert Task.objects.get(pk=task["id"]).skill_id == "careful"


@pytest.mark.parametrize("target", ["nowhere", "careful"])
def test_an_unknown_skill_or_the_current_one_is_an_error(target):
    seen = {}

    def careful(ctx: SkillContext):
        with pytest.raises(HandOverError) as raised:
            ctx.hand_over(target)
        seen["error"] = str(raised.value)
        return ctx.complete("ok")

    with installed_skill(careful, "careful"):
        task = A2AClient().send("hi", metadata={"skillId": "careful"})["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert seen["error"]


def test_no_loops_one_hand_over_per_turn():
    seen = {}

    def ping(ctx: SkillContext):
        return ctx.hand_over("pong")

    def pong(ctx: SkillContext):
        try:
            return ctx.hand_over("ping")
        except HandOverError as error:
            seen["error"] = str(error)
            return ctx.ask("Stopped here.")

    with installed_skill(ping, "ping"), installed_skill(pong, "pong"):
        task = A2AClient().send("hi", metadata={"skillId": "ping"})["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert "already handed over" in seen["error"]
    assert Task.objects.get(pk=task["id"]).skill_id == "pong"


def test_a_hand_over_outcome_made_by_hand_to_a_forbidden_skill_fails_safely():
    from a2a_app import HandOver

    def sneaky(ctx: SkillContext):
        return HandOver("event", {"guests": 20})

    with (
        installed_skill(sneaky, "sneaky"),
        installed_skill(event, "event", form=EventForm, access="authenticated"),
    ):
        task = A2AClient().send("hi", metadata={"skillId": "sneaky"})["task"]
    assert task["status"]["state"] == "TASK_STATE_FAILED"
    assert Task.objects.get(pk=task["id"]).skill_id == "sneaky"


@pytest.mark.django_db(transaction=True)
def test_a_background_task_hands_over_in_the_worker():
    agent = A2AClient()
    with (
        installed_skill(table, "table", form=TableForm, background=True),
        installed_skill(event, "event", form=EventForm),
        record_dispatch() as recorder,
    ):
        task = agent.send(
            data={**FORM, "party_size": 40},
            metadata={"skillId": "table"},
            configuration={"returnImmediately": True},
        )["task"]
        assert recorder.run_queued() == ["TASK_STATE_INPUT_REQUIRED"]
        stored = Task.objects.get(pk=task["id"])
        assert stored.skill_id == "event"
        assert stored.status_message["parts"][0]["text"].startswith("A party of more than 8")


@pytest.mark.django_db(transaction=True)
def test_a_stream_sees_the_hand_over():
    import asyncio

    agent = A2AClient()
    with two_skills():
        params = agent.send_params(data={**FORM, "party_size": 40}, metadata={"skillId": "table"})
        events = asyncio.run(agent.stream("SendStreamingMessage", params))
    working = [
        e["statusUpdate"]["status"]
        for e in events
        if "statusUpdate" in e and e["statusUpdate"]["status"]["state"] == "TASK_STATE_WORKING"
    ]
    assert any(
        parts_of(s["message"])[1].get("handOver") == {"from": "table", "to": "event"}
        for s in working
        if "message" in s
    ), events
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
