"""The operation table: every A2A operation once, and each dialect's way of calling it.

An :class:`Operation` is a v1.0 operation (SendMessage, GetTask, ...): its request parser,
the service function that runs it, the capability it needs, whether it streams. A
:class:`Method` is an operation as one client generation calls it, with that dialect's
conversions in and out:

* ``V1`` — v1.0 over JSON-RPC and HTTP+JSON: no conversion;
* ``V03_JSONRPC`` — v0.3 JSON-RPC (``message/send``, ...), and the pre-0.3 ``tasks/send``,
  through :mod:`a2a_app.protocol.v03.jsonrpc` and :mod:`a2a_app.protocol.legacy`;
* ``V03_REST`` — v0.3 HTTP+JSON routes, through :mod:`a2a_app.protocol.v03.rest` (their
  params are converted by the routes, which know the paths).

The service only ever speaks v1.0. Operations that create something (a task, a push
config) are told the dialect's version, which the task or config remembers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from django.http import HttpRequest

from a2a_app.bindings import card
from a2a_app.caller import Caller
from a2a_app.core import push_configs, sending, service, store, streams
from a2a_app.protocol import legacy
from a2a_app.protocol.errors import (
    PermissionDeniedError,
    TaskNotFoundError,
)
from a2a_app.protocol.params import (
    GetTaskRequest,
    ListPushConfigsRequest,
    ListTasksRequest,
    PushConfigIdRequest,
    PushNotificationConfig,
    SendMessageRequest,
    TaskIdRequest,
)
from a2a_app.protocol.v03 import jsonrpc as v03_jsonrpc
from a2a_app.protocol.v03 import rest as v03_rest
from a2a_app.protocol.versions import V0_3, V1_0

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Operation:
    #: v1.0 params → the service's request object (None: the params themselves).
    parse: Callable[[JSON], Any] | None
    run: Callable[..., Any]
    #: Checked before the params: an undeclared capability is the error, not bad params.
    gate: Callable[[], None] | None = None
    #: Answers with an SSE stream (``run`` returns a ``streams.StreamStart``).
    streaming: bool = False
    #: ``run`` takes the protocol version of what it creates.
    versioned: bool = False
    #: The v1.0 method name, which API-key scopes and rate limits name
    #: (``operation:SendMessage``); set from OPERATIONS' keys.
    name: str = ""
    #: ``run`` also takes the HTTP request (the card's URLs follow the request's host).
    with_request: bool = False
    #: Headers of a successful answer.
    headers: tuple[tuple[str, str], ...] = ()


_OPERATIONS: dict[str, Operation] = {
    "SendMessage": Operation(SendMessageRequest.from_wire, sending.send_message, versioned=True),
    "SendStreamingMessage": Operation(
        SendMessageRequest.from_wire, streams.start_send, streaming=True, versioned=True
    ),
    "GetTask": Operation(GetTaskRequest.from_wire, service.get_task),
    "ListTasks": Operation(ListTasksRequest.from_wire, service.list_tasks),
    "CancelTask": Operation(TaskIdRequest.from_wire, service.cancel_task),
    "SubscribeToTask": Operation(
        TaskIdRequest.from_wire, streams.start_subscription, streaming=True
    ),
    "CreateTaskPushNotificationConfig": Operation(
        PushNotificationConfig.from_wire,
        push_configs.create_config,
        gate=push_configs.require_push,
        versioned=True,
    ),
    "GetTaskPushNotificationConfig": Operation(
        PushConfigIdRequest.from_wire, push_configs.get_config, gate=push_configs.require_push
    ),
    "ListTaskPushNotificationConfigs": Operation(
        ListPushConfigsRequest.from_wire, push_configs.list_configs, gate=push_configs.require_push
    ),
    "DeleteTaskPushNotificationConfig": Operation(
        PushConfigIdRequest.from_wire, push_configs.delete_config, gate=push_configs.require_push
    ),
    "GetExtendedAgentCard": Operation(
        None,
        card.extended_card,
        with_request=True,
        # Each caller its own card: no shared cache may keep it or hand it to another.
        headers=(("Cache-Control", "private"), ("Vary", "Authorization, Cookie")),
    ),
}
OPERATIONS: dict[str, Operation] = {
    name: replace(operation, name=name) for name, operation in _OPERATIONS.items()
}


@dataclass(frozen=True, slots=True)
class Method:
    """An operation as one dialect calls it."""

    operation: Operation
    #: The protocol version whose shapes the method takes and returns.
    version: str = V1_0
    #: This dialect's params → v1.0 params.
    params_in: Callable[[JSON], JSON] | None = None
    #: The v1.0 result → this dialect's result (non-streaming methods).
    result_out: Callable[[Any], Any] | None = None
    #: A v1.0 StreamResponse (and whether it is the last) → this dialect's event.
    event_out: Callable[[JSON, bool], Any] | None = None
    #: Runs instead of the operation's service function (same arguments).
    run: Callable[..., Any] | None = None

    @property
    def streaming(self) -> bool:
        return self.operation.streaming

    @property
    def name(self) -> str:
        return self.operation.name

    def __call__(
        self, params: JSON, caller: Caller, http_request: HttpRequest | None = None
    ) -> Any:
        operation = self.operation
        if not caller.may_call(operation.name):
            raise PermissionDeniedError(
                f"This API key may not call {operation.name}",
                metadata={"operation": operation.name},
            )
        if operation.gate is not None:
            operation.gate()
        if self.params_in is not None:
            params = self.params_in(params)
        request = operation.parse(params) if operation.parse is not None else params
        run = self.run or operation.run
        if operation.versioned:
            result = run(request, caller, self.version)
        elif operation.with_request:
            result = run(request, caller, http_request)
        else:
            result = run(request, caller)
        return self.result_out(result) if self.result_out is not None else result


V1: dict[str, Method] = {name: Method(operation) for name, operation in OPERATIONS.items()}


# --- v0.3 JSON-RPC ---------------------------------------------------------------------------


def _send_result_v03(result: JSON) -> JSON:
    """v0.3 returns the bare Task or Message, each with its ``kind``."""
    if "task" in result:
        return v03_jsonrpc.task_to_v03(result["task"])
    return v03_jsonrpc.message_to_v03(result["message"])


def _event_v03(event: JSON, last: bool) -> JSON:
    return v03_jsonrpc.stream_response_to_v03(event, final=last)


def _push_get_v03(request: PushConfigIdRequest, caller: Caller) -> JSON:
    """v0.3 may leave out the config id: then it means the task's (first) config."""
    if request.id:
        return push_configs.get_config(request, caller)
    configs = push_configs.list_configs(ListPushConfigsRequest(task_id=request.task_id), caller)
    if not configs["configs"]:
        raise TaskNotFoundError(
            f"Task {request.task_id} has no push notification config",
            metadata={"taskId": request.task_id},
        )
    return configs["configs"][0]


