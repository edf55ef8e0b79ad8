"""The catering-request skill: parsing, the handler, the router, and a manager's decision.

The handler is called directly with a SkillContext (as a worker calls it), then the
whole path runs through the real stack: SendMessage → worker → admin action → GetTask.
"""

from __future__ import annotations

import io
import re
import uuid
from datetime import date, datetime, time, timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from a2a_app.core import runner
from a2a_app.forms.text import DeterministicInterpreter
from a2a_app.models import Skill
from a2a_app.protocol.types import Message, Part, Role
from a2a_app.skills import registry
from a2a_app.skills.catalogue import SkillInfo, get_catalogue
from a2a_app.skills.context import InputRequired, Working
from a2a_app.skills.routing import route_message
from a2a_app.testing import SkillConversation
from skills import catering
from skills.booking_skills import CateringForm
from skills.models import CateringRequest

NOW = timezone.make_aware(datetime(2026, 12, 1, 10, 0))  # a Tuesday
WAITING = "waiting for a manager's approval"


def future(days: int = 30) -> date:
    return timezone.localdate() + timedelta(days=days)


# --- parsing -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Catering for 40 people on 2026-12-18 at 12:00, contact events@acme.example",
         {"date": "2026-12-18", "time": "12:00", "guests": 40,
          "contact": "events@acme.example"}),
        ("Wir möchten am Freitag mit 25 Personen feiern, Kontakt: anna@example.com",
         {"date": "2026-12-04", "guests": 25, "contact": "anna@example.com"}),
        ("Company party with 60 guests on December 18, my name is Eva Braun, +49 30 1234567",
         {"date": "2026-12-18", "guests": 60, "name": "Eva Braun", "contact": "+49301234567"}),
        ("Firmenfeier mit 40 Teilnehmern am 12.12. um 18 Uhr, Ansprechpartner Max Mustermann",
         {"date": "2026-12-12", "time": "18:00", "guests": 40, "name": "Max Mustermann"}),
        ("Weihnachtsfeier für eine Gruppe von 30 Leuten am 18.12.",
         {"date": "2026-12-18", "guests": 30}),
        ("Catering für 120 Gäste", {"guests": 120}),
    ],
)  # fmt: skip
def test_parse_request(text: str, expected: dict[str, Any]) -> None:
    # Read by a2a_app's interpreter into the skill's form (phones in E.164).
    found = DeterministicInterpreter().interpret(text, CateringForm, now=NOW)
    assert found == expected


def test_parse_bare_answer_for_guests() -> None:
    found = DeterministicInterpreter().interpret("40", CateringForm, asked=["guests"], now=NOW)
    assert found == {"guests": 40}


@pytest.mark.parametrize(
    ("fields", "codes"),
    [
        ({"guests": 9, "date": "2026-12-18", "time": "12:00"}, []),
        ({"guests": 500}, []),
        ({"guests": 8}, ["group_too_small"]),
        ({"guests": 501}, ["group_too_large"]),
        ({"date": "2026-11-30"}, ["past_date"]),
        ({"date": "2028-01-01"}, ["too_far"]),
        ({"date": "2026-12-01", "time": "09:00"}, ["past_time"]),
        ({"date": "2026-12-01"}, []),  # today, no time: fine
    ],
)
def test_check(fields: dict[str, Any], codes: list[str]) -> None:
    assert [p.code for p in catering.check(fields, NOW)] == codes


# --- the handler, called directly -------------------------------------------------------------


def catering_task() -> SkillConversation:
    """One task of the catering skill, over several turns."""
    return SkillConversation("catering-request")


def test_skill_is_registered_as_background() -> None:
    spec = registry.get("catering-request")
    assert spec.name == "Catering and large groups" and spec.background is True


