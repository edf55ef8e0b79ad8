"""The benchmark suite: ``python -m bench.run`` (``make bench``; ``make bench-smoke``).

Starts what it measures (the site in conformance mode, one server process, DEBUG off)
and, in the same process, a baseline: bare Django views served the same way. wrk loads
each case with a Lua script (bench/lua/) that gives every request a unique messageId and
checks every response (2xx or the expected status, no JSON-RPC error, the expected state);
a run with any failure is reported on the terminal and writes nothing.

    python -m bench.run                         # everything, report to docs/performance.md
    python -m bench.run --smoke                 # a few seconds per case, no report
    python -m bench.run --cases send,card --servers uvicorn --duration 5   # report on stdout

The database is ``DATABASE_URL`` (PostgreSQL) or a SQLite file under /tmp; a database
whose name starts with "bench" (or the SQLite file) is dropped and re-created unless
``--keep-db``. Redis database 7 (``BENCH_REDIS_URL``) is the broker, and is flushed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench import observability
from bench.cases import (
    BASELINES,
    BIG_CONTEXT_TASKS,
    CARD,
    CASES_BY_NAME,
    DEEP_OFFSET,
    GROUPS,
    LONG_HISTORY,
    SMOKE_CASES,
    SMOKE_SERVERS,
    WORKER_CASES,
    Case,
    Context,
    measuring_order,
    round_order,
)
from bench.config import (
    LOCK_PATH,
    LUA,
    REDIS_URL,
    REPORT,
    ROOT,
    code_files,
    code_version,
    database_url,
    is_postgres,
    queue_length,
    redis_client,
    redis_ok,
)
from bench.report import (
    Measurement,
    Run,
    baseline_drift,
    combine,
    compared_pairs,
    environment,
    fmt,
    render,
    setup_notes,
)

# --- preparation ---------------------------------------------------------------------------


def log(message: str) -> None:
    print(message, flush=True)


def ensure_wrk() -> str:
    wrk = shutil.which("wrk")
    if wrk:
        return wrk
    if os.geteuid() == 0 and shutil.which("apt-get"):
        log("wrk is missing: apt-get install -y wrk")
        quiet = {"stdout": subprocess.DEVNULL}
        if subprocess.run(["apt-get", "install", "-y", "-q", "wrk"], **quiet).returncode:
            subprocess.run(["apt-get", "update", "-q"], check=True, **quiet)
            subprocess.run(["apt-get", "install", "-y", "-q", "wrk"], check=True, **quiet)
        wrk = shutil.which("wrk")
        if wrk:
            return wrk
    sys.exit("bench: wrk is not installed (Debian/Ubuntu: apt-get install wrk)")


def reset_database(url: str, keep: bool) -> None:
    if is_postgres(url):
        parts = urlsplit(url)
        name = parts.path.lstrip("/")
        if keep:
            return
        if not name.startswith("bench"):
            sys.exit(
                f"bench: DATABASE_URL names database {name!r}; the suite drops and re-creates "
                "its database, so its name must start with 'bench' (or pass --keep-db)"
            )
        import psycopg

        admin = parts._replace(path="/postgres").geturl().replace("postgresql+", "")
        admin = admin.replace("pgsql://", "postgres://")
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        return
    path = Path(urlsplit(url).path)
    if not keep:
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)


#: DEBUG off refuses the demo's published key; plain HTTP on loopback, no redirect.
LOCAL_HTTP = {"SECRET_KEY": secrets.token_urlsafe(50), "SECURE_SSL_REDIRECT": "false"}


def server_env(db_url: str, **extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bench.settings",
        "DATABASE_URL": db_url,
        "A2A_CONFORMANCE": "1",
        "DEBUG": "false",
        **LOCAL_HTTP,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "CELERY_BROKER_URL": REDIS_URL,
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("A2A_NOTIFIER_REDIS_URL", None)
    env.update(extra)
    return env


def setup_django(db_url: str) -> None:
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "bench.settings",
            "DATABASE_URL": db_url,
            "A2A_CONFORMANCE": "1",
            "DEBUG": "false",
            **LOCAL_HTTP,
            "CELERY_BROKER_URL": REDIS_URL,
        }
    )
    os.environ.pop("A2A_NOTIFIER_REDIS_URL", None)
    import django

    django.setup()


# --- running wrk -----------------------------------------------------------------------------


def busy_cpu() -> float:
    """CPU seconds the whole machine spent busy (all CPUs) since boot."""
    import psutil

    t = psutil.cpu_times()
    return t.user + t.nice + t.system + t.irq + t.softirq + getattr(t, "steal", 0.0)


def children_cpu() -> float:
    """CPU seconds of this process's finished children (wrk)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


