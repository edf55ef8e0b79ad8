"""Catering and large groups: what a valid request is, and the manager's decision.

Rules (documented for the site owner and the tests):

* a request needs a date, the number of guests and an e-mail address or phone number;
  the time and a name are welcome but optional (catering is often settled later);
* ``MIN_GUESTS`` to ``MAX_GUESTS`` guests: smaller parties book a table with the
  ``make-reservation`` skill, larger events are beyond this kitchen;
* the date is in the future (today counts) and at most ``BOOKING_HORIZON`` ahead.
  Opening hours are not checked: catering leaves the house.

The skill stores a :class:`CateringRequest` and leaves its A2A task WORKING. A manager
then approves or declines it (the admin actions call :func:`decide`), which finishes the
task through :mod:`a2a_app.api`.
"""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Any

from django.db import transaction
from django.utils import timezone

from a2a_app import TaskClosed, TaskNotFound, api

from . import replies
from .booking import BOOKING_HORIZON, Problem, local_start
from .models import CateringRequest, new_catering_reference

MIN_GUESTS = 9  # one more than the largest table
MAX_GUESTS = 500
#: In the order the agent is asked for them.
REQUIRED = ("date", "guests", "contact")
FIELDS = ("date", "time", "guests", "name", "contact")
#: Problems no other value can fix: the request goes to another skill, or nowhere.
FINAL = frozenset({"group_too_small", "group_too_large"})


# --- checking the request ----------------------------------------------------------------


def check(fields: dict[str, Any], now: datetime) -> list[Problem]:
    """Problems with the fields known so far; fields not yet given are not checked."""
    problems: list[Problem] = []
    now = timezone.localtime(now)
    guests = fields.get("guests")
    if guests is not None and guests < MIN_GUESTS:
        problems.append(Problem("guests", "group_too_small", {"min": MIN_GUESTS}))
    elif guests is not None and guests > MAX_GUESTS:
        problems.append(Problem("guests", "group_too_large", {"max": MAX_GUESTS}))
    if "date" not in fields:
        return problems
    day = date.fromisoformat(fields["date"])
    if day < now.date():
        problems.append(Problem("date", "past_date"))
    elif day > (now + BOOKING_HORIZON).date():
        problems.append(Problem("date", "too_far", {"days": BOOKING_HORIZON.days}))
    elif "time" in fields and local_start(day, time.fromisoformat(fields["time"])) <= now:
        problems.append(Problem("time", "past_time"))
    return problems


# --- storing it ------------------------------------------------------------------------


def request_for_task(task_id: str) -> CateringRequest | None:
    return CateringRequest.objects.filter(task_id=task_id).first()


def create_request(
    *, task_id: str, fields: dict[str, Any], notes: str, language: str
) -> CateringRequest:
    """Store a pending request; a handler run again for the same task gets the first one."""
    with transaction.atomic():
        existing = request_for_task(task_id)
        if existing is not None:
            return existing
        reference = new_catering_reference()
        while CateringRequest.objects.filter(reference=reference).exists():
            reference = new_catering_reference()
        return CateringRequest.objects.create(
            reference=reference,
            task_id=task_id,
            date=date.fromisoformat(fields["date"]),
            time=time.fromisoformat(fields["time"]) if fields.get("time") else None,
            guests=fields["guests"],
            name=fields.get("name", ""),
            contact=fields["contact"],
            notes=notes,
            language=language,
        )


# --- the manager's decision --------------------------------------------------------------

APPROVED, DECLINED, CLOSED = (
    CateringRequest.Status.APPROVED.value,
    CateringRequest.Status.DECLINED.value,
    CateringRequest.Status.CLOSED.value,
)
SKIPPED = "skipped"


def decide(pk: int, *, approve: bool) -> str:
    """Approve or decline one pending request and finish its task; returns what happened.

    ``skipped``: the request was no longer pending. ``closed``: its task had already
    ended (the agent canceled it, or it was deleted), so nobody was told; the request is
    closed all the same so it leaves the pending list.
    """
    with transaction.atomic():
        request = CateringRequest.objects.select_for_update().get(pk=pk)
        if request.status != CateringRequest.Status.PENDING:
            return SKIPPED
        request.decided_at = timezone.now()
        try:
            if approve:
                api.complete(
                    request.task_id,
                    replies.catering_approved(request),
                    data=replies.catering_data(request, status=APPROVED),
                    name="catering",
                )
            else:
                api.reject(request.task_id, replies.catering_declined(request))
        except (TaskClosed, TaskNotFound):
            request.status = CateringRequest.Status.CLOSED
            request.save(update_fields=["status", "decided_at"])
            return CLOSED
        request.status = APPROVED if approve else DECLINED
        request.save(update_fields=["status", "decided_at"])
    return request.status
