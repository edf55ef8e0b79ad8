"""The restaurant's information skills: ``opening-hours`` and ``location``.

Both answer from rows the owner edits in the admin (:class:`~skills.models.OpeningHours`
and :class:`~skills.models.Closure`; :class:`~skills.models.RestaurantInfo`) and
complete at once: the status message is the guest's answer, in their language, and an
artifact carries the same facts as JSON for a calling program.

``opening-hours`` reads a day and a time with the library's deterministic interpreter
("Sunday", "heute", "am 24.12.", "at 10pm") or from a data part ``{"day", "time"}``; the
part of the day ("evening", "abends") and "now" are read here. It is deliberately not
declared as a form skill: the router weighs a skill's declared date and time fields, and
every booking names a day and a time ("Lunch for 2 on Saturday at noon" is a booking).
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from typing import Any

from django import forms
from django.utils import timezone, translation
from django.utils.dateformat import format as date_format
from django.utils.dates import WEEKDAYS
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from a2a_app import Completed, SkillContext, skill
from a2a_app.forms.text import DeterministicInterpreter

from .menu_skills import fold, guest_language, words_of
from .models import Closure, OpeningHours, RestaurantInfo
from .wording import join_words

MODES = ["text/plain", "application/json"]

#: How far ahead the general answer lists closures (holidays).
CLOSURES_AHEAD = timedelta(days=60)

# Parts of the day a guest names, as the hours they cover (start, end).
_PARTS = {
    "morning": (time(8), time(12)),
    "lunch": (time(12), time(14, 30)),
    "afternoon": (time(14), time(18)),
    "evening": (time(18), time(22)),
    "night": (time(22), time(23, 59)),
}
_PART_WORDS = {
    "morning": "morning mornings vormittag vormittags früh morgens",
    "lunch": "lunch lunchtime noon midday mittag mittags mittagessen",
    "afternoon": "afternoon afternoons nachmittag nachmittags",
    "evening": "evening evenings tonight dinner abend abends abendessen",
    "night": "night late nacht nachts spät",
}
PART_WORDS = {w: part for part, text in _PART_WORDS.items() for w in text.split()}
PART_LABELS = {
    "morning": pgettext_lazy("part of day", "in the morning"),
    "lunch": pgettext_lazy("part of day", "at lunchtime"),
    "afternoon": pgettext_lazy("part of day", "in the afternoon"),
    "evening": pgettext_lazy("part of day", "in the evening"),
    "night": pgettext_lazy("part of day", "late at night"),
}
_NOW_RE = re.compile(r"\b(?:now|right now|currently|at the moment|jetzt|gerade|grade|aktuell)\b")
_TODAY_RE = re.compile(r"\b(?:today|tonight|heute)\b")
# Questions that ask "when", not "whether": answered without "Yes," / "No,".
_WH_RE = re.compile(
    r"^\W*(?:what|when|until|till|how|which|from what|wann|bis wann|ab wann|um wie ?viel|"
    r"wie ?lange|welche)\b"
)


class HoursForm(forms.Form):
    """What a guest may ask about: a day and a time, both optional."""

    day = forms.DateField(
        required=False, label=gettext_lazy("Day"), help_text=gettext_lazy("YYYY-MM-DD")
    )
    time = forms.TimeField(
        required=False, label=gettext_lazy("Time"), help_text=gettext_lazy("HH:MM")
    )


# --- opening hours ----------------------------------------------------------------------------


def read_day_and_time(ctx: SkillContext, now: datetime) -> tuple[date | None, time | None]:
    """The day and time asked about: the data part's ``day``/``time`` (ISO, or words),
    else the text's, read by the deterministic interpreter as a form would be."""
    interpreter = DeterministicInterpreter()
    found: dict[str, Any] = {}
    if ctx.text.strip():
        found = interpreter.interpret(ctx.text, HoursForm, language=ctx.language, now=now)
    for name in ("day", "time"):
        value = ctx.data.get(name)
        if isinstance(value, str) and value.strip():
            read = interpreter.interpret(value, HoursForm, asked=[name], now=now).get(name)
            found[name] = read or value.strip()
    form = HoursForm(data=found)
    form.is_valid()  # a value it cannot read is left out: the week is the answer then
    cleaned = {k: v for k, v in form.cleaned_data.items() if k not in form.errors}
    return cleaned.get("day"), cleaned.get("time")