@pytest.mark.django_db
def test_complete_request_is_stored_and_left_working() -> None:
    day = future()
    talk = catering_task()
    outcome = talk.say(f"Catering for 40 people on {day} at 12:00, contact events@acme.example")
    assert isinstance(outcome, Working)
    request = CateringRequest.objects.get()
    assert re.fullmatch(r"CT-[2-9A-Z]{6}", request.reference)
    assert (request.task_id, request.date, request.time, request.guests, request.contact) == (
        talk.task_id, day, time(12, 0), 40, "events@acme.example"
    )  # fmt: skip
    assert (request.status, request.language, request.name) == ("pending", "en", "")
    assert request.notes.startswith("Catering for 40 people")
    assert outcome.message.startswith(f"Request {request.reference} received; {WAITING}")
    # The status message carries the reference as data; nothing else was reported.
    assert talk.sink.statuses == []
    assert outcome.data == {
        "reference": request.reference, "guests": 40, "date": day.isoformat(),
        "time": "12:00", "status": "pending",
    }  # fmt: skip
    assert talk.state["reference"] == request.reference


@pytest.mark.django_db
def test_german_request_without_time() -> None:
    outcome = catering_task().say(
        f"Wir möchten am {future():%d.%m.%Y} mit 25 Personen feiern, Kontakt: anna@example.com"
    )
    assert isinstance(outcome, Working)
    request = CateringRequest.objects.get()
    assert (request.language, request.time, request.guests) == ("de", None, 25)
    assert outcome.message.startswith(f"Anfrage {request.reference} erhalten; sie wartet auf")


@pytest.mark.django_db
def test_missing_fields_are_asked_for_over_turns() -> None:
    talk = catering_task()
    first = talk.say("We'd like catering for our company party")
    assert isinstance(first, InputRequired)
    assert first.missing == ["date", "guests", "contact"]
    assert first.question == (
        "To pass on your request I still need the date, the number of guests and an "
        "e-mail address or phone number."
    )
    second = talk.say("40")
    assert second.missing == ["date", "contact"]
    assert second.data == {"missing": ["date", "contact"], "errors": {}, "known": {"guests": 40}}
    day = future()
    third = talk.say(f"on {day}, call us at +49 30 1234567")
    assert isinstance(third, Working)
    request = CateringRequest.objects.get()
    assert (request.date, request.guests, request.contact) == (day, 40, "+49301234567")
    assert request.notes.splitlines() == [
        "We'd like catering for our company party", "40", f"on {day}, call us at +49 30 1234567",
    ]  # fmt: skip
    assert "missing" not in talk.state


@pytest.mark.django_db
def test_data_part_and_bad_values_asked_again() -> None:
    talk = catering_task()
    asked = talk.say(data={"date": "2020-01-01", "guests": 30, "contact": "a@b.de"})
    assert asked.missing == ["date"]
    assert asked.question.startswith("That date is in the past.")
    assert talk.say(data={"date": future().isoformat()}).message.startswith("Request CT-")
    assert CateringRequest.objects.get().guests == 30


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Catering for 6 people", "For 6 guests we can simply book you a table."),
        ("Feier mit 4 Personen", "Für 4 Personen reservieren wir Ihnen gern einen Tisch."),
    ],
)
def test_a_group_that_fits_a_table_is_handed_over_to_the_booking(
    demo, text: str, expected: str
) -> None:
    talk = catering_task()
    outcome = talk.say(text)
    assert isinstance(outcome, InputRequired)
    assert outcome.question.startswith(expected)
    assert talk.sink.handed_over_to == "make-reservation"
    assert talk.state["a2a_form"]["values"]["party_size"] in (4, 6)
    assert not CateringRequest.objects.exists()


@pytest.mark.django_db
def test_a_group_too_large_is_told_why_and_asked_again() -> None:
    outcome = catering_task().say("Catering for 800 people")
    assert isinstance(outcome, InputRequired)
    assert outcome.question.startswith("We cater for at most 500 guests")
    assert "guests" in outcome.missing
    assert not CateringRequest.objects.exists()


