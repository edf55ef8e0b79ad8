"""Persistent A2A state: skills as the site owner configures them, and tasks.

A task's history and artifacts live in their own tables, ordered by ``position``, so
reading the last N messages of a long task is one indexed query (see the query-count
tests). Message and artifact bodies are stored as their v1.0 wire JSON: they are
protocol data, written once and served back as they are.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
import weakref
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.signals import setting_changed
from django.core.validators import RegexValidator
from django.db import connections, models, router
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from a2a_app.conf import a2a_settings
from a2a_app.crypto import EncryptedTextField
from a2a_app.db import statement_cursor
from a2a_app.ids import uuid7
from a2a_app.protocol.types import OPERATION_NAMES, TERMINAL_STATES, Message, TaskState

#: The fields a ``@skill`` declares in code and the owner may override in the admin. A row
#: shows the code's value for each one not in its ``edited_fields``.
CODE_FIELDS = (
    "name",
    "description",
    "tags",
    "examples",
    "input_modes",
    "output_modes",
    "access",
    "permission",
)


def all_code_fields() -> list[str]:
    """``edited_fields`` of a row made in code (``Skill.objects.create``, a fixture, a data
    migration): every value is the one written there, whatever the handler declares."""
    return list(CODE_FIELDS)


class Skill(models.Model):
    """A skill as the site owner publishes it; ``handler`` picks the code from the registry.

    The values a handler declares (``CODE_FIELDS``) reach the card unless the owner edited
    them in the admin: ``edited_fields`` names the fields whose row value wins.
    """

    class Access(models.TextChoices):
        PUBLIC = "public", _("Anyone, signed in or not")
        AUTHENTICATED = "authenticated", _("Signed-in callers only")
        PERMISSION = "permission", _("Callers with a permission")

    id = models.CharField(
        _("ID"),
        primary_key=True,
        max_length=100,
        validators=[RegexValidator(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")],
        help_text=_("The skill id shown in the agent card, e.g. 'make-reservation'."),
    )
    handler = models.CharField(
        _("handler"),
        max_length=200,
        help_text=_("The registry key of the code that runs this skill."),
    )
    name = models.CharField(_("name"), max_length=200)
    description = models.TextField(_("description"))
    tags = models.JSONField(_("tags"), default=list, blank=True, help_text=_("A list of keywords."))
    examples = models.JSONField(
        _("examples"), default=list, blank=True, help_text=_("Example requests, one string each.")
    )
    input_modes = models.JSONField(
        _("input modes"),
        default=list,
        blank=True,
        help_text=_("Media types; empty means the card's defaults."),
    )
    output_modes = models.JSONField(
        _("output modes"),
        default=list,
        blank=True,
        help_text=_("Media types; empty means the card's defaults."),
    )

    class Execution(models.TextChoices):
        DEFAULT = "", _("As the handler declares")
        INLINE = "inline", _("Inline, in the request")
        BACKGROUND = "background", _("In a background worker")

    enabled = models.BooleanField(_("enabled"), default=True)
    access = models.CharField(
        _("access"),
        max_length=20,
        choices=Access.choices,
        default=Access.PUBLIC,
        help_text=_(
            "Who may see and use this skill. Callers who may not use it do not find it in "
            "the card, are never routed to it, and cannot name it in metadata.skillId."
        ),
    )
    permission = models.CharField(
        _("permission"),
        max_length=255,
        blank=True,
        help_text=_(
            "Only for 'Callers with a permission': a Django permission as "
            "'app_label.codename' (e.g. 'restaurant.view_booking'), held by the user or "
            "one of their groups, or an API-key scope (e.g. 'bookings:write') the "
            "caller's key must carry. Leave empty for the other access levels."
        ),
    )
    execution = models.CharField(
        _("execution"),
        max_length=20,
        choices=Execution.choices,
        default=Execution.DEFAULT,
        blank=True,
        help_text=_("Run long skills in a worker so that no request waits for them."),
    )
    order = models.PositiveIntegerField(
        _("order"), default=0, help_text=_("Position in the agent card.")
    )
    edited_fields = models.JSONField(
        _("edited fields"),
        default=all_code_fields,
        blank=True,
        help_text=_(
            "The fields whose value here wins over the one declared in code; the others "
            "follow the code. Set by the admin when a field is changed."
        ),
    )
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("skill")
        verbose_name_plural = _("skills")
        ordering = ("order", "id")

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """A permission is named exactly when the access level asks for one."""
        super().clean()
        self.permission = self.permission.strip()
        if self.access == self.Access.PERMISSION:
            if not self.permission:
                error = _("Name the permission or API-key scope callers need.")
            elif any(c.isspace() for c in self.permission):
                error = _("A permission or scope has no spaces.")
            else:
                return
        elif self.permission:
            error = _("A permission applies only when access is 'Callers with a permission'.")
        else:
            return
        raise ValidationError({"permission": error})


class CatalogChange(models.Model):
    """One row recording when any skill or the agent profile last changed: the agent
    card's cache key.

    Like django-celery-beat's ``PeriodicTasks``: bumped by signals on every Skill save
    or delete and every ``AgentProfile`` save, read by every web process to know whether
    its cached card is stale.
    """

    ident = models.SmallIntegerField(primary_key=True, default=1, editable=False)
    changed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"skills changed at {self.changed_at:%Y-%m-%d %H:%M:%S}"


class AgentProfile(models.Model):
    """Who the agent is, as its card says: one row the site owner edits in the admin.

    Every field is optional: an empty one falls back to the ``A2A_APP`` setting of the
    same name (``NAME``, ``DESCRIPTION``, ``VERSION``, ``PROVIDER``, ``DOCUMENTATION_URL``,
    ``ICON_URL``), so settings are the defaults and the row only overrides. Saving it moves
    the ``CatalogChange`` marker, so every web process serves the new card.
    """

    ident = models.SmallIntegerField(_("ident"), primary_key=True, default=1, editable=False)
    name = models.CharField(
        _("name"),
        max_length=200,
        blank=True,
        help_text=_('The agent\'s name, the first thing a calling agent reads ("name").'),
    )
    description = models.TextField(
        _("description"),
        blank=True,
        help_text=_(
            'What the agent does, in a few sentences ("description"). Calling agents '
            "read it to decide whether to talk to this agent at all."
        ),
    )
    version = models.CharField(
        _("version"),
        max_length=50,
        blank=True,
        help_text=_("The agent's own version, not the protocol's (\"version\"), e.g. 1.2.0."),
    )
    provider_organization = models.CharField(
        _("organization"),
        max_length=200,
        blank=True,
        help_text=_('Who runs the agent ("provider.organization").'),
    )
    provider_url = models.URLField(
        _("website"),
        blank=True,
        help_text=_('The organization\'s website ("provider.url").'),
    )
    documentation_url = models.URLField(
        _("documentation URL"),
        blank=True,
        help_text=_('Where people and agents read more about this agent ("documentationUrl").'),
    )
    icon_url = models.URLField(
        _("icon URL"),
        blank=True,
        help_text=_('An image that stands for the agent in clients\' lists ("iconUrl").'),
    )
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("agent profile")
        verbose_name_plural = _("agent profile")

    def __str__(self) -> str:
        return str(_("Agent profile"))

    def clean(self) -> None:
        """A provider is an organization with its website: both or neither (the card's
        AgentProvider requires both)."""
        super().clean()
        self.provider_organization = self.provider_organization.strip()
        if bool(self.provider_organization) != bool(self.provider_url):
            missing = "provider_url" if self.provider_organization else "provider_organization"
            raise ValidationError(
                {missing: _("Give both the organization and its website, or neither.")}
            )

    def card_fields(self) -> dict[str, Any]:
        """This row's identity fields in the card's names, empty ones left out."""
        fields: dict[str, Any] = {
            "name": self.name.strip(),
            "description": self.description.strip(),
            "version": self.version.strip(),
            "documentationUrl": self.documentation_url,
            "iconUrl": self.icon_url,
        }
        if self.provider_organization and self.provider_url:
            fields["provider"] = {
                "organization": self.provider_organization,
                "url": self.provider_url,
            }
        return {key: value for key, value in fields.items() if value}


class AgentCard(AgentProfile):
    """The admin's "Agent card" page: no table of its own, an entry in the admin's list.

    A proxy so that the page is listed with the app's models and has a permission of its
    own (``a2a_app.view_agentcard``), apart from editing the profile.
    """

    class Meta:
        proxy = True
        verbose_name = _("agent card")
        verbose_name_plural = _("agent card")
        default_permissions = ("view",)


#: The card's identity fields and the ``A2A_APP`` settings that give their defaults.
PROFILE_SETTINGS = {
    "name": "NAME",
    "description": "DESCRIPTION",
    "version": "VERSION",
    "provider": "PROVIDER",
    "documentationUrl": "DOCUMENTATION_URL",
    "iconUrl": "ICON_URL",
}


def agent_identity(profile: AgentProfile | None) -> dict[str, tuple[Any, str]]:
    """The card's identity fields: card name → (value, where it comes from), the source
    being "profile" or "settings"; a field neither sets is absent."""
    own = profile.card_fields() if profile is not None else {}
    identity: dict[str, tuple[Any, str]] = {}
    for field, setting in PROFILE_SETTINGS.items():
        if field in own:
            identity[field] = (own[field], "profile")
            continue
        value = getattr(a2a_settings, setting)
        if value:
            identity[field] = (dict(value) if field == "provider" else value, "settings")
    return identity


#: The states' names in the admin (the wire names are the values).
TASK_STATE_CHOICES = [
    (TaskState.SUBMITTED.value, _("submitted")),
    (TaskState.WORKING.value, _("working")),
    (TaskState.COMPLETED.value, _("completed")),
    (TaskState.FAILED.value, _("failed")),
    (TaskState.CANCELED.value, _("canceled")),
    (TaskState.INPUT_REQUIRED.value, _("input required")),
    (TaskState.REJECTED.value, _("rejected")),
    (TaskState.AUTH_REQUIRED.value, _("auth required")),
]


class Task(models.Model):
    """One A2A task. ``owner`` is the caller scope (see ``a2a_app.auth``)."""

    id = models.UUIDField(_("id"), primary_key=True, default=uuid7, editable=False)
    context_id = models.CharField(_("context id"), max_length=200)
    owner = models.CharField(
        _("owner"), max_length=200, blank=True, help_text=_("Empty for anonymous.")
    )
    # A plain id rather than a foreign key: deleting a Skill row must not rewrite history.
    skill_id = models.CharField(_("skill id"), max_length=100, blank=True)
    state = models.CharField(_("state"), max_length=32, choices=TASK_STATE_CHOICES)
    status_message = models.JSONField(_("status message"), null=True, blank=True)
    status_timestamp = models.DateTimeField(_("status timestamp"))
    metadata = models.JSONField(_("metadata"), default=dict, blank=True)
    #: The handler's per-task scratch space (``SkillContext.state``).
    skill_state = models.JSONField(_("skill state"), default=dict, blank=True)
    protocol_version = models.CharField(_("protocol version"), max_length=10, default="1.0")
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    #: What was asked: the text of the message that created the task, cut to its first
    #: ``SUMMARY_LENGTH`` characters, for the admin's task list and search (written with
    #: the task's INSERT, so it costs no query; see ``summary_of``).
    summary = models.CharField(_("asked"), max_length=200, blank=True, default="")
    #: The ``messageId`` of the message that created the task: a retried send (same caller,
    #: same id) finds this task instead of creating another (see core/sending.py).
    first_message_id = models.CharField(
        _("first message id"), max_length=200, blank=True, default=""
    )
    #: The whole history (the messages' bodies, oldest first) while it is short: written
    #: with each message (core/updates.py), NULL once its JSON would pass
    #: ``SHORT_HISTORY_BYTES``, and on tasks written before it was kept. A ListTasks page
    #: and GetTask read it from the row they already read, where each task's history
    #: otherwise costs a probe of the message index (docs/queries.md); the TaskMessage
    #: rows stay the history of record.
    short_history = models.JSONField(_("short history"), null=True, blank=True, editable=False)
    # Counters kept under the task's row lock: the next positions without a MAX() query.
    message_count = models.PositiveIntegerField(_("message count"), default=0)
    artifact_count = models.PositiveIntegerField(_("artifact count"), default=0)
    event_count = models.PositiveIntegerField(_("event count"), default=0)
    push_config_count = models.PositiveIntegerField(_("push config count"), default=0)
    # Background execution: when the task was last handed to the broker, how many runs
    # a worker started, and until when the running worker holds it (see a2a_app.runner).
    background = models.BooleanField(_("background"), default=False)
    enqueued_at = models.DateTimeField(_("enqueued at"), null=True, blank=True)
    run_attempts = models.PositiveSmallIntegerField(_("run attempts"), default=0)
    lease_expires_at = models.DateTimeField(_("lease expires at"), null=True, blank=True)
    # The latest run of the handler: when it began and when its result was written (the
    # admin's activity page reads handler times from them; an inline first run may leave
    # ``started_at`` empty, then ``created_at`` is its start).
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("task")
        verbose_name_plural = _("tasks")
        ordering = ("-status_timestamp", "-id")
        # Admin actions that change a task need more than the right to look at it, and
        # each its own: a clerk may answer callers without being allowed to reject them.
        permissions = [
            ("cancel_task", _("Can cancel tasks (admin action)")),
            ("answer_task", _("Can ask a task's caller for input (admin action)")),
            ("complete_task", _("Can complete tasks (admin action)")),
            ("reject_task", _("Can reject tasks (admin action)")),
        ]
        indexes = [
            models.Index(
                fields=["owner", "-status_timestamp", "-id"], name="a2a_task_owner_recent"
            ),
            models.Index(
                fields=["owner", "context_id", "-status_timestamp", "-id"],
                name="a2a_task_owner_ctx_recent",
            ),
            # A context's tasks whoever owns them (the admin's links). A plain index, not
            # db_index: on PostgreSQL that adds a second one for LIKE, which nothing asks.
            models.Index(fields=["context_id"], name="a2a_task_context"),
            # The sweep's two questions: what was never picked up, whose worker vanished.
            # Partial: only the few tasks in that state are in them, so the tasks that end
            # at once (most of them) cost no entry.
            models.Index(
                fields=["enqueued_at"],
                condition=models.Q(state=TaskState.SUBMITTED.value),
                name="a2a_task_submitted_enqueued",
            ),
            models.Index(
                fields=["lease_expires_at"],
                condition=models.Q(state=TaskState.WORKING.value),
                name="a2a_task_working_lease",
            ),
            # Retention: the tasks that ended (or stopped waiting) before a date.
            models.Index(fields=["state", "status_timestamp"], name="a2a_task_state_ended"),
            # The activity page's time range (a few days of a table of millions).
            models.Index(fields=["created_at"], name="a2a_task_created"),
        ]
        constraints = [
            # One task per caller and messageId: two identical sends racing each other
            # cannot both create one (the loser's insert fails and it answers the winner's).
            models.UniqueConstraint(
                fields=["owner", "first_message_id"],
                condition=~models.Q(first_message_id=""),
                name="a2a_task_owner_message",
            )
        ]

    def __str__(self) -> str:
        return f"{self.id} ({self.get_state_display()})"

    @classmethod
    def new(cls, **values: Any) -> Task:
        """``Task(**values)`` for a task about to be created, made as Django makes the rows
        it reads (``from_db``): one positional value per field, the given one or the
        field's default. Keyword construction looks every field up among the keywords;
        on a SendMessage that was a measurable part of the request."""
        fields = cls._meta.concrete_fields
        args, given = [], 0
        for field in fields:
            if field.attname in values:
                args.append(values[field.attname])
                given += 1
            else:
                args.append(field.get_default())
        if given < len(values):
            unknown = values.keys() - {f.attname for f in fields}
            raise TypeError(f"Task has no field {', '.join(sorted(unknown))}")
        return cls(*args)

    @property
    def task_state(self) -> TaskState:
        return TaskState(self.state)

    @property
    def is_terminal(self) -> bool:
        return self.task_state in TERMINAL_STATES

    def attached_object(self) -> models.Model | None:
        """The object a handler attached to this task (a booking, an order), if it still
        exists; see :func:`attach` and :data:`ATTACHED_KEY`."""
        return attached_object(self.skill_state)


class Activity(Task):
    """The admin's "Activity" page (tasks per day, handler times, webhooks, errors): no
    table of its own, a proxy so that the page is listed with the app's models and has a
    permission of its own (``a2a_app.view_activity``)."""

    class Meta:
        proxy = True
        verbose_name = _("activity")
        verbose_name_plural = _("activity")
        default_permissions = ("view",)


#: Where a task's state names the object its handler made or found: a dict
#: ``{"app_label": ..., "model": ..., "pk": ...}`` (``model`` is the lower-case model
#: name, as in content types). The admin's task page links to it.
ATTACHED_KEY = "a2a_attached"

#: How much of the first message's text ``Task.summary`` keeps.
SUMMARY_LENGTH = 200


def summary_of(message: Message) -> str:
    """``Task.summary`` for a task's first message: its text on one line, or without text
    its data (compact JSON) or file names; at most ``SUMMARY_LENGTH`` characters (an
    ellipsis marks a cut)."""
    line = " ".join(message.text.split())
    if not line:
        pieces = []
        for part in message.parts:
            if part.kind == "data":
                pieces.append(json.dumps(part.content, ensure_ascii=False, separators=(",", ":")))
            elif part.kind in ("raw", "url"):
                pieces.append(part.filename or (part.content if part.kind == "url" else "file"))
        line = " ".join(" ".join(pieces).split())
    if len(line) <= SUMMARY_LENGTH:
        return line
    return line[: SUMMARY_LENGTH - 1].rstrip() + "…"


def attach(state: dict[str, Any], obj: models.Model) -> None:
    """Record in a task's state (``ctx.state``) the object the task is about, so that the
    admin links the task to it::

        booking = Booking.objects.create(...)
        attach(ctx.state, booking)
    """
    meta = obj._meta
    state[ATTACHED_KEY] = {"app_label": meta.app_label, "model": meta.model_name, "pk": obj.pk}


def attached_reference(state: Any) -> tuple[type[models.Model], Any] | None:
    """The model class and primary key a task's state names under :data:`ATTACHED_KEY`
    (None when it names none, or a model this site does not have)."""
    from django.apps import apps

    ref = state.get(ATTACHED_KEY) if isinstance(state, dict) else None
    if not isinstance(ref, dict) or ref.get("pk") is None:
        return None
    try:
        model = apps.get_model(str(ref.get("app_label")), str(ref.get("model")))
    except (LookupError, ValueError):
        return None
    return model, ref["pk"]


def attached_object(state: Any) -> models.Model | None:
    """The object a task's state names under :data:`ATTACHED_KEY`, or None (none named,
    an unknown model, a malformed key, or the object is gone)."""
    reference = attached_reference(state)
    if reference is None:
        return None
    model, pk = reference
    try:
        return model._default_manager.filter(pk=pk).first()
    except (ValueError, TypeError, ValidationError):
        return None  # a key of the wrong type for the model


class TaskMessage(models.Model):
    """One message of a task's history, in order."""

    task = models.ForeignKey(
        Task,
        verbose_name=_("task"),
        on_delete=models.CASCADE,
        related_name="messages",
        db_index=False,  # the unique (task, ...) constraint below leads with it
    )
    position = models.PositiveIntegerField(_("position"))
    message_id = models.CharField(_("message id"), max_length=200)
    role = models.CharField(_("role"), max_length=20)
    body = models.JSONField(_("body"), help_text=_("The message as v1.0 wire JSON."))
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("task message")
        verbose_name_plural = _("task messages")
        ordering = ("task", "position")
        constraints = [
            models.UniqueConstraint(fields=["task", "position"], name="a2a_message_task_position")
        ]

    def __str__(self) -> str:
        return f"{self.role} message {self.message_id}"