#: Other processes using more than this (cores) during a case: measure it again.
BUSY_LIMIT = 0.5


def wait_for_quiet(max_wait: float, limit: float = 0.25) -> float:
    """Wait (at most ``max_wait`` s) until the rest of the machine uses < ``limit`` of a
    core (other people's test runs); returns the last reading, in cores."""
    deadline = time.monotonic() + max_wait
    while True:
        before = busy_cpu()
        time.sleep(1)
        load = busy_cpu() - before
        if load < limit or time.monotonic() >= deadline:
            return load


def run_wrk(
    base: str, case: Case, ctx: Context, duration: float, connections: int, run_id: str
) -> dict[str, Any]:
    argv = [
        "wrk",
        "-t1",
        f"-c{connections}",
        f"-d{max(1, round(duration))}s",
        "--timeout",
        "10s",
        "-s",
        str(LUA / case.script),
        base,
        "--",
        run_id,
        *case.args(ctx),
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=duration + 60)
    for line in done.stdout.splitlines():
        if line.startswith("BENCH_RESULT "):
            return json.loads(line.removeprefix("BENCH_RESULT "))
    raise RuntimeError(f"wrk gave no result (exit {done.returncode}):\n{done.stdout}{done.stderr}")


def wrk_failures(result: dict[str, Any], expect_requests: bool = True) -> list[str]:
    failures = []
    for key in (
        "connect_errors",
        "read_errors",
        "write_errors",
        "timeouts",
        "bad_status",
        "rpc_error",
        "bad_body",
    ):
        if result.get(key):
            failures.append(f"{result[key]} {key.replace('_', ' ')}")
    if expect_requests and not result.get("requests"):
        failures.append("no request completed")
    if failures and result.get("sample"):
        failures.append(f"first bad response: {result['sample']}")
    return failures


def stats(base: str) -> dict[str, int] | None:
    """The server's query and request counters (``/bench/stats``)."""
    import requests

    try:
        data = requests.get(base + "/bench/stats", timeout=5).json()
        return {"queries": data["queries"], "requests": data["requests"]}
    except (requests.RequestException, ValueError, KeyError):
        return None


def settle(base: str, counting: bool, limit: float = 30) -> dict[str, int] | None:
    """Wait until the server has finished the requests wrk left in flight; its counters."""
    if not counting:
        time.sleep(0.5)
        return None
    deadline = time.monotonic() + limit
    last = stats(base)
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = stats(base)
        if now == last:
            return now
        last = now
    return last


