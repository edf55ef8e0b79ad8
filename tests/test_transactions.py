"""One transaction per SendMessage, and none around a new task's lone statement.

On PostgreSQL a new inline task is written in one statement (a2a_app.rows), and when the
skill's handler touched no table that statement goes alone: psycopg's BEGIN and COMMIT
would be two more round trips for what is already atomic. These tests read libpq's own
trace of what went over the wire (a statement run often enough is prepared, so a bound
statement is known by its Execute message, with or without a Parse before it), and
check that whenever the handler does write, its rows and the task still commit or roll
back together, on either database.
"""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from django.db import connection, transaction

from a2a_app.caller import ANONYMOUS
from a2a_app.core import rows, sending
from a2a_app.models import CatalogChange, Skill, Task
from a2a_app.protocol.params import SendMessageRequest
from a2a_app.skills.registry import SkillSpec, registered

pytestmark = pytest.mark.django_db(transaction=True)

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the wire protocol of PostgreSQL"
)


@pytest.fixture
def install() -> Iterator[Callable[[Callable], str]]:
    """``install(handler)``: an inline skill with its row, where every message goes."""
    stack = ExitStack()

    def install_skill(handler: Callable) -> str:
        spec = SkillSpec(key="writer", handler=handler, name="Writer", description="Writes")
        stack.enter_context(registered(spec))
        Skill.objects.create(id="writer", handler="writer", name="Writer", description="Writes")
        return "writer"

    with stack:
        yield install_skill


def send(text: str = "hello") -> dict[str, Any]:
    message = {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": text}]}
    return sending.send_message(SendMessageRequest.from_wire({"message": message}), ANONYMOUS)


@contextmanager
def wire() -> Iterator[list[str]]:
    """The frontend messages this connection sent meanwhile, as libpq traces them."""
    from psycopg import pq

    connection.ensure_connection()
    pgconn = connection.connection.pgconn
    sent: list[str] = []
    with tempfile.TemporaryFile("w+") as trace:
        pgconn.trace(trace.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            yield sent
        finally:
            pgconn.untrace()
            trace.seek(0)
            sent.extend(line for line in trace.read().splitlines() if line.startswith("F"))


#: How commands() shows a statement sent with the extended protocol (bound on the server,
#: as a2a_app's task write is): once psycopg has prepared it, only Bind and Execute go out.
BOUND = "(bound statement)"


def commands(sent: list[str]) -> list[str]:
    """Each statement sent: a simple Query by its first word, a bound one as BOUND."""
    found = []
    for line in sent:
        _, _, kind, rest = (line + "\t").split("\t", 3)
        if kind == "Query":  # F <length> Query "BEGIN"
            found.append(rest.split('"')[1].split()[0].upper())
        elif kind == "Execute":  # F <length> Execute "<portal>" <max rows>
            found.append(BOUND)
    return found


@postgresql_only
def test_a_new_inline_task_is_one_statement_and_no_begin_or_commit(conformance_mode):
    send()  # the card, the catalogue and the connection are warm
    with wire() as sent:
        result = send()
    assert commands(sent) == [BOUND], sent
    task = Task.objects.get(pk=result["task"]["id"])
    assert task.state == "TASK_STATE_COMPLETED"
    assert task.messages.count() == task.message_count >= 1
    assert task.artifacts.count() == task.artifact_count >= 1


@postgresql_only
def test_the_task_write_is_prepared_once_it_repeats(conformance_mode):
    # The demo's settings allow prepared statements (OPTIONS["prepare_threshold"] = 5).
    for _ in range(6):
        send()
    with wire() as sent:
        send()
    assert commands(sent) == [BOUND]
    assert not [line for line in sent if "\tParse\t" in line], "planned again"
    binds = [line.split('"')[3] for line in sent if "\tBind\t" in line]
    assert len(binds) == 1 and binds[0], "not a named (prepared) statement"


@postgresql_only
def test_a_handler_that_writes_shares_the_task_transaction(install):
    def handler(ctx):
        CatalogChange.objects.create(ident=99)
        return ctx.complete(message="written")

    install(handler)
    send()
    CatalogChange.objects.filter(ident=99).delete()
    with wire() as sent:
        send()
    # The handler's INSERT (Django binds it on the client) and the task's statement.
    assert commands(sent) == ["BEGIN", "INSERT", BOUND, "COMMIT"], sent


def test_the_task_and_the_handlers_rows_roll_back_together(install, monkeypatch):
    def handler(ctx):
        CatalogChange.objects.create(ident=98)
        return ctx.complete(message="written")

    install(handler)

    def failing_write(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(rows, "write", failing_write)
    with pytest.raises(RuntimeError):
        send()
    assert not CatalogChange.objects.filter(ident=98).exists()
    assert not Task.objects.exists()


def test_a_handlers_on_commit_hook_sees_the_task(install):
    seen: dict[str, bool] = {}

    def handler(ctx):
        task_id = ctx.task_id
        transaction.on_commit(lambda: seen.update(saved=Task.objects.filter(pk=task_id).exists()))
        return ctx.complete(message="hooked")

    install(handler)
    send()
    assert seen == {"saved": True}
