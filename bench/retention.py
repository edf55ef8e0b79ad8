"""Retention under load: SendMessage latency while the purge deletes expired tasks.

PostgreSQL only. ``seed`` writes ``count`` COMPLETED tasks that ended 400 days ago, each
with two messages, an artifact and two events, and every tenth with a push config and a
delivered webhook per event: one ``INSERT ... SELECT generate_series`` per table, so a
million tasks take a minute rather than an hour. Then wrk loads SendMessage (the "send"
case) in interleaved rounds: once alone, once while a thread of this process runs
:func:`a2a_app.core.retention.purge` without a pause (the sweep does the same for
``RETENTION_SWEEP_SECONDS`` of every run: this is its worst case). Reported: both p99s,
their ratio (the budget: ≤ 2), and the tasks deleted per second meanwhile.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

#: The budget: SendMessage p99 while deleting over its p99 without.
P99_LIMIT = 2.0
AGE_DAYS = 400
TITLE = "Retention deleting expired tasks while SendMessage runs"

#: ``i`` (1..count) → the seeded task's id, so children can be written by id alone.
TASK_ID = "('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid"

SEED_SQL = [
    f"""
    INSERT INTO a2a_app_task (id, context_id, owner, skill_id, state, status_message,
        status_timestamp, metadata, skill_state, protocol_version, created_at,
        artifact_count, background, event_count, message_count, push_config_count,
        run_attempts, first_message_id, summary)
    SELECT {TASK_ID}, 'bench-expired-' || (i %% 1000), 'anon:127.0.0.1', 'conformance',
        'TASK_STATE_COMPLETED', NULL, %(ended)s - i * interval '1 millisecond', '{{}}', '{{}}',
        '1.0', %(ended)s - i * interval '1 millisecond', 1, false, 2, 2,
        CASE WHEN i %% 10 = 0 THEN 1 ELSE 0 END, 0, 'bench-expired-' || i, 'hello'
    FROM generate_series(1, %(count)s) AS i
    """,
    f"""
    INSERT INTO a2a_app_taskmessage (task_id, position, message_id, role, body, created_at)
    SELECT {TASK_ID}, p, 'bench-expired-' || i || '-' || p,
        CASE p WHEN 0 THEN 'ROLE_USER' ELSE 'ROLE_AGENT' END,
        jsonb_build_object('messageId', 'bench-expired-' || i || '-' || p,
            'role', CASE p WHEN 0 THEN 'ROLE_USER' ELSE 'ROLE_AGENT' END,
            'parts', jsonb_build_array(jsonb_build_object('text',
                CASE p WHEN 0 THEN 'hello' ELSE 'echo: hello' END))),
        %(ended)s
    FROM generate_series(1, %(count)s) AS i, generate_series(0, 1) AS p
    """,
    f"""
    INSERT INTO a2a_app_taskartifact (task_id, position, artifact_id, name, body, created_at)
    SELECT {TASK_ID}, 0, 'a' || i, 'echo',
        jsonb_build_object('artifactId', 'a' || i, 'name', 'echo',
            'parts', jsonb_build_array(jsonb_build_object('text', 'echo: hello'))),
        %(ended)s
    FROM generate_series(1, %(count)s) AS i
    """,
    f"""
    INSERT INTO a2a_app_taskevent (task_id, sequence, kind, body, created_at)
    SELECT {TASK_ID}, s, 'status',
        jsonb_build_object('statusUpdate', jsonb_build_object('taskId', {TASK_ID}::text,
            'status', jsonb_build_object('state', CASE s WHEN 0 THEN 'TASK_STATE_WORKING'
                ELSE 'TASK_STATE_COMPLETED' END))),
        %(ended)s
    FROM generate_series(1, %(count)s) AS i, generate_series(0, 1) AS s
    """,
    f"""
    INSERT INTO a2a_app_pushconfig (task_id, config_id, url, token, auth_scheme, credentials,
        protocol_version, created_at)
    SELECT {TASK_ID}, 'hook', 'https://hooks.example.com/a2a', '', '', '', '1.0', %(ended)s
    FROM generate_series(10, %(count)s, 10) AS i
    """,
    """
    INSERT INTO a2a_app_delivery (task_id, config_id, event_id, url, status, attempts,
        last_status_code, last_error, next_attempt_at, delivered_at, created_at, updated_at)
    SELECT e.task_id, c.id, e.id, c.url, 'delivered', 1, 200, '', %(ended)s, %(ended)s,
        %(ended)s, %(ended)s
    FROM a2a_app_pushconfig c JOIN a2a_app_taskevent e ON e.task_id = c.task_id
    WHERE c.config_id = 'hook' AND c.url = 'https://hooks.example.com/a2a'
    """,
]


def seed(count: int, log: Any = print) -> dict[str, int]:
    """``count`` expired tasks with their rows; the rows written per table."""
    from django.db import connection, transaction
    from django.utils import timezone

    started = time.monotonic()
    ended = timezone.now() - timedelta(days=AGE_DAYS)
    written = {}
    with transaction.atomic(), connection.cursor() as cursor:
        for sql in SEED_SQL:
            cursor.execute(sql, {"count": count, "ended": ended})
            table = sql.split("INSERT INTO ", 1)[1].split()[0]
            written[table] = cursor.rowcount
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    log(
        f"  seeded {count:,} expired tasks ({sum(written.values()):,} rows) in "
        f"{time.monotonic() - started:.0f} s"
    )
    return written


@dataclass
class RetentionResult:
    seeded_tasks: int = 0
    seeded_rows: int = 0
    p99_alone_ms: list[float] = field(default_factory=list)
    p99_deleting_ms: list[float] = field(default_factory=list)
    rps_alone: list[float] = field(default_factory=list)
    rps_deleting: list[float] = field(default_factory=list)
    deleted_tasks: int = 0
    deleted_rows: int = 0
    deleting_s: float = 0.0
    batch_size: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def p99_alone(self) -> float:
        return statistics.median(self.p99_alone_ms) if self.p99_alone_ms else float("nan")

    @property
    def p99_deleting(self) -> float:
        return statistics.median(self.p99_deleting_ms) if self.p99_deleting_ms else float("nan")

    @property
    def ratio(self) -> float:
        return self.p99_deleting / self.p99_alone if self.p99_alone_ms else float("nan")

    @property
    def tasks_per_second(self) -> float:
        return self.deleted_tasks / self.deleting_s if self.deleting_s else 0.0

    def summary(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "p99_alone": self.p99_alone,
            "p99_deleting": self.p99_deleting,
            "ratio": self.ratio,
            "tasks_per_second": self.tasks_per_second,
        }


class Purger(threading.Thread):
    """Deletes the expired tasks for ``seconds`` (the policy: 30 days), batch after batch."""

    def __init__(self, seconds: float) -> None:
        super().__init__(name="bench-purge", daemon=True)
        self.seconds = seconds
        self.counts: Any = None
        self.elapsed = 0.0
        self.error: BaseException | None = None

    def run(self) -> None:
        from django.db import connection

        from a2a_app.core import retention

        started = time.monotonic()
        try:
            self.counts = retention.purge(
                terminal_after=timedelta(days=30), max_seconds=self.seconds
            )
        except BaseException as exc:  # reported by the caller
            self.error = exc
        finally:
            self.elapsed = time.monotonic() - started
            connection.close()


def measure(
    base: str, opts: argparse.Namespace, seeded: dict[str, int], log: Any = print
) -> RetentionResult:
    """SendMessage alone and while deleting, ``opts.rounds`` interleaved rounds."""
    from a2a_app.conf import a2a_settings
    from bench.cases import CASES_BY_NAME, Context
    from bench.run import run_wrk, wrk_failures

    case = CASES_BY_NAME["send"]
    ctx = Context(base=base)
    result = RetentionResult(
        seeded_tasks=seeded.get("a2a_app_task", 0),
        seeded_rows=sum(seeded.values()),
        batch_size=a2a_settings.RETENTION_BATCH_SIZE,
    )
    run_id = f"r{uuid.uuid4().hex[:10]}"
    if opts.warmup > 0:
        warm = run_wrk(base, case, ctx, opts.warmup, opts.connections, run_id + "w")
        result.failures += [f"warm-up: {f}" for f in wrk_failures(warm)]
    seconds = opts.duration / opts.rounds
    for index in range(opts.rounds):
        alone = run_wrk(base, case, ctx, seconds, opts.connections, f"{run_id}a{index}")
        purger = Purger(seconds + 1)
        purger.start()
        deleting = run_wrk(base, case, ctx, seconds, opts.connections, f"{run_id}d{index}")
        purger.join()
        for name, outcome in (("alone", alone), ("deleting", deleting)):
            result.failures += [f"{name}: {f}" for f in wrk_failures(outcome)]
        if purger.error is not None:
            result.failures.append(f"purge: {type(purger.error).__name__}: {purger.error}")
            break
        counts = purger.counts.as_dict()
        counts.pop("batches")
        result.deleted_tasks += counts["tasks"]
        result.deleted_rows += sum(counts.values())
        result.deleting_s += purger.elapsed
        result.p99_alone_ms.append(alone["p99_us"] / 1000)
        result.p99_deleting_ms.append(deleting["p99_us"] / 1000)
        result.rps_alone.append(alone["requests"] / (alone["duration_us"] / 1e6))
        result.rps_deleting.append(deleting["requests"] / (deleting["duration_us"] / 1e6))
        log(
            f"  round {index + 1}: p99 alone {result.p99_alone_ms[-1]:.1f} ms, while deleting "
            f"{result.p99_deleting_ms[-1]:.1f} ms ({counts['tasks']:,} tasks, "
            f"{purger.elapsed:.1f} s)"
        )
    return result


def run_case(run: Any, opts: argparse.Namespace, db_url: str, logdir: Path) -> None:
    """The suite's phase (bench/run.py): seed, start uvicorn, measure, record."""
    from bench import procs
    from bench.config import is_postgres
    from bench.run import log, note_code_change, server_env

    log(f"\n== {TITLE.lower()} (uvicorn, purge in batches beside it)")
    if not is_postgres(db_url):
        run.skipped.append("retention: PostgreSQL only (DATABASE_URL)")
        log("  skipped: PostgreSQL only")
        return
    note_code_change(run, "retention")
    seeded = seed(opts.retention_tasks, log=log)
    server = procs.start_server(procs.DEPLOYMENTS["uvicorn"], server_env(db_url), logdir, "ret")
    try:
        result = measure(server.base, opts, seeded, log=log)
    finally:
        server.stop()
    run.worker_results["retention"] = result.summary()
    verdict = "ok" if not result.failures else "FAILED: " + "; ".join(result.failures[:3])
    log(
        f"  p99 {result.p99_alone:.1f} ms alone, {result.p99_deleting:.1f} ms while deleting "
        f"({result.ratio:.2f} ×); {result.tasks_per_second:,.0f} tasks/s deleted  {verdict}"
    )
    if result.failures:
        run.failures.append("retention: " + "; ".join(result.failures[:5]))