def measure(
    server: Any,
    case: Case,
    ctx: Context,
    opts: argparse.Namespace,
    db: str | None,
    warm: bool = True,
) -> Measurement:
    from bench import procs

    m = Measurement(case.name, server.deployment.name)
    run_id = f"b{uuid.uuid4().hex[:10]}"
    if warm and opts.warmup > 0:
        warm = run_wrk(server.base, case, ctx, opts.warmup, opts.connections, run_id + "w")
        m.failures += [f"warm-up: {f}" for f in wrk_failures(warm)]
    counting = case.app == "bench"
    if opts.quiet_wait:
        wait_for_quiet(opts.quiet_wait)
    queue_before = queue_length() if "redis" in case.needs else 0
    counters_before = settle(server.base, counting)
    cpu_before = procs.tree_cpu(server.pid)
    pg_before = procs.postgres_cpu(db) if db else None
    machine_before, wrk_before = busy_cpu(), children_cpu()
    started = time.monotonic()
    result = run_wrk(server.base, case, ctx, opts.duration / opts.rounds, opts.connections, run_id)
    wall = time.monotonic() - started
    machine, wrk_cpu = busy_cpu() - machine_before, children_cpu() - wrk_before
    # Requests wrk left in flight still run: wait for them, and count what the server did
    # (CPU, queries) per request the server finished, itself included.
    counters_after = settle(server.base, counting)
    cpu = procs.tree_cpu(server.pid) - cpu_before
    pg = procs.postgres_cpu(db) - pg_before if db else None
    m.others = max(0.0, machine - cpu - (pg or 0.0) - wrk_cpu) / wall
    m.failures += wrk_failures(result)
    m.requests = result["requests"]
    m.duration_s = result["duration_us"] / 1e6
    served = m.requests
    if counters_before and counters_after:
        served = counters_after["requests"] - counters_before["requests"]
        m.queries = (counters_after["queries"] - counters_before["queries"]) / max(1, served)
    if m.requests:
        m.rps = m.requests / m.duration_s
        m.p50_ms = result["p50_us"] / 1000
        m.p99_ms = result["p99_us"] / 1000
        m.cpu_ms = cpu * 1000 / max(1, served)
        m.bytes_per_request = result["bytes"] / m.requests
        m.cpu_util = cpu / wall
        m.pg_cpu_ms = None if pg is None else pg * 1000 / max(1, served)
    if "redis" in case.needs:
        # An enqueue that fails is only logged (the sweep would resubmit): count the jobs.
        queued = queue_length() - queue_before
        if queued < served:
            m.failures.append(f"{served} tasks answered SUBMITTED, {queued} jobs enqueued")
    if not server.alive():
        m.failures.append(f"the server exited:\n{server.tail()}")
    return m


def prepare_context(base: str, needs: set[str], seeded: dict[str, str]) -> Context:
    import requests

    ctx = Context(base=base, long_task=seeded.get("long", ""), deep_token=seeded.get("deep", ""))
    if "etag" in needs:
        response = requests.get(base + CARD, timeout=10)
        response.raise_for_status()
        ctx.etag = response.headers["ETag"]
    if "fresh" in needs:
        message_id = f"bench-fresh-{uuid.uuid4()}"
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "SendMessage",
            "params": {
                "message": {
                    "messageId": message_id,
                    "role": "ROLE_USER",
                    "parts": [{"text": "hello"}],
                }
            },
        }
        data = requests.post(
            base + "/a2a/jsonrpc", json=body, timeout=30, headers={"A2A-Version": "1.0"}
        ).json()
        ctx.fresh_task = data["result"]["task"]["id"]
    return ctx


def server_log_problems(server: Any) -> list[str]:
    text = server.tail(2_000_000)
    problems = []
    if "Traceback" in text:
        problems.append(f"tracebacks in the server log {server.log}:\n{text[-2000:]}")
    if "WORKER TIMEOUT" in text:
        problems.append(f"gunicorn worker timeouts in {server.log}")
    if "broker unavailable" in text:
        problems.append(f"enqueue failures (broker unavailable) in {server.log}")
    return problems


def note_code_change(run: Run, phase: str) -> None:
    """Others may edit the code while the suite runs: say which files a phase measures
    changed since the start (``run.code_files`` holds the hashes at the start)."""
    now = code_files()
    before = run.code_files
    changed = sorted(p for p in before.keys() | now.keys() if before.get(p) != now.get(p))
    run.code_changes[phase] = changed
    previous = [c for name, c in run.code_changes.items() if name != phase]
    if changed and (not previous or changed != previous[-1]):
        message = (
            f"Code changed during the run, before {phase}: {', '.join(changed)} (the "
            "phases after it measured the new code)"
        )
        log(f"  NOTE: {message}")
        run.notes.append(message)


