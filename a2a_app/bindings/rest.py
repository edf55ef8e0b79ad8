"""The HTTP+JSON (REST) binding of A2A v1.0, under ``/a2a/rest/``.

Each route turns its path, query and body into the same request params as the JSON-RPC
method it maps to, and calls the same ``Method`` (parse → service). Errors are the
spec's REST shape, ``{"error": {"code", "status", "message", "details": [ErrorInfo…]}}``
with the HTTP status of the error table. Responses are ``application/a2a+json`` when the
client's Accept names it, else ``application/json``. Streaming routes answer SSE whose
data lines are bare ``StreamResponse`` objects.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from a2a_app.bindings import auth, sse
from a2a_app.bindings.card import served_by_asgi
from a2a_app.bindings.http import JSON_MEDIA_TYPES, activate_extensions, read_body
from a2a_app.bindings.operations import V1_METHODS, Method
from a2a_app.core import streams
from a2a_app.protocol.errors import (
    A2AError,
    InternalError,
    InvalidParamsError,
    InvalidRequestError,
    JSONParseError,
    MethodNotFoundError,
    UnsupportedOperationError,
)
from a2a_app.protocol.versions import negotiate

logger = logging.getLogger("a2a_app")

A2A_JSON = "application/a2a+json"
JSON = dict[str, Any]

# Query parameters that are booleans (everything else stays a string; the request
# parsers accept numeric strings for integers and enum names for enums).
BOOLEAN_QUERY_FIELDS = frozenset({"includeArtifacts"})


class UnsupportedMediaTypeError(A2AError):
    """A request body that is not JSON: HTTP 415, whatever the A2A table says of parts."""

    jsonrpc_code = -32005
    http_status = 415
    grpc_status = "INVALID_ARGUMENT"
    reason = "CONTENT_TYPE_NOT_SUPPORTED"
    default_message = "Request bodies must be application/json or application/a2a+json"


class MethodNotAllowedError(A2AError):
    jsonrpc_code = -32601
    http_status = 405
    grpc_status = "UNIMPLEMENTED"
    reason = "METHOD_NOT_ALLOWED"
    default_message = "HTTP method not allowed on this route"
    has_error_info = True


def _media_type(request: HttpRequest) -> str:
    return A2A_JSON if A2A_JSON in request.headers.get("Accept", "") else "application/json"


def _response(request: HttpRequest, payload: Any, status: int = 200) -> HttpResponse:
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
    return HttpResponse(body, status=status, content_type=_media_type(request))


def error_response(request: HttpRequest, error: A2AError) -> HttpResponse:
    response = _response(request, error.to_rest(), status=error.http_status)
    challenge = getattr(error, "www_authenticate", None)
    if challenge:
        response["WWW-Authenticate"] = challenge
    if error.http_status == 405:
        response["Allow"] = getattr(error, "allow", "")
    return response


def _json_body(request: HttpRequest, *, optional: bool = False) -> JSON:
    body = read_body(request)
    if not body.strip():
        if optional:
            return {}
        raise InvalidRequestError("A JSON request body is required")
    if (request.content_type or "").lower() not in JSON_MEDIA_TYPES:
        shown = request.META.get("CONTENT_TYPE") or "none"
        raise UnsupportedMediaTypeError(
            f"Content-Type must be application/json or application/a2a+json (got {shown})",
            metadata={"contentType": shown},
        )
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise JSONParseError("The request body is not valid JSON") from None
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


Route = Callable[[HttpRequest, dict[str, str]], JSON]


def _call(
    request: HttpRequest,
    method_name: str,
    build: Route,
    kwargs: dict[str, str],
    *,
    allowed: tuple[str, ...],
) -> HttpResponse:
    try:
        if request.method not in allowed:
            error = MethodNotAllowedError(f"{request.method} is not allowed here")
            error.allow = ", ".join(allowed)
            raise error
        negotiate(request.headers.get("A2A-Version") or request.GET.get("A2A-Version"))
        activated = activate_extensions(request)
        method: Method = V1_METHODS[method_name]
        if method.streaming and not served_by_asgi(request):
            raise UnsupportedOperationError(
                "Streaming needs the site to be served by an ASGI server "
                "(capabilities.streaming is false here)"
            )
        params = build(request, kwargs)
        caller = auth.authenticate(request)
        result = method(params, caller)
    except A2AError as error:
        return error_response(request, error)
    except Exception:
        logger.exception("Unexpected error in REST route %s", method_name)
        return error_response(request, InternalError())
    if method.streaming:
        response = StreamingHttpResponse(
            sse.rest_frames(streams.launch(result)), content_type="text/event-stream"
        )
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"
    else:
        # DeleteTaskPushNotificationConfig returns Empty: {} over REST.
        response = _response(request, {} if result is None else result)
    if activated:
        response["A2A-Extensions"] = ", ".join(activated)
    return response


def route(method_name: str, build: Route, *, allowed: tuple[str, ...]) -> Callable:
    @csrf_exempt
    def view(request: HttpRequest, **kwargs: str) -> HttpResponse:
        return _call(request, method_name, build, kwargs, allowed=allowed)

    view.__name__ = f"rest_{method_name}"
    return view


# --- how each route builds its params -----------------------------------------------------


def _body(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return _json_body(request)


def _task_query(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return {**query_params(request), "id": kwargs["id"]}


def _cancel(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return {**_json_body(request, optional=True), "id": kwargs["id"]}


def _subscribe(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return {"id": kwargs["id"]}


def _list(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return query_params(request)


def _push_create(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return {**_json_body(request), "taskId": kwargs["task_id"]}


def _push_one(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return {"taskId": kwargs["task_id"], "id": kwargs["id"]}


def _push_list(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return {**query_params(request), "taskId": kwargs["task_id"]}


def _empty(request: HttpRequest, kwargs: dict[str, str]) -> JSON:
    return {}


send_message = route("SendMessage", _body, allowed=("POST",))
send_streaming_message = route("SendStreamingMessage", _body, allowed=("POST",))
list_tasks = route("ListTasks", _list, allowed=("GET",))
get_task = route("GetTask", _task_query, allowed=("GET",))
cancel_task = route("CancelTask", _cancel, allowed=("POST",))
# The spec's text says POST, its proto says GET (spec reference A1): both are accepted.
subscribe_to_task = route("SubscribeToTask", _subscribe, allowed=("GET", "POST"))
_get_push_config = route("GetTaskPushNotificationConfig", _push_one, allowed=("GET",))
_delete_push_config = route("DeleteTaskPushNotificationConfig", _push_one, allowed=("DELETE",))
extended_agent_card = route("GetExtendedAgentCard", _empty, allowed=("GET",))

_create_push_config = route("CreateTaskPushNotificationConfig", _push_create, allowed=("POST",))
_list_push_configs = route("ListTaskPushNotificationConfigs", _push_list, allowed=("GET",))


def by_method(**views: Callable) -> Callable:
    """One URL, a view per HTTP method (``GET=…, POST=…``); others get 405 with Allow."""

    @csrf_exempt
    def view(request: HttpRequest, **kwargs: str) -> HttpResponse:
        chosen = views.get(request.method or "")
        if chosen is not None:
            return chosen(request, **kwargs)
        error = MethodNotAllowedError(f"{request.method} is not allowed here")
        error.allow = ", ".join(views)
        return error_response(request, error)

    return view


#: ``/tasks/{taskId}/pushNotificationConfigs`` and ``…/{id}``.
push_configs = by_method(GET=_list_push_configs, POST=_create_push_config)
push_config = by_method(GET=_get_push_config, DELETE=_delete_push_config)


@csrf_exempt
def not_found(request: HttpRequest, **kwargs: str) -> HttpResponse:
    error = MethodNotFoundError(f"No A2A REST route {request.method} {request.path}")
    error.grpc_status = "NOT_FOUND"
    return error_response(request, error)
