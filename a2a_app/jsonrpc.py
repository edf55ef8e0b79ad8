"""The JSON-RPC binding: method names, their request parsers and service functions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import push, service, streams
from .auth import Caller
from .protocol.types import (
    GetTaskRequest,
    ListPushConfigsRequest,
    ListTasksRequest,
    PushConfigIdRequest,
    PushNotificationConfig,
    SendMessageRequest,
    TaskIdRequest,
)


@dataclass(frozen=True, slots=True)
class Method:
    parse: Callable[[dict[str, Any]], Any] | None
    run: Callable[..., Any]
    #: Checked before the params: an undeclared capability is the error, not bad params.
    gate: Callable[[], None] | None = None
    #: Answers with an SSE stream (``run`` returns a ``streams.StreamStart``).
    streaming: bool = False

    def __call__(self, params: dict[str, Any], caller: Caller) -> Any:
        if self.gate is not None:
            self.gate()
        request = self.parse(params) if self.parse is not None else params
        return self.run(request, caller)


V1_METHODS: dict[str, Method] = {
    "SendMessage": Method(SendMessageRequest.from_wire, service.send_message),
    "GetTask": Method(GetTaskRequest.from_wire, service.get_task),
    "ListTasks": Method(ListTasksRequest.from_wire, service.list_tasks),
    "CancelTask": Method(TaskIdRequest.from_wire, service.cancel_task),
    "SendStreamingMessage": Method(
        SendMessageRequest.from_wire, streams.start_send, streaming=True
    ),
    "SubscribeToTask": Method(TaskIdRequest.from_wire, streams.start_subscription, streaming=True),
    "CreateTaskPushNotificationConfig": Method(
        PushNotificationConfig.from_wire, push.create_config, gate=push.require_push
    ),
    "GetTaskPushNotificationConfig": Method(
        PushConfigIdRequest.from_wire, push.get_config, gate=push.require_push
    ),
    "ListTaskPushNotificationConfigs": Method(
        ListPushConfigsRequest.from_wire, push.list_configs, gate=push.require_push
    ),
    "DeleteTaskPushNotificationConfig": Method(
        PushConfigIdRequest.from_wire, push.delete_config, gate=push.require_push
    ),
    "GetExtendedAgentCard": Method(None, service.extended_card_not_supported),
}
