"""What the reservation and catering skills say to the guest, in English or German.

The sentences are English msgids translated with Django's machinery
(``skills/locale/de/LC_MESSAGES/django.po``); each function takes the guest's language
and answers in it (``translation.override``), so a text for a stored request (the
manager's decision, later) is in the language the guest wrote in.
"""

from __future__ import annotations

from datetime import date, time
from typing import Any

from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from .booking import Problem
from .models import CateringRequest, Reservation
from .wording import DE, EN, day_name, format_date, format_time, join_words

__all__ = ["DE", "EN", "format_date"]


def _label(field: str) -> str:
    labels = {
        "date": _("the date"),
        "time": _("the time"),
        "party_size": _("the number of guests"),
        "guests": _("the number of guests"),
        "name": _("your name"),
        "contact": _("an e-mail address or phone number"),
    }
    return labels[field]


def _guests(count: int) -> str:
    return ngettext("%(count)d guest", "%(count)d guests", count) % {"count": count}


def _clock(value: time) -> str:
    return pgettext("clock time", "%(time)s") % {"time": format_time(value)}


def problem_text(problem: Problem, fields: dict[str, Any], lang: str) -> str:
    """One sentence saying why ``problem.field`` has to be given again."""
    with translation.override(lang):
        return _problem_text(problem, fields, lang)


def _problem_text(problem: Problem, fields: dict[str, Any], lang: str) -> str:
    p = problem.params
    day = date.fromisoformat(fields["date"]) if fields.get("date") else p.get("day")
    when = format_date(day, lang) if day else ""
    at = time.fromisoformat(fields["time"]) if fields.get("time") else None
    code = problem.code
    if code == "unreadable":
        return _("I could not read “%(value)s” as %(label)s.") % {
            "value": p["value"],
            "label": _label(problem.field),
        }
    if code == "no_tables":
        return _("We are not taking reservations at the moment.")
    if code == "party_too_small":
        return _("A reservation needs at least one guest.")
    if code == "party_too_large":
        return _(
            "Our largest table seats %(max)s; for a bigger group please send a new request "
            "to “Catering and large groups” (catering-request)."
        ) % {"max": p["max"]}
    if code == "group_too_small":
        return _(
            "Group and catering requests start at %(min)s guests; for a smaller party "
            "please book a table with “Book a table” (make-reservation)."
        ) % {"min": p["min"]}
    if code == "group_too_large":
        return _("We cater for at most %(max)s guests; please call us.") % {"max": p["max"]}
    if code == "past_date":
        return _("That date is in the past.")
    if code == "too_far":
        return _("We take reservations at most %(days)s days ahead.") % {"days": p["days"]}
    if code == "closed_day":
        return _("We are closed on %(weekday)ss.") % {"weekday": day_name(p["weekday"], lang)}
    if code == "past_time":
        assert at is not None
        return _("%(time)s on %(date)s has already passed.") % {
            "time": _clock(at),
            "date": when,
        }
    if code == "outside_hours":
        spans = [f"{format_time(a)}–{format_time(b)}" for a, b in p["windows"]]
        return _("On %(date)s a reservation can start between %(spans)s.") % {
            "date": when,
            "spans": join_words(spans, lang),
        }
    if code == "no_table":
        assert at is not None
        text = _("Sorry, we have no table free for your party at %(time)s on %(date)s.") % {
            "time": _clock(at),
            "date": when,
        }
        if p.get("suggestions"):
            times = join_words([format_time(t) for t in p["suggestions"]], lang, alternatives=True)
            text += " " + _("We could offer %(times)s.") % {"times": times}
        else:
            text += " " + _("That day is fully booked.")
        return text
    return _("That does not work, sorry.")


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
    with translation.override(lang):
        sentences = [_problem_text(problem, checked, lang) for problem in problems]
        wanted = join_words([_label(f) for f in missing], lang)
        summary = []
        if "party_size" in known:
            summary.append(_guests(known["party_size"]))
        if "date" in known:
            summary.append(format_date(date.fromisoformat(known["date"]), lang))
        if "time" in known:
            summary.append(_clock(time.fromisoformat(known["time"])))
        about = f" ({', '.join(summary)})" if summary else ""
        sentences.append(
            _("To book your table%(about)s I still need %(wanted)s.")
            % {"about": about, "wanted": wanted}
        )
        return " ".join(sentences)