def closure_on(day: date) -> Closure | None:
    return Closure.objects.filter(first_day__lte=day, last_day__gte=day).first()


def periods_on(day: date) -> list[tuple[time, time]]:
    """The opening periods of ``day``: none on a closure day."""
    if closure_on(day) is not None:
        return []
    return [
        (p.opens, p.closes)
        for p in OpeningHours.objects.filter(weekday=day.weekday()).order_by("opens")
    ]


def hours_text(periods: list[tuple[time, time]], lang: str) -> str:
    """``from 11:30 to 14:30 and from 18:00 to 23:00``."""
    spans = [
        _("from %(opens)s to %(closes)s") % {"opens": f"{a:%H:%M}", "closes": f"{b:%H:%M}"}
        for a, b in periods
    ]
    return join_words(spans, lang)


def day_text(day: date) -> str:
    # The format is translated too: "Sunday 6 December" / "Sonntag, 6. Dezember".
    return date_format(day, _("l j F"))


def weekly_text(lang: str) -> str:
    """The week's hours, consecutive days with the same hours together."""
    by_day: list[tuple[tuple[time, time], ...]] = [() for _day in range(7)]
    for period in OpeningHours.objects.order_by("weekday", "opens"):
        by_day[period.weekday] += ((period.opens, period.closes),)
    if len(set(by_day)) == 1:
        if not by_day[0]:
            return _("We have no opening hours set at the moment.")
        return _("We are open daily %(hours)s.") % {"hours": hours_text(list(by_day[0]), lang)}
    lines, start = [], 0
    for weekday in range(1, 8):
        if weekday < 7 and by_day[weekday] == by_day[start]:
            continue
        days = str(WEEKDAYS[start])
        if weekday - 1 > start:
            days += f"–{WEEKDAYS[weekday - 1]}"
        hours = hours_text(list(by_day[start]), lang) if by_day[start] else _("closed")
        lines.append(f"{days}: {hours}")
        start = weekday
    return _("Our opening hours:") + "\n" + "\n".join(lines)


def closures_text(today: date, lang: str) -> str:
    upcoming = Closure.objects.filter(last_day__gte=today, first_day__lte=today + CLOSURES_AHEAD)
    items = []
    for closure in upcoming:
        span = date_format(closure.first_day, _("j F"))
        if closure.last_day != closure.first_day:
            span += "–" + date_format(closure.last_day, _("j F"))
        reason = closure.reason_in(lang)
        items.append(f"{span} ({reason})" if reason else span)
    if not items:
        return ""
    return _("Closed on %(days)s.") % {"days": join_words(items, lang)}


def _overlaps(periods: list[tuple[time, time]], start: time, end: time) -> bool:
    return any(opens < end and closes > start for opens, closes in periods)


def next_open_day(after: date) -> date | None:
    for offset in range(1, 15):
        day = after + timedelta(days=offset)
        if periods_on(day):
            return day
    return None


def day_answer(
    day: date,
    at: time | None,
    part: str | None,
    now: datetime,
    lang: str,
    *,
    yes_no: bool = True,
) -> str:
    """Yes or no for one day (and a time or part of it), with that day's hours; without
    the yes or no for a question that asks "when" or "what time"."""
    today = now.date()
    if day == today:
        when = _("today (%(day)s)") % {"day": date_format(day, _("l"))}
    elif day == today + timedelta(days=1):
        when = _("tomorrow (%(day)s)") % {"day": date_format(day, _("l"))}
    else:
        when = _("on %(day)s") % {"day": day_text(day)}
    periods = periods_on(day)
    if not periods:
        closure = closure_on(day)
        reason = closure.reason_in(lang) if closure else ""
        if yes_no:
            answer = _("No, %(when)s we are closed.") % {"when": when}
        else:
            answer = capfirst(_("%(when)s we are closed.") % {"when": when})
        if reason:
            answer = answer[:-1] + f" ({reason})."
        following = next_open_day(day)
        if following is not None:
            answer += " " + _("We are open again on %(day)s %(hours)s.") % {
                "day": day_text(following),
                "hours": hours_text(periods_on(following), lang),
            }
        return answer
    hours = hours_text(periods, lang)
    if at is not None:
        is_open = _overlaps(periods, at, (datetime.combine(day, at) + timedelta(minutes=1)).time())
        asked = _("at %(time)s") % {"time": f"{at:%H:%M}"}
    elif part is not None:
        is_open = _overlaps(periods, *_PARTS[part])
        asked = str(PART_LABELS[part])
    else:
        is_open, asked = True, ""
    values = {"when": when, "asked": asked, "hours": hours}
    if is_open and not yes_no:
        answer = capfirst(_("%(when)s we are open %(hours)s.") % values)
    elif is_open and asked:
        answer = _("Yes, %(when)s we are open %(asked)s: %(hours)s.") % values
    elif is_open:
        answer = _("Yes, %(when)s we are open %(hours)s.") % values
    else:
        answer = _("No, %(when)s we are not open %(asked)s; we are open %(hours)s.") % values
    if day == today and at is None and part is None:
        answer += " " + _now_status(periods, now.time())
    return answer


