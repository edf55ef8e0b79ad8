"""Reservation rules: what a valid request is, which table is free, and the booking itself.

Rules (documented for the site owner and the tests):

* a party has 1 to ``largest table`` guests; bigger groups are asked to call;
* a reservation is for the future and at most ``BOOKING_HORIZON`` ahead;
* it must start within an opening period, no later than ``LAST_SEATING`` before closing
  (with 11:30–23:00 the last table is booked for 22:00); the two-hour slot may run past
  closing time, which only shortens the guests' evening;
* a table is free when no confirmed reservation on it overlaps ``[start, start + 2h)``;
  the smallest free table that seats the party is taken.

:func:`book` is the only writer. It locks the candidate tables (``select_for_update``)
before looking for overlaps, so two concurrent requests for the last table queue on the
lock and the second sees the first one's reservation. On SQLite, where row locks do not
exist, the site's ``transaction_mode = IMMEDIATE`` serializes writers the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from django.db import transaction
from django.db.models import DateTimeField, ExpressionWrapper, F, Max, QuerySet
from django.utils import timezone

from .models import RESERVATION_DURATION, Closure, OpeningHours, Reservation, Table, new_reference

LAST_SEATING = timedelta(hours=1)
BOOKING_HORIZON = timedelta(days=365)
SUGGESTION_STEP = timedelta(minutes=30)


class NoTableFree(Exception):
    """No table seats the party at that time (raised by :func:`book`)."""


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a field's value cannot be booked; ``code`` picks the sentence (see replies)."""

    field: str
    code: str
    params: dict[str, Any] = field(default_factory=dict)


# --- opening hours and tables --------------------------------------------------------


def largest_table() -> int:
    return Table.objects.aggregate(m=Max("seats"))["m"] or 0


def seating_windows(day: date) -> list[tuple[time, time]]:
    """(first, last) start times that may be booked on ``day``, in order."""
    windows: list[tuple[time, time]] = []
    if Closure.objects.filter(first_day__lte=day, last_day__gte=day).exists():
        return windows  # a holiday: no table that day, whatever the weekly hours say
    for period in OpeningHours.objects.filter(weekday=day.weekday()).order_by("opens"):
        last = (datetime.combine(day, period.closes) - LAST_SEATING).time()
        if last >= period.opens:
            windows.append((period.opens, last))
    return windows


def local_start(day: date, at: time) -> datetime:
    return timezone.make_aware(datetime.combine(day, at))


# --- validation ----------------------------------------------------------------------


def check(fields: dict[str, Any], now: datetime) -> list[Problem]:
    """Problems with the fields known so far; fields not yet given are not checked.

    ``fields`` holds ``date`` "YYYY-MM-DD", ``time`` "HH:MM" and ``party_size`` as the
    parser produces them. The availability check here takes no lock: it only spares the
    guest from giving a name for a slot that is already full. :func:`book` decides.
    """
    problems: list[Problem] = []
    now = timezone.localtime(now)
    party = fields.get("party_size")
    if party is not None:
        most = largest_table()
        if most == 0:
            problems.append(Problem("party_size", "no_tables"))
        elif party < 1:
            problems.append(Problem("party_size", "party_too_small"))
        elif party > most:
            problems.append(Problem("party_size", "party_too_large", {"max": most}))

    day = date.fromisoformat(fields["date"]) if "date" in fields else None
    if day is not None:
        if day < now.date():
            problems.append(Problem("date", "past_date"))
            day = None
        elif day > (now + BOOKING_HORIZON).date():
            problems.append(Problem("date", "too_far", {"days": BOOKING_HORIZON.days}))
            day = None
        elif not seating_windows(day):
            problems.append(Problem("date", "closed_day", {"weekday": day.weekday()}))
            day = None
    if day is None or "time" not in fields:
        return problems

    at = time.fromisoformat(fields["time"])
    windows = seating_windows(day)
    if local_start(day, at) <= now:
        problems.append(Problem("time", "past_time"))
    elif not any(first <= at <= last for first, last in windows):
        problems.append(Problem("time", "outside_hours", {"windows": windows, "day": day}))
    elif party is not None and not problems and free_table(local_start(day, at), party) is None:
        suggestions = suggest_times(day, party, at, now=now)
        problems.append(Problem("time", "no_table", {"suggestions": suggestions, "day": day}))
    return problems


