"""The restaurant's booking skills on the declarative forms: ``make-reservation``,
``cancel-reservation``, ``change-reservation`` and ``catering-request``.

The library collects the fields (``@skill(form=...)``: data parts, and text read by
:mod:`a2a_app.forms.text`); these handlers only check the restaurant's rules
(:mod:`skills.booking`, :mod:`skills.catering`) and answer in the guest's language
(:mod:`skills.replies`). The forms' fields are all optional for the library on purpose:
the handler runs on every turn, so a reason ("more than our largest table", "that date is
in the past") is said as soon as the value is given, not after the name and contact, and
a party of 9 or more is handed over to ``catering-request`` at once (``ctx.hand_over``).
"""

from __future__ import annotations

import re
from datetime import date, datetime, time
from typing import Any

from django import forms
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from a2a_app import HandOverError, SkillContext, skill
from a2a_app.skills.context import FACTS_STATE_KEY, FORM_STATE_KEY

from . import booking, catering, replies
from .booking import NoTableFree, Problem
from .models import CateringRequest, OpeningHours, Reservation
from .wording import DE, EN, detect_language, join_words

MODES = ["text/plain", "application/json"]
_REFERENCE_RE = re.compile(r"\b(TD|CT)\s*-?\s*([2-9A-HJKMNP-Z]{6})\b", re.IGNORECASE)
_LANG_KEY = "lang"
# "What times are free on Sunday?", "Welche Uhrzeiten gehen am Samstag?": the guest asks
# when there is a table rather than saying when they come.
_ASKS_FOR_TIMES_RE = re.compile(
    r"\b(?:what|which)\s+(?:times?|slots?)\b|\bwhat\s+time\s+(?:is|are)\s+(?:free|available)"
    r"|\b(?:free|available|open)\s+(?:times?|slots?|tables?)\b|\bavailability\b"
    r"|\bwhen\b[^.?!]*\b(?:free|available)\b"
    r"|\bwelche\s+(?:uhrzeit(?:en)?|zeiten)\b|\b(?:freie|verf[uü]gbare)\s+(?:zeiten|uhrzeiten|tische)\b"
    r"|\bwann\b[^.?!]*\b(?:frei|platz|m[oö]glich)\b|\bwas\s+ist\s+(?:noch\s+)?frei\b",
    re.IGNORECASE,
)


def _language(ctx: SkillContext) -> str:
    """The guest's language: the request's, else the text's, else the task's so far."""
    lang = ctx.language or detect_language(ctx.text) or ctx.state.get(_LANG_KEY) or EN
    lang = DE if lang.startswith("de") else EN
    ctx.state[_LANG_KEY] = lang
    return lang


def _values(ctx: SkillContext) -> dict[str, Any]:
    """The raw values the library collected so far (the form state)."""
    return ctx.state.setdefault(FORM_STATE_KEY, {}).setdefault("values", {})


def _contact_ok(value: str) -> bool:
    value = value.strip()
    if "@" in value:
        try:
            forms.EmailField().clean(value)
        except forms.ValidationError:
            return False
        return True
    return len(re.sub(r"\D", "", value)) >= 6


class ContactField(forms.CharField):
    """An e-mail address or a phone number."""

    def validate(self, value: Any) -> None:
        super().validate(value)
        if value and not _contact_ok(str(value)):
            raise forms.ValidationError(_("Enter an e-mail address or a phone number."))


def _broken_address(text: str) -> dict[str, str] | None:
    """An e-mail address the guest meant to give but that cannot be one ("lee@")."""
    for token in re.findall(r"[^\s,;()<>]*@[^\s,;()<>]*", text or ""):
        if not _contact_ok(token.strip(".")):
            return {"value": token}
    return None