class TaskArtifact(models.Model):
    """One artifact of a task, in the order it was produced."""

    task = models.ForeignKey(
        Task,
        verbose_name=_("task"),
        on_delete=models.CASCADE,
        related_name="artifacts",
        db_index=False,  # the unique (task, ...) constraint below leads with it
    )
    position = models.PositiveIntegerField(_("position"))
    artifact_id = models.CharField(_("artifact id"), max_length=200)
    name = models.CharField(_("name"), max_length=200, blank=True)
    body = models.JSONField(_("body"), help_text=_("The artifact as v1.0 wire JSON."))
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("task artifact")
        verbose_name_plural = _("task artifacts")
        ordering = ("task", "position")
        constraints = [
            models.UniqueConstraint(fields=["task", "position"], name="a2a_artifact_task_position"),
            models.UniqueConstraint(fields=["task", "artifact_id"], name="a2a_artifact_task_id"),
        ]

    def __str__(self) -> str:
        return self.name or self.artifact_id


class TaskEvent(models.Model):
    """The ordered log of what happened to a task, as v1.0 ``StreamResponse`` JSON.

    Streams replay it and webhooks deliver it; ``sequence`` orders one task's events and
    the primary key orders all events, which is what a polling notifier follows. A task
    that ends in its first write and has no webhook has no events: nothing could read them.
    """

    class Kind(models.TextChoices):
        STATUS = "status", _("status update")
        ARTIFACT = "artifact", _("artifact update")

    task = models.ForeignKey(
        Task,
        verbose_name=_("task"),
        on_delete=models.CASCADE,
        related_name="events",
        db_index=False,  # the unique (task, ...) constraint below leads with it
    )
    sequence = models.PositiveIntegerField(_("sequence"))
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    body = models.JSONField(_("body"), help_text=_("The event as a v1.0 StreamResponse."))
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("task event")
        verbose_name_plural = _("task events")
        ordering = ("task", "sequence")
        constraints = [
            models.UniqueConstraint(fields=["task", "sequence"], name="a2a_event_task_sequence")
        ]

    def __str__(self) -> str:
        return f"{self.task_id} #{self.sequence} {self.kind}"


