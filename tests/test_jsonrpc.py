"""The JSON-RPC endpoint as HTTP sees it: envelope, transport errors, versions,
extensions and authentication (spec reference §2.2, §4, §5.9, §5.10, §5.15)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.handlers.wsgi import WSGIRequest
from django.test import AsyncClient, Client, RequestFactory, override_settings

from a2a_app.bindings import jsonrpc
from a2a_app.models import Task
from tests.conftest import user_message

pytestmark = pytest.mark.django_db

ENDPOINT = "/a2a/jsonrpc"
EXTENSION = "https://x/ext"
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"


def post(
    client: Client,
    body: bytes | str,
    *,
    content_type: str = "application/json",
    path: str = ENDPOINT,
    **headers: str,
):
    return client.post(path, body, content_type=content_type, headers=headers)


def envelope(method: str, params: dict[str, Any] | None = None, request_id: Any = 1) -> str:
    payload: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        payload["params"] = params
    return json.dumps(payload)


def error_info(error: dict[str, Any]) -> dict[str, Any]:
    infos = [d for d in error.get("data", []) if d["@type"] == ERROR_INFO]
    assert len(infos) == 1, error
    return infos[0]


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def with_a2a_settings(**overrides: Any):
    return override_settings(A2A_APP={**settings.A2A_APP, **overrides})


# --- envelope ---------------------------------------------------------------------------------


class TestEnvelope:
    def test_success_envelope(self, client, conformance_mode):
        response = post(client, envelope("SendMessage", {"message": user_message("hi")}, "r-1"))
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
        body = response.json()
        assert set(body) == {"jsonrpc", "id", "result"}
        assert body["jsonrpc"] == "2.0"
        assert body["id"] == "r-1"

    def test_body_not_json_is_parse_error_with_null_id(self, client):
        response = post(client, '{"jsonrpc": "2.0", "id": 5, "method": ')
        assert response.status_code == 200
        body = response.json()
        assert body["jsonrpc"] == "2.0"
        assert body["id"] is None
        assert body["error"]["code"] == -32700
        assert "result" not in body

    def test_invalid_utf8_is_parse_error(self, client):
        response = post(client, b'{"jsonrpc":"2.0","id":1,"method":"\xff\xfe"}')
        assert response.status_code == 200
        assert response.json()["error"]["code"] == -32700

    @pytest.mark.parametrize(
        "body",
        [
            "[]",
            json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}]),
        ],
    )
    def test_batch_is_invalid_request(self, client, body):
        response = post(client, body)
        assert response.status_code == 200
        data = response.json()
        assert data["error"]["code"] == -32600
        assert data["error"]["message"] == "Batch requests are not supported"
        assert data["id"] is None

    @pytest.mark.parametrize(
        ("payload", "echoed", "message"),
        [
            ({"id": 3, "method": "GetTask", "params": {"id": "x"}}, 3, 'jsonrpc must be "2.0"'),
            ({"jsonrpc": "1.0", "id": 4, "method": "GetTask"}, 4, 'jsonrpc must be "2.0"'),
            (
                {"jsonrpc": "2.0", "id": "five", "params": {}},
                "five",
                "method must be a non-empty string",
            ),
            ({"jsonrpc": "2.0", "id": 6, "method": 17}, 6, "method must be a non-empty string"),
            (
                {"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": ["x"]},
                7,
                "params must be a JSON object",
            ),
            (
                {"jsonrpc": "2.0", "id": 8, "method": "GetTask", "params": "x"},
                8,
                "params must be a JSON object",
            ),
            (
                {"jsonrpc": "2.0", "method": "GetTask", "params": {"id": "x"}},
                None,
                "id is required: A2A does not define notifications",
            ),
            (
                {"jsonrpc": "2.0", "id": True, "method": "GetTask"},
                None,
                "id must be a string or a number",
            ),
            (
                {"jsonrpc": "2.0", "id": [1], "method": "GetTask"},
                None,
                "id must be a string or a number",
            ),
        ],
    )
    def test_invalid_envelopes_are_invalid_request(self, client, payload, echoed, message):
        response = post(client, json.dumps(payload))
        assert response.status_code == 200
        data = response.json()
        assert data["error"]["code"] == -32600
        assert data["error"]["message"] == message
        assert data["id"] == echoed

    def test_json_scalar_is_invalid_request(self, client):
        response = post(client, "42")
        assert response.status_code == 200
        error = response.json()["error"]
        assert (error["code"], error["message"]) == (-32600, "The request must be a JSON object")

    @pytest.mark.parametrize("request_id", ["req-abc", 42, 0, 3.5])
    def test_unknown_method_echoes_the_id(self, client, request_id):
        response = post(client, envelope("tasks/frobnicate", {"id": "x"}, request_id))
        assert response.status_code == 200
        data = response.json()
        assert data["id"] == request_id
        assert data["error"]["code"] == -32601
        assert data["error"]["message"] == "Method 'tasks/frobnicate' not found"
        assert "data" not in data["error"]  # a standard JSON-RPC error: no ErrorInfo

    @pytest.mark.parametrize("request_id", ["abc-123", 987654321, -1])
    def test_string_and_numeric_ids_are_echoed_on_success(self, rpc, conformance_mode, request_id):
        body = rpc("SendMessage", {"message": user_message("x")}, request_id=request_id)
        assert body["id"] == request_id
        assert "result" in body

    @pytest.mark.parametrize("request_id", ["abc-123", 77])
    def test_ids_are_echoed_on_method_errors(self, rpc, request_id):
        body = rpc("GetTask", {"id": "nope"}, request_id=request_id)
        assert body["id"] == request_id
        assert body["error"]["code"] == -32001

    def test_null_id_is_echoed_as_null(self, rpc):
        body = rpc("GetTask", {"id": "nope"}, request_id=None)
        assert body["id"] is None
        assert body["error"]["code"] == -32001

    def test_missing_params_is_treated_as_empty(self, rpc):
        body = rpc("GetExtendedAgentCard", None)
        assert body["error"]["code"] == -32004

    def test_unexpected_exception_is_internal_error(self, rpc, monkeypatch, caplog):
        from a2a_app.bindings import operations as binding

        def explode(request, caller):
            raise RuntimeError("secret internals")

        exploding = binding.Method(binding.Operation(None, explode))
        monkeypatch.setitem(binding.V1, "GetTask", exploding)
        with caplog.at_level("ERROR", logger="a2a_app"):
            body = rpc("GetTask", {"id": "x"}, request_id="boom")
        assert body["id"] == "boom"
        assert body["error"]["code"] == -32603
        assert body["error"]["message"] == "Internal error"
        assert "secret internals" not in json.dumps(body)
        # The operator learns what happened: the log has the exception.
        [record] = [r for r in caplog.records if r.name == "a2a_app"]
        assert record.getMessage() == "Unexpected error in JSON-RPC method"
        assert "secret internals" in str(record.exc_info[1])

    def test_an_operations_headers_go_with_its_answer(self, client, monkeypatch):
        from a2a_app.bindings import operations as binding

        def answer_it(params, caller):
            return {"id": params["id"]}

        headers = (("Cache-Control", "private"), ("Vary", "Authorization"))
        method = binding.Method(binding.Operation(None, answer_it, headers=headers))
        monkeypatch.setitem(binding.V1, "GetTask", method)
        response = post(client, envelope("GetTask", {"id": "t-1"}, "h"))
        assert response.json() == {"jsonrpc": "2.0", "id": "h", "result": {"id": "t-1"}}
        assert (response["Cache-Control"], response["Vary"]) == ("private", "Authorization")


# --- transport ----------------------------------------------------------------------------


class TestTransport:
    @pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded"])
    def test_wrong_content_type(self, client, content_type):
        response = post(client, envelope("GetTask", {"id": "x"}), content_type=content_type)
        assert response.status_code == 200
        error = response.json()["error"]
        assert error["code"] == -32005
        assert error_info(error)["reason"] == "CONTENT_TYPE_NOT_SUPPORTED"

    def test_no_content_type(self):
        request = RequestFactory().post(
            ENDPOINT, envelope("GetTask", {"id": "x"}), content_type="application/json"
        )
        environ = dict(request.environ)
        del environ["CONTENT_TYPE"]
        response = jsonrpc.jsonrpc(WSGIRequest(environ))
        assert response.status_code == 200
        error = json.loads(response.content)["error"]
        assert error["code"] == -32005
        assert error_info(error)["metadata"]["contentType"] == "none"

    def test_empty_content_type(self, client):
        response = post(client, envelope("GetTask", {"id": "x"}), content_type="")
        assert response.status_code == 200
        assert response.json()["error"]["code"] == -32005

    @pytest.mark.parametrize(
        "content_type",
        ["application/a2a+json", "application/json; charset=utf-8", "Application/JSON"],
    )
    def test_json_media_types_are_accepted(self, client, content_type):
        response = post(client, envelope("GetTask", {"id": "x"}, 9), content_type=content_type)
        assert response.status_code == 200
        assert response.json()["error"]["code"] == -32001  # got as far as the method

    def test_oversize_body_is_413_with_a_jsonrpc_error(self, client):
        big = envelope("GetTask", {"id": "x" * 500})
        with with_a2a_settings(MAX_REQUEST_BYTES=100):
            response = post(client, big)
        assert response.status_code == 413
        assert response["Content-Type"] == "application/json"
        data = response.json()
        assert data["jsonrpc"] == "2.0"
        assert data["id"] is None
        assert data["error"]["code"] == -32600
        assert error_info(data["error"])["metadata"]["maxBytes"] == "100"

    def test_body_at_the_limit_is_accepted(self, client):
        body = envelope("GetTask", {"id": "x"})
        with with_a2a_settings(MAX_REQUEST_BYTES=len(body.encode())):
            response = post(client, body)
        assert response.status_code == 200
        assert response.json()["error"]["code"] == -32001

    @pytest.mark.parametrize("method", ["get", "put", "delete"])
    def test_other_http_methods_are_405(self, client, method):
        response = getattr(client, method)(ENDPOINT)
        assert response.status_code == 405
        assert response["Allow"] == "POST"
        assert response["Content-Type"] == "application/json"
        error = response.json()["error"]
        assert error["code"] == -32600
        assert error["message"] == "The JSON-RPC endpoint accepts POST only"

    @pytest.mark.parametrize("path", ["/a2a/jsonrpc", "/a2a/jsonrpc/"])
    def test_both_paths_answer(self, client, path, conformance_mode):
        response = post(client, envelope("SendMessage", {"message": user_message("hi")}), path=path)
        assert response.status_code == 200
        result = response.json()["result"]
        assert result["task"]["status"]["state"] == "TASK_STATE_COMPLETED"

    def test_csrf_does_not_apply(self, conformance_mode):
        strict = Client(enforce_csrf_checks=True)
        response = post(strict, envelope("SendMessage", {"message": user_message("hi")}))
        assert response.status_code == 200
        assert "result" in response.json()

    @pytest.mark.parametrize(
        "body",
        [
            "not json",
            "[]",
            '{"jsonrpc":"2.0","id":1}',
            envelope("NoSuchMethod"),
            envelope("GetTask", {}),
            envelope("GetTask", {"id": "missing"}),
            envelope("CancelTask", {"id": "missing"}),
            envelope("SendStreamingMessage", {}),
            envelope("CreateTaskPushNotificationConfig", {}),
            envelope("SendMessage", {"message": {"role": "ROLE_USER"}}),
        ],
    )
    def test_jsonrpc_errors_are_http_200(self, client, body):
        response = post(client, body)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
        assert "error" in response.json()

    def test_version_errors_are_http_200(self, client):
        response = post(client, envelope("GetTask", {"id": "x"}), **{"A2A-Version": "0.3"})
        assert response.status_code == 200
        assert response.json()["error"]["code"] == -32009


# --- versions -----------------------------------------------------------------------------


class TestVersions:
    @pytest.mark.parametrize("version", ["1.0", "1.0.1"])
    def test_supported_header(self, rpc, conformance_mode, version):
        body = rpc("SendMessage", {"message": user_message("v")}, headers={"A2A-Version": version})
        assert body["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"

    def test_absent_header(self, rpc, conformance_mode):
        body = rpc("SendMessage", {"message": user_message("v")})
        assert "result" in body

    @pytest.mark.parametrize("version", ["0.3", "2.0"])
    def test_unsupported_header(self, rpc, conformance_mode, version):
        body = rpc(
            "SendMessage",
            {"message": user_message("v")},
            headers={"A2A-Version": version},
            request_id="ver",
        )
        assert body["id"] == "ver"
        error = body["error"]
        assert error["code"] == -32009
        info = error_info(error)
        assert info["reason"] == "VERSION_NOT_SUPPORTED"
        assert info["domain"] == "a2a-protocol.org"
        assert info["metadata"]["supportedVersions"] == "0.3, 1.0"
        assert info["metadata"]["requestedVersion"] == version
        assert Task.objects.count() == 0

    @pytest.mark.parametrize("version", ["1.0", " 1.0.2 "])
    def test_a_v0_3_method_under_1_0_is_not_found(self, rpc, version):
        body = rpc("message/send", {}, headers={"A2A-Version": version}, request_id="old")
        assert body["id"] == "old"
        assert body["error"] == {
            "code": -32601,
            "message": f"'message/send' is a v0.3 method; A2A-Version {version.strip()} "
            "has no such method",
        }
        assert Task.objects.count() == 0

    def test_query_parameter(self, client, conformance_mode):
        body = envelope("SendMessage", {"message": user_message("q")})
        ok = post(client, body, path=ENDPOINT + "?A2A-Version=1.0")
        assert ok.status_code == 200
        assert ok.json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
        refused = post(client, body, path=ENDPOINT + "?A2A-Version=0.3")
        assert refused.json()["error"]["code"] == -32009


# --- extensions ---------------------------------------------------------------------------


class TestExtensions:
    @pytest.fixture
    def required_extension(self, conformance_mode):
        with with_a2a_settings(EXTENSIONS=[{"uri": EXTENSION, "required": True}]):
            yield

    def test_required_extension_missing(self, rpc, required_extension):
        body = rpc("SendMessage", {"message": user_message("x")}, request_id="ext")
        assert body["id"] == "ext"
        error = body["error"]
        assert error["code"] == -32008
        info = error_info(error)
        assert info["reason"] == "EXTENSION_SUPPORT_REQUIRED"
        assert info["metadata"]["extension"] == EXTENSION
        assert Task.objects.count() == 0

    def test_other_extension_does_not_satisfy(self, rpc, required_extension):
        body = rpc(
            "SendMessage",
            {"message": user_message("x")},
            headers={"A2A-Extensions": "https://other/ext"},
        )
        assert body["error"]["code"] == -32008

    @pytest.mark.parametrize(
        "header", [EXTENSION, f"https://other/ext, {EXTENSION}", f" {EXTENSION} ,"]
    )
    def test_required_extension_requested(self, client, required_extension, header):
        response = post(
            client,
            envelope("SendMessage", {"message": user_message("x")}),
            **{"A2A-Extensions": header},
        )
        assert response.status_code == 200
        assert response.json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
        assert response["A2A-Extensions"] == EXTENSION

    def test_no_echo_when_nothing_activated(self, client, conformance_mode):
        response = post(
            client,
            envelope("SendMessage", {"message": user_message("x")}),
            **{"A2A-Extensions": "https://unknown/ext"},
        )
        assert response.status_code == 200
        assert "result" in response.json()
        assert not response.has_header("A2A-Extensions")

    def test_optional_extension_is_echoed_only_when_requested(self, client, conformance_mode):
        with with_a2a_settings(EXTENSIONS=[{"uri": EXTENSION, "required": False}]):
            plain = post(client, envelope("SendMessage", {"message": user_message("x")}))
            asked = post(
                client,
                envelope("SendMessage", {"message": user_message("x")}),
                **{"A2A-Extensions": EXTENSION},
            )
        assert "result" in plain.json()
        assert not plain.has_header("A2A-Extensions")
        assert asked["A2A-Extensions"] == EXTENSION


# --- authentication -----------------------------------------------------------------------


@pytest.fixture
def alice():
    return get_user_model().objects.create_user("alice", password="alice-pw")


@pytest.fixture
def bob():
    return get_user_model().objects.create_user("bob", password="bob-pw")


ALICE = {"Authorization": basic("alice", "alice-pw")}
BOB = {"Authorization": basic("bob", "bob-pw")}


def start(rpc, headers=None, text="input please", **fields) -> dict[str, Any]:
    body = rpc("SendMessage", {"message": user_message(text, **fields)}, headers=headers)
    return body["result"]["task"]


class TestAuthentication:
    def test_basic_credentials_own_the_task(self, rpc, conformance_mode, alice):
        task = start(rpc, ALICE, text="hello")
        assert Task.objects.get(pk=task["id"]).owner == f"user:{alice.pk}"
        assert rpc("GetTask", {"id": task["id"]}, headers=ALICE)["result"]["id"] == task["id"]

    def test_anonymous_task_has_empty_owner(self, rpc, conformance_mode):
        task = start(rpc, text="hello")
        assert Task.objects.get(pk=task["id"]).owner == ""

    @pytest.mark.parametrize(
        "authorization",
        [basic("alice", "wrong"), basic("nobody", "x"), "Basic !!!not-base64", "Basic"],
    )
    def test_invalid_credentials_are_401(self, client, conformance_mode, alice, authorization):
        response = post(
            client,
            envelope("SendMessage", {"message": user_message("x")}, "auth"),
            Authorization=authorization,
        )
        assert response.status_code == 401
        assert response["WWW-Authenticate"].startswith("Basic")
        assert response["Content-Type"] == "application/json"
        data = response.json()
        assert data["id"] == "auth"
        assert isinstance(data["error"]["code"], int)
        assert error_info(data["error"])["reason"] == "UNAUTHENTICATED"
        assert Task.objects.count() == 0

    def test_inactive_user_is_401(self, client, alice):
        alice.is_active = False
        alice.save()
        response = post(client, envelope("GetTask", {"id": "x"}), **ALICE)
        assert response.status_code == 401

    def test_foreign_task_is_not_found(self, rpc, conformance_mode, alice, bob):
        task = start(rpc, ALICE)
        assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        for headers in (BOB, None):
            got = rpc("GetTask", {"id": task["id"]}, headers=headers)
            assert got["error"]["code"] == -32001
            assert error_info(got["error"])["metadata"]["taskId"] == task["id"]
            canceled = rpc("CancelTask", {"id": task["id"]}, headers=headers)
            assert canceled["error"]["code"] == -32001
            follow_up = rpc(
                "SendMessage",
                {"message": user_message("more", taskId=task["id"])},
                headers=headers,
            )
            assert follow_up["error"]["code"] == -32001
        # Nothing happened to it.
        still = rpc("GetTask", {"id": task["id"]}, headers=ALICE)["result"]
        assert still["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        assert len(still["history"]) == 2

    def test_anonymous_task_is_not_found_for_users(self, rpc, conformance_mode, alice):
        task = start(rpc)
        assert rpc("GetTask", {"id": task["id"]}, headers=ALICE)["error"]["code"] == -32001
        assert rpc("GetTask", {"id": task["id"]})["result"]["id"] == task["id"]

    def test_list_tasks_shows_only_own_tasks_across_contexts(
        self, rpc, conformance_mode, alice, bob
    ):
        mine = {
            start(rpc, ALICE, text="a1", contextId="ctx-1")["id"],
            start(rpc, ALICE, text="a2", contextId="ctx-2")["id"],
            start(rpc, ALICE, text="a3")["id"],
        }
        start(rpc, BOB, text="b1", contextId="ctx-1")
        start(rpc, text="anon", contextId="ctx-1")
        listed = rpc("ListTasks", {}, headers=ALICE)["result"]
        assert {t["id"] for t in listed["tasks"]} == mine
        assert listed["totalSize"] == 3
        in_ctx = rpc("ListTasks", {"contextId": "ctx-1"}, headers=ALICE)["result"]
        assert [t["contextId"] for t in in_ctx["tasks"]] == ["ctx-1"]
        assert in_ctx["tasks"][0]["id"] in mine

    def test_anonymous_list_without_context_is_empty(self, rpc, conformance_mode):
        start(rpc, text="anon 1")
        start(rpc, text="anon 2", contextId="c")
        result = rpc("ListTasks", {})["result"]
        assert result == {"tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0}

    def test_anonymous_list_with_context_sees_only_anonymous_tasks_there(
        self, rpc, conformance_mode, alice
    ):
        anon = start(rpc, text="anon")
        shared = anon["contextId"]  # generated: anonymous callers list no other kind
        start(rpc, text="other", contextId="elsewhere")
        start(rpc, ALICE, text="alice", contextId=shared)
        result = rpc("ListTasks", {"contextId": shared})["result"]
        assert [t["id"] for t in result["tasks"]] == [anon["id"]]
        assert result["totalSize"] == 1
        assert result["nextPageToken"] == ""

    def test_without_authentication_classes_everyone_is_anonymous(
        self, rpc, conformance_mode, alice
    ):
        with with_a2a_settings(AUTHENTICATION_CLASSES=[]):
            task = start(rpc, {"Authorization": basic("alice", "wrong")}, text="hi")
        assert Task.objects.get(pk=task["id"]).owner == ""


# --- streams: each frame a JSON-RPC response to the request -------------------------------


def run_streams(scenario):
    from tests.test_streaming import run

    return run(scenario())


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("conformance_mode")
class TestStreamFrames:
    @pytest.mark.parametrize("request_id", ["s-1", 7])
    def test_every_frame_answers_the_request(self, request_id):
        from tests.test_streaming import open_stream, run, send_params

        async def scenario():
            stream = await open_stream(
                AsyncClient(), "SendStreamingMessage", send_params("hello"), request_id=request_id
            )
            await stream.rest()
            return stream.data

        frames = run(scenario())
        assert [f["id"] for f in frames] == [request_id] * len(frames)
        assert [f["jsonrpc"] for f in frames] == ["2.0"] * len(frames)
        # v1.0 events: one member naming the event (no v0.3 "kind").
        assert list(frames[0]["result"]) == ["task"]
        last = frames[-1]["result"]["statusUpdate"]
        assert last["status"]["state"] == "TASK_STATE_COMPLETED"

    def test_a_finished_stream_gives_its_slot_back(self, settings):
        from tests.test_streaming import stream_all

        settings.A2A_APP = {**settings.A2A_APP, "MAX_STREAMS_PER_CALLER": 1}

        async def scenario():
            client = AsyncClient()
            return [
                await stream_all(client, "SendStreamingMessage", {"message": user_message(t)})
                for t in ("one", "two")
            ]

        first, second = run_streams(scenario)
        for stream in (first, second):
            assert stream.data[-1]["result"]["statusUpdate"]["status"]["state"] == (
                "TASK_STATE_COMPLETED"
            )

    def test_a_stream_names_the_extensions_it_activated(self, settings):
        from tests.test_streaming import apost, run

        uri = "https://example.com/ext/optional"
        settings.A2A_APP = {**settings.A2A_APP, "EXTENSIONS": [{"uri": uri}]}

        async def scenario():
            response = await apost(
                AsyncClient(),
                "SendStreamingMessage",
                {"message": user_message("hello")},
                headers={"A2A-Extensions": uri},
            )
            async for _ in response.streaming_content:
                pass
            return response

        response = run(scenario())
        assert response["Content-Type"] == "text/event-stream"
        assert response["A2A-Extensions"] == uri

    def test_a_v0_3_stream_speaks_v0_3(self):
        from tests.test_streaming import open_stream, run
        from tests.test_v03_jsonrpc import message as v03_message

        async def scenario():
            stream = await open_stream(
                AsyncClient(), "message/stream", {"message": v03_message("hello")}, request_id=3
            )
            while await stream.frame() is not None:
                pass
            return stream.data

        frames = run(scenario())
        assert {f["id"] for f in frames} == {3}
        assert frames[0]["result"]["kind"] == "task"
        assert frames[-1]["result"]["kind"] == "status-update"
        assert frames[-1]["result"]["status"]["state"] == "completed"