# A phone number as guests write one: 7 digits or more, with spaces, dashes, slashes or
# brackets between them; no dots or colons (dates, times, prices), no ISO date.
_PHONE_LIKE_RE = re.compile(r"(?<![\w.:/-])\+?\(?\d[\d ()/-]{5,}\d(?![\w.:])")
_ISO_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _broken_phone(text: str) -> dict[str, str] | None:
    """A phone number the guest meant to give but that is none ("0151 234567": a digit
    short for a German mobile), found when no contact could be read from the message."""
    for match in _PHONE_LIKE_RE.finditer(text or ""):
        value = match[0].strip()
        if len(re.sub(r"\D", "", value)) >= 7 and not _ISO_DATE_RE.match(value):
            return {"value": value}
    return None


def _same_contact(given: str, stored: str) -> bool:
    """The contact given at booking, whatever its case or format."""
    if "@" in stored or "@" in given:
        return given.strip().casefold() == stored.strip().casefold()
    digits = re.sub(r"\D", "", given)
    digits_stored = re.sub(r"\D", "", stored)
    # "+49 171 ..." and "0171 ...": the national part must match.
    return len(digits) >= 6 and (
        digits == digits_stored or digits_stored.endswith(digits.lstrip("0")[-9:])
    )


# --- make-reservation --------------------------------------------------------------------


class ReservationForm(forms.Form):
    date = forms.DateField(label=gettext_lazy("Date"), required=False)
    time = forms.TimeField(label=gettext_lazy("Time"), required=False)
    party_size = forms.IntegerField(label=gettext_lazy("Number of people"), required=False)
    name = forms.CharField(label=gettext_lazy("Name"), max_length=200, required=False)
    contact = ContactField(label=gettext_lazy("E-mail or phone"), max_length=200, required=False)


FIELDS = ("date", "time", "party_size", "name", "contact")


@skill(
    "make-reservation",
    name="Book a table",
    description=(
        "Book a table at Trattoria Django for up to 8 guests (larger groups go on to "
        "catering-request in the same task). Needs the date, time, number of guests, a name "
        "and an e-mail address or phone number, in English or German words (\"table for 4 "
        'on Friday at 7pm, my name is Anna Schmidt") or as a data part {"date": '
        '"YYYY-MM-DD", "time": "HH:MM", "party_size", "name", "contact"}. Asks for '
        "whatever is missing (asked which times are free on a day, lists them); returns the "
        "booking reference."
    ),
    tags=[
        "reservation", "book", "booking", "table", "reserve", "tonight", "guests", "persons",
        "people", "dinner", "lunch", "seat", "space", "Reservierung", "reservieren", "Tisch",
        "buchen", "Platz", "dasselbe", "Gäste", "Personen", "Leute", "Abendessen", "Mittagessen",
    ],
    examples=[
        "Book a table for 4 on Friday at 7pm",
        "Reserve a table for 2 tomorrow at 19:30",
        "I'd like a reservation for 6 people on 2026-12-24 at 8 pm",
        "Do you have a table for two tonight?",
        "Tisch für 4 Personen am Freitag um 19 Uhr",
        "Ich möchte für morgen um 20 Uhr einen Tisch reservieren",
        "Habt ihr heute Abend noch Platz für zwei Leute?",
    ],
    input_modes=MODES,
    output_modes=MODES,
    form=ReservationForm,
    context_fields=["name", "contact", "party_size"],
)  # fmt: skip
def make_reservation(ctx: SkillContext) -> Any:
    """Book a table, asking for the date, time, party size, name and contact as needed."""
    lang = _language(ctx)
    with translation.override(lang):
        return _make_reservation(ctx, lang)


def _raw(ctx: SkillContext) -> dict[str, Any]:
    """The cleaned values in the shape :func:`skills.booking.check` reads."""
    data = ctx.cleaned_data
    raw: dict[str, Any] = {}
    if data.get("date"):
        raw["date"] = data["date"].isoformat()
    if data.get("time"):
        raw["time"] = f"{data['time']:%H:%M}"
    if data.get("party_size") is not None:
        raw["party_size"] = data["party_size"]
    for name in ("name", "contact"):
        if data.get(name):
            raw[name] = data[name].strip()
    return raw


