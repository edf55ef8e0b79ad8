"""opening-hours and location through the A2A endpoint, in English and German, on a
frozen clock (Tuesday 2026-12-01 14:00 in Berlin, as the conversation test set)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from a2a_app.testing import A2AClient
from skills.info_skills import location_topics
from skills.models import Closure, OpeningHours, RestaurantInfo

NOW = datetime(2026, 12, 1, 14, 0, tzinfo=ZoneInfo("Europe/Berlin"))


@pytest.fixture
def frozen(demo, monkeypatch) -> Iterator[None]:
    """The demo on a fixed clock, with Christmas closed."""
    monkeypatch.setattr(timezone, "now", lambda: NOW)
    Closure.objects.all().delete()
    Closure.objects.create(
        first_day=date(2026, 12, 25), last_day=date(2026, 12, 26), reason="Christmas",
        reason_de="Weihnachten",
    )  # fmt: skip
    yield


def ask(skill: str, text: str = "", data: dict | None = None) -> tuple[str, dict]:
    task = A2AClient().send(text, data=data, metadata={"skillId": skill})["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED", task
    (message,) = [p["text"] for p in task["status"]["message"]["parts"] if "text" in p]
    facts = next(p["data"] for p in task["artifacts"][0]["parts"] if "data" in p)
    return message, facts


def hours(text: str = "", data: dict | None = None) -> tuple[str, dict]:
    return ask("opening-hours", text, data)


# --- opening-hours ---------------------------------------------------------------------


@pytest.mark.usefixtures("frozen")
@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (
            "When are you open?",
            "We are open daily from 11:30 to 23:00.\n"
            "Closed on 25 December–26 December (Christmas).",
        ),
        (
            "Wann habt ihr geöffnet?",
            "Wir haben täglich von 11:30 bis 23:00 geöffnet.\n"
            "Geschlossen am 25. Dezember–26. Dezember (Weihnachten).",
        ),
        (
            "Are you open on Sunday evening?",
            "Yes, on Sunday 6 December we are open in the evening: from 11:30 to 23:00.",
        ),
        (
            "Habt ihr heute offen?",
            "Ja, heute (Dienstag) haben wir von 11:30 bis 23:00 geöffnet. "
            "Gerade haben wir geöffnet, bis 23:00.",
        ),
        ("Are you open now?", "Yes, today (Tuesday) we are open at 14:00: from 11:30 to 23:00."),
        (
            "Are you open tomorrow at 11pm?",
            "No, tomorrow (Wednesday) we are not open at 23:00; we are open from 11:30 to 23:00.",
        ),
        (
            "What time do you open tomorrow?",
            "Tomorrow (Wednesday) we are open from 11:30 to 23:00.",
        ),
        (
            "Ab wann habt ihr morgen offen?",
            "Morgen (Mittwoch) haben wir von 11:30 bis 23:00 geöffnet.",
        ),
        (
            "Habt ihr an Weihnachten geöffnet?",
            "Nein, am Freitag, 25. Dezember haben wir geschlossen (Weihnachten). "
            "Wieder geöffnet sind wir am Sonntag, 27. Dezember von 11:30 bis 23:00.",
        ),
    ],
)
def test_opening_hours(text: str, answer: str) -> None:
    assert hours(text)[0] == answer


@pytest.mark.usefixtures("frozen")
def test_a_day_without_hours_and_lunch_and_dinner() -> None:
    OpeningHours.objects.filter(weekday=0).delete()  # closed on Mondays
    OpeningHours.objects.filter(weekday=6).update(closes=time(14, 30))
    OpeningHours.objects.create(weekday=6, opens=time(18), closes=time(22))
    message, facts = hours("Are you open on Monday?")
    assert message.startswith("No, on Monday 7 December we are closed. We are open again on")
    assert facts == {"date": "2026-12-07", "open": False, "hours": []}
    message, _ = hours("Habt ihr Sonntag mittags offen?")
    assert message == (
        "Ja, am Sonntag, 6. Dezember haben wir mittags geöffnet: "
        "von 11:30 bis 14:30 und von 18:00 bis 22:00."
    )
    message, _ = hours("What are your opening hours?")
    assert message == (
        "Our opening hours:\nMonday: closed\nTuesday–Saturday: from 11:30 to 23:00\n"
        "Sunday: from 11:30 to 14:30 and from 18:00 to 22:00\n"
        "Closed on 25 December–26 December (Christmas)."
    )


@pytest.mark.usefixtures("frozen")
def test_a_day_as_a_data_part() -> None:
    message, facts = hours(data={"day": "2026-12-25"})
    assert message.startswith("No, on Friday 25 December we are closed (Christmas).")
    assert facts["open"] is False


# --- location ----------------------------------------------------------------------------


@pytest.mark.usefixtures("frozen")
def test_where_and_how_to_get_there() -> None:
    message, facts = ask("location", "Where are you located?")
    assert message == "You find us at Trattoria Django, Gartenstraße 12, 10115 Berlin-Mitte."
    assert facts["phone"] == "+49 30 1234567"
    message, _ = ask("location", "How do I get there by train?")
    assert message.startswith("S-Bahn S1, S2 or S25 to Nordbahnhof")
    assert message.endswith("Our address: Trattoria Django, Gartenstraße 12, 10115 Berlin-Mitte.")


@pytest.mark.usefixtures("frozen")
def test_parking_in_german_answers_the_parking_part() -> None:
    message, _ = ask("location", "Wo kann ich parken?")
    assert message.startswith("Eigene Parkplätze haben wir nicht.")
    assert "S-Bahn" not in message


@pytest.mark.usefixtures("frozen")
def test_wheelchair_and_an_edited_text() -> None:
    message, _ = ask("location", "Is it wheelchair accessible?")
    assert message.startswith("Yes: the entrance is step-free")
    RestaurantInfo.objects.update(accessibility_de="")  # no German text: the English one
    message, _ = ask("location", "Ist das Restaurant barrierefrei?")
    assert message.startswith("Yes: the entrance is step-free")


@pytest.mark.parametrize(
    ("text", "topics"),
    [
        ("Where are you?", ["address"]),
        ("Wo kann ich parken?", ["parking"]),
        ("How do I get there?", ["address", "directions"]),
        ("How do I get there by train?", ["public_transport"]),
        ("Habt ihr einen Aufzug?", ["accessibility"]),
        ("Habt ihr eine Toilette für Rollstuhlfahrer?", ["accessibility"]),
        ("Gibt es Parkplätze?", ["parking"]),
        ("What's your phone number?", ["contact"]),
    ],
)
def test_location_topics(text: str, topics: list[str]) -> None:
    assert location_topics(text) == topics


# --- round 2: every location topic word routes here -------------------------------------------


def routed(text: str) -> str | None:
    """The skill a new message with no skillId ends up with (None: a direct reply)."""
    from a2a_app.models import Task

    answer = A2AClient().send(text)
    return Task.objects.get(pk=answer["task"]["id"]).skill_id if "task" in answer else None


@pytest.mark.parametrize(
    "text",
    ["Wie ist die Postanschrift?", "Where is the nearest U-Bahn station?", "Gibt es einen Aufzug?"],
)
def test_location_words_route_to_location(demo, text: str) -> None:
    assert routed(text) == "location"


@pytest.mark.parametrize("text", ["Seid ihr Samstagabend offen?", "Habt ihr freitags offen?"])
def test_offen_is_not_taken_for_public_transport(demo, text: str) -> None:
    # "öffentlich" begins with "offen": it is no routing word of the location skill.
    assert routed(text) == "opening-hours"


@pytest.mark.parametrize(
    "text", ["Wann macht ihr zu?", "Wann ist die Küche geöffnet?", "Öffnet ihr sonntags?"]
)
def test_hours_words_the_router_would_drop_still_route(demo, text: str) -> None:
    # "auf"/"zu" are stop words to the router: the verb ("macht") or "Küche" carries it.
    assert routed(text) == "opening-hours"


def test_a_district_question_is_the_address(demo) -> None:
    assert routed("In welchem Stadtteil seid ihr?") == "location"


def test_which_street_is_the_address(demo) -> None:
    assert routed("Which street are you on?") == "location"
