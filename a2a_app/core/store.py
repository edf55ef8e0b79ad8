"""Reading and writing tasks in the ORM, and turning them into v1.0 wire JSON.

Every read is scoped to a caller first (an out-of-scope task is indistinguishable from
a missing one), and costs a fixed number of queries whatever the history length.
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime
from functools import cache
from typing import Any

from django.db import connection
from django.db.models import F, QuerySet, TextField, Value, Window
from django.db.models.fields.tuple_lookups import Tuple, TupleLessThan
from django.db.models.functions import Cast, Length, RowNumber

from a2a_app.caller import Caller
from a2a_app.conf import a2a_settings
from a2a_app.core import contexts, task_counts, task_pages
from a2a_app.db import statement_cursor
from a2a_app.models import Task, TaskArtifact, TaskMessage
from a2a_app.protocol.errors import InvalidParamsError, TaskNotFoundError
from a2a_app.protocol.params import ListTasksRequest
from a2a_app.protocol.wire import format_timestamp

JSON = dict[str, Any]


def parse_task_id(task_id: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(task_id)
    except (ValueError, AttributeError, TypeError):
        return None


def scoped_tasks(caller: Caller) -> QuerySet[Task]:
    return Task.objects.filter(owner=caller.scope)


def get_task(task_id: str, caller: Caller, *, for_update: bool = False) -> Task:
    """The caller's task, or TaskNotFoundError (also for malformed and foreign ids).

    Every follow-up message and CancelTask reads its task here (locked). On PostgreSQL
    the query is written once and kept prepared: the ORM compiled it each time (~0.5 ms
    of CPU, more than the database spent on it).
    """
    pk = parse_task_id(task_id)
    task = None
    if pk is not None and connection.vendor == "postgresql":
        with statement_cursor(connection) as cursor:
            cursor.execute(_task_sql(for_update), [pk, caller.scope])
            row = cursor.fetchone()
        task = None if row is None else _task_from_row(row)
    elif pk is not None:
        queryset = scoped_tasks(caller)
        if for_update:
            queryset = queryset.select_for_update()
        task = queryset.filter(pk=pk).first()
    if task is None:
        raise _not_found(task_id)
    return task


@cache
def _task_sql(for_update: bool) -> str:
    quote = connection.ops.quote_name
    columns = ", ".join(f"t.{quote(f.column)}" for f in Task._meta.concrete_fields)
    return (
        f"SELECT {columns} FROM {quote(Task._meta.db_table)} t WHERE t.id = %s AND t.owner = %s"
        + (" FOR UPDATE" if for_update else "")
    )


def _task_from_row(values: Any) -> Task:
    """A task from its columns as PostgreSQL returned them (``Task._meta.concrete_fields``
    in order), converted as the ORM converts them."""
    attnames, converters = _task_columns()
    return Task.from_db(
        connection.alias,
        attnames,
        [
            value if convert is None else convert(value, None, connection)
            for convert, value in zip(converters, values, strict=True)
        ],
    )


def _not_found(task_id: str) -> TaskNotFoundError:
    return TaskNotFoundError(f"Task {task_id!r} not found", metadata={"taskId": task_id})


def task_exists(task_id: str, caller: Caller) -> bool:
    pk = parse_task_id(task_id)
    return pk is not None and scoped_tasks(caller).filter(pk=pk).exists()


# --- history and artifacts ------------------------------------------------------------


def load_history(tasks: Iterable[Task], history_length: int | None) -> dict[str, list[JSON]]:
    """Message bodies per task id (as a string), oldest first, the ``history_length`` latest."""
    task_ids = [t.pk for t in tasks]
    if not task_ids or history_length == 0:
        return {}
    if len(task_ids) == 1:
        return _bodies_of(TaskMessage, task_ids[0], history_length)
    queryset = TaskMessage.objects.filter(task_id__in=task_ids)
    if history_length is not None:
        ranked = queryset.annotate(
            recent=Window(RowNumber(), partition_by=[F("task_id")], order_by=F("position").desc())
        ).filter(recent__lte=history_length)
        rows = list(ranked.order_by("task_id", "position").values_list("task_id", "body"))
    else:
        rows = list(queryset.order_by("task_id", "position").values_list("task_id", "body"))
    history: dict[str, list[JSON]] = defaultdict(list)
    for task_id, body in rows:
        history[str(task_id)].append(body)
    return history


def load_artifacts(tasks: Iterable[Task]) -> dict[str, list[JSON]]:
    """Artifact bodies per task id (as a string), in order."""
    task_ids = [t.pk for t in tasks]
    if not task_ids:
        return {}
    if len(task_ids) == 1:
        return _bodies_of(TaskArtifact, task_ids[0], None)
    rows = (
        TaskArtifact.objects.filter(task_id__in=task_ids)
        .order_by("task_id", "position")
        .values_list("task_id", "body")
    )
    artifacts: dict[str, list[JSON]] = defaultdict(list)
    for task_id, body in rows:
        artifacts[str(task_id)].append(body)
    return artifacts


def _bodies_of(
    model: type[TaskMessage] | type[TaskArtifact], task_pk: Any, newest: int | None
) -> dict[str, list[JSON]]:
    """One task's message or artifact bodies, oldest first, only the ``newest`` latest
    (None: all), keyed as :func:`load_history` keys them.

    Every follow-up message reads its task's history and artifacts: one statement each,
    written once and bound on the server, where the ORM compiled its query on each call.
    """
    column = Task._meta.pk.get_db_prep_value(task_pk, connection)  # SQLite: hex text
    params = [column] if newest is None else [column, newest]
    with statement_cursor(connection) as cursor:
        cursor.execute(_bodies_sql(model, newest is not None), params)
        rows = cursor.fetchall()
    body = model._meta.get_field("body")
    bodies: dict[str, list[JSON]] = defaultdict(list)
    if rows:
        bodies[str(task_pk)] = [body.from_db_value(value, None, connection) for (value,) in rows]
    return bodies


@cache
def _bodies_sql(model: type[TaskMessage] | type[TaskArtifact], newest_only: bool) -> str:
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    task, body, position = (
        quote(model._meta.get_field(name).column) for name in ("task", "body", "position")
    )
    if not newest_only:
        return f"SELECT {body} FROM {table} WHERE {task} = %s ORDER BY {position}"
    return (
        f"SELECT r.{body} FROM (SELECT {body}, {position} FROM {table} WHERE {task} = %s "
        f"ORDER BY {position} DESC LIMIT %s) r ORDER BY r.{position}"
    )


def next_position(task: Task, model: type[TaskMessage] | type[TaskArtifact]) -> int:
    last = (
        model.objects.filter(task=task)
        .order_by("-position")
        .values_list("position", flat=True)
        .first()
    )
    return 0 if last is None else last + 1


# --- wire form --------------------------------------------------------------------------


def status_to_wire(task: Task) -> JSON:
    status: JSON = {"state": task.state, "timestamp": format_timestamp(task.status_timestamp)}
    if task.status_message:
        status["message"] = task.status_message
    return status


def task_to_wire(task: Task, history: list[JSON] | None, artifacts: list[JSON] | None) -> JSON:
    """The Task JSON. ``artifacts=None`` omits the field (ListTasks without includeArtifacts)."""
    out: JSON = {"id": str(task.pk), "contextId": task.context_id, "status": status_to_wire(task)}
    if artifacts is not None:
        out["artifacts"] = artifacts
    if history:
        out["history"] = history
    if task.metadata:
        out["metadata"] = task.metadata
    return out


def read_task(task: Task, history_length: int | None) -> JSON:
    """GetTask's answer: the task with its (trimmed) history and all its artifacts."""
    history = load_history([task], history_length).get(str(task.pk), [])
    artifacts = load_artifacts([task]).get(str(task.pk), [])
    return task_to_wire(task, history, artifacts)


