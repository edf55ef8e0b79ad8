"""Server-sent events: a stream's StreamResponse objects as SSE frames, per binding.

JSON-RPC frames carry a JSON-RPC response with the request id; HTTP+JSON frames carry the
bare StreamResponse. An idle stream gets a ``: keep-alive`` comment; an error after the
first event is the stream's last frame. What the events are, and when a stream ends, is
:mod:`a2a_app.core.streams`'s business.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from a2a_app.core.streams import StreamStart, events
from a2a_app.protocol.errors import A2AError, InternalError

logger = logging.getLogger("a2a_app.streams")

JSON = dict[str, Any]


async def jsonrpc_frames(
    start: StreamStart, request_id: Any, *, adapt: Callable[[JSON, bool], Any] | None = None
) -> AsyncIterator[bytes]:
    """SSE frames whose data is a JSON-RPC response carrying one StreamResponse each
    (``adapt`` converts each to another dialect's event, e.g. v0.3 with ``final``)."""
    try:
        async for item, last in events(start):
            if not item:
                yield b": keep-alive\n\n"
                continue
            result = adapt(item, last) if adapt is not None else item
            payload = {"jsonrpc": "2.0", "id": request_id, "result": result}
            yield _frame(payload)
    except A2AError as error:
        yield _frame({"jsonrpc": "2.0", "id": request_id, "error": error.to_jsonrpc()})
    except Exception:
        logger.exception("stream of task %s failed", start.task_id)
        error = InternalError("The stream failed; the task goes on (use GetTask)")
        yield _frame({"jsonrpc": "2.0", "id": request_id, "error": error.to_jsonrpc()})


def _frame(payload: JSON) -> bytes:
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"


async def rest_frames(start: StreamStart) -> AsyncIterator[bytes]:
    """SSE frames whose data is a bare StreamResponse (the HTTP+JSON binding)."""
    try:
        async for item, _last in events(start):
            yield _frame(item) if item else b": keep-alive\n\n"
    except A2AError as error:
        yield _frame(error.to_rest())
    except Exception:
        logger.exception("stream of task %s failed", start.task_id)
        yield _frame(InternalError("The stream failed; the task goes on").to_rest())
