"""``manage.py a2a_task_counts``: check the task counts behind ListTasks' ``totalSize``.

Without options it compares the kept counts with a COUNT over the task table and exits
1 when they differ (run it while nothing writes tasks). ``--rebuild`` recounts every task
(after a restore that bypassed the triggers, or to repair); ``--compact`` drops the count
rows that count nothing. See :mod:`a2a_app.core.task_counts`.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS

from a2a_app.core import task_counts


class Command(BaseCommand):
    help = "Check ListTasks' kept task counts against the tasks; --rebuild or --compact them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--rebuild", action="store_true", help="Recount every task (writers wait)."
        )
        parser.add_argument(
            "--compact", action="store_true", help="Delete count rows that count nothing."
        )
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(self, *args: Any, rebuild: bool, compact: bool, database: str, **options: Any):
        if not task_counts.kept(database):
            raise CommandError("this database keeps no task counts (PostgreSQL and SQLite do)")
        if rebuild:
            rows = task_counts.rebuild(database)
            self.stdout.write(f"Recounted the tasks: {rows} count rows.")
        if compact:
            self.stdout.write(f"Deleted {task_counts.compact(database)} empty count rows.")
        if rebuild or compact:
            return
        wrong = task_counts.differences(database)
        if not wrong:
            self.stdout.write("The task counts are exact.")
            return
        for (per_context, owner, context_id, state), (kept, counted) in sorted(wrong.items()):
            where = context_id if per_context else "(all contexts)"
            self.stdout.write(f"{owner or 'anonymous'} {where} {state}: {kept} kept, {counted}")
        self.stdout.write(f"{len(wrong)} counts differ: run with --rebuild.")
        sys.exit(1)
