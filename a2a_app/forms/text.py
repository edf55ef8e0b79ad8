"""The deterministic interpreter: a guest's plain text mapped to a form's fields.

Each field gets an extractor by its Django form field type (and, for a ``CharField``, by
what its name, label or widget says it holds: a name, a phone number, a contact):

========================  ===========================================================
field                     read from text as
========================  ===========================================================
``DateField``             "tomorrow", "next Friday", "24. Dezember", "24.12.", ISO
``TimeField``             "7pm", "19:30", "um 19 Uhr", "halb acht", "at 8"
``DateTimeField``         both together (ISO 8601 with the offset of ``now``)
``IntegerField`` etc.     a number by the field's unit words ("4 people", "party of six")
``EmailField``            an e-mail address
phone ``CharField``       a phone number, E.164 (``phonenumbers``)
contact ``CharField``     an e-mail address, else a phone number
``ChoiceField`` & co.     a choice's label or value (either language, accents ignored)
``BooleanField``          yes/no when asked; else the field's own words ("terrace")
name ``CharField``        "my name is Tom Lee", "ich heiße Anna Weber", a bare "Tom Lee"
other ``CharField``       the whole reply, when it was the only field asked
========================  ===========================================================

Extractors run in a fixed order and blank out the text they use, so the digits of a date
are not read again as a phone number or a count. A bare hour ("at 7", "um 8") without
a.m./p.m. or a morning word is read as afternoon/evening when it is in ``pm_hours``
(1-10 by default: people booking say "at 7" for 19:00); a day part alone ("tomorrow
evening") gives the date and no time, so the form asks for the time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from django import forms
from django.conf import settings
from django.utils import timezone, translation

from a2a_app.conf import a2a_settings
from a2a_app.forms.extractors import choices, contact, names, numbers, when
from a2a_app.forms.extractors.base import Work, fold

#: Kinds of field this interpreter reads.
DATE, TIME, DATETIME, INTEGER, DECIMAL, FLOAT = (
    "date",
    "time",
    "datetime",
    "integer",
    "decimal",
    "float",
)
EMAIL, PHONE, CONTACT, CHOICE, MULTIPLE, BOOLEAN = (
    "email",
    "phone",
    "contact",
    "choice",
    "multiple",
    "boolean",
)
NAME, FIRST_NAME, LAST_NAME, TEXT = "name", "first_name", "last_name", "text"

_PHONE_WORDS = re.compile(
    r"\b(?:phone|telephone|tel|telefon|telefonnummer|mobile|mobil|handy|cell|mobilnummer)", re.I
)
_CONTACT_WORDS = re.compile(r"\b(?:contact|kontakt|erreichbar|reach)", re.I)
_NAME_FIELDS = re.compile(
    r"^(?:(?:full|guest|customer|contact|your|booking|reservation)_?)?names?$"
)


def field_kind(name: str, field: forms.Field) -> str | None:
    """What ``field`` holds, for choosing its extractor; None: not read from text.

    A field says so itself with an ``a2a_kind`` attribute (``field.a2a_kind = "phone"``),
    else its type decides, and for a ``CharField`` its widget's input type ("tel",
    "email"), then its name and label.
    """
    own = getattr(field, "a2a_kind", None)
    if own:
        return str(own)
    if isinstance(field, forms.DateTimeField):
        return DATETIME
    if isinstance(field, forms.DateField):
        return DATE
    if isinstance(field, forms.TimeField):
        return TIME
    if isinstance(field, forms.BooleanField | forms.NullBooleanField):
        return BOOLEAN
    if isinstance(field, forms.MultipleChoiceField | forms.ModelMultipleChoiceField):
        return MULTIPLE
    if isinstance(field, forms.ChoiceField | forms.ModelChoiceField):
        return CHOICE
    if isinstance(field, forms.IntegerField):
        return INTEGER
    if isinstance(field, forms.DecimalField):
        return DECIMAL
    if isinstance(field, forms.FloatField):
        return FLOAT
    if isinstance(field, forms.EmailField):
        return EMAIL
    if not isinstance(field, forms.CharField):
        return None
    input_type = getattr(field.widget, "input_type", "") or ""
    input_type = field.widget.attrs.get("type", input_type)
    if input_type == "tel":
        return PHONE
    if input_type == "email":
        return EMAIL
    described = f"{name.replace('_', ' ')} {field.label or ''}"
    phone = bool(_PHONE_WORDS.search(described))
    if _CONTACT_WORDS.search(described) or (phone and re.search(r"mail", described, re.I)):
        return CONTACT
    if phone:
        return PHONE
    if name in {"first_name", "firstname", "given_name", "vorname"}:
        return FIRST_NAME
    if name in {"last_name", "lastname", "surname", "family_name", "nachname"}:
        return LAST_NAME
    if _NAME_FIELDS.match(name) or re.search(r"\bname\b", fold(str(field.label or ""))):
        return NAME
    return TEXT


def _labels(field: forms.Field, *parts: str) -> list[str]:
    """The field's label and help text in English and German (lazy strings translated)."""
    texts = []
    for language in ("en", "de"):
        with translation.override(language):
            texts.extend(str(p) for p in (field.label, field.help_text) if p)
    return [*parts, *texts]