def read_task_by_id(task_id: str, caller: Caller, history_length: int | None) -> JSON:
    """``read_task(get_task(...))``: on PostgreSQL one query instead of three.

    GetTask is what polling clients call over and over, and three ORM queries cost more
    in SQL compilation than in the database: one hand-written query reads the task with
    its (trimmed) history and its artifacts aggregated as JSON arrays.
    """
    if connection.vendor != "postgresql":
        return read_task(get_task(task_id, caller), history_length)
    pk = parse_task_id(task_id)
    if pk is None:
        raise _not_found(task_id)
    if history_length is None or history_length <= WRITTEN_HISTORY_LENGTHS:
        sql, params = _task_with_rows_sql(history_length), [pk, caller.scope]
    else:
        sql, params = _task_with_rows_sql(-1), [history_length, pk, caller.scope]
    # Bound on the server, so that PostgreSQL can keep the query prepared (a2a_app.db).
    with statement_cursor(connection) as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchone()
    if found is None:
        raise _not_found(task_id)
    *values, history_json, artifacts_json = found
    task = _task_from_row(values)
    # NULL: the row holds what was asked (the whole history); no message row was read.
    history = task.short_history if history_json is None else json.loads(history_json)
    return task_to_wire(task, history, json.loads(artifacts_json))


