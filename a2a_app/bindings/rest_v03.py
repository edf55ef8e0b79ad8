"""The HTTP+JSON (REST) binding of A2A v0.3, under ``/a2a/rest/v1/`` (spec reference §6.1).

v0.3 REST clients append the v0.3 proto's HTTP paths (``/v1/message:send``, ``/v1/tasks/{id}``,
…) to the HTTP+JSON interface URL the card lists for protocol version 0.3, which is the
same ``/a2a/rest`` as v1.0's. Each route converts its body from the v0.3 proto's JSON
(:mod:`a2a_app.protocol.v03.rest`) to the v1.0 request params, calls the same service as
the v1.0 routes with version ``"0.3"`` (the tasks and push configs made here remember it)
and converts the answer back. Errors have the REST shape of :mod:`a2a_app.bindings.rest`; field
paths name the v0.3 fields. ``A2A-Version`` may be absent or 0.3 here; 1.0 clients have
their own routes (VersionNotSupported). Streams are SSE whose data lines are bare v0.3
``StreamResponse`` objects, ``final`` true on the last status update.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest

from a2a_app.bindings import operations, rest
from a2a_app.bindings.rest import by_method, json_body
from a2a_app.protocol.errors import VersionNotSupportedError
from a2a_app.protocol.v03 import rest as v03_rest
from a2a_app.protocol.versions import V0_3, negotiate

JSON = dict[str, Any]
Renames = v03_rest.Renames


def _check_version(request: HttpRequest) -> None:
    value = request.headers.get("A2A-Version") or request.GET.get("A2A-Version")
    if negotiate(value, method_version=V0_3) != V0_3:
        raise VersionNotSupportedError(
            f"A2A-Version {value.strip()!r} is not served by the v0.3 HTTP+JSON routes "
            "(/v1/…); v1.0 clients use the interface's routes without /v1",
            metadata={"requestedVersion": value.strip(), "supportedVersions": V0_3},
        )


def route(name: str, build: rest.Build, *, allowed: tuple[str, ...]) -> Callable:
    return rest.route(
        operations.V03_REST[name], build, allowed=allowed, check_version=_check_version
    )


# --- how each route builds its v1.0 params ------------------------------------------------------


def _send(request: HttpRequest, kwargs: dict[str, str]) -> tuple[JSON, Renames]:
    body = json_body(request)
    return v03_rest.send_request_from_v03(body), v03_rest.send_fields(body)


def _get_task(request: HttpRequest, kwargs: dict[str, str]) -> tuple[JSON, Renames]:
    query = v03_rest.query_from_v03(request.GET, "historyLength")
    return {**query, "id": kwargs["id"]}, ()


def _cancel(request: HttpRequest, kwargs: dict[str, str]) -> tuple[JSON, Renames]:
    """The body (CancelTaskRequest) may hold the task's ``name``: the path's id wins."""
    json_body(request, optional=True)
    return {"id": kwargs["id"]}, ()


def _subscribe(request: HttpRequest, kwargs: dict[str, str]) -> tuple[JSON, Renames]:
    return {"id": kwargs["id"]}, ()


def _push_create(request: HttpRequest, kwargs: dict[str, str]) -> tuple[JSON, Renames]:
    config, prefix = v03_rest.push_create_from_v03(json_body(request), kwargs["task_id"])
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
