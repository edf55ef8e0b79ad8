"""Property-based fuzzing of the REST binding from its served OpenAPI document (schemathesis).

The document is loaded from the live conformance server (``/a2a/rest/openapi.json``) and
every operation gets generated requests: valid (positive) and invalid (negative) ones,
some aimed at a real task and push config so that not everything stops at a 404, and for
the two send operations also hand-built valid messages (the document cannot express
"exactly one of text, raw, url, data", so schema-valid messages rarely pass validation).
Two checks: ``not_a_server_error`` (a 5xx is never an answer) and
``positive_data_acceptance`` (a request the document calls valid is not refused: the
document describes what the server accepts, ids' lengths, enums, limits and media types
included). A few things no static document can say are made true of the generated valid
requests before they are sent (:func:`steer`): page tokens are opaque, the media types a
message may carry are the routed skill's, webhook URLs must pass the SSRF policy, and
the extended card is refused while the agent offers none. Runs are reproducible
(``derandomize``) and bounded (25 examples per operation, a timeout on every request).

The streaming operations are fuzzed too: in conformance mode a stream ends as soon as its
task is terminal or waits for input, and an unknown or terminal task is refused before
any byte is streamed, so ``requests`` reads each answer to its end. Texts starting with
``sleep`` are left out of the hand-built messages: they wait for a worker, and none runs.
"""

from __future__ import annotations

import base64
import os
import tempfile
import uuid
from pathlib import Path
from typing import Any

import pytest
import requests

pytestmark = pytest.mark.integration

if os.environ.get("CI"):
    import schemathesis  # noqa: F401  (in CI a missing test dependency is a broken environment)
else:
    pytest.importorskip("schemathesis", reason="schemathesis (test-only dependency) is missing")

from hypothesis import HealthCheck, given, settings  # noqa: E402  (schemathesis dependency)
from hypothesis import strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis import openapi as st_openapi  # noqa: E402
from schemathesis.checks import not_a_server_error, positive_data_acceptance  # noqa: E402

from a2a_app.bindings import openapi  # noqa: E402

# Hypothesis keeps caches in .hypothesis/ under the working directory: not in the project.
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "a2a-app-hypothesis")

REST_PATH = "/a2a/rest"
HOOK = "http://127.0.0.1:9/hook"
REQUEST_TIMEOUT = 15
FUZZ = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,  # nothing written under .hypothesis/
    suppress_health_check=list(HealthCheck),
    report_multiple_bugs=False,
)

#: (METHOD, path template) of every documented operation, for one test per operation.
OPERATIONS = sorted(
    (method.upper(), path) for path, operations in openapi.paths().items() for method in operations
)


@pytest.fixture(scope="module")
def schema(conformance_server_url: str) -> Any:
    return st_openapi.from_url(
        f"{conformance_server_url}{REST_PATH}/openapi.json", timeout=REQUEST_TIMEOUT
    )


@pytest.fixture
def served(conformance_server_url: str, schema: Any) -> dict[str, Any]:
    """The schema, and a real task (waiting for input) with one push config.

    Per test: the live-server tests are transactional, so the database is emptied after
    each of them.
    """
    base = conformance_server_url + REST_PATH
    task = waiting_task(base)
    config = requests.post(
        f"{base}/tasks/{task['id']}/pushNotificationConfigs",
        json={"id": "fuzz-hook", "url": HOOK},
        timeout=30,
    )
    config.raise_for_status()
    return {"base": base, "schema": schema, "task_id": task["id"], "config_id": "fuzz-hook"}