@cache
def _task_columns() -> tuple[list[str], list[Any]]:
    """The task's attribute names, and each field's ``from_db_value`` (or None), in order."""
    fields = Task._meta.concrete_fields
    return [f.attname for f in fields], [getattr(f, "from_db_value", None) for f in fields]


#: GetTask's historyLength up to this is written into its statement (one prepared
#: statement per length asked for); a longer one is bound (see ``_task_with_rows_sql``).
WRITTEN_HISTORY_LENGTHS = 100


@cache
def _task_with_rows_sql(history_length: int | None) -> str:
    """GetTask's statement: the task, its newest ``history_length`` messages (None: all;
    -1: as many as a parameter says, before the task's id and owner) and its artifacts.
    The messages are NULL, and not read, when the task row holds all of them
    (``Task.short_history``) and no fewer were asked for.

    The length is written into the statement, not bound: with ``LIMIT $1`` PostgreSQL
    rejects the generic plan of the prepared statement (it cannot tell how many messages
    a limit it does not know reads) and plans every execution anew, which cost three
    times what running it does (0.45 against 0.14 ms of its CPU per GetTask).
    """
    quote = connection.ops.quote_name
    task, message, artifact = (quote(m._meta.db_table) for m in (Task, TaskMessage, TaskArtifact))
    columns = ", ".join(f"t.{quote(f.column)}" for f in Task._meta.concrete_fields)
    limit = "ALL" if history_length is None else "%s" if history_length < 0 else int(history_length)
    # Whole only if it counts as many messages as the task has: a message row written
    # around TaskUpdate (a bulk load, say) leaves the row's list short, and unused.
    on_row = "jsonb_array_length(t.short_history) = t.message_count" + (
        "" if history_length is None else f" AND {int(history_length)} >= t.message_count"
    )
    if history_length is not None and history_length < 0:
        on_row = "false"
    # The newest N, then oldest first.
    return (
        f"SELECT {columns}, "
        f"CASE WHEN {on_row} THEN NULL ELSE "
        f"(SELECT coalesce(json_agg(h.body ORDER BY h.position), '[]')::text FROM "
        f"(SELECT m.body, m.position FROM {message} m WHERE m.task_id = t.id "
        f"ORDER BY m.position DESC LIMIT {limit}) h) END AS history_json, "
        f"(SELECT coalesce(json_agg(a.body ORDER BY a.position), '[]')::text "
        f"FROM {artifact} a WHERE a.task_id = t.id) AS artifacts_json "
        f"FROM {task} t WHERE t.id = %s AND t.owner = %s"
    )


def trim_history(history: list[JSON], history_length: int | None) -> list[JSON]:
    if history_length is None:
        return history
    return history[-history_length:] if history_length else []


# --- listing ------------------------------------------------------------------------------


def encode_page_token(task: Task) -> str:
    return page_token(task.status_timestamp, task.pk)