class PushConfig(models.Model):
    """A webhook the caller registered for a task (``TaskPushNotificationConfig``)."""

    task = models.ForeignKey(
        Task, verbose_name=_("task"), on_delete=models.CASCADE, related_name="push_configs"
    )
    config_id = models.CharField(_("config id"), max_length=200)
    url = models.URLField(_("url"), max_length=2048)
    token = EncryptedTextField(_("token"), blank=True)
    auth_scheme = models.CharField(_("auth scheme"), max_length=50, blank=True)
    credentials = EncryptedTextField(_("credentials"), blank=True)
    #: Which protocol version registered it; webhook bodies use that version's shapes.
    protocol_version = models.CharField(_("protocol version"), max_length=10, default="1.0")
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    # Set while a worker posts this config's events, so only one does (a lease).
    delivering_until = models.DateTimeField(
        _("delivering until"), null=True, blank=True, editable=False
    )

    class Meta:
        verbose_name_plural = _("push notification configs")
        ordering = ("task", "created_at", "id")
        verbose_name = _("push notification config")
        constraints = [
            models.UniqueConstraint(fields=["task", "config_id"], name="a2a_push_task_config")
        ]

    def __str__(self) -> str:
        # Not the URL: it may carry a secret, and this text shows up in the admin.
        return f"{self.config_id} (task {self.task_id})"


