"""The skill catalogue: the skills a site publishes, as the card and the router see them.

Rows are read once per web process and kept until the ``CatalogChange`` marker moves
(checked at most every ``CARD_REVALIDATE_SECONDS``) or the registry changes, so a
SendMessage costs no query for routing. Each row shows the code's values for the fields
its owner did not edit (see ``skills/sync.py``); a registered handler without a row gets
one when the rows are read (once: the marker then moves). A row whose handler is not
registered in this process (a deploy under way, a removed skill) is neither listed nor
routed to. In conformance mode the catalogue is the built-in ``conformance`` skill alone.

The agent profile (the card's name, description, provider...) rides on the same marker:
saving it moves the marker, and :func:`get_profile` reads the row again only when the
marker has moved, and only when a card is drawn (never for routing).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.apps import apps as django_apps
from django.core.exceptions import FieldDoesNotExist
from django.db import DEFAULT_DB_ALIAS, router
from django.db.models.signals import post_delete, post_save

from a2a_app.caller import Caller
from a2a_app.conf import a2a_settings
from a2a_app.models import AgentProfile, CatalogChange, Skill
from a2a_app.skills import registry, sync
from a2a_app.skills.registry import SkillSpec

#: The list fields a skill has in code and in its row, in SkillInfo's order.
_LISTS = ("tags", "examples", "input_modes", "output_modes")


@dataclass(frozen=True, slots=True)
class SkillInfo:
    id: str
    handler_key: str
    name: str
    description: str
    tags: tuple[str, ...]
    examples: tuple[str, ...]
    input_modes: tuple[str, ...]
    output_modes: tuple[str, ...]
    access: str
    enabled: bool = True
    execution: str = ""
    #: What a caller must hold when ``access`` is "permission".
    permission: str = ""

    def runs_in_background(self, message: Any) -> bool:
        """Run in a worker: the row's choice, else what the handler declares."""
        if self.execution:
            return self.execution == "background"
        spec = self.spec
        if spec is None:
            return False
        if callable(spec.background):
            return bool(spec.background(message))
        return bool(spec.background)

    @classmethod
    def from_row(cls, row: Skill) -> SkillInfo:
        """The row as published: what the owner edited in the admin, the code's values
        for the rest."""
        values = sync.shown_values(row)
        return cls(
            row.id,
            row.handler,
            values["name"],
            values["description"],
            *(tuple(values[f] or ()) for f in _LISTS),
            access=values["access"],
            enabled=row.enabled,
            execution=row.execution,
            permission=values["permission"],
        )

    @classmethod
    def from_spec(cls, spec: SkillSpec) -> SkillInfo:
        """What the ``@skill`` decorator declared (a skill with no row yet)."""
        texts = (spec.key, spec.key, spec.name, spec.description)
        lists = (getattr(spec, f) for f in _LISTS)
        return cls(*texts, *lists, access=spec.access, permission=spec.permission)

    @property
    def spec(self) -> SkillSpec | None:
        return registry.get(self.handler_key)

    @property
    def form(self) -> type | None:
        """The form the handler declares its input with (``@skill(form=...)``), if any."""
        spec = self.spec
        return spec.form if spec is not None else None

    @property
    def is_public(self) -> bool:
        return self.access == Skill.Access.PUBLIC

    def allows(self, caller: Caller) -> bool:
        """May ``caller`` see and use this skill? Its API key, if any, must cover the
        skill; then the access level decides (an unknown level lets nobody in)."""
        if not caller.may_use_skill(self.id):
            return False
        if self.access == Skill.Access.PUBLIC:
            return True
        if self.access == Skill.Access.AUTHENTICATED:
            return caller.is_authenticated
        if self.access == Skill.Access.PERMISSION:
            return bool(self.permission) and caller.has_permission(self.permission)
        return False

    def refusal(self, caller: Caller) -> str:
        """Why ``caller`` (signed in) may not use this skill, in words it may read."""
        if not caller.may_use_skill(self.id):
            return f"the caller's API key does not cover skill {self.id!r} (skill:{self.id})"
        if self.access == Skill.Access.PERMISSION and self.permission:
            return f"skill {self.id!r} needs the permission {self.permission!r}"
        return f"the caller may not use skill {self.id!r}"

    def to_card(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "tags": list(self.tags),
        }
        if self.examples:
            out["examples"] = list(self.examples)
        if self.input_modes:
            out["inputModes"] = list(self.input_modes)
        if self.output_modes:
            out["outputModes"] = list(self.output_modes)
        return out


@dataclass(frozen=True, slots=True)
class Catalogue:
    #: When the rows last changed (the ``CatalogChange`` marker).
    version: datetime | None
    skills: tuple[SkillInfo, ...]
    #: ``registry.generation()`` when built: the code side of the catalogue's version.
    code_version: int = 0

    @property
    def enabled(self) -> list[SkillInfo]:
        """The skills offered: enabled, and with a handler registered in this process (a
        row of a newer deploy's handler waits for this process to be replaced)."""
        return [s for s in self.skills if s.enabled and s.spec is not None]

    @property
    def has_restricted(self) -> bool:
        """Some enabled skill is not for everyone: an extended card has more to show."""
        return any(not s.is_public for s in self.enabled)

    def get(self, skill_id: str) -> SkillInfo | None:
        for info in self.skills:
            if info.id == skill_id:
                return info
        return None