def _choice_names(field: forms.Field, *, asked: bool) -> list[tuple[Any, list[str]]]:
    """Each choice's value (a model choice's primary key) with its names in EN and DE.

    A value that is a number ("2", a primary key) names its choice only in a reply to
    the question: elsewhere "2" is far more likely a count or a date."""
    found: dict[Any, list[str]] = {}
    for language in ("en", "de"):
        with translation.override(language):
            for value, label in field.choices:
                # An optgroup holds its own (value, label) pairs.
                pairs = label if isinstance(label, list | tuple) else [(value, label)]
                for inner_value, inner_label in pairs:
                    raw = getattr(inner_value, "value", inner_value)  # ModelChoiceIteratorValue
                    if raw in (None, ""):
                        continue
                    own = [] if str(raw).isdigit() and not asked else [str(raw)]
                    found.setdefault(raw, own).append(str(inner_label))
    return list(found.items())


def phone_regions(language: str) -> list[str | None]:
    """Regions a national number is tried in: ``A2A_APP["PHONE_REGION"]``, else the
    country of ``LANGUAGE_CODE`` ("de-at" → AT, "de" → DE), then Germany for German text.
    None (international numbers only) when nothing says."""
    configured = a2a_settings.PHONE_REGION
    regions: list[str | None] = []
    if configured:
        regions.append(str(configured).upper())
    code = (settings.LANGUAGE_CODE or "").replace("_", "-").split("-")
    if len(code) > 1 and len(code[1]) == 2:
        regions.append(code[1].upper())
    elif code[0] in {"de", "fr", "it", "nl", "es", "pl", "se", "fi", "dk", "at"}:
        regions.append(code[0].upper())
    if language in {"de", ""}:
        regions.append("DE")
    return regions or [None]


def warm_up() -> None:
    """Load the libraries and dateparser's English and German data now (~0.5 s, once per
    process) rather than in the first guest's request; call it from a worker's or the
    web process's start-up if that first reply matters."""

    class _Form(forms.Form):
        day = forms.DateField()
        phone = forms.CharField()

    for text in ("tomorrow, 0171 2345678", "übermorgen", "next Friday", "24. Dezember"):
        DeterministicInterpreter().interpret(text, _Form)