def page_token(status_timestamp: datetime, task_id: uuid.UUID) -> str:
    """The token of the page after the task with this status timestamp and id."""
    raw = json.dumps([status_timestamp.isoformat(), str(task_id)], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_page_token(token: str) -> tuple[datetime, uuid.UUID]:
    try:
        padded = token + "=" * (-len(token) % 4)
        timestamp, task_id = json.loads(base64.urlsafe_b64decode(padded))
        if not isinstance(timestamp, str) or not isinstance(task_id, str):
            raise ValueError(token)
        return datetime.fromisoformat(timestamp), uuid.UUID(task_id)
    except (ValueError, TypeError, OverflowError, binascii.Error, UnicodeDecodeError):
        raise InvalidParamsError.for_field("pageToken", "is not a valid page token") from None


def fit_in_bytes(page: list[Task], history_length: int | None, artifacts: bool) -> list[Task]:
    """The first tasks of ``page`` whose history and artifacts fit ``MAX_PAGE_BYTES``
    (at least one), sized in one query from the stored JSON, before any body is read."""
    budget = a2a_settings.MAX_PAGE_BYTES
    if budget is None or len(page) < 2 or (history_length == 0 and not artifacts):
        return page
    task_ids = [task.pk for task in page]
    size = Length(Cast("body", output_field=TextField()))
    queries = []
    for kind, model, wanted in (
        (0, TaskMessage, history_length != 0),
        (1, TaskArtifact, artifacts),
    ):
        if wanted:
            rows_of = model.objects.filter(task_id__in=task_ids).order_by()
            queries.append(
                rows_of.annotate(kind=Value(kind), size=size).values_list(
                    "kind", "task_id", "position", "size"
                )
            )
    sized = queries[0].union(*queries[1:], all=True) if len(queries) > 1 else queries[0]
    totals: Counter[str] = Counter()
    messages: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for kind, task_id, position, length in sized:
        if kind:
            totals[str(task_id)] += length or 0
        else:
            messages[str(task_id)].append((position, length or 0))
    for task_id, entries in messages.items():
        if history_length is not None:  # the newest messages only, as load_history reads
            entries = sorted(entries, reverse=True)[:history_length]
        totals[task_id] += sum(length for _, length in entries)
    used = 0
    for index, task in enumerate(page):
        used += totals[str(task.pk)]
        if used > budget and index:
            return page[:index]
    return page


def list_tasks(request: ListTasksRequest, caller: Caller) -> JSON:
    """ListTasks: newest status first, cursor pages that stay stable when tasks are added,
    at most ``pageSize`` tasks and (but for a page's first task) ``MAX_PAGE_BYTES``."""
    # Checked first: a bad token is the client's error whatever the list holds.
    cursor = decode_page_token(request.page_token) if request.page_token else None
    if not caller.is_authenticated and not contexts.is_generated(request.context_id):
        # Anonymous callers share one scope: without a context they could enumerate
        # everybody's tasks, and with one a client chose, guess someone else's. They see
        # a context only by the unguessable id this agent made for it.
        return {"tasks": [], "nextPageToken": "", "pageSize": request.page_size, "totalSize": 0}
    if task_pages.applies():  # the same answer in one prepared statement
        return task_pages.list_tasks(request, caller, cursor)
    queryset = scoped_tasks(caller)
    if request.context_id:
        queryset = queryset.filter(context_id=request.context_id)
    if request.status is not None:
        queryset = queryset.filter(state=request.status.value)
    if request.status_timestamp_after is not None:
        queryset = queryset.filter(status_timestamp__gte=request.status_timestamp_after)
    if request.status_timestamp_after is None and task_counts.kept():
        # Kept by triggers in the writing transactions: a few rows, whatever the tasks.
        total = task_counts.count(
            caller.scope,
            request.context_id or None,
            None if request.status is None else request.status.value,
        )
    else:  # an instant cannot be counted ahead: the newer tasks are (task_counts.py)
        total = queryset.count()
    if cursor is not None:
        timestamp, task_id = cursor
        # A row comparison, (status_timestamp, id) < (…, …): PostgreSQL walks the
        # (owner, context_id, -status_timestamp, -id) index straight to the page, where
        # the equivalent OR of two conditions made it scan every newer entry first.
        queryset = queryset.filter(
            TupleLessThan(Tuple(F("status_timestamp"), F("pk")), (timestamp, task_id))
        )
    page = list(queryset.order_by("-status_timestamp", "-pk")[: request.page_size + 1])
    has_more = len(page) > request.page_size
    page = page[: request.page_size]
    fitting = fit_in_bytes(page, request.history_length, request.include_artifacts)
    if len(fitting) < len(page):
        page, has_more = fitting, True
    history = load_history(page, request.history_length)
    artifacts = load_artifacts(page) if request.include_artifacts else None
    return {
        "tasks": [
            task_to_wire(
                task,
                history.get(str(task.pk), []),
                None if artifacts is None else artifacts.get(str(task.pk), []),
            )
            for task in page
        ],
        "nextPageToken": encode_page_token(page[-1]) if has_more else "",
        "pageSize": request.page_size,
        "totalSize": total,
    }
