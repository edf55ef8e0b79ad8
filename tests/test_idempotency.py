"""A retried SendMessage (same signed-in caller, same messageId) answers with the task of
the first send and runs nothing again: new tasks, follow-ups, background tasks, streams,
and two identical sends racing each other (spec reference §3.3.1: agents may deduplicate).
Anonymous callers share one scope, so their messageIds are not deduplicated."""

from __future__ import annotations

import base64
import threading
import time
import uuid
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction

from a2a_app.caller import Caller
from a2a_app.conf import a2a_settings
from a2a_app.core import retries, runner, sending, streams
from a2a_app.models import Task, TaskMessage
from a2a_app.protocol.params import SendMessageRequest
from tests.conftest import user_message
from tests.support import Later, error_of, prepared_plans, violated_fields

pytestmark = pytest.mark.django_db

INVALID_PARAMS = -32602


@pytest.fixture
def retrier(django_user_model) -> Caller:
    return Caller(user=django_user_model.objects.create_user("retrier", password="retrier-pw"))


@pytest.fixture
def signed_rpc(rpc, retrier):
    """The ``rpc`` fixture, signed in as ``retrier`` (HTTP Basic)."""
    token = base64.b64encode(b"retrier:retrier-pw").decode()

    def call(method: str, params: Any = None, **kwargs: Any) -> Any:
        return rpc(method, params, headers={"Authorization": f"Basic {token}"}, **kwargs)

    return call


def counting(reply: Any = None) -> tuple[list[str], Any]:
    """A handler that records each call (by message text), then asks or completes."""
    calls: list[str] = []

    def handler(ctx):
        calls.append(ctx.text)
        if reply is not None:
            return reply(ctx)
        return ctx.complete(f"done: {ctx.text}")

    return calls, handler


def test_the_same_new_message_twice_makes_one_task_and_one_run(signed_rpc, install):
    calls, handler = counting()
    install(handler)
    message = user_message("book a table")
    first = signed_rpc("SendMessage", {"message": message})["result"]["task"]
    again = signed_rpc("SendMessage", {"message": message})["result"]["task"]
    assert again["id"] == first["id"]
    assert again["status"]["state"] == "TASK_STATE_COMPLETED"
    assert again["artifacts"] == first["artifacts"]
    assert calls == ["book a table"]
    assert Task.objects.count() == 1
    assert TaskMessage.objects.filter(message_id=message["messageId"]).count() == 1


def test_a_retry_answers_with_the_task_as_it_is_now(signed_rpc, install):
    _, handler = counting(lambda ctx: ctx.ask("For how many?", missing=["guests"]))
    install(handler)
    message = user_message("book a table")
    task = signed_rpc("SendMessage", {"message": message})["result"]["task"]
    Task.objects.filter(pk=task["id"]).update(state="TASK_STATE_CANCELED")
    again = signed_rpc("SendMessage", {"message": message})["result"]["task"]
    assert (again["id"], again["status"]["state"]) == (task["id"], "TASK_STATE_CANCELED")


def test_other_content_under_a_used_message_id_is_invalid_params(signed_rpc, install):
    calls, handler = counting()
    install(handler)
    message = user_message("book a table")
    signed_rpc("SendMessage", {"message": message})
    other = {**message, "parts": [{"text": "cancel my booking"}]}
    error = error_of(signed_rpc("SendMessage", {"message": other}), INVALID_PARAMS)
    assert error["message"] == (
        f"message.messageId: {message['messageId']!r} was already sent with other content; "
        "a retry must repeat the message, and a new message needs a new messageId"
    )
    assert violated_fields(error) == ["message.messageId"]
    assert calls == ["book a table"]
    assert Task.objects.count() == 1


def test_message_ids_are_per_caller(install):
    calls, handler = counting()
    install(handler)
    users = get_user_model().objects
    alice = Caller(user=users.create_user("alice"))
    bob = Caller(user=users.create_user("bob"))
    body = {"message": user_message("book a table", messageId="same-id")}
    first = sending.send_message(SendMessageRequest.from_wire(body), alice)
    second = sending.send_message(SendMessageRequest.from_wire(body), bob)
    assert first["task"]["id"] != second["task"]["id"]
    assert calls == ["book a table", "book a table"]


