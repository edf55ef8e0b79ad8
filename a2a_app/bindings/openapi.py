"""The OpenAPI 3.1 document of the HTTP+JSON binding, served at ``/a2a/rest/openapi.json``.

Written by hand from the spec's REST table and data model (spec reference §2, §3), so
schema-driven tools (client generators, schemathesis) can use it; a test checks that it
lists exactly the routes in ``urls.rest_urlpatterns``.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.urls import reverse

from a2a_app import __version__
from a2a_app.bindings.card import base_url
from a2a_app.protocol.types import TaskState

JSON = dict[str, Any]


def _ref(name: str) -> JSON:
    return {"$ref": f"#/components/schemas/{name}"}


STATES = [s.value for s in TaskState if s is not TaskState.UNSPECIFIED]

SCHEMAS: JSON = {
    "Part": {
        "type": "object",
        "description": "Exactly one of text, raw, url, data.",
        "oneOf": [
            {"required": [member], "not": {"anyOf": [{"required": [o]} for o in others]}}
            for member, others in (
                ("text", ("raw", "url", "data")),
                ("raw", ("text", "url", "data")),
                ("url", ("text", "raw", "data")),
                ("data", ("text", "raw", "url")),
            )
        ],
        "properties": {
            "text": {"type": "string"},
            "raw": {"type": "string", "contentEncoding": "base64"},
            "url": {"type": "string"},
            "data": {},
            "mediaType": {"type": "string"},
            "filename": {"type": "string"},
            "metadata": {"type": "object"},
        },
    },
    "Message": {
        "type": "object",
        "required": ["messageId", "role", "parts"],
        "properties": {
            "messageId": {"type": "string", "minLength": 1},
            "role": {"type": "string", "enum": ["ROLE_USER", "ROLE_AGENT"]},
            "parts": {"type": "array", "minItems": 1, "items": _ref("Part")},
            "contextId": {"type": "string"},
            "taskId": {"type": "string"},
            "metadata": {"type": "object"},
            "extensions": {"type": "array", "items": {"type": "string"}},
            "referenceTaskIds": {"type": "array", "items": {"type": "string"}},
        },
    },
    "Artifact": {
        "type": "object",
        "required": ["artifactId", "parts"],
        "properties": {
            "artifactId": {"type": "string"},
            "name": {"type": "string"},
            "description": {"type": "string"},
            "parts": {"type": "array", "items": _ref("Part")},
            "metadata": {"type": "object"},
        },
    },
    "TaskStatus": {
        "type": "object",
        "required": ["state"],
        "properties": {
            "state": {"type": "string", "enum": STATES},
            "message": _ref("Message"),
            "timestamp": {"type": "string", "format": "date-time"},
        },
    },
    "Task": {
        "type": "object",
        "required": ["id", "status"],
        "properties": {
            "id": {"type": "string"},
            "contextId": {"type": "string"},
            "status": _ref("TaskStatus"),
            "artifacts": {"type": "array", "items": _ref("Artifact")},
            "history": {"type": "array", "items": _ref("Message")},
            "metadata": {"type": "object"},
        },
    },
    "AuthenticationInfo": {
        "type": "object",
        "required": ["scheme"],
        "properties": {"scheme": {"type": "string"}, "credentials": {"type": "string"}},
    },
    "TaskPushNotificationConfig": {
        "type": "object",
        "required": ["url"],
        "properties": {
            "id": {"type": "string"},
            "taskId": {"type": "string"},
            "url": {"type": "string"},
            "token": {"type": "string"},
            "authentication": _ref("AuthenticationInfo"),
        },
    },
    "SendMessageConfiguration": {
        "type": "object",
        "properties": {
            "acceptedOutputModes": {"type": "array", "items": {"type": "string"}},
            "historyLength": {"type": "integer", "minimum": 0},
            "returnImmediately": {"type": "boolean"},
            "taskPushNotificationConfig": _ref("TaskPushNotificationConfig"),
        },
    },
    "SendMessageRequest": {
        "type": "object",
        "required": ["message"],
        "properties": {
            "message": _ref("Message"),
            "configuration": _ref("SendMessageConfiguration"),
            "metadata": {"type": "object"},
        },
    },
    "SendMessageResponse": {
        "type": "object",
        "description": "Exactly one of task, message.",
        "properties": {"task": _ref("Task"), "message": _ref("Message")},
    },
    "ListTasksResponse": {
        "type": "object",
        "required": ["tasks", "nextPageToken", "pageSize", "totalSize"],
        "properties": {
            "tasks": {"type": "array", "items": _ref("Task")},
            "nextPageToken": {"type": "string"},
            "pageSize": {"type": "integer"},
            "totalSize": {"type": "integer"},
        },
    },
    "ListTaskPushNotificationConfigsResponse": {
        "type": "object",
        "properties": {
            "configs": {"type": "array", "items": _ref("TaskPushNotificationConfig")},
            "nextPageToken": {"type": "string"},
        },
    },
    "CancelTaskRequest": {"type": "object", "properties": {"metadata": {"type": "object"}}},
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "status", "message"],
                "properties": {
                    "code": {"type": "integer"},
                    "status": {"type": "string"},
                    "message": {"type": "string"},
                    "details": {"type": "array", "items": {"type": "object"}},
                },
            }
        },
    },
}

MEDIA = ("application/json", "application/a2a+json")


def _body(schema: str, *, required: bool = True) -> JSON:
    return {"required": required, "content": {m: {"schema": _ref(schema)} for m in MEDIA}}


def _ok(schema: str | None, description: str = "OK") -> JSON:
    responses: JSON = {"description": description}
    if schema:
        responses["content"] = {m: {"schema": _ref(schema)} for m in MEDIA}
    return responses


def _sse(description: str) -> JSON:
    return {"description": description, "content": {"text/event-stream": {"schema": {}}}}


ERRORS = {
    "400": _ok("Error", "Invalid request or A2A error (see ErrorInfo.reason)"),
    "401": _ok("Error", "Invalid credentials"),
    "404": _ok("Error", "Task (or config) not found"),
    "413": _ok("Error", "Request body too large"),
    "415": _ok("Error", "Request body is not JSON"),
}


def _op(
    operation_id: str,
    summary: str,
    ok: JSON,
    parameters: list[JSON] | tuple[JSON, ...] = (),
    body: JSON | None = None,
) -> JSON:
    """One operation: its 200 answer, and the errors every operation may answer."""
    operation: JSON = {
        "operationId": operation_id,
        "summary": summary,
        "parameters": list(parameters),
        "responses": {"200": ok, **ERRORS},
    }
    if body is not None:
        operation["requestBody"] = body
    return operation


def _path_param(name: str) -> JSON:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}


def _query(name: str, schema: JSON) -> JSON:
    return {"name": name, "in": "query", "required": False, "schema": schema}


def paths() -> JSON:
    """The REST routes, relative to the HTTP+JSON interface URL (``/a2a/rest``)."""
    task, config, task_id = _path_param("id"), _path_param("id"), _path_param("taskId")
    history = _query("historyLength", {"type": "integer", "minimum": 0})
    page_size = _query("pageSize", {"type": "integer", "minimum": 1, "maximum": 100})
    page_token = _query("pageToken", {"type": "string"})
    send, stream = _body("SendMessageRequest"), _sse("StreamResponse events")
    subscribed = _sse("A Task snapshot, then StreamResponse events")
    listing = [
        _query("contextId", {"type": "string"}),
        _query("status", {"type": "string", "enum": STATES}),
        page_size,
        page_token,
        history,
        _query("statusTimestampAfter", {"type": "string", "format": "date-time"}),
        _query("includeArtifacts", {"type": "boolean"}),
    ]
    config_schema = _ok("TaskPushNotificationConfig")
    deleted = {"description": "Deleted", "content": {"application/json": {}}}
    return {
        "/message:send": {
            "post": _op("SendMessage", "Send a message; returns a Task or a Message",
                        _ok("SendMessageResponse"), body=send),
        },
        "/message:stream": {
            "post": _op("SendStreamingMessage",
                        "Send a message and stream the task's events (SSE; ASGI only)",
                        stream, body=send),
        },
        "/tasks": {
            "get": _op("ListTasks", "List the caller's tasks, most recently updated first",
                       _ok("ListTasksResponse"), listing),
        },
        "/tasks/{id}": {"get": _op("GetTask", "Get a task", _ok("Task"), [task, history])},
        "/tasks/{id}:cancel": {
            "post": _op("CancelTask", "Cancel a task", _ok("Task"), [task],
                        _body("CancelTaskRequest", required=False)),
        },
        "/tasks/{id}:subscribe": {
            method: _op(f"SubscribeToTask{method.title()}",
                        "Stream a running task's events (SSE; ASGI only)", subscribed, [task])
            for method in ("get", "post")
        },
        "/tasks/{taskId}/pushNotificationConfigs": {
            "post": _op("CreateTaskPushNotificationConfig", "Register a webhook for a task",
                        config_schema, [task_id], _body("TaskPushNotificationConfig")),
            "get": _op("ListTaskPushNotificationConfigs",
                       "List a task's webhooks (secrets left out)",
                       _ok("ListTaskPushNotificationConfigsResponse"),
                       [task_id, page_size, page_token]),
        },
        "/tasks/{taskId}/pushNotificationConfigs/{id}": {
            "get": _op("GetTaskPushNotificationConfig", "Get a webhook (secrets left out)",
                       config_schema, [task_id, config]),
            "delete": _op("DeleteTaskPushNotificationConfig", "Delete a webhook (idempotent)",
                          deleted, [task_id, config]),
        },
        "/extendedAgentCard": {
            "get": _op("GetExtendedAgentCard",
                       "The extended agent card (not offered by this agent)",
                       {"description": "AgentCard"}),
        },
    }  # fmt: skip


def document(server_url: str) -> JSON:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "A2A HTTP+JSON binding",
            "version": __version__,
            "description": "A2A protocol v1.0 over HTTP+JSON, served by a2a_app.",
        },
        "servers": [{"url": server_url}],
        "paths": paths(),
        "components": {"schemas": SCHEMAS},
    }


def openapi_view(request: HttpRequest) -> JsonResponse:
    server = base_url(request) + reverse("a2a_app:rest")
    return JsonResponse(document(server), json_dumps_params={"separators": (",", ":")})
