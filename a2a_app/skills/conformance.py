"""The ``conformance`` skill: deterministic behaviours for external A2A conformance suites.

Served alone when ``A2A_APP["CONFORMANCE_MODE"]`` is on (the demo site: ``A2A_CONFORMANCE=1``).
The messageId prefix is checked first, then the text:

=========================  ==========================================================
``tck-complete-task``      completed, agent message "Hello from TCK"
``tck-artifact-text``      completed, artifact text "Generated text content"
``tck-artifact-file-url``  completed, artifact url https://example.com/output.txt
``tck-artifact-file``      completed, artifact raw file ``output.txt`` (text/plain)
``tck-artifact-data``      completed, artifact data {"key": "value", "count": 42}
``tck-message-response``   direct Message "Direct message response"
``tck-input-required``     input-required
``tck-reject-task``        rejected
``tck-stream-001``, ``-003``, ``tck-stream-ordering-001``, ``tck-stream-artifact-text``
                           working, one text artifact, completed
``tck-stream-002``         completed at once
``tck-stream-artifact-file``
                           working, a file artifact, completed
``tck-stream-artifact-chunked``
                           working, artifact "chunk-1 " then an appended last chunk
                           "chunk-2" (same artifactId), completed
``test-resubscribe``       working, then completed after CONFORMANCE_RESUBSCRIBE_SECONDS
                           (in a background worker)
other ``tck-``             completed
text ``message …``         direct Message ``echo: <text>``
text ``input …``           input-required
text ``sleep N``           working for N seconds (at most 60), then completed; runs in a
                           background worker that checks for cancellation every second
text ``block N``           as ``sleep N``, but in one call that checks nothing (a handler
                           busy in a long call: only the heartbeat keeps its lease)
text ``fail``              failed
anything else              completed, artifact ``echo`` with text ``echo: <text>``
=========================  ==========================================================
"""

from __future__ import annotations

import time
from typing import Any

from a2a_app.conf import a2a_settings
from a2a_app.skills.context import (
    Outcome,
    SkillContext,
    data_artifact,
    file_artifact,
    text_artifact,
)
from a2a_app.skills.registry import skill

MAX_SLEEP_SECONDS = 60


STREAM_TEXT_PREFIXES = (
    "tck-stream-001",
    "tck-stream-003",
    "tck-stream-ordering-001",
    "tck-stream-artifact-text",
)


def _streamed(ctx: SkillContext) -> Outcome | None:
    """The streaming behaviours: events a stream (or a webhook) can watch arrive."""
    message_id = ctx.message.message_id
    if message_id.startswith(STREAM_TEXT_PREFIXES):
        ctx.progress("Working on it")
        ctx.add_artifact(text_artifact("Streaming text content", name="text"))
        return ctx.complete()
    if message_id.startswith("tck-stream-002"):
        return ctx.complete(message="Done")
    if message_id.startswith("tck-stream-artifact-file"):
        ctx.progress("Working on it")
        ctx.add_artifact(
            file_artifact(
                content=b"Generated file content",
                filename="output.txt",
                media_type="text/plain",
                name="file",
            )
        )
        return ctx.complete()
    if message_id.startswith("tck-stream-artifact-chunked"):
        ctx.progress("Working on it")
        writer = ctx.artifact_writer(name="chunked")
        writer.write("chunk-1 ")
        writer.write("chunk-2", last=True)
        return ctx.complete()
    if message_id.startswith("test-resubscribe"):
        ctx.progress("Working on it")
        _sleep(ctx, a2a_settings.CONFORMANCE_RESUBSCRIBE_SECONDS)
        return ctx.complete("Resubscribe test complete", name="echo")
    return None


def _sleep(ctx: SkillContext, seconds: float) -> bool:
    """Sleep, checking for cancellation (and renewing a worker's lease) every second."""
    deadline = time.monotonic() + max(0.0, min(seconds, MAX_SLEEP_SECONDS))
    while (remaining := deadline - time.monotonic()) > 0:
        if ctx.sink is not None and ctx.is_canceled():
            return False
        time.sleep(min(1.0, remaining))
    return True


def _by_message_id(ctx: SkillContext) -> Outcome | None:
    message_id = ctx.message.message_id
    streamed = _streamed(ctx)
    if streamed is not None or not message_id.startswith("tck-"):
        return streamed
    if message_id.startswith("tck-complete-task"):
        return ctx.complete(message="Hello from TCK")
    if message_id.startswith("tck-artifact-text"):
        return ctx.complete(artifacts=[text_artifact("Generated text content", name="text")])
    if message_id.startswith("tck-artifact-file-url"):
        artifact = file_artifact(
            url="https://example.com/output.txt",
            filename="output.txt",
            media_type="text/plain",
            name="file",
        )
        return ctx.complete(artifacts=[artifact])
    if message_id.startswith("tck-artifact-file"):
        artifact = file_artifact(
            content=b"Generated file content",
            filename="output.txt",
            media_type="text/plain",
            name="file",
        )
        return ctx.complete(artifacts=[artifact])
    if message_id.startswith("tck-artifact-data"):
        return ctx.complete(artifacts=[data_artifact({"key": "value", "count": 42}, name="data")])
    if message_id.startswith("tck-message-response"):
        return ctx.reply("Direct message response")
    if message_id.startswith("tck-input-required"):
        return ctx.ask("Please provide more input.")
    if message_id.startswith("tck-reject-task"):
        return ctx.reject("Task rejected by the conformance agent.")
    return ctx.complete(message="Task completed.")


def _by_text(ctx: SkillContext) -> Outcome:
    text = ctx.text.strip()
    command = text.split(maxsplit=1)[0].lower() if text else ""
    if command == "message":
        return ctx.reply(f"echo: {text}")
    if command == "input":
        return ctx.ask(f"More input needed: {text}")
    if command in ("sleep", "block"):
        try:
            seconds = float(text.split()[1])
        except (IndexError, ValueError):
            seconds = 1.0
        if command == "block":
            time.sleep(max(0.0, min(seconds, MAX_SLEEP_SECONDS)))
        elif not _sleep(ctx, seconds):
            return ctx.fail("canceled")  # dropped: the task is already CANCELED
        return ctx.complete(f"echo: {text}", name="echo")
    if command == "fail":
        return ctx.fail("Failed as requested.")
    return ctx.complete(f"echo: {text}", name="echo")


def _sleeps(message: Any) -> bool:
    """``sleep N`` runs in a worker, so the task is visibly WORKING meanwhile."""
    if message.message_id.startswith("test-resubscribe"):
        return True
    return message.text.strip().lower().startswith(("sleep", "block"))


@skill(
    "conformance",
    background=_sleeps,
    rerun_safe=True,  # it only echoes: running it again does no harm
    name="Conformance",
    description="Deterministic echo behaviours for A2A conformance suites.",
    tags=["conformance", "echo", "test"],
    examples=["hello", "message hi", "input more", "sleep 2", "fail"],
)
def conformance(ctx: SkillContext) -> Outcome:
    return _by_message_id(ctx) or _by_text(ctx)