def _make_reservation(ctx: SkillContext, lang: str) -> Any:
    now = timezone.localtime()
    fields = _raw(ctx)
    problems = booking.check(fields, now)
    if any(p.code == "no_tables" for p in problems):
        return ctx.reject(replies.problem_text(problems[0], fields, lang))
    too_large = next((p for p in problems if p.code == "party_too_large"), None)
    if too_large is not None:
        handed = _to_catering(ctx, fields, too_large, lang)
        if handed is not None:
            return handed
    problems = [_with_suggestions(p, fields, now) for p in problems]
    return _ask_or_book(ctx, fields, problems, lang, now)


def _to_catering(ctx: SkillContext, fields: dict[str, Any], problem: Problem, lang: str) -> Any:
    """A party larger than our largest table goes on to the catering request."""
    values = {k: fields[k] for k in ("date", "time", "name", "contact") if k in fields}
    values["guests"] = fields["party_size"]
    note = _(
        "Our largest table seats %(max)s, so for %(count)s guests I am passing your "
        "request on to our catering and group team."
    ) % {"max": problem.params["max"], "count": fields["party_size"]}
    try:
        return ctx.hand_over("catering-request", values=values, note=note)
    except HandOverError:
        return None  # the reason is said below and the size asked again


def _with_suggestions(problem: Problem, fields: dict[str, Any], now: datetime) -> Problem:
    """Outside the opening hours: say the hours and offer the nearest free times."""
    if problem.code not in ("outside_hours", "past_time") or "party_size" not in fields:
        return problem
    day = problem.params.get("day") or date.fromisoformat(fields["date"])
    at = time.fromisoformat(fields["time"])
    suggestions = booking.suggest_times(day, max(1, fields["party_size"]), at, now=now)
    return Problem(problem.field, problem.code, {**problem.params, "suggestions": suggestions})


def _problem_text(problem: Problem, fields: dict[str, Any], lang: str) -> str:
    text = replies.problem_text(problem, fields, lang)
    if problem.code == "party_too_large":
        largest = problem.params["max"]
        return _("That is more than our largest table, which seats %(max)s.") % {"max": largest}
    if problem.code == "party_too_small":
        return _("The number of guests must be at least 1.")
    if problem.code == "past_time" and problem.params.get("suggestions"):
        times = ", ".join(f"{t:%H:%M}" for t in problem.params["suggestions"])
        text += " " + _("We could offer %(times)s.") % {"times": times}
    if problem.code == "outside_hours":
        text = _opening_hours(problem.params["day"], lang) + " " + text
        if problem.params.get("suggestions"):
            times = ", ".join(f"{t:%H:%M}" for t in problem.params["suggestions"])
            text += " " + _("We could offer %(times)s.") % {"times": times}
    return text


#: At most this many free times are listed; more are thinned out evenly over the day.
FREE_TIMES_LISTED = 6


def _free_times_text(known: dict[str, Any], lang: str, now: datetime) -> str:
    """ "On Sunday 6 December 2026 we have a table free at 11:30, 13:30, ... and 22:00,
    among other times." """
    day = date.fromisoformat(known["date"])
    times = booking.free_times(day, known.get("party_size", 1), now=now)
    when = replies.format_date(day, lang)
    if not times:
        return _("On %(date)s we have no table free.") % {"date": when}
    count, listed = len(times), FREE_TIMES_LISTED
    if count > listed:  # the first, the last and evenly between
        times = [times[round(i * (count - 1) / (listed - 1))] for i in range(listed)]
        sentence = _("On %(date)s we have a table free at %(times)s, among other times.")
    else:
        sentence = _("On %(date)s we have a table free at %(times)s.")
    return sentence % {"date": when, "times": join_words([f"{t:%H:%M}" for t in times], lang)}


def _opening_hours(day: date, lang: str) -> str:
    """ "We are open 11:30–23:00 that day.": the periods, so the closing time is said."""
    periods = OpeningHours.objects.filter(weekday=day.weekday()).order_by("opens")
    spans = [f"{p.opens:%H:%M}–{p.closes:%H:%M}" for p in periods]
    return _("We are open %(spans)s that day.") % {"spans": join_words(spans, lang)}


