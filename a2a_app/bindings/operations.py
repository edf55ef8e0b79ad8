"""The JSON-RPC binding: method names, their request parsers and service functions.

Two dialects share one endpoint. v1.0 methods (``SendMessage``) take and return v1.0
ProtoJSON. v0.3 methods (``message/send``) convert their params to v1.0 on the way in
and the result (and every stream event) back to v0.3 on the way out, through
:mod:`a2a_app.protocol.v03`: the service only ever speaks v1.0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from a2a_app.core import push_configs, sending, service, store, streams
from a2a_app.core.caller import Caller
from a2a_app.protocol import legacy, v03
from a2a_app.protocol.errors import TaskNotFoundError, UnsupportedOperationError
from a2a_app.protocol.types import (
    GetTaskRequest,
    ListPushConfigsRequest,
    ListTasksRequest,
    PushConfigIdRequest,
    PushNotificationConfig,
    SendMessageRequest,
    TaskIdRequest,
)
from a2a_app.protocol.versions import V0_3, V1_0

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Method:
    parse: Callable[[JSON], Any] | None
    run: Callable[..., Any]
    #: Checked before the params: an undeclared capability is the error, not bad params.
    gate: Callable[[], None] | None = None
    #: Answers with an SSE stream (``run`` returns a ``streams.StreamStart``).
    streaming: bool = False
    #: The protocol version whose shapes the method takes and returns.
    version: str = V1_0
    #: v1.0 result → this dialect's result (non-streaming methods).
    adapt_result: Callable[[Any], Any] | None = None
    #: v1.0 StreamResponse (and whether it is the last) → this dialect's event.
    adapt_event: Callable[[JSON, bool], Any] | None = None

    def __call__(self, params: JSON, caller: Caller) -> Any:
        if self.gate is not None:
            self.gate()
        request = self.parse(params) if self.parse is not None else params
        result = self.run(request, caller)
        if self.adapt_result is not None:
            result = self.adapt_result(result)
        return result


V1_METHODS: dict[str, Method] = {
    "SendMessage": Method(SendMessageRequest.from_wire, sending.send_message),
    "GetTask": Method(GetTaskRequest.from_wire, service.get_task),
    "ListTasks": Method(ListTasksRequest.from_wire, service.list_tasks),
    "CancelTask": Method(TaskIdRequest.from_wire, service.cancel_task),
    "SendStreamingMessage": Method(
        SendMessageRequest.from_wire, streams.start_send, streaming=True
    ),
    "SubscribeToTask": Method(TaskIdRequest.from_wire, streams.start_subscription, streaming=True),
    "CreateTaskPushNotificationConfig": Method(
        PushNotificationConfig.from_wire, push_configs.create_config, gate=push_configs.require_push
    ),
    "GetTaskPushNotificationConfig": Method(
        PushConfigIdRequest.from_wire, push_configs.get_config, gate=push_configs.require_push
    ),
    "ListTaskPushNotificationConfigs": Method(
        ListPushConfigsRequest.from_wire, push_configs.list_configs, gate=push_configs.require_push
    ),
    "DeleteTaskPushNotificationConfig": Method(
        PushConfigIdRequest.from_wire, push_configs.delete_config, gate=push_configs.require_push
    ),
    "GetExtendedAgentCard": Method(None, service.extended_card_not_supported),
}


# --- v0.3 ------------------------------------------------------------------------------------


def _send_result_v03(result: JSON) -> JSON:
    """v0.3 returns the bare Task or Message, each with its ``kind``."""
    if "task" in result:
        return v03.task_to_v03(result["task"])
    return v03.message_to_v03(result["message"])


def _event_v03(event: JSON, last: bool) -> JSON:
    return v03.stream_response_to_v03(event, final=last)


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


def _parse_v03(convert: Callable[[Any], JSON], parse: Callable[[JSON], Any]) -> Callable:
    return lambda params: parse(convert(params))


def _extended_card_v03(*args: Any) -> None:
    raise UnsupportedOperationError("This agent has no authenticated extended card")


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
    return v03.message_to_v03(result["message"])


V03_METHODS: dict[str, Method] = {
    "message/send": Method(
        _parse_v03(v03.send_params_from_v03, SendMessageRequest.from_wire),
        partial(sending.send_message, version=V0_3),
        version=V0_3,
        adapt_result=_send_result_v03,
    ),
    "message/stream": Method(
        _parse_v03(v03.send_params_from_v03, SendMessageRequest.from_wire),
        partial(streams.start_send, version=V0_3),
        streaming=True,
        version=V0_3,
        adapt_event=_event_v03,
    ),
    "tasks/get": Method(
        _parse_v03(v03.task_query_from_v03, GetTaskRequest.from_wire),
        service.get_task,
        version=V0_3,
        adapt_result=v03.task_to_v03,
    ),
    "tasks/cancel": Method(
        _parse_v03(v03.task_id_params_from_v03, TaskIdRequest.from_wire),
        service.cancel_task,
        version=V0_3,
        adapt_result=v03.task_to_v03,
    ),
    "tasks/resubscribe": Method(
        _parse_v03(v03.task_id_params_from_v03, TaskIdRequest.from_wire),
        streams.start_subscription,
        streaming=True,
        version=V0_3,
        adapt_event=_event_v03,
    ),
    "tasks/pushNotificationConfig/set": Method(
        _parse_v03(v03.push_config_from_v03, PushNotificationConfig.from_wire),
        partial(push_configs.create_config, version=V0_3),
        gate=push_configs.require_push,
        version=V0_3,
        adapt_result=v03.push_config_to_v03,
    ),
    "tasks/pushNotificationConfig/get": Method(
        _parse_v03(v03.push_get_params_from_v03, PushConfigIdRequest.from_wire_optional_id),
        _push_get_v03,
        gate=push_configs.require_push,
        version=V0_3,
        adapt_result=v03.push_config_to_v03,
    ),
    "tasks/pushNotificationConfig/list": Method(
        _parse_v03(v03.push_list_params_from_v03, ListPushConfigsRequest.from_wire),
        push_configs.list_configs,
        gate=push_configs.require_push,
        version=V0_3,
        adapt_result=lambda result: [v03.push_config_to_v03(c) for c in result["configs"]],
    ),
    "tasks/pushNotificationConfig/delete": Method(
        _parse_v03(v03.push_delete_params_from_v03, PushConfigIdRequest.from_wire),
        push_configs.delete_config,
        gate=push_configs.require_push,
        version=V0_3,
    ),
    "agent/getAuthenticatedExtendedCard": Method(None, _extended_card_v03, version=V0_3),
    "tasks/send": Method(None, _legacy_send, version=V0_3),
}


def find(name: str) -> Method | None:
    return V1_METHODS.get(name) or V03_METHODS.get(name)
