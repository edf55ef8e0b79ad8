"""The wire protocol without Django: parsing, serializing, errors and version negotiation.

These tests need no database: ``a2a_app.protocol`` imports nothing from Django.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from a2a_app.protocol import errors
from a2a_app.protocol import jsonrpc_envelope as envelope
from a2a_app.protocol.errors import (
    BAD_REQUEST_TYPE,
    ERROR_DOMAIN,
    ERROR_INFO_TYPE,
    A2AError,
    FieldViolation,
    InvalidParamsError,
    TaskNotFoundError,
    VersionNotSupportedError,
)
from a2a_app.protocol.params import (
    DEFAULT_PAGE_SIZE,
    GetTaskRequest,
    ListTasksRequest,
    SendMessageRequest,
    TaskIdRequest,
)
from a2a_app.protocol.types import Artifact, Message, Part, Role, TaskState, parse_task_state
from a2a_app.protocol.versions import SUPPORTED_VERSIONS, V1_0, negotiate
from a2a_app.protocol.wire import PROTOJSON, format_timestamp, parse_timestamp

read_int = PROTOJSON.read_int


def violation_fields(error: A2AError) -> list[str]:
    return [v.field for v in error.violations]


def wire_message(**fields):
    message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    message.update(fields)
    return message


# --- Part -----------------------------------------------------------------------------------


class TestPart:
    @pytest.mark.parametrize(
        ("wire", "kind", "content"),
        [
            ({"text": "hello"}, "text", "hello"),
            ({"text": ""}, "text", ""),
            ({"url": "https://example.com/a.pdf"}, "url", "https://example.com/a.pdf"),
            ({"data": {"k": [1, 2]}}, "data", {"k": [1, 2]}),
            ({"data": [1, "two"]}, "data", [1, "two"]),
            ({"data": None}, "data", None),
            ({"raw": "aGVsbG8="}, "raw", "aGVsbG8="),
        ],
    )
    def test_each_oneof_member_is_accepted(self, wire, kind, content):
        part = Part.from_wire(wire, "message.parts[0]")
        assert part.kind == kind
        assert part.content == content

    @pytest.mark.parametrize(
        "wire",
        [{}, {"mediaType": "text/plain"}, {"kind": "text"}, {"file": {"bytes": "aGk="}}],
    )
    def test_no_member_is_an_error_naming_the_part(self, wire):
        with pytest.raises(InvalidParamsError) as info:
            Part.from_wire(wire, "message.parts[0]")
        assert violation_fields(info.value) == ["message.parts[0]"]
        assert "message.parts[0]" in info.value.message

    @pytest.mark.parametrize(
        "wire",
        [
            {"text": "a", "data": {"b": 1}},
            {"text": "a", "url": "https://x"},
            {"raw": "aGk=", "url": "https://x"},
        ],
    )
    def test_two_members_is_an_error_naming_the_part(self, wire):
        with pytest.raises(InvalidParamsError) as info:
            Part.from_wire(wire, "message.parts[0]")
        assert violation_fields(info.value) == ["message.parts[0]"]

    def test_error_path_names_the_failing_part_index_through_a_message(self):
        wire = wire_message(parts=[{"text": "ok"}, {"text": "a", "data": 1}])
        with pytest.raises(InvalidParamsError) as info:
            Message.from_wire(wire)
        assert violation_fields(info.value) == ["message.parts[1]"]

    def test_part_must_be_an_object(self):
        with pytest.raises(InvalidParamsError) as info:
            Part.from_wire("hello", "message.parts[0]")
        assert violation_fields(info.value) == ["message.parts[0]"]

    @pytest.mark.parametrize(("kind", "value"), [("text", 5), ("url", ["x"])])
    def test_text_and_url_must_be_strings(self, kind, value):
        with pytest.raises(InvalidParamsError) as info:
            Part.from_wire({kind: value}, "message.parts[0]")
        assert violation_fields(info.value) == [f"message.parts[0].{kind}"]

    @pytest.mark.parametrize(
        ("given", "expected"),
        [
            # standard, padded: unchanged
            ("aGk/Pz4+", "aGk/Pz4+"),
            # URL-safe alphabet in, standard alphabet out
            ("aGk_Pz4-", "aGk/Pz4+"),
            # unpadded in, padded out
            ("aGk", "aGk="),
            ("aA", "aA=="),
            # URL-safe and unpadded at once
            ("-_8", "+/8="),
        ],
    )
    def test_raw_is_normalized_to_standard_padded_base64(self, given, expected):
        part = Part.from_wire({"raw": given}, "message.parts[0]")
        assert part.content == expected
        # Same bytes as the client meant.
        urlsafe = given.replace("+", "-").replace("/", "_")
        assert base64.b64decode(part.content) == base64.urlsafe_b64decode(
            urlsafe + "=" * (-len(urlsafe) % 4)
        )
        assert part.to_wire() == {"raw": expected}

    @pytest.mark.parametrize("given", ["not base64!", "a", "aGk=aGk=x", "ä", 42])
    def test_invalid_base64_is_an_error_naming_raw(self, given):
        with pytest.raises(InvalidParamsError) as info:
            Part.from_wire({"raw": given}, "message.parts[2]")
        assert violation_fields(info.value) == ["message.parts[2].raw"]

    def test_common_fields_round_trip_in_camel_case(self):
        wire = {
            "raw": "aGk=",
            "media_type": "text/plain",
            "filename": "a.txt",
            "metadata": {"x": 1},
        }
        part = Part.from_wire(wire, "p")
        assert (part.media_type, part.filename, part.metadata) == ("text/plain", "a.txt", {"x": 1})
        assert part.to_wire() == {
            "raw": "aGk=",
            "mediaType": "text/plain",
            "filename": "a.txt",
            "metadata": {"x": 1},
        }

    def test_to_wire_omits_default_common_fields_but_keeps_empty_text(self):
        assert Part.text_part("").to_wire() == {"text": ""}
        assert Part.data_part({"a": 1}).to_wire() == {
            "data": {"a": 1},
            "mediaType": "application/json",
        }


# --- Message --------------------------------------------------------------------------------


class TestMessage:
    def test_camel_case_input(self):
        message = Message.from_wire(
            wire_message(contextId="c1", taskId="t1", referenceTaskIds=["t0"], extensions=["u"])
        )
        assert message.message_id == "m1"
        assert message.role is Role.USER
        assert (message.context_id, message.task_id) == ("c1", "t1")
        assert message.reference_task_ids == ["t0"]
        assert message.extensions == ["u"]

    def test_snake_case_input_is_accepted(self):
        message = Message.from_wire(
            {
                "message_id": "m-snake",
                "role": "ROLE_USER",
                "parts": [{"text": "x"}],
                "context_id": "ctx-snake",
                "task_id": "task-snake",
                "reference_task_ids": ["r1"],
            }
        )
        assert message.message_id == "m-snake"
        assert message.context_id == "ctx-snake"
        assert message.task_id == "task-snake"
        assert message.reference_task_ids == ["r1"]
        # ...and is emitted in camelCase only.
        wire = message.to_wire()
        assert wire["messageId"] == "m-snake"
        assert wire["contextId"] == "ctx-snake"
        assert wire["taskId"] == "task-snake"
        assert wire["referenceTaskIds"] == ["r1"]
        assert not any("_" in key for key in wire)

    @pytest.mark.parametrize(("number", "role"), [(1, Role.USER), (2, Role.AGENT)])
    def test_role_enum_numbers_are_accepted(self, number, role):
        message = Message.from_wire(wire_message(role=number))
        assert message.role is role
        assert message.to_wire()["role"] == role.value

    @pytest.mark.parametrize("role", ["user", "ROLE_UNSPECIFIED", 0, 9, None, "", ["ROLE_USER"]])
    def test_bad_role_is_an_error_naming_message_role(self, role):
        wire = wire_message(role=role)
        with pytest.raises(InvalidParamsError) as info:
            Message.from_wire(wire)
        assert violation_fields(info.value) == ["message.role"]

    def test_boolean_role_is_an_error(self):
        with pytest.raises(InvalidParamsError) as info:
            Message.from_wire(wire_message(role=True))
        assert violation_fields(info.value) == ["message.role"]

    def test_missing_role_is_an_error_naming_message_role(self):
        wire = wire_message()
        del wire["role"]
        with pytest.raises(InvalidParamsError) as info:
            Message.from_wire(wire)
        assert violation_fields(info.value) == ["message.role"]

    @pytest.mark.parametrize("message_id", [None, ""])
    def test_message_id_is_required(self, message_id):
        wire = wire_message(messageId=message_id)
        with pytest.raises(InvalidParamsError) as info:
            Message.from_wire(wire)
        assert violation_fields(info.value) == ["message.messageId"]

    @pytest.mark.parametrize("parts", [None, [], {"text": "x"}])
    def test_parts_must_be_a_non_empty_list(self, parts):
        wire = wire_message(parts=parts)
        with pytest.raises(InvalidParamsError) as info:
            Message.from_wire(wire)
        assert violation_fields(info.value) == ["message.parts"]

    def test_message_must_be_an_object(self):
        with pytest.raises(InvalidParamsError) as info:
            Message.from_wire(["not", "an", "object"])
        assert violation_fields(info.value) == ["message"]

    def test_to_wire_omits_unset_fields(self):
        wire = Message.from_wire(wire_message()).to_wire()
        assert wire == {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}

    def test_text_joins_text_parts_only(self):
        message = Message.from_wire(
            wire_message(parts=[{"text": "a"}, {"data": {"x": 1}}, {"text": "b"}])
        )
        assert message.text == "a\nb"


class TestArtifact:
    def test_round_trip(self):
        wire = {"artifactId": "a1", "name": "n", "parts": [{"text": "t"}]}
        assert Artifact.from_wire(wire).to_wire() == wire

    def test_artifact_id_is_required(self):
        with pytest.raises(InvalidParamsError) as info:
            Artifact.from_wire({"parts": [{"text": "t"}]})
        assert violation_fields(info.value) == ["artifact.artifactId"]


# --- enums, timestamps, integers ------------------------------------------------------------


class TestTaskState:
    @pytest.mark.parametrize(
        ("value", "state"),
        [
            ("TASK_STATE_COMPLETED", TaskState.COMPLETED),
            (3, TaskState.COMPLETED),
            (1, TaskState.SUBMITTED),
            (6, TaskState.INPUT_REQUIRED),
            (7, TaskState.REJECTED),
            (8, TaskState.AUTH_REQUIRED),
        ],
    )
    def test_names_and_numbers_are_accepted(self, value, state):
        assert parse_task_state(value, "status") is state

    @pytest.mark.parametrize("value", ["TASK_STATE_UNSPECIFIED", 0])
    def test_unspecified_means_no_state(self, value):
        assert parse_task_state(value, "status") is None

    @pytest.mark.parametrize("value", ["completed", "TASK_STATE_CANCELLED", 42, -1])
    def test_unknown_states_are_errors_naming_the_field(self, value):
        with pytest.raises(InvalidParamsError) as info:
            parse_task_state(value, "status")
        assert violation_fields(info.value) == ["status"]

    def test_boolean_state_is_an_error(self):
        with pytest.raises(InvalidParamsError) as info:
            parse_task_state(True, "status")
        assert violation_fields(info.value) == ["status"]

    def test_terminal_and_interrupted_classes(self):
        terminal = {s for s in TaskState if s.is_terminal}
        interrupted = {s for s in TaskState if s.is_interrupted}
        assert terminal == {
            TaskState.COMPLETED,
            TaskState.FAILED,
            TaskState.CANCELED,
            TaskState.REJECTED,
        }
        assert interrupted == {TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED}


class TestTimestamps:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("2025-10-28T10:30:00Z", datetime(2025, 10, 28, 10, 30, tzinfo=UTC)),
            ("2025-10-28T10:30:00.5Z", datetime(2025, 10, 28, 10, 30, 0, 500000, tzinfo=UTC)),
            ("2025-10-28T10:30:00.123Z", datetime(2025, 10, 28, 10, 30, 0, 123000, tzinfo=UTC)),
            (
                "2025-10-28T10:30:00.123456789Z",
                datetime(2025, 10, 28, 10, 30, 0, 123456, tzinfo=UTC),
            ),
            ("2025-10-28T12:30:00+02:00", datetime(2025, 10, 28, 10, 30, tzinfo=UTC)),
            ("2025-10-28T05:30:00.250-05:00", datetime(2025, 10, 28, 10, 30, 0, 250000, UTC)),
            # No offset: taken as UTC.
            ("2025-10-28T10:30:00", datetime(2025, 10, 28, 10, 30, tzinfo=UTC)),
        ],
    )
    def test_parse_is_lenient_and_returns_utc(self, text, expected):
        parsed = parse_timestamp(text, "statusTimestampAfter")
        assert parsed == expected
        assert parsed.utcoffset() == timedelta(0)

    @pytest.mark.parametrize("value", ["yesterday", "2025-13-01T00:00:00Z", 1700000000, None])
    def test_parse_rejects_non_timestamps_naming_the_field(self, value):
        with pytest.raises(InvalidParamsError) as info:
            parse_timestamp(value, "statusTimestampAfter")
        assert violation_fields(info.value) == ["statusTimestampAfter"]

    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            (datetime(2025, 10, 28, 10, 30, tzinfo=UTC), "2025-10-28T10:30:00.000Z"),
            (datetime(2025, 10, 28, 10, 30, 0, 123987, tzinfo=UTC), "2025-10-28T10:30:00.123Z"),
            (
                datetime(2025, 10, 28, 12, 30, 0, 5000, tzinfo=timezone(timedelta(hours=2))),
                "2025-10-28T10:30:00.005Z",
            ),
        ],
    )
    def test_format_is_utc_with_milliseconds_and_z(self, value, expected):
        assert format_timestamp(value) == expected

    def test_format_then_parse_round_trips_to_the_millisecond(self):
        value = datetime(2024, 2, 29, 23, 59, 59, 999000, tzinfo=UTC)
        assert parse_timestamp(format_timestamp(value), "t") == value


class TestReadInt:
    @pytest.mark.parametrize(("value", "expected"), [(5, 5), ("5", 5), (" 12 ", 12), ("-3", -3)])
    def test_numbers_and_numeric_strings(self, value, expected):
        assert read_int({"pageSize": value}, "pageSize", "") == expected

    def test_snake_case_name_is_read(self):
        assert read_int({"page_size": "7"}, "pageSize", "") == 7

    def test_absent_is_none(self):
        assert read_int({}, "pageSize", "") is None

    @pytest.mark.parametrize("value", [True, False, 1.5, "1.5", "ten", [], {}])
    def test_non_integers_and_bools_are_rejected(self, value):
        with pytest.raises(InvalidParamsError) as info:
            read_int({"historyLength": value}, "historyLength", "configuration")
        assert violation_fields(info.value) == ["configuration.historyLength"]

    def test_bounds(self):
        assert read_int({"n": 1}, "n", "", minimum=1, maximum=100) == 1
        assert read_int({"n": "100"}, "n", "", minimum=1, maximum=100) == 100
        for bad in (0, 101, "-1"):
            with pytest.raises(InvalidParamsError) as info:
                read_int({"n": bad}, "n", "", minimum=1, maximum=100)
            assert violation_fields(info.value) == ["n"]


# --- request objects ------------------------------------------------------------------------


class TestRequests:
    def test_send_message_request_snake_case_configuration(self):
        request = SendMessageRequest.from_wire(
            {
                "message": wire_message(),
                "configuration": {
                    "accepted_output_modes": ["text/plain"],
                    "history_length": "2",
                    "return_immediately": True,
                },
                "metadata": {"skillId": "x"},
            }
        )
        assert request.configuration.accepted_output_modes == ["text/plain"]
        assert request.configuration.history_length == 2
        assert request.configuration.return_immediately is True
        assert request.metadata == {"skillId": "x"}

    def test_send_message_request_requires_message(self):
        with pytest.raises(InvalidParamsError) as info:
            SendMessageRequest.from_wire({})
        assert violation_fields(info.value) == ["message"]

    def test_send_message_request_rejects_agent_messages(self):
        with pytest.raises(InvalidParamsError) as info:
            SendMessageRequest.from_wire({"message": wire_message(role="ROLE_AGENT")})
        assert violation_fields(info.value) == ["message.role"]

    def test_negative_history_length_names_the_configuration_field(self):
        with pytest.raises(InvalidParamsError) as info:
            SendMessageRequest.from_wire(
                {"message": wire_message(), "configuration": {"historyLength": -1}}
            )
        assert violation_fields(info.value) == ["configuration.historyLength"]

    def test_push_config_in_configuration_is_kept_for_the_service(self):
        request = SendMessageRequest.from_wire(
            {
                "message": wire_message(),
                "configuration": {"taskPushNotificationConfig": {"url": "https://hook"}},
            }
        )
        config = request.configuration.push_notification_config
        assert (config.url, config.task_id, config.id) == ("https://hook", "", "")

    def test_get_task_request(self):
        request = GetTaskRequest.from_wire({"id": "t1", "historyLength": "3"})
        assert (request.id, request.history_length) == ("t1", 3)
        for params in ({}, {"id": ""}, {"id": None}):
            with pytest.raises(InvalidParamsError) as info:
                GetTaskRequest.from_wire(params)
            assert violation_fields(info.value) == ["id"]
        with pytest.raises(InvalidParamsError) as info:
            GetTaskRequest.from_wire({"id": 5})
        assert violation_fields(info.value) == ["id"]

    def test_list_tasks_request_defaults(self):
        request = ListTasksRequest.from_wire({})
        assert request.page_size == DEFAULT_PAGE_SIZE == 50
        assert request.status is None
        assert request.include_artifacts is False
        assert request.history_length is None
        assert request.status_timestamp_after is None

    def test_list_tasks_request_parses_all_fields(self):
        request = ListTasksRequest.from_wire(
            {
                "context_id": "c",
                "status": 6,
                "pageSize": "10",
                "pageToken": "tok",
                "historyLength": 0,
                "statusTimestampAfter": "2025-01-01T01:00:00+01:00",
                "includeArtifacts": True,
            }
        )
        assert request.context_id == "c"
        assert request.status is TaskState.INPUT_REQUIRED
        assert request.page_size == 10
        assert request.page_token == "tok"
        assert request.history_length == 0
        assert request.status_timestamp_after == datetime(2025, 1, 1, tzinfo=UTC)
        assert request.include_artifacts is True

    @pytest.mark.parametrize(
        ("params", "field"),
        [
            ({"pageSize": 0}, "pageSize"),
            ({"pageSize": 101}, "pageSize"),
            ({"historyLength": -1}, "historyLength"),
            ({"status": "DONE"}, "status"),
            ({"statusTimestampAfter": "soon"}, "statusTimestampAfter"),
            ({"includeArtifacts": "yes"}, "includeArtifacts"),
            ({"contextId": 3}, "contextId"),
        ],
    )
    def test_list_tasks_request_errors_name_the_field(self, params, field):
        with pytest.raises(InvalidParamsError) as info:
            ListTasksRequest.from_wire(params)
        assert violation_fields(info.value) == [field]

    def test_task_id_request(self):
        request = TaskIdRequest.from_wire({"id": "t", "metadata": {"why": "x"}})
        assert (request.id, request.metadata) == ("t", {"why": "x"})
        with pytest.raises(InvalidParamsError) as info:
            TaskIdRequest.from_wire({"metadata": {}})
        assert violation_fields(info.value) == ["id"]


# --- errors ---------------------------------------------------------------------------------

# (class, JSON-RPC code, HTTP status, gRPC status, reason) per the v1.0.1 table (spec §4.1).
A2A_ERRORS = [
    (errors.TaskNotFoundError, -32001, 404, "NOT_FOUND", "TASK_NOT_FOUND"),
    (errors.TaskNotCancelableError, -32002, 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"),
    (
        errors.PushNotificationNotSupportedError,
        -32003,
        400,
        "FAILED_PRECONDITION",
        "PUSH_NOTIFICATION_NOT_SUPPORTED",
    ),
    (errors.UnsupportedOperationError, -32004, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"),
    (
        errors.ContentTypeNotSupportedError,
        -32005,
        400,
        "INVALID_ARGUMENT",
        "CONTENT_TYPE_NOT_SUPPORTED",
    ),
    (errors.InvalidAgentResponseError, -32006, 500, "INTERNAL", "INVALID_AGENT_RESPONSE"),
    (
        errors.ExtendedAgentCardNotConfiguredError,
        -32007,
        400,
        "FAILED_PRECONDITION",
        "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
    ),
    (
        errors.ExtensionSupportRequiredError,
        -32008,
        400,
        "FAILED_PRECONDITION",
        "EXTENSION_SUPPORT_REQUIRED",
    ),
    (errors.VersionNotSupportedError, -32009, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED"),
]

STANDARD_ERRORS = [
    (errors.JSONParseError, -32700),
    (errors.InvalidRequestError, -32600),
    (errors.MethodNotFoundError, -32601),
    (errors.InvalidParamsError, -32602),
    (errors.InternalError, -32603),
]


class TestErrors:
    @pytest.mark.parametrize(("cls", "code", "http", "grpc", "reason"), A2A_ERRORS)
    def test_a2a_error_table(self, cls, code, http, grpc, reason):
        assert (cls.jsonrpc_code, cls.http_status, cls.grpc_status, cls.reason) == (
            code,
            http,
            grpc,
            reason,
        )

    @pytest.mark.parametrize(("cls", "code", "http", "grpc", "reason"), A2A_ERRORS)
    def test_to_jsonrpc_carries_error_info(self, cls, code, http, grpc, reason):
        rendered = cls(metadata={"taskId": "t-1"}).to_jsonrpc()
        assert rendered["code"] == code
        assert rendered["message"] == cls.default_message
        assert rendered["data"] == [
            {
                "@type": ERROR_INFO_TYPE,
                "reason": reason,
                "domain": ERROR_DOMAIN,
                "metadata": {"taskId": "t-1"},
            }
        ]
        assert ERROR_DOMAIN == "a2a-protocol.org"
        assert ERROR_INFO_TYPE == "type.googleapis.com/google.rpc.ErrorInfo"

    def test_error_info_without_metadata_omits_it(self):
        data = TaskNotFoundError("gone").to_jsonrpc()["data"]
        assert data == [
            {"@type": ERROR_INFO_TYPE, "reason": "TASK_NOT_FOUND", "domain": ERROR_DOMAIN}
        ]

    def test_metadata_values_become_strings(self):
        error = errors.RequestTooLargeError(metadata={"maxBytes": 10, "flag": True})
        assert error.metadata == {"maxBytes": "10", "flag": "True"}
        assert json.loads(json.dumps(error.to_jsonrpc()))["data"][0]["metadata"] == {
            "maxBytes": "10",
            "flag": "True",
        }

    @pytest.mark.parametrize(("cls", "code"), STANDARD_ERRORS)
    def test_standard_errors_have_no_error_info(self, cls, code):
        rendered = cls().to_jsonrpc()
        assert rendered == {"code": code, "message": cls.default_message}

    def test_invalid_params_for_field_has_bad_request_violations(self):
        error = InvalidParamsError.for_field("message.parts", "at least one part is required")
        rendered = error.to_jsonrpc()
        assert rendered["code"] == -32602
        assert rendered["message"] == "message.parts: at least one part is required"
        assert rendered["data"] == [
            {
                "@type": BAD_REQUEST_TYPE,
                "fieldViolations": [
                    {"field": "message.parts", "description": "at least one part is required"}
                ],
            }
        ]
        assert BAD_REQUEST_TYPE == "type.googleapis.com/google.rpc.BadRequest"

    def test_error_info_and_violations_together(self):
        error = errors.ContentTypeNotSupportedError(
            "nope",
            metadata={"field": "message.parts[0].mediaType"},
            violations=[FieldViolation("message.parts[0].mediaType", "image/png")],
        )
        types = [detail["@type"] for detail in error.to_jsonrpc()["data"]]
        assert types == [ERROR_INFO_TYPE, BAD_REQUEST_TYPE]

    def test_to_rest_shape(self):
        error = TaskNotFoundError("Task 't-123' not found", metadata={"taskId": "t-123"})
        assert error.to_rest() == {
            "error": {
                "code": 404,
                "status": "NOT_FOUND",
                "message": "Task 't-123' not found",
                "details": [
                    {
                        "@type": ERROR_INFO_TYPE,
                        "reason": "TASK_NOT_FOUND",
                        "domain": ERROR_DOMAIN,
                        "metadata": {"taskId": "t-123"},
                    }
                ],
            }
        }

    def test_to_rest_of_invalid_params(self):
        body = InvalidParamsError.for_field("pageSize", "must be at most 100").to_rest()
        assert body["error"]["code"] == 400
        assert body["error"]["status"] == "INVALID_ARGUMENT"
        assert body["error"]["details"] == [
            {
                "@type": BAD_REQUEST_TYPE,
                "fieldViolations": [{"field": "pageSize", "description": "must be at most 100"}],
            }
        ]

    def test_errors_are_exceptions_with_their_message(self):
        error = TaskNotFoundError("Task x not found")
        assert isinstance(error, Exception)
        assert str(error) == "Task x not found"
        assert TaskNotFoundError().message == "Task not found"


# --- JSON-RPC envelope ------------------------------------------------------------------------


class TestEnvelope:
    def test_parse_valid_request(self):
        call = envelope.parse_request(
            b'{"jsonrpc":"2.0","id":"abc","method":"GetTask","params":{"id":"t"}}'
        )
        assert (call.id, call.method, call.params) == ("abc", "GetTask", {"id": "t"})

    def test_missing_params_is_an_empty_object(self):
        call = envelope.parse_request(b'{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"}')
        assert call.params == {}

    def test_not_json(self):
        with pytest.raises(errors.JSONParseError):
            envelope.parse_request(b"{nope")

    @pytest.mark.parametrize(
        ("body", "echoed_id", "message"),
        [
            (b"[]", None, "Batch requests are not supported"),
            (
                b'[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]',
                None,
                "Batch requests are not supported",
            ),
            (b'"text"', None, "The request must be a JSON object"),
            (b"7", None, "The request must be a JSON object"),
            (b'{"id":7,"method":"GetTask"}', 7, 'jsonrpc must be "2.0"'),
            (b'{"jsonrpc":"1.0","id":"x","method":"GetTask"}', "x", 'jsonrpc must be "2.0"'),
            (b'{"jsonrpc":"2.0","id":8}', 8, "method must be a non-empty string"),
            (b'{"jsonrpc":"2.0","id":9,"method":""}', 9, "method must be a non-empty string"),
            (b'{"jsonrpc":"2.0","id":9.5,"method":5}', 9.5, "method must be a non-empty string"),
            (
                b'{"jsonrpc":"2.0","id":10,"method":"GetTask","params":[1]}',
                10,
                "params must be a JSON object",
            ),
            (
                b'{"jsonrpc":"2.0","id":11,"method":"GetTask","params":"x"}',
                11,
                "params must be a JSON object",
            ),
            (
                b'{"jsonrpc":"2.0","method":"GetTask"}',
                None,
                "id is required: A2A does not define notifications",
            ),
            (
                b'{"jsonrpc":"2.0","id":true,"method":"GetTask"}',
                None,
                "id must be a string or a number",
            ),
            (
                b'{"jsonrpc":"2.0","id":{"a":1},"method":"GetTask"}',
                None,
                "id must be a string or a number",
            ),
            (
                b'{"jsonrpc":"2.0","id":[1],"method":"GetTask"}',
                None,
                "id must be a string or a number",
            ),
            # A null id is an id (a response to an unreadable one has it too): the next
            # fault is reported, with the null id.
            (b'{"jsonrpc":"2.0","id":null}', None, "method must be a non-empty string"),
        ],
    )
    def test_invalid_requests(self, body, echoed_id, message):
        with pytest.raises(errors.InvalidRequestError) as info:
            envelope.parse_request(body)
        assert info.value.message == message
        assert info.value.jsonrpc_code == -32600
        # The view echoes the id it reads here (None before the envelope is an object).
        request_id = getattr(info.value, "request_id", None)
        assert request_id == echoed_id
        assert type(request_id) is type(echoed_id)

    def test_a_null_id_is_accepted(self):
        call = envelope.parse_request(b'{"jsonrpc":"2.0","id":null,"method":"GetTask"}')
        assert (call.id, call.method, call.params) == (None, "GetTask", {})

    @pytest.mark.parametrize("request_id", ["", "0", 0, -1, 2.5, 1e300])
    def test_every_string_or_number_is_an_id(self, request_id):
        body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "GetTask"})
        assert envelope.parse_request(body.encode()).id == request_id

    @pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity", b"1e999"])
    def test_a_non_finite_id_is_no_json(self, literal):
        # Python's json module reads these; no JSON answer could echo them.
        body = b'{"jsonrpc":"2.0","id":' + literal + b',"method":"GetTask"}'
        with pytest.raises(errors.JSONParseError):
            envelope.parse_request(body)

    def test_the_depth_limit_is_passed_on(self):
        body = b'{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"a":{"b":{"c":1}}}}'
        assert envelope.parse_request(body, max_depth=4).params == {"a": {"b": {"c": 1}}}
        with pytest.raises(errors.JSONParseError):
            envelope.parse_request(body, max_depth=3)

    def test_responses(self):
        assert envelope.result_response(3, {"a": 1}) == {
            "jsonrpc": "2.0",
            "id": 3,
            "result": {"a": 1},
        }
        error = TaskNotFoundError("Task t not found")
        assert envelope.error_response("x", error) == {
            "jsonrpc": "2.0",
            "id": "x",
            "error": error.to_jsonrpc(),
        }
        assert error.to_jsonrpc()["code"] == -32001
        assert error.to_jsonrpc()["message"] == "Task t not found"


# --- version negotiation ----------------------------------------------------------------------


class TestVersions:
    @pytest.mark.parametrize("header", [None, "", "   "])
    def test_absent_header_means_the_methods_own_version(self, header):
        assert negotiate(header, method_version="1.0") == "1.0"
        assert negotiate(header, method_version="0.3") == "0.3"

    @pytest.mark.parametrize("header", ["1.0", "1.0.3", " 1.0 ", "1.0.1"])
    def test_patch_numbers_are_ignored(self, header):
        assert negotiate(header, method_version="1.0") == V1_0 == "1.0"
        # A v0.3 method under 1.0: negotiated as 1.0; the view answers MethodNotFound.
        assert negotiate(header, method_version="0.3") == "1.0"

    @pytest.mark.parametrize("header", ["0.3", "0.3.0", " 0.3 "])
    def test_0_3_is_served_to_v0_3_methods_only(self, header):
        assert negotiate(header, method_version="0.3") == "0.3"
        with pytest.raises(VersionNotSupportedError) as info:
            negotiate(header, method_version="1.0")
        requested = header.strip()
        assert info.value.metadata == {
            "requestedVersion": requested,
            "supportedVersions": "0.3, 1.0",
        }
        assert info.value.message == (
            f"A2A-Version '{requested}' is not supported; supported versions: 0.3, 1.0"
        )

    @pytest.mark.parametrize("header", ["2.0", "1.1", "1", "latest", "0.2", "0.30", "10.0"])
    @pytest.mark.parametrize("method_version", ["1.0", "0.3"])
    def test_unsupported_versions(self, header, method_version):
        with pytest.raises(VersionNotSupportedError) as info:
            negotiate(header, method_version=method_version)
        error = info.value
        assert error.metadata["supportedVersions"] == "0.3, 1.0"
        assert error.metadata["requestedVersion"] == header
        assert error.message == (
            f"A2A-Version '{header}' is not supported; supported versions: 0.3, 1.0"
        )
        info_detail = error.to_jsonrpc()["data"][0]
        assert info_detail["reason"] == "VERSION_NOT_SUPPORTED"
        assert info_detail["metadata"]["supportedVersions"] == ", ".join(SUPPORTED_VERSIONS)
        assert error.to_jsonrpc()["code"] == -32009
