"""``make tck``'s verdict (scripts/tck.py): which TCK failures are ours, which are known.

The run itself needs a TCK checkout and is done by hand (``make tck TCK_DIR=...``); these
tests feed the verdict reports shaped like the TCK's at 357c4a8.
"""

from __future__ import annotations

from pathlib import Path

from scripts import tck

V03_FIELDS_COMPLAINT = (
    "$: 'additionalInterfaces', 'preferredTransport', 'protocolVersion', "
    "'supportsAuthenticatedExtendedCard', 'url' do not match any of the regexes: "
    "'^(default_input_modes)$', '^(icon_url)$'"
)
V03_SCHEME_COMPLAINT = (
    "$.securitySchemes.apiKey: 'in', 'name', 'type' do not match any of the regexes: "
    "'^(api_key_security_scheme)$', '^(http_auth_security_scheme)$'"
)


def report(**requirements: dict) -> dict:
    return {
        "summary": {"must_compatibility": "97.6%"},
        "per_requirement": {name.replace("_", "-"): r for name, r in requirements.items()},
        "per_transport": {"jsonrpc": {"total": 3, "passed": 2, "failed": 1, "skipped": 0}},
    }


def requirement(status: str, errors: list[str], **transports: str) -> dict:
    return {"level": "MUST", "status": status, "transports": transports, "errors": errors}


def verdict(data: dict) -> tuple[list[str], list[str]]:
    ours, known = tck.judge(tck.must_failures(data))
    return (
        [f"{f.requirement}/{f.transport}" for f in ours],
        [f"{f.requirement}/{f.transport}" for f, _ in known],
    )


def test_the_two_known_tck_defects_are_known() -> None:
    data = report(
        CORE_SEND_003=requirement(
            "FAIL",
            ["Operation failed: message.parts[0].mediaType 'x/y' is not accepted"],
            jsonrpc="FAIL",
            http_json="FAIL",
            grpc="SKIPPED",
        ),
        CARD_STRUCT_001=requirement(
            "FAIL", [V03_FIELDS_COMPLAINT, V03_SCHEME_COMPLAINT], agent_card="PASS"
        ),
        STREAM_SUB_002=requirement("PASS", [], jsonrpc="PASS"),
    )
    assert verdict(data) == (
        [],
        ["CARD-STRUCT-001/-", "CORE-SEND-003/http_json", "CORE-SEND-003/jsonrpc"],
    )


def test_any_other_must_failure_is_ours() -> None:
    data = report(
        STREAM_SUB_002=requirement(
            "FAIL", ["Stream closed but last event does not carry a terminal state"],
            jsonrpc="FAIL", http_json="PASS",
        ),
        PUSH_CREATE_001=requirement("FAIL", ["url: cannot resolve"], http_json="FAIL"),
    )  # fmt: skip
    assert verdict(data) == (["PUSH-CREATE-001/http_json", "STREAM-SUB-002/jsonrpc"], [])


def test_should_level_failures_do_not_count() -> None:
    data = report(CORE_X_001={**requirement("FAIL", ["meh"], jsonrpc="FAIL"), "level": "SHOULD"})
    assert verdict(data) == ([], [])


def test_a_known_requirement_failing_for_another_reason_is_ours() -> None:
    other_field = V03_FIELDS_COMPLAINT.replace("'url'", "'bogusField'")
    data = report(
        CARD_STRUCT_001=requirement("FAIL", [other_field], agent_card="FAIL"),
        CORE_SEND_003=requirement("FAIL", ["Internal error"], jsonrpc="FAIL"),
    )
    assert verdict(data) == (["CARD-STRUCT-001/agent_card", "CORE-SEND-003/jsonrpc"], [])
    # A scheme member v0.3 does not have is ours too.
    other_scheme_field = V03_SCHEME_COMPLAINT.replace("'name'", "'secret'")
    data = report(CARD_STRUCT_001=requirement("FAIL", [other_scheme_field], agent_card="FAIL"))
    assert verdict(data) == (["CARD-STRUCT-001/agent_card"], [])


def test_a_crashed_test_that_recorded_nothing_is_ours(tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    junit.write_text(
        """<?xml version="1.0"?><testsuites><testsuite>
        <testcase classname="tests.core" name="test_send[CORE-SEND-003-jsonrpc]">
          <failure message="CORE-SEND-003 [x] failed">AssertionError</failure></testcase>
        <testcase classname="tests.stream" name="test_subscribe">
          <error message="ConnectionResetError">Traceback ...</error></testcase>
        <testcase classname="tests.ok" name="test_fine"/>
        </testsuite></testsuites>"""
    )
    found = tck.unattributed_failures(junit, {"CORE-SEND-003"})
    assert [(f.requirement, f.messages[0].splitlines()[0]) for f in found] == [
        ("tests.stream::test_subscribe", "ConnectionResetError")
    ]


def test_the_summary_names_each_failure(tmp_path: Path) -> None:
    data = report(STREAM_SUB_002=requirement("FAIL", ["not terminal"], jsonrpc="FAIL"))
    ours, known = tck.judge(tck.must_failures(data))
    text = tck.summarize(data, ours, known)
    assert "FAILED: STREAM-SUB-002 [jsonrpc]" in text
    assert "not terminal" in text
    assert "1 MUST failure(s) of ours, 0 known TCK defect(s)" in text
