"""Writing a change to a task: state, history, artifacts and the event log, together.

Every change to a task goes through a :class:`TaskUpdate`, inside a transaction that
holds the task's row lock (or creates the task). ``save()`` writes the task row, the new
history messages and artifacts, one :class:`TaskEvent` per status or artifact change,
and a pending :class:`Delivery` per event and webhook; after commit it sends the
signals, wakes streams and hands the deliveries to a worker. One code path, so inline
skills, workers, site code and cancellation all leave the same trail.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone

from a2a_app.core import notify, rows, store
from a2a_app.core.dispatch import get_dispatcher
from a2a_app.core.notify import get_notifier
from a2a_app.exceptions import TaskClosed, TaskNotFound
from a2a_app.models import Delivery, PushConfig, Task, TaskArtifact, TaskEvent, TaskMessage
from a2a_app.protocol.types import Artifact, Message, Part, TaskState
from a2a_app.signals import artifact_added, task_status_changed

JSON = dict[str, Any]

_TASK_FIELDS = [
    "state",
    "status_message",
    "status_timestamp",
    "skill_state",
    "message_count",
    "artifact_count",
    "event_count",
    "push_config_count",
    "enqueued_at",
    "run_attempts",
    "lease_expires_at",
    "started_at",
    "finished_at",
]


#: ``Task.short_history`` holds the whole history while its compact JSON is at most this
#: long: a few messages of text, in the task row without PostgreSQL moving it out of line
#: (TOAST compresses such JSON to a fraction), so the readers that use it read no more
#: pages than the row's. A longer history is read from the message rows.
SHORT_HISTORY_BYTES = 4096

#: Made once: json.dumps with options makes a new encoder per call.
_COMPACT = json.JSONEncoder(separators=(",", ":"))

if TYPE_CHECKING:
    from a2a_app.caller import Caller


class TaskUpdate:
    @classmethod
    @contextmanager
    def locked(cls, task_id: str, *, caller: Caller | None = None) -> Iterator[TaskUpdate]:
        """One change to a live task, under its row lock, saved when the block ends.

        Raises :class:`~a2a_app.exceptions.TaskClosed` when the task is already
        terminal (a late change must not rewrite it) and
        :class:`~a2a_app.exceptions.TaskNotFound` when there is no such task; with a
        ``caller``, only the caller's tasks are found, and a missing one is the protocol's
        TaskNotFoundError. ``update.discard()`` in the block saves nothing.
        """
        with transaction.atomic():
            if caller is not None:
                task = store.get_task(task_id, caller, for_update=True)
            else:
                task = Task.objects.select_for_update().filter(pk=task_id).first()
                if task is None:
                    raise TaskNotFound(task_id)
            if task.is_terminal:
                raise TaskClosed(task_id, task.state)
            update = cls(task)
            yield update
            if not update.discarded:
                update.save()

    def __init__(
        self, task: Task, *, is_new: bool = False, artifacts: list[JSON] | None = None
    ) -> None:
        """``artifacts``: the task's stored artifacts if the caller already has them."""
        self.task = task
        self.is_new = is_new
        self.previous_state: TaskState | None = None if is_new else task.task_state
        self.status_changed = False
        self.skill_changed = False
        self._messages: list[JSON] = []
        self._events: list[tuple[str, JSON]] = []
        self._push_configs: list[PushConfig] = []
        self._added: list[Artifact] = []
        # Artifacts are resolved at save(): appends may target rows not loaded here.
        self._initial = None if artifacts is None and not is_new else list(artifacts or [])
        self._artifact_ops: list[tuple[str, JSON, bool]] = []
        self.artifacts: list[JSON] | None = None
        self.discarded = False
        #: What streams are told of this update's events (see save).
        self._note: str | None = None

    def discard(self) -> None:
        """Save nothing after all (in a :meth:`locked` block)."""
        self.discarded = True

    # --- recording changes ------------------------------------------------------------

    @property
    def new_messages(self) -> list[JSON]:
        """The history messages this update adds, in order."""
        return self._messages

    def add_message(self, message: Message) -> None:
        self._messages.append(message.to_wire())

    def set_status(self, state: TaskState, message: Message | None = None) -> None:
        """A new status; its message (if any) also joins the history."""
        task = self.task
        task.state = state.value
        task.status_message = None if message is None else message.to_wire()
        task.status_timestamp = timezone.now()
        if message is not None:
            self._messages.append(task.status_message)
        self.status_changed = True
        self._event(
            "status", {"statusUpdate": self._ids() | {"status": store.status_to_wire(task)}}
        )

    def set_skill(self, skill_id: str) -> None:
        """The task continues with another skill (a hand-over); saved with the update."""
        self.task.skill_id = skill_id
        self.skill_changed = True

    def add_artifact(
        self, artifact: Artifact, *, append: bool = False, last_chunk: bool = False
    ) -> None:
        """Add an artifact, or with ``append`` add its parts to the artifact of that id.

        Without ``append``, an artifact whose id the task already has replaces it.
        """
        body = artifact.to_wire()
        self._artifact_ops.append((artifact.artifact_id, body, append))
        self._added.append(artifact)
        event: JSON = self._ids() | {"artifact": body}
        if append:
            event["append"] = True
        if last_chunk:
            event["lastChunk"] = True
        self._event("artifact", {"artifactUpdate": event})

    def add_push_config(self, config: PushConfig) -> None:
        self._push_configs.append(config)

    def _ids(self) -> JSON:
        return {"taskId": str(self.task.pk), "contextId": self.task.context_id}

    def _event(self, kind: str, body: JSON) -> None:
        self._events.append((kind, body))

    # --- writing -----------------------------------------------------------------------

    @property
    def writes_one_statement(self) -> bool:
        """Is :meth:`save` one statement? (A new task without push configs, on PostgreSQL.)"""
        return self.is_new and not self._push_configs and rows.writes_in_one_statement()

    def save(self) -> None:
        task = self.task
        if self.is_new and task.is_terminal and not self._push_configs:
            # A task that ends in its first write has no reader for its log: no stream
            # can have been open on it, SubscribeToTask refuses ended tasks, and it has
            # no webhook. Two rows fewer (and their indexes) per blocking SendMessage.
            self._events.clear()
        new_artifacts, changed_artifacts = self._resolve_artifacts()
        first_message, first_event = task.message_count, task.event_count
        first_artifact = task.artifact_count
        task.message_count += len(self._messages)
        update_fields = _TASK_FIELDS
        if self._messages:
            task.short_history = _extended(
                [] if self.is_new else task.short_history, first_message, self._messages
            )
            update_fields = [*update_fields, "short_history"]
        if self.skill_changed:
            update_fields = [*update_fields, "skill_id"]
        task.event_count += len(self._events)
        task.artifact_count += len(new_artifacts)
        replaced = self._replace_push_configs()
        task.push_config_count += len(self._push_configs)
        messages = [
            {
                "task_id": task.pk,
                "position": first_message + i,
                "message_id": body["messageId"],
                "role": body["role"],
                "body": body,
            }
            for i, body in enumerate(self._messages)
        ]
        artifacts = [
            {
                "task_id": task.pk,
                "position": first_artifact + i,
                "artifact_id": body["artifactId"],
                "name": body.get("name", ""),
                "body": body,
            }
            for i, body in enumerate(new_artifacts)
        ]
        events = [
            {"task_id": task.pk, "sequence": first_event + i + 1, "kind": kind, "body": body}
            for i, (kind, body) in enumerate(self._events)
        ]
        # What streams are told of these events (their wake-up carries them); nobody
        # can watch a task before its first write commits: nothing then (a NOTIFY cost
        # PostgreSQL ~0.2 ms of CPU per SendMessage).
        notifier = get_notifier()
        channel = notifier.channel
        self._note = (
            notify.notification(str(task.pk), first_event + 1, [e["body"] for e in events])
            if events and not self.is_new and notifier.carries
            else None
        )
        # Events last: the deliveries below refer to them by their new primary keys.
        event_ids = rows.write(
            task,
            is_new=self.is_new,
            update_fields=update_fields,
            tables=[(TaskMessage, messages), (TaskArtifact, artifacts), (TaskEvent, events)],
            notify=(channel, self._note) if channel and self._note else None,
        )
        for body in changed_artifacts:
            TaskArtifact.objects.filter(task=task, artifact_id=body["artifactId"]).update(
                body=body, name=body.get("name", "")
            )
        for config in self._push_configs:
            config.task = task
            config.save()
        for config in replaced:
            config.save()
        configs = self._queue_deliveries(event_ids)
        transaction.on_commit(lambda: self._after_commit(configs))

    def _replace_push_configs(self) -> list[PushConfig]:
        """A config whose id the task already has replaces it (as Create does)."""
        if self.is_new or not self._push_configs:
            return []
        ids = [c.config_id for c in self._push_configs]
        existing = {
            c.config_id: c for c in PushConfig.objects.filter(task=self.task, config_id__in=ids)
        }
        replaced = []
        for config in list(self._push_configs):
            old = existing.get(config.config_id)
            if old is None:
                continue
            for name in ("url", "token", "auth_scheme", "credentials", "protocol_version"):
                setattr(old, name, getattr(config, name))
            replaced.append(old)
            self._push_configs.remove(config)
        return replaced

    def _resolve_artifacts(self) -> tuple[list[JSON], list[JSON]]:
        """Apply the recorded artifact operations; return (new, changed) bodies."""
        if not self._artifact_ops:
            self.artifacts = self._initial
            return [], []
        touched = list(dict.fromkeys(artifact_id for artifact_id, _, _ in self._artifact_ops))
        if self._initial is not None:
            current = {a["artifactId"]: a for a in self._initial}
        else:
            rows = TaskArtifact.objects.filter(task=self.task, artifact_id__in=touched)
            current = {row.artifact_id: row.body for row in rows}
        stored = set(current)
        for artifact_id, body, append in self._artifact_ops:
            if append and artifact_id in current:
                merged = dict(current[artifact_id])
                merged["parts"] = merged.get("parts", []) + body["parts"]
                current[artifact_id] = merged
            else:
                current[artifact_id] = body
        if self._initial is not None:
            self.artifacts = list(current.values())
        new = [current[i] for i in touched if i not in stored]
        changed = [current[i] for i in touched if i in stored]
        return new, changed

    def _queue_deliveries(self, event_ids: list[int]) -> list[int]:
        if not event_ids or not self.task.push_config_count:
            return []
        configs = list(PushConfig.objects.filter(task=self.task).only("pk", "url"))
        Delivery.objects.bulk_create(
            Delivery(task=self.task, config=config, event_id=event_id, url=config.url)
            for event_id in event_ids
            for config in configs
        )
        return [config.pk for config in configs]

    def _after_commit(self, config_ids: list[int]) -> None:
        task = self.task
        dispatcher = get_dispatcher()
        if self._events and not self.is_new:
            # First: streams wait for this; the signals' receivers (logs, metrics, site
            # code) took ~2 ms of a loaded worker before it (up to ~20 ms). A new task's
            # first write wakes nobody (as for its NOTIFY): its own stream subscribes
            # after it and reads the log; with Redis that is a round trip per task saved.
            dispatcher.publish(str(task.pk), self._note)
        if self.status_changed:
            task_status_changed.send(
                sender=Task, task=task, previous_state=self.previous_state, state=task.task_state
            )
        for artifact in self._added:
            artifact_added.send(sender=Task, task=task, artifact=artifact)
        if config_ids:
            dispatcher.schedule_deliveries(config_ids)

    # --- reading back ------------------------------------------------------------------

    def artifact_list(self) -> list[JSON]:
        """The task's artifacts after save() (given its artifacts, or a new task)."""
        assert self.artifacts is not None, "TaskUpdate was not given the task's artifacts"
        return self.artifacts


def _extended(history: list[JSON] | None, count: int, new: list[JSON]) -> list[JSON] | None:
    """``Task.short_history`` after ``new`` messages: None once it no longer fits
    ``SHORT_HISTORY_BYTES`` (or was never kept, or misses some of the ``count`` messages
    the task had: rows written around this class), and from then on."""
    if history is None or len(history) != count:
        return None
    extended = [*history, *new]
    return extended if len(_COMPACT.encode(extended)) <= SHORT_HISTORY_BYTES else None


def agent_parts(text: str = "", data: Any = None) -> list[Part]:
    parts = [Part.text_part(text)] if text else []
    if data is not None:
        parts.append(Part.data_part(data))
    return parts
