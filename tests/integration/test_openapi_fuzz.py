"""Property-based fuzzing of the REST binding from its served OpenAPI document (schemathesis).

The document is loaded from the live conformance server (``/a2a/rest/openapi.json``) and
every operation gets generated requests: valid (positive) and invalid (negative) ones,
some aimed at a real task and push config so that not everything stops at a 404, and for
the two send operations also hand-built valid messages (the document cannot express
"exactly one of text, raw, url, data", so schema-valid messages rarely pass validation).
The only check is ``not_a_server_error``: any 4xx is an acceptable answer to a generated
request, a 5xx never is. Runs are reproducible (``derandomize``) and bounded (25 examples
per operation, a timeout on every request).

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
from schemathesis.checks import not_a_server_error  # noqa: E402

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
    message = {
        "messageId": f"fuzz-{uuid.uuid4()}",
        "role": "ROLE_USER",
        "parts": [{"text": "input for the fuzzer"}],
    }
    sent = requests.post(f"{base}/message:send", json={"message": message}, timeout=30)
    sent.raise_for_status()
    task = sent.json()["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", task
    config = requests.post(
        f"{base}/tasks/{task['id']}/pushNotificationConfigs",
        json={"id": "fuzz-hook", "url": HOOK},
        timeout=30,
    )
    config.raise_for_status()
    return {"base": base, "schema": schema, "task_id": task["id"], "config_id": "fuzz-hook"}


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
        st.sampled_from(["text/plain", "application/octet-stream", "image/png"]),
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
                    st.sampled_from(["text/plain", "application/json", "image/png"]), max_size=2
                ),
            },
        ),
        "metadata": st.dictionaries(_text, _text, max_size=2),
    },
)


def with_body(case: Any, body: Any) -> Any:
    case.body = body
    return case


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_no_server_errors(served: dict[str, Any], method: str, path: str) -> None:
    operation = served["schema"][path][method]
    modes = [GenerationMode.POSITIVE]
    if operation.path_parameters or operation.query or operation.body:
        modes.append(GenerationMode.NEGATIVE)
    strategies = [operation.as_strategy(generation_mode=mode) for mode in modes]
    ids = real_ids(path, served)
    if ids:
        strategies += [
            operation.as_strategy(generation_mode=mode, path_parameters=ids) for mode in modes
        ]
    if path in ("/message:send", "/message:stream"):
        strategies.append(st.builds(with_body, operation.as_strategy(), VALID_SEND_REQUESTS))
    session = requests.Session()

    @FUZZ
    @given(case=st.one_of(strategies))
    def fuzz(case: Any) -> None:
        response = case.call(base_url=served["base"], session=session, timeout=REQUEST_TIMEOUT)
        case.validate_response(response, checks=[not_a_server_error])

    try:
        fuzz()
    finally:
        session.close()
