"""The restaurant skills called directly with a SkillContext, as the service calls them."""

from __future__ import annotations

import re
import threading
import time as clock
import uuid
from datetime import date, time, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test import RequestFactory
from django.utils import timezone

from a2a_app.models import Skill
from a2a_app.skills.context import Completed, InputRequired, Rejected
from a2a_app.testing import run_skill
from skills import booking, views
from skills.booking import NoTableFree
from skills.models import Closure, MenuItem, OpeningHours, Reservation, RestaurantInfo, Table

FIELDS = ["date", "time", "party_size", "name", "contact"]


def call(
    skill_id: str, text: str = "", *, data: dict | None = None, state: dict | None = None
) -> Any:
    """One turn of a skill on one user message; ``state`` is shared across turns."""
    return run_skill(skill_id, text, data=data, state=state if state is not None else {})


def artifact(outcome: Completed) -> tuple[str, Any]:
    """The text and the data of a completed outcome's single artifact."""
    (art,) = outcome.artifacts
    text = next(p.content for p in art.parts if p.kind == "text")
    data = next(p.content for p in art.parts if p.kind == "data")
    return text, data


def future(days: int = 10) -> date:
    return timezone.localdate() + timedelta(days=days)


@pytest.fixture
def hours(db) -> None:
    for weekday in range(7):
        OpeningHours.objects.create(weekday=weekday, opens=time(11, 30), closes=time(23, 0))


@pytest.fixture
def tables(db) -> dict[int, Table]:
    return {n: Table.objects.create(number=n, seats=s) for n, s in {1: 2, 2: 4, 3: 8}.items()}


@pytest.fixture
def dishes(db) -> None:
    rows = [
        ("Bruschetta", "starter", "6.50", ["gluten"], True),
        ("Caprese", "starter", "8.90", ["milk"], False),
        ("Trofie al pesto", "pasta", "12.50", ["gluten", "milk", "nuts"], False),
        ("Pizza Marinara", "pizza", "8.00", ["gluten"], True),
        ("Pizza Margherita", "pizza", "9.50", ["gluten", "milk"], False),
        ("Pizza Diavola", "pizza", "11.90", ["gluten", "milk"], None),
        ("Pizza Tonno", "pizza", "12.90", ["gluten", "milk", "fish"], None),
        ("Cannoli", "dessert", "7.00", ["gluten", "milk", "nuts"], False),
        ("Sorbetto", "dessert", "5.50", [], True),
    ]
    for order, (name, category, price, allergens, vegan) in enumerate(rows):
        MenuItem.objects.create(
            name=name, category=category, price=Decimal(price), allergens=allergens,
            vegetarian=vegan is not None, vegan=bool(vegan), order=order,
        )  # fmt: skip
    MenuItem.objects.create(name="Off the menu", category="main", price=1, available=False)


def names(outcome: Completed) -> list[str]:
    return [dish["name"] for dish in artifact(outcome)[1]]


# --- view-menu ----------------------------------------------------------------------


def test_menu_lists_available_dishes_in_menu_order(dishes) -> None:
    outcome = call("view-menu", "What's on the menu?")
    assert isinstance(outcome, Completed)
    assert outcome.artifacts[0].name == "menu"
    text, data = artifact(outcome)
    assert [d["name"] for d in data][:2] == ["Bruschetta", "Caprese"]
    assert "Off the menu" not in text and len(data) == 9
    assert data[0] == {
        "id": data[0]["id"], "name": "Bruschetta", "description": "", "category": "starter",
        "price": "6.50", "currency": "EUR", "allergens": ["gluten"], "vegetarian": True,
        "vegan": True, "tags": [],
    }  # fmt: skip
    assert "Pizza Margherita – €9.50 (vegetarian)" in text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Show me the vegan dishes", ["Bruschetta", "Pizza Marinara", "Sorbetto"]),
        ("vegetarische Gerichte", ["Bruschetta", "Caprese", "Trofie al pesto", "Pizza Marinara",
                                   "Pizza Margherita", "Cannoli", "Sorbetto"]),
        ("pizzas under 12 euros", ["Pizza Marinara", "Pizza Margherita", "Pizza Diavola"]),
        ("desserts without nuts", ["Sorbetto"]),
        ("Nachspeisen ohne Nüsse", ["Sorbetto"]),
        ("vegetarian pasta or pizza, no dairy", ["Pizza Marinara"]),
    ],
)  # fmt: skip
def test_menu_filters_from_text(dishes, text: str, expected: list[str]) -> None:
    assert names(call("view-menu", text)) == expected