def _now_status(periods: list[tuple[time, time]], now: time) -> str:
    for opens, closes in periods:
        if opens <= now < closes:
            return _("We are open right now, until %(time)s.") % {"time": f"{closes:%H:%M}"}
        if now < opens:
            return _("We open at %(time)s.") % {"time": f"{opens:%H:%M}"}
    return _("We have closed for today.")


@skill(
    "opening-hours",
    name="Opening hours",
    description=(
        "When Trattoria Django is open: the weekly hours, whether it is open on a given day "
        "or at a given time (\"Are you open on Sunday evening?\", \"Habt ihr heute offen?\"), "
        "and holiday closures. Optional data part {\"day\": \"YYYY-MM-DD\", \"time\": "
        '"HH:MM"}. The status message is the answer.'
    ),
    tags=[
        "opening hours", "hours", "open", "opening", "closed", "close", "closing", "holiday",
        "Öffnungszeiten", "geöffnet", "offen", "geschlossen", "auf", "Ruhetag", "Feiertag",
        # "auf" is a stop word to the router: "Wann macht ihr auf?" keeps only "macht".
        "macht", "aufmachen", "zumachen", "aufhaben", "öffnet", "öffnen", "schließt", "schließen",
        "lunchtime", "Mittagstisch",
        "Küche",
        "zuhaben",
        # Phrases (matched whole): questions about being open whose words are common.
        "how late", "from what time", "until what time", "till what time", "what time do you",
        "new years day", "new year s day",
        "wie lange", "ab wann", "bis wann", "wann macht", "wann habt", "wann seid",
    ],
    examples=[
        "When are you open?",
        "What are your opening hours?",
        "Are you open on Sunday evening?",
        "Are you open now?",
        "What time do you close today?",
        "Wann habt ihr geöffnet?",
        "Habt ihr heute offen?",
        "Habt ihr sonntags geöffnet?",
        "Habt ihr an Weihnachten geöffnet?",
        "Bis wann habt ihr heute auf?",
    ],
    input_modes=MODES,
    output_modes=MODES,
)  # fmt: skip
def opening_hours(ctx: SkillContext) -> Completed:
    """Say when the restaurant is open, or whether it is open on the day asked about."""
    lang = guest_language(ctx)
    with translation.override(lang):
        return _opening_hours(ctx, lang)


def _opening_hours(ctx: SkillContext, lang: str) -> Completed:
    now = timezone.localtime()
    day, at = read_day_and_time(ctx, now)
    folded = fold(ctx.text)
    part = next((PART_WORDS[w] for w in words_of(ctx.text) if w in PART_WORDS), None)
    if part is not None and at is not None and not re.search(r"\d", ctx.text):
        at = None  # "mittags" read as 12:00 by the interpreter: the whole lunchtime counts
    if _NOW_RE.search(folded) and day is None and at is None:
        day, at = now.date(), now.time().replace(second=0, microsecond=0)
    elif day is None and (at is not None or part is not None or _TODAY_RE.search(folded)):
        day = now.date()
    if day is not None:
        yes_no = not _WH_RE.search(folded)
        message = day_answer(day, at, part, now, lang, yes_no=yes_no)
        data: dict[str, Any] = {
            "date": day.isoformat(),
            "open": bool(periods_on(day)),
            "hours": [{"opens": f"{a:%H:%M}", "closes": f"{b:%H:%M}"} for a, b in periods_on(day)],
        }
    else:
        message = weekly_text(lang)
        closed = closures_text(now.date(), lang)
        if closed:
            message += "\n" + closed
        data = {
            "weekly": [
                {"weekday": p.weekday, "opens": f"{p.opens:%H:%M}", "closes": f"{p.closes:%H:%M}"}
                for p in OpeningHours.objects.order_by("weekday", "opens")
            ],
            "closures": [
                {
                    "first_day": c.first_day.isoformat(),
                    "last_day": c.last_day.isoformat(),
                    "reason": c.reason_in(lang),
                }
                for c in Closure.objects.filter(last_day__gte=now.date())
            ],
        }
    # The answer is the status message; the artifact holds the same facts for programs.
    return ctx.complete(data=data, message=message, name="opening-hours")


