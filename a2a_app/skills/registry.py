"""The skill registry: handlers defined in code with ``@skill``, discovered per app.

Each installed app may have an ``a2a_skills.py`` module; :func:`autodiscover` (called
from ``AppConfig.ready``) imports them so their decorators run. The registry holds the
code side of a skill; the ``Skill`` model row holds what the site owner edits in the
admin (name, description, tags, enabled...), and its ``handler`` names a registry key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.utils.module_loading import autodiscover_modules

if TYPE_CHECKING:
    from a2a_app.skills.context import SkillContext

Handler = Callable[["SkillContext"], Any]

SKILLS_MODULE = "a2a_skills"


@dataclass(frozen=True, slots=True)
class SkillSpec:
    """A handler and the defaults its ``Skill`` row starts from."""

    key: str
    handler: Handler
    name: str
    description: str
    tags: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    input_modes: tuple[str, ...] = ()
    output_modes: tuple[str, ...] = ()
    # Who may call it by default: "public" (anyone), "authenticated", or "permission"
    # (callers holding ``permission``: a Django permission or an API-key scope).
    access: str = "public"
    permission: str = ""
    # Run in a background worker rather than in the request; a callable decides per
    # message (``lambda message: ...``).
    background: bool | Callable[[Any], bool] = False
    # May a run that a dead worker left unfinished run again from the start? Only when
    # running it twice does no harm (it books nothing, sends nothing, or checks first).
    rerun_safe: bool = False
    # A django.forms.Form (or ModelForm) class: the library collects its fields across
    # turns and calls the handler once the form is valid (a2a_app.forms).
    form: type | None = None
    # The form fields whose values carry over to later tasks of the same context (and
    # caller); None: the form's free-text fields (name, e-mail, phone...), see
    # a2a_app.forms.collect.context_fields.
    context_fields: tuple[str, ...] | None = None
    # Words the skill knows beyond its card, for the router (a2a_app.skills.routing):
    # a callable returning texts, e.g. the dish names of a menu read from the database.
    # Called when the router builds its word index (at most every few minutes).
    vocabulary: Callable[[], Iterable[str]] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


_registry: dict[str, SkillSpec] = {}
# Moves whenever the registry changes, so that what was built from it (the catalogue,
# the rendered card) is rebuilt: a number to compare, cheaper than the specs themselves.
_generation = 0


def generation() -> int:
    """A number that changes whenever a skill is registered or unregistered."""
    return _generation


def _changed() -> None:
    global _generation
    _generation += 1


def skill(
    key: str,
    *,
    name: str | None = None,
    description: str | None = None,
    tags: list[str] | tuple[str, ...] = (),
    examples: list[str] | tuple[str, ...] = (),
    input_modes: list[str] | tuple[str, ...] = (),
    output_modes: list[str] | tuple[str, ...] = (),
    access: str = "public",
    permission: str = "",
    background: bool | Callable[[Any], bool] = False,
    rerun_safe: bool = False,
    form: type | None = None,
    context_fields: list[str] | tuple[str, ...] | None = None,
    vocabulary: Callable[[], Iterable[str]] | None = None,
) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of skill ``key``.

    ``name`` defaults to the key in title case and ``description`` to the function's
    docstring; both, like the other keywords, only seed the ``Skill`` row, which the
    site owner can then edit in the admin. ``background=True`` runs the handler in a
    Celery worker instead of the request (the row's "execution" can override it).
    ``access`` is who may see and use it: ``"public"``, ``"authenticated"``, or
    ``"permission"`` with ``permission=`` a Django permission (``"app_label.codename"``)
    or an API-key scope.
    ``rerun_safe=True`` lets a run that a dead worker left unfinished run again from the
    start (up to ``MAX_RUN_ATTEMPTS`` runs); by default such a task is FAILED with a
    message saying so, since a handler may have booked or sent something before it died.
    ``form=`` a ``django.forms.Form`` or ``ModelForm`` class declares the skill's input:
    its fields are collected from data parts and text across turns, the card describes
    them, and the handler runs only once the form is valid (``ctx.form``,
    ``ctx.cleaned_data``); ``context_fields`` names the fields whose values later tasks
    of the same context reuse (docs/skills.md, "Skills declared as forms").
    ``vocabulary=`` a callable returning texts (dish names, product names...) whose words
    the router counts for this skill like its examples' ("Is there meat in the
    saltimbocca?" finds the menu when the menu's dishes are its vocabulary).
    """
    check_access(key, access, permission)
    check_form(key, form, context_fields)

    def decorator(handler: Handler) -> Handler:
        register(
            SkillSpec(
                key=key,
                handler=handler,
                name=name or key.replace("-", " ").replace("_", " ").title(),
                description=(description or (handler.__doc__ or "").strip() or key),
                tags=tuple(tags),
                examples=tuple(examples),
                input_modes=tuple(input_modes),
                output_modes=tuple(output_modes),
                access=access,
                permission=permission,
                background=background,
                rerun_safe=rerun_safe,
                form=form,
                context_fields=None if context_fields is None else tuple(context_fields),
                vocabulary=vocabulary,
            )
        )
        return handler

    return decorator


ACCESS_LEVELS = ("public", "authenticated", "permission")


def check_access(key: str, access: str, permission: str) -> None:
    """A declaration mistake is the developer's: say so when the module is imported."""
    if access not in ACCESS_LEVELS:
        raise ValueError(f"Skill {key!r}: access must be one of {', '.join(ACCESS_LEVELS)}")
    if (access == "permission") != bool(permission):
        raise ValueError(
            f"Skill {key!r}: permission= goes with access='permission', and only with it"
        )


def check_form(key: str, form: type | None, context_fields: Any) -> None:
    """A form that is no form fails at import time, not on the first message."""
    if form is None:
        if context_fields is not None:
            raise ValueError(f"Skill {key!r}: context_fields= goes with form=")
        return
    from django.forms import BaseForm

    if not (isinstance(form, type) and issubclass(form, BaseForm)):
        raise ValueError(f"Skill {key!r}: form= must be a django.forms.Form or ModelForm class")
    unknown = [name for name in context_fields or () if name not in form.base_fields]
    if unknown:
        raise ValueError(f"Skill {key!r}: context_fields names no field of the form: {unknown}")


def register(spec: SkillSpec) -> None:
    existing = _registry.get(spec.key)
    # Re-importing a module (autoreload, tests) re-registers the same function: fine.
    if existing is not None and _qualname(existing.handler) != _qualname(spec.handler):
        raise ValueError(
            f"Skill {spec.key!r} is already registered by {_qualname(existing.handler)}"
        )
    _registry[spec.key] = spec
    _changed()


def _qualname(handler: Handler) -> str:
    return f"{handler.__module__}.{handler.__qualname__}"


def get(key: str) -> SkillSpec | None:
    return _registry.get(key)


def all_skills() -> dict[str, SkillSpec]:
    return dict(_registry)


def autodiscover() -> None:
    autodiscover_modules(SKILLS_MODULE)


@contextmanager
def registered(*specs: SkillSpec) -> Iterator[None]:
    """Register skills for the duration of a ``with`` block (tests)."""
    saved = dict(_registry)
    try:
        for spec in specs:
            _registry[spec.key] = spec
        _changed()
        yield
    finally:
        _registry.clear()
        _registry.update(saved)
        _changed()
