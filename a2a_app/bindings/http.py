"""HTTP plumbing shared by the JSON-RPC and HTTP+JSON bindings.

Reading a request (body size, media type, extensions), answering (JSON bodies, SSE
streams) and the one sequence every operation call goes through, :func:`invoke`:
identify the caller, activate the requested extensions, refuse a stream outside ASGI,
build the params, call the operation.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from django.core.exceptions import RequestDataTooBig
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse

from a2a_app import tracing
from a2a_app.asgi import BODY_LIMIT, OVER_LIMIT
from a2a_app.bindings.auth import authenticate, challenge
from a2a_app.bindings.headers import header
from a2a_app.conf import a2a_settings
from a2a_app.core import limits
from a2a_app.db import ensure_live_connection
from a2a_app.protocol import encoding
from a2a_app.protocol.errors import (
    A2AError,
    AuthenticationRequiredError,
    ContentTypeNotSupportedError,
    ExtensionSupportRequiredError,
    InvalidParamsError,
    RequestTooLargeError,
    UnsupportedOperationError,
)

if TYPE_CHECKING:
    from a2a_app.bindings.operations import Method

JSON = dict[str, Any]

JSON_MEDIA_TYPES = ("application/json", "application/a2a+json")

# An escaped NUL in JSON text (not preceded by an escaping backslash). PostgreSQL cannot
# store U+0000 in text or jsonb, and no A2A field needs it: refuse it up front.
_ESCAPED_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")


def check_no_nul(body: bytes) -> None:
    # The substring tests are a byte scan each; the regex (a lookbehind tried at every
    # position) runs only on the rare body that holds "\u0000" at all.
    if b"\x00" in body or (b"\\u0000" in body and _ESCAPED_NUL.search(body)):
        raise InvalidParamsError("Strings must not contain NUL (U+0000) characters")


def read_body(request: HttpRequest) -> bytes:
    limit = a2a_settings.MAX_REQUEST_BYTES
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > limit or (getattr(request, "scope", None) or {}).get(OVER_LIMIT):
        raise _too_large(limit)
    try:
        body = request.body
    except RequestDataTooBig:
        raise _too_large(limit) from None
    if len(body) > limit:
        raise _too_large(limit)
    check_no_nul(body)
    return body


def _too_large(limit: int) -> RequestTooLargeError:
    return RequestTooLargeError(
        f"Request body exceeds the limit of {limit} bytes", metadata={"maxBytes": limit}
    )


def limits_body(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Mark an endpoint whose bodies ``MAX_REQUEST_BYTES`` limits while they are read
    (by :class:`a2a_app.asgi.ASGIHandler`, before the view runs)."""
    setattr(view, BODY_LIMIT, True)
    return view


def check_media_type(request: HttpRequest) -> None:
    media_type = (request.content_type or "").lower()
    if media_type not in JSON_MEDIA_TYPES:
        shown = request.META.get("CONTENT_TYPE") or "none"
        raise ContentTypeNotSupportedError(
            f"Content-Type must be application/json (got {shown})",
            metadata={"contentType": shown},
        )


def requested_extensions(request: HttpRequest) -> set[str]:
    value = header(request, "A2A-Extensions", "")
    return {uri.strip() for uri in value.split(",") if uri.strip()}


def activate_extensions(request: HttpRequest) -> list[str]:
    requested = requested_extensions(request)
    declared = a2a_settings.EXTENSIONS
    for extension in declared:
        if extension.get("required") and extension.get("uri") not in requested:
            raise ExtensionSupportRequiredError(
                f"This agent requires extension {extension.get('uri')}; "
                "send it in the A2A-Extensions header",
                metadata={"extension": extension.get("uri", "")},
            )
    return [e["uri"] for e in declared if e.get("uri") in requested]


# --- errors only HTTP has ---------------------------------------------------------------------


class UnsupportedMediaTypeError(A2AError):
    """A request body that is not JSON: HTTP 415, whatever the A2A table says of parts."""

    jsonrpc_code = -32005
    http_status = 415
    grpc_status = "INVALID_ARGUMENT"
    reason = "CONTENT_TYPE_NOT_SUPPORTED"
    default_message = "Request bodies must be application/json or application/a2a+json"


class MethodNotAllowedError(A2AError):
    """An HTTP method the route does not take; the response's Allow lists the ones it does."""

    jsonrpc_code = -32601
    http_status = 405
    grpc_status = "UNIMPLEMENTED"
    reason = "METHOD_NOT_ALLOWED"
    default_message = "HTTP method not allowed on this route"

    def __init__(self, method: str, allowed: tuple[str, ...] | list[str]) -> None:
        super().__init__(f"{method} is not allowed here", headers={"Allow": ", ".join(allowed)})


# --- answering ----------------------------------------------------------------------------


