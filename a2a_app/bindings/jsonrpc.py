"""Thin HTTP views: the agent card and the JSON-RPC endpoint.

The JSON-RPC view checks the envelope in the order a client can act on (size, media
type, JSON, envelope, method, version, extensions, credentials, params), then hands the
parsed request to the service. Every failure is a JSON-RPC error object, answered with
HTTP 200 as JSON-RPC clients expect, except oversize bodies (413), invalid credentials
(401) and wrong HTTP methods (405), which HTTP tooling understands better.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from a2a_app.bindings import auth, sse
from a2a_app.bindings import operations as jsonrpc_methods
from a2a_app.bindings.card import served_by_asgi
from a2a_app.bindings.http import activate_extensions, check_media_type, read_body
from a2a_app.core import streams
from a2a_app.protocol import jsonrpc_envelope as envelope
from a2a_app.protocol.errors import (
    A2AError,
    InternalError,
    InvalidRequestError,
    MethodNotFoundError,
    UnsupportedOperationError,
)
from a2a_app.protocol.versions import negotiate

logger = logging.getLogger("a2a_app")


def _json_response(payload: Any, status: int = 200) -> HttpResponse:
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    return HttpResponse(body.encode(), status=status, content_type="application/json")


def _error_response(request_id: Any, error: A2AError) -> HttpResponse:
    status = error.http_status if error.http_status in (401, 405, 413) else 200
    response = _json_response(envelope.error_response(request_id, error), status=status)
    challenge = getattr(error, "www_authenticate", None)
    if challenge:
        response["WWW-Authenticate"] = challenge
    return response


@csrf_exempt
def jsonrpc(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        error = InvalidRequestError("The JSON-RPC endpoint accepts POST only")
        error.http_status = 405
        response = _error_response(None, error)
        response["Allow"] = "POST"
        return response
    request_id = None
    try:
        body = read_body(request)
        check_media_type(request)
        call = envelope.parse_request(body)
        request_id = call.id
        method = jsonrpc_methods.find(call.method)
        if method is None:
            raise MethodNotFoundError(
                f"Method {call.method!r} not found", metadata={"method": call.method}
            )
        version_header = request.headers.get("A2A-Version") or request.GET.get("A2A-Version")
        if negotiate(version_header, method_version=method.version) != method.version:
            raise MethodNotFoundError(
                f"{call.method!r} is a v{method.version} method; A2A-Version "
                f"{version_header.strip()} has no such method",
                metadata={"method": call.method},
            )
        activated = activate_extensions(request)
        if method.streaming and not served_by_asgi(request):
            raise UnsupportedOperationError(
                "Streaming needs the site to be served by an ASGI server "
                "(capabilities.streaming is false here)"
            )
        caller = auth.authenticate(request)
        result = method(call.params, caller)
        if method.streaming:
            frames = sse.jsonrpc_frames(
                streams.launch(result), request_id, adapt=method.adapt_event
            )
            return _event_stream(frames, activated)
    except A2AError as error:
        return _error_response(getattr(error, "request_id", request_id), error)
    except Exception:
        logger.exception("Unexpected error in JSON-RPC method")
        return _error_response(request_id, InternalError())
    response = _json_response(envelope.result_response(request_id, result))
    if activated:
        response["A2A-Extensions"] = ", ".join(activated)
    return response


def _event_stream(frames: Any, activated: list[str]) -> Any:
    response = StreamingHttpResponse(frames, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx must not hold events back
    if activated:
        response["A2A-Extensions"] = ", ".join(activated)
    return response
