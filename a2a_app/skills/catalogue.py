"""The skill catalogue: the skills a site publishes, as the card and the router see them.

Rows are read once per web process and kept until the ``CatalogChange`` marker moves
(checked at most every ``CARD_REVALIDATE_SECONDS``), so a SendMessage costs no query for
routing. In conformance mode the catalogue is the built-in ``conformance`` skill alone.

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

from django.db.models.signals import post_delete, post_save
from django.utils import timezone

from a2a_app.caller import Caller
from a2a_app.conf import a2a_settings
from a2a_app.models import AgentProfile, CatalogChange, Skill
from a2a_app.skills import registry
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
        """What the site owner set in the admin (the row wins over the code)."""
        return cls(
            row.id,
            row.handler,
            row.name,
            row.description,
            *(tuple(getattr(row, f) or ()) for f in _LISTS),
            access=row.access,
            enabled=row.enabled,
            execution=row.execution,
            permission=row.permission,
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
    version: datetime | None
    skills: tuple[SkillInfo, ...]

    @property
    def enabled(self) -> list[SkillInfo]:
        return [s for s in self.skills if s.enabled]

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
    with _cache.lock:
        cached = _cache.catalogue
        if cached is not None and now - _cache.checked_at < a2a_settings.CARD_REVALIDATE_SECONDS:
            return cached
    version = CatalogChange.objects.filter(ident=1).values_list("changed_at", flat=True).first()
    if cached is None or cached.version != version:
        rows = Skill.objects.all()
        cached = Catalogue(version=version, skills=tuple(SkillInfo.from_row(r) for r in rows))
    with _cache.lock:
        _cache.catalogue = cached
        _cache.checked_at = now
    return cached


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
    CatalogChange.objects.update_or_create(ident=1, defaults={"changed_at": timezone.now()})
    _cache.clear()


def clear_cache(**kwargs: Any) -> None:
    _cache.clear()


post_save.connect(mark_changed, sender=Skill, dispatch_uid="a2a_app.skill_saved")
post_delete.connect(mark_changed, sender=Skill, dispatch_uid="a2a_app.skill_deleted")
post_save.connect(mark_changed, sender=AgentProfile, dispatch_uid="a2a_app.profile_saved")
post_delete.connect(mark_changed, sender=AgentProfile, dispatch_uid="a2a_app.profile_deleted")


def sync_rows() -> list[str]:
    """Create a ``Skill`` row for each registered skill that has none; return their ids."""
    rows = list(Skill.objects.values_list("id", "handler"))
    taken_ids = {skill_id for skill_id, _ in rows}
    published = {handler for _, handler in rows}
    created = []
    for order, (key, spec) in enumerate(sorted(registry.all_skills().items())):
        # A row with this id that runs another handler is the owner's choice: leave it.
        if key in published or key in taken_ids or key == "conformance":
            continue
        Skill.objects.create(
            id=key,
            handler=key,
            name=spec.name,
            description=spec.description,
            tags=list(spec.tags),
            examples=list(spec.examples),
            input_modes=list(spec.input_modes),
            output_modes=list(spec.output_modes),
            access=spec.access,
            permission=spec.permission,
            order=order,
        )
        created.append(key)
    return created
