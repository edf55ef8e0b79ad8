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
from a2a_app.bindings.security import security_requirements, security_schemes
from a2a_app.protocol.types import TaskState
from a2a_app.protocol.v03.card import requirements_to_v03, scheme_to_v03
from a2a_app.protocol.wire import INT32_MAX, MAX_AUTH_SCHEME_LENGTH, MAX_ID_LENGTH

JSON = dict[str, Any]


def _ref(name: str) -> JSON:
    return {"$ref": f"#/components/schemas/{name}"}


STATES = [s.value for s in TaskState if s is not TaskState.UNSPECIFIED]
# No string may hold U+0000 (PostgreSQL cannot store it): refused before parsing.
NO_NUL = "^[^\\u0000]*$"
STRING, INTEGER = {"type": "string", "pattern": NO_NUL}, {"type": "integer"}
#: Any JSON value a request may carry (google.protobuf.Value): strings and keys without
#: U+0000. Numbers are doubles; nesting is limited by MAX_JSON_DEPTH.
VALUE = {"$ref": "#/components/schemas/Value"}
#: Free-form objects (metadata), and what every object may hold beyond its known fields
#: (unknown fields are ignored, but must still be storable).
FREE_FORM = {"propertyNames": {"pattern": NO_NUL}, "additionalProperties": VALUE}
OBJECT = {"type": "object", **FREE_FORM}
STRINGS = {"type": "array", "items": STRING}
#: An id a client chooses (task, context, message, push config): as long as its column.
ID = {"type": "string", "pattern": NO_NUL, "maxLength": MAX_ID_LENGTH}
IDS = {"type": "array", "items": ID}
#: Standard or URL-safe base64, padded or not (what ``wire.normalize_base64`` reads).
BASE64 = {
    "type": "string",
    "contentEncoding": "base64",
    "pattern": "^\\s*(?:[A-Za-z0-9+/_-]{4})*"
    "(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?\\s*$",
}
HISTORY_LENGTH = {"type": "integer", "minimum": 0, "maximum": INT32_MAX}


def _array(items: JSON) -> JSON:
    return {"type": "array", "items": items}


def _object(properties: JSON, required: tuple[str, ...] = (), **extra: Any) -> JSON:
    schema: JSON = {"type": "object", **FREE_FORM, **extra}
    if required:
        schema["required"] = list(required)
    schema["properties"] = properties
    return schema


def _part_choice(member: str) -> JSON:
    others = [o for o in ("text", "raw", "url", "data") if o != member]
    return {"required": [member], "not": {"anyOf": [{"required": [o]} for o in others]}}


SCHEMAS: JSON = {
    "Value": {
        "anyOf": [
            {"type": ["null", "boolean", "number"]},
            STRING,
            {"type": "array", "items": VALUE},
            OBJECT,
        ]
    },
    "Part": _object(
        {
            "text": STRING,
            "raw": BASE64,
            "url": STRING,
            "data": VALUE,
            "mediaType": STRING,
            "filename": STRING,
            "metadata": OBJECT,
        },
        description="Exactly one of text, raw, url, data.",
        oneOf=[_part_choice(member) for member in ("text", "raw", "url", "data")],
    ),
    "Message": _object(
        {
            "messageId": {**ID, "minLength": 1},
            "role": {"type": "string", "enum": ["ROLE_USER", "ROLE_AGENT"]},
            "parts": {"type": "array", "minItems": 1, "items": _ref("Part")},
            "contextId": ID,
            "taskId": ID,
            "metadata": OBJECT,
            "extensions": STRINGS,
            "referenceTaskIds": IDS,
        },
        ("messageId", "role", "parts"),
    ),
    "Artifact": _object(
        {
            "artifactId": ID,
            "name": STRING,
            "description": STRING,
            "parts": _array(_ref("Part")),
            "metadata": OBJECT,
        },
        ("artifactId", "parts"),
    ),
    "TaskStatus": _object(
        {
            "state": {"type": "string", "enum": STATES},
            "message": _ref("Message"),
            "timestamp": {"type": "string", "format": "date-time"},
        },
        ("state",),
    ),
    "Task": _object(
        {
            "id": STRING,
            "contextId": STRING,
            "status": _ref("TaskStatus"),
            "artifacts": _array(_ref("Artifact")),
            "history": _array(_ref("Message")),
            "metadata": OBJECT,
        },
        ("id", "status"),
    ),
    "AuthenticationInfo": _object(
        {
            # An HTTP auth scheme token (RFC 9110), as long as its column.
            "scheme": {
                "type": "string",
                "pattern": "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$",
                "maxLength": MAX_AUTH_SCHEME_LENGTH,
            },
            "credentials": {"type": "string", "pattern": "^[^\\u0000\\r\\n]*$"},
        },
        ("scheme",),
    ),
    "TaskPushNotificationConfig": _object(
        {
            "id": ID,
            "taskId": ID,
            # A URL the webhook policy (SSRF guard) lets through: https, a public address.
            "url": {"type": "string", "format": "uri", "minLength": 1, "maxLength": 2048},
            "token": {"type": "string", "pattern": "^[^\\u0000\\r\\n]*$"},
            "authentication": _ref("AuthenticationInfo"),
        },
        ("url",),
    ),
    "SendMessageConfiguration": _object(
        {
            "acceptedOutputModes": STRINGS,
            "historyLength": HISTORY_LENGTH,
            "returnImmediately": {"type": "boolean"},
            "taskPushNotificationConfig": _ref("TaskPushNotificationConfig"),
        }
    ),
    "SendMessageRequest": _object(
        {
            # A client sends only its own messages.
            "message": {
                "allOf": [_ref("Message")],
                "properties": {"role": {"type": "string", "enum": ["ROLE_USER"]}},
            },
            "configuration": _ref("SendMessageConfiguration"),
            "metadata": OBJECT,
        },
        ("message",),
    ),
    "SendMessageResponse": _object(
        {"task": _ref("Task"), "message": _ref("Message")},
        description="Exactly one of task, message.",
    ),
    "ListTasksResponse": _object(
        {
            "tasks": _array(_ref("Task")),
            "nextPageToken": STRING,
            "pageSize": INTEGER,
            "totalSize": INTEGER,
        },
        ("tasks", "nextPageToken", "pageSize", "totalSize"),
    ),
    "ListTaskPushNotificationConfigsResponse": _object(
        {"configs": _array(_ref("TaskPushNotificationConfig")), "nextPageToken": STRING}
    ),
    "CancelTaskRequest": _object({"metadata": OBJECT}),
    "Error": _object(
        {
            "error": _object(
                {
                    "code": INTEGER,
                    "status": STRING,
                    "message": STRING,
                    "details": _array(OBJECT),
                },
                ("code", "status", "message"),
            )
        },
        ("error",),
    ),
}

