"""Skill rows follow the code: a row for every registered handler, code values shown
unless the owner edited them.

A ``@skill`` declares a name, description, tags, examples, modes and who may use it
(``CODE_FIELDS``); the site owner may override any of them in the admin, which records
the overridden ones in ``Skill.edited_fields``. What a row shows is the code's value for
every other field (:func:`shown_values`), so a wording changed in code reaches the card
at the next start, without a migrate. ``migrate`` (``post_migrate``) and the catalogue,
when it finds a registered handler without a row, make the missing rows
(:func:`create_rows`); ``migrate`` and ``a2a_skills --sync`` also write the code's values
into the rows (:func:`update_rows`) so that the admin shows what the card shows.

Access and permission are one decision: editing either keeps both (a code change to one
must never pair with the owner's other half).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from django.db import DEFAULT_DB_ALIAS, DatabaseError, transaction
from django.utils import timezone

from a2a_app.conf import a2a_settings
from a2a_app.models import CODE_FIELDS, CatalogChange, Skill
from a2a_app.skills import registry
from a2a_app.skills.registry import SkillSpec

logger = logging.getLogger("a2a_app.skills")

#: Fields kept or released together.
_ACCESS = frozenset({"access", "permission"})
#: The built-in conformance skill is served only in conformance mode, never from a row.
_NO_ROW = frozenset({"conformance"})


def code_values(spec: SkillSpec) -> dict[str, Any]:
    """What ``spec`` declares, in the shape of the row's fields."""
    return {
        field: list(value) if isinstance(value, tuple) else value
        for field, value in ((f, getattr(spec, f)) for f in CODE_FIELDS)
    }


def owned_fields(edited: Any) -> frozenset[str]:
    """The fields whose row value wins, from ``edited_fields`` (anything but a list of
    names, say a hand-edited value, means all of them: the row wins, as before rows
    followed the code)."""
    if not isinstance(edited, list | tuple) or not all(isinstance(f, str) for f in edited):
        return frozenset(CODE_FIELDS)
    owned = {field for field in edited if field in CODE_FIELDS}
    if owned & _ACCESS:
        owned |= _ACCESS
    return frozenset(owned)


def shown_values(row: Skill, spec: SkillSpec | None = None) -> dict[str, Any]:
    """``CODE_FIELDS`` as the card shows them: the row's edited values, the code's others
    (the row's, when its handler is not registered in this process)."""
    values = {field: getattr(row, field) for field in CODE_FIELDS}
    spec = spec or registry.get(row.handler)
    if spec is None:
        return values
    owned = owned_fields(row.edited_fields)
    values.update((f, v) for f, v in code_values(spec).items() if f not in owned)
    return values


def edited_after_save(
    previous: Any, changed: dict[str, Any], spec: SkillSpec | None, *, adding: bool
) -> list[str]:
    """``edited_fields`` once the owner saved ``changed`` (field: new value) in the admin.

    A field set to something other than the code's value becomes the owner's; set back to
    the code's value, it follows the code again. A new row owns what differs from the
    code. With no registered handler there is no code value: every field is the row's.
    """
    if spec is None:
        return list(CODE_FIELDS)
    code = code_values(spec)
    if adding:
        owned = {f for f in CODE_FIELDS if changed.get(f, code[f]) != code[f]}
    else:
        owned = set(owned_fields(previous))
        for field, value in changed.items():
            if field not in code:
                continue
            if value != code[field]:
                owned.add(field)
            else:
                owned.discard(field)
    if owned & _ACCESS:
        # One decision: the owner's access level never pairs with the code's permission.
        owned |= _ACCESS
    return [f for f in CODE_FIELDS if f in owned]


def missing_specs(rows: Iterable[tuple[str, str]]) -> list[tuple[int, SkillSpec]]:
    """Registered handlers (with their place in the card) that no row of ``rows``
    ((id, handler) pairs) publishes and whose key is free as a row id."""
    rows = list(rows)
    taken_ids = {skill_id for skill_id, _ in rows}
    published = {handler for _, handler in rows}
    return [
        (order, spec)
        for order, (key, spec) in enumerate(sorted(registry.all_skills().items()))
        # A row with this id that runs another handler is the owner's choice: leave it.
        if key not in published and key not in taken_ids and key not in _NO_ROW
    ]


def create_rows(missing: list[tuple[int, SkillSpec]], using: str = DEFAULT_DB_ALIAS) -> list[str]:
    """Insert a row for each of ``missing``, enabled as ``NEW_SKILLS_ENABLED`` says; return
    their ids. Safe against another process doing the same: a row that appeared in the
    meantime wins (``ignore_conflicts``). Moves the change marker if anything was made."""
    if not missing:
        return []
    enabled = bool(a2a_settings.NEW_SKILLS_ENABLED)
    rows = [
        Skill(id=spec.key, handler=spec.key, enabled=enabled, order=order, edited_fields=[])
        for order, spec in missing
    ]
    for row, (_, spec) in zip(rows, missing, strict=True):
        for field, value in code_values(spec).items():
            setattr(row, field, value)
    # A savepoint: inside a request's transaction a failed insert must not poison it.
    with transaction.atomic(using=using):
        Skill.objects.using(using).bulk_create(rows, ignore_conflicts=True)
        move_marker(using)
    return [row.id for row in rows]


def update_rows(using: str = DEFAULT_DB_ALIAS) -> list[str]:
    """Write the code's values into each row's fields the owner did not edit; return the
    ids of the rows that changed. Moves the change marker if any did."""
    updated = []
    with transaction.atomic(using=using):
        for row in Skill.objects.using(using).select_for_update().order_by("id"):
            spec = registry.get(row.handler)
            if spec is None:
                continue
            shown = shown_values(row, spec)
            stale = {f: v for f, v in shown.items() if getattr(row, f) != v}
            if stale:
                # A queryset update: one marker move below instead of one per row.
                Skill.objects.using(using).filter(pk=row.pk).update(
                    **stale, updated_at=timezone.now()
                )
                updated.append(row.id)
        if updated:
            move_marker(using)
    return updated


def sync(using: str = DEFAULT_DB_ALIAS) -> tuple[list[str], list[str]]:
    """Create the missing rows and bring the others up to date: (created, updated) ids."""
    rows = Skill.objects.using(using).values_list("id", "handler")
    created = create_rows(missing_specs(rows), using)
    return created, update_rows(using)


def move_marker(using: str = DEFAULT_DB_ALIAS) -> None:
    """Tell every process that the skills changed (``CatalogChange``)."""
    CatalogChange.objects.using(using).update_or_create(
        ident=1, defaults={"changed_at": timezone.now()}
    )


def try_create_rows(missing: list[tuple[int, SkillSpec]]) -> bool:
    """:func:`create_rows` from a request: a database that refuses (read-only replica,
    permissions) is logged, not raised; True if the rows were written."""
    try:
        ids = create_rows(missing)
    except DatabaseError:
        logger.warning(
            "Could not create Skill rows for %s; run `manage.py migrate` or "
            "`manage.py a2a_skills --sync`.",
            ", ".join(spec.key for _, spec in missing),
            exc_info=True,
        )
        return False
    logger.info("Created Skill rows for registered handlers: %s", ", ".join(ids))
    return True