class _CatalogueCache:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.clear()

    def clear(self) -> None:
        self.checked_at = float("-inf")
        self.catalogue: Catalogue | None = None
        #: (the marker's version it was read at, the row or None)
        self.profile: tuple[datetime | None, AgentProfile | None] | None = None


_cache = _CatalogueCache()
#: The registry generation for which this process made the missing rows (see _build).
_rows_made_for: int | None = None


_conformance: tuple[Any, Catalogue] | None = None


def conformance_catalogue() -> Catalogue:
    """The built-in conformance skill alone (rebuilt only if its registration changes)."""
    global _conformance
    spec = registry.get("conformance")
    if _conformance is None or _conformance[0] is not spec:
        catalogue = Catalogue(version=None, skills=(SkillInfo.from_spec(spec),) if spec else ())
        _conformance = (spec, catalogue)
    return _conformance[1]


def get_catalogue() -> Catalogue:
    """The current catalogue; at most one marker query per revalidation window."""
    if a2a_settings.CONFORMANCE_MODE:
        return conformance_catalogue()
    now = time.monotonic()
    code_version = registry.generation()
    with _cache.lock:
        cached = _cache.catalogue
        if (
            cached is not None
            and cached.code_version == code_version
            and now - _cache.checked_at < a2a_settings.CARD_REVALIDATE_SECONDS
        ):
            return cached
    version = _marker()
    if cached is None or cached.version != version or cached.code_version != code_version:
        cached = _build(version, code_version)
    with _cache.lock:
        _cache.catalogue = cached
        _cache.checked_at = now
    return cached


def _marker() -> datetime | None:
    return CatalogChange.objects.filter(ident=1).values_list("changed_at", flat=True).first()


def _build(version: datetime | None, code_version: int) -> Catalogue:
    global _rows_made_for
    rows = list(Skill.objects.all())
    # Once per process and registry: the first time the rows are read (no query in the
    # steady state). Not after every marker move, so a row deleted on purpose stays
    # deleted until the next start or migrate; the moved marker tells other processes.
    if _rows_made_for != code_version:
        _rows_made_for = code_version
        missing = sync.missing_specs((row.id, row.handler) for row in rows)
        if missing and sync.try_create_rows(missing):
            version = _marker()
            rows = list(Skill.objects.all())
    skills = tuple(SkillInfo.from_row(row) for row in rows)
    return Catalogue(version=version, skills=skills, code_version=code_version)


def get_profile(catalogue: Catalogue) -> AgentProfile | None:
    """The ``AgentProfile`` row (None: there is none), read again only when the marker of
    ``catalogue`` has moved since it was last read. In conformance mode the card is the
    settings' alone: the conformance catalogue has no marker to follow a save with."""
    if a2a_settings.CONFORMANCE_MODE:
        return None
    with _cache.lock:
        cached = _cache.profile
    if cached is not None and cached[0] == catalogue.version:
        return cached[1]
    row = AgentProfile.objects.filter(ident=1).first()
    with _cache.lock:
        _cache.profile = (catalogue.version, row)
    return row


def mark_changed(**kwargs: Any) -> None:
    """Move the change marker (signal receiver for Skill saves and deletes, and for
    AgentProfile saves and deletes)."""
    sync.move_marker()
    _cache.clear()


def clear_cache(**kwargs: Any) -> None:
    _cache.clear()


post_save.connect(mark_changed, sender=Skill, dispatch_uid="a2a_app.skill_saved")
post_delete.connect(mark_changed, sender=Skill, dispatch_uid="a2a_app.skill_deleted")
post_save.connect(mark_changed, sender=AgentProfile, dispatch_uid="a2a_app.profile_saved")
post_delete.connect(mark_changed, sender=AgentProfile, dispatch_uid="a2a_app.profile_deleted")


def sync_rows(using: str = DEFAULT_DB_ALIAS) -> list[str]:
    """Create a ``Skill`` row for each registered skill that has none (enabled as
    ``NEW_SKILLS_ENABLED`` says); return their ids."""
    created = sync.create_rows(
        sync.missing_specs(Skill.objects.using(using).values_list("id", "handler")), using
    )
    _cache.clear()
    return created


def sync_all(using: str = DEFAULT_DB_ALIAS) -> tuple[list[str], list[str]]:
    """Create the missing rows and write the code's values into the fields the owners did
    not edit: (created, updated) ids."""
    result = sync.sync(using)
    _cache.clear()
    return result


def on_post_migrate(
    app_config: Any = None,
    using: str = DEFAULT_DB_ALIAS,
    apps: Any = None,
    verbosity: int = 1,
    stdout: Any = None,
    **kwargs: Any,
) -> None:
    """After ``migrate``: every registered handler has its row, every row the code's
    current values where the owner did not edit them."""
    try:
        model = (apps or django_apps).get_model("a2a_app", "Skill")
        model._meta.get_field("edited_fields")
    except (LookupError, FieldDoesNotExist):
        return  # migrated back to before the rows followed the code
    if not router.allow_migrate_model(using, Skill):
        return  # the skills live in another database
    created, updated = sync_all(using)
    if verbosity >= 1 and (created or updated) and stdout is not None:
        if created:
            stdout.write(f"  Created Skill rows: {', '.join(created)}\n")
        if updated:
            stdout.write(f"  Updated Skill rows from the code: {', '.join(updated)}\n")