def test_menu_filters_from_data(dishes) -> None:
    outcome = call("view-menu", data={"category": "pizza", "allergen": "milk", "max_price": "9"})
    assert names(outcome) == ["Pizza Marinara"]


def test_menu_answers_in_german(dishes) -> None:
    text, _ = artifact(call("view-menu", "Welche Nachspeisen gibt es?"))
    assert text.startswith("Unsere Speisekarte (Nachspeisen):")  # German heading
    assert "Sorbetto – 5,50 € (vegan)" in text


def test_menu_with_no_match_completes_and_says_so(dishes) -> None:
    outcome = call("view-menu", "vegan desserts under 3 euros")
    assert isinstance(outcome, Completed)
    text, data = artifact(outcome)
    assert data == []
    assert "nothing on our menu matches" in text and "up to €3.00" in text


def test_menu_page(dishes) -> None:
    response = views.menu(RequestFactory().get("/menu/"))
    assert response.status_code == 200
    assert "Pizza Marinara" in response.content.decode()


# --- make-reservation: conversations -------------------------------------------------


def test_reservation_over_three_turns(hours, tables) -> None:
    day = future()
    state: dict = {}
    first = call("make-reservation", f"Book a table for 4 on {day} at 7pm", state=state)
    assert isinstance(first, InputRequired)
    assert first.missing == ["name", "contact"]
    assert first.data == {
        "missing": ["name", "contact"],
        "errors": {},
        "known": {"date": day.isoformat(), "time": "19:00", "party_size": 4},
    }
    assert "your name and an e-mail address or phone number" in first.question

    second = call("make-reservation", "my name is Anna Schmidt", state=state)
    assert isinstance(second, InputRequired) and second.missing == ["contact"]

    third = call("make-reservation", "anna@example.com", state=state)
    assert isinstance(third, Completed)
    assert third.artifacts[0].name == "reservation"
    text, data = artifact(third)
    assert re.fullmatch(r"TD-[2-9A-Z]{6}", data["reference"])
    assert data | {"reference": "", "start": ""} == {
        "reference": "", "start": "", "date": day.isoformat(), "time": "19:00",
        "party_size": 4, "name": "Anna Schmidt", "contact": "anna@example.com", "table": 2,
        "duration_minutes": 120, "status": "confirmed",
    }  # fmt: skip
    assert data["reference"] in text and "Your table is booked" in text
    reservation = Reservation.objects.get()
    assert reservation.table == tables[2]  # the smallest table for four
    assert timezone.localtime(reservation.start).time() == time(19, 0)
    assert state["reference"] == reservation.reference


def test_reservation_in_german(hours, tables) -> None:
    state: dict = {}
    first = call("make-reservation", "Tisch für 2 Personen morgen um 20 Uhr", state=state)
    assert isinstance(first, InputRequired)
    assert first.missing == ["name", "contact"]
    assert "brauche ich noch Ihren Namen und eine E-Mail-Adresse" in first.question
    done = call("make-reservation", "Ich heiße Jörg Müller, 0171 1234567", state=state)
    text, data = artifact(done)
    assert text.startswith("Ihr Tisch ist reserviert: 2 Personen am ")
    assert data["date"] == future(1).isoformat() and data["contact"] == "+491711234567"
    assert data["table"] == 1


def test_bare_answers_and_language_kept_across_turns(hours, tables) -> None:
    state: dict = {}
    first = call("make-reservation", "Ich möchte einen Tisch reservieren", state=state)
    assert first.missing == FIELDS
    second = call("make-reservation", "3", state=state)
    assert second.missing == ["date", "time", "name", "contact"]
    assert "Für Ihre Reservierung (3 Personen)" in second.question
    third = call("make-reservation", f"{future():%d.%m.%Y} um 19 Uhr", state=state)
    assert third.missing == ["name", "contact"]
    fourth = call("make-reservation", "Anna Schmidt", state=state)
    assert fourth.missing == ["contact"]
    assert isinstance(call("make-reservation", "anna@example.com", state=state), Completed)


def test_reservation_from_one_data_part(hours, tables) -> None:
    data = {"date": future().isoformat(), "time": "12:30", "party_size": 7, "name": "Team",
            "contact": "+49 30 1234567"}  # fmt: skip
    outcome = call("make-reservation", data=data)
    assert isinstance(outcome, Completed)
    assert artifact(outcome)[1]["table"] == 3


def test_unreadable_data_values_are_asked_again(hours, tables) -> None:
    outcome = call("make-reservation", data={"date": "soon", "party_size": "many"})
    assert isinstance(outcome, InputRequired)
    # The form's own errors (a2a_app): the values are dropped and asked again.
    assert outcome.missing == ["date", "party_size"]
    assert "Enter a valid date." in outcome.question