# --- availability --------------------------------------------------------------------


def _candidates(party_size: int) -> QuerySet[Table]:
    # Smallest table first, so a couple does not take the table for eight.
    return Table.objects.filter(seats__gte=party_size).order_by("seats", "number")


def _overlapping(tables: Iterable[Table], start: datetime, end: datetime) -> list[Reservation]:
    """Confirmed reservations on ``tables`` that overlap ``[start, end)``."""
    ends_at = ExpressionWrapper(F("start") + F("duration"), output_field=DateTimeField())
    return list(
        Reservation.objects.filter(
            table__in=list(tables), status=Reservation.Status.CONFIRMED, start__lt=end
        )
        .annotate(ends_at=ends_at)
        .filter(ends_at__gt=start)
    )


def _pick(
    tables: list[Table], taken: list[Reservation], start: datetime, end: datetime
) -> Table | None:
    for table in tables:
        if not any(r.table_id == table.pk and r.start < end and r.end > start for r in taken):
            return table
    return None


def free_table(start: datetime, party_size: int) -> Table | None:
    """The table :func:`book` would take now, without locking anything."""
    tables = list(_candidates(party_size))
    end = start + RESERVATION_DURATION
    return _pick(tables, _overlapping(tables, start, end), start, end)


def _free_slots(day: date, party_size: int, now: datetime) -> list[datetime]:
    """Every bookable start on ``day`` for the party (one per ``SUGGESTION_STEP``), in order."""
    tables = list(_candidates(party_size))
    windows = seating_windows(day)
    if not tables or not windows:
        return []
    day_start = local_start(day, windows[0][0])
    day_end = local_start(day, windows[-1][1]) + RESERVATION_DURATION
    taken = _overlapping(tables, day_start, day_end)
    slots = []
    for first, last in windows:
        slot = local_start(day, first)
        while slot <= local_start(day, last):
            if slot > now and _pick(tables, taken, slot, slot + RESERVATION_DURATION):
                slots.append(slot)
            slot += SUGGESTION_STEP
    return slots


def suggest_times(
    day: date, party_size: int, around: time, *, now: datetime, limit: int = 3
) -> list[time]:
    """Up to ``limit`` bookable start times on ``day`` nearest to ``around``, in order."""
    target = local_start(day, around)
    slots = _free_slots(day, party_size, now)
    nearest = sorted(slots, key=lambda s: abs(s - target))[:limit]
    return [timezone.localtime(s).time() for s in sorted(nearest)]


def free_times(day: date, party_size: int, *, now: datetime) -> list[time]:
    """Every bookable start time on ``day`` for the party, in order: what to answer
    "which times are free on Sunday?"."""
    return [timezone.localtime(s).time() for s in _free_slots(day, party_size, now)]


# --- booking -------------------------------------------------------------------------


def book(*, start: datetime, party_size: int, name: str, contact: str) -> Reservation:
    """Reserve the smallest free table for the party, or raise :class:`NoTableFree`.

    Callers validate first (:func:`check`); this function only guarantees that no two
    confirmed reservations overlap on one table, also under concurrent requests.
    """
    end = start + RESERVATION_DURATION
    with transaction.atomic():
        # Locks every table the party could sit at, in a fixed order (no deadlocks);
        # held until the outermost transaction ends.
        tables = list(_candidates(party_size).select_for_update())
        table = _pick(tables, _overlapping(tables, start, end), start, end)
        if table is None:
            raise NoTableFree
        reference = new_reference()
        while Reservation.objects.filter(reference=reference).exists():
            reference = new_reference()
        return Reservation.objects.create(
            reference=reference,
            name=name,
            contact=contact,
            party_size=party_size,
            start=start,
            duration=RESERVATION_DURATION,
            table=table,
        )