class DeterministicInterpreter:
    """Reads a form's fields from English or German text with rules, no model."""

    #: Bare hours read as p.m. ("at 7" is 19:00) unless a morning word or "a.m." is there.
    pm_hours: range = range(1, 11)

    def interpret(
        self,
        text: str,
        form_class: type[forms.BaseForm],
        *,
        asked: Sequence[str] = (),
        known: Mapping[str, Any] = {},  # noqa: B006 - the fixed interface; never mutated
        language: str = "",
        now: datetime | None = None,
    ) -> dict[str, Any]:
        """Values for the form's fields found in ``text``, keyed by field name, in the raw
        shape a data part carries (dates "YYYY-MM-DD", times "HH:MM", datetimes ISO 8601,
        integers as int, e-mails/phones as str (phones E.164), choice *values*); only fields
        actually found."""
        if now is not None and timezone.is_naive(now):
            now = timezone.make_aware(now)  # the interface asks for aware; be lenient
        now = timezone.localtime(now) if now is not None else timezone.localtime()
        language = (language or "").split("-")[0].lower()
        fields = {
            name: (field, kind)
            for name, field in form_class.base_fields.items()
            if (kind := field_kind(name, field)) is not None
        }
        asked = [a for a in asked if a in fields]
        work = Work(text[:2000])  # a reply, not a document: bounded work per message
        found: dict[str, tuple[Any, bool]] = {}

        def of(*kinds: str) -> list[str]:
            # Asked fields first: when two fields could take a value, the asked one does.
            listed = [n for n, (_, k) in fields.items() if k in kinds]
            return sorted(listed, key=lambda n: n not in asked)

        # 1. E-mail addresses and dates first: they hold digits and dots later ones misread.
        email = contact.find_email(work)
        for name in of(EMAIL, CONTACT)[:1] if email else []:
            found[name] = (email, True)
        self._when(work, of, found, now, language, known, asked)
        # 2. Phone numbers, then whatever else looks like one, out of the counts' way.
        if of(PHONE) or (of(CONTACT) and not email):
            phone = contact.find_phone(work, phone_regions(language))
            target = of(PHONE) or [n for n in of(CONTACT) if n not in found]
            if phone is None and target and target[0] in of(CONTACT):
                phone = contact.find_cued_digits(work)
            if phone and target:
                found[target[0]] = (phone, True)
        contact.blank_digit_runs(work)
        # 3. Choices before numbers and names: a choice may be "2 courses" or "Weber room".
        for name in of(CHOICE, MULTIPLE):
            named = _choice_names(fields[name][0], asked=name in asked)
            picked = []
            while (value := choices.find_choice(work, named)) is not None:
                picked.append(value)
                if fields[name][1] != MULTIPLE:
                    break
            if picked:
                found[name] = (picked if fields[name][1] == MULTIPLE else picked[0], True)
        self._numbers(work, of, fields, found, asked)
        self._booleans(work, of, fields, found, asked)
        self._names(work, of, found, asked)
        if len(asked) == 1 and not found and fields[asked[0]][1] == TEXT:
            value = names.bare_text(work)
            if value:
                found[asked[0]] = (value, False)

        # A value already collected changes only when the text clearly restates it.
        return {
            name: value
            for name, (value, strong) in found.items()
            if strong or name in asked or name not in known
        }

    # --- the steps ----------------------------------------------------------------------

    def _when(
        self,
        work: Work,
        of: Any,
        found: dict,
        now: datetime,
        language: str,
        known: Mapping[str, Any],
        asked: Sequence[str],
    ) -> None:
        if not of(DATE, TIME, DATETIME):
            return
        day = when.find_date(work, now, language)
        at = when.find_time(work, self.pm_hours, language)
        timed = of(TIME, DATETIME)
        if at is None and timed and timed[0] in asked and not set(asked) & set(of(INTEGER)):
            at = when.bare_time(work, self.pm_hours)  # "8" in reply to "what time?"
        for name in of(DATE)[:1] if day else []:
            found[name] = (day.isoformat(), True)
        for name in of(TIME)[:1] if at else []:
            found[name] = (f"{at:%H:%M}", True)
        for name in of(DATETIME)[:1]:
            combined = _combine(day, at, known.get(name), now)
            if combined is not None:
                found[name] = (combined, True)

    def _numbers(
        self, work: Work, of: Any, fields: dict, found: dict, asked: Sequence[str]
    ) -> None:
        counted = of(INTEGER, DECIMAL, FLOAT)
        people = [
            n
            for n in counted
            if numbers.cue_words(n.replace("_", " "), *_labels(fields[n][0])) & numbers.PEOPLE
        ]
        children_counted = any(
            numbers.cue_words(n.replace("_", " "), *_labels(fields[n][0])) & numbers.SYNONYMS[1]
            for n in counted
        )
        for name in counted:
            field, kind = fields[name]
            cues = numbers.cue_words(name.replace("_", " "), *_labels(field))
            # "for 4" counts people: it goes to the people field, or the only number field.
            hit = numbers.find_count(
                work,
                cues,
                people=name in people or len(counted) == 1,
                with_children=name in people and not children_counted,
            )
            if hit is None and name in asked and len([a for a in asked if a in counted]) == 1:
                value = numbers.find_bare_number(work, whole=kind == INTEGER)
                hit = (value, False) if value is not None else None
            if hit is not None:
                found[name] = (_number_shape(hit[0], kind), hit[1])

    def _booleans(
        self, work: Work, of: Any, fields: dict, found: dict, asked: Sequence[str]
    ) -> None:
        booleans = of(BOOLEAN)
        asked_booleans = [n for n in booleans if n in asked]
        for name in booleans:
            value = None
            if asked_booleans == [name]:
                value = choices.find_yes_no(work)
            for words in _own_words(name, fields[name][0]) if value is None else ():
                value = choices.find_mention(work, words)
                if value is not None:
                    break
            if value is not None:
                found[name] = (value, True)

    def _names(self, work: Work, of: Any, found: dict, asked: Sequence[str]) -> None:
        targets = [n for n in of(NAME, FIRST_NAME, LAST_NAME, TEXT) if n not in found]
        name_fields = [n for n in targets if n in of(NAME, FIRST_NAME, LAST_NAME)]
        if not name_fields:
            return
        hit = names.find_name(work)
        only_asked = [a for a in asked if a not in found]
        if hit is None and set(only_asked) & set(name_fields):
            # Asked for the name alone: any short reply; with other fields (name and
            # contact): a capitalised one ("Schneider"), not "italian food please".
            only_names = set(only_asked) <= set(name_fields)
            bare = names.bare_name(work, capitalised=not only_names)
            hit = (bare, True) if bare else None
        if hit is None:
            # A contact in the same message makes a lone capitalised word a name:
            # "Weber, weber@example.com".
            contacted = any(n in found for n in of(EMAIL, PHONE, CONTACT))
            listed = names.listed_name(work, single=contacted)
            hit = (listed, False) if listed else None
        if hit is None:
            return
        name, strong = hit
        split = _split_name(name, name_fields, of)
        for field_name, value in split.items():
            found[field_name] = (value, strong)


