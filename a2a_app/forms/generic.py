"""Skills a site gets in a few lines, built on form skills::

    from a2a_app import create_skill, lookup_skill, search_skill

    search_skill("view-menu", queryset=Dish.objects.filter(available=True),
                 search_fields=["name", "description"], filters=["diet"])
    create_skill("book-table", form=ReservationForm,
                 confirmation="Booked: {obj}. Your reference is {obj.reference}.")
    lookup_skill("cancel-booking", queryset=Reservation.objects.all(),
                 reference_field="reference", verify_field="email",
                 cancel={"status": "canceled"})

Each call registers the skill (the keywords of ``@skill`` pass through) and returns its
handler. The input is a form, so the card describes it and the fields are collected
across turns like any form skill's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django import forms
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models, transaction
from django.db.models import Case, IntegerField, Q, Value, When
from django.forms.models import fields_for_model, model_to_dict
from django.utils.translation import gettext

from a2a_app.skills.context import SkillContext
from a2a_app.skills.registry import skill
from a2a_app.skills.routing import words

QuerySource = models.QuerySet | models.Manager | Callable[[SkillContext], models.QuerySet]
Display = Callable[[Any], str]
Serialize = Callable[[Any], Any]


def as_json(obj: models.Model) -> dict[str, Any]:
    """An object's editable fields and its primary key, as JSON values."""
    data = {"pk": obj.pk, **model_to_dict(obj)}
    return json.loads(json.dumps(data, cls=DjangoJSONEncoder, default=str))


def _queryset(source: QuerySource, ctx: SkillContext) -> models.QuerySet:
    if isinstance(source, (models.QuerySet, models.Manager)):
        return source.all()  # a fresh queryset each call, never a cached result
    return source(ctx)


def _model_of(source: QuerySource) -> type[models.Model] | None:
    return getattr(source, "model", None)


def _form_of_fields(
    model: type[models.Model], names: Iterable[str], *, required: bool, label: str
) -> type[forms.Form]:
    """A plain form with the model's form fields ``names`` (no uniqueness checks: it
    filters or verifies, it never saves)."""
    fields = fields_for_model(model, fields=list(names))
    for field in fields.values():
        field.required = required
    return type(f"{model.__name__}{label}Form", (forms.Form,), dict(fields))


# --- search -----------------------------------------------------------------------------


def search_skill(
    key: str,
    *,
    queryset: QuerySource,
    search_fields: Iterable[str] = (),
    filters: Iterable[str] | type[forms.BaseForm] = (),
    display: Display = str,
    serialize: Serialize = as_json,
    limit: int = 20,
    **options: Any,
) -> Callable[[SkillContext], Any]:
    """Register skill ``key``: list ``queryset``, narrowed by the text's words (matched
    against ``search_fields``, best match first) and by ``filters`` (model field names
    the caller may set exactly, or a form whose non-empty cleaned values filter; a form
    with a ``filter(queryset)`` method filters itself). Answers with one artifact: a
    line per object (``display``) and ``{"results": [...], "count": n}``.
    Words that match nothing list everything, saying so.
    """
    search_fields = tuple(search_fields)
    if isinstance(filters, type):
        form_class: type[forms.BaseForm] | None = filters
    elif tuple(filters):
        model = _model_of(queryset)
        if model is None:
            raise ValueError(f"Skill {key!r}: filters by name need a queryset, not a callable")
        form_class = _form_of_fields(model, filters, required=False, label="Filter")
    else:
        form_class = None

    def handler(ctx: SkillContext) -> Any:
        found = _queryset(queryset, ctx)
        form = ctx.form
        if form is not None and hasattr(form, "filter"):
            found = form.filter(found)
        elif form is not None:
            exact = {k: v for k, v in ctx.cleaned_data.items() if v not in ("", None, [])}
            found = found.filter(**exact)
        note = ""
        own = words(" ".join((ctx.skill.id.replace("-", " "), ctx.skill.name, *ctx.skill.tags)))
        matched = _matching(found, search_fields, ctx.text, ignore=own)
        if matched is not None and matched.exists():
            found = matched
        elif matched is not None:
            note = gettext("Nothing matched your words; here is everything.") + "\n"
        results = list(found[: max(1, limit)])
        if not results:
            return ctx.complete(gettext("Nothing found."), data={"results": [], "count": 0})
        lines = "\n".join(f"- {display(obj)}" for obj in results)
        data = {"results": [serialize(obj) for obj in results], "count": len(results)}
        return ctx.complete(note + lines, data=data)

    handler.__qualname__ = handler.__name__ = f"search_skill_{key}"
    skill(key, form=form_class, **options)(handler)
    return handler


