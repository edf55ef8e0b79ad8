"""A signed-in caller's ``messageId`` is idempotent: a retried send finds its first answer.

A client that times out sends its message again. A new message (no ``taskId``) whose
``messageId`` the caller already sent is answered with the task the first send created
(:func:`find`, before the send's transaction; ``Task.first_message_id`` is unique per
owner, so of two identical sends racing past the lookup only one stores its task, and
:func:`once` answers the other with it). A follow-up whose ``messageId`` the task already
has is answered likewise (:func:`is_retry_in`, under the task's row lock, from
:func:`a2a_app.core.sending.plan`). Either way no skill runs again.

Only for signed-in callers: every anonymous caller shares one scope, where a messageId
cannot tell one client's retry from another client's message (answering with the first
task would hand it to a stranger), and conformance suites reuse messageIds for new
messages. An agent that needs idempotent retries calls with an API key.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

from django.db import IntegrityError, connection

from a2a_app.caller import Caller
from a2a_app.conf import a2a_settings
from a2a_app.core import runner, store
from a2a_app.db import statement_cursor
from a2a_app.models import Task, TaskMessage
from a2a_app.protocol.errors import InvalidParamsError, TaskNotFoundError
from a2a_app.protocol.params import SendMessageRequest
from a2a_app.protocol.types import Message

JSON = dict[str, Any]
T = TypeVar("T")


def once(
    request: SendMessageRequest,
    caller: Caller,
    *,
    send: Callable[[], T],
    replay: Callable[[Task], T],
) -> T:
    """``send()`` the request, or ``replay()`` the task an identical earlier send made."""
    retried = find(request, caller)
    if retried is not None:
        return replay(retried)
    try:
        return send()
    except IntegrityError as error:
        # An identical send created the task while this one ran: answer with that task
        # (this one's writes, its handler's included, were rolled back).
        if not _is_duplicate(error):
            raise
        request.message.task_id = ""  # plan() gave it the id of the task not created
        retried = find(request, caller)
        if retried is None:
            raise
        return replay(retried)


def deduplicates(caller: Caller) -> bool:
    """Are this caller's messageIds deduplicated? Only in a scope of its own."""
    return caller.is_authenticated


def find(request: SendMessageRequest, caller: Caller) -> Task | None:
    """The task this caller's earlier send of the same new message created, if any.

    Raises InvalidParamsError when that message had other content: a messageId names
    one message, and reusing it for another is a client bug, not a retry. Called before
    the send's transaction (one indexed query); the unique constraint on
    ``(owner, first_message_id)`` settles two sends that race past it
    (:func:`once`).
    """
    message = request.message
    if message.task_id or not message.message_id or not deduplicates(caller):
        return None
    task_id = _first_message_task_id(caller.scope, message.message_id)
    if task_id is None:
        return None
    try:
        task = store.get_task(str(task_id), caller)
    except TaskNotFoundError:  # deleted a moment ago (retention): a new message after all
        return None
    is_retry_in(task, message)
    return task


def _first_message_task_id(scope: str, message_id: str) -> Any:
    """The id of the caller's task that ``message_id`` began, or None.

    Every signed-in send asks, and nearly always finds nothing: one statement written
    once (the ORM compiled a query of the whole task on each send, ~1 ms of CPU), bound
    on the server so that PostgreSQL keeps it prepared. The ``<> ''`` lets its generic
    plan use the partial unique index, which leaves out tasks without a first messageId.
    """
    with statement_cursor(connection) as cursor:
        cursor.execute(_first_message_sql(), [scope, message_id])
        row = cursor.fetchone()
    return None if row is None else row[0]


@cache
def _first_message_sql() -> str:
    quote = connection.ops.quote_name
    owner, first = (
        quote(Task._meta.get_field(name).column) for name in ("owner", "first_message_id")
    )
    return (
        f"SELECT {quote(Task._meta.pk.column)} FROM {quote(Task._meta.db_table)} "
        f"WHERE {owner} = %s AND {first} = %s AND {first} <> ''"
    )


def is_retry_in(task: Task, message: Message) -> bool:
    """Has ``task`` this message already? InvalidParamsError if its id came with other content.

    A retry repeats its message: same role and parts (ids and metadata aside).
    """
    earlier = _earlier_body(task.pk, message.message_id)
    if earlier is None:
        return False
    body = message.to_wire()
    if (earlier.get("role"), earlier.get("parts")) != (body.get("role"), body.get("parts")):
        raise InvalidParamsError.for_field(
            "message.messageId",
            f"{message.message_id!r} was already sent with other content; a retry must "
            "repeat the message, and a new message needs a new messageId",
        )
    return True


def _earlier_body(task_pk: Any, message_id: str) -> JSON | None:
    """The body of the task's first message with ``message_id``, or None.

    Every signed-in follow-up asks: one statement written once, bound on the server (the
    ORM compiled its query on each call, more CPU than the database spent on it).
    """
    task_id = Task._meta.pk.get_db_prep_value(task_pk, connection)  # SQLite: hex text
    with statement_cursor(connection) as cursor:
        cursor.execute(_earlier_body_sql(), [task_id, message_id])
        row = cursor.fetchone()
    if row is None:
        return None
    return TaskMessage._meta.get_field("body").from_db_value(row[0], None, connection)


@cache
def _earlier_body_sql() -> str:
    quote = connection.ops.quote_name
    task, message_id, body, position = (
        quote(TaskMessage._meta.get_field(name).column)
        for name in ("task", "message_id", "body", "position")
    )
    return (
        f"SELECT {body} FROM {quote(TaskMessage._meta.db_table)} "
        f"WHERE {task} = %s AND {message_id} = %s ORDER BY {position} LIMIT 1"
    )


def _is_duplicate(error: IntegrityError) -> bool:
    """Did this insert lose a race to an identical send (the task's unique constraint)?"""
    text = str(error)
    return "a2a_task_owner_message" in text or "first_message_id" in text


def answer(task: Task, request: SendMessageRequest) -> JSON:
    """A retried send's answer: its task as it is now (a blocking send waits as the first
    did for a background task)."""
    configuration = request.configuration
    if task.background and not configuration.return_immediately:
        runner.wait_until_settled(str(task.pk), a2a_settings.BLOCKING_TIMEOUT)
        task.refresh_from_db()
    return {"task": store.read_task(task, configuration.history_length)}
