"""Property-based fuzzing of the JSON-RPC endpoint and the REST binding, in process.

Hypothesis builds requests of every kind a hostile or broken client sends: bytes that are
not UTF-8, JSON cut short or with ``NaN``, ``1e400``, 5,000-digit numbers, lone
surrogates, nesting 5,000 deep; envelopes with each member missing or of the wrong type;
batches; valid params of every method and REST route (v1.0 and v0.3) with up to two
nodes replaced by any JSON value or removed, under their own method name or another
dialect's; huge strings; form and text media types; random REST paths, methods, query
strings and bodies. For each, whatever the answer:

* never a 5xx, nor a JSON-RPC ``-32603`` (an internal error is a server error too);
* always a valid error in the binding's format: strict JSON (no ``NaN``), a JSON-RPC
  response with an integer ``code`` and a string ``message``, or the REST body
  ``{"error": {"code", "status", "message", "details"}}`` whose code is the HTTP status;
* a refused request writes no row (tasks, messages, push configs are counted).

``A2A_FUZZ_EXAMPLES`` sets the number of requests per binding (default 1,000, about 15 s
each); runs are reproducible unless ``A2A_FUZZ_RANDOM`` is set. The issue's bar
(10,000 per binding) is ``A2A_FUZZ_EXAMPLES=10000 pytest tests/test_fuzz.py -s``, which
prints how many requests were sent and answered with what.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from copy import deepcopy
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

from a2a_app.bindings import operations
from a2a_app.models import PushConfig, Task, TaskMessage

pytestmark = pytest.mark.django_db

# Hypothesis keeps caches in .hypothesis/ under the working directory: not in the project.
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "a2a-app-hypothesis")

JSON = dict[str, Any]
EXAMPLES = int(os.environ.get("A2A_FUZZ_EXAMPLES", "1000"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not os.environ.get("A2A_FUZZ_RANDOM"),
    database=None,  # nothing written under .hypothesis/
    suppress_health_check=list(HealthCheck),
    report_multiple_bugs=False,
)
RPC = "/a2a/jsonrpc"
REST = "/a2a/rest"
HOOK = "http://127.0.0.1:9/hook"
#: Stands for a raw JSON fragment in a payload until it is serialized (see :func:`text_of`).
SPECIAL = "\x01special\x01"

# --- JSON values ----------------------------------------------------------------------------

EDGE_STRINGS = st.sampled_from(
    [
        "",
        " ",
        "x" * 200,
        "x" * 201,
        "\x00",
        "a\x00b",
        "\ud800",
        "\udfff",
        "\U0001f600",
        "1" * 25,
        "9" * 4400,
        "-1",
        "0",
        "TASK_STATE_WORKING",
        "ROLE_USER",
        "user",
        "sleep 0",
        "input wait",
        "text/plain",
        "*/*",
        "null",
        "NaN",
        "../..",
        "%00",
        "tasks/x",
    ]
)
LONG_STRINGS = st.builds(lambda c, n: c * n, st.sampled_from("xé\u4e2d"), st.integers(0, 70_000))
# Weighted so that most requests get past the first refusal (one lone surrogate or NUL
# anywhere refuses the whole request) and reach the readers and the service.
SURROGATES = st.text(
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3
)
SHORT_STRINGS = st.one_of(*[st.text(max_size=30)] * 6, EDGE_STRINGS)
STRINGS = SHORT_STRINGS | LONG_STRINGS
NUMBERS = st.one_of(
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, -1, 2**31, 2**63, 1e308]),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, STRINGS, STRINGS)
#: A lone surrogate (or a few) as the fragment: in a string, or as an object's key.
SURROGATE_FRAGMENTS = st.builds(
    lambda s, key: json.dumps({s: 1} if key else s), SURROGATES, st.booleans()
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(SHORT_STRINGS, inner, max_size=4),
    max_leaves=8,
)
#: Raw JSON fragments no serializer writes: what SPECIAL is replaced by.
SIZES = st.sampled_from([60, 65, 100, 1000, 4300, 5000])
FRAGMENTS = st.one_of(
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-1e999"]),
    SURROGATE_FRAGMENTS,
    st.builds(lambda n: "9" * n, SIZES),
    st.builds(lambda n: '"' + "9" * n + '"', SIZES),
    st.builds(lambda n: "[" * n + "]" * n, SIZES),
    st.builds(lambda n: '{"a":' * n + "1" + "}" * n, SIZES),
)


def text_of(payload: Any, fragment: str) -> str:
    """JSON text (surrogates escaped) with every SPECIAL value replaced by ``fragment``."""
    return json.dumps(payload).replace(json.dumps(SPECIAL), fragment)


@st.composite
def json_texts(draw: Any, payload: Any) -> str:
    """``payload`` as JSON text; often with a raw fragment in place of one of its nodes."""
    if draw(st.booleans()):
        path = draw(st.sampled_from(list(node_paths(payload))))
        payload = changed(payload, path, SPECIAL, delete=False)
    return text_of(payload, draw(FRAGMENTS))


# --- valid params of every method, to break one field at a time ---------------------------------


def v1_message(**fields: Any) -> JSON:
    return {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}], **fields}


def v03_message(**fields: Any) -> JSON:
    parts = [{"kind": "text", "text": "hi"}]
    return {"kind": "message", "messageId": "m-1", "role": "user", "parts": parts, **fields}


PUSH = {"url": HOOK, "token": "t", "authentication": {"scheme": "Bearer", "credentials": "c"}}
V1_PARAMS: dict[str, JSON] = {
    "SendMessage": {
        "message": v1_message(metadata={"k": "v"}, parts=[{"text": "hi"}, {"data": {"a": 1}}]),
        "configuration": {
            "acceptedOutputModes": ["text/plain"],
            "historyLength": 2,
            "returnImmediately": False,
            "taskPushNotificationConfig": {"id": "c1", **PUSH},
        },
        "metadata": {"skillId": "conformance"},
    },
    "GetTask": {"id": "TASK", "historyLength": 1},
    "ListTasks": {
        "contextId": "ctx",
        "status": "TASK_STATE_WORKING",
        "pageSize": 10,
        "pageToken": "",
        "historyLength": 0,
        "statusTimestampAfter": "2024-01-01T00:00:00Z",
        "includeArtifacts": True,
    },
    "CancelTask": {"id": "TASK", "metadata": {}},
    "SubscribeToTask": {"id": "TASK"},
    "CreateTaskPushNotificationConfig": {"taskId": "TASK", "id": "c1", **PUSH},
    "GetTaskPushNotificationConfig": {"taskId": "TASK", "id": "c1"},
    "ListTaskPushNotificationConfigs": {"taskId": "TASK", "pageSize": 5, "pageToken": "1"},
    "DeleteTaskPushNotificationConfig": {"taskId": "TASK", "id": "c1"},
    "GetExtendedAgentCard": {},
}
V03_PARAMS: dict[str, JSON] = {
    "message/send": {
        "message": v03_message(metadata={"k": 1}),
        "configuration": {"acceptedOutputModes": ["text/plain"], "historyLength": 1},
    },
    "tasks/get": {"id": "TASK", "historyLength": 1},
    "tasks/cancel": {"id": "TASK"},
    "tasks/pushNotificationConfig/set": {
        "taskId": "TASK",
        "pushNotificationConfig": {"id": "c1", "url": HOOK, "token": "t"},
    },
    "tasks/pushNotificationConfig/get": {"id": "TASK", "pushNotificationConfigId": "c1"},
    "tasks/pushNotificationConfig/list": {"id": "TASK"},
    "tasks/pushNotificationConfig/delete": {"id": "TASK", "pushNotificationConfigId": "c1"},
    "tasks/send": {
        "id": "TASK",
        "message": {"role": "user", "parts": [{"type": "text", "text": "hi"}]},
    },
}
V03_PARAMS["message/stream"] = V03_PARAMS["message/send"]
V03_PARAMS["tasks/resubscribe"] = V03_PARAMS["tasks/cancel"]
V1_PARAMS["SendStreamingMessage"] = V1_PARAMS["SendMessage"]
#: REST bodies, by route: v1.0's are the params less what the path carries; v0.3's are
#: the v0.3 proto's JSON.
V03_REST_SEND = {
    "message": {"messageId": "m-1", "role": "ROLE_USER", "content": [{"text": "hi"}]},
    "configuration": {"acceptedOutputModes": ["text/plain"], "historyLength": 1},
}
REST_BODIES: dict[str, JSON] = {
    "message:send": V1_PARAMS["SendMessage"],
    "message:stream": V1_PARAMS["SendMessage"],
    "tasks/{id}:cancel": {"metadata": {"k": "v"}},
    "tasks/{id}/pushNotificationConfigs": {"id": "c1", **PUSH},
    "v1/message:send": V03_REST_SEND,
    "v1/message:stream": V03_REST_SEND,
    "v1/tasks/{id}:cancel": {"name": "tasks/TASK"},
    "v1/tasks/{id}/pushNotificationConfigs": {
        "configId": "c1",
        "config": {"pushNotificationConfig": {"url": HOOK, "token": "t"}},
    },
}
TEMPLATES = {**V1_PARAMS, **V03_PARAMS, **REST_BODIES}
METHODS = sorted(set(operations.V1) | set(operations.V03_JSONRPC))


def node_paths(value: Any, prefix: tuple = ()) -> Iterator[tuple]:
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from node_paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from node_paths(child, (*prefix, index))


def changed(value: Any, path: tuple, new: Any, *, delete: bool) -> Any:
    """A copy of ``value`` with the node at ``path`` replaced by ``new`` (or removed)."""
    if not path:
        return new
    copy = deepcopy(value)
    parent = copy
    for step in path[:-1]:
        parent = parent[step]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return copy


@st.composite
def broken_params(draw: Any, task_id: str, method: str | None = None) -> Any:
    """A method's (or REST route's) valid params, the real task's id in them, with up to
    two nodes changed; another's (another dialect's) when ``method`` has none or by chance."""
    if method not in TEMPLATES or not draw(st.integers(0, 3)):
        method = draw(st.sampled_from(sorted(TEMPLATES)))
    params = json.loads(json.dumps(TEMPLATES[method]).replace('"TASK"', json.dumps(task_id)))
    for _ in range(draw(st.integers(0, 2))):
        path = draw(st.sampled_from(list(node_paths(params))))
        params = changed(params, path, draw(VALUES), delete=bool(path) and draw(st.booleans()))
    return params


# --- JSON-RPC requests ---------------------------------------------------------------------

CONTENT_TYPES = st.sampled_from(
    ["application/json"] * 24
    + [
        "application/a2a+json",
        "application/json; charset=utf-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "text/plain",
        "",
    ]
)
VERSIONS = st.sampled_from([None, None, "1.0", "0.3", "1", "2.0", "", "\u00e9", "0.3, 1.0"])


@st.composite
def envelopes(draw: Any, task_id: str) -> Any:
    """A JSON-RPC request object: each member valid, wrong, absent or extra."""
    envelope: JSON = {}
    jsonrpc = draw(st.one_of(*[st.just("2.0")] * 8, VALUES))
    if draw(st.integers(0, 19)):
        envelope["jsonrpc"] = jsonrpc
    if draw(st.integers(0, 19)):
        envelope["id"] = draw(st.one_of(*[st.integers()] * 3, SHORT_STRINGS, VALUES))
    method = draw(st.one_of(*[st.sampled_from(METHODS)] * 6, VALUES))
    if draw(st.integers(0, 19)):
        envelope["method"] = method
    if draw(st.integers(0, 19)):
        params = broken_params(task_id, method if isinstance(method, str) else None)
        envelope["params"] = draw(st.one_of(*[params] * 6, VALUES))
    if not draw(st.integers(0, 9)):
        envelope[draw(STRINGS)] = draw(VALUES)
    return envelope


@st.composite
def rpc_bodies(draw: Any, task_id: str) -> bytes:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.binary(max_size=200))
    if kind == 1:  # a batch
        payload: Any = draw(st.lists(envelopes(task_id), max_size=3))
    elif kind == 2:
        payload = draw(VALUES)
    else:
        payload = draw(envelopes(task_id))
    text = draw(json_texts(payload))
    if not draw(st.integers(0, 7)) and text:  # cut short, or a byte changed
        cut = draw(st.integers(0, len(text) - 1))
        text = text[:cut] + draw(st.sampled_from(["", "\\", '"', "\x00", "\udc80", "}"]))
    return text.encode("utf-8", "surrogatepass")


# --- the properties -------------------------------------------------------------------------


def rows() -> tuple[int, int, int]:
    return Task.objects.count(), TaskMessage.objects.count(), PushConfig.objects.count()


def strict_json(content: bytes) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in a response")

    return json.loads(content.decode("utf-8"), parse_constant=refuse)


def check_jsonrpc(response: Any) -> int | None:
    """The answer is a JSON-RPC response: its error code (None: a result)."""
    assert response.status_code < 500, response.content[:500]
    assert not response.streaming  # under WSGI a stream is refused
    assert response["Content-Type"] == "application/json", response["Content-Type"]
    body = strict_json(response.content)
    assert body["jsonrpc"] == "2.0", body
    assert ("result" in body) != ("error" in body), body
    assert "id" in body
    if "result" in body:
        assert response.status_code == 200
        return None
    error = body["error"]
    assert type(error["code"]) is int, error
    assert error["code"] != -32603, error
    assert isinstance(error["message"], str) and error["message"], error
    return error["code"]


def check_rest(response: Any, method: str) -> bool:
    """The answer is a REST answer; True when it is an error."""
    assert response.status_code < 500, response.content[:500]
    assert not response.streaming
    if method == "HEAD":  # the test client drops a HEAD answer's body, as servers do
        return response.status_code >= 400
    body = strict_json(response.content)
    if response.status_code < 400:
        return False
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"code", "status", "message", "details"}, error
    assert error["code"] == response.status_code
    assert isinstance(error["status"], str) and error["status"].isupper()
    assert isinstance(error["message"], str) and error["message"]
    assert isinstance(error["details"], list)
    assert all(isinstance(d, dict) and "@type" in d for d in error["details"])
    return True


class Tally:
    """What the fuzzing sent and what came back, printed at the end (``pytest -s``)."""

    def __init__(self, binding: str) -> None:
        self.binding, self.answers, self.started = binding, Counter[Any](), time.monotonic()
        self.server_errors = self.refused_with_rows = 0

    def record(self, status: int, answer: Any, refused: bool, before: tuple, after: tuple) -> None:
        self.answers[answer] += 1
        self.server_errors += status >= 500
        self.refused_with_rows += refused and after != before
        assert not refused or after == before, f"a refused request wrote rows: {before}→{after}"

    def report(self) -> None:
        total = sum(self.answers.values())
        answers = ", ".join(f"{a}: {n}" for a, n in sorted(self.answers.items(), key=str))
        print(
            f"\n{self.binding}: {total} requests in {time.monotonic() - self.started:.1f} s, "
            f"{self.server_errors} 5xx, {self.refused_with_rows} refused requests that wrote "
            f"rows; answers {answers}"
        )


@pytest.fixture
def task_id(client: Client, conformance_mode, dispatched, no_dns) -> str:
    """A real task waiting for input, so that fuzzed ids sometimes name one."""
    body = {"message": {"messageId": "seed", "role": "ROLE_USER", "parts": [{"text": "x"}]}}
    response = client.post(f"{REST}/message:send", body, content_type="application/json")
    return response.json()["task"]["id"]


def test_the_jsonrpc_endpoint_answers_every_request_with_a_jsonrpc_error(client, task_id):
    tally = Tally("JSON-RPC")

    @FUZZ
    @given(
        body=rpc_bodies(task_id),
        content_type=CONTENT_TYPES,
        version=VERSIONS,
        http_method=st.sampled_from(["POST"] * 30 + ["GET", "PUT"]),
    )
    def fuzz(body: bytes, content_type: str, version: str | None, http_method: str) -> None:
        headers = {"CONTENT_TYPE": content_type} if content_type else {}
        if version is not None:
            headers["HTTP_A2A_VERSION"] = version
        before = rows()
        response = client.generic(http_method, RPC, body, **headers)
        code = check_jsonrpc(response)
        answer = "result" if code is None else code
        tally.record(response.status_code, answer, code is not None, before, rows())

    try:
        fuzz()
    finally:
        tally.report()


# --- REST requests ----------------------------------------------------------------------------

#: Every route below the interface with the HTTP methods it takes.
ROUTES: dict[str, tuple[str, ...]] = {
    "message:send": ("POST",),
    "message:stream": ("POST",),
    "tasks": ("GET",),
    "tasks/{id}": ("GET",),
    "tasks/{id}:cancel": ("POST",),
    "tasks/{id}:subscribe": ("GET", "POST"),
    "tasks/{id}/pushNotificationConfigs": ("GET", "POST"),
    "tasks/{id}/pushNotificationConfigs/{config}": ("GET", "DELETE"),
    "extendedAgentCard": ("GET",),
}
ROUTES.update({f"v1/{route}": methods for route, methods in ROUTES.items() if route != "tasks"})
ROUTES.update({"v1/card": ("GET",), "openapi.json": ("GET",)})
HTTP_METHODS = ("GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS")
QUERY_NAMES = st.sampled_from(
    [
        "historyLength",
        "history_length",
        "pageSize",
        "pageToken",
        "contextId",
        "status",
        "statusTimestampAfter",
        "includeArtifacts",
        "A2A-Version",
        "id",
    ]
)
RAW_SEGMENTS = st.sampled_from(["%00", "%ED%A0%80", "%FF", "%2F", "%3A", "..", "%", "%zz"])


@st.composite
def rest_requests(draw: Any, task_id: str) -> tuple[str, str, bytes]:
    """(HTTP method, path, body): mostly a route with one of its methods and a body that
    is that route's, broken; sometimes anything under the interface."""
    if not draw(st.integers(0, 9)):
        path = f"{REST}/{quote(draw(st.text(max_size=40)), safe='/:%')}"
        return draw(st.sampled_from(HTTP_METHODS)), path, draw(rest_bodies(task_id, None))

    def segment() -> str:
        choice = draw(st.integers(0, 5))
        if choice <= 2:
            return task_id
        if choice == 3:
            return draw(RAW_SEGMENTS)
        return quote(draw(SHORT_STRINGS), safe="", errors="replace")

    route = draw(st.sampled_from(sorted(ROUTES)))
    methods = ROUTES[route]
    method = draw(st.sampled_from(methods if draw(st.integers(0, 9)) else HTTP_METHODS))
    path = f"{REST}/{route.format(id=segment(), config=segment())}"
    return method, path, draw(rest_bodies(task_id, route))