def _legacy_send(params: JSON, caller: Caller) -> JSON:
    """The pre-0.3 ``tasks/send`` of older guides, mapped onto SendMessage.

    Its ``id`` was chosen by the client: when it names one of the caller's tasks the
    message continues it, otherwise a new task starts (with a server-made id, which the
    answer carries).
    """
    v1_params, task_id = legacy.legacy_send_params(params)
    if task_id and store.task_exists(task_id, caller):
        v1_params["message"]["taskId"] = task_id
    result = sending.send_message(SendMessageRequest.from_wire(v1_params), caller, V0_3)
    if "task" in result:
        return legacy.legacy_task_to_wire(result["task"])
    return v03_jsonrpc.message_to_v03(result["message"])


def _v03(name: str, params_in: Callable[[JSON], JSON], **adapters: Any) -> Method:
    return Method(OPERATIONS[name], V0_3, params_in, **adapters)


V03_JSONRPC: dict[str, Method] = {
    "message/send": _v03(
        "SendMessage", v03_jsonrpc.send_params_from_v03, result_out=_send_result_v03
    ),
    "message/stream": _v03(
        "SendStreamingMessage", v03_jsonrpc.send_params_from_v03, event_out=_event_v03
    ),
    "tasks/get": _v03(
        "GetTask", v03_jsonrpc.task_query_from_v03, result_out=v03_jsonrpc.task_to_v03
    ),
    "tasks/cancel": _v03(
        "CancelTask", v03_jsonrpc.task_id_params_from_v03, result_out=v03_jsonrpc.task_to_v03
    ),
    "tasks/resubscribe": _v03(
        "SubscribeToTask", v03_jsonrpc.task_id_params_from_v03, event_out=_event_v03
    ),
    "tasks/pushNotificationConfig/set": _v03(
        "CreateTaskPushNotificationConfig",
        v03_jsonrpc.push_config_from_v03,
        result_out=v03_jsonrpc.push_config_to_v03,
    ),
    "tasks/pushNotificationConfig/get": Method(
        Operation(
            PushConfigIdRequest.from_wire_optional_id,
            _push_get_v03,
            gate=push_configs.require_push,
            name="GetTaskPushNotificationConfig",
        ),
        V0_3,
        v03_jsonrpc.push_get_params_from_v03,
        result_out=v03_jsonrpc.push_config_to_v03,
    ),
    "tasks/pushNotificationConfig/list": _v03(
        "ListTaskPushNotificationConfigs",
        v03_jsonrpc.push_list_params_from_v03,
        result_out=lambda result: [v03_jsonrpc.push_config_to_v03(c) for c in result["configs"]],
    ),
    "tasks/pushNotificationConfig/delete": _v03(
        "DeleteTaskPushNotificationConfig", v03_jsonrpc.push_delete_params_from_v03
    ),
    "agent/getAuthenticatedExtendedCard": Method(
        OPERATIONS["GetExtendedAgentCard"], V0_3, result_out=card.with_v03_fields
    ),
    "tasks/send": Method(Operation(None, _legacy_send, name="SendMessage"), V0_3),
}