# --- make-reservation: refusals ------------------------------------------------------


def test_outside_opening_hours_asks_for_another_time(hours, tables) -> None:
    state: dict = {}
    day = future()
    outcome = call("make-reservation", f"table for 2 on {day} at 22:30, I'm Anna, a@b.de",
                   state=state)  # fmt: skip
    assert isinstance(outcome, InputRequired) and outcome.missing == ["time"]
    assert "a reservation can start between 11:30–22:00" in outcome.question
    assert outcome.data["known"] == {"date": day.isoformat(), "party_size": 2, "name": "Anna",
                                     "contact": "a@b.de"}  # fmt: skip
    assert isinstance(call("make-reservation", "at 22:00", state=state), Completed)


def test_closed_day_asks_for_another_date(hours, tables) -> None:
    day = future()
    OpeningHours.objects.filter(weekday=day.weekday()).delete()
    outcome = call("make-reservation", data={"date": day.isoformat(), "time": "19:00"})
    assert outcome.missing == ["date", "party_size", "name", "contact"]
    assert outcome.question.startswith("We are closed on ")


def test_past_date_and_time_are_refused(hours, tables) -> None:
    past = call("make-reservation", data={"date": "2020-01-01", "time": "19:00"})
    assert past.missing[0] == "date" and "That date is in the past." in past.question
    now = timezone.localtime()
    if now.time() < time(0, 5):
        pytest.skip("no earlier time today")
    earlier = call("make-reservation", data={"date": now.date().isoformat(), "time": "00:00"})
    assert earlier.missing[:2] == ["time", "party_size"]
    assert "has already passed" in earlier.question


def test_party_too_large_goes_on_to_catering(hours, tables) -> None:
    outcome = call("make-reservation", "a table for 12 people")
    # Handed over: the catering request asks what it still needs.
    assert outcome.missing == ["date", "contact"]
    assert outcome.question.startswith("Our largest table seats 8, so for 12 guests")


def test_no_tables_at_all_is_rejected(hours) -> None:
    outcome = call("make-reservation", "a table for 2")
    assert isinstance(outcome, Rejected)


def test_full_slot_suggests_other_times_and_keeps_the_rest(hours, tables) -> None:
    day = future()
    start = booking.local_start(day, time(19, 0))
    for table in tables.values():
        Reservation.objects.create(name="X", contact="x", party_size=2, start=start, table=table)
    state: dict = {}
    outcome = call("make-reservation", f"table for 2 on {day} at 8pm, I'm Bo, bo@example.com",
                   state=state)  # fmt: skip
    assert outcome.missing == ["time"]
    assert "no table free" in outcome.question
    assert "We could offer 21:00, 21:30 or 22:00." in outcome.question
    values = state["a2a_form"]["values"]
    assert {k: values[k] for k in ("date", "party_size", "name")} == {
        "date": day.isoformat(), "party_size": 2, "name": "Bo",
    }  # fmt: skip
    done = call("make-reservation", "21:00", state=state)
    assert artifact(done)[1]["time"] == "21:00"


def test_table_taken_between_check_and_booking(hours, tables, monkeypatch) -> None:
    def taken(**kwargs: Any) -> None:
        raise NoTableFree

    monkeypatch.setattr(booking, "book", taken)
    state: dict = {}
    data = {"date": future().isoformat(), "time": "19:00", "party_size": 2, "name": "A",
            "contact": "a@b.de"}  # fmt: skip
    outcome = call("make-reservation", data=data, state=state)
    assert isinstance(outcome, InputRequired) and outcome.missing == ["time"]
    values = state["a2a_form"]["values"]
    assert "time" not in values and values["name"] == "A"


# --- booking rules -------------------------------------------------------------------


def test_booking_takes_smallest_free_table_and_respects_overlaps(tables) -> None:
    start = booking.local_start(future(), time(19, 0))
    first = booking.book(start=start, party_size=2, name="A", contact="a")
    second = booking.book(start=start, party_size=2, name="B", contact="b")
    assert (first.table.number, second.table.number) == (1, 2)
    # Back to back is fine: the first slot ends when the next begins.
    later = booking.book(start=start + timedelta(hours=2), party_size=2, name="C", contact="c")
    assert later.table.number == 1
    second.status = Reservation.Status.CANCELLED
    second.save()
    assert booking.free_table(start + timedelta(hours=1), 3) == tables[2]
    with pytest.raises(NoTableFree):
        booking.book(start=start + timedelta(minutes=30), party_size=5, name="D", contact="d")
        booking.book(start=start + timedelta(minutes=30), party_size=5, name="E", contact="e")


# --- demo data -----------------------------------------------------------------------


