"""The request cases: what wrk sends (bench/lua/), what each is compared with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

DEEP_OFFSET = 90_000
BIG_CONTEXT_TASKS = 100_000
LONG_HISTORY = 1000
PAGE_SIZE = 50


@dataclass
class Context:
    """What the cases of one server need: ids and tokens found before the load starts."""

    base: str = ""
    fresh_task: str = ""
    etag: str = ""
    long_task: str = ""
    deep_token: str = ""


@dataclass(frozen=True)
class Case:
    name: str
    title: str
    script: str
    args: Callable[[Context], list[str]]
    #: The case whose req/s this one is compared with (same server process).
    baseline: str | None = None
    #: "fresh", "etag", "long", "big", "redis", "caller" (bench/listing.py)
    needs: tuple[str, ...] = ()
    app: str = "bench"


CARD = "/.well-known/agent-card.json"
CASES = [
    Case(
        "bare-json",
        "Bare Django view: JsonResponse",
        "get.lua",
        lambda c: ["/bench/json", "200", '"bare"'],
    ),
    Case("bare-insert", "Bare Django view: parse JSON, insert one row", "insert.lua", lambda c: []),
    Case(
        "card",
        "Agent card (200)",
        "get.lua",
        lambda c: [CARD, "200", '"skills"'],
        baseline="bare-json",
    ),
    Case(
        "card-304",
        "Agent card, If-None-Match (304)",
        "get.lua",
        lambda c: [CARD, "304", "-", c.etag],
        baseline="bare-json",
        needs=("etag",),
    ),
    Case(
        "send",
        "SendMessage, blocking, inline skill",
        "rpc.lua",
        lambda c: ["send", "TASK_STATE_COMPLETED&&echo: hello", "hello"],
        baseline="bare-insert",
    ),
    Case(
        "send-observed",
        "SendMessage with metrics and JSON logs on (a second server: bench/observability.py)",
        "rpc.lua",
        lambda c: ["send", "TASK_STATE_COMPLETED&&echo: hello", "hello"],
        baseline="send",
    ),
    Case(
        "get-fresh",
        "GetTask, fresh task, historyLength 10",
        "rpc.lua",
        lambda c: ["get", "TASK_STATE_COMPLETED&&echo: hello", c.fresh_task, "10"],
        baseline="bare-json",
        needs=("fresh",),
    ),
    Case(
        "get-long",
        f"GetTask, {LONG_HISTORY:,}-message task, historyLength 10",
        "rpc.lua",
        lambda c: [
            "get",
            f"TASK_STATE_COMPLETED&&bench history {LONG_HISTORY - 1}",
            c.long_task,
            "10",
        ],
        baseline="bare-json",
        needs=("long",),
    ),
    Case(
        "list-first",
        f"ListTasks, first page ({PAGE_SIZE} of {BIG_CONTEXT_TASKS:,} in a context)",
        "rpc.lua",
        lambda c: [
            "list",
            f'TASK_STATE_COMPLETED&&"totalSize":{BIG_CONTEXT_TASKS}',
            _big_context(),
            str(PAGE_SIZE),
        ],
        baseline="bare-json",
        needs=("big",),
    ),
    Case(
        "list-deep",
        f"ListTasks, deep page (from task {DEEP_OFFSET:,})",
        "rpc.lua",
        lambda c: [
            "list",
            f'TASK_STATE_COMPLETED&&"totalSize":{BIG_CONTEXT_TASKS}',
            _big_context(),
            str(PAGE_SIZE),
            c.deep_token,
        ],
        baseline="bare-json",
        needs=("big",),
    ),
    Case(
        "get-caller",
        "GetTask by a signed-in caller (API key) of 1,000,000 tasks, historyLength 10",
        "get_caller.lua",
        lambda c: _get_caller_args(1_000_000),
        baseline="bare-json",
        needs=("caller",),
    ),
    *(
        Case(
            f"list-caller-{label}-{page}",
            f"ListTasks, {page} page ({PAGE_SIZE} of {size:,} tasks of one caller)",
            "list_caller.lua",
            lambda c, size=size, page=page: _listing_args(size, page == "deep"),
            baseline="bare-json",
            needs=("caller",),
        )
        for label, size in (("1k", 1_000), ("1m", 1_000_000))
        for page in ("first", "deep")
    ),
    Case(
        "rate-limited",
        "A request over its rate limit (429, nothing run)",
        "rpc.lua",
        lambda c: ["limited", "-32000"],
        baseline="bare-json",
    ),
    Case(
        "send-bg",
        "SendMessage returnImmediately, background skill (enqueue, Redis)",
        "rpc.lua",
        lambda c: ["send_bg", "TASK_STATE_SUBMITTED", "sleep 1"],
        baseline="bare-insert",
        needs=("redis",),
    ),
    Case(
        "reject-deep",
        "Refused: JSON-RPC params nested 1,000 deep (-32700)",
        "rejected.lua",
        lambda c: ["deep", '"code":-32700'],
        baseline="bare-json",
    ),
    Case(
        "reject-long-id",
        "Refused: SendMessage with a 201-character messageId (-32602)",
        "rejected.lua",
        lambda c: ["long-id", '"code":-32602&&message.messageId'],
        baseline="bare-json",
    ),
    Case(
        "sdk-card",
        "a2a-sdk: agent card (200)",
        "get.lua",
        lambda c: [CARD, "200", '"skills"'],
        app="sdk",
    ),
    Case(
        "sdk-send",
        "a2a-sdk: SendMessage echo, in-memory store",
        "rpc.lua",
        lambda c: ["send", "TASK_STATE_COMPLETED&&echo: hello", "hello"],
        app="sdk",
    ),
]
CASES_BY_NAME = {case.name: case for case in CASES}
WORKER_CASES = {
    "webhooks": "Webhook deliveries per second, 2 worker processes, loopback receiver",
    "stream-db": "Streaming delay, worker event → SSE client, database notifier",
    "stream-redis": "Streaming delay, worker event → SSE client, Redis notifier",
    "retention": "SendMessage p99 while retention deletes expired tasks (bench/retention.py)",
    "scale-out": "Streams and webhooks over 2 uvicorn + 2 Celery workers (bench/scaleout.py)",
}
BASELINES = ("bare-json", "bare-insert")
SMOKE_CASES = ["card", "send", "reject-deep"]
SMOKE_SERVERS = ["uvicorn", "gunicorn-gthread"]
GROUPS = {
    "http": [c.name for c in CASES if c.app == "bench"],
    "sdk": [c.name for c in CASES if c.app == "sdk"],
    "workers": list(WORKER_CASES),
    "streaming": ["stream-db", "stream-redis"],
}
GROUPS["all"] = GROUPS["http"] + GROUPS["sdk"] + GROUPS["workers"]


def measuring_order(names: list[str], pairs: list[tuple[str, str]]) -> list[str]:
    """``names`` in the order a round measures them: each case right after a case it is
    compared with (``pairs``, either way round) wherever it can be.

    This machine's speed drifts over seconds, so a ratio of two measurements is only as
    good as their nearness: a case and its reference a dozen cases apart can land 25 %
    off. Depth first from each case in ``names`` order, its partners (in ``pairs`` order)
    follow it, theirs follow them, and so on; the rest keep their order.
    """
    partners: dict[str, list[str]] = {}
    for a, b in pairs:
        if a in names and b in names:
            partners.setdefault(a, []).append(b)
            partners.setdefault(b, []).append(a)
    order: list[str] = []

    def place(name: str) -> None:
        if name in order:
            return
        order.append(name)
        for partner in partners.get(name, ()):
            place(partner)

    for name in names:
        place(name)
    return order


def round_order(order: list[str], round_index: int) -> list[str]:
    """The order round ``round_index`` measures in: ``order``, and backwards every other
    round. A pair measured A then B in one round is measured B then A in the next, so a
    drift of the machine within a round, or what a case leaves behind for the next one
    (dirty pages, a checkpoint, autovacuum), does not always fall on the same side.
    """
    return list(order) if round_index % 2 == 0 else order[::-1]


def _big_context() -> str:
    from bench.seed import big_context_id

    return big_context_id()


def _get_caller_args(size: int) -> list[str]:
    from bench import listing

    return listing.get_case_args(size)


def _listing_args(size: int, deep: bool) -> list[str]:
    from bench import listing

    return listing.case_args(size, deep, PAGE_SIZE)
