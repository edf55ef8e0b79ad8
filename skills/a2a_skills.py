"""The restaurant's A2A skills: ``view-menu``, ``opening-hours``, ``location``,
``make-reservation`` and ``catering-request``.

Discovered by ``a2a_app`` (it imports each app's ``a2a_skills`` module), which imports
one module per area: :mod:`skills.menu_skills` (view-menu) and :mod:`skills.info_skills`
(opening-hours, location) register themselves on import. The booking handlers
only wire things together: reading input lives in :mod:`skills.parsing`,
:mod:`skills.fields` and :mod:`skills.menu`, the rules and the locking in
:mod:`skills.booking` and :mod:`skills.catering`, the wording in :mod:`skills.replies`.
"""

from __future__ import annotations

from datetime import date, time
from typing import Any

from django.utils import timezone

from a2a_app import Completed, InputRequired, Rejected, SkillContext, Working, attach, skill

from . import booking, catering, info_skills, menu_skills, replies
from .booking import NoTableFree, Problem
from .fields import FIELDS, parse_reservation_data
from .models import CateringRequest
from .parsing import parse_reservation
from .wording import EN, detect_language

MODES = ["text/plain", "application/json"]
__all__ = ["info_skills", "menu_skills"]  # imported to register their skills


@skill(
    "make-reservation",
    name="Book a table",
    description=(
        "Book a table at Trattoria Django for up to 8 guests (larger groups and catering: "
        "catering-request). Needs the date, time, number of guests, a name "
        "and an e-mail address or phone number, in English or German words (\"table for 4 "
        'on Friday at 7pm, my name is Anna Schmidt") or as a data part {"date": '
        '"YYYY-MM-DD", "time": "HH:MM", "party_size", "name", "contact"}. Asks for '
        "whatever is missing; returns the booking reference."
    ),
    tags=[
        "reservation", "book", "booking", "table", "reserve", "tonight", "guests", "persons",
        "Reservierung", "reservieren", "Tisch", "buchen", "Platz", "Gäste",
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


@skill(
    "catering-request",
    name="Catering and large groups",
    description=(
        "Catering, company events, parties and groups of more than 8 guests (larger than "
        "our largest table) at Trattoria Django, in English or German words (\"catering "
        'for 40 people on 2026-12-18 at 12:00, contact events@acme.example") or as a data '
        'part {"date": "YYYY-MM-DD", "time": "HH:MM" (optional), "guests": 9-500, '
        '"contact", "name" (optional), "notes"}. Asks for whatever is missing; then the '
        "task stays working until a manager approves (completed, with the reference) or "
        "declines (rejected)."
    ),
    tags=[
        "catering", "event", "party", "parties", "group", "company", "corporate", "office",
        "celebration", "celebrate", "birthday", "wedding", "buffet", "Firmenfeier",
        "Weihnachtsfeier", "Betriebsfeier", "Gruppe", "Feier", "feiern", "Veranstaltung",
        "Geburtstag", "Hochzeit", "colleagues", "team", "Kollegen", "Kontakt", "contact",
    ],
    examples=[
        "Catering for 40 people, contact events@acme.example",
        "A group of 15 guests for a birthday party",
        "Company Christmas party with 60 guests",
        "Buffet for an office event, 50 persons",
        "Wir möchten am Wochenende mit 25 Personen feiern",
        "Catering für unsere Firmenfeier mit 50 Gästen",
        "Geburtstagsfeier für 30 Gäste um 18 Uhr",
        "Weihnachtsfeier für eine Gruppe von 40 Leuten",
    ],
    input_modes=MODES,
    output_modes=MODES,
    background=True,
)  # fmt: skip
def catering_request(ctx: SkillContext) -> Working | InputRequired | Rejected:
    """Take a catering or large-group request and leave it for a manager to decide.

    ``ctx.state`` carries the fields understood so far, the language, the texts of the
    turns (the request's notes) and the fields last asked for.
    """
    state = ctx.state
    lang = detect_language(ctx.text) or state.get("lang") or EN
    state["lang"] = lang
    # A worker that died after storing the request runs the handler again: same request.
    existing = catering.request_for_task(ctx.task_id)
    if existing is not None:
        return _catering_received(ctx, existing)

    now = timezone.localtime()
    notes = [*state.get("notes", ()), ctx.text, str(ctx.data.get("notes") or "")]
    state["notes"] = [n.strip() for n in notes if n.strip()]
    checked: dict[str, Any] = {f: state[f] for f in catering.FIELDS if f in state}
    found = catering.parse_request(
        ctx.text, now, expecting=state.get("missing", ()), known_time=checked.get("time")
    )
    from_data, unreadable = catering.parse_request_data(ctx.data)
    found.update(from_data)
    checked.update(found)
    problems = [
        Problem(f, "unreadable", {"value": value})
        for f, value in unreadable.items()
        if f not in found
    ]
    problems += catering.check(checked, now)
    final = next((p for p in problems if p.code in catering.FINAL), None)
    if final is not None:
        return ctx.reject(replies.problem_text(final, checked, lang))

    known = {f: v for f, v in checked.items() if f not in {p.field for p in problems}}
    for f in catering.FIELDS:
        state.pop(f, None)
    state.update(known)
    missing = [f for f in catering.REQUIRED if f not in known]
    if missing:
        state["missing"] = missing
        return ctx.ask(
            replies.catering_question(missing, problems, checked, known, lang),
            missing=missing,
            data={"missing": missing, "known": known},
        )

    state.pop("missing", None)
    request = catering.create_request(
        task_id=ctx.task_id, fields=known, notes="\n".join(state["notes"]), language=lang
    )
    state["reference"] = request.reference
    attach(state, request)  # the admin's task page links to the request
    return _catering_received(ctx, request)


def _catering_received(ctx: SkillContext, request: CateringRequest) -> Working:
    text = replies.catering_received(request)
    return ctx.keep_working(text, data=replies.catering_data(request))