MEDIA = ("application/json", "application/a2a+json")


def _body(schema: str) -> JSON:
    return {"required": True, "content": {m: {"schema": _ref(schema)} for m in MEDIA}}


def _ok(schema: str | None, description: str = "OK") -> JSON:
    responses: JSON = {"description": description}
    if schema:
        responses["content"] = {m: {"schema": _ref(schema)} for m in MEDIA}
    return responses


def _sse(description: str) -> JSON:
    return {"description": description, "content": {"text/event-stream": {"schema": {}}}}


ERRORS = {
    "400": _ok("Error", "Invalid request or A2A error (see ErrorInfo.reason)"),
    "401": _ok("Error", "Missing (when required), invalid or unrecognised credentials"),
    "403": _ok("Error", "The credential may not call this operation; CSRF failure"),
    "404": _ok("Error", "Task (or config) not found"),
    "413": _ok("Error", "Request body too large"),
    "415": _ok("Error", "Request body is not JSON"),
    "429": _ok("Error", "Too many failed sign-ins (Retry-After)"),
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
    return {"name": name, "in": "path", "required": True, "schema": ID}


def _query(name: str, schema: JSON) -> JSON:
    return {"name": name, "in": "query", "required": False, "schema": schema}


def paths() -> JSON:
    """The REST routes, relative to the HTTP+JSON interface URL (``/a2a/rest``)."""
    task, config, task_id = _path_param("id"), _path_param("id"), _path_param("taskId")
    history = _query("historyLength", HISTORY_LENGTH)
    page_size = _query("pageSize", {"type": "integer", "minimum": 1, "maximum": 100})
    page_token = _query("pageToken", STRING)
    send, stream = _body("SendMessageRequest"), _sse("StreamResponse events")
    subscribed = _sse("A Task snapshot, then StreamResponse events")
    listing = [
        _query("contextId", ID),
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
            # Required: a POST that changes state needs a JSON media type ({} will do).
            "post": _op("CancelTask", "Cancel a task", _ok("Task"), [task],
                        _body("CancelTaskRequest")),
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
                       "The extended agent card: the skills the signed-in caller may use",
                       {"description": "AgentCard"}),
        },
    }  # fmt: skip


def security() -> tuple[JSON, list[JSON]]:
    """The card's schemes as OpenAPI ``securitySchemes`` and ``security`` (the v0.3 card
    shapes are OpenAPI's). When anonymous calls are served, ``{}`` comes first: the
    credentials are optional."""
    schemes = {name: scheme_to_v03(scheme) for name, scheme in security_schemes().items()}
    schemes = {name: scheme for name, scheme in schemes.items() if scheme}
    requirements = requirements_to_v03(security_requirements())
    if not requirements and schemes:
        requirements = [{}, *({name: []} for name in schemes)]
    return schemes, requirements


def document(server_url: str) -> JSON:
    schemes, requirements = security()
    components: JSON = {"schemas": SCHEMAS}
    if schemes:
        components["securitySchemes"] = schemes
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "A2A HTTP+JSON binding",
            "version": __version__,
            "description": "A2A protocol v1.0 over HTTP+JSON, served by a2a_app.",
        },
        "servers": [{"url": server_url}],
        "paths": paths(),
        "components": components,
        **({"security": requirements} if requirements else {}),
    }


def openapi_view(request: HttpRequest) -> JsonResponse:
    server = base_url(request) + reverse("a2a_app:rest")
    return JsonResponse(document(server), json_dumps_params={"separators": (",", ":")})