def _ask_or_book(
    ctx: SkillContext,
    fields: dict[str, Any],
    problems: list[Problem],
    lang: str,
    now: datetime,
) -> Any:
    quoted = dict(fields)  # the rejected values too: "That date is in the past."
    rejected = {p.field for p in problems}
    for name in rejected:
        ctx.invalid(name, "")  # forget it (and the context fact), so it is asked again
    known = {k: v for k, v in fields.items() if k not in rejected}
    missing = [f for f in FIELDS if f not in known]
    if missing:
        sentences = [_problem_text(p, quoted, lang) for p in problems]
        errors = {p.field: [text] for p, text in zip(problems, sentences, strict=True)}
        broken = _broken_address(ctx.text) if "contact" in missing else None
        if broken:
            errors["contact"] = [_("“%(value)s” is not a complete e-mail address.") % broken]
            sentences += errors["contact"]
        elif "contact" in missing and (phone := _broken_phone(ctx.text)):
            errors["contact"] = [_("“%(value)s” is not a phone number I can use.") % phone]
            sentences += errors["contact"]
        question = replies.question(missing, [], quoted, known, lang)
        if "time" in missing and "date" in known and _ASKS_FOR_TIMES_RE.search(ctx.text):
            sentences.append(_free_times_text(known, lang, now))
        ctx.state[FORM_STATE_KEY]["asked"] = missing
        return ctx.ask(
            " ".join([*sentences, question]),
            missing=missing,
            data={"missing": missing, "errors": errors, "known": known},
        )
    start = booking.local_start(
        date.fromisoformat(known["date"]), time.fromisoformat(known["time"])
    )
    try:
        reservation = booking.book(
            start=start,
            party_size=known["party_size"],
            name=known["name"],
            contact=known["contact"],
        )
    except NoTableFree:
        suggestions = booking.suggest_times(
            start.date(), known["party_size"], start.time(), now=now
        )
        problem = Problem("time", "no_table", {"suggestions": suggestions, "day": start.date()})
        return _ask_or_book(ctx, {**known}, [problem], lang, now)
    ctx.attach(reservation)
    ctx.state["reference"] = reservation.reference
    # A cancel or change later in the conversation knows which booking is meant.
    ctx.state.setdefault(FACTS_STATE_KEY, {})["reference"] = reservation.reference
    text = replies.confirmation(reservation, lang)
    return ctx.complete(
        text=text, data=replies.reservation_data(reservation), name="reservation", message=text
    )


# --- cancel-reservation and change-reservation -------------------------------------------


class CancelForm(forms.Form):
    reference = forms.CharField(
        label=gettext_lazy("Booking reference"), max_length=12, required=False
    )
    contact = ContactField(label=gettext_lazy("E-mail or phone"), max_length=200, required=False)


class ChangeForm(CancelForm):
    date = forms.DateField(label=gettext_lazy("New date"), required=False)
    time = forms.TimeField(label=gettext_lazy("New time"), required=False)
    party_size = forms.IntegerField(label=gettext_lazy("Number of people"), required=False)


def _reference(ctx: SkillContext) -> str:
    """The booking reference (TD-…): from this message, else collected before."""
    values = _values(ctx)
    found = _REFERENCE_RE.search(ctx.text or "")
    if found:
        values["reference"] = f"{found[1].upper()}-{found[2].upper()}"
    reference = str(values.get("reference") or ctx.cleaned_data.get("reference") or "")
    return reference.strip().upper()


