"""The transition log: one event per task state change, with the fields an operator
filters on, as JSON through ``a2a_app.logging.JsonFormatter``; never the message text
(unless LOG_MESSAGE_TEXT) and never a credential."""

from __future__ import annotations

import io
import json
import logging
import sys
from collections.abc import Iterator

import pytest

from a2a_app.logging import JsonFormatter
from a2a_app.models import ApiKey
from tests.support import new_task

# Transactional: the events follow the commit, as in production.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("conformance_mode")]

SECRET_TEXT = "my card number is 4111 1111 1111 1111"


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """What the a2a_app.transitions logger writes through the JSON formatter."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("a2a_app.transitions")
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield stream
    logger.removeHandler(handler)
    logger.setLevel(old_level)


def events(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_one_json_event_per_transition_with_its_fields(rpc, json_log, django_user_model) -> None:
    alice = django_user_model.objects.create_user("alice")
    _, raw_key = ApiKey.issue(alice, "agent")
    task = new_task(rpc, f"input {SECRET_TEXT}", headers={"X-API-Key": raw_key})
    logged = events(json_log)
    assert [(e["from_state"], e["to_state"]) for e in logged] == [("none", "input_required")]
    event = logged[0]
    assert event["event"] == "task_transition"
    assert event["logger"] == "a2a_app.transitions"
    assert event["level"] == "INFO"
    assert event["task_id"] == task["id"]
    assert event["context_id"] == task["contextId"]
    assert event["skill"] == "conformance"
    assert event["caller"] == f"user:{alice.pk}"
    assert "time" in event
    assert task["id"] in event["message"]
    written = json_log.getvalue()
    assert "4111" not in written
    assert raw_key not in written
    assert raw_key.split("_")[-1] not in written


def test_background_task_logs_each_step(rpc, json_log, django_capture_on_commit_callbacks) -> None:
    from a2a_app.core import runner

    task = new_task(rpc, "sleep 0", configuration={"returnImmediately": True})
    runner.execute(task["id"])
    steps = [(e["from_state"], e["to_state"]) for e in events(json_log)]
    assert steps == [("none", "submitted"), ("submitted", "working"), ("working", "completed")]
    assert {e["caller"] for e in events(json_log)} == {"anonymous"}


def test_message_text_only_when_allowed(settings, rpc, json_log) -> None:
    new_task(rpc, f"input {SECRET_TEXT}")
    assert "message_text" not in events(json_log)[0]
    settings.A2A_APP = {**settings.A2A_APP, "LOG_MESSAGE_TEXT": True}
    new_task(rpc, f"input {SECRET_TEXT}")
    assert SECRET_TEXT in events(json_log)[1]["message_text"]


def test_plain_text_without_the_json_formatter(rpc, caplog) -> None:
    with caplog.at_level(logging.INFO, logger="a2a_app.transitions"):
        task = new_task(rpc, "hello")
    (record,) = [r for r in caplog.records if r.name == "a2a_app.transitions"]
    assert record.getMessage().startswith(f"task {task['id']} none -> completed skill=conformance")
    assert record.to_state == "completed"


def test_formatter_keeps_extra_fields_and_exceptions() -> None:
    logger = logging.getLogger("tests.json")
    try:
        raise ValueError("boom")
    except ValueError:
        record = logger.makeRecord(
            "tests.json", logging.ERROR, __file__, 1, "failed %s", ("x",), sys.exc_info()
        )
    record.__dict__.update(task_id="t-1", attempt=2)
    payload = json.loads(JsonFormatter().format(record))
    assert payload["message"] == "failed x"
    assert payload["task_id"] == "t-1"
    assert payload["attempt"] == 2
    assert "ValueError: boom" in payload["exception"]
    assert "args" not in payload and "msg" not in payload