def run_http(
    run: Run,
    opts: argparse.Namespace,
    deployment_name: str,
    cases: list[Case],
    db_url: str,
    seeded: dict[str, str],
    logdir: Path,
    companion: Any = None,
    companion_cases: list[Case] | None = None,
) -> None:
    """Measure ``cases`` on one server in ``opts.rounds`` interleaved rounds.

    Each round measures every case for ``duration / rounds`` seconds, each budget's case
    next to its reference (:func:`bench.cases.measuring_order`), so that the two see the
    same drift of the machine, every other round backwards (:func:`bench.cases.round_order`);
    ``companion`` (the a2a-sdk server, already running) has its cases measured in the same
    rounds, beside a2a_app's same case.
    """
    from bench import procs

    deployment = procs.DEPLOYMENTS[deployment_name]
    env = server_env(db_url)
    db = urlsplit(db_url).path.lstrip("/") if is_postgres(db_url) else None
    log(
        f"\n== {deployment.label}" + (f", beside {companion.deployment.label}" if companion else "")
    )
    note_code_change(run, deployment.name)
    server = procs.start_server(deployment, env, logdir, deployment.name)
    observed = None
    try:
        if observability.wanted(cases):  # the same site with metrics and JSON logs on
            observed_env = {**env, **observability.server_env(logdir / deployment.name)}
            observed = procs.start_server(
                deployment, observed_env, logdir, f"{deployment.name}-observed"
            )
        needs = {need for case in cases for need in case.needs}
        ctx = prepare_context(server.base, needs, seeded)
        plan = [(observed if c.name in observability.CASES else server, c, ctx, "") for c in cases]
        if companion is not None:
            companion_ctx = prepare_context(companion.base, set(), seeded)
            plan += [(companion, c, companion_ctx, deployment_name) for c in companion_cases or []]
        slices: dict[str, list[Measurement]] = {case.name: [] for _, case, _, _ in plan}
        by_name = {case.name: item for item in plan for case in (item[1],)}
        order = measuring_order(list(by_name), compared_pairs())
        for round_index in range(opts.rounds):
            if opts.rounds > 1:
                log(f"  round {round_index + 1} of {opts.rounds}")
            for target, case, case_ctx, alongside in (
                by_name[name] for name in round_order(order, round_index)
            ):
                if any(m.failures for m in slices[case.name]):
                    continue
                m = measure_slice(target, case, case_ctx, opts, db, warm=round_index == 0)
                m.alongside = alongside
                slices[case.name].append(m)
        for _, case, _, _ in plan:
            best = combine(slices[case.name])
            run.measurements.append(best)
            if best.failures:
                run.failures.append(f"{deployment.name} {case.name}: " + "; ".join(best.failures))
        if observed is not None:
            note, failures = observability.check_agreement(
                observed,
                CASES_BY_NAME["send"],
                ctx,
                run_wrk,
                opts.duration,
                opts.connections,
                lambda: settle(observed.base, True),
            )
            run.notes.append(f"{deployment.name}: {note}")
            run.failures += [f"{deployment.name} send-observed: {f}" for f in failures]
    finally:
        server.stop()
        if observed is not None:
            observed.stop()
    drift = baseline_drift(run, deployment.name, threshold=0.15)
    if drift:
        run.notes.append(f"{deployment.name}: {drift}")
    for problem in server_log_problems(server):
        run.failures.append(f"{deployment.name}: {problem}")
    for problem in server_log_problems(observed) if observed is not None else ():
        run.failures.append(f"{deployment.name}-observed: {problem}")


def measure_slice(
    server: Any, case: Case, ctx: Context, opts: argparse.Namespace, db: str | None, warm: bool
) -> Measurement:
    """One round of a case; measured again when other processes were busy meanwhile."""
    best = None
    for attempt in range(1 + opts.busy_retries):
        if "redis" in case.needs:
            redis_client().flushdb()
        m = measure(server, case, ctx, opts, db, warm=warm and attempt == 0)
        status = "FAILED: " + "; ".join(m.failures) if m.failures else "ok"
        log(
            f"  {case.name:<12} {m.rps:8.1f} req/s  p50 {m.p50_ms:7.1f} ms  "
            f"p99 {m.p99_ms:7.1f} ms  cpu {fmt(m.cpu_ms, 2)} ms/req  "
            f"queries {fmt(m.queries, 1)}  others {fmt(m.others * 100, 0)} %  {status}"
        )
        if m.failures:
            return m
        if best is None or (m.others or 0) < (best.others or 0):
            best = m
        if (m.others or 0) <= BUSY_LIMIT:
            break
        if attempt < opts.busy_retries:
            log(f"  {case.name}: other processes were busy; measuring again")
    return best


