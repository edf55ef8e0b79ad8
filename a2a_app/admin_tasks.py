"""The task admin's pieces: who called, what the conversation looks like, and the
owner's verbs (answer, complete, reject, cancel) that act through the service layer.

Kept out of ``admin.py`` so that the ModelAdmin classes there stay readable. Every
verb goes through :mod:`a2a_app.api` or :mod:`a2a_app.core.service`, the code a protocol
call or a worker runs, so the event log, streams, webhooks and signals see an admin's
answer exactly as they see a skill's.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.timesince import timesince
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from a2a_app import api
from a2a_app.caller import Caller
from a2a_app.core import service
from a2a_app.exceptions import TaskClosed
from a2a_app.models import Skill, Task, TaskArtifact, TaskMessage, attached_reference
from a2a_app.protocol.errors import TaskNotCancelableError
from a2a_app.protocol.params import TaskIdRequest
from a2a_app.protocol.types import TaskState

JSON = dict[str, Any]

#: How many of a task's latest messages its page shows (a task holds at most
#: ``MAX_TASK_MESSAGES``; a page of thousands of bubbles helps nobody).
SHOWN_MESSAGES = 200

# --- states ------------------------------------------------------------------------------

#: Each state's tone on the page: a CSS modifier shared by the list and the task page.
STATE_TONES = {
    TaskState.SUBMITTED: "queued",
    TaskState.WORKING: "us",
    TaskState.INPUT_REQUIRED: "caller",
    TaskState.AUTH_REQUIRED: "caller",
    TaskState.COMPLETED: "done",
    TaskState.FAILED: "bad",
    TaskState.REJECTED: "bad",
    TaskState.CANCELED: "off",
}


def state_label(state: str) -> str:
    try:
        return str(dict(Task._meta.get_field("state").choices)[state])
    except KeyError:
        return state


def state_tone(state: str) -> str:
    try:
        return STATE_TONES.get(TaskState(state), "off")
    except ValueError:
        return "off"


def waiting_for_us() -> Q:
    """Tasks the site must act on: WORKING with no worker holding them, i.e. a handler
    returned ``ctx.keep_working(...)`` and site code (or the owner) finishes them."""
    return Q(state=TaskState.WORKING.value, lease_expires_at__isnull=True)


def waiting_for_caller() -> Q:
    return Q(state__in=[TaskState.INPUT_REQUIRED.value, TaskState.AUTH_REQUIRED.value])


class WaitingFilter(admin.SimpleListFilter):
    title = _("who acts next")
    parameter_name = "waiting"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("us", _("Waiting for us")), ("caller", _("Waiting for the caller"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Task]) -> QuerySet[Task]:
        if self.value() == "us":
            return queryset.filter(waiting_for_us())
        if self.value() == "caller":
            return queryset.filter(waiting_for_caller())
        return queryset


class SkillFilter(admin.SimpleListFilter):
    """By skill, the choices from the small Skill table (a DISTINCT over all tasks would
    read the whole task table on every page)."""

    title = _("skill")
    parameter_name = "skill"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(pk, f"{name} ({pk})") for pk, name in Skill.objects.values_list("id", "name")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Task]) -> QuerySet[Task]:
        value = self.value()
        return queryset.filter(skill_id=value) if value else queryset


def age(moment: datetime | None) -> str:
    if moment is None:
        return "—"
    if (timezone.now() - moment).total_seconds() < 60:
        return gettext("just now")
    return gettext("%(time)s ago") % {"time": timesince(moment, timezone.now(), depth=1)}


# --- callers -----------------------------------------------------------------------------


def owner_user_pk(owner: str) -> Any:
    """The user primary key a caller scope names (``user:<pk>``), as the user model's
    key type; None for anonymous callers and malformed scopes."""
    if not owner.startswith("user:"):
        return None
    try:
        return get_user_model()._meta.pk.to_python(owner.removeprefix("user:"))
    except Exception:  # noqa: BLE001 (any key type's conversion error means "no such user")
        return None


def users_by_scope(owners: Iterable[str]) -> dict[str, Any]:
    """The users behind these caller scopes, in one query: ``{"user:5": <User>}``."""
    keys = {owner: owner_user_pk(owner) for owner in set(owners)}
    wanted = {pk for pk in keys.values() if pk is not None}
    if not wanted:
        return {}
    users = {user.pk: user for user in get_user_model()._default_manager.filter(pk__in=wanted)}
    return {owner: users[pk] for owner, pk in keys.items() if pk in users}


def caller_label(owner: str, users: dict[str, Any]) -> str:
    if not owner:
        return gettext("anonymous")
    user = users.get(owner)
    if user is not None:
        return user.get_username()
    return gettext("%(scope)s (no such user)") % {"scope": owner}


def owner_caller(task: Task, users: dict[str, Any] | None = None) -> Caller:
    """The caller the task belongs to, for service calls scoped to a caller: its user, or
    a stand-in carrying only the key when the user is gone (the scope stays right)."""
    if not task.owner:
        return Caller()
    user = (users or users_by_scope([task.owner])).get(task.owner)
    # The key as the scope spells it, so that the stand-in's scope is the task's owner.
    stand_in = _ScopeOnly(task.owner.removeprefix("user:"))
    return Caller(user=user if user is not None else stand_in)


@dataclass(frozen=True, slots=True)
class _ScopeOnly:
    """A user that no longer exists, as far as a caller scope goes."""

    pk: Any
    is_authenticated: bool = True


# --- the conversation --------------------------------------------------------------------


@dataclass(slots=True)
class ShownPart:
    """One part as the task page shows it."""

    kind: str  # "text", "data", "file"
    text: str = ""
    rows: list[tuple[str, str]] = field(default_factory=list)
    pretty: str = ""
    name: str = ""
    url: str = ""
    media_type: str = ""
    size: int | None = None


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _cell(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join("—" if v is None else str(v) for v in value) or "—"
    if value is None:
        return "—"
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    return str(value)


def shown_part(part: Any) -> ShownPart:
    """A wire part as the page shows it: text as text; an object of plain values as a
    key/value table, other data as indented JSON; a file as its name and a link."""
    if not isinstance(part, dict):
        return ShownPart("data", pretty=json.dumps(part, indent=2, ensure_ascii=False))
    media_type = str(part.get("mediaType") or "")
    if "text" in part:
        return ShownPart("text", text=str(part["text"]))
    if "data" in part:
        data = part["data"]
        flat = isinstance(data, dict) and all(
            _scalar(v) or isinstance(v, list) and all(_scalar(i) for i in v) for v in data.values()
        )
        if flat:
            # Empty values say nothing to a reader (an ``ask`` with no missing fields
            # carries ``"missing": []``): left out of the table.
            rows = [(str(k), _cell(v)) for k, v in data.items() if v not in (None, "", [])]
            return ShownPart("data", rows=rows)
        return ShownPart("data", pretty=json.dumps(data, indent=2, ensure_ascii=False))
    if "url" in part:
        url = str(part["url"])
        # Only web links are clickable: a javascript: or data: URL from a caller is shown.
        safe = urlsplit(url).scheme in ("http", "https")
        name = str(part.get("filename") or url.rstrip("/").rsplit("/", 1)[-1] or url)
        return ShownPart("file", name=name, url=url if safe else "", media_type=media_type)
    if "raw" in part:
        try:
            size = len(base64.b64decode(str(part["raw"]), validate=False))
        except (binascii.Error, ValueError):
            size = None
        name = str(part.get("filename") or gettext("(unnamed file)"))
        return ShownPart("file", name=name, media_type=media_type, size=size)
    return ShownPart("data", pretty=json.dumps(part, indent=2, ensure_ascii=False))


def _visible(parts: list[Any]) -> list[ShownPart]:
    shown = (shown_part(p) for p in parts)
    return [p for p in shown if p.kind != "data" or p.rows or p.pretty]


@dataclass(slots=True)
class ShownMessage:
    role: str  # "user" or "agent"
    parts: list[ShownPart]
    created_at: datetime
    message_id: str
    is_status: bool = False


def conversation(task: Task) -> tuple[list[ShownMessage], int]:
    """The task's latest messages, oldest first, and how many earlier ones are not shown."""
    rows = list(
        TaskMessage.objects.filter(task=task)
        .order_by("-position")
        .values_list("body", "role", "created_at", "message_id")[:SHOWN_MESSAGES]
    )
    rows.reverse()
    current = (task.status_message or {}).get("messageId")
    shown = [
        ShownMessage(
            role="agent" if "AGENT" in role.upper() else "user",
            parts=_visible((body or {}).get("parts", [])),
            created_at=created_at,
            message_id=message_id,
            is_status=bool(current) and message_id == current,
        )
        for body, role, created_at, message_id in rows
    ]
    return shown, max(task.message_count - len(shown), 0)


