"""The JSON-RPC binding: method names, their request parsers and service functions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import service
from .auth import Caller
from .protocol.types import GetTaskRequest, ListTasksRequest, SendMessageRequest, TaskIdRequest


@dataclass(frozen=True, slots=True)
class Method:
    parse: Callable[[dict[str, Any]], Any] | None
    run: Callable[..., Any]

    def __call__(self, params: dict[str, Any], caller: Caller) -> Any:
        request = self.parse(params) if self.parse is not None else params
        return self.run(request, caller)


V1_METHODS: dict[str, Method] = {
    "SendMessage": Method(SendMessageRequest.from_wire, service.send_message),
    "GetTask": Method(GetTaskRequest.from_wire, service.get_task),
    "ListTasks": Method(ListTasksRequest.from_wire, service.list_tasks),
    "CancelTask": Method(TaskIdRequest.from_wire, service.cancel_task),
    "SendStreamingMessage": Method(None, service.streaming_not_supported),
    "SubscribeToTask": Method(None, service.streaming_not_supported),
    "CreateTaskPushNotificationConfig": Method(None, service.push_not_supported),
    "GetTaskPushNotificationConfig": Method(None, service.push_not_supported),
    "ListTaskPushNotificationConfigs": Method(None, service.push_not_supported),
    "DeleteTaskPushNotificationConfig": Method(None, service.push_not_supported),
    "GetExtendedAgentCard": Method(None, service.extended_card_not_supported),
}