@pytest.mark.django_db
def test_running_again_for_the_same_task_keeps_one_request() -> None:
    text = f"Catering for 40 people on {future()}, contact events@acme.example"
    talk = catering_task()
    first = talk.say(text)
    talk.state.clear()  # a worker that died before saving the state
    again = talk.say(text)
    assert again.message == first.message
    assert CateringRequest.objects.count() == 1


# --- routing and demo data ----------------------------------------------------------------------


def test_load_demo_registers_the_skill_once(db) -> None:
    Skill.objects.all().delete()
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    assert "catering-request" in out.getvalue()
    row = Skill.objects.get(id="catering-request")
    assert row.name == "Catering and large groups" and "Firmenfeier" in row.tags
    message = Message(message_id="m", role=Role.USER, parts=[Part.text_part("Catering")])
    assert SkillInfo.from_row(row).runs_in_background(message)
    count = Skill.objects.count()
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    assert Skill.objects.count() == count and "already present" in out.getvalue()


@pytest.mark.parametrize(
    ("text", "skill_id"),
    [
        ("Catering for 40 people on 2026-12-18 at 12:00, contact events@acme.example",
         "catering-request"),
        ("Wir möchten am Freitag mit 25 Personen feiern, Kontakt: anna@example.com",
         "catering-request"),
        ("Can you do a buffet for our office event?", "catering-request"),
        ("Firmenfeier mit 40 Personen am 12.12.", "catering-request"),
        ("Weihnachtsfeier für 18 Leute im Dezember", "catering-request"),
        ("Eine Gruppe von 15 Personen am Samstag um 19 Uhr", "catering-request"),
        ("Birthday celebration for 20 guests on May 5", "catering-request"),
        ("Do you offer catering?", "catering-request"),
        ("table for 4 on Friday at 7pm", "make-reservation"),
        ("Book a table for 4 on Friday at 7pm", "make-reservation"),
        ("Tisch für 4 Personen am Freitag um 19 Uhr", "make-reservation"),
        ("Tisch für 3 Gäste am Samstag", "make-reservation"),
        ("table for 4 guests tomorrow", "make-reservation"),
        ("Can I book a table for 2 on Saturday?", "make-reservation"),
        ("Book a table for 2, my name is Tom Baker, tom@example.com", "make-reservation"),
        ("Welche Getränke habt ihr?", "view-menu"),
    ],
)  # fmt: skip
def test_router_tells_groups_from_tables(demo, text: str, skill_id: str) -> None:
    message = Message(message_id="m", role=Role.USER, parts=[Part.text_part(text)])
    assert route_message(message, {}, get_catalogue().enabled).id == skill_id


# --- through the real stack: SendMessage, worker, admin -----------------------------------


def send(rpc: Any, text: str) -> dict[str, Any]:
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
    body = rpc("SendMessage", {"message": message, "configuration": {"returnImmediately": True}})
    return body["result"]["task"]


def get_task(rpc: Any, task_id: str) -> dict[str, Any]:
    return rpc("GetTask", {"id": task_id})["result"]


def status_text(task: dict[str, Any]) -> str:
    return task["status"]["message"]["parts"][0]["text"]


def submit_and_run(rpc: Any, text: str) -> tuple[dict[str, Any], CateringRequest]:
    task = send(rpc, text)
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert Skill.objects.get(id="catering-request").id == "catering-request"
    assert runner.execute(task["id"]) == "TASK_STATE_WORKING"  # what the worker does
    task = get_task(rpc, task["id"])
    assert task["status"]["state"] == "TASK_STATE_WORKING"
    return task, CateringRequest.objects.get(task_id=task["id"])


def admin_action(admin_client: Any, action: str, request: CateringRequest) -> list[str]:
    response = admin_client.post(
        "/admin/skills/cateringrequest/",
        {"action": action, "_selected_action": [request.pk]},
        follow=True,
    )
    assert response.status_code == 200
    return [f"{m.level_tag}: {m.message}" for m in response.context["messages"]]