def find_jsonrpc(name: str) -> Method | None:
    """The JSON-RPC method of that name, in any dialect."""
    return V1.get(name) or V03_JSONRPC.get(name)


# --- v0.3 HTTP+JSON ----------------------------------------------------------------------------


def _event_v03_rest(event: JSON, last: bool) -> JSON:
    return v03_rest.stream_response_to_v03(event, final=last)


def _v03_rest(name: str, **adapters: Any) -> Method:
    return Method(OPERATIONS[name], V0_3, **adapters)


V03_REST: dict[str, Method] = {
    "SendMessage": _v03_rest("SendMessage", result_out=v03_rest.send_response_to_v03),
    "SendStreamingMessage": _v03_rest("SendStreamingMessage", event_out=_event_v03_rest),
    "GetTask": _v03_rest("GetTask", result_out=v03_rest.task_to_v03),
    "CancelTask": _v03_rest("CancelTask", result_out=v03_rest.task_to_v03),
    "TaskSubscription": _v03_rest("SubscribeToTask", event_out=_event_v03_rest),
    "CreateTaskPushNotificationConfig": _v03_rest(
        "CreateTaskPushNotificationConfig", result_out=v03_rest.push_config_to_v03
    ),
    "GetTaskPushNotificationConfig": _v03_rest(
        "GetTaskPushNotificationConfig", result_out=v03_rest.push_config_to_v03
    ),
    "ListTaskPushNotificationConfig": _v03_rest(
        "ListTaskPushNotificationConfigs", result_out=v03_rest.push_list_to_v03
    ),
    "DeleteTaskPushNotificationConfig": _v03_rest(
        "DeleteTaskPushNotificationConfig",
        result_out=lambda result: {},  # google.protobuf.Empty
    ),
    "GetAgentCard": Method(
        OPERATIONS["GetExtendedAgentCard"], V0_3, result_out=card.with_v03_fields
    ),
}
