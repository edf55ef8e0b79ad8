"""The restaurant's A2A skills: ``view-menu`` and ``make-reservation``.

Discovered by ``a2a_app`` (it imports each app's ``a2a_skills`` module). The handlers
only wire things together: reading input lives in :mod:`skills.parsing`,
:mod:`skills.fields` and :mod:`skills.menu`, the rules and the locking in
:mod:`skills.booking`, the wording in :mod:`skills.replies`.
"""

from __future__ import annotations

from datetime import date, time
from typing import Any

from django.utils import timezone

from a2a_app.context import Completed, InputRequired, Rejected, SkillContext
from a2a_app.registry import skill

from . import booking, replies
from .booking import NoTableFree, Problem
from .fields import FIELDS, parse_reservation_data
from .menu import find_dishes, menu_filters_from_data, parse_menu_query, render_menu
from .parsing import parse_reservation
from .wording import EN, detect_language

MODES = ["text/plain", "application/json"]


@skill(
    "view-menu",
    name="View menu",
    description=(
        "The menu of Trattoria Django: dishes and drinks with prices in euros, allergens, "
        "vegetarian and vegan marks. Filter in English or German words (\"vegan pizzas "
        'under 12 euros without nuts") or with a data part {"category", "diet", '
        '"allergen", "max_price"}. Returns the menu as text and the dishes as JSON.'
    ),
    tags=[
        "menu", "food", "dishes", "prices", "allergens", "gluten", "vegetarian", "vegan",
        "pizza", "pasta", "dessert", "drinks", "wine", "Speisekarte", "Gerichte", "vegetarisch",
        "Allergene", "Vorspeisen", "Nachspeisen", "Getränke",
    ],
    examples=[
        "What's on the menu?",
        "Show me the vegan dishes",
        "Which pizzas are under 12 euros?",
        "Vegetarian pasta without nuts",
        "What desserts do you have?",
        "Which dishes are gluten-free?",
        "Was steht auf der Speisekarte?",
        "Zeig mir die vegetarischen Gerichte",
        "Vegane Gerichte ohne Nüsse",
        "Welche Nachspeisen gibt es?",
        "Welche Getränke habt ihr?",
    ],
    input_modes=MODES,
    output_modes=MODES,
)  # fmt: skip
def view_menu(ctx: SkillContext) -> Completed:
    """Show the menu, filtered by category, diet, allergen or price."""
    lang = detect_language(ctx.text) or EN
    filters = parse_menu_query(ctx.text).merge(menu_filters_from_data(ctx.data))
    dishes = find_dishes(filters)
    return ctx.complete(
        text=render_menu(dishes, filters, lang),
        data=[dish.as_dict() for dish in dishes],
        name="menu",
    )


@skill(
    "make-reservation",
    name="Book a table",
    description=(
        "Book a table at Trattoria Django. Needs the date, time, number of guests, a name "
        "and an e-mail address or phone number, in English or German words (\"table for 4 "
        'on Friday at 7pm, my name is Anna Schmidt") or as a data part {"date": '
        '"YYYY-MM-DD", "time": "HH:MM", "party_size", "name", "contact"}. Asks for '
        "whatever is missing; returns the booking reference."
    ),
    tags=[
        "reservation", "book", "booking", "table", "reserve", "tonight", "Reservierung",
        "reservieren", "Tisch", "buchen", "Platz",
    ],
    examples=[
        "Book a table for 4 on Friday at 7pm",
        "Reserve a table for 2 tomorrow at 19:30",
        "I'd like a reservation for 6 people on 2026-12-24 at 8 pm",
        "Do you have a table for two tonight?",
        "Tisch für 4 Personen am Freitag um 19 Uhr",
        "Ich möchte für morgen um 20 Uhr einen Tisch reservieren",
        "Habt ihr heute Abend noch Platz für zwei Leute?",
    ],
    input_modes=MODES,
    output_modes=MODES,
)  # fmt: skip
def make_reservation(ctx: SkillContext) -> Completed | InputRequired | Rejected:
    """Book a table, asking for the date, time, party size, name and contact as needed.

    ``ctx.state`` carries the fields understood so far (JSON values, as in the data
    part), the conversation's language and the fields last asked for.
    """
    state = ctx.state
    now = timezone.localtime()
    lang = detect_language(ctx.text) or state.get("lang") or EN
    state["lang"] = lang

    checked: dict[str, Any] = {f: state[f] for f in FIELDS if f in state}
    found = parse_reservation(
        ctx.text, now, expecting=state.get("missing", ()), known_time=checked.get("time")
    )
    from_data, unreadable = parse_reservation_data(ctx.data)
    found.update(from_data)
    checked.update(found)
    problems = [
        Problem(f, "unreadable", {"value": value})
        for f, value in unreadable.items()
        if f not in found
    ]
    problems += booking.check(checked, now)
    if any(p.code == "no_tables" for p in problems):
        return ctx.reject(replies.problem_text(problems[0], checked, lang))

    # A rejected value is forgotten, so the guest is asked for it again.
    known = {f: v for f, v in checked.items() if f not in {p.field for p in problems}}
    for f in FIELDS:
        state.pop(f, None)
    state.update(known)
    missing = [f for f in FIELDS if f not in known]
    if missing:
        return _ask(ctx, missing, problems, checked, known, lang)

    start = booking.local_start(
        date.fromisoformat(known["date"]), time.fromisoformat(known["time"])
    )
    try:
        reservation = booking.book(
            start=start,
            party_size=known["party_size"],
            name=known["name"],
            contact=known["contact"],
        )
    except NoTableFree:
        # Someone took the last table since the check: keep the rest, ask for a time.
        day = start.date()
        suggestions = booking.suggest_times(day, known["party_size"], start.time(), now=now)
        problem = Problem("time", "no_table", {"suggestions": suggestions, "day": day})
        del state["time"]
        known = {f: v for f, v in known.items() if f != "time"}
        return _ask(ctx, ["time"], [problem], checked, known, lang)

    state.pop("missing", None)
    state["reference"] = reservation.reference
    return ctx.complete(
        text=replies.confirmation(reservation, lang),
        data=replies.reservation_data(reservation),
        name="reservation",
    )


def _ask(
    ctx: SkillContext,
    missing: list[str],
    problems: list[Problem],
    checked: dict[str, Any],
    known: dict[str, Any],
    lang: str,
) -> InputRequired:
    ctx.state["missing"] = missing
    return ctx.ask(
        replies.question(missing, problems, checked, known, lang),
        missing=missing,
        data={"missing": missing, "known": known},
    )
