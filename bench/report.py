"""Results, and the Markdown report (docs/performance.md) made from them."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import platform
import statistics
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.cases import (
    BASELINES,
    BIG_CONTEXT_TASKS,
    CASES_BY_NAME,
    DEEP_OFFSET,
    LONG_HISTORY,
    PAGE_SIZE,
    WORKER_CASES,
)
from bench.config import REDIS_URL, ROOT, SQLITE_PATH, is_postgres, redis_client

# --- results ------------------------------------------------------------------------------


@dataclass
class Measurement:
    case: str
    deployment: str
    requests: int = 0
    duration_s: float = 0.0
    rps: float = 0.0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    cpu_ms: float | None = None  # server CPU per request
    cpu_util: float | None = None  # server CPU seconds per wall second
    pg_cpu_ms: float | None = None  # PostgreSQL backends' CPU per request
    queries: float | None = None  # queries per request
    others: float | None = None  # CPU of everything else on the machine, per wall second
    bytes_per_request: float | None = None  # response bytes wrk read (headers + body)
    failures: list[str] = field(default_factory=list)
    #: The a2a_app deployment whose run this was measured in (the a2a-sdk server runs
    #: beside each one, its cases interleaved with a2a_app's).
    alongside: str = ""
    #: req/s of each round (the case's slices, interleaved with the other cases').
    rounds_rps: list[float] = field(default_factory=list)


def combine(slices: list[Measurement]) -> Measurement:
    """One measurement from a case's rounds: totals over all, percentiles their median."""
    first = slices[0]
    m = Measurement(first.case, first.deployment, alongside=first.alongside)
    m.requests = sum(s.requests for s in slices)
    m.duration_s = sum(s.duration_s for s in slices)
    m.rounds_rps = [s.rps for s in slices]
    m.failures = [f for s in slices for f in s.failures]
    if m.requests and m.duration_s:
        m.rps = m.requests / m.duration_s
        m.p50_ms = statistics.median(s.p50_ms for s in slices)
        m.p99_ms = statistics.median(s.p99_ms for s in slices)

    def weighted(name: str) -> float | None:
        values = [(getattr(s, name), s.requests) for s in slices]
        if any(v is None for v, _ in values) or not m.requests:
            return None
        return sum(v * n for v, n in values) / m.requests

    m.cpu_ms, m.pg_cpu_ms, m.queries, m.bytes_per_request = (
        weighted("cpu_ms"),
        weighted("pg_cpu_ms"),
        weighted("queries"),
        weighted("bytes_per_request"),
    )
    cpu_util = [s.cpu_util for s in slices]
    m.cpu_util = None if None in cpu_util else statistics.mean(cpu_util)
    others = [s.others for s in slices]
    m.others = None if None in others else statistics.mean(others)
    return m


@dataclass
class Run:
    options: dict[str, Any]
    started: str = ""
    database: str = ""
    code: str = ""
    #: Hashes of the measured .py files at the start (bench.config.code_files), and the
    #: files changed since, as each phase started.
    code_files: dict[str, str] = field(default_factory=dict)
    #: The machine and versions, read when the run started (see ``environment``).
    environment: dict[str, dict[str, str]] = field(default_factory=dict)
    code_changes: dict[str, list[str]] = field(default_factory=dict)
    measurements: list[Measurement] = field(default_factory=list)
    worker_results: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def get(self, deployment: str, case: str, alongside: str = "") -> Measurement | None:
        found = [
            m
            for m in self.measurements
            if m.deployment == deployment and m.case == case and m.alongside == alongside
        ]
        return found[0] if found else None

    def baseline(self, deployment: str, case: str, alongside: str = "") -> float | None:
        """The reference's req/s (older runs measured baselines twice: their mean)."""
        runs = [
            m.rps
            for m in self.measurements
            if m.deployment == deployment and m.case == case and m.alongside == alongside
        ]
        return sum(runs) / len(runs) if runs else None


def fmt(value: float | None, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:,.{digits}f}"


