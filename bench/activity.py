"""The admin's activity page at scale: ``python -m bench.activity`` (PostgreSQL only).

Seeds ``--tasks`` tasks (default 1,000,000) spread evenly over ``--spread-days`` days
(default 365), with handler times and a webhook delivery for one task in fifty, straight in
SQL (``generate_series``), into a database whose name starts with "bench" (dropped and
re-created unless ``--keep-db``). Then it times, in the same run:

* the baseline: ``SELECT count(*)`` of the tasks made in the range, the cheapest question
  an index on ``created_at`` answers;
* ``a2a_app.activity.activity(days)``, everything the page shows (6 queries);

for each range the page offers, and prints the ratio, the median of ``--rounds`` rounds,
and the plan of the page's biggest query. The machine may be shared: read the ratio, not
the milliseconds.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_x python -m bench.activity
"""

from __future__ import annotations

import argparse
import fcntl
import os
import statistics
import sys
import time
from datetime import datetime, timedelta

from bench.config import LOCK_PATH

SEED_SQL = """
INSERT INTO a2a_app_task (
    id, context_id, owner, skill_id, state, status_message, status_timestamp, metadata,
    skill_state, protocol_version, created_at, summary, first_message_id, message_count,
    artifact_count, event_count, push_config_count, background, enqueued_at, run_attempts,
    lease_expires_at, started_at, finished_at
)
SELECT
    gen_random_uuid(), 'bench-activity-' || (n %% 1000), '',
    (ARRAY['restaurant.book_table', 'restaurant.menu', 'catering', 'opening-hours'])[n %% 4 + 1],
    -- Staff answer within days: tasks waiting for them are the last fortnight's (1 in 8);
    -- callers may never answer: INPUT_REQUIRED ones stay all year (1 in 8).
    CASE WHEN n %% 8 = 7 AND at < %(now)s::timestamptz - interval '14 days'
        THEN 'TASK_STATE_COMPLETED'
        ELSE (ARRAY['TASK_STATE_COMPLETED', 'TASK_STATE_COMPLETED', 'TASK_STATE_COMPLETED',
                    'TASK_STATE_FAILED', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_CANCELED',
                    'TASK_STATE_REJECTED', 'TASK_STATE_WORKING'])[n %% 8 + 1] END,
    CASE WHEN n %% 8 = 3
        THEN '{"role": "ROLE_AGENT", "parts": [{"text": "It did not work."}]}'::jsonb END,
    at, '{}'::jsonb, '{}'::jsonb, '1.0', at, 'seeded', '', 2, 1, 3, 0, false, NULL, 0, NULL,
    at, at + (n %% 997) * interval '1 millisecond'
FROM (
    SELECT n, %(now)s::timestamptz - (n * %(spread)s::float / %(tasks)s) * interval '1 day' AS at
    FROM generate_series(1, %(tasks)s) AS n
) AS seeded
"""

DELIVERIES_SQL = """
WITH hooked AS (
    SELECT id, created_at, row_number() OVER () AS n FROM a2a_app_task
    WHERE context_id = 'bench-activity-7'
), configs AS (
    INSERT INTO a2a_app_pushconfig (task_id, config_id, url, token, auth_scheme, credentials,
        protocol_version, created_at)
    SELECT id, 'hook', 'https://93.184.216.34/', '', '', '', '1.0', created_at FROM hooked
    RETURNING id, task_id
), events AS (
    INSERT INTO a2a_app_taskevent (task_id, sequence, kind, body, created_at)
    SELECT id, 1, 'status', '{}'::jsonb, created_at FROM hooked
    RETURNING id, task_id, created_at
)
INSERT INTO a2a_app_delivery (task_id, config_id, event_id, url, status, attempts, last_error,
    next_attempt_at, created_at, updated_at)
SELECT events.task_id, configs.id, events.id, 'https://93.184.216.34/',
    CASE WHEN hooked.n % 20 = 0 THEN 'failed' ELSE 'delivered' END, 1, '',
    events.created_at, events.created_at, events.created_at
FROM events JOIN configs USING (task_id) JOIN hooked ON hooked.id = events.task_id
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1_000_000)
    parser.add_argument("--spread-days", type=int, default=365)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keep-db", action="store_true")
    opts = parser.parse_args()

    url = os.environ.get("DATABASE_URL", "")
    name = url.rsplit("/", 1)[-1]
    if not url.startswith(("postgres://", "postgresql://")) or not name.startswith("bench"):
        print("DATABASE_URL must name a PostgreSQL database whose name starts with 'bench'")
        return 2
    # Other benchmarks share the CPUs: wait for the one running now (bench.run's lock).
    lock = LOCK_PATH.open("a+")
    fcntl.flock(lock, fcntl.LOCK_EX)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.project.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from a2a_app import activity
    from a2a_app.models import Task

    if not opts.keep_db:
        _recreate(name)
    call_command("migrate", verbosity=0)
    if not Task.objects.exists():
        started = time.monotonic()
        with connection.cursor() as cursor:
            now = timezone.now()
            cursor.execute(SEED_SQL, {"now": now, "spread": opts.spread_days, "tasks": opts.tasks})
            _hook_some(cursor)
            cursor.execute("ANALYZE")
        print(f"seeded {opts.tasks:,} tasks in {time.monotonic() - started:.0f} s")
    total = Task.objects.count()
    print(f"{total:,} tasks over {opts.spread_days} days; median of {opts.rounds} rounds\n")
    print(f"{'days':>5} {'tasks in range':>15} {'count(*) ms':>12} {'page ms':>9} {'ratio':>7}")
    for days in activity.RANGES:
        since = _since(days)
        in_range = Task.objects.filter(created_at__gte=since).count()
        baseline = _median(
            opts.rounds, lambda since=since: Task.objects.filter(created_at__gte=since).count()
        )
        page = _median(opts.rounds, lambda days=days: activity.activity(days))
        print(f"{days:>5} {in_range:>15,} {baseline:>12.1f} {page:>9.1f} {page / baseline:>7.1f}")
    with connection.cursor() as cursor:
        cursor.execute(
            "EXPLAIN SELECT skill_id, state, count(*) FROM a2a_app_task "
            "WHERE created_at >= %s GROUP BY 1, 2",
            [_since(14)],
        )
        print("\nplan of the daily counts (14 days):")
        print("\n".join("  " + row[0] for row in cursor.fetchall()))
    return 0


def _hook_some(cursor: object) -> None:
    cursor.execute(DELIVERIES_SQL)  # type: ignore[attr-defined]


def _since(days: int) -> datetime:
    from django.utils import timezone

    first = timezone.localdate() - timedelta(days=days - 1)
    return timezone.make_aware(datetime.combine(first, datetime.min.time()))


def _median(rounds: int, call: object) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()  # type: ignore[operator]
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _recreate(name: str) -> None:
    import psycopg
    from django.db import connection as django_connection

    django_connection.close()
    settings = django_connection.settings_dict
    admin_url = f"host={settings['HOST'] or '127.0.0.1'} port={settings['PORT'] or 5432} "
    admin_url += f"user={settings['USER'] or 'postgres'} dbname=postgres"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')


if __name__ == "__main__":
    sys.exit(main())
