"""Collecting a form skill's fields across the turns of a task, then calling its handler.

Each turn, in order of precedence (a later source wins):

1. the values collected in earlier turns (``ctx.state["a2a_form"]["values"]``), and on
   the first turn the *context facts*: values an earlier task of the same context and
   caller already collected for the same field names (``context_fields``);
2. what the interpreter reads in the message's text;
3. the message's data parts.

The values are validated with the form. A value the form rejects is dropped (so it is
asked again) and its error is said; missing required fields are asked for by label. The
answer is then INPUT_REQUIRED with a data part ``{"missing": [...], "errors": {...}}``,
never FAILED: bad input is the caller's to fix. A valid form calls the handler with
``ctx.form`` and ``ctx.cleaned_data``. A reply to the form's question that only calls
the request off ("never mind", "vergiss es") ends the task CANCELED instead.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.forms.utils import pretty_name
from django.utils import timezone, translation
from django.utils.text import get_text_list
from django.utils.translation import gettext

from a2a_app.forms.interpreters import get_interpreter
from a2a_app.protocol.errors import A2AError
from a2a_app.skills.catalogue import SkillInfo
from a2a_app.skills.context import (
    FACTS_STATE_KEY,
    FORM_STATE_KEY,
    Canceled,
    InputRequired,
    SkillContext,
)
from a2a_app.skills.language import message_language
from a2a_app.skills.registry import SkillSpec

logger = logging.getLogger("a2a_app.forms")

#: Facts key holding a valid form's values, reused when the guest asks for the same again.
LAST_VALUES_KEY = "_last_values"
# "the same again", "same as last time", "dasselbe nochmal", "das Gleiche wie letztes Mal".
_REPEAT_RE = re.compile(
    r"\b(?:(?:the\s+)?same\s+(?:again|as\s+(?:before|last\s+time|that|this)|thing|booking|"
    r"reservation|table|order|request)|once more|one more time|dasselbe|dasgleiche|"
    r"das\s+gleiche|das\s+selbe|genauso|genau\s+so|wie\s+(?:beim\s+)?letzte[sn]?\s+mal)\b",
    re.IGNORECASE,
)
# "Never mind", "Forget it", "Ach, vergiss es", "Lieber doch nicht": the whole reply to a
# question calls the request off. Only words that cannot answer a question: not "no",
# "no thanks" (a yes/no field) nor "cancel" (the answer in a cancelling skill's form).
_CALLED_OFF_RE = re.compile(
    r"^\W*(?:(?:oh|ah|ach|ok|okay|well|hmm+|sorry|actually|please|then|na|naja|"
    r"eigentlich|bitte|dann|hm+)\W+)*"
    r"(?:never\s*mind|forget\s+(?:it|about\s+it|that)|don'?t\s+bother|"
    r"i(?:'ve|\s+have)?\s+changed\s+my\s+mind|not\s+any\s*more|"
    r"vergiss\s+(?:es|das)|vergessen\s+sie\s+(?:es|das)|abbrechen|brich\s+ab|"
    r"(?:lieber\s+)?doch\s+nicht|hat\s+sich\s+erledigt|lass\s+(?:es|mal)(?:\s+gut\s+sein)?|"
    r"lassen\s+sie\s+es|ich\s+hab(?:e)?\s+es\s+mir\s+anders\s+[üu]berlegt)"
    r"(?:\W+(?:then|please|thanks|thank\s+you|anyway|for\s+now|bitte|danke|dann|"
    r"trotzdem|erstmal|erst\s+mal))*\W*$",
    re.IGNORECASE | re.UNICODE,
)
#: A reply that only calls the request off is short; a longer one is not tried against
#: the pattern above (whose prefix loop is linear in the reply: ~30 ms for 150 KB).
CALLED_OFF_MAX_CHARS = 120
TEMPORAL = (forms.DateField, forms.TimeField, forms.DateTimeField)
_EMPTY = ("", None, [], {})


def context_fields(spec: SkillSpec) -> tuple[str, ...]:
    """The fields whose values later tasks of the context reuse: those the skill names,
    else the form's one-line text fields (name, e-mail, phone). Dates, numbers, choices
    and free notes describe one request, not the person: they are asked again."""
    if spec.context_fields is not None:
        return spec.context_fields
    assert spec.form is not None
    return tuple(
        name
        for name, field in spec.form.base_fields.items()
        if isinstance(field, forms.CharField) and not isinstance(field.widget, forms.Textarea)
    )


def language_of(ctx: SkillContext) -> str:
    """The caller's language ("de", "en"...), as :mod:`a2a_app.skills.language` decided
    it for this turn (``ctx.language``); decided here for a context built by hand."""
    if not ctx.language:
        ctx.language = message_language(ctx.message, ctx.metadata, ctx.caller)
    return ctx.language


def run_form(
    ctx: SkillContext,
    spec: SkillSpec,
    load_facts: Callable[[], Mapping[str, Any]] = dict,
) -> Any:
    """One turn of a form skill: collect, validate, then ask or call the handler.

    ``load_facts`` returns the context facts (read once, on the task's first turn).
    """
    ctx.language = language_of(ctx)
    activated = translation.override(ctx.language) if ctx.language else contextlib.nullcontext()
    with activated:
        return _Turn(ctx, spec).run(load_facts)


class _Turn:
    def __init__(self, ctx: SkillContext, spec: SkillSpec) -> None:
        assert spec.form is not None
        self.ctx, self.spec, self.form_class = ctx, spec, spec.form
        self.fields = self.form_class.base_fields
        saved = ctx.state.get(FORM_STATE_KEY)
        if not isinstance(saved, dict):
            saved = {}
        saved.setdefault("values", {})
        saved.setdefault("asked", [])
        ctx.state[FORM_STATE_KEY] = self.saved = saved
        #: What this turn's message gave (its text and data parts), set by incoming().
        self.found: dict[str, Any] = {}
        self.now = timezone.localtime() if settings.USE_TZ else datetime.now().astimezone()

    def run(self, load_facts: Callable[[], Mapping[str, Any]]) -> Any:
        ctx, follow_up = self.ctx, bool(self.saved["asked"])
        if follow_up and not ctx.data and _calls_off(ctx.text or ""):
            # The answer to our question calls the request off: end the task, rather
            # than ask the same again (or read "never mind" as a name).
            return Canceled(gettext("All right, I've stopped here: nothing was done."))
        result = self.collect_and_call(load_facts)
        if follow_up and not self.found and isinstance(result, InputRequired):
            # A reply that answered nothing, about another skill's matter ("Do you have
            # vegan food?" in a booking): say where it belongs, and keep this task open.
            other = self.meant_for()
            if other is not None:
                note = gettext(
                    "That is a question for “%(skill)s”: please ask it in a new message; "
                    "this request stays open."
                ) % {"skill": gettext(other.name)}
                result.question = f"{note} {result.question}"
                result.data = {**(result.data or {}), "otherSkill": other.id}
        return result

    def meant_for(self) -> SkillInfo | None:
        """The skill the router sends this turn's message to, if another than this one."""
        from a2a_app.conf import a2a_settings
        from a2a_app.skills.catalogue import get_catalogue

        ctx = self.ctx
        available = [s for s in get_catalogue().enabled if s.allows(ctx.caller)]
        try:
            routed = a2a_settings.ROUTER(ctx.message, ctx.metadata, available)
        except A2AError:  # the message names a skill it may not have: not our matter
            return None
        return routed if routed is not None and routed.id != ctx.skill.id else None

    def collect_and_call(self, load_facts: Callable[[], Mapping[str, Any]]) -> Any:
        ctx, saved = self.ctx, self.saved
        values = {k: v for k, v in dict(saved["values"]).items() if k in self.fields}
        remembered = context_fields(self.spec)
        facts = dict(ctx.state.get(FACTS_STATE_KEY) or {})
        if not saved.get("facts_read"):
            saved["facts_read"] = True
            if remembered or _REPEAT_RE.search(ctx.text or ""):
                facts = {**dict(load_facts() or {}), **facts}
                values.update({n: facts[n] for n in remembered if n in facts and n not in values})
                if _REPEAT_RE.search(ctx.text or ""):
                    # "the same again for Saturday": the last request's values (time,
                    # party size...) too; what this message says still wins below.
                    last = facts.get(LAST_VALUES_KEY)
                    last = last if isinstance(last, dict) else {}
                    values.update(
                        {n: v for n, v in last.items() if n in self.fields and n not in values}
                    )
        if saved.pop("handed_over", False):
            # Handed over from another skill (ctx.hand_over), which read this message
            # already: what it handed over wins; the message fills in this form's other
            # fields.
            values = {**self.incoming(values), **values}
        else:
            values.update(self.incoming(values))
        values = {k: v for k, v in values.items() if v not in _EMPTY}

        errors: dict[str, list[str]] = {}
        for name in list(values):
            problem = self.shape_problem(name, values)
            if problem:
                errors[name] = [problem]
                del values[name]
        form = self.form_class(data=values)
        valid = form.is_valid() and not errors
        missing: list[str] = []
        for name, problems in form.errors.as_data().items():
            messages = [m for problem in problems for m in problem.messages]
            if name == NON_FIELD_ERRORS:
                errors[name] = messages
            elif name in values:
                errors[name] = messages
                del values[name]  # rejected: asked again
            else:
                missing.append(name)
        needed = [n for n in self.fields if n in missing or n in errors]

        saved["values"] = values
        saved["asked"] = needed
        for name in remembered:
            if name in values and name not in errors:
                facts[name] = values[name]
        if valid:
            # Kept for a later "the same again" only, never reused unasked.
            facts[LAST_VALUES_KEY] = {n: v for n, v in values.items() if isinstance(v, str | int)}
        if facts:
            ctx.state[FACTS_STATE_KEY] = facts
        if not valid:
            return InputRequired(
                self.question(form, needed, errors),
                missing=needed,
                data={"missing": needed, "errors": errors},
            )
        ctx.form, ctx.cleaned_data = form, form.cleaned_data
        return self.spec.handler(ctx)

    def incoming(self, known: dict[str, Any]) -> dict[str, Any]:
        """This turn's values: read from the text, then the data parts over them."""
        ctx = self.ctx
        data = {k: v for k, v in ctx.data.items() if k in self.fields}
        found: dict[str, Any] = {}
        if ctx.text.strip():
            found = self.interpret(ctx.text, self.saved["asked"], {**known, **data})
        found.update(data)
        self.found = found
        # A date or time in words in a data part ({"day": "next monday"}): read it as text.
        for name, value in list(found.items()):
            field = self.fields[name]
            if isinstance(field, TEMPORAL) and isinstance(value, str) and not _parses(field, value):
                reread = self.interpret(value, [name], {**known, **found}).get(name)
                if reread not in _EMPTY:
                    found[name] = reread
        return found

    def interpret(self, text: str, asked: list[str], known: dict[str, Any]) -> dict[str, Any]:
        """The interpreter's values for this form; a failing interpreter finds nothing
        (logged): the fields are then asked for, the task does not fail."""
        try:
            found = get_interpreter().interpret(
                text,
                self.form_class,
                asked=tuple(asked),
                known=dict(known),
                language=self.ctx.language,
                now=self.now,
            )
        except Exception:
            logger.exception("interpreter failed on skill=%s", self.ctx.skill.id)
            return {}
        if not isinstance(found, Mapping):
            logger.error("interpreter returned %s, not a dict", type(found).__name__)
            return {}
        return {k: v for k, v in found.items() if k in self.fields and v not in _EMPTY}

    def shape_problem(self, name: str, values: dict[str, Any]) -> str | None:
        """Why a raw value cannot even be offered to its field (a list for a single
        value, an object...), fixing what is only a matter of shape; None: fine."""
        field, value = self.fields[name], values[name]
        if isinstance(field, forms.MultipleChoiceField):
            if not isinstance(value, list):
                values[name] = value = [value]
            if any(isinstance(item, (list, dict)) for item in value):
                return gettext("Enter a list of values.")
        elif isinstance(value, (list, dict)):
            return gettext("Enter a single value.")
        elif isinstance(field, TEMPORAL) and not isinstance(value, str):
            values[name] = value = str(value)
        try:
            field.clean(value)
        except ValidationError:
            pass  # the form says why, in its words
        except Exception:  # a field that cannot read this type at all
            return gettext("Enter a valid value.")
        return None

    def question(self, form: forms.BaseForm, needed: list[str], errors: dict) -> str:
        sentences = []
        for name, messages in errors.items():
            if name == NON_FIELD_ERRORS:
                sentences.append(" ".join(messages))
            else:
                sentences.append(f"{_label(form, name)}: {' '.join(messages)}")
        asked = [_label(form, name, hint=True) for name in needed]
        if asked:
            sentences.append(
                gettext("Please tell me %(fields)s.")
                % {"fields": get_text_list(asked, gettext("and"))}
            )
        elif errors:
            sentences.append(gettext("Please change your answer."))
        return " ".join(sentences)


def _parses(field: forms.Field, value: str) -> bool:
    try:
        field.to_python(value)
    except ValidationError:
        return False
    return True


def _label(form: forms.BaseForm, name: str, *, hint: bool = False) -> str:
    field = form.fields[name]
    label = str(field.label or pretty_name(name))
    if not hint:
        return label
    extra = str(field.help_text or "")
    if not extra and isinstance(field, forms.DateTimeField):
        extra = "YYYY-MM-DD HH:MM"
    elif not extra and isinstance(field, forms.DateField):
        extra = "YYYY-MM-DD"
    elif not extra and isinstance(field, forms.TimeField):
        extra = "HH:MM"
    elif (
        not extra
        and isinstance(field, forms.ChoiceField)
        and not isinstance(field, forms.ModelChoiceField)
    ):
        labels = [str(lab) for value, lab in field.choices if value not in ("", None)]
        extra = " / ".join(labels[:8])
    return f"{label} ({extra})" if extra else label


def _calls_off(text: str) -> bool:
    """Does this whole reply call the request off ("never mind", "vergiss es")?"""
    return len(text) <= CALLED_OFF_MAX_CHARS and _CALLED_OFF_RE.match(text) is not None
