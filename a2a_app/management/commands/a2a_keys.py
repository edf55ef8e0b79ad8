"""``manage.py a2a_keys``: issue, list and revoke the API keys calling agents use.

``create --user NAME --name TEXT [--scope S ...] [--expires-in-days N]`` prints the key
once (it is stored only as a digest); ``list`` shows prefixes, never keys;
``revoke PREFIX`` stops a key at once.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from a2a_app.models import ApiKey


class Command(BaseCommand):
    help = "Issue (create), list and revoke API keys for calling agents."

    def add_arguments(self, parser: Any) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        create = actions.add_parser("create", help="Issue a key; it is printed once.")
        create.add_argument("--user", required=True, help="The user name the key acts as.")
        create.add_argument("--name", required=True, help="What the key is for.")
        create.add_argument(
            "--scope",
            action="append",
            default=[],
            help="operation:<Method>, skill:<id> or a permission; repeat for several.",
        )
        create.add_argument("--expires-in-days", type=int, default=None)
        actions.add_parser("list", help="Show every key (prefix, never the key).")
        revoke = actions.add_parser("revoke", help="Revoke a key by its prefix.")
        revoke.add_argument("prefix")

    def handle(self, *args: Any, action: str, **options: Any) -> None:
        getattr(self, f"_{action}")(**options)

    def _create(
        self, *, user: str, name: str, scope: list[str], expires_in_days: int | None, **_: Any
    ) -> None:
        model = get_user_model()
        try:
            owner = model.objects.get(**{model.USERNAME_FIELD: user})
        except model.DoesNotExist:
            raise CommandError(f"No user {user!r}") from None
        problem = ApiKey.scope_problem(scope)
        if problem:
            raise CommandError(problem)
        if expires_in_days is not None and expires_in_days <= 0:
            raise CommandError("--expires-in-days must be a positive number of days")
        expires_at = timezone.now() + timedelta(days=expires_in_days) if expires_in_days else None
        key, raw = ApiKey.issue(owner, name, scopes=scope, expires_at=expires_at)
        self.stderr.write(f"Issued {key.prefix} for {user}. The key, shown only this once:")
        self.stdout.write(raw)

    def _list(self, **_: Any) -> None:
        header = f"{'prefix':<14} {'status':<8} {'user':<20} {'expires':<17} name / scopes"
        self.stdout.write(header)
        for key in ApiKey.objects.select_related("user"):
            expires = f"{key.expires_at:%Y-%m-%d %H:%M}" if key.expires_at else "never"
            scopes = ", ".join(key.scopes) or "(all the user may do)"
            self.stdout.write(
                f"{key.prefix:<14} {key.status:<8} {key.user.get_username():<20} "
                f"{expires:<17} {key.name} / {scopes}"
            )

    def _revoke(self, *, prefix: str, **_: Any) -> None:
        key = ApiKey.objects.filter(prefix=prefix).first()
        if key is None:
            raise CommandError(f"No API key with prefix {prefix!r}")
        key.revoke()
        self.stdout.write(self.style.SUCCESS(f"Revoked {key.prefix} ({key.name})"))