@dataclass(slots=True)
class ShownArtifact:
    artifact_id: str
    name: str
    description: str
    parts: list[ShownPart]
    created_at: datetime


def artifacts(task: Task) -> list[ShownArtifact]:
    return [
        ShownArtifact(
            artifact_id=row.artifact_id,
            name=row.name or (row.body or {}).get("name", ""),
            description=(row.body or {}).get("description", ""),
            parts=_visible((row.body or {}).get("parts", [])),
            created_at=row.created_at,
        )
        for row in TaskArtifact.objects.filter(task=task).order_by("position")
    ]


@dataclass(slots=True)
class Attached:
    """The object a handler attached to the task, as the page links it."""

    label: str
    url: str = ""
    missing: bool = False


def attached(task: Task, request: HttpRequest, admin_site: admin.AdminSite) -> Attached | None:
    """What :meth:`Task.attached_object` finds, linked to its admin page when this admin
    site has one and the user may see it."""
    reference = attached_reference(task.skill_state)
    if reference is None:
        return None
    model, pk = reference
    obj = task.attached_object()
    if obj is None:
        return Attached(f"{model._meta.verbose_name} {pk}", missing=True)
    url = ""
    model_admin = admin_site._registry.get(model)
    if model_admin is not None and model_admin.has_view_or_change_permission(request, obj):
        try:
            url = reverse(
                f"{admin_site.name}:{model._meta.app_label}_{model._meta.model_name}_change",
                args=[obj.pk],
            )
        except NoReverseMatch:
            url = ""
    return Attached(f"{model._meta.verbose_name}: {obj}", url=url)


