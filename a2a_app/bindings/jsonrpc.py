"""The JSON-RPC binding: one endpoint for every method of every dialect.

The view checks the envelope in the order a client can act on (size, media type, JSON,
envelope, method, version, extensions, credentials, params), then calls the method from
the operation table. Every failure is a JSON-RPC error object, answered with HTTP 200 as
JSON-RPC clients expect, except oversize bodies (413), missing or invalid credentials
(401, before the method runs, as the spec recommends), calls the caller may not make
(403), rate limits and refused sign-ins (429, with Retry-After) and wrong HTTP methods
(405), which HTTP tooling and clients' auth handling understand better.
"""

from __future__ import annotations

import logging
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from a2a_app.bindings import http, observe, operations, sse
from a2a_app.bindings.headers import header
from a2a_app.conf import a2a_settings
from a2a_app.core import streams
from a2a_app.protocol import jsonrpc_envelope as envelope
from a2a_app.protocol.errors import (
    A2AError,
    InternalError,
    InvalidRequestError,
    MethodNotFoundError,
)
from a2a_app.protocol.versions import negotiate

logger = logging.getLogger("a2a_app")

#: HTTP statuses a JSON-RPC error keeps; every other error is answered with 200.
HTTP_LEVEL_STATUSES = frozenset({401, 403, 405, 413, 429})


class PostOnlyError(InvalidRequestError):
    http_status = 405
    default_message = "The JSON-RPC endpoint accepts POST only"


def error_response(request_id: Any, error: A2AError) -> HttpResponse:
    """The one way a JSON-RPC error becomes an HTTP response."""
    status = error.http_status if error.http_status in HTTP_LEVEL_STATUSES else 200
    payload = envelope.error_response(request_id, error)
    return http.error_headers(http.json_response(payload, status=status), error)


@observe.observed("jsonrpc")
@http.limits_body
@csrf_exempt
def jsonrpc(request: HttpRequest) -> HttpResponse:
    return answer(request)


def answer(request: HttpRequest) -> HttpResponse:
    """The endpoint's work, undecorated (mutmut 3 mutates no decorated function)."""
    request_id = None
    try:
        if request.method != "POST":
            raise PostOnlyError(headers={"Allow": "POST"})
        body = http.read_body(request)
        http.check_media_type(request)
        call = envelope.parse_request(body, max_depth=a2a_settings.MAX_JSON_DEPTH)
        request_id = call.id
        method = operations.find_jsonrpc(call.method)
        # A standard JSON-RPC error carries no ErrorInfo: the message names the method.
        if method is None:
            raise MethodNotFoundError(f"Method {call.method!r} not found")
        version_header = header(request, "A2A-Version") or request.GET.get("A2A-Version")
        if negotiate(version_header, method_version=method.version) != method.version:
            raise MethodNotFoundError(
                f"{call.method!r} is a v{method.version} method; A2A-Version "
                f"{version_header.strip()} has no such method"
            )
        result, activated = http.invoke(request, method, lambda: call.params)
        if method.streaming:
            frames = sse.jsonrpc_frames(streams.launch(result), request_id, adapt=method.event_out)
            return http.with_extensions(http.event_stream(frames, result.close), activated)
    except A2AError as error:
        return error_response(getattr(error, "request_id", request_id), error)
    except Exception:
        logger.exception("Unexpected error in JSON-RPC method")
        return error_response(request_id, InternalError())
    response = http.json_response(envelope.result_response(request_id, result))
    http.with_operation_headers(response, method)
    return http.with_extensions(response, activated)