def versions(db_url: str) -> dict[str, str]:
    import django

    def version(module: str) -> str:
        try:
            from importlib.metadata import version as v

            return v(module)
        except Exception:
            return "not installed"

    out = {
        "Python": platform.python_version(),
        "Django": django.get_version(),
        "uvicorn": version("uvicorn"),
        "gunicorn": version("gunicorn"),
        "psycopg": version("psycopg"),
        "celery": version("celery"),
        "a2a-sdk": version("a2a-sdk"),
    }
    wrk = subprocess.run(["wrk", "-v"], capture_output=True, text=True)
    out["wrk"] = (wrk.stdout + wrk.stderr).split("\n")[0].split(" [")[0].removeprefix("wrk ")
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            out["PostgreSQL"] = cursor.fetchone()[0]
    else:
        import sqlite3

        out["SQLite"] = sqlite3.sqlite_version
    with contextlib.suppress(Exception):
        out["Redis"] = redis_client().info("server")["redis_version"]
    return out


def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import psutil

    return {
        "uname": " ".join(part for part in platform.uname() if part),
        "cpu": f"{cpu}, {os.cpu_count()} logical CPUs",
        "memory": f"{psutil.virtual_memory().total / 2**30:.0f} GiB",
    }


BUDGETS = [
    # (label, case, reference, limit, kind): "min" means case/reference req/s ≥ limit;
    # "max" means reference/case req/s (the case's cost relative to the reference) ≤ limit.
    ("SendMessage ≥ 0.6 × bare parse+insert view", "send", "bare-insert", 0.6, "min"),
    # A reference "deployment:case" is measured in another server of the same run.
    (
        "SendMessage (persisted) ≥ 1.0 × the official a2a-sdk server (in-memory)",
        "send",
        "a2a-sdk:sdk-send",
        1.0,
        "min",
    ),
    ("Agent card ≥ 0.9 × bare JsonResponse", "card", "bare-json", 0.9, "min"),
    ("Metrics and logs on ≥ 0.95 × SendMessage req/s", "send-observed", "send", 0.95, "min"),
    ("Agent card 304 cheaper than 200 (bytes, and CPU no more)", "card-304", "card", 1.0, "cpu"),
    ("GetTask, 1,000 messages ≤ 1.2 × fresh task", "get-long", "get-fresh", 1.2, "max"),
    ("ListTasks deep page ≤ 1.5 × first page", "list-deep", "list-first", 1.5, "max"),
    *(
        budget
        for page in ("first", "deep")
        for budget in (
            (
                f"ListTasks {page} page, 1,000,000 tasks of one caller ≥ 0.5 × GetTask",
                f"list-caller-1m-{page}",
                "get-fresh",
                0.5,
                "min",
            ),
            (
                f"ListTasks {page} page, 1,000,000 tasks of one caller ≥ 0.5 × GetTask by the "
                "same signed-in caller",
                f"list-caller-1m-{page}",
                "get-caller",
                0.5,
                "min",
            ),
            (
                f"ListTasks {page} page, 1,000,000 tasks of one caller ≤ 1.2 × at 1,000",
                f"list-caller-1m-{page}",
                f"list-caller-1k-{page}",
                1.2,
                "max",
            ),
        )
    ),
]


#: The a2a-sdk server's cases and the a2a_app case each is compared with.
SDK_COUNTERPARTS = {"sdk-card": "card", "sdk-send": "send"}


def compared_pairs() -> list[tuple[str, str]]:
    """(case, reference) of every ratio the report judges or shows beside the SDK's:
    the pairs a round measures next to each other (:func:`bench.cases.measuring_order`)."""
    budgets = [(case, ref.rpartition(":")[2]) for _label, case, ref, _limit, _kind in BUDGETS]
    return [*budgets, *((ours, sdk) for sdk, ours in SDK_COUNTERPARTS.items())]


def paired_ratio(case: Measurement, reference: Measurement) -> float:
    """``case``'s req/s over ``reference``'s: the median of the ratios of their slices
    measured in the same round (next to each other), which the machine's drift from one
    round to the next leaves alone; with unequal rounds (a failed slice, a report from an
    older run), the ratio of the totals."""
    pairs = list(zip(case.rounds_rps, reference.rounds_rps, strict=False))
    if len(case.rounds_rps) == len(reference.rounds_rps) >= 2 and all(r for _, r in pairs):
        return statistics.median(c / r for c, r in pairs)
    return case.rps / reference.rps


def cpu_cost(m: Measurement) -> float | None:
    """CPU per request on the machine: the server's plus its PostgreSQL backends'."""
    if not m.cpu_ms:
        return None
    return m.cpu_ms + (m.pg_cpu_ms or 0.0)