# --- location ---------------------------------------------------------------------------------

ADDRESS, CONTACT, DIRECTIONS = "address", "contact", "directions"
PARKING, TRANSPORT, ACCESS = "parking", "public_transport", "accessibility"
_TOPIC_WORDS = {
    PARKING: "park parking parked parken parkplatz parkplätze parkhaus car cars auto garage",
    TRANSPORT: "train trains bus buses tram trams subway metro underground u-bahn s-bahn ubahn "
    "sbahn bahn zug station bahnhof hauptbahnhof haltestelle öffentlich öffentlichen "
    "öffentliche öpnv öffis straßenbahn transport transit haltestellen bushaltestelle "
    "verkehrsmittel stops",
    ACCESS: "wheelchair wheelchairs accessible accessibility barrierefrei barrierefreiheit "
    "rollstuhl rollstuhlgerecht rollator stairs steps step-free stufen stufe treppe "
    "treppen disabled behindert behinderte lift elevator aufzug toilet toilets toilette wc",
    CONTACT: "phone telephone call number e-mail email mail contact telefon telefonnummer "
    "anrufen nummer kontakt erreichen",
    DIRECTIONS: "directions direction route anfahrt weg airport flughafen walk taxi cab",
    ADDRESS: "address located location adresse standort anschrift postanschrift area "
    "neighbourhood neighborhood district stadtteil bezirk viertel kiez street straße strasse",
}
# "Where", "wo" name no topic: the address is the answer unless the guest names something
# else ("Wo kann ich parken?" is about parking).
TOPIC_WORDS = {w: topic for topic, text in _TOPIC_WORDS.items() for w in text.split()}
# Beginnings of German compounds ("Rollstuhlfahrer", "Parkplatzsuche", "Bushaltestelle" is
# found by its end, so it is listed whole).
_TOPIC_STEMS = {
    "rollstuhl": ACCESS, "barriere": ACCESS, "wheelchair": ACCESS, "behindert": ACCESS,
    "toilet": ACCESS, "parkpl": PARKING, "parkh": PARKING, "tiefgarage": PARKING,
    "bushalte": TRANSPORT, "strassenbahn": TRANSPORT, "bahnhof": TRANSPORT,
}  # fmt: skip
_GET_THERE_RE = re.compile(r"\b(?:get (?:there|to you)|wie komme|hinkommen|komme ich)\b")


# Words of a topic that say nothing about us on their own: a name ("Park"), a verb
# ("walk", "call"), someone else's service ("taxi", "airport", "lift"), or a word
# a booking message carries (phone numbers, e-mail addresses: see the tags below), or
# one the router would match to another skill's word by its beginning ("öffentlich"
# begins with "offen", the opening hours' word).
_NOT_TAGS = frozenset([
    "park", "car", "cars", "auto", "garage", "weg", "walk", "taxi", "cab", "airport",
    "flughafen", "lift", "step", "steps", "stufe", "stufen", "direction", "call",
    "öffentlich", "öffentlichen", "öffentliche",
])  # fmt: skip


#: The location skill's routing tags: its own, then every topic word this skill answers
#: ("Anschrift", "Haltestelle", "S-Bahn"): the router reads only tags and examples.
def location_vocabulary() -> list[str]:
    """The words the location answer understands, for the router beyond the card's tags
    ("Stadtteil", "Bushaltestelle", "stops"); not the contact words (booking messages
    carry phone numbers) nor those in ``_NOT_TAGS``."""
    return [
        word
        for topic, text in _TOPIC_WORDS.items()
        if topic != CONTACT
        for word in text.split()
        if word not in _NOT_TAGS
    ]