class Delivery(models.Model):
    """One event to one webhook, with every attempt's outcome: the delivery log."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        DELIVERED = "delivered", _("delivered")
        FAILED = "failed", _("failed")
        CANCELED = "canceled", _("canceled")

    task = models.ForeignKey(
        Task, verbose_name=_("task"), on_delete=models.CASCADE, related_name="deliveries"
    )
    # Kept when the config is deleted: the log outlives it; no further attempts are made.
    config = models.ForeignKey(
        PushConfig,
        verbose_name=_("config"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="deliveries",
    )
    event = models.ForeignKey(
        TaskEvent, verbose_name=_("event"), on_delete=models.CASCADE, related_name="deliveries"
    )
    url = models.URLField(_("url"), max_length=2048)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PENDING
    )
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    last_status_code = models.PositiveSmallIntegerField(
        _("last status code"), null=True, blank=True
    )
    last_error = models.TextField(_("last error"), blank=True)
    next_attempt_at = models.DateTimeField(_("next attempt at"), default=timezone.now)
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("delivery")
        ordering = ("-created_at", "-id")
        verbose_name_plural = _("deliveries")
        # Redelivering POSTs to a third party again: its own permission, not "change".
        permissions = [("resend_webhook", _("Can resend webhook deliveries (admin action)"))]
        indexes = [
            models.Index(fields=["config", "status", "event"], name="a2a_delivery_next"),
            models.Index(fields=["status", "next_attempt_at"], name="a2a_delivery_due"),
            models.Index(fields=["created_at"], name="a2a_delivery_created"),
        ]

    def __str__(self) -> str:
        return f"event {self.event_id} of task {self.task_id} ({self.status})"


API_KEY_PREFIX = "a2a_"
#: How often, at most, a key's ``last_used_at`` is written (one UPDATE per key per minute,
#: not one per request).
LAST_USED_RESOLUTION = timedelta(minutes=1)


def api_key_digest(raw_key: str) -> str:
    """The stored form of an API key: its SHA-256, hex.

    A fast, unsalted hash is the right one here, unlike for passwords: a key is 32
    random bytes (256 bits) that nobody chose, so no dictionary or brute force can
    invert its digest however fast the hash is; a slow hash (PBKDF2, 0.6 s) would only
    make every request pay for a protection the key does not need. Unsalted, the digest
    is also the lookup: one indexed query finds the key.
    """
    return hashlib.sha256(raw_key.encode()).hexdigest()


def _api_key_query(connection: Any) -> tuple[str, list[str], list[str]]:
    """``ApiKey.find``'s SQL for ``connection``'s database vendor (quoted its way), and the
    columns it reads (key, user); built once per vendor."""
    found = _api_key_queries.get(connection.vendor)
    if found is not None:
        return found
    quote = connection.ops.quote_name
    user_model = ApiKey._meta.get_field("user").related_model
    key_fields = [f.attname for f in ApiKey._meta.concrete_fields]
    user_fields = [f.attname for f in user_model._meta.concrete_fields]
    key_table, user_table = quote(ApiKey._meta.db_table), quote(user_model._meta.db_table)
    columns = [f"k.{quote(f.column)}" for f in ApiKey._meta.concrete_fields] + [
        f"u.{quote(f.column)}" for f in user_model._meta.concrete_fields
    ]
    user_pk = quote(user_model._meta.pk.column)
    sql = (
        f"SELECT {', '.join(columns)} FROM {key_table} k "
        f"JOIN {user_table} u ON u.{user_pk} = k.{quote(ApiKey._meta.get_field('user').column)} "
        f"WHERE k.{quote(ApiKey._meta.get_field('digest').column)} = %s"
    )
    found = _api_key_queries[connection.vendor] = (sql, key_fields, user_fields)
    return found


_api_key_queries: dict[str, tuple[str, list[str], list[str]]] = {}


class _RecentApiKeys:
    """Rows of ``ApiKey.find`` this process read lately: (database, digest) -> (row, when
    read by ``time.monotonic``). Only found keys; bounded, emptied whole when full.

    A key revoked, or its user deactivated, through the ORM in this process is forgotten
    at once (:func:`forget_api_keys`), including by a request that read the row before
    and stores it after (``generation``); other processes (other web workers, a
    management command) see the change when their copy expires. ``expires_at`` is
    compared with the clock on every use, so expiry is exact.
    """

    limit = 1024

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], tuple[tuple, float]] = {}
        self.generation = 0  # moved by every forget()

    def get(self, database: str, digest: str) -> tuple | None:
        """The row as read less than ``API_KEY_CACHE_SECONDS`` ago, or None."""
        seconds = a2a_settings.API_KEY_CACHE_SECONDS
        found = self.rows.get((database, digest)) if seconds else None
        if found is None or time.monotonic() - found[1] >= seconds:
            return None
        return found[0]

    def remember(self, database: str, digest: str, row: tuple, generation: int) -> None:
        """Keep ``row``, read when ``generation`` was current, unless a change came since."""
        if not a2a_settings.API_KEY_CACHE_SECONDS or generation != self.generation:
            return
        if len(self.rows) >= self.limit:
            self.rows.clear()
        self.rows[database, digest] = (row, time.monotonic())

    def drop(self, database: str, digest: str) -> None:
        self.rows.pop((database, digest), None)

    def forget(self) -> None:
        self.generation += 1
        self.rows.clear()


_recent_api_keys = _RecentApiKeys()


def forget_api_keys(**kwargs: Any) -> None:
    """Forget every remembered key row (receiver: a key or a user was saved or deleted,
    or the settings changed)."""
    _recent_api_keys.forget()


def _converted(connection: Any, model: type[models.Model], names: list[str], values: Any) -> list:
    """A raw row's values as the ORM would give them (JSON parsed, SQLite's dates read)."""
    converters = _row_converters.get(connection, {}).get(model)
    if converters is None:
        converters = []
        for name in names:
            column = model._meta.get_field(name).get_col(model._meta.db_table)
            found = [
                *connection.ops.get_db_converters(column),
                *column.get_db_converters(connection),
            ]
            converters.append((column, found))
        _row_converters.setdefault(connection, {})[model] = converters
    converted = []
    for (column, found), value in zip(converters, values, strict=True):
        for convert in found:
            value = convert(value, column, connection)
        converted.append(value)
    return converted


#: Per connection (its ops' converters are bound to it), per model: each column's converters.
_row_converters: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class ApiKey(models.Model):
    """A credential a calling agent sends in the API key header; it acts as its user.

    Only the digest is stored: the full key is shown once, when it is issued.
    ``prefix`` is its visible beginning (``a2a_XXXXXXXX``), to recognise it in lists and
    logs. ``scopes`` narrow what the key may do (``operation:SendMessage``,
    ``skill:<id>``, or a permission a skill asks for); empty means all its user may do.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="a2a_api_keys",
    )
    name = models.CharField(
        _("name"), max_length=200, help_text=_("What the key is for, e.g. the agent.")
    )
    prefix = models.CharField(_("prefix"), max_length=16, unique=True, editable=False)
    digest = models.CharField(_("digest"), max_length=64, unique=True, editable=False)
    scopes = models.JSONField(
        _("scopes"),
        default=list,
        blank=True,
        help_text=_(
            'A list such as ["operation:SendMessage", "skill:menu"]; empty: everything '
            "the user may do."
        ),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    expires_at = models.DateTimeField(
        _("expires at"), null=True, blank=True, help_text=_("Empty: the key does not expire.")
    )
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True, editable=False)

    class Meta:
        verbose_name_plural = _("API keys")
        ordering = ("-created_at", "-id")
        verbose_name = _("API key")

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name})"

    @classmethod
    def issue(
        cls,
        user: Any,
        name: str,
        *,
        scopes: list[str] | None = None,
        expires_at: datetime | None = None,
    ) -> tuple[ApiKey, str]:
        """Create a key: the row and the full key, which exists nowhere else afterwards."""
        key = cls(user=user, name=name, scopes=list(scopes or []), expires_at=expires_at)
        return key, key.set_new_secret()

    def set_new_secret(self) -> str:
        """Give this (unsaved) row a fresh key, saved; return the full key."""
        public = secrets.token_hex(4)
        raw = f"{API_KEY_PREFIX}{public}_{secrets.token_urlsafe(32)}"
        self.prefix = f"{API_KEY_PREFIX}{public}"
        self.digest = api_key_digest(raw)
        self.save()
        return raw

    @classmethod
    def find(cls, raw_key: str) -> ApiKey | None:
        """The key row for a presented key, usable or not (None: no such key), its user
        loaded with it.

        Every signed-in request asks, so the query is written once per process rather
        than compiled by the ORM each time: that compilation cost a signed-in GetTask
        more CPU than the rest of the request. Bound on the server, PostgreSQL keeps it
        prepared instead of planning the join again (~0.2 of ~0.25 ms of its CPU).

        A found row is remembered by this process for ``API_KEY_CACHE_SECONDS``
        (:class:`_RecentApiKeys`): the round trip cost a signed-in request more than
        the rest of its authentication. Each use still builds fresh instances from it.
        """
        database = router.db_for_read(cls)
        connection = connections[database]
        sql, key_fields, user_fields = _api_key_query(connection)
        digest = api_key_digest(raw_key)
        row = _recent_api_keys.get(database, digest)
        if row is None:
            generation = _recent_api_keys.generation
            with statement_cursor(connection) as cursor:
                cursor.execute(sql, [digest])
                row = cursor.fetchone()
            if row is None:
                return None  # unknown keys are not remembered: a key issued later works
            _recent_api_keys.remember(database, digest, tuple(row), generation)
        head = row[: len(key_fields)]
        key = cls.from_db(database, key_fields, _converted(connection, cls, key_fields, head))
        user_model = cls._meta.get_field("user").related_model
        rest = row[len(key_fields) :]
        key.user = user_model.from_db(
            database, user_fields, _converted(connection, user_model, user_fields, rest)
        )
        return key

    @property
    def status(self) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= timezone.now():
            return "expired"
        return "active"

    @property
    def is_usable(self) -> bool:
        return self.status == "active" and self.user.is_active

    def revoke(self) -> None:
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])

    def touch(self) -> None:
        """Record a use, at most once per LAST_USED_RESOLUTION: the row was just read to
        authenticate, so deciding costs nothing, and most requests write nothing."""
        now = timezone.now()
        if self.last_used_at is not None and now - self.last_used_at < LAST_USED_RESOLUTION:
            return
        # The filter keeps concurrent requests of the same key from all writing.
        stale = models.Q(last_used_at__isnull=True) | models.Q(
            last_used_at__lt=now - LAST_USED_RESOLUTION
        )
        ApiKey.objects.filter(stale, pk=self.pk).update(last_used_at=now)
        self.last_used_at = now
        # The remembered row still has the old time: read the new one next time, or
        # every request until it expires would try to write again.
        _recent_api_keys.drop(self._state.db, self.digest)

    @staticmethod
    def scope_problem(scopes: Any) -> str | None:
        """What is wrong with a scopes value, or None: a list of non-empty strings, each
        ``operation:<v1.0 method>``, ``skill:<id>`` or a permission."""
        if not isinstance(scopes, list) or not all(isinstance(s, str) and s for s in scopes):
            return "Scopes must be a list of non-empty strings"
        for scope in scopes:
            if scope.startswith("operation:") and scope[10:] not in OPERATION_NAMES:
                return f"{scope!r}: no such operation (e.g. operation:SendMessage)"
            if scope.startswith("skill:") and not scope[6:]:
                return f"{scope!r}: name a skill id after skill:"
        return None

    def caller_scopes(self) -> frozenset[str] | None:
        """The scopes a :class:`~a2a_app.caller.Caller` carries (None: not narrowed)."""
        return frozenset(self.scopes) if self.scopes else None