def budget_cell(run: Run, deployment: str, case: str, ref: str, limit: float, kind: str) -> str:
    """The ratio (req/s; CPU per request in brackets) and the verdict, judged on req/s."""
    m = run.get(deployment, case)
    ref_deployment, _, ref_case = ref.rpartition(":")
    # Another server's case (the a2a-sdk's) was measured beside this deployment.
    alongside = deployment if ref_deployment else ""
    ref_deployment = ref_deployment or deployment
    ref_runs = [
        r
        for r in run.measurements
        if r.deployment == ref_deployment and r.case == ref_case and r.alongside == alongside
    ]
    if m is None or not ref_runs or not m.rps or not all(r.rps for r in ref_runs):
        return "–"
    ref_m = ref_runs[0]
    # Reports of runs before rounds measured baselines twice (their mean); since, a
    # reference is measured once, its rounds beside the case's.
    ref_rps = sum(r.rps for r in ref_runs) / len(ref_runs)
    speed = paired_ratio(m, ref_m) if len(ref_runs) == 1 else m.rps / ref_rps
    cost = cpu_cost(m)
    ref_costs = [cpu_cost(r) for r in ref_runs]
    ref_cost = sum(ref_costs) / len(ref_costs) if all(ref_costs) else None
    if kind == "cpu":
        if not cost or not ref_cost or not m.bytes_per_request or not ref_m.bytes_per_request:
            return "–"
        # The card is served from memory, so a 200 costs what any Django response costs
        # and a 304 saves the body: fewer bytes, and CPU no more than the 200's (a
        # difference within 3 % is noise on these machines).
        ratio = cost / ref_cost
        smaller = m.bytes_per_request < ref_m.bytes_per_request
        verdict = "**pass**" if smaller and ratio <= limit + 0.03 else "**FAIL**"
        return (
            f"{m.bytes_per_request:,.0f} against {ref_m.bytes_per_request:,.0f} bytes; "
            f"CPU {ratio:.2f} × the 200's (req/s {speed:.2f} ×): {verdict}"
        )
    if kind == "min":
        ratio = speed
        cpu = f" (CPU: {ref_cost / cost:.2f} ×)" if cost and ref_cost else ""
        return f"{ratio:.2f} ×{cpu}: " + ("**pass**" if ratio >= limit else "**FAIL**")
    ratio = 1 / speed
    cpu = f" (CPU: {cost / ref_cost:.2f} ×)" if cost and ref_cost else ""
    return f"{ratio:.2f} ×{cpu}: " + ("**pass**" if ratio <= limit else "**FAIL**")