def _find(ctx: SkillContext, lang: str) -> tuple[Reservation | None, Any]:
    """The guest's reservation, when both reference and contact match; else the question."""
    reference = _reference(ctx)
    contact = str(ctx.cleaned_data.get("contact") or _values(ctx).get("contact") or "")
    missing = [n for n, v in (("reference", reference), ("contact", contact)) if not v]
    if missing:
        labels = {
            "reference": _("your booking reference (TD-…)"),
            "contact": _("the e-mail address or phone number you booked with"),
        }
        wanted = join_words([labels[m] for m in missing], lang)
        text = _("Please tell me %(wanted)s.") % {"wanted": wanted}
        _values(ctx)["reference"] = reference
        ctx.state[FORM_STATE_KEY]["asked"] = missing
        return None, ctx.ask(text, missing=missing, data={"missing": missing})
    reservation = Reservation.objects.filter(
        reference=reference, status=Reservation.Status.CONFIRMED
    ).first()
    if reservation is None or not _same_contact(contact, reservation.contact):
        # Never say which of the two did not match: a booking stays private without both.
        values = _values(ctx)
        values.pop("reference", None)
        values.pop("contact", None)
        ctx.state[FORM_STATE_KEY]["asked"] = ["reference", "contact"]
        text = _(
            "I found no booking with that reference and contact. Please check both "
            "and tell me again."
        )
        missing = ["reference", "contact"]
        return None, ctx.ask(text, missing=missing, data={"missing": missing})
    return reservation, None


@skill(
    "cancel-reservation",
    name="Cancel a reservation",
    description=(
        "Cancel a table reservation at Trattoria Django by its reference (TD-…) and the "
        "e-mail address or phone number it was booked with; in English or German."
    ),
    tags=[
        "cancel", "cancellation", "call off", "stornieren", "Stornierung", "absagen",
        "Absage", "storno",
    ],
    examples=[
        "Cancel my reservation TD-7K3Q9X",
        "Please cancel TD-7K3Q9X, we can't come",
        "Ich möchte meine Reservierung TD-7K3Q9X stornieren",
        "Bitte sagen Sie TD-7K3Q9X ab",
    ],
    input_modes=MODES,
    output_modes=MODES,
    form=CancelForm,
    context_fields=["reference", "contact"],
)  # fmt: skip
def cancel_reservation(ctx: SkillContext) -> Any:
    """Cancel a reservation by reference and contact."""
    lang = _language(ctx)
    with translation.override(lang):
        reservation, question = _find(ctx, lang)
        if reservation is None:
            return question
        reservation.status = Reservation.Status.CANCELLED
        reservation.save(update_fields=["status"])
        ctx.attach(reservation)
        start = timezone.localtime(reservation.start)
        when = replies.format_date(start.date(), lang)
        text = _("Your reservation %(reference)s on %(date)s at %(time)s is cancelled.") % {
            "reference": reservation.reference,
            "date": when,
            "time": f"{start:%H:%M}",
        }
        data = replies.reservation_data(reservation)
        return ctx.complete(text=text, data=data, name="reservation", message=text)


@skill(
    "change-reservation",
    name="Change a reservation",
    description=(
        "Move a table reservation at Trattoria Django to another date or time, or change "
        "the number of guests, by its reference (TD-…) and the e-mail address or phone "
        "number it was booked with; the new time is checked like a new booking."
    ),
    tags=[
        "change", "move", "reschedule", "modify", "update", "postpone", "instead", "earlier",
        "later", "ändern", "verschieben", "umbuchen", "Änderung", "statt", "anstatt",
        "früher", "später", "stattdessen", "verlegen", "vorverlegen", "rebook", "push back",
    ],
    examples=[
        "I need to change my reservation TD-7K3Q9X to a later time",
        "Move TD-7K3Q9X to another day",
        "Can we be 6 instead of 4? TD-7K3Q9X",
        "Ich möchte meine Reservierung TD-7K3Q9X auf später verschieben",
        "Reservierung TD-7K3Q9X ändern: wir sind jetzt 5",
    ],
    input_modes=MODES,
    output_modes=MODES,
    form=ChangeForm,
    context_fields=["reference", "contact"],
)  # fmt: skip
def change_reservation(ctx: SkillContext) -> Any:
    """Move a reservation (date, time, party size) by reference and contact."""
    lang = _language(ctx)
    with translation.override(lang):
        reservation, question = _find(ctx, lang)
        if reservation is None:
            return question
        return _change(ctx, reservation, lang)