# --- worker cases -------------------------------------------------------------------------


def run_webhooks(run: Run, opts: argparse.Namespace, db_url: str, logdir: Path) -> None:
    from a2a_app.models import Delivery
    from bench import procs, webhooks

    log("\n== webhook deliveries (uvicorn creates the tasks, then 2 Celery worker processes)")
    note_code_change(run, "webhooks")
    redis_client().flushdb()
    env = server_env(db_url)
    receiver = webhooks.start_receiver()
    server = procs.start_server(procs.DEPLOYMENTS["uvicorn"], env, logdir, "webhooks-web")
    worker = None
    try:
        count = opts.webhook_tasks
        task_ids = webhooks.create_tasks(server.base, receiver.url, count)
        expected = Delivery.objects.filter(task_id__in=task_ids).count()
        log(f"  {count} tasks with a push config: {expected} deliveries queued")
        worker = procs.start_worker(env, logdir, "webhooks-worker", concurrency=2)
        cpu_before = procs.tree_cpu(worker.pid)
        result = webhooks.wait_and_check(receiver, task_ids, expected, timeout=opts.timeout)
        result.worker_cpu_ms = (
            (procs.tree_cpu(worker.pid) - cpu_before) * 1000 / max(1, result.delivered)
        )
    finally:
        if worker is not None:
            worker.stop()
        server.stop()
        receiver.close()
    run.worker_results["webhooks"] = asdict(result)
    log(
        f"  {result.per_second:.1f} deliveries/s ({result.delivered} in {result.drain_s:.1f} s), "
        f"worker CPU {result.worker_cpu_ms:.1f} ms/delivery"
        + (f"  FAILED: {'; '.join(result.failures)}" if result.failures else "  ok")
    )
    if result.failures:
        run.failures.append("webhooks: " + "; ".join(result.failures))
    if worker is not None and "Traceback" in worker.tail(2_000_000):
        run.failures.append(f"webhooks: tracebacks in the worker log {worker.log}")


def run_streaming(
    run: Run, opts: argparse.Namespace, notifier: str, db_url: str, logdir: Path
) -> None:
    from bench import procs, streaming

    name = f"stream-{notifier}"
    log(
        f"\n== streaming delay, {notifier} notifier "
        f"({opts.streams} streams at once, uvicorn + 1 Celery worker × 4)"
    )
    note_code_change(run, name)
    redis_client().flushdb()
    extra = {"A2A_NOTIFIER_REDIS_URL": REDIS_URL} if notifier == "redis" else {}
    env = server_env(db_url, **extra)
    server = procs.start_server(procs.DEPLOYMENTS["uvicorn"], env, logdir, f"{name}-web")
    worker = None
    try:
        worker = procs.start_worker(env, logdir, f"{name}-worker", concurrency=4)
        result = streaming.measure(
            server.base, opts.streams, opts.stream_sleep, timeout=opts.timeout
        )
    finally:
        if worker is not None:
            worker.stop()
        server.stop()
    summary = {
        "streams": result.streams,
        "events": len(result.delays_ms),
        "median_ms": result.median,
        "p99_ms": result.percentile(99),
        "max_ms": max(result.delays_ms) if result.delays_ms else float("nan"),
        "wall_s": result.wall_s,
        "backlog": len(result.backlog_ms),
        "backlog_median_ms": (
            statistics.median(result.backlog_ms) if result.backlog_ms else float("nan")
        ),
        "by_phase": {
            phase: {
                "events": len(delays),
                "median_ms": statistics.median(delays),
                "p99_ms": result.percentile(99, delays),
            }
            for phase, delays in (("opening", result.opening_ms), ("steady", result.steady_ms))
            if delays
        },
        "by_event": {
            kind: {
                "events": len(delays),
                "median_ms": statistics.median(delays),
                "p99_ms": result.percentile(99, delays),
            }
            for kind, delays in result.by_event.items()
        },
        "failures": result.failures,
    }
    run.worker_results[name] = summary
    log(
        f"  {summary['events']} events: median {summary['median_ms']:.1f} ms, "
        f"p99 {summary['p99_ms']:.1f} ms, max {summary['max_ms']:.1f} ms"
        + (f"  FAILED: {'; '.join(result.failures[:5])}" if result.failures else "  ok")
    )
    if result.backlog_ms:
        log(
            f"    + {summary['backlog']} events written before their stream started "
            f"(median {summary['backlog_median_ms']:.1f} ms; not in the figures above)"
        )
    for phase, by in summary["by_phase"].items():
        log(
            f"    {phase + ':':<10} {by['events']:4} events written "
            + ("while streams opened" if phase == "opening" else "once all were open")
            + f": median {by['median_ms']:.1f} ms, p99 {by['p99_ms']:.1f} ms"
        )
    for kind, by in summary["by_event"].items():
        log(
            f"    {kind:<10} {by['events']:4} events: median {by['median_ms']:.1f} ms, "
            f"p99 {by['p99_ms']:.1f} ms"
        )
    if not result.events:
        result.failures.append("no event received")
    if result.failures:
        run.failures.append(f"{name}: " + "; ".join(result.failures[:5]))
    for problem in server_log_problems(server):
        run.failures.append(f"{name}: {problem}")