def render(run: Run, opts: argparse.Namespace, db_url: str) -> str:
    from bench import procs, streaming

    env = run.environment or environment(db_url)
    mach, vers = env["machine"], env["versions"]
    db_label = (
        f"PostgreSQL {vers.get('PostgreSQL', '')} at {urlsplit(db_url).hostname} "
        f"(database `{urlsplit(db_url).path.lstrip('/')}`), psycopg pool (gunicorn sync: "
        "one persistent connection, `DB_CONN_MAX_AGE`)"
        if is_postgres(db_url)
        else f"SQLite {vers.get('SQLite', '')} (WAL) at `{SQLITE_PATH}`"
    )
    deployments = [
        d for d in dict.fromkeys(m.deployment for m in run.measurements) if d != "a2a-sdk"
    ]
    lines = [
        "# Performance",
        "",
        f"Measured by `make bench` (`python -m bench.run`) on {run.started}. This file is",
        "written by the suite: rerun it rather than editing the numbers. Absolute numbers drift",
        "15–50 % between runs on these machines; the ratios, measured in one run against a",
        "baseline served by the same process, are what to compare.",
        "",
        "## How to run",
        "",
        "```sh",
        "export DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench",
        "make bench              # the full suite, 40 minutes; writes this file",
        "make bench-smoke        # a few seconds per case, no thresholds, no report (CI)",
        ".venv/bin/python -m bench.run --cases send,get-long --servers uvicorn --report -",
        "```",
        "",
        "`make bench` installs `bench/requirements.txt` (gunicorn, psutil) and, if it can,",
        "`bench/requirements-sdk.txt` (the optional a2a-sdk server comparison), and `wrk` with",
        "apt-get when missing. It needs Redis at 127.0.0.1:6379 (database 7, flushed: the broker)",
        "and drops and re-creates the database named by `DATABASE_URL` (its name must start with",
        "`bench`), or uses a SQLite file under /tmp without it. `python -m bench.run --help`",
        "lists the cases and options.",
        "",
        "## Machine and setup",
        "",
        f"- Machine: `{mach['uname']}`",
        f"- CPU: {mach['cpu']}; memory {mach['memory']}",
        "- Software: "
        + ", ".join(f"{k} {v}" for k, v in vers.items() if k not in ("PostgreSQL", "SQLite")),
        f"- Code: {run.code}",
        f"- Database: {db_label}",
        f"- Broker: Redis at {urlsplit(REDIS_URL).hostname}, database "
        f"{urlsplit(REDIS_URL).path.lstrip('/')}",
        "- Site: `bench.settings` (the demo site plus the baseline views), conformance mode,",
        "  `DEBUG=false`, one server process, access logs off, a2a_app's transition log at INFO",
        "  to stderr as configured by the site.",
        f"- Load: wrk, 1 thread, {opts.connections} connections, {opts.duration:g} s per "
        f"case in {getattr(opts, 'rounds', 1)} interleaved rounds (each round measures "
        "every case of the server in turn, each budget's case next to its reference "
        "and the a2a-sdk server's cases beside a2a_app's, so that the two see the same "
        "machine, and every other round in the reverse order, so that neither side of a "
        f"pair is always measured first), after a {opts.warmup:g} s warm-up; every request "
        "has a unique messageId and JSON-RPC id; every response is checked (status, no "
        "JSON-RPC error, the expected state or text); a run with any failure writes no report.",
        f"- Data: one task with {LONG_HISTORY:,} history messages; {BIG_CONTEXT_TASKS:,} tasks "
        f"in one context (the deep page starts at task {DEEP_OFFSET:,}; page size "
        f"{PAGE_SIZE}), written with bulk_create and ANALYZEd before the run.",
        "",
    ]
    # budgets
    hooks_budget = None
    if run.worker_results.get("webhooks"):
        from bench import webhooks

        hooks = run.worker_results["webhooks"]
        hooks_budget = (webhooks.BUDGET_LABEL, webhooks.budget_verdict(hooks))
    budget_deps = [d for d in deployments if any(run.get(d, b[1]) for b in BUDGETS)]
    if not budget_deps and "retention" in run.worker_results:
        budget_deps = ["uvicorn"]
    if budget_deps and not getattr(opts, "smoke", False):  # a smoke run has no thresholds
        lines += [
            "## Budget",
            "",
            "Ratios of req/s measured in one run, in one server process "
            + ("on PostgreSQL" if is_postgres(db_url) else "(on SQLite: not the budget's database)")
            + ". “≥” budgets: the case's req/s over the reference's; “≤” budgets: the "
            "reference's req/s over the case's (what a request costs relative to the "
            "reference); each the median, over the rounds, of the ratio of the two slices "
            "measured one after the other in that round. In brackets the same ratio from "
            "CPU per request (server + PostgreSQL backends), which other load on the machine "
            "disturbs less. The verdict "
            "is on req/s, except for the 304: bytes per response smaller, and CPU per "
            "request no more than the 200's (3 % tolerance).",
            "",
            "| budget | " + " | ".join(procs.DEPLOYMENTS[d].name for d in budget_deps) + " |",
            "|---|" + "---|" * len(budget_deps),
        ]
        for label, case, ref, limit, kind in BUDGETS:
            cells = [budget_cell(run, d, case, ref, limit, kind) for d in budget_deps]
            if any(c != "–" for c in cells):
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
        from bench import retention

        row = retention.budget_row(run, budget_deps)
        if row:
            lines.append(row)
        if hooks_budget:  # a worker measurement: one cell, under the first deployment
            lines.append(
                f"| {hooks_budget[0]} | {hooks_budget[1]} |" + " – |" * (len(budget_deps) - 1)
            )
        lines.append("")
    elif hooks_budget and not getattr(opts, "smoke", False):
        lines += ["## Budget", "", "| budget | Celery workers |", "|---|---|"]
        lines += [f"| {hooks_budget[0]} | {hooks_budget[1]} |", ""]
    stream_budget = streaming.budget_lines(run.worker_results, is_postgres(db_url))
    if stream_budget and not getattr(opts, "smoke", False):
        if "## Budget" not in lines:
            lines += ["## Budget", ""]
        lines += ["| streaming budget (uvicorn, 1 process) | measured |", "|---|---|"]
        lines += [*stream_budget, ""]
    # per deployment
    lines += [
        "## Requests per deployment",
        "",
        "req/s and latency from wrk; *CPU ms/req*: user+system CPU of the server's process",
        "tree over the measured run, per request (*CPU %*: of one core); *PG ms/req*: CPU of",
        "the PostgreSQL backends connected to the bench database, per request; *queries/req*:",
        "every query the server process ran, per request; *× baseline*: req/s over the",
        "baseline's (mean of its runs at the start and the end of the same server process);",
        "*others %*: CPU used meanwhile by everything else on the machine (not the server, its",
        "database backends or wrk), in % of one core: other jobs sharing the machine.",
        "",
    ]
    for d in deployments:
        lines += [f"### {procs.DEPLOYMENTS[d].label}", ""]
        lines += table(run, d)
        drift = baseline_drift(run, d)
        if drift:
            lines += ["", drift]
        lines.append("")
    sdk = [m for m in run.measurements if m.deployment == "a2a-sdk"]
    if sdk:
        lines += [
            "### Comparison: the official a2a-sdk 1.3.0 server",
            "",
            f"{procs.DEPLOYMENTS['a2a-sdk'].label}, with an echo agent (same answer as the "
            'conformance skill\'s "hello"); no database. It runs beside each a2a_app '
            "deployment, its cases interleaved with a2a_app's in the same rounds; the last "
            "column is a2a_app's req/s for the same case (SendMessage persisting the task to "
            "PostgreSQL) over the SDK's, measured in those rounds.",
            "",
            "| case | beside | req/s | p50 ms | p99 ms | CPU ms/req | a2a_app × the SDK |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for m in sdk:
            ours = run.get(m.alongside, SDK_COUNTERPARTS[m.case])
            vs = f"{paired_ratio(ours, m):.2f} ×" if ours and m.rps else "–"
            beside = procs.DEPLOYMENTS[m.alongside].name if m.alongside else "–"
            lines.append(
                f"| {CASES_BY_NAME[m.case].title} | {beside} | {fmt(m.rps)} | {fmt(m.p50_ms)} "
                f"| {fmt(m.p99_ms)} | {fmt(m.cpu_ms, 2)} | {vs} |"
            )
        lines.append("")
    analysis = ROOT / "bench" / "analysis.md"
    if analysis.exists() and not getattr(opts, "smoke", False):
        # Hand-written (the profile and what it means), kept beside the code it describes.
        lines += [analysis.read_text().rstrip(), ""]
    if run.worker_results:
        lines += ["## Background work (Celery workers, Redis broker, uvicorn)", ""]
        lines += ["| measurement | result |", "|---|---|"]
        hooks = run.worker_results.get("webhooks")
        if hooks:
            lines.append(
                f"| {WORKER_CASES['webhooks']} | **{hooks['per_second']:.1f} deliveries/s** "
                f"({hooks['delivered']:,} deliveries of {hooks['tasks']:,} tasks in "
                f"{hooks['drain_s']:.1f} s; worker CPU {hooks['worker_cpu_ms']:.1f} ms per "
                "delivery) |"
            )
        for name in ("stream-db", "stream-redis"):
            st = run.worker_results.get(name)
            if st:
                backlog = (
                    f"; {st['backlog']} events written before their stream's first frame "
                    f"left out, median {st['backlog_median_ms']:.0f} ms"
                    if st.get("backlog")
                    else ""
                )
                lines.append(
                    f"| {WORKER_CASES[name]} | **median {st['median_ms']:.1f} ms, p99 "
                    f"{st['p99_ms']:.1f} ms** (max {st['max_ms']:.1f} ms; {st['events']} events "
                    f"of {st['streams']} concurrent streams{backlog}) |"
                )
        if run.worker_results.get("retention"):
            from bench import retention

            lines.append(retention.report_row(run.worker_results["retention"]))
        send_bg = [m for m in run.measurements if m.case == "send-bg"]
        for m in send_bg:
            lines.append(
                f"| SendMessage returnImmediately (enqueue to Redis), {m.deployment} | "
                f"**{m.rps:.1f} req/s** (see the tables above) |"
            )
        lines += [
            "",
            f'Webhooks: {opts.webhook_tasks} tasks (SendMessage "hello" with a push config '
            "each) are created while no worker runs, then one `celery worker --concurrency 2` "
            "starts; the rate is the receiver's (first POST to last), every Delivery row must "
            'end delivered. Streaming: each client sends `SendStreamingMessage` "sleep '
            f'{opts.stream_sleep:g}", which a `celery worker --concurrency 4` runs; the delay '
            "of each event is the client's receive time minus `TaskEvent.created_at` (written "
            "by the worker, same machine clock): commit, notifier, log read and SSE write. "
            "Events written before their client had the stream's first frame were read "
            "when the stream started, not woken by the notifier: they are left out and "
            "counted apart.",
            "",
        ]
    from bench import scaleout

    lines += scaleout.report_lines(run, opts)
    notes = list(run.notes)
    busy = [m for m in run.measurements if m.others is not None]
    if busy:
        worst = max(busy, key=lambda m: m.others)
        mean = sum(m.others for m in busy) / len(busy)
        notes.append(
            f"Other processes on the machine (not part of the run) used {mean * 100:.0f} % of a "
            f"core on average while the cases ran, at most {worst.others * 100:.0f} % "
            f"({worst.deployment} {worst.case}); see the *others %* column."
        )
    if notes or run.skipped:
        lines += ["## Notes", ""]
        lines += [f"- {note}" for note in notes]
        lines += [f"- Skipped: {item}" for item in run.skipped]
        lines.append("")
    return "\n".join(lines)


def environment(db_url: str) -> dict[str, dict[str, str]]:
    return {"machine": machine(), "versions": versions(db_url)}


def setup_notes() -> list[str]:
    """Facts about the measured site worth knowing when reading the numbers."""
    notes = []
    sync_only = sync_only_middleware()
    if sync_only:
        notes.append(
            "Sync-only middleware in the site's MIDDLEWARE: "
            + ", ".join(f"`{path}`" for path in sync_only)
            + ". Under ASGI each one makes every request hop between the event loop and "
            "threads (asgiref), part of why uvicorn serves even the bare views slowly here."
        )
    return notes


def sync_only_middleware() -> list[str]:
    """Middleware the site runs that cannot run async (Django adapts it with threads)."""
    from django.conf import settings
    from django.utils.module_loading import import_string

    paths = []
    for path in settings.MIDDLEWARE:
        try:
            middleware = import_string(path)
        except ImportError:
            continue
        if not getattr(middleware, "async_capable", False):
            paths.append(path)
    return paths


def table(run: Run, deployment: str) -> list[str]:
    rows = [
        "| case | req/s | p50 ms | p99 ms | CPU ms/req | CPU % | PG ms/req | queries/req "
        "| × baseline | others % |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    seen = set()
    for m in run.measurements:
        if m.deployment != deployment:
            continue
        case = CASES_BY_NAME[m.case]
        label = case.title
        if m.case in BASELINES and m.case in seen:
            label += " (again, at the end)"  # reports of runs before rounds
        seen.add(m.case)
        ratio = "baseline"
        if case.baseline:
            ref = run.baseline(deployment, case.baseline)
            ratio = f"{m.rps / ref:.2f} × {case.baseline}" if ref else "–"
        rows.append(
            f"| {label} | {fmt(m.rps)} | {fmt(m.p50_ms)} | {fmt(m.p99_ms)} | "
            f"{fmt(m.cpu_ms, 2)} | {fmt(None if m.cpu_util is None else m.cpu_util * 100, 0)} | "
            f"{fmt(m.pg_cpu_ms, 2)} | {fmt(m.queries, 1)} | {ratio} | "
            f"{fmt(None if m.others is None else m.others * 100, 0)} |"
        )
    return rows


def baseline_drift(run: Run, deployment: str, threshold: float = 0.0) -> str:
    """How much the baselines moved from round to round within a server's run."""
    notes = []
    for name in BASELINES:
        m = run.get(deployment, name)
        rounds = m.rounds_rps if m else []
        if len(rounds) < 2 or not min(rounds):
            continue
        spread = max(rounds) / min(rounds) - 1
        if spread >= threshold:
            shown = " / ".join(f"{r:,.0f}" for r in rounds)
            notes.append(f"{name} {shown} req/s (spread {spread * 100:.0f} %)")
    if not notes:
        return ""
    return "Baselines round by round within this server's run: " + "; ".join(notes) + "."
