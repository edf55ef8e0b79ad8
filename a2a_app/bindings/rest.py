"""The HTTP+JSON (REST) binding of A2A v1.0, under ``/a2a/rest/``.

Each route turns its path, query and body into the same request params as the JSON-RPC
method it maps to, and calls the same ``Method`` (parse → service). Errors are the
spec's REST shape, ``{"error": {"code", "status", "message", "details": [ErrorInfo…]}}``
with the HTTP status of the error table. Responses are ``application/a2a+json`` when the
client's Accept names it, else ``application/json``. Streaming routes answer SSE whose
data lines are bare ``StreamResponse`` objects.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, re_path
from django.views.decorators.csrf import csrf_exempt

from a2a_app.bindings import http, observe, operations, sse
from a2a_app.bindings.headers import header
from a2a_app.bindings.http import JSON_MEDIA_TYPES, MethodNotAllowedError, UnsupportedMediaTypeError
from a2a_app.bindings.operations import Method
from a2a_app.conf import a2a_settings
from a2a_app.core import streams
from a2a_app.protocol.errors import (
    A2AError,
    InternalError,
    InvalidParamsError,
    InvalidRequestError,
    MethodNotFoundError,
)
from a2a_app.protocol.v03 import rest as v03_rest
from a2a_app.protocol.versions import negotiate
from a2a_app.protocol.wire import decode_json

logger = logging.getLogger("a2a_app")

A2A_JSON = "application/a2a+json"
JSON = dict[str, Any]

# Query parameters that are booleans (everything else stays a string; the request
# parsers accept numeric strings for integers and enum names for enums).
BOOLEAN_QUERY_FIELDS = frozenset({"includeArtifacts"})


def _media_type(request: HttpRequest) -> str:
    return A2A_JSON if A2A_JSON in header(request, "Accept", "") else "application/json"


def _response(request: HttpRequest, payload: Any, status: int = 200) -> HttpResponse:
    return http.json_response(payload, status=status, content_type=_media_type(request))


def error_response(request: HttpRequest, error: A2AError) -> HttpResponse:
    """The one way an error becomes an HTTP+JSON response (v1.0 and v0.3 routes)."""
    return http.error_headers(_response(request, error.to_rest(), error.http_status), error)


def json_body(request: HttpRequest, *, optional: bool = False) -> JSON:
    """The JSON object a state-changing POST carries (``optional``: or nothing at all).

    The media type is checked first, even for an empty body: an HTML form on another
    site can POST ``application/x-www-form-urlencoded``, ``multipart/form-data`` or
    ``text/plain`` (a browser's "simple" requests, sent without asking the site first)
    but never ``application/json``, so requiring it keeps a cross-site form from
    cancelling a task on a signed-in browser's behalf.
    """
    body = http.read_body(request)
    if (request.content_type or "").lower() not in JSON_MEDIA_TYPES:
        shown = request.META.get("CONTENT_TYPE") or "none"
        raise UnsupportedMediaTypeError(
            f"Content-Type must be application/json or application/a2a+json (got {shown})",
            metadata={"contentType": shown},
        )
    if not body.strip():
        if optional:
            return {}
        raise InvalidRequestError("A JSON request body is required")
    payload = decode_json(body, max_depth=a2a_settings.MAX_JSON_DEPTH)
    if payload is None and optional:
        return {}
    if not isinstance(payload, dict):
        raise InvalidRequestError("The request body must be a JSON object")
    return payload


def query_params(request: HttpRequest) -> JSON:
    """camelCase query parameters as request fields (spec §11.5).

    A repeated parameter becomes a list. Comma-separated lists would also be allowed for
    repeated fields, but none of our query fields is repeated, and splitting a plain
    string (a contextId with a comma) would corrupt it.
    """
    params: JSON = {}
    for name in request.GET:
        if name == "A2A-Version":
            continue
        values = request.GET.getlist(name)
        if any("\x00" in v for v in values):
            raise InvalidParamsError.for_field(name, "must not contain NUL characters")
        value: Any = values[0] if len(values) == 1 else values
        if name in BOOLEAN_QUERY_FIELDS:
            if value not in ("true", "false"):
                raise InvalidParamsError.for_field(name, "must be true or false")
            value = value == "true"
        params[name] = value
    return params


#: Builds the v1.0 params from the request, and the renames that make the field paths
#: of later errors the client's (the v0.3 routes' field names).
Build = Callable[[HttpRequest, dict[str, str]], tuple[JSON, v03_rest.Renames]]


def _v1_version(request: HttpRequest) -> None:
    negotiate(header(request, "A2A-Version") or request.GET.get("A2A-Version"))


def _call(
    request: HttpRequest,
    method: Method,
    build: Build,
    kwargs: dict[str, str],
    *,
    check_version: Callable[[HttpRequest], None],
) -> HttpResponse:
    renames: v03_rest.Renames = ()

    def params() -> JSON:
        nonlocal renames
        built, renames = build(request, kwargs)
        return built

    try:
        check_version(request)
        try:
            result, activated = http.invoke(request, method, params)
        except InvalidParamsError as error:
            if not renames:
                raise
            raise v03_rest.rename_fields(error, renames) from None
    except A2AError as error:
        return error_response(request, error)
    except Exception:
        logger.exception("Unexpected error in REST route %s", request.path)
        return error_response(request, InternalError())
    if method.streaming:
        frames = sse.rest_frames(streams.launch(result), adapt=method.event_out)
        response: HttpResponse = http.event_stream(frames, result.close)
    else:
        # DeleteTaskPushNotificationConfig returns Empty: {} over REST.
        response = _response(request, {} if result is None else result)
        http.with_operation_headers(response, method)
    return http.with_extensions(response, activated)


#: One route: its path below the interface (a regex), its URL name (None: unnamed), and
#: per HTTP method the operation (a Method) and how its params are built.
Route = tuple[str, str | None, dict[str, tuple[Method, Build]]]

# Path parameters: a task id (no "/" or ":"), and a push config id.
TASK = r"(?P<id>[^/:]+)"
TASK_ID = r"(?P<task_id>[^/:]+)"
CONFIG = r"(?P<id>[^/]+)"


def view(
    methods: dict[str, tuple[Method, Build]],
    check_version: Callable[[HttpRequest], None] = _v1_version,
) -> Callable:
    """The view of one route: each HTTP method its operation; others get 405 with Allow."""

    @observe.observed("rest")
    @http.limits_body
    @csrf_exempt
    def serve(request: HttpRequest, **kwargs: str) -> HttpResponse:
        return _serve(request, methods, check_version, kwargs)

    return serve


def _serve(
    request: HttpRequest,
    methods: dict[str, tuple[Method, Build]],
    check_version: Callable[[HttpRequest], None],
    kwargs: dict[str, str],
) -> HttpResponse:
    # A function of its own: the URLconf builds each route's view once, at import, and
    # mutation testing (mutmut 3) only reaches code that runs per call.
    chosen = methods.get(request.method or "")
    if chosen is None:
        return error_response(request, MethodNotAllowedError(request.method or "", list(methods)))
    method, build = chosen
    return _call(request, method, build, kwargs, check_version=check_version)


def patterns(
    prefix: str, routes: list[Route], check_version: Callable[[HttpRequest], None] = _v1_version
) -> list[URLPattern]:
    """The URL patterns of ``routes`` under ``prefix`` (``a2a/rest/``)."""
    return [
        re_path(rf"^{prefix}{path}$", view(methods, check_version), name=name)
        for path, name, methods in routes
    ]


def _v1(name: str, build: Callable[[HttpRequest, dict[str, str]], JSON]) -> tuple[Method, Build]:
    """A v1.0 operation whose params need no renaming."""
    return operations.V1[name], lambda request, kwargs: (build(request, kwargs), ())


# --- how each route builds its params -----------------------------------------------------


def _body(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return json_body(request)


def _task_query(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return {**query_params(request), "id": kwargs["id"]}


def _cancel(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return {**json_body(request, optional=True), "id": kwargs["id"]}


def _subscribe(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return {"id": kwargs["id"]}


def _list(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return query_params(request)


def _push_create(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return {**json_body(request), "taskId": kwargs["task_id"]}


def _push_one(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return {"taskId": kwargs["task_id"], "id": kwargs["id"]}


def _push_list(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return {**query_params(request), "taskId": kwargs["task_id"]}


def _empty(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return {}


ROUTES: list[Route] = [
    ("message:send", "rest-send", {"POST": _v1("SendMessage", _body)}),
    ("message:stream", "rest-stream", {"POST": _v1("SendStreamingMessage", _body)}),
    ("tasks", "rest-tasks", {"GET": _v1("ListTasks", _list)}),
    (rf"tasks/{TASK}:cancel", "rest-cancel", {"POST": _v1("CancelTask", _cancel)}),
    # The spec's text says POST, its proto says GET (spec reference A1): both are accepted.
    (
        rf"tasks/{TASK}:subscribe",
        "rest-subscribe",
        {"GET": _v1("SubscribeToTask", _subscribe), "POST": _v1("SubscribeToTask", _subscribe)},
    ),
    (rf"tasks/{TASK}", "rest-task", {"GET": _v1("GetTask", _task_query)}),
    (
        rf"tasks/{TASK_ID}/pushNotificationConfigs",
        "rest-push-configs",
        {
            "GET": _v1("ListTaskPushNotificationConfigs", _push_list),
            "POST": _v1("CreateTaskPushNotificationConfig", _push_create),
        },
    ),
    (
        rf"tasks/{TASK_ID}/pushNotificationConfigs/{CONFIG}",
        "rest-push-config",
        {
            "GET": _v1("GetTaskPushNotificationConfig", _push_one),
            "DELETE": _v1("DeleteTaskPushNotificationConfig", _push_one),
        },
    ),
    ("extendedAgentCard", "rest-extended-card", {"GET": _v1("GetExtendedAgentCard", _empty)}),
]


class RouteNotFoundError(MethodNotFoundError):
    grpc_status = "NOT_FOUND"


@observe.observed("rest")
@http.limits_body
@csrf_exempt
def not_found(request: HttpRequest, **kwargs: str) -> HttpResponse:
    return _not_found(request)


def _not_found(request: HttpRequest) -> HttpResponse:
    error = RouteNotFoundError(f"No A2A REST route {request.method} {request.path}")
    return error_response(request, error)