def _own_words(name: str, field: forms.Field) -> list[list[str]]:
    """The words that name a yes/no field: its name's ("high_chair"), its label's."""
    found = []
    for text in (name.replace("_", " "), *_labels(field)[:1], *_labels(field)[2:3]):
        words = [w for w in re.findall(r"[^\W\d_]+", fold(text)) if len(w) >= 3]
        if words and words not in found:
            found.append(words)
    return found


def _split_name(name: str, targets: Iterable[str], of: Any) -> dict[str, str]:
    targets = list(targets)
    full = [t for t in targets if t in of(NAME)]
    if full:
        return {full[0]: name}
    words = name.split()
    out: dict[str, str] = {}
    first, last = of(FIRST_NAME), of(LAST_NAME)
    if first and len(words) > 1:
        out[first[0]] = " ".join(words[:-1])
    if last:
        out[last[0]] = words[-1]
    elif first:
        out[first[0]] = name
    return out


def _number_shape(value: Decimal, kind: str) -> int | str | float:
    if kind == INTEGER:
        return int(value) if value == value.to_integral_value() else str(value)
    if kind == FLOAT:
        return float(value)
    return str(value)


def _combine(day: date | None, at: time | None, previous: Any, now: datetime) -> str | None:
    """A datetime from what the text says, completed by the value collected before
    ("tomorrow at 8", then "make it 9")."""
    before = None
    if isinstance(previous, str):
        try:
            before = datetime.fromisoformat(previous)
        except ValueError:
            before = None
    if day is None and at is None:
        return None
    day = day or (before.date() if before else None)
    at = at or (before.time() if before else None)
    if day is None or at is None:
        return None
    return datetime.combine(day, at, tzinfo=now.tzinfo).isoformat()
