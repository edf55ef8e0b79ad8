"""``manage.py a2a_skills``: registry versus Skill rows; ``--sync`` creates missing rows and
writes the code's values into the fields the owners did not edit (as ``migrate`` does)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from a2a_app.models import CODE_FIELDS, Skill
from a2a_app.skills import registry
from a2a_app.skills.catalogue import sync_all
from a2a_app.skills.sync import owned_fields


class Command(BaseCommand):
    help = (
        "List skills registered in code and Skill rows; --sync creates missing rows and "
        "brings the others up to date with the code (as migrate does)."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--sync",
            action="store_true",
            help="Create a Skill row for each handler without one, and write the code's "
            "values into the fields the owners did not edit.",
        )

    def handle(self, *args: Any, sync: bool = False, **options: Any) -> None:
        if sync:
            created, updated = sync_all()
            for skill_id in created:
                self.stdout.write(self.style.SUCCESS(f"created Skill row {skill_id!r}"))
            for skill_id in updated:
                self.stdout.write(self.style.SUCCESS(f"updated Skill row {skill_id!r}"))
        registered = registry.all_skills()
        rows = {row.handler: row for row in Skill.objects.all()}
        self.stdout.write(f"{'handler':<30} {'row':<30} {'state':<10} edited in the admin")
        for key in sorted(set(registered) | set(rows)):
            row = rows.get(key)
            edited = ""
            if row is None:
                if key == "conformance":
                    continue  # served in conformance mode only, never from a row
                state = self.style.WARNING("no row (made by migrate, or run with --sync)")
            elif key not in registered:
                state = self.style.ERROR("handler missing")
            else:
                state = "enabled" if row.enabled else "disabled"
                owned = owned_fields(row.edited_fields)
                edited = ", ".join(f for f in CODE_FIELDS if f in owned) or "-"
            self.stdout.write(f"{key:<30} {row.id if row else '-':<30} {state:<10} {edited}")