def test_a_retried_follow_up_adds_no_turn(signed_rpc, install):
    def ask_then_complete(ctx):
        if ctx.is_follow_up:
            return ctx.complete(f"booked: {ctx.text}")
        return ctx.ask("For how many?", missing=["guests"])

    calls, handler = counting(ask_then_complete)
    install(handler)
    task = signed_rpc("SendMessage", {"message": user_message("book a table")})["result"]["task"]
    follow_up = user_message("four", taskId=task["id"])
    answer = signed_rpc("SendMessage", {"message": follow_up})["result"]["task"]
    assert answer["status"]["state"] == "TASK_STATE_COMPLETED"
    messages = Task.objects.get(pk=task["id"]).message_count
    # The task is COMPLETED now: a new follow-up would be refused, a retry is answered.
    again = signed_rpc("SendMessage", {"message": follow_up})["result"]["task"]
    assert (again["id"], again["status"]["state"]) == (task["id"], "TASK_STATE_COMPLETED")
    assert again["artifacts"] == answer["artifacts"]
    assert calls == ["book a table", "four"]
    assert Task.objects.get(pk=task["id"]).message_count == messages
    other = {**follow_up, "parts": [{"text": "five"}]}
    error = error_of(signed_rpc("SendMessage", {"message": other}), INVALID_PARAMS)
    assert violated_fields(error) == ["message.messageId"]


def test_a_retried_background_send_is_enqueued_once(
    signed_rpc, install, dispatched, django_capture_on_commit_callbacks
):
    calls, handler = counting()
    install(handler, background=True)
    message = user_message("cater for 40")
    configuration = {"returnImmediately": True}
    body = {"message": message, "configuration": configuration}
    with django_capture_on_commit_callbacks(execute=True):
        first = signed_rpc("SendMessage", body)["result"]["task"]
        again = signed_rpc("SendMessage", body)["result"]["task"]
    assert again["id"] == first["id"]
    assert dispatched.runs == [first["id"]]
    assert calls == []  # nothing ran here: the worker would run it, once


def test_a_blocking_retry_of_a_background_task_waits_for_it(
    signed_rpc, install, dispatched, monkeypatch
):
    install(counting()[1], background=True)
    message = user_message("cater for 40")
    first = signed_rpc(
        "SendMessage", {"message": message, "configuration": {"returnImmediately": True}}
    )["result"]["task"]
    assert first["status"]["state"] == "TASK_STATE_SUBMITTED"
    waited: list[tuple[str, float]] = []

    def worker_finishes_meanwhile(task_id: str, timeout: float) -> None:
        waited.append((task_id, timeout))
        Task.objects.filter(pk=task_id).update(state="TASK_STATE_COMPLETED")

    monkeypatch.setattr(runner, "wait_until_settled", worker_finishes_meanwhile)
    again = signed_rpc("SendMessage", {"message": message})["result"]["task"]
    assert waited == [(first["id"], a2a_settings.BLOCKING_TIMEOUT)]
    assert (again["id"], again["status"]["state"]) == (first["id"], "TASK_STATE_COMPLETED")


def test_a_retry_of_an_inline_task_answers_at_once(signed_rpc, install, monkeypatch):
    install(counting()[1])
    message = user_message("book a table")
    signed_rpc("SendMessage", {"message": message})
    monkeypatch.setattr(runner, "wait_until_settled", lambda *args: pytest.fail("waited"))
    again = signed_rpc("SendMessage", {"message": message, "configuration": {"historyLength": 0}})[
        "result"
    ]["task"]
    assert again["status"]["state"] == "TASK_STATE_COMPLETED"
    assert "history" not in again  # the retry's own historyLength applies


def test_only_a_signed_in_new_message_is_looked_up(signed_rpc, rpc, install, monkeypatch):
    install(counting(lambda ctx: ctx.ask("For how many?", missing=["guests"]))[1])
    looked_up: list[str] = []
    lookup = retries._first_message_task_id

    def spy(scope: str, message_id: str) -> Any:
        looked_up.append(message_id)
        return lookup(scope, message_id)

    monkeypatch.setattr(retries, "_first_message_task_id", spy)
    rpc("SendMessage", {"message": user_message("anonymous", messageId="anon-1")})
    assert looked_up == []
    task = signed_rpc("SendMessage", {"message": user_message("signed", messageId="new-1")})
    assert looked_up == ["new-1"]
    follow_up = user_message("four", taskId=task["result"]["task"]["id"], messageId="next-1")
    signed_rpc("SendMessage", {"message": follow_up})
    assert looked_up == ["new-1"]  # a follow-up is checked against its task's messages