def json_response(
    payload: Any, *, status: int = 200, content_type: str = "application/json"
) -> HttpResponse:
    """``payload`` as strict JSON (never ``NaN``), UTF-8.

    Input with lone surrogates is refused when it is decoded, but an answer may still hold
    one (site code's, or an error echoing what it was given): such a string has no UTF-8
    form, so the answer is written with every non-ASCII character escaped, which any
    JSON reader reads back as the same string.
    """
    try:
        body = encoding.dumps(payload).encode()
    except UnicodeEncodeError:
        body = encoding.dumps(payload, ensure_ascii=True).encode()
    return HttpResponse(body, status=status, content_type=content_type)


def error_headers(response: HttpResponse, error: A2AError) -> HttpResponse:
    for name, value in error.headers.items():
        response[name] = value
    response._a2a_error = error  # the outcome, for observers (bindings.observe)
    return response


class _ClosingFrames:
    """SSE frames that call ``on_close`` when the response is closed, which every ASGI
    handler does, also for a client gone before the first frame (when an async
    generator's ``finally`` would never run)."""

    def __init__(self, frames: AsyncIterator[bytes], on_close: Callable[[], None]) -> None:
        self._frames, self.close = frames, on_close

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._frames


def event_stream(
    frames: AsyncIterator[bytes], on_close: Callable[[], None] | None = None
) -> StreamingHttpResponse:
    content = frames if on_close is None else _ClosingFrames(frames, on_close)
    response = StreamingHttpResponse(content, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx must not hold events back
    return response


def with_extensions(response: HttpResponse, activated: list[str]) -> HttpResponse:
    if activated:
        response["A2A-Extensions"] = ", ".join(activated)
    return response


def served_by_asgi(request: HttpRequest) -> bool:
    """Streams need ASGI: under WSGI a stream would hold a worker until the task ends."""
    return getattr(request, "scope", None) is not None


# --- calling an operation -------------------------------------------------------------------


def client_address(request: HttpRequest) -> str:
    """The client's address: the connection's, or what ``CLIENT_IP_HEADER`` says the
    last of ``CLIENT_IP_PROXIES`` proxies saw (entries further left are the client's
    word, which anyone can forge)."""
    name = a2a_settings.CLIENT_IP_HEADER
    if name:
        hops = [hop.strip() for hop in header(request, name, "").split(",") if hop.strip()]
        proxies = max(1, a2a_settings.CLIENT_IP_PROXIES)
        if hops:
            return hops[-min(proxies, len(hops))]
    return request.META.get("REMOTE_ADDR") or ""


def preferred_language(request: HttpRequest) -> str:
    """The first language of the request's Accept-Language by weight ("de-DE" from
    "de-DE,de;q=0.9,en;q=0.8"), lower case; "" when it names none. Form skills answer in
    it and read dates in it."""
    header = request.META.get("HTTP_ACCEPT_LANGUAGE", "")[:200]
    ranked = []
    for position, item in enumerate(header.split(",")):
        tag, _, params = item.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                continue
        if tag and tag != "*" and weight > 0:
            ranked.append((-weight, position, tag.lower()))
    return min(ranked)[2] if ranked else ""


@tracing.traced(
    tracing.operation_name,
    tracing.operation_attributes,
    result=tracing.operation_result,
    carrier=tracing.operation_carrier,
    kind="SERVER",
)
def invoke(
    request: HttpRequest, method: Method, build_params: Callable[[], JSON]
) -> tuple[Any, list[str]]:
    """Call ``method`` for ``request``: its result and the extensions activated.

    The caller is identified first: a caller without valid credentials learns nothing
    about the operation, not even whether its params would do (the spec's 401 before
    dispatch). The caller's rate limit of the operation is checked before the operation
    runs, and a stream takes one of the caller's stream slots (``StreamStart.close``
    gives it back). A database connection the server hung up on (a restart) is traded
    for a live one first, rather than failing the operation (``ensure_live_connection``).
    """
    request._a2a_method = method  # the operation, for observers (bindings.observe)
    ensure_live_connection(connections[DEFAULT_DB_ALIAS])
    caller = replace(
        authenticate(request),
        address=client_address(request),
        language=preferred_language(request),
    )
    activated = activate_extensions(request)
    if method.streaming and not served_by_asgi(request):
        raise UnsupportedOperationError(
            "Streaming needs the site to be served by an ASGI server "
            "(capabilities.streaming is false here)"
        )
    params = build_params()
    limits.check_rate(method.name, caller)
    slot = limits.open_stream(caller) if method.streaming else None
    try:
        result = method(params, caller, request)
    except BaseException as error:
        if slot is not None:
            slot.release()
        if (
            isinstance(error, AuthenticationRequiredError)
            and "WWW-Authenticate" not in error.headers
        ):
            # The service asks for a signed-in caller; HTTP says how to sign in.
            error.headers.update(challenge(request))
        raise
    if slot is not None:
        result.on_close = slot.release
    return result, activated


def with_operation_headers(response: HttpResponse, method: Method) -> HttpResponse:
    """The headers the operation gives its successful answers (caching of the extended card)."""
    for name, value in method.operation.headers:
        response[name] = value
    return response