# --- main ---------------------------------------------------------------------------------


def default_report(args: argparse.Namespace) -> str | None:
    """Where a run without ``--report`` writes its report: docs/performance.md for a run
    of every case on every server, which is what that file shows; stdout ("-") for a run
    of some cases or servers, rather than overwrite it with a part; none for a smoke run.
    """
    if args.smoke:
        return None
    return "-" if args.cases or args.servers else str(REPORT)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    from bench import procs

    parser = argparse.ArgumentParser(
        prog="python -m bench.run",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="cases: "
        + ", ".join([*CASES_BY_NAME, *WORKER_CASES])
        + "\ngroups: "
        + ", ".join(GROUPS)
        + "\nservers: "
        + ", ".join(d for d in procs.DEPLOYMENTS if d != "a2a-sdk")
        + " (gunicorn = gunicorn-gthread)",
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="a short run: 2 s per case, cards and SendMessage, no report",
    )
    parser.add_argument("--cases", help="comma-separated cases or groups (default: all)")
    parser.add_argument(
        "--servers", help="comma-separated (default: uvicorn,gunicorn-gthread,gunicorn-sync)"
    )
    parser.add_argument("--duration", type=float, help="seconds per case (default 18)")
    parser.add_argument("--warmup", type=float, help="warm-up seconds per case (default 2)")
    parser.add_argument(
        "--rounds",
        type=int,
        help="interleaved rounds the duration is split into (default 6; 1 with --smoke)",
    )
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--webhook-tasks", type=int, help="tasks with a push config (default 500)")
    parser.add_argument("--streams", type=int, help="concurrent SSE streams (default 48)")
    parser.add_argument(
        "--retention-tasks",
        type=int,
        default=1_000_000,
        help="expired tasks the retention case seeds (default 1,000,000)",
    )
    parser.add_argument(
        "--stream-sleep", type=float, default=0.5, help="seconds the streamed background task works"
    )
    parser.add_argument(
        "--timeout", type=float, default=300, help="limit for webhook and stream phases, seconds"
    )
    parser.add_argument(
        "--quiet-wait",
        type=float,
        help="before each case, wait up to this many seconds for the rest of "
        "the machine to use < 25 %% of a core (default 20; 0 with --smoke)",
    )
    parser.add_argument(
        "--busy-retries",
        type=int,
        help="measure a case again (at most this often) when other processes used more "
        "than half a core meanwhile; the quietest run counts (default 1; 0 with --smoke)",
    )
    parser.add_argument(
        "--keep-db", action="store_true", help="use the database as it is (no drop and re-create)"
    )
    parser.add_argument(
        "--render",
        metavar="RESULTS_JSON",
        help="measure nothing: write the report from a results.json of an earlier run",
    )
    parser.add_argument(
        "--report",
        help=f"Markdown report path, '-' for stdout (default: {REPORT.relative_to(ROOT)} "
        "for a run of every case on every server; stdout with --cases or --servers; none "
        "with --smoke)",
    )
    args = parser.parse_args(argv)
    smoke = args.smoke
    args.duration = args.duration or (2 if smoke else 18)
    args.warmup = args.warmup if args.warmup is not None else (0 if smoke else 2)
    args.rounds = max(1, args.rounds or (1 if smoke else 6))
    args.quiet_wait = args.quiet_wait if args.quiet_wait is not None else (0 if smoke else 20)
    args.busy_retries = args.busy_retries if args.busy_retries is not None else (0 if smoke else 1)
    args.webhook_tasks = args.webhook_tasks or (20 if smoke else 500)
    args.streams = args.streams or (4 if smoke else 48)
    if args.report is None:
        args.report = default_report(args)
    names: list[str] = []
    for item in (args.cases or (",".join(SMOKE_CASES) if smoke else "all")).split(","):
        item = item.strip()
        if not item:
            continue
        if item in GROUPS:
            names += GROUPS[item]
        elif item in CASES_BY_NAME or item in WORKER_CASES:
            names.append(item)
        else:
            parser.error(f"unknown case {item!r}")
    args.case_names = list(dict.fromkeys(names))
    servers = []
    default_servers = ",".join(SMOKE_SERVERS) if smoke else "uvicorn,gunicorn-gthread,gunicorn-sync"
    for item in (args.servers or default_servers).split(","):
        item = procs.ALIASES.get(item.strip(), item.strip())
        if item not in procs.DEPLOYMENTS or item == "a2a-sdk":
            parser.error(f"unknown server {item!r}")
        servers.append(item)
    args.server_names = list(dict.fromkeys(servers))
    return args