def confirmation(reservation: Reservation, lang: str) -> str:
    start = timezone.localtime(reservation.start)
    with translation.override(lang):
        return _(
            "Your table is booked: %(guests)s on %(date)s at %(time)s (table %(table)s), "
            "under the name %(name)s. Your reference is %(reference)s. "
            "We look forward to seeing you!"
        ) % {
            "guests": _guests(reservation.party_size),
            "date": format_date(start.date(), lang),
            "time": _clock(start.time()),
            "table": reservation.table.number,
            "name": reservation.name,
            "reference": reservation.reference,
        }


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
        summary.append(_guests(fields["guests"]))
    if "date" in fields:
        summary.append(format_date(date.fromisoformat(fields["date"]), lang))
    if fields.get("time"):
        summary.append(_clock(time.fromisoformat(fields["time"])))
    return summary


def catering_question(
    missing: list[str],
    problems: list[Problem],
    checked: dict[str, Any],
    known: dict[str, Any],
    lang: str,
) -> str:
    """Like :func:`question`, for a catering or group request."""
    with translation.override(lang):
        sentences = [_problem_text(problem, checked, lang) for problem in problems]
        wanted = join_words([_label(f) for f in missing], lang)
        summary = _event_summary(known, lang)
        about = f" ({', '.join(summary)})" if summary else ""
        sentences.append(
            _("To pass on your request%(about)s I still need %(wanted)s.")
            % {"about": about, "wanted": wanted}
        )
        return " ".join(sentences)


def _request_fields(request: CateringRequest) -> dict[str, Any]:
    return {
        "guests": request.guests,
        "date": request.date.isoformat(),
        "time": f"{request.time:%H:%M}" if request.time else None,
    }


def _request_when(request: CateringRequest, lang: str) -> str:
    """``40 guests on Friday 18 December 2026 at 12:00`` / ``40 Personen am Freitag, …``."""
    values = {"guests": _guests(request.guests), "date": format_date(request.date, lang)}
    if request.time:
        return _("%(guests)s on %(date)s at %(time)s") % {
            **values,
            "time": _clock(request.time),
        }
    return _("%(guests)s on %(date)s") % values


def catering_received(request: CateringRequest) -> str:
    """What the agent reads while the request waits (the WORKING status message)."""
    with translation.override(request.language or EN):
        return _(
            "Request %(reference)s received; waiting for a manager's approval (%(when)s). "
            "The answer will follow on this task."
        ) % {"reference": request.reference, "when": _request_when(request, request.language)}


def _with_staff_note(text: str, request: CateringRequest) -> str:
    note = request.staff_note.strip()
    if not note:
        return text
    label = _("Note from the restaurant")
    return f"{text} {label}: {note}"


def catering_approved(request: CateringRequest) -> str:
    with translation.override(request.language or EN):
        text = _(
            "Your request %(reference)s is approved: %(when)s. We will contact you at "
            "%(contact)s to settle the details."
        ) % {
            "reference": request.reference,
            "when": _request_when(request, request.language),
            "contact": request.contact,
        }
        return _with_staff_note(text, request)


def catering_declined(request: CateringRequest) -> str:
    with translation.override(request.language or EN):
        text = _("Sorry, we cannot take on your request %(reference)s (%(when)s).") % {
            "reference": request.reference,
            "when": _request_when(request, request.language),
        }
        return _with_staff_note(text, request)


def catering_data(request: CateringRequest, *, status: str | None = None) -> dict[str, Any]:
    """The request as JSON for the calling agent; ``status`` overrides the stored one."""
    return (
        {"reference": request.reference}
        | _request_fields(request)
        | {"status": status or request.status}
    )