def location_topics(text: str) -> list[str]:
    """What the guest asks about, in a fixed order; the address when nothing else."""
    said = set(re.findall(r"[^\W\d_]+(?:-[^\W\d_]+)*", text.lower())) | set(words_of(text))
    found = {TOPIC_WORDS[w] for w in said if w in TOPIC_WORDS}
    found |= {topic for w in said for stem, topic in _TOPIC_STEMS.items() if w.startswith(stem)}
    if _GET_THERE_RE.search(fold(text)) and TRANSPORT not in found and PARKING not in found:
        found.add(DIRECTIONS)
    if DIRECTIONS in found or not found:
        found.add(ADDRESS)
    order = [ADDRESS, DIRECTIONS, TRANSPORT, PARKING, ACCESS, CONTACT]
    return [t for t in order if t in found]


def _address_line(info: RestaurantInfo) -> str:
    return ", ".join(line.strip() for line in info.address.splitlines() if line.strip())


def location_answer(info: RestaurantInfo, topics: list[str], lang: str) -> str:
    out = []
    for topic in topics:
        if topic == ADDRESS:
            out.append(_("You find us at %(address)s.") % {"address": _address_line(info)})
        elif topic == CONTACT:
            parts = []
            if info.phone:
                parts.append(_("phone %(phone)s") % {"phone": info.phone})
            if info.email:
                parts.append(_("e-mail %(email)s") % {"email": info.email})
            if parts:
                out.append(_("You can reach us by %(ways)s.") % {"ways": join_words(parts, lang)})
        else:
            text = info.text(topic, lang)
            if topic == DIRECTIONS and TRANSPORT not in topics:
                # "How do I get there?": the way, and by public transport.
                text = "\n".join(t for t in (text, info.text(TRANSPORT, lang)) if t)
            if text:
                out.append(text)
    if ADDRESS not in topics and set(topics) & {PARKING, TRANSPORT}:
        out.append(_("Our address: %(address)s.") % {"address": _address_line(info)})
    return "\n".join(out) or _("You find us at %(address)s.") % {"address": _address_line(info)}


@skill(
    "location",
    name="Location and directions",
    description=(
        "Where Trattoria Django is and how to get there: the address, directions, public "
        "transport, parking, wheelchair access, phone and e-mail, in English or German "
        "(\"Where are you located?\", \"Wo kann ich parken?\"). The status message is the "
        "answer."
    ),
    # No "phone"/"Telefon" among the tags and examples: booking messages carry phone
    # numbers ("..., phone 0171 2345678") and would be drawn here; nor "park" (a guest
    # named Park) or "taxi" ("Can you book me a taxi?" is no question about us).
    tags=[
        "location", "address", "where", "directions", "parking", "train", "bus",
        "tram", "public transport", "wheelchair", "accessible", "Adresse", "Anfahrt",
        "parken", "Parkplatz", "Bahn", "barrierefrei", "Rollstuhl", "Anschrift",
        "Haltestelle", "station",
        "neighbourhood", "neighborhood", "district", "Stadtteil", "Bezirk", "Kiez",
        "which part", "what part", "part of town", "welcher Teil", "wo genau",
        "where exactly",
    ],
    examples=[
        "Where are you located?",
        "What's your address?",
        "How do I get there by train?",
        "Is there parking nearby?",
        "Is the restaurant wheelchair accessible?",
        "Wo seid ihr?",
        "Wie finde ich euch?",
        "Wo kann ich parken?",
        "Wie komme ich mit der Bahn zu euch?",
        "Ist das Restaurant barrierefrei?",
    ],
    input_modes=MODES,
    output_modes=MODES,
    vocabulary=location_vocabulary,
)  # fmt: skip
def location(ctx: SkillContext) -> Completed:
    """Tell where the restaurant is, how to get there, parking and access."""
    lang = guest_language(ctx)
    with translation.override(lang):
        info = RestaurantInfo.current()
        if info is None:
            message = _("Sorry, our address is not available right now.")
            return ctx.complete(data={}, message=message, name="location")
        topics = location_topics(ctx.text)
        message = location_answer(info, topics, lang)
        data = {
            "topics": topics,
            "address": info.address,
            "phone": info.phone,
            "email": info.email,
            **{t: info.text(t, lang) for t in (DIRECTIONS, TRANSPORT, PARKING, ACCESS)},
        }
        return ctx.complete(data=data, message=message, name="location")
