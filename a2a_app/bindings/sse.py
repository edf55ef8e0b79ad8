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


KEEP_ALIVE = b": keep-alive\n\n"

#: One StreamResponse (and whether it is the last) → the JSON a frame carries.
Encode = Callable[[JSON, bool], Any]


async def frames(
    start: StreamStart, event: Encode, error: Callable[[A2AError], JSON]
) -> AsyncIterator[bytes]:
    """SSE frames of one stream: ``event`` encodes each StreamResponse, ``error`` the
    error that ends the stream early (an unexpected failure is an internal error)."""
    try:
        async for item, last in events(start):
            yield _frame(event(item, last)) if item else KEEP_ALIVE
    except A2AError as failure:
        yield _frame(error(failure))
    except Exception:
        logger.exception("stream of task %s failed", start.task_id)
        yield _frame(error(InternalError("The stream failed; the task goes on (use GetTask)")))


def jsonrpc_frames(
    start: StreamStart, request_id: Any, *, adapt: Encode | None = None
) -> AsyncIterator[bytes]:
    """Frames whose data is a JSON-RPC response carrying one StreamResponse each
    (``adapt`` converts each to another dialect's event, e.g. v0.3 with ``final``)."""

    def event(item: JSON, last: bool) -> JSON:
        result = adapt(item, last) if adapt is not None else item
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    def error(failure: A2AError) -> JSON:
        return {"jsonrpc": "2.0", "id": request_id, "error": failure.to_jsonrpc()}

    return frames(start, event, error)


def rest_frames(start: StreamStart, *, adapt: Encode | None = None) -> AsyncIterator[bytes]:
    """Frames whose data is a bare StreamResponse (HTTP+JSON), or ``adapt``'s dialect."""
    return frames(
        start,
        adapt if adapt is not None else lambda item, last: item,
        lambda failure: failure.to_rest(),
    )


def _frame(payload: JSON) -> bytes:
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"