def test_approval_completes_the_task(demo, rpc, admin_client) -> None:
    day = future()
    task, request = submit_and_run(
        rpc, f"Catering for 40 people on {day} at 12:00, contact events@acme.example"
    )
    assert status_text(task).startswith(f"Request {request.reference} received; {WAITING}")

    messages = admin_action(admin_client, "approve_requests", request)
    assert messages == [f"success: Approved: {request.reference}."]
    request.refresh_from_db()
    assert request.status == "approved" and request.decided_at is not None

    task = get_task(rpc, task["id"])
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    [artifact] = [a for a in task["artifacts"] if a["name"] == "catering"]
    text, data = artifact["parts"]
    assert text["text"].startswith(f"Your request {request.reference} is approved")
    assert data["data"] == {
        "reference": request.reference, "date": day.isoformat(), "time": "12:00",
        "guests": 40, "status": "approved",
    }  # fmt: skip

    # A second approval changes nothing and says so.
    messages = admin_action(admin_client, "approve_requests", request)
    assert messages == [f"info: Skipped, not pending: {request.reference}."]


def test_decline_rejects_the_task_in_the_request_language(demo, rpc, admin_client) -> None:
    task, request = submit_and_run(
        rpc, f"Wir möchten am {future():%d.%m.%Y} mit 25 Personen feiern, Kontakt: a@example.com"
    )
    assert "wartet auf die Freigabe" in status_text(task)
    CateringRequest.objects.filter(pk=request.pk).update(staff_note="Wir sind ausgebucht.")

    messages = admin_action(admin_client, "decline_requests", request)
    assert messages == [f"success: Declined: {request.reference}."]
    task = get_task(rpc, task["id"])
    assert task["status"]["state"] == "TASK_STATE_REJECTED"
    assert status_text(task) == (
        f"Leider können wir Ihre Anfrage {request.reference} (25 Personen am "
        f"{catering.replies.format_date(request.date, 'de')}) nicht annehmen. "
        "Hinweis des Restaurants: Wir sind ausgebucht."
    )
    request.refresh_from_db()
    assert request.status == "declined"


def test_approving_a_canceled_task_warns_and_closes_the_request(demo, rpc, admin_client) -> None:
    task, request = submit_and_run(
        rpc, f"Catering for 40 people on {future()}, contact events@acme.example"
    )
    assert rpc("CancelTask", {"id": task["id"]})["result"]["status"]["state"] == (
        "TASK_STATE_CANCELED"
    )

    messages = admin_action(admin_client, "approve_requests", request)
    assert messages == [
        "warning: The agent's task had already ended (e.g. canceled), so nobody was told; "
        f"closed: {request.reference}."
    ]
    request.refresh_from_db()
    assert request.status == "closed" and request.decided_at is not None
    task = get_task(rpc, task["id"])
    assert task["status"]["state"] == "TASK_STATE_CANCELED"
    assert not [a for a in task.get("artifacts", []) if a["name"] == "catering"]


def test_admin_pages(demo, rpc, admin_client) -> None:
    _, request = submit_and_run(rpc, f"Catering for 40 people on {future()}, call 030 1234567")
    listing = admin_client.get("/admin/skills/cateringrequest/?status__exact=pending")
    assert request.reference in listing.content.decode()
    assert admin_client.get("/admin/skills/cateringrequest/add/").status_code == 403
    change = admin_client.get(f"/admin/skills/cateringrequest/{request.pk}/change/")
    assert change.status_code == 200 and 'name="staff_note"' in change.content.decode()


def test_the_task_page_links_to_the_request(demo, rpc, admin_client) -> None:
    task, request = submit_and_run(rpc, f"Catering for 40 people on {future()}, call 030 1234567")
    from a2a_app.models import Task

    assert Task.objects.get(pk=task["id"]).attached_object() == request
    page = admin_client.get(f"/admin/a2a_app/task/{task['id']}/change/").content.decode()
    assert f'href="/admin/skills/cateringrequest/{request.pk}/change/"' in page
    waiting = admin_client.get("/admin/a2a_app/task/?waiting=us").content.decode()
    assert task["id"][:8] in waiting