@pytest.mark.parametrize(
    "text",
    [
        "UNIQUE constraint failed: a2a_app_task.owner, a2a_app_task.first_message_id",
        'duplicate key value violates unique constraint "a2a_task_owner_message"',
    ],
    ids=["sqlite", "postgresql"],
)
def test_a_lost_race_is_told_by_the_constraint(text, retrier):
    request = SendMessageRequest.from_wire({"message": user_message("x")})

    def send() -> str:
        raise IntegrityError(text)

    with pytest.raises(IntegrityError):  # nothing to replay: the winner is not there
        retries.once(request, retrier, send=send, replay=lambda task: task)
    assert retries._is_duplicate(IntegrityError(text))


def test_another_integrity_error_is_raised(retrier, monkeypatch):
    request = SendMessageRequest.from_wire({"message": user_message("x")})
    looks: list[str] = []
    find = retries.find
    monkeypatch.setattr(retries, "find", lambda *args: looks.append("find") or find(*args))

    def send() -> str:
        raise IntegrityError("NOT NULL constraint failed: a2a_app_task.state")

    with pytest.raises(IntegrityError, match="NOT NULL"):
        retries.once(request, retrier, send=send, replay=lambda task: task)
    assert looks == ["find"]  # not looked up again: no race was lost
    assert not retries._is_duplicate(IntegrityError("NOT NULL constraint failed: x.y"))


