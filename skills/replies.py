"""What the reservation and catering skills say to the guest, in English or German."""

from __future__ import annotations

from datetime import date, time
from typing import Any

from django.utils import timezone

from .booking import Problem
from .models import CateringRequest, Reservation
from .wording import DE, EN, day_name, format_date, format_time, join_words

_LABELS = {
    EN: {
        "date": "the date",
        "time": "the time",
        "party_size": "the number of guests",
        "guests": "the number of guests",
        "name": "your name",
        "contact": "an e-mail address or phone number",
    },
    DE: {
        "date": "das Datum",
        "time": "die Uhrzeit",
        "party_size": "die Anzahl der Personen",
        "guests": "die Anzahl der Personen",
        "name": "Ihren Namen",
        "contact": "eine E-Mail-Adresse oder Telefonnummer",
    },
}


def _guests(count: int, lang: str) -> str:
    if lang == DE:
        return "1 Person" if count == 1 else f"{count} Personen"
    return "1 guest" if count == 1 else f"{count} guests"


def _clock(value: time, lang: str) -> str:
    return f"{format_time(value)} Uhr" if lang == DE else format_time(value)


def problem_text(problem: Problem, fields: dict[str, Any], lang: str) -> str:
    """One sentence saying why ``problem.field`` has to be given again."""
    de = lang == DE
    p = problem.params
    day = date.fromisoformat(fields["date"]) if "date" in fields else p.get("day")
    when = format_date(day, lang) if day else ""
    at = time.fromisoformat(fields["time"]) if "time" in fields else None
    code = problem.code
    if code == "unreadable":
        label = _LABELS[lang][problem.field]
        if de:
            return f"„{p['value']}“ konnte ich nicht als {label} lesen."
        return f"I could not read “{p['value']}” as {label}."
    if code == "no_tables":
        if de:
            return "Wir nehmen zurzeit keine Reservierungen an."
        return "We are not taking reservations at the moment."
    if code == "party_too_small":
        if de:
            return "Eine Reservierung braucht mindestens eine Person."
        return "A reservation needs at least one guest."
    if code == "party_too_large":
        if de:
            return (
                f"Unser größter Tisch hat {p['max']} Plätze; größere Gruppen fragen bitte "
                "mit einer neuen Anfrage bei „Catering and large groups“ (catering-request) an."
            )
        return (
            f"Our largest table seats {p['max']}; for a bigger group please send a new request "
            "to “Catering and large groups” (catering-request)."
        )
    if code == "group_too_small":
        if de:
            return (
                f"Gruppenanfragen gelten ab {p['min']} Personen; kleinere Gruppen reservieren "
                "bitte einen Tisch über „Book a table“ (make-reservation)."
            )
        return (
            f"Group and catering requests start at {p['min']} guests; for a smaller party "
            "please book a table with “Book a table” (make-reservation)."
        )
    if code == "group_too_large":
        if de:
            return f"Wir bewirten höchstens {p['max']} Personen; bitte rufen Sie uns an."
        return f"We cater for at most {p['max']} guests; please call us."
    if code == "past_date":
        return "Dieses Datum liegt in der Vergangenheit." if de else "That date is in the past."
    if code == "too_far":
        if de:
            return f"Wir nehmen Reservierungen höchstens {p['days']} Tage im Voraus an."
        return f"We take reservations at most {p['days']} days ahead."
    if code == "closed_day":
        weekday = day_name(p["weekday"], lang)
        return f"{weekday}s haben wir geschlossen." if de else f"We are closed on {weekday}s."
    if code == "past_time":
        if de:
            return f"{when}, {_clock(at, lang)} liegt bereits in der Vergangenheit."
        return f"{_clock(at, lang)} on {when} has already passed."
    if code == "outside_hours":
        spans = [f"{format_time(a)}–{format_time(b)}" for a, b in p["windows"]]
        if de:
            return f"Am {when} beginnen Reservierungen zwischen {' und '.join(spans)} Uhr."
        return f"On {when} a reservation can start between {' and '.join(spans)}."
    if code == "no_table":
        if de:
            text = f"Leider ist am {when} um {_clock(at, lang)} kein passender Tisch mehr frei."
        else:
            text = f"Sorry, we have no table free for your party at {_clock(at, lang)} on {when}."
        if p.get("suggestions"):
            times = join_words([format_time(t) for t in p["suggestions"]], lang, alternatives=True)
            text += f" Frei wäre es um {times} Uhr." if de else f" We could offer {times}."
        else:
            text += " Der Tag ist ausgebucht." if de else " That day is fully booked."
        return text
    return "Das passt leider nicht." if de else "That does not work, sorry."


def question(
    missing: list[str],
    problems: list[Problem],
    checked: dict[str, Any],
    known: dict[str, Any],
    lang: str,
) -> str:
    """Explain the problems found in ``checked``, then ask for exactly the ``missing`` fields.

    ``known`` is what is left after the rejected values were dropped; it is repeated so the
    guest sees what has been understood so far.
    """
    sentences = [problem_text(problem, checked, lang) for problem in problems]
    wanted = join_words([_LABELS[lang][f] for f in missing], lang)
    summary = []
    if "party_size" in known:
        summary.append(_guests(known["party_size"], lang))
    if "date" in known:
        summary.append(format_date(date.fromisoformat(known["date"]), lang))
    if "time" in known:
        summary.append(_clock(time.fromisoformat(known["time"]), lang))
    about = f" ({', '.join(summary)})" if summary else ""
    if lang == DE:
        sentences.append(f"Für Ihre Reservierung{about} brauche ich noch {wanted}.")
    else:
        sentences.append(f"To book your table{about} I still need {wanted}.")
    return " ".join(sentences)