@st.composite
def query_strings(draw: Any) -> str:
    if not draw(st.integers(0, 5)):
        return draw(st.sampled_from(["%", "a=%zz", "pageSize=%ED%A0%80", "status=%00", "&&=&"]))
    names = st.one_of(QUERY_NAMES, st.text(max_size=10))
    values = st.one_of(
        SHORT_STRINGS,
        st.sampled_from(["true", "false", "1", "-1", "0", "TASK_STATE_WORKING", "5"]),
    )
    pairs = draw(st.lists(st.tuples(names, values), max_size=4))
    return urlencode(pairs, errors="surrogatepass")


@st.composite
def rest_bodies(draw: Any, task_id: str, route: str | None) -> bytes:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return b""
    if kind == 1:
        return draw(st.binary(max_size=200))
    if kind == 2:
        payload: Any = draw(VALUES)
    else:
        payload = draw(broken_params(task_id, route))
    text = draw(json_texts(payload))
    if not draw(st.integers(0, 7)) and text:
        text = text[: draw(st.integers(0, len(text) - 1))]
    return text.encode("utf-8", "surrogatepass")


def test_the_rest_binding_answers_every_request_with_a_rest_error(client, task_id):
    tally = Tally("REST")

    @FUZZ
    @given(
        request=rest_requests(task_id),
        query=query_strings(),
        content_type=CONTENT_TYPES,
        version=VERSIONS,
    )
    def fuzz(
        request: tuple[str, str, bytes], query: str, content_type: str, version: str | None
    ) -> None:
        http_method, path, body = request
        headers = {"CONTENT_TYPE": content_type} if content_type else {}
        if version is not None:
            headers["HTTP_A2A_VERSION"] = version
        url = f"{path}?{query}" if query else path
        before = rows()
        response = client.generic(http_method, url, body, **headers)
        refused = check_rest(response, http_method)
        tally.record(response.status_code, response.status_code, refused, before, rows())

    try:
        fuzz()
    finally:
        tally.report()
