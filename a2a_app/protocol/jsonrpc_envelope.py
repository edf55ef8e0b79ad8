"""The JSON-RPC 2.0 envelope: parse a request body, build result and error responses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from a2a_app.protocol.errors import A2AError, InvalidRequestError
from a2a_app.protocol.wire import DEFAULT_MAX_JSON_DEPTH, decode_json

RequestId = str | int | float | None


@dataclass(slots=True)
class JsonRpcRequest:
    id: RequestId
    method: str
    params: dict[str, Any]


def parse_request(body: bytes, *, max_depth: int = DEFAULT_MAX_JSON_DEPTH) -> JsonRpcRequest:
    """Decode (:func:`~a2a_app.protocol.wire.decode_json`) and validate one JSON-RPC request.

    Raises :class:`JSONParseError` or :class:`InvalidRequestError`; the error's
    ``request_id`` attribute carries the id when it could be read, so the response
    can echo it.
    """
    payload = decode_json(body, max_depth=max_depth)
    if isinstance(payload, list):
        # A2A does not define batches (spec reference §2.2).
        raise InvalidRequestError("Batch requests are not supported")
    if not isinstance(payload, dict):
        raise InvalidRequestError("The request must be a JSON object")
    request_id = payload.get("id")
    # An id the response can echo: a string or a number (decode_json lets no NaN through).
    echoable = not isinstance(request_id, bool) and isinstance(request_id, (str, int, float))
    try:
        if not echoable:
            if "id" not in payload:
                # A notification expects no answer; A2A defines none, so say so instead.
                raise InvalidRequestError("id is required: A2A does not define notifications")
            if request_id is not None:
                raise InvalidRequestError("id must be a string or a number")
        if payload.get("jsonrpc") != "2.0":
            raise InvalidRequestError('jsonrpc must be "2.0"')
        method = payload.get("method")
        if not isinstance(method, str) or not method:
            raise InvalidRequestError("method must be a non-empty string")
        params = payload.get("params")
        if params is None:
            params = {}
        elif not isinstance(params, dict):
            raise InvalidRequestError("params must be a JSON object")
    except A2AError as error:
        error.request_id = request_id if echoable else None
        raise
    return JsonRpcRequest(id=request_id, method=method, params=params)


def result_response(request_id: RequestId, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_response(request_id: RequestId, error: A2AError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_jsonrpc()}