def confirmation(reservation: Reservation, lang: str) -> str:
    start = timezone.localtime(reservation.start)
    guests = _guests(reservation.party_size, lang)
    when = format_date(start.date(), lang)
    at = _clock(start.time(), lang)
    table = reservation.table.number
    if lang == DE:
        return (
            f"Ihr Tisch ist reserviert: {guests} am {when} um {at} (Tisch {table}), "
            f"auf den Namen {reservation.name}. Ihre Reservierungsnummer: "
            f"{reservation.reference}. Wir freuen uns auf Ihren Besuch!"
        )
    return (
        f"Your table is booked: {guests} on {when} at {at} (table {table}), "
        f"under the name {reservation.name}. Your reference is {reservation.reference}. "
        "We look forward to seeing you!"
    )


def reservation_data(reservation: Reservation) -> dict[str, Any]:
    """The confirmation as JSON for the calling agent."""
    start = timezone.localtime(reservation.start)
    return {
        "reference": reservation.reference,
        "date": start.date().isoformat(),
        "time": f"{start:%H:%M}",
        "party_size": reservation.party_size,
        "name": reservation.name,
        "contact": reservation.contact,
        "table": reservation.table.number,
        "start": start.isoformat(),
        "duration_minutes": int(reservation.duration.total_seconds() // 60),
        "status": reservation.status,
    }


# --- catering and large groups -----------------------------------------------------------


def _event_summary(fields: dict[str, Any], lang: str) -> list[str]:
    summary = []
    if "guests" in fields:
        summary.append(_guests(fields["guests"], lang))
    if "date" in fields:
        summary.append(format_date(date.fromisoformat(fields["date"]), lang))
    if fields.get("time"):
        summary.append(_clock(time.fromisoformat(fields["time"]), lang))
    return summary


def catering_question(
    missing: list[str],
    problems: list[Problem],
    checked: dict[str, Any],
    known: dict[str, Any],
    lang: str,
) -> str:
    """Like :func:`question`, for a catering or group request."""
    sentences = [problem_text(problem, checked, lang) for problem in problems]
    wanted = join_words([_LABELS[lang][f] for f in missing], lang)
    summary = _event_summary(known, lang)
    about = f" ({', '.join(summary)})" if summary else ""
    if lang == DE:
        sentences.append(f"Für Ihre Anfrage{about} brauche ich noch {wanted}.")
    else:
        sentences.append(f"To pass on your request{about} I still need {wanted}.")
    return " ".join(sentences)


def _request_fields(request: CateringRequest) -> dict[str, Any]:
    return {
        "guests": request.guests,
        "date": request.date.isoformat(),
        "time": f"{request.time:%H:%M}" if request.time else None,
    }


def _request_when(request: CateringRequest, lang: str) -> str:
    """``40 guests on Friday 18 December 2026 at 12:00`` / ``40 Personen am Freitag, …``."""
    guests = _guests(request.guests, lang)
    day = format_date(request.date, lang)
    if lang == DE:
        at = f" um {_clock(request.time, lang)}" if request.time else ""
        return f"{guests} am {day}{at}"
    at = f" at {_clock(request.time, lang)}" if request.time else ""
    return f"{guests} on {day}{at}"


def catering_received(request: CateringRequest) -> str:
    """What the agent reads while the request waits (the WORKING status message)."""
    when = _request_when(request, request.language)
    if request.language == DE:
        return (
            f"Anfrage {request.reference} erhalten; sie wartet auf die Freigabe durch die "
            f"Restaurantleitung ({when}). Die Antwort folgt in dieser Aufgabe."
        )
    return (
        f"Request {request.reference} received; waiting for a manager's approval "
        f"({when}). The answer will follow on this task."
    )


def _with_staff_note(text: str, request: CateringRequest) -> str:
    note = request.staff_note.strip()
    if not note:
        return text
    label = "Hinweis des Restaurants" if request.language == DE else "Note from the restaurant"
    return f"{text} {label}: {note}"


def catering_approved(request: CateringRequest) -> str:
    when = _request_when(request, request.language)
    if request.language == DE:
        text = (
            f"Ihre Anfrage {request.reference} ist bestätigt: {when}. Wir melden uns unter "
            f"{request.contact}, um die Einzelheiten zu besprechen."
        )
    else:
        text = (
            f"Your request {request.reference} is approved: {when}. We will contact you at "
            f"{request.contact} to settle the details."
        )
    return _with_staff_note(text, request)


def catering_declined(request: CateringRequest) -> str:
    when = _request_when(request, request.language)
    if request.language == DE:
        text = f"Leider können wir Ihre Anfrage {request.reference} ({when}) nicht annehmen."
    else:
        text = f"Sorry, we cannot take on your request {request.reference} ({when})."
    return _with_staff_note(text, request)


def catering_data(request: CateringRequest, *, status: str | None = None) -> dict[str, Any]:
    """The request as JSON for the calling agent; ``status`` overrides the stored one."""
    return (
        {"reference": request.reference}
        | _request_fields(request)
        | {"status": status or request.status}
    )