def rerender(opts: argparse.Namespace) -> int:
    """Write the report of an earlier (successful) run from its results.json."""
    data = json.loads(Path(opts.render).read_text())
    measurements = [Measurement(**m) for m in data.pop("measurements")]
    known = {f.name for f in dataclasses.fields(Run)}
    run = Run(**{k: v for k, v in data.items() if k in known}, measurements=measurements)
    if run.failures:
        sys.exit("bench: that run had failures; no report")
    setup_django(run.database)
    run_opts = argparse.Namespace(**run.options)
    report = render(run, run_opts, run.database)
    if opts.report == "-":
        log(report)
    else:
        Path(opts.report).write_text(report + "\n")
        log(f"bench: report written to {opts.report}")
    return 0


def take_lock() -> Any:
    """One run at a time per machine: two would drop each other's database, flush each
    other's broker and share the CPUs. The lock goes with the process."""
    import fcntl

    handle = LOCK_PATH.open("a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "?"
        sys.exit(
            f"bench: another run (pid {holder}) holds {LOCK_PATH}: it uses the same "
            "database, Redis database and CPUs; wait for it to finish"
        )
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    if opts.render:
        return rerender(opts)
    lock = take_lock()  # noqa: F841 (held until the process ends)
    ensure_wrk()
    run = Run(options={k: v for k, v in vars(opts).items()})
    run.started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    run.code = code_version()
    run.code_files = code_files()
    db_url = database_url()
    run.database = db_url
    logdir = Path(f"/tmp/a2a-bench-{datetime.now():%Y%m%d-%H%M%S}")
    logdir.mkdir(parents=True, exist_ok=True)
    log(f"bench: database {db_url}, logs in {logdir}")

    http = [CASES_BY_NAME[n] for n in opts.case_names if n in CASES_BY_NAME]
    sdk_cases = [c for c in http if c.app == "sdk"]
    # The SDK's cases are compared with a2a_app's same cases, measured beside them.
    counterparts = [CASES_BY_NAME[c.name.removeprefix("sdk-")] for c in sdk_cases]
    site_cases = list(dict.fromkeys([*(c for c in http if c.app == "bench"), *counterparts]))
    workers = [n for n in opts.case_names if n in WORKER_CASES]
    needs = {need for case in site_cases for need in case.needs}
    if (workers or "redis" in needs) and not redis_ok():
        sys.exit(f"bench: Redis at {REDIS_URL} is needed by {workers or 'send-bg'}; not reachable")
    if sdk_cases:
        try:
            import a2a.server.routes  # noqa: F401
            import starlette  # noqa: F401
        except ImportError as exc:
            run.skipped.append(
                f"the a2a-sdk comparison ({exc}; pip install -r bench/requirements-sdk.txt)"
            )
            sdk_cases = []
    if "gunicorn" in " ".join(opts.server_names):
        import gunicorn  # noqa: F401  (a clear error now rather than a server that won't start)

    reset_database(db_url, opts.keep_db)
    setup_django(db_url)
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    run.environment = environment(db_url)
    run.notes += setup_notes()
    if redis_ok():
        redis_client().flushdb()

    from bench import seed

    seeded: dict[str, str] = {}
    if "long" in needs:
        seeded["long"] = seed.long_history_task(LONG_HISTORY)
        log(f"  seeded a task with {LONG_HISTORY:,} messages")
    if "big" in needs:
        if seed.big_context_size() != BIG_CONTEXT_TASKS:
            if seed.big_context_size():
                sys.exit(
                    f"bench: context {seed.big_context_id()} exists with another size; "
                    "run without --keep-db"
                )
            seed.big_context(BIG_CONTEXT_TASKS, log=log)
        seeded["deep"] = seed.deep_page_token(DEEP_OFFSET)
    if "caller" in needs:
        from bench import listing

        listing.seed(log=log)
    if needs & {"long", "big", "caller"}:
        seed.analyze()

    try:
        if site_cases:
            wanted = {c.baseline for c in site_cases} | {c.name for c in site_cases}
            order = [CASES_BY_NAME[b] for b in BASELINES if b in wanted]
            middle = [c for c in site_cases if c.name not in BASELINES]
            # The a2a-sdk server runs beside each deployment: its cases are measured in
            # the same interleaved rounds as a2a_app's, so the two see the same machine.
            sdk_server = None
            if sdk_cases:
                from bench import procs

                sdk_server = procs.start_server(
                    procs.DEPLOYMENTS["a2a-sdk"], server_env(db_url), logdir, "a2a-sdk"
                )
            try:
                for name in opts.server_names:
                    run_http(
                        run,
                        opts,
                        name,
                        [*order, *middle],
                        db_url,
                        seeded,
                        logdir,
                        companion=sdk_server,
                        companion_cases=sdk_cases,
                    )
            finally:
                if sdk_server is not None:
                    sdk_server.stop()
        if "webhooks" in workers:
            run_webhooks(run, opts, db_url, logdir)
        for notifier in ("db", "redis"):
            if f"stream-{notifier}" in workers:
                run_streaming(run, opts, notifier, db_url, logdir)
        if "scale-out" in workers:
            from bench import scaleout

            scaleout.run_case(run, opts, db_url, logdir)
        if "retention" in workers:  # last: it leaves a million rows behind
            from bench import retention

            retention.run_case(run, opts, db_url, logdir)
        note_code_change(run, "the end")
    except Exception as exc:  # a server that won't start, a broken phase: no report
        run.failures.append(f"{type(exc).__name__}: {exc}")
    finally:
        if redis_ok():
            redis_client().flushdb()

    (logdir / "results.json").write_text(json.dumps(asdict(run), indent=2, default=str))
    report = render(run, opts, db_url)
    if run.failures:
        log("\nbench: FAILED; no report written:")
        for failure in run.failures:
            log(f"  - {failure}")
        log(f"logs and results in {logdir}")
        return 1
    if opts.report == "-" or opts.smoke and not opts.report:
        log("\n" + report)
    elif opts.report:
        Path(opts.report).parent.mkdir(parents=True, exist_ok=True)
        Path(opts.report).write_text(report + "\n")
        log(f"\nbench: report written to {opts.report}; logs and results in {logdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
