"""Helpers shared by a2a_app's own tests (what sites may use is in ``a2a_app.testing``).

``Later`` runs a function in another thread after a delay (a worker, or site code, acting
while a stream is open); the JSON-RPC error readers take a response body apart.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Callable
from typing import Any, NoReturn

import pytest
from django.db import connection

JSON = dict[str, Any]

#: The longest a scenario (a stream, a thread) may take before its test fails.
SCENARIO_TIMEOUT = 20.0
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


def service_missing(reason: str) -> NoReturn:
    """A test that needs a service (Redis, redis-server, PostgreSQL, Chromium, a test-only
    tool) which is not there: skipped on a developer machine, a failure in CI (``CI`` set),
    where every test must run."""
    if os.environ.get("CI"):
        pytest.fail(f"CI: {reason}", pytrace=False)
    pytest.skip(reason)


class Later(threading.Thread):
    """``fn(*args, **kwargs)`` in another thread after ``delay`` seconds."""

    def __init__(self, fn: Callable[..., Any], *args: Any, delay: float, **kwargs: Any) -> None:
        super().__init__(daemon=True)
        self.fn, self.args, self.kwargs, self.delay = fn, args, kwargs, delay
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            time.sleep(self.delay)
            self.result = self.fn(*self.args, **self.kwargs)
        except BaseException as exc:  # re-raised in the test by outcome()
            self.error = exc
        finally:
            connection.close()

    def outcome(self) -> Any:
        """What ``fn`` returned (or raised), once it is done."""
        self.join(SCENARIO_TIMEOUT)
        assert not self.is_alive(), f"{self.fn.__name__} did not finish"
        if self.error is not None:
            raise self.error
        return self.result


def error_of(body: JSON, code: int) -> JSON:
    """The JSON-RPC error of a response body, asserted to have ``code``."""
    assert "error" in body, body
    assert "result" not in body
    assert body["error"]["code"] == code, body["error"]
    return body["error"]


def error_info(error: JSON) -> JSON:
    """The one ``google.rpc.ErrorInfo`` of an error (JSON-RPC ``data`` or REST ``details``)."""
    infos = [d for d in error.get("data", error.get("details", [])) if d["@type"] == ERROR_INFO]
    assert len(infos) == 1, error
    return infos[0]


def violated_fields(error: JSON) -> list[str]:
    """The fields a ``google.rpc.BadRequest`` of the error names."""
    return [
        v["field"]
        for d in error.get("data", error.get("details", []))
        if d["@type"] == BAD_REQUEST
        for v in d["fieldViolations"]
    ]


def rest_error(response: Any, status: int, grpc_status: str, reason: str | None = None) -> JSON:
    """The HTTP+JSON error body (google.rpc.Status as JSON) of a response, checked whole;
    ``reason`` is its ErrorInfo's (None: the error has no ErrorInfo)."""
    assert response.status_code == status, response.content
    assert not response.streaming
    assert response["Content-Type"] in ("application/json", "application/a2a+json")
    body = json.loads(response.content)
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"code", "status", "message", "details"}, error
    assert (error["code"], error["status"]) == (status, grpc_status)
    assert isinstance(error["message"], str) and error["message"]
    infos = [d for d in error["details"] if d["@type"] == ERROR_INFO]
    assert [i["reason"] for i in infos] == ([] if reason is None else [reason]), error
    if infos:
        assert infos[0]["domain"] == "a2a-protocol.org"
    return error


def send(
    rpc: Callable[..., JSON],
    text: str = "hello",
    *,
    configuration: JSON | None = None,
    metadata: JSON | None = None,
    headers: dict[str, str] | None = None,
    status: int = 200,
    **message: Any,
) -> JSON:
    """SendMessage through the ``rpc`` fixture: the whole JSON-RPC response body (with
    the HTTP ``status`` asserted)."""
    from a2a_app.testing import A2AClient

    params = A2AClient.send_params(text, None, configuration, metadata, message)
    return rpc("SendMessage", params, headers=headers, status=status)


def new_task(rpc: Callable[..., JSON], text: str = "hello", **kwargs: Any) -> JSON:
    """SendMessage that must answer with a task: the task."""
    body = send(rpc, text, **kwargs)
    assert "result" in body, body
    return body["result"]["task"]


#: The REST route of each v1.0 operation the security tests call: (HTTP method, path with
#: ``{id}`` for a task id).
BINDING_CALLS: dict[str, tuple[str, str]] = {
    "SendMessage": ("POST", "/a2a/rest/message:send"),
    "GetTask": ("GET", "/a2a/rest/tasks/{id}"),
    "CancelTask": ("POST", "/a2a/rest/tasks/{id}:cancel"),
    "ListTasks": ("GET", "/a2a/rest/tasks"),
}


def call_binding(
    client: Any,
    binding: str,
    operation: str,
    params: JSON,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Any:
    """Call a v1.0 operation over ``binding`` ("jsonrpc" or "rest"): the raw response.

    ``params`` are the JSON-RPC params; for REST, ``id`` goes in the path and the rest
    in the body (POST) or the query (GET).
    """
    headers = dict(headers or {})
    if binding == "jsonrpc":
        payload = {"jsonrpc": "2.0", "id": 7, "method": operation, "params": params}
        return client.post(
            "/a2a/jsonrpc",
            json.dumps(payload),
            content_type="application/json",
            headers=headers,
            **extra,
        )
    http_method, path = BINDING_CALLS[operation]
    rest = {k: v for k, v in params.items() if k != "id"}
    path = path.format(id=params.get("id", ""))
    if http_method == "GET":
        return client.get(path, rest, headers=headers, **extra)
    return client.post(
        path, json.dumps(rest), content_type="application/json", headers=headers, **extra
    )


def binding_error(response: Any, binding: str, status: int, reason: str) -> JSON:
    """The error of a response in its binding's shape, checked: HTTP ``status`` and the
    ErrorInfo ``reason`` (JSON-RPC: an error object with an int code; REST: google.rpc)."""
    assert response.status_code == status, response.content
    body = json.loads(response.content)
    if binding == "jsonrpc":
        assert set(body) == {"jsonrpc", "id", "error"}, body
        assert isinstance(body["error"]["code"], int)
        error = body["error"]
    else:
        error = body["error"]
        assert error["code"] == status
    infos = [d for d in error.get("data", error.get("details", [])) if d["@type"] == ERROR_INFO]
    assert [i["reason"] for i in infos] == [reason], error
    return error


def prepared_plans(statement_like: str) -> tuple[int, int]:
    """(generic, custom) plans so far of this connection's one prepared statement whose
    text is LIKE the pattern (PostgreSQL): has it settled on its generic plan?"""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements "
            "WHERE statement LIKE %s",
            [statement_like],
        )
        [(generic, custom)] = cursor.fetchall()
    return generic, custom


def backend_pids(application_name: str) -> list[int]:
    """PostgreSQL backend pids of the test database's connections named ``application_name``."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND application_name = %s",
            [application_name],
        )
        return sorted(pid for (pid,) in cursor.fetchall())


def start_up(app: Any, at_start: Callable[[], Any]) -> Any:
    """Run an ASGI app's lifespan start-up and shutdown; ``at_start()``'s value when the
    app says it has started (called on the server's event loop, before any request)."""
    incoming = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    seen_at_start: list[Any] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0)

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "lifespan.startup.complete":
            seen_at_start.append(at_start())

    asyncio.run(asyncio.wait_for(app({"type": "lifespan"}, receive, send), 10))
    return seen_at_start[0]
