"""Concurrent writers of one caller's tasks: what the counting triggers cost them.

``python -m bench.task_count_contention`` (``DATABASE_URL`` of a PostgreSQL database whose
name starts with ``bench_``; it is migrated, and the counting trigger is swapped for a
moment). Eight connections each insert tasks of ONE signed-in caller, one transaction per
task, each held 2 ms after its insert (as a handler's work would hold it), three ways:
the caller-wide count spread over 16 slots (as migrated), on one row (every writer
queues on it until the holder commits), and with no counting trigger. Prints inserts/s.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import uuid
from urllib.parse import urlsplit

WRITERS, EACH, HOLD_SECONDS = 8, 150, 0.002
OWNER = "user:bench-contention"
INSERT = (
    "INSERT INTO a2a_app_task (id, context_id, owner, skill_id, state, status_timestamp,"
    " metadata, skill_state, protocol_version, created_at, summary, first_message_id,"
    " message_count, artifact_count, event_count, push_config_count, background,"
    " run_attempts) VALUES (%s, %s, %s, '', 'TASK_STATE_SUBMITTED', now(),"
    " '{}', '{}', '1.0', now(), '', '', 0, 0, 0, 0, false, 0)"
)
FUNCTION = "CREATE OR REPLACE FUNCTION a2a_task_count_insert() RETURNS trigger LANGUAGE plpgsql"


def _writer(dsn: str, done: list[int]) -> None:
    import psycopg

    with psycopg.connect(dsn) as conn:
        for _ in range(EACH):
            with conn.transaction():
                conn.execute(INSERT, [uuid.uuid4(), f"ctx-{uuid.uuid4()}", OWNER])
                conn.execute("SELECT pg_sleep(%s)", [HOLD_SECONDS])
    done.append(EACH)


def _measure(dsn: str, label: str) -> None:
    done: list[int] = []
    threads = [threading.Thread(target=_writer, args=(dsn, done)) for _ in range(WRITERS)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    took = time.monotonic() - started
    print(f"{label:<28} {sum(done):,} inserts in {took:5.2f} s: {sum(done) / took:6.0f}/s")


def main() -> int:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        sys.exit("bench.task_count_contention: DATABASE_URL must name PostgreSQL")
    if not urlsplit(url).path.lstrip("/").startswith("bench_"):
        sys.exit("bench.task_count_contention: the database's name must start with bench_")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    import django
    import psycopg

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    dsn = url.replace("postgres://", "postgresql://", 1)
    with psycopg.connect(dsn, autocommit=True) as conn:
        body = conn.execute(
            "SELECT prosrc FROM pg_proc WHERE proname = 'a2a_task_count_insert'"
        ).fetchone()[0]
        one_row = body.replace("pg_backend_pid() % 16", "0")
        assert one_row != body, "the trigger has no slots to take away"
        try:
            _measure(dsn, "caller count on 16 slots")
            conn.execute(f"{FUNCTION} AS $f${one_row}$f$")
            _measure(dsn, "caller count on one row")
            conn.execute(f"{FUNCTION} AS $f${body}$f$")
            conn.execute("ALTER TABLE a2a_app_task DISABLE TRIGGER a2a_task_count_insert")
            _measure(dsn, "no counting trigger")
        finally:
            conn.execute(f"{FUNCTION} AS $f${body}$f$")
            conn.execute("ALTER TABLE a2a_app_task ENABLE TRIGGER a2a_task_count_insert")
            conn.execute("DELETE FROM a2a_app_task WHERE owner = %s", [OWNER])
    from a2a_app.core import task_counts

    task_counts.rebuild()  # the untriggered inserts were deleted with the trigger on
    return 0


if __name__ == "__main__":
    sys.exit(main())