def budget_row(run: Any, columns: list[str]) -> str | None:
    """The budget table's line, in the uvicorn column (where it was measured)."""
    found = run.worker_results.get("retention")
    if not found or not found.get("p99_alone_ms"):
        return None
    ratio = found["ratio"]
    cell = (
        f"{ratio:.2f} × ({found['p99_deleting']:.1f} against {found['p99_alone']:.1f} ms; "
        f"{found['tasks_per_second']:,.0f} tasks/s deleted): "
        + ("**pass**" if ratio <= P99_LIMIT else "**FAIL**")
    )
    label = (
        f"Retention deleting {found['seeded_tasks']:,} expired tasks while SendMessage runs: "
        f"SendMessage p99 ≤ {P99_LIMIT:g} × its p99 without the deletion"
    )
    cells = [cell if name == "uvicorn" else "–" for name in columns]
    return f"| {label} | " + " | ".join(cells) + " |"


def report_row(found: dict[str, Any]) -> str:
    """The line of the background-work table."""
    return (
        f"| {TITLE}, uvicorn | **p99 {found['p99_deleting']:.1f} ms against "
        f"{found['p99_alone']:.1f} ms alone ({found['ratio']:.2f} ×); "
        f"{found['tasks_per_second']:,.0f} tasks/s deleted** ({found['deleted_tasks']:,} tasks, "
        f"{found['deleted_rows']:,} rows in {found['deleting_s']:.1f} s, batches of "
        f"{found['batch_size']}; {found['seeded_tasks']:,} expired tasks seeded with "
        f"{found['seeded_rows'] - found['seeded_tasks']:,} child rows) |"
    )