# --- the owner's verbs -------------------------------------------------------------------


class TaskActionForm(forms.Form):
    text = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 40}), max_length=10_000, strip=True
    )


@dataclass(frozen=True, slots=True)
class Verb:
    """An action the owner takes on a live task, behind its own permission."""

    name: str
    permission: str  # codename in a2a_app
    label: Any
    field_label: Any
    done: Any  # the success message
    needs_text: bool = True

    @property
    def perm(self) -> str:
        return f"a2a_app.{self.permission}"


VERBS: dict[str, Verb] = {
    verb.name: verb
    for verb in (
        Verb(
            "answer",
            "answer_task",
            _("Ask the caller"),
            _("Message to the caller (the task then waits for their answer)"),
            _("Sent to the caller; the task now waits for their answer."),
        ),
        Verb(
            "complete",
            "complete_task",
            _("Complete"),
            _("The result, sent to the caller"),
            _("The task is completed; the caller has the result."),
        ),
        Verb(
            "reject",
            "reject_task",
            _("Reject"),
            _("Why the task is rejected (the caller sees this)"),
            _("The task is rejected; the caller has the reason."),
        ),
        Verb("cancel", "cancel_task", _("Cancel task"), "", _("The task is canceled."), False),
    )
}


def allowed_verbs(request: HttpRequest) -> list[Verb]:
    return [verb for verb in VERBS.values() if request.user.has_perm(verb.perm)]


def perform(verb: Verb, task: Task, text: str) -> Task:
    """Carry out ``verb`` on ``task`` as a protocol call or site code would.

    Raises :class:`~a2a_app.exceptions.TaskClosed` when the task already ended.
    """
    if verb.name == "answer":
        return api.ask(task.pk, text)
    if verb.name == "complete":
        return api.complete(task.pk, text)
    if verb.name == "reject":
        return api.reject(task.pk, text)
    # CancelTask itself, as the task's owner calls it, so its rules apply.
    try:
        service.cancel_task(TaskIdRequest(id=str(task.pk)), owner_caller(task))
    except TaskNotCancelableError as exc:
        raise TaskClosed(str(task.pk), (exc.metadata or {}).get("state", "")) from None
    return Task.objects.get(pk=task.pk)


def verb_forms(request: HttpRequest, task: Task) -> Sequence[tuple[Verb, TaskActionForm | None]]:
    """The verbs this user may use on this task, each with its empty form."""
    if task.is_terminal:
        return []
    return [
        (verb, TaskActionForm(prefix=verb.name) if verb.needs_text else None)
        for verb in allowed_verbs(request)
    ]