# A key saved (revoked, its scopes or expiry edited) or deleted, or a user saved
# (deactivated) or deleted: this process stops using any remembered key row at once.
_user_model = settings.AUTH_USER_MODEL
models.signals.post_save.connect(forget_api_keys, sender=ApiKey, dispatch_uid="a2a_app.key_saved")
models.signals.post_delete.connect(forget_api_keys, sender=ApiKey, dispatch_uid="a2a_app.key_gone")
models.signals.post_save.connect(
    forget_api_keys, sender=_user_model, dispatch_uid="a2a_app.user_saved"
)
models.signals.post_delete.connect(
    forget_api_keys, sender=_user_model, dispatch_uid="a2a_app.user_gone"
)
setting_changed.connect(forget_api_keys, dispatch_uid="a2a_app.api_key_settings")


class TaskCount(models.Model):
    """How many tasks a caller scope has in one state, for ListTasks' ``totalSize``.

    Kept by database triggers on the task table (migration 0007), in the transaction
    that writes the tasks, so every writer counts: the ORM, raw SQL, ``bulk_create``,
    ``QuerySet.delete()``. A key is counted on ``slots``: each PostgreSQL connection
    adds to its own (``pg_backend_pid() % 16``), so that concurrent writers of one
    caller don't queue on one row until commit; the sum over slots is the count.
    ``a2a_app.core.task_counts`` reads, rebuilds and compacts them.
    """

    #: True: the count of one context (``context_id``); False: of the whole caller scope
    #: (``context_id`` is ""), kept for authenticated scopes only (anonymous callers
    #: list one context at a time).
    per_context = models.BooleanField()
    owner = models.CharField(max_length=200, blank=True)
    context_id = models.CharField(max_length=200, blank=True)
    state = models.CharField(max_length=32)
    slot = models.PositiveSmallIntegerField(default=0)
    #: May be negative on one slot (a task counted on one and uncounted on another).
    tasks = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["per_context", "owner", "context_id", "state", "slot"],
                name="a2a_taskcount_key",
            )
        ]

    def __str__(self) -> str:
        where = self.context_id if self.per_context else "*"
        return f"{self.owner or 'anonymous'}/{where}/{self.state}: {self.tasks}"


class QueuedRun(models.Model):
    """A background job's run that was sent to the broker and has not started yet.

    While one is queued, senders of the same job send no other message: the run claims
    all the work due when it starts (:mod:`a2a_app.core.queued_runs`). A row is only a
    hint with an expiry; losing it costs an extra message, never a lost one.
    """

    #: The Celery task's name.
    job = models.CharField(max_length=200, primary_key=True)
    #: Until when senders count on the queued run: a message lost on its way (a broker
    #: restart, a worker killed before the run started) holds them back this long at most.
    until = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.job} queued until {self.until:%Y-%m-%d %H:%M:%S}"