def _change(ctx: SkillContext, reservation: Reservation, lang: str) -> Any:
    now = timezone.localtime()
    start = timezone.localtime(reservation.start)
    data = ctx.cleaned_data
    if not any(data.get(k) not in (None, "") for k in ("date", "time", "party_size")):
        ctx.state[FORM_STATE_KEY]["asked"] = ["date", "time", "party_size"]
        text = _("What would you like to change: the date, the time or the number of guests?")
        return ctx.ask(text, missing=["date", "time", "party_size"])
    fields = {
        "date": (data.get("date") or start.date()).isoformat(),
        "time": f"{data.get('time') or start.time():%H:%M}",
        "party_size": data.get("party_size") or reservation.party_size,
    }
    # Its own table does not count as taken while we look for the new slot.
    reservation.status = Reservation.Status.CANCELLED
    reservation.save(update_fields=["status"])
    problems = [_with_suggestions(p, fields, now) for p in booking.check(fields, now)]
    if problems:
        reservation.status = Reservation.Status.CONFIRMED
        reservation.save(update_fields=["status"])
        problem = problems[0]
        field = problem.field if problem.field in ("date", "time", "party_size") else "time"
        _values(ctx).pop(field, None)
        ctx.state[FORM_STATE_KEY]["asked"] = [field]
        text = _problem_text(problem, fields, lang)
        text += " " + _("What else would suit you?")
        return ctx.ask(text, missing=[field], data={"missing": [field], "errors": {field: [text]}})
    new_start = booking.local_start(
        date.fromisoformat(fields["date"]), time.fromisoformat(fields["time"])
    )
    try:
        moved = booking.book(
            start=new_start,
            party_size=fields["party_size"],
            name=reservation.name,
            contact=reservation.contact,
        )
    except NoTableFree:
        reservation.status = Reservation.Status.CONFIRMED
        reservation.save(update_fields=["status"])
        suggestions = booking.suggest_times(
            new_start.date(), fields["party_size"], new_start.time(), now=now
        )
        problem = Problem("time", "no_table", {"suggestions": suggestions, "day": new_start.date()})
        _values(ctx).pop("time", None)
        text = _problem_text(problem, fields, lang)
        return ctx.ask(text, missing=["time"], data={"missing": ["time"]})
    # The guest keeps the reference they know: the booking takes the new slot's table.
    reservation.start, reservation.table = moved.start, moved.table
    reservation.party_size = moved.party_size
    reservation.status = Reservation.Status.CONFIRMED
    moved.delete()
    reservation.save(update_fields=["start", "table", "party_size", "status"])
    moved = reservation
    ctx.attach(moved)
    text = replies.confirmation(moved, lang)
    text = _("Changed.") + " " + text
    return ctx.complete(
        text=text, data=replies.reservation_data(moved), name="reservation", message=text
    )


# --- catering-request ----------------------------------------------------------------------


class CateringForm(forms.Form):
    date = forms.DateField(label=gettext_lazy("Date"), required=False)
    time = forms.TimeField(label=gettext_lazy("Time"), required=False)
    guests = forms.IntegerField(label=gettext_lazy("Number of guests"), required=False)
    name = forms.CharField(label=gettext_lazy("Name"), max_length=200, required=False)
    contact = ContactField(label=gettext_lazy("E-mail or phone"), max_length=200, required=False)
    notes = forms.CharField(label=gettext_lazy("Notes"), widget=forms.Textarea, required=False)


