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

from typing import Any

from django.http import HttpRequest

from a2a_app.bindings import operations, rest
from a2a_app.bindings.headers import header
from a2a_app.bindings.rest import json_body
from a2a_app.protocol.errors import VersionNotSupportedError
from a2a_app.protocol.v03 import rest as v03_rest
from a2a_app.protocol.versions import V0_3, negotiate

JSON = dict[str, Any]
Renames = v03_rest.Renames


def _check_version(request: HttpRequest) -> None:
    value = header(request, "A2A-Version") or request.GET.get("A2A-Version")
    if negotiate(value, method_version=V0_3) != V0_3:
        raise VersionNotSupportedError(
            f"A2A-Version {value.strip()!r} is not served by the v0.3 HTTP+JSON routes "
            "(/v1/…); v1.0 clients use the interface's routes without /v1",
            metadata={"requestedVersion": value.strip(), "supportedVersions": V0_3},
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


def _v03(name: str, build: rest.Build) -> tuple[operations.Method, rest.Build]:
    return operations.V03_REST[name], build


TASK, TASK_ID, CONFIG = rest.TASK, rest.TASK_ID, rest.CONFIG

#: The v0.3 proto's HTTP paths, under ``v1/`` of the same interface URL; unnamed, so that
#: the named routes stay the v1.0 ones the OpenAPI document lists.
ROUTES: list[rest.Route] = [
    ("v1/message:send", None, {"POST": _v03("SendMessage", _send)}),
    ("v1/message:stream", None, {"POST": _v03("SendStreamingMessage", _send)}),
    (rf"v1/tasks/{TASK}:cancel", None, {"POST": _v03("CancelTask", _cancel)}),
    # The v0.3 proto says GET, the v0.3 spec's text POST: both are accepted.
    (
        rf"v1/tasks/{TASK}:subscribe",
        None,
        {"GET": _v03("TaskSubscription", _subscribe), "POST": _v03("TaskSubscription", _subscribe)},
    ),
    (rf"v1/tasks/{TASK}", None, {"GET": _v03("GetTask", _get_task)}),
    (
        rf"v1/tasks/{TASK_ID}/pushNotificationConfigs",
        None,
        {
            "GET": _v03("ListTaskPushNotificationConfig", _push_list),
            "POST": _v03("CreateTaskPushNotificationConfig", _push_create),
        },
    ),
    (
        rf"v1/tasks/{TASK_ID}/pushNotificationConfigs/{CONFIG}",
        None,
        {
            "GET": _v03("GetTaskPushNotificationConfig", _push_one),
            "DELETE": _v03("DeleteTaskPushNotificationConfig", _push_one),
        },
    ),
    ("v1/card", None, {"GET": _v03("GetAgentCard", _empty)}),
]


def patterns(prefix: str) -> list:
    return rest.patterns(prefix, ROUTES, check_version=_check_version)