def _matching(
    found: models.QuerySet, fields: tuple[str, ...], text: str, *, ignore: set[str]
) -> models.QuerySet | None:
    """``found`` narrowed to the objects that share a word with ``text``, ranked by how
    many; None when there is nothing to match. The skill's own words ("menu") are not
    search terms, and a long word loses its ending ("dishes" finds "dish", "vegane"
    finds "vegan", "cakes" finds "cake")."""
    terms = sorted({w[: max(4, len(w) - 2)] for w in words(text) - ignore if len(w) >= 3})
    if not fields or not terms:
        return None
    conditions = [
        Q.create([(f"{field}__icontains", term) for field in fields], connector=Q.OR)
        for term in terms
    ]
    score = sum(
        (
            Case(When(condition, then=Value(1)), default=Value(0), output_field=IntegerField())
            for condition in conditions
        ),
        Value(0),
    )
    return found.annotate(a2a_score=score).filter(a2a_score__gt=0).order_by("-a2a_score", "pk")


# --- create ------------------------------------------------------------------------------


def create_skill(
    key: str,
    *,
    form: type[forms.ModelForm],
    confirmation: str | Callable[[Any], str] = "",
    prepare: Callable[[SkillContext, Any], None] | None = None,
    serialize: Serialize = as_json,
    **options: Any,
) -> Callable[[SkillContext], Any]:
    """Register skill ``key``: collect ``form``'s fields, save the object, attach it to
    the task (``Task.attached_object``) and complete with ``confirmation`` (a format
    string of ``obj`` and the cleaned fields, or a callable of the object) and the
    object as data. ``prepare(ctx, obj)`` sets what the caller does not choose (the
    user, a status) before the save. The save and ``prepare`` are one transaction."""
    if not (isinstance(form, type) and issubclass(form, forms.BaseModelForm)):
        raise ValueError(f"Skill {key!r}: create_skill needs a ModelForm class")

    def handler(ctx: SkillContext) -> Any:
        with transaction.atomic():
            obj = ctx.form.save(commit=False)
            if prepare is not None:
                prepare(ctx, obj)
            obj.save()
            ctx.form.save_m2m()
        ctx.attach(obj)
        if callable(confirmation):
            text = confirmation(obj)
        elif confirmation:
            text = confirmation.format(obj=obj, **ctx.cleaned_data)
        else:
            text = gettext("Done: %s.") % obj
        return ctx.complete(text, data=serialize(obj))

    handler.__qualname__ = handler.__name__ = f"create_skill_{key}"
    skill(key, form=form, **options)(handler)
    return handler


# --- look up / cancel by reference --------------------------------------------------------


def lookup_skill(
    key: str,
    *,
    queryset: QuerySource,
    reference_field: str,
    verify_field: str,
    cancel: Callable[[Any], Any] | Mapping[str, Any] | None = None,
    display: Display = str,
    serialize: Serialize = as_json,
    **options: Any,
) -> Callable[[SkillContext], Any]:
    """Register skill ``key``: find one object by ``reference_field`` and reveal it only
    when ``verify_field`` matches too (case-insensitive); a wrong pair is answered like
    a missing object, and both fields are asked again. With ``cancel`` (a callable of
    the object, or field values to set) the skill cancels what it found, in one
    transaction, and attaches it to the task."""
    model = _model_of(queryset)
    if model is None:
        raise ValueError(f"Skill {key!r}: lookup_skill needs a queryset or manager")
    form_class = _form_of_fields(
        model, [reference_field, verify_field], required=True, label="Lookup"
    )

    def handler(ctx: SkillContext) -> Any:
        reference = ctx.cleaned_data[reference_field]
        given = str(ctx.cleaned_data[verify_field]).strip().casefold()
        found = _queryset(queryset, ctx).filter(**{reference_field: reference}).first()
        if found is None or str(getattr(found, verify_field)).strip().casefold() != given:
            return _no_match(ctx, [reference_field, verify_field])
        if cancel is not None:
            with transaction.atomic():
                found = type(found)._default_manager.select_for_update().get(pk=found.pk)
                if callable(cancel):
                    cancel(found)
                else:
                    for name, value in cancel.items():
                        setattr(found, name, value)
                    found.save(update_fields=list(cancel))
            ctx.attach(found)
            return ctx.complete(gettext("Canceled: %s.") % display(found), data=serialize(found))
        return ctx.complete(display(found), data=serialize(found))

    handler.__qualname__ = handler.__name__ = f"lookup_skill_{key}"
    skill(key, form=form_class, **options)(handler)
    return handler


def _no_match(ctx: SkillContext, names: list[str]) -> Any:
    from a2a_app.skills.context import FORM_STATE_KEY

    values = ctx.state.get(FORM_STATE_KEY, {}).get("values", {})
    for name in names:
        values.pop(name, None)
    message = gettext("Nothing matches that combination. Please check both and send them again.")
    return ctx.ask(
        message, missing=names, data={"missing": names, "errors": {"__all__": [message]}}
    )