def test_a_retried_streaming_send_streams_the_same_task(install, retrier):
    calls, handler = counting(lambda ctx: ctx.ask("For how many?", missing=["guests"]))
    install(handler)
    body = {"message": user_message("book a table")}
    first = sending.send_message(SendMessageRequest.from_wire(body), retrier)["task"]
    start = streams.start_send(SendMessageRequest.from_wire(body), retrier)
    assert start.run is None  # nothing to run
    assert start.snapshot["task"]["id"] == first["id"]
    assert start.snapshot["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    # Its stream ends where the first one did, at the interrupted state (the sender must
    # answer), not only at a terminal one as a SubscribeToTask stream does.
    assert start.until_terminal is False
    assert calls == ["book a table"]


# --- two identical sends at the same time ----------------------------------------------------


def test_a_send_that_lost_the_race_answers_with_the_winners_task(signed_rpc, install, monkeypatch):
    """The race, on any database: the second send's lookup misses the first task (as when
    both pass it before either commits), so its insert hits the unique constraint; it
    then looks again and answers with the first task, its own writes rolled back."""
    calls, handler = counting()
    install(handler)
    message = user_message("book a table")
    first = signed_rpc("SendMessage", {"message": message})["result"]["task"]
    looked_up: list[str] = []
    lookup = retries._first_message_task_id

    def miss_the_first_time(scope: str, message_id: str) -> Any:
        looked_up.append(message_id)
        return None if len(looked_up) == 1 else lookup(scope, message_id)

    monkeypatch.setattr(retries, "_first_message_task_id", miss_the_first_time)
    again = signed_rpc("SendMessage", {"message": message})["result"]["task"]
    assert looked_up == [message["messageId"]] * 2
    assert (again["id"], again["status"]["state"]) == (first["id"], "TASK_STATE_COMPLETED")
    assert again["artifacts"] == first["artifacts"]
    assert calls == ["book a table"] * 2  # the loser's run happened, its writes did not
    assert Task.objects.count() == 1
    assert TaskMessage.objects.filter(message_id=message["messageId"]).count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks of PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_two_identical_sends_racing_make_one_task(install, retrier):
    """Both pass the lookup before either commits; the unique constraint makes the second
    insert wait for the first and fail, and the second answers with the first's task.
    Its handler ran, but what it wrote and its on_commit side effects are rolled back."""
    effects: list[str] = []
    both_running = threading.Barrier(2, timeout=10)

    def handler(ctx):
        both_running.wait()  # each send has passed the lookup and runs its handler
        transaction.on_commit(lambda: effects.append(ctx.task_id))
        time.sleep(0.2)
        return ctx.complete("booked")

    install(handler)
    message = user_message("book a table", messageId=uuid.uuid4().hex)

    def send_once() -> dict:
        return sending.send_message(SendMessageRequest.from_wire({"message": message}), retrier)

    racers = [Later(send_once, delay=0), Later(send_once, delay=0)]
    for racer in racers:
        racer.start()
    answers = [racer.outcome() for racer in racers]
    ids = {answer["task"]["id"] for answer in answers}
    assert len(ids) == 1
    assert Task.objects.filter(first_message_id=message["messageId"]).count() == 1
    assert effects == list(ids)  # the side effect of the losing run never happened


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks of PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_two_identical_follow_ups_racing_make_one_turn(install, retrier):
    calls: list[str] = []
    lock = threading.Lock()

    def handler(ctx):
        with lock:
            calls.append(ctx.text)
        if not ctx.is_follow_up:
            return ctx.ask("For how many?", missing=["guests"])
        time.sleep(0.3)  # the other send waits on the task's row lock meanwhile
        return ctx.complete("booked")

    install(handler)
    first = {"message": user_message("book a table")}
    task = sending.send_message(SendMessageRequest.from_wire(first), retrier)["task"]
    follow_up = user_message("four", taskId=task["id"])

    def send_once() -> dict:
        request = SendMessageRequest.from_wire({"message": dict(follow_up)})
        return sending.send_message(request, retrier)

    racers = [Later(send_once, delay=0), Later(send_once, delay=0.05)]
    for racer in racers:
        racer.start()
    answers = [racer.outcome()["task"] for racer in racers]
    assert {a["status"]["state"] for a in answers} == {"TASK_STATE_COMPLETED"}
    assert calls == ["book a table", "four"]
    assert (
        TaskMessage.objects.filter(task_id=task["id"], message_id=follow_up["messageId"]).count()
        == 1
    )


def test_anonymous_message_ids_are_not_deduplicated(rpc, install):
    """Everyone anonymous shares one scope: a messageId cannot tell one client's retry from
    another client's message, and answering with the first task would hand it over."""
    calls, handler = counting()
    install(handler)
    message = user_message("book a table", messageId="m1")
    first = rpc("SendMessage", {"message": message})["result"]["task"]
    second = rpc("SendMessage", {"message": message})["result"]["task"]
    other = rpc("SendMessage", {"message": {**message, "parts": [{"text": "menu"}]}})
    assert first["id"] != second["id"] != other["result"]["task"]["id"]
    assert calls == ["book a table", "book a table", "menu"]
    assert Task.objects.filter(first_message_id="").count() == 3


# --- the lookup every signed-in send makes ---------------------------------------------------


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements of PostgreSQL")
def test_the_lookup_keeps_to_the_partial_index_on_a_generic_plan(retrier):
    """Prepared, the statement runs on a generic plan, which knows nothing of the
    messageId: only the ``<> ''`` in it lets that plan use the partial unique index
    rather than walk all of the caller's tasks."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        cursor.execute(
            "PREPARE lookup(text, text) AS "
            + retries._first_message_sql().replace("%s", "$1", 1).replace("%s", "$2", 1)
        )
        cursor.execute("EXPLAIN EXECUTE lookup('user:1', 'm-1')")
        plan = "\n".join(line for (line,) in cursor.fetchall())
        cursor.execute("DEALLOCATE lookup")
    assert "a2a_task_owner_message" in plan, plan


def test_a_first_task_gone_by_the_time_it_is_read_leaves_a_new_message(
    signed_rpc, install, monkeypatch
):
    install(lambda ctx: ctx.complete("done"))
    # The lookup found a task that retention deleted before it was read.
    monkeypatch.setattr(retries, "_first_message_task_id", lambda scope, mid: uuid.uuid4())
    answer = signed_rpc("SendMessage", {"message": user_message("hello")})["result"]["task"]
    assert answer["status"]["state"] == "TASK_STATE_COMPLETED"
    assert Task.objects.filter(pk=answer["id"]).exists()


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's"
)
def test_a_follow_up_reads_with_statements_kept_prepared(signed_rpc, install):
    # The retry check, the history the handler gets and the artifacts a follow-up reads
    # were ORM queries compiled on every follow-up; written once, each is one statement
    # that PostgreSQL keeps prepared on the connection.
    calls, handler = counting(lambda ctx: ctx.ask("And then?"))
    install(handler)
    task = signed_rpc("SendMessage", {"message": user_message("start")})["result"]["task"]
    for turn in range(12):
        follow_up = user_message(f"turn {turn}", taskId=task["id"])
        answer = signed_rpc("SendMessage", {"message": follow_up})["result"]["task"]
        assert answer["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert len(calls) == 13
    for statement in (
        '%"message_id" = $2 ORDER BY "position" LIMIT 1',
        '%FROM "a2a_app_taskmessage" WHERE "task_id" = $1 ORDER BY "position" DESC LIMIT $2)%',
        'SELECT "body" FROM "a2a_app_taskartifact" WHERE "task_id" = $1 ORDER BY "position"',
    ):
        # psycopg prepares a statement on its sixth run on the connection (the settings'
        # prepare_threshold of 5): the last seven follow-ups ran it prepared.
        generic, custom = prepared_plans(statement)
        assert generic + custom >= 7, (statement, generic, custom)
