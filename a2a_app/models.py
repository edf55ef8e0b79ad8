"""Persistent A2A state: skills as the site owner configures them, and tasks.

A task's history and artifacts live in their own tables, ordered by ``position``, so
reading the last N messages of a long task is one indexed query (see the query-count
tests). Message and artifact bodies are stored as their v1.0 wire JSON: they are
protocol data, written once and served back as they are.
"""

from __future__ import annotations

import uuid

from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from a2a_app.crypto import EncryptedTextField
from a2a_app.protocol.types import TERMINAL_STATES, TaskState


class Skill(models.Model):
    """A skill as the site owner publishes it; ``handler`` picks the code from the registry."""

    class Access(models.TextChoices):
        PUBLIC = "public", _("Anyone, signed in or not")
        AUTHENTICATED = "authenticated", _("Signed-in callers only")

    id = models.CharField(
        primary_key=True,
        max_length=100,
        validators=[RegexValidator(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")],
        help_text=_("The skill id shown in the agent card, e.g. 'make-reservation'."),
    )
    handler = models.CharField(
        max_length=200, help_text=_("The registry key of the code that runs this skill.")
    )
    name = models.CharField(max_length=200)
    description = models.TextField()
    tags = models.JSONField(default=list, blank=True, help_text=_("A list of keywords."))
    examples = models.JSONField(
        default=list, blank=True, help_text=_("Example requests, one string each.")
    )
    input_modes = models.JSONField(
        default=list, blank=True, help_text=_("Media types; empty means the card's defaults.")
    )
    output_modes = models.JSONField(
        default=list, blank=True, help_text=_("Media types; empty means the card's defaults.")
    )

    class Execution(models.TextChoices):
        DEFAULT = "", _("As the handler declares")
        INLINE = "inline", _("Inline, in the request")
        BACKGROUND = "background", _("In a background worker")

    enabled = models.BooleanField(default=True)
    access = models.CharField(max_length=20, choices=Access.choices, default=Access.PUBLIC)
    execution = models.CharField(
        max_length=20,
        choices=Execution.choices,
        default=Execution.DEFAULT,
        blank=True,
        help_text=_("Run long skills in a worker so that no request waits for them."),
    )
    order = models.PositiveIntegerField(default=0, help_text=_("Position in the agent card."))
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("order", "id")

    def __str__(self) -> str:
        return self.name


class CatalogChange(models.Model):
    """One row recording when any skill last changed: the agent card's cache key.

    Like django-celery-beat's ``PeriodicTasks``: bumped by signals on every Skill save
    or delete, read by every web process to know whether its cached card is stale.
    """

    ident = models.SmallIntegerField(primary_key=True, default=1, editable=False)
    changed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"skills changed at {self.changed_at:%Y-%m-%d %H:%M:%S}"


TASK_STATE_CHOICES = [(s.value, s.name.replace("_", " ").lower()) for s in TaskState][1:]


class Task(models.Model):
    """One A2A task. ``owner`` is the caller scope (see ``a2a_app.auth``)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    context_id = models.CharField(max_length=200, db_index=True)
    owner = models.CharField(max_length=200, blank=True, help_text=_("Empty for anonymous."))
    # A plain id rather than a foreign key: deleting a Skill row must not rewrite history.
    skill_id = models.CharField(max_length=100, blank=True)
    state = models.CharField(max_length=32, choices=TASK_STATE_CHOICES)
    status_message = models.JSONField(null=True, blank=True)
    status_timestamp = models.DateTimeField()
    metadata = models.JSONField(default=dict, blank=True)
    #: The handler's per-task scratch space (``SkillContext.state``).
    skill_state = models.JSONField(default=dict, blank=True)
    protocol_version = models.CharField(max_length=10, default="1.0")
    created_at = models.DateTimeField(default=timezone.now)
    #: The ``messageId`` of the message that created the task: a retried send (same caller,
    #: same id) finds this task instead of creating another (see core/sending.py).
    first_message_id = models.CharField(max_length=200, blank=True, default="")
    # Counters kept under the task's row lock: the next positions without a MAX() query.
    message_count = models.PositiveIntegerField(default=0)
    artifact_count = models.PositiveIntegerField(default=0)
    event_count = models.PositiveIntegerField(default=0)
    push_config_count = models.PositiveIntegerField(default=0)
    # Background execution: when the task was last handed to the broker, how many runs
    # a worker started, and until when the running worker holds it (see a2a_app.runner).
    background = models.BooleanField(default=False)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    run_attempts = models.PositiveSmallIntegerField(default=0)
    lease_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-status_timestamp", "-id")
        indexes = [
            models.Index(
                fields=["owner", "-status_timestamp", "-id"], name="a2a_task_owner_recent"
            ),
            models.Index(
                fields=["owner", "context_id", "-status_timestamp", "-id"],
                name="a2a_task_owner_ctx_recent",
            ),
            # The sweep's two questions: what was never picked up, whose worker vanished.
            models.Index(fields=["state", "enqueued_at"], name="a2a_task_state_enqueued"),
            models.Index(fields=["state", "lease_expires_at"], name="a2a_task_state_lease"),
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

    @property
    def task_state(self) -> TaskState:
        return TaskState(self.state)

    @property
    def is_terminal(self) -> bool:
        return self.task_state in TERMINAL_STATES


class TaskMessage(models.Model):
    """One message of a task's history, in order."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="messages")
    position = models.PositiveIntegerField()
    message_id = models.CharField(max_length=200)
    role = models.CharField(max_length=20)
    body = models.JSONField(help_text=_("The message as v1.0 wire JSON."))
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("task", "position")
        constraints = [
            models.UniqueConstraint(fields=["task", "position"], name="a2a_message_task_position")
        ]

    def __str__(self) -> str:
        return f"{self.role} message {self.message_id}"


class TaskArtifact(models.Model):
    """One artifact of a task, in the order it was produced."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="artifacts")
    position = models.PositiveIntegerField()
    artifact_id = models.CharField(max_length=200)
    name = models.CharField(max_length=200, blank=True)
    body = models.JSONField(help_text=_("The artifact as v1.0 wire JSON."))
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
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
    the primary key orders all events, which is what a polling notifier follows.
    """

    class Kind(models.TextChoices):
        STATUS = "status", _("status update")
        ARTIFACT = "artifact", _("artifact update")

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="events")
    sequence = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    body = models.JSONField(help_text=_("The event as a v1.0 StreamResponse."))
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("task", "sequence")
        constraints = [
            models.UniqueConstraint(fields=["task", "sequence"], name="a2a_event_task_sequence")
        ]

    def __str__(self) -> str:
        return f"{self.task_id} #{self.sequence} {self.kind}"


class PushConfig(models.Model):
    """A webhook the caller registered for a task (``TaskPushNotificationConfig``)."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="push_configs")
    config_id = models.CharField(max_length=200)
    url = models.URLField(max_length=2048)
    token = EncryptedTextField(blank=True)
    auth_scheme = models.CharField(max_length=50, blank=True)
    credentials = EncryptedTextField(blank=True)
    #: Which protocol version registered it; webhook bodies use that version's shapes.
    protocol_version = models.CharField(max_length=10, default="1.0")
    created_at = models.DateTimeField(default=timezone.now)
    # Set while a worker posts this config's events, so only one does (a lease).
    delivering_until = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ("task", "created_at", "id")
        verbose_name = _("push notification config")
        constraints = [
            models.UniqueConstraint(fields=["task", "config_id"], name="a2a_push_task_config")
        ]

    def __str__(self) -> str:
        return f"{self.config_id} → {self.url}"


class Delivery(models.Model):
    """One event to one webhook, with every attempt's outcome: the delivery log."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        DELIVERED = "delivered", _("delivered")
        FAILED = "failed", _("failed")
        CANCELED = "canceled", _("canceled")

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="deliveries")
    # Kept when the config is deleted: the log outlives it; no further attempts are made.
    config = models.ForeignKey(
        PushConfig, null=True, blank=True, on_delete=models.SET_NULL, related_name="deliveries"
    )
    event = models.ForeignKey(TaskEvent, on_delete=models.CASCADE, related_name="deliveries")
    url = models.URLField(max_length=2048)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created_at", "-id")
        verbose_name_plural = _("deliveries")
        indexes = [
            models.Index(fields=["config", "status", "event"], name="a2a_delivery_next"),
            models.Index(fields=["status", "next_attempt_at"], name="a2a_delivery_due"),
        ]

    def __str__(self) -> str:
        return f"event {self.event_id} → {self.url} ({self.status})"