def waiting_task(base: str) -> dict[str, Any]:
    """A new task, waiting for input (so it can still be cancelled)."""
    message = {
        "messageId": f"fuzz-{uuid.uuid4()}",
        "role": "ROLE_USER",
        "parts": [{"text": "input for the fuzzer"}],
    }
    sent = requests.post(f"{base}/message:send", json={"message": message}, timeout=30)
    sent.raise_for_status()
    task = sent.json()["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", task
    return task


def test_the_served_document_lists_the_fuzzed_operations(served: dict[str, Any]) -> None:
    document = requests.get(f"{served['base']}/openapi.json", timeout=REQUEST_TIMEOUT).json()
    assert document["servers"] == [{"url": served["base"]}]
    served_operations = sorted(
        (method.upper(), path) for path, ops in document["paths"].items() for method in ops
    )
    assert served_operations == OPERATIONS
    loaded = sorted(
        (op.method.upper(), op.path)
        for result in served["schema"].get_all_operations()
        for op in [result.ok()]
    )
    assert loaded == OPERATIONS


def real_ids(path: str, served: dict[str, Any]) -> dict[str, str]:
    if "{taskId}" in path:
        ids = {"taskId": served["task_id"]}
        if "{id}" in path:
            ids["id"] = served["config_id"]
        return ids
    if "{id}" in path:
        return {"id": served["task_id"]}
    return {}


def _inline(text: str) -> bool:
    """Not ``sleep …``: that runs in a worker, and none is running here."""
    return not text.strip().lower().startswith("sleep")


_text = st.text(max_size=30)
_parts = st.one_of(
    st.builds(lambda t: {"text": t}, _text.filter(_inline)),
    st.builds(
        lambda b, m: {"raw": base64.b64encode(b).decode(), "mediaType": m},
        st.binary(max_size=30),
        st.sampled_from(["text/plain", "application/json"]),  # the conformance skill's
    ),
    st.builds(lambda d: {"data": d}, st.recursive(st.none() | st.integers() | _text, st.lists)),
    st.builds(lambda u: {"url": u, "filename": "a.txt"}, st.just("https://example.com/a.txt")),
)
#: SendMessageRequests the server accepts. The document's Part cannot say "exactly one of
#: text, raw, url, data", so schema-generated messages almost never get past validation.
VALID_SEND_REQUESTS = st.fixed_dictionaries(
    {
        "message": st.fixed_dictionaries(
            {
                "messageId": st.text(min_size=1, max_size=20).filter(
                    lambda m: not m.startswith("test-resubscribe")
                ),
                "role": st.just("ROLE_USER"),
                "parts": st.lists(_parts, min_size=1, max_size=3),
            },
            optional={
                "contextId": _text,
                "metadata": st.dictionaries(_text, _text | st.integers(), max_size=3),
                "referenceTaskIds": st.lists(_text, max_size=2),
            },
        )
    },
    optional={
        "configuration": st.fixed_dictionaries(
            {},
            optional={
                "historyLength": st.integers(min_value=0),
                "acceptedOutputModes": st.lists(
                    st.sampled_from(["text/plain", "application/json", "*/*"]), max_size=2
                ),
            },
        ),
        "metadata": st.dictionaries(_text, _text, max_size=2),
    },
)


def with_body(case: Any, body: Any) -> Any:
    case.body = body
    return case


def steer(case: Any) -> Any:
    """A generated valid request, with what the document cannot describe made valid too."""
    if isinstance(case.query, dict):
        case.query.pop("pageToken", None)  # opaque: only the server's own tokens are valid
    body = case.body
    if not isinstance(body, dict):
        return case
    if "url" in body:  # a push config: its URL must get past the webhook policy
        body["url"] = HOOK
    configuration = body.get("configuration")
    if isinstance(configuration, dict):
        configuration.pop("acceptedOutputModes", None)  # the routed skill's modes
        push = configuration.get("taskPushNotificationConfig")
        if isinstance(push, dict):
            push["url"] = HOOK
    message = body.get("message")
    if isinstance(message, dict):
        for part in message.get("parts") or ():
            if isinstance(part, dict):
                part.pop("mediaType", None)  # the routed skill's input modes
    return case


def offers_extended_card(base: str) -> bool:
    card = requests.get(
        base.removesuffix(REST_PATH) + "/.well-known/agent-card.json", timeout=REQUEST_TIMEOUT
    ).json()
    return bool(card.get("capabilities", {}).get("extendedAgentCard"))


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_no_server_errors(served: dict[str, Any], method: str, path: str) -> None:
    operation = served["schema"][path][method]
    modes = [GenerationMode.POSITIVE]
    if operation.path_parameters or operation.query or operation.body:
        modes.append(GenerationMode.NEGATIVE)

    def generated(mode: GenerationMode, **kwargs: Any) -> Any:
        strategy = operation.as_strategy(generation_mode=mode, **kwargs)
        return strategy.map(steer) if mode is GenerationMode.POSITIVE else strategy

    strategies = [generated(mode) for mode in modes]
    ids = real_ids(path, served)
    if ids:
        strategies += [generated(mode, path_parameters=ids) for mode in modes]
    if path in ("/message:send", "/message:stream"):
        strategies.append(st.builds(with_body, operation.as_strategy(), VALID_SEND_REQUESTS))
    checks = [not_a_server_error, positive_data_acceptance]
    if path == "/extendedAgentCard" and not offers_extended_card(served["base"]):
        checks.remove(positive_data_acceptance)  # refused as the spec says, whatever its shape
    session = requests.Session()

    @FUZZ
    @given(case=st.one_of(strategies))
    def fuzz(case: Any) -> None:
        if path.endswith(":cancel") and case.path_parameters.get("id") == served["task_id"]:
            # Only a task that is not yet cancelled can be: a fresh one each time.
            case.path_parameters["id"] = waiting_task(served["base"])["id"]
        new_config = path.endswith("/pushNotificationConfigs") and method == "POST"
        if new_config and case.path_parameters.get("taskId") == served["task_id"]:
            # A task takes MAX_PUSH_CONFIGS_PER_TASK configs: a fresh one each time.
            case.path_parameters["taskId"] = waiting_task(served["base"])["id"]
        message = case.body.get("message") if isinstance(case.body, dict) else None
        if isinstance(message, dict) and "messageId" in message:
            # A new message each time: a messageId sent again is a retry, answered with the
            # first send's task, and refused when its content differs.
            message["messageId"] = str(uuid.uuid4())
        response = case.call(base_url=served["base"], session=session, timeout=REQUEST_TIMEOUT)
        case.validate_response(response, checks=checks)

    try:
        fuzz()
    finally:
        session.close()
