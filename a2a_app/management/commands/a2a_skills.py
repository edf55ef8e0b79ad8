"""``manage.py a2a_skills``: registry versus Skill rows; ``--sync`` creates missing rows."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from a2a_app.models import Skill
from a2a_app.skills import registry
from a2a_app.skills.catalogue import sync_rows


class Command(BaseCommand):
    help = "List skills registered in code and Skill rows; --sync creates missing rows."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--sync", action="store_true", help="Create a Skill row for each unpublished handler."
        )

    def handle(self, *args: Any, sync: bool = False, **options: Any) -> None:
        if sync:
            for skill_id in sync_rows():
                self.stdout.write(self.style.SUCCESS(f"created Skill row {skill_id!r}"))
        registered = registry.all_skills()
        rows = {row.handler: row for row in Skill.objects.all()}
        self.stdout.write(f"{'handler':<30} {'row':<30} state")
        for key in sorted(set(registered) | set(rows)):
            row = rows.get(key)
            if row is None:
                state = self.style.WARNING("no row (run with --sync)")
            elif key not in registered:
                state = self.style.ERROR("handler missing")
            else:
                state = "enabled" if row.enabled else "disabled"
            self.stdout.write(f"{key:<30} {row.id if row else '-':<30} {state}")
