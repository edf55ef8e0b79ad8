"""Reading reservation details and menu filters from English and German text.

Reservation details are read by a2a_app's interpreter (:mod:`a2a_app.forms.text`) into
the demo's :class:`skills.booking_skills.ReservationForm`: these are the phrasings the
demo's own parser used to be tested with (it is gone), now run through the library.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from a2a_app.forms.text import DeterministicInterpreter
from skills.booking_skills import ReservationForm
from skills.menu import menu_filters_from_data, parse_menu_query
from skills.wording import detect_language

# Wednesday 11 March 2026, 15:00 in Berlin.
NOW = datetime(2026, 3, 11, 15, 0, tzinfo=ZoneInfo("Europe/Berlin"))


def parse_reservation(
    text: str, now: datetime, *, expecting: list[str] | tuple[str, ...] = ()
) -> dict:
    return DeterministicInterpreter().interpret(
        text, ReservationForm, asked=tuple(expecting), now=now
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "table for 4 on Friday at 7pm",
            {"date": "2026-03-13", "time": "19:00", "party_size": 4},
        ),
        ("tomorrow at 19:30", {"date": "2026-03-12", "time": "19:30"}),
        ("on 2026-12-24 at 8 pm", {"date": "2026-12-24", "time": "20:00"}),
        ("December 24th at half past 7", {"date": "2026-12-24", "time": "19:30"}),
        ("24th of December, 7:30pm", {"date": "2026-12-24", "time": "19:30"}),
        ("for 2 people", {"party_size": 2}),
        ("a table for two tonight at 8", {"date": "2026-03-11", "time": "20:00", "party_size": 2}),
        ("the day after tomorrow at 12 noon", {"date": "2026-03-13", "time": "12:00"}),
        ("my name is Anna Schmidt", {"name": "Anna Schmidt"}),
        (
            "I'm Anna, anna.schmidt@example.com",
            {"name": "Anna", "contact": "anna.schmidt@example.com"},
        ),
        (
            "Name: Anna Schmidt, phone +49 171 1234567",
            {"name": "Anna Schmidt", "contact": "+491711234567"},
        ),
        ("I'm looking for a table", {}),
        (
            "Please reserve for Anna Schmidt, Saturday 8pm, 2 guests",
            {"date": "2026-03-14", "time": "20:00", "party_size": 2, "name": "Anna Schmidt"},
        ),
        (
            "we'd like to come at 7:30 tomorrow, 5 of us",
            {"date": "2026-03-12", "time": "19:30", "party_size": 5},
        ),
        (
            "Tisch für 4 Personen am Freitag um 19 Uhr",
            {"date": "2026-03-13", "time": "19:00", "party_size": 4},
        ),
        ("morgen um 20 Uhr", {"date": "2026-03-12", "time": "20:00"}),
        (
            "für 4 am Freitag um 19 Uhr",
            {"date": "2026-03-13", "time": "19:00", "party_size": 4},
        ),
        ("um 19:30 am Freitag", {"date": "2026-03-13", "time": "19:30"}),
        ("um 7 am 14.3.", {"date": "2026-03-14", "time": "19:00"}),
        ("at 11:30 am on Friday", {"date": "2026-03-13", "time": "11:30"}),
        (
            "übermorgen um halb acht, wir sind zu viert",
            {"date": "2026-03-13", "time": "19:30", "party_size": 4},
        ),
        (
            "am 24.12. um 19.30 Uhr für 6 Personen",
            {"date": "2026-12-24", "time": "19:30", "party_size": 6},
        ),
        ("am 3. April um 18 Uhr", {"date": "2026-04-03", "time": "18:00"}),
        ("ich heiße Jörg Müller-Lüdenscheidt", {"name": "Jörg Müller-Lüdenscheidt"}),
        (
            "Reservierung auf den Namen Meier, Tel. 0171 1234567",
            {"name": "Meier", "contact": "+491711234567"},
        ),
        ("Ich möchte einen Tisch reservieren", {}),
    ],
)
def test_parse_reservation(text: str, expected: dict) -> None:
    assert parse_reservation(text, NOW) == expected


def test_past_day_without_year_means_next_year() -> None:
    assert parse_reservation("on 5 March", NOW)["date"] == "2027-03-05"
    assert parse_reservation("am 5.3.", NOW)["date"] == "2027-03-05"


@pytest.mark.parametrize(
    ("text", "date"),
    [
        # Today's weekday means next week (a2a_app's reading), ahead or not.
        ("Wednesday at 6pm", "2026-03-18"),
        ("Wednesday at 2pm", "2026-03-18"),
        ("Mittwoch um 14 Uhr", "2026-03-18"),
        ("Monday at 7pm", "2026-03-16"),
    ],
)
def test_weekday_is_the_next_such_day(text: str, date: str) -> None:
    assert parse_reservation(text, NOW)["date"] == date


@pytest.mark.parametrize(
    ("text", "expecting", "expected"),
    [
        ("4", ["party_size", "name"], {"party_size": 4}),
        ("vier", ["party_size"], {"party_size": 4}),
        ("8", ["time"], {"time": "20:00"}),
        ("Anna Schmidt", ["name", "contact"], {"name": "Anna Schmidt"}),
        ("It's Anna", ["name"], {"name": "Anna"}),
        ("Anna Schmidt, 4", ["party_size", "name"], {"party_size": 4, "name": "Anna Schmidt"}),
        ("sounds good", ["name"], {}),
        # A name on its own is read even unasked (a2a_app: a listed name).
        ("Anna Schmidt", [], {"name": "Anna Schmidt"}),
    ],
)
def test_bare_answers_fill_the_fields_asked_for(text: str, expecting: list, expected: dict) -> None:
    assert parse_reservation(text, NOW, expecting=expecting) == expected


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Book a table for 4 on Friday at 7pm", "en"),
        ("What's on the menu?", "en"),
        ("Tisch für 4 Personen am Freitag um 19 Uhr", "de"),
        ("Was steht auf der Speisekarte?", "de"),
        ("ohne Nüsse", "de"),
        ("4", None),
        ("Anna Schmidt", None),
    ],
)
def test_detect_language(text: str, lang: str | None) -> None:
    assert detect_language(text) == lang


@pytest.mark.parametrize(
    ("text", "categories", "diet", "without", "max_price"),
    [
        ("What's on the menu?", [], None, [], None),
        ("vegan dishes", [], "vegan", [], None),
        ("vegetarische Gerichte", [], "vegetarian", [], None),
        ("pizzas under 12 euros", ["pizza"], None, [], Decimal("12")),
        ("Pizzen bis 9,50 €", ["pizza"], None, [], Decimal("9.50")),
        ("anything without nuts", [], None, ["nuts"], None),
        ("ohne Nüsse", [], None, ["nuts"], None),
        ("desserts", ["dessert"], None, [], None),
        ("Welche Nachspeisen gibt es?", ["dessert"], None, [], None),
        ("gluten-free pasta", ["pasta"], None, ["gluten"], None),
        ("glutenfreie, laktosefreie Vorspeisen", ["starter"], None, ["gluten", "milk"], None),
        ("I have a nut allergy", [], None, ["nuts"], None),
        ("no eggs or dairy", [], None, ["egg", "milk"], None),
        ("Gerichte ohne Fleisch", [], "vegetarian", [], None),
        ("vegan pizza and pasta, max 11 EUR", ["pasta", "pizza"], "vegan", [], Decimal("11")),
    ],
)
def test_parse_menu_query(text, categories, diet, without, max_price) -> None:
    filters = parse_menu_query(text)
    assert filters.categories == categories
    assert filters.diet == diet
    assert filters.without == without
    assert filters.max_price == max_price


def test_menu_filters_from_data() -> None:
    filters = menu_filters_from_data(
        {"category": "Pizza", "diet": "vegan", "allergen": ["nuts", "Milch"], "max_price": 12}
    )
    assert (filters.categories, filters.diet) == (["pizza"], "vegan")
    assert filters.without == ["milk", "nuts"]
    assert filters.max_price == Decimal("12")
    bad = menu_filters_from_data({"category": "soup", "diet": "keto", "max_price": "cheap"})
    assert bad.categories == [] and bad.diet is None and bad.max_price is None
    assert bad.ignored == ["category=soup", "diet=keto", "max_price=cheap"]
