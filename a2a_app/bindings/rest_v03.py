"""The HTTP+JSON (REST) binding of A2A v0.3, under ``/a2a/rest/v1/`` (spec reference §6.1).

v0.3 REST clients append the v0.3 proto's HTTP paths (``/v1/message:send``, ``/v1/tasks/{id}``,
…) to the HTTP+JSON interface URL the card lists for protocol version 0.3, which is the
same ``/a2a/rest`` as v1.0's. Each route converts its body from the v0.3 proto's JSON
(:mod:`a2a_app.protocol.v03_rest`) to the v1.0 request params, calls the same service as
the v1.0 routes with version ``"0.3"`` (the tasks and push configs made here remember it)
and converts the answer back. Errors have the REST shape of :mod:`a2a_app.rest`; field
paths name the v0.3 fields. ``A2A-Version`` may be absent or 0.3 here; 1.0 clients have
their own routes (VersionNotSupported). Streams are SSE whose data lines are bare v0.3
``StreamResponse`` objects, ``final`` true on the last status update.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from a2a_app.bindings import auth
from a2a_app.bindings.card import served_by_asgi
from a2a_app.bindings.http import activate_extensions
from a2a_app.bindings.operations import Method
from a2a_app.bindings.rest import (
    MethodNotAllowedError,
    _json_body,
    _response,
    by_method,
    error_response,
)
from a2a_app.core import push_configs, sending, service, streams
from a2a_app.protocol import v03_rest
from a2a_app.protocol.errors import (
    A2AError,
    InternalError,
    InvalidParamsError,
    UnsupportedOperationError,
    VersionNotSupportedError,
)
from a2a_app.protocol.types import (
    GetTaskRequest,
    ListPushConfigsRequest,
    PushConfigIdRequest,
    PushNotificationConfig,
    SendMessageRequest,
    TaskIdRequest,
)
from a2a_app.protocol.versions import V0_3, negotiate

logger = logging.getLogger("a2a_app")

JSON = dict[str, Any]
Renames = v03_rest.Renames


def _extended_card(*args: Any) -> None:
    raise UnsupportedOperationError("This agent has no authenticated extended card")


METHODS: dict[str, Method] = {
    "SendMessage": Method(
        SendMessageRequest.from_wire,
        partial(sending.send_message, version=V0_3),
        version=V0_3,
        adapt_result=v03_rest.send_response_to_v03,
    ),
    "SendStreamingMessage": Method(
        SendMessageRequest.from_wire,
        partial(streams.start_send, version=V0_3),
        streaming=True,
        version=V0_3,
        adapt_event=lambda event, last: v03_rest.stream_response_to_v03(event, final=last),
    ),
    "GetTask": Method(
        GetTaskRequest.from_wire,
        service.get_task,
        version=V0_3,
        adapt_result=v03_rest.task_to_v03,
    ),
    "CancelTask": Method(
        TaskIdRequest.from_wire,
        service.cancel_task,
        version=V0_3,
        adapt_result=v03_rest.task_to_v03,
    ),
    "TaskSubscription": Method(
        TaskIdRequest.from_wire,
        streams.start_subscription,
        streaming=True,
        version=V0_3,
        adapt_event=lambda event, last: v03_rest.stream_response_to_v03(event, final=last),
    ),
    "CreateTaskPushNotificationConfig": Method(
        PushNotificationConfig.from_wire,
        partial(push_configs.create_config, version=V0_3),
        gate=push_configs.require_push,
        version=V0_3,
        adapt_result=v03_rest.push_config_to_v03,
    ),
    "GetTaskPushNotificationConfig": Method(
        PushConfigIdRequest.from_wire,
        push_configs.get_config,
        gate=push_configs.require_push,
        version=V0_3,
        adapt_result=v03_rest.push_config_to_v03,
    ),
    "ListTaskPushNotificationConfig": Method(
        ListPushConfigsRequest.from_wire,
        push_configs.list_configs,
        gate=push_configs.require_push,
        version=V0_3,
        adapt_result=v03_rest.push_list_to_v03,
    ),
    "DeleteTaskPushNotificationConfig": Method(
        PushConfigIdRequest.from_wire,
        push_configs.delete_config,
        gate=push_configs.require_push,
        version=V0_3,
        adapt_result=lambda result: {},  # google.protobuf.Empty
    ),
    "GetAgentCard": Method(None, _extended_card, version=V0_3),
}


def _check_version(request: HttpRequest) -> None:
    value = request.headers.get("A2A-Version") or request.GET.get("A2A-Version")
    if negotiate(value, method_version=V0_3) != V0_3:
        raise VersionNotSupportedError(
            f"A2A-Version {value.strip()!r} is not served by the v0.3 HTTP+JSON routes "
            "(/v1/…); v1.0 clients use the interface's routes without /v1",
            metadata={"requestedVersion": value.strip(), "supportedVersions": V0_3},
        )


#: Builds the v1.0 params from the request, and names v0.3 fields in later errors.
Build = Callable[[HttpRequest, dict[str, str]], tuple[JSON, Renames]]


async def _frames(start: streams.StreamStart, adapt: Callable[[JSON, bool], Any]) -> AsyncIterator:
    """SSE frames whose data is a bare v0.3 StreamResponse; an error mid-stream is the last
    frame, a REST error body."""
    try:
        async for item, last in streams.events(start):
            yield _frame(adapt(item, last)) if item else b": keep-alive\n\n"
    except A2AError as error:
        yield _frame(error.to_rest())
    except Exception:
        logger.exception("v0.3 REST stream of task %s failed", start.task_id)
        yield _frame(InternalError("The stream failed; the task goes on").to_rest())


def _frame(payload: JSON) -> bytes:
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"


def _call(
    request: HttpRequest,
    method_name: str,
    build: Build,
    kwargs: dict[str, str],
    *,
    allowed: tuple[str, ...],
) -> HttpResponse:
    method = METHODS[method_name]
    try:
        if request.method not in allowed:
            error = MethodNotAllowedError(f"{request.method} is not allowed here")
            error.allow = ", ".join(allowed)
            raise error
        _check_version(request)
        activated = activate_extensions(request)
        if method.streaming and not served_by_asgi(request):
            raise UnsupportedOperationError(
                "Streaming needs the site to be served by an ASGI server "
                "(capabilities.streaming is false here)"
            )
        params, renames = build(request, kwargs)
        caller = auth.authenticate(request)
        try:
            result = method(params, caller)
        except InvalidParamsError as error:
            raise v03_rest.rename_fields(error, renames) from None
    except A2AError as error:
        return error_response(request, error)
    except Exception:
        logger.exception("Unexpected error in v0.3 REST route %s", method_name)
        return error_response(request, InternalError())
    if method.streaming:
        response = StreamingHttpResponse(
            _frames(streams.launch(result), method.adapt_event), content_type="text/event-stream"
        )
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"
    else:
        response = _response(request, result)
    if activated:
        response["A2A-Extensions"] = ", ".join(activated)
    return response


def route(method_name: str, build: Build, *, allowed: tuple[str, ...]) -> Callable:
    @csrf_exempt
    def view(request: HttpRequest, **kwargs: str) -> HttpResponse:
        return _call(request, method_name, build, kwargs, allowed=allowed)

    view.__name__ = f"rest_v03_{method_name}"
    return view


# --- how each route builds its v1.0 params ------------------------------------------------------


def _send(request: HttpRequest, kwargs: dict[str, str]) -> tuple[JSON, Renames]:
    body = _json_body(request)
    return v03_rest.send_request_from_v03(body), v03_rest.send_fields(body)


def _get_task(request: HttpRequest, kwargs: dict[str, str]) -> tuple[JSON, Renames]:
    query = v03_rest.query_from_v03(request.GET, "historyLength")
    return {**query, "id": kwargs["id"]}, ()


def _cancel(request: HttpRequest, kwargs: dict[str, str]) -> tuple[JSON, Renames]:
    """The body (CancelTaskRequest) may hold the task's ``name``: the path's id wins."""
    _json_body(request, optional=True)
    return {"id": kwargs["id"]}, ()


def _subscribe(request: HttpRequest, kwargs: dict[str, str]) -> tuple[JSON, Renames]:
    return {"id": kwargs["id"]}, ()


def _push_create(request: HttpRequest, kwargs: dict[str, str]) -> tuple[JSON, Renames]:
    config, prefix = v03_rest.push_create_from_v03(_json_body(request), kwargs["task_id"])
    return config, v03_rest.push_fields(prefix)


def _push_one(request: HttpRequest, kwargs: dict[str, str]) -> tuple[JSON, Renames]:
    return {"taskId": kwargs["task_id"], "id": kwargs["id"]}, ()


def _push_list(request: HttpRequest, kwargs: dict[str, str]) -> tuple[JSON, Renames]:
    query = v03_rest.query_from_v03(request.GET, "pageSize", "pageToken")
    return {**query, "taskId": kwargs["task_id"]}, ()


def _empty(request: HttpRequest, kwargs: dict[str, str]) -> tuple[JSON, Renames]:
    return {}, ()


send_message = route("SendMessage", _send, allowed=("POST",))
send_streaming_message = route("SendStreamingMessage", _send, allowed=("POST",))
get_task = route("GetTask", _get_task, allowed=("GET",))
cancel_task = route("CancelTask", _cancel, allowed=("POST",))
# The v0.3 proto says GET, the v0.3 spec's text POST: both are accepted.
subscribe_to_task = route("TaskSubscription", _subscribe, allowed=("GET", "POST"))
agent_card = route("GetAgentCard", _empty, allowed=("GET",))

_create_push_config = route("CreateTaskPushNotificationConfig", _push_create, allowed=("POST",))
_list_push_configs = route("ListTaskPushNotificationConfig", _push_list, allowed=("GET",))
_get_push_config = route("GetTaskPushNotificationConfig", _push_one, allowed=("GET",))
_delete_push_config = route("DeleteTaskPushNotificationConfig", _push_one, allowed=("DELETE",))


#: ``/v1/tasks/{id}/pushNotificationConfigs`` and ``…/{cfg}``.
push_configs = by_method(GET=_list_push_configs, POST=_create_push_config)
push_config = by_method(GET=_get_push_config, DELETE=_delete_push_config)