def test_load_demo_is_idempotent(db, capsys) -> None:
    Skill.objects.all().delete()
    call_command("load_demo")
    counts = (MenuItem.objects.count(), Table.objects.count(), OpeningHours.objects.count())
    call_command("load_demo")
    assert (MenuItem.objects.count(), Table.objects.count(), OpeningHours.objects.count()) == counts
    assert counts == (29, 7, 7)  # 25 dishes, then 4 more drinks (wines, beer, lemonade)
    assert (Closure.objects.count(), RestaurantInfo.objects.count()) == (2, 1)
    assert MenuItem.objects.filter(vegan=True).count() >= 5
    assert MenuItem.objects.filter(vegetarian=True, vegan=False).count() >= 5
    assert sorted(Table.objects.values_list("seats", flat=True)) == [2, 2, 4, 4, 4, 6, 8]
    assert {"view-menu", "make-reservation"} <= set(Skill.objects.values_list("id", flat=True))
    assert "already present" in capsys.readouterr().out


# --- through the A2A endpoint ------------------------------------------------------


def send(rpc: Any, text: str, **fields: Any) -> dict[str, Any]:
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
    body = rpc("SendMessage", {"message": message | fields})
    assert "result" in body, body
    return body["result"]


def test_menu_and_booking_over_json_rpc(demo, rpc) -> None:
    menu = send(rpc, "Zeig mir die veganen Pizzen")["task"]
    assert menu["status"]["state"] == "TASK_STATE_COMPLETED"
    dishes = menu["artifacts"][0]["parts"][1]["data"]
    assert {d["name"] for d in dishes} == {"Pizza Marinara", "Pizza Ortolana"}

    asked = send(rpc, "Tisch für 4 Personen morgen um 19 Uhr")["task"]
    assert asked["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    question = asked["status"]["message"]["parts"][0]["text"]
    assert "brauche ich noch Ihren Namen" in question
    done = send(rpc, "Ich heiße Anna Schmidt, anna@example.com", taskId=asked["id"])["task"]
    assert done["status"]["state"] == "TASK_STATE_COMPLETED"
    (booked,) = [a for a in done["artifacts"] if a["name"] == "reservation"]
    data = booked["parts"][1]["data"]
    assert (data["party_size"], data["time"], data["name"]) == (4, "19:00", "Anna Schmidt")
    assert Reservation.objects.get().reference == data["reference"]


# --- concurrency ---------------------------------------------------------------------


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_two_requests_never_book_the_same_last_table(monkeypatch) -> None:
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("threads cannot share an in-memory SQLite database")
    Table.objects.create(number=1, seats=4)
    start = booking.local_start(future(), time(19, 0))

    # Widen the gap between "is the table free?" and the insert, where a race would be.
    original = booking._overlapping

    def slow_overlapping(*args: Any) -> list[Reservation]:
        found = original(*args)
        clock.sleep(0.3)
        return found

    monkeypatch.setattr(booking, "_overlapping", slow_overlapping)
    barrier = threading.Barrier(2)
    results: list[object] = []

    def guest(name: str) -> None:
        try:
            barrier.wait()
            with transaction.atomic():  # as the service runs a handler
                results.append(booking.book(start=start, party_size=2, name=name, contact="c"))
        except NoTableFree:
            results.append("no table")
        except Exception as exc:  # noqa: BLE001  (reported by the assertion below)
            results.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=guest, args=(n,)) for n in ("A", "B")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(map(type, results), key=str) == [Reservation, str], results
    assert Reservation.objects.count() == 1


def test_english_booking_over_three_turns_on_one_task(demo, rpc) -> None:
    asked = send(rpc, "Can I book a table for 2 on Saturday?")["task"]
    assert asked["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    missing = asked["status"]["message"]["parts"][1]["data"]["missing"]
    assert "time" in missing and "party_size" not in missing

    asked = send(rpc, "at 8pm", taskId=asked["id"], contextId=asked["contextId"])["task"]
    assert asked["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert set(asked["status"]["message"]["parts"][1]["data"]["missing"]) == {"name", "contact"}

    done = send(rpc, "My name is Tom Baker, tom@example.com", taskId=asked["id"])["task"]
    assert done["status"]["state"] == "TASK_STATE_COMPLETED"
    assert done["id"] == asked["id"]
    assert [m["role"] for m in done["history"]].count("ROLE_USER") == 3
    (booked,) = [a for a in done["artifacts"] if a["name"] == "reservation"]
    data = booked["parts"][1]["data"]
    assert (data["party_size"], data["time"], data["contact"]) == (2, "20:00", "tom@example.com")
    assert Reservation.objects.get().reference == data["reference"]