@skill(
    "catering-request",
    name="Catering and large groups",
    description=(
        "Catering, company events, parties and groups of more than 8 guests (larger than "
        "our largest table) at Trattoria Django, in English or German words (\"catering "
        'for 40 people on 2026-12-18 at 12:00, contact events@acme.example") or as a data '
        'part {"date": "YYYY-MM-DD", "time": "HH:MM" (optional), "guests": 9-500, '
        '"contact", "name" (optional), "notes"}. Asks for whatever is missing; then the '
        "task stays working until a manager approves (completed, with the reference) or "
        "declines (rejected)."
    ),
    tags=[
        "catering", "event", "party", "parties", "group", "company", "corporate", "office",
        "celebration", "celebrate", "birthday", "wedding", "buffet", "Firmenfeier",
        "Weihnachtsfeier", "Betriebsfeier", "Gruppe", "Feier", "feiern", "Veranstaltung",
        "Geburtstag", "Hochzeit", "colleagues", "Kollegen",
    ],
    examples=[
        "Catering for 40 people on December 18",
        "A group of 15 guests for a birthday party",
        "Company Christmas party with 60 guests",
        "Buffet for an office event, 50 persons",
        "Wir möchten am Wochenende mit 25 Personen feiern",
        "Catering für unsere Firmenfeier mit 50 Gästen",
        "Geburtstagsfeier für 30 Gäste um 18 Uhr",
        "Weihnachtsfeier für eine Gruppe von 40 Leuten",
    ],
    input_modes=MODES,
    output_modes=MODES,
    background=True,
    form=CateringForm,
    context_fields=["name", "contact"],
)  # fmt: skip
def catering_request(ctx: SkillContext) -> Any:
    """Take a catering or large-group request and leave it for a manager to decide."""
    lang = _language(ctx)
    with translation.override(lang):
        # A worker that died after storing the request runs the handler again: same request.
        existing = catering.request_for_task(ctx.task_id)
        if existing is None:
            existing = _catering(ctx, lang)
            if not isinstance(existing, CateringRequest):
                return existing  # a question, or a hand-over to the table booking
        return _catering_received(ctx, existing)


def _catering(ctx: SkillContext, lang: str) -> Any:
    data = ctx.cleaned_data
    fields: dict[str, Any] = {}
    if data.get("date"):
        fields["date"] = data["date"].isoformat()
    if data.get("time"):
        fields["time"] = f"{data['time']:%H:%M}"
    if data.get("guests") is not None:
        fields["guests"] = data["guests"]
    for name in ("name", "contact"):
        if data.get(name):
            fields[name] = data[name].strip()
    notes = [*ctx.state.get("notes", ()), str(data.get("notes") or ""), ctx.text]
    ctx.state["notes"] = [n.strip() for n in dict.fromkeys(notes) if n.strip()]
    problems = catering.check(fields, timezone.now())
    small = next((p for p in problems if p.code == "group_too_small"), None)
    if small is not None and fields["guests"] >= 1:
        handed = _to_table(ctx, fields, lang)
        if handed is not None:
            return handed
    quoted = dict(fields)
    rejected = {p.field for p in problems}
    for name in rejected:
        ctx.invalid(name, "")
    known = {k: v for k, v in fields.items() if k not in rejected}
    missing = [f for f in catering.REQUIRED if f not in known]
    if missing:
        sentences = [replies.problem_text(p, quoted, lang) for p in problems]
        if small is not None:
            sentences = [
                _("Group and catering requests start at %(min)s guests.")
                % {"min": catering.MIN_GUESTS}
            ]
        errors = {p.field: [t] for p, t in zip(problems, sentences, strict=False)}
        question = replies.catering_question(missing, [], quoted, known, lang)
        ctx.state[FORM_STATE_KEY]["asked"] = missing
        return ctx.ask(
            " ".join([*sentences, question]),
            missing=missing,
            data={"missing": missing, "errors": errors, "known": known},
        )
    return catering.create_request(
        task_id=ctx.task_id,
        fields=known,
        notes="\n".join(ctx.state["notes"]),
        language=lang,
    )


def _to_table(ctx: SkillContext, fields: dict[str, Any], lang: str) -> Any:
    """A party that fits a table goes on to the table booking."""
    values = {k: fields[k] for k in ("date", "time", "name", "contact") if k in fields}
    values["party_size"] = fields["guests"]
    note = _("For %(count)s guests we can simply book you a table.") % {"count": fields["guests"]}
    try:
        return ctx.hand_over("make-reservation", values=values, note=note)
    except HandOverError:
        return None


def _catering_received(ctx: SkillContext, request: CateringRequest) -> Any:
    ctx.attach(request)  # the admin's task page links to the request
    ctx.state["reference"] = request.reference
    text = replies.catering_received(request)
    return ctx.keep_working(text, data=replies.catering_data(request))
