"""``manage.py a2a_purge``: delete the tasks the retention policy lets go, now.

By default the policy of the settings (``RETENTION_DAYS``,
``RETENTION_INTERRUPTED_DAYS``); ``--older-than`` and ``--interrupted-older-than`` replace
it for this run. Unlike the sweep it runs until nothing is left, batch by batch, each its
own transaction, so it may run beside the site. ``--dry-run`` only counts.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from a2a_app.conf import a2a_settings
from a2a_app.core import retention

UNITS = {"d": "days", "h": "hours", "m": "minutes", "s": "seconds"}


def duration(text: str) -> timedelta:
    """``30d``, ``12h``, ``90m``, ``45s`` or a number of days (``30``, ``0.5``)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([dhms]?)\s*", text)
    if not match:
        raise ValueError(f"{text!r} is no duration (e.g. 30d, 12h, 90m)")
    return timedelta(**{UNITS[match[2] or "d"]: float(match[1])})


class Command(BaseCommand):
    help = "Delete ended tasks (and their rows) older than the retention period, in batches."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than",
            help="Delete terminal tasks that ended longer ago than this (30d, 12h, 90m; "
            "a plain number is days). Default: RETENTION_DAYS.",
        )
        parser.add_argument(
            "--interrupted-older-than",
            help="Delete input-required and auth-required tasks unanswered this long. "
            "Default: RETENTION_INTERRUPTED_DAYS.",
        )
        parser.add_argument(
            "--batch-size", type=int, help="Tasks per transaction (default RETENTION_BATCH_SIZE)."
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Count what would be deleted; delete nothing."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            terminal = (
                duration(options["older_than"])
                if options["older_than"]
                else retention.days(a2a_settings.RETENTION_DAYS)
            )
            interrupted = (
                duration(options["interrupted_older_than"])
                if options["interrupted_older_than"]
                else retention.days(a2a_settings.RETENTION_INTERRUPTED_DAYS)
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if options["batch_size"] is not None and options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1")
        if terminal is None and interrupted is None:
            self.stdout.write(
                "Nothing to do: tasks are kept forever (RETENTION_DAYS and "
                "RETENTION_INTERRUPTED_DAYS are None; pass --older-than)."
            )
            return
        counts = retention.purge(
            terminal_after=terminal,
            interrupted_after=interrupted,
            batch_size=options["batch_size"],
            dry_run=options["dry_run"],
        )
        verb = "Would delete" if options["dry_run"] else "Deleted"
        self.stdout.write(
            f"{verb} {counts.tasks} tasks, {counts.messages} messages, "
            f"{counts.artifacts} artifacts, {counts.events} events, "
            f"{counts.push_configs} push configs, {counts.deliveries} deliveries"
            + ("" if options["dry_run"] else f" in {counts.batches} batches")
            + "."
        )
