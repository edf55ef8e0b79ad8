"""Read reservation details from free text, in English and German.

Pure functions: no database, no clock. The caller passes ``now`` (an aware local
datetime) so that "tomorrow" and "Friday" are testable. Found values come back in the
same JSON-friendly shape a client sends in a data part: ``date`` "YYYY-MM-DD", ``time``
"HH:MM", ``party_size`` int, ``name`` and ``contact`` strings.

Each recogniser blanks out the text it used, so the digits of "2026-12-24" are not read
again as a phone number and the "7" of "7pm" is not read as a party size.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date, datetime, time, timedelta
from typing import Any

from .wording import MONTHS, NUMBER_WORDS, WEEKDAYS, word_set

_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_WEEKDAY = "|".join(WEEKDAYS)
# "ein/eine/einen" are articles far more often than numbers ("um einen Tisch zu ...").
_COUNT_WORDS = {k: v for k, v in NUMBER_WORDS.items() if k not in {"ein", "eine", "einen"}}
_COUNT = r"\d{1,3}|" + "|".join(sorted(_COUNT_WORDS, key=len, reverse=True))
_HOUR_WORDS = {k: v for k, v in _COUNT_WORDS.items() if k.isalpha() and v <= 12}
_HOUR_WORD = "|".join(sorted(_HOUR_WORDS, key=len, reverse=True))
_PEOPLE = (
    r"people|persons?|guests?|pax|adults|of us|attendees|participants|colleagues|employees|"
    r"personen|leuten?|gästen?|gaesten?|erwachsenen?|teilnehmer(?:innen|n)?|kollegen|"
    r"mitarbeiter(?:innen|n)?"
)

_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE_RE = re.compile(r"(?<![\w+])(?:\+|00)?\d[\d ()/-]{5,}\d(?!\w)")

_ISO_DATE_RE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_DOTTED_DATE_RE = re.compile(r"\b(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2}(?!\d))?")
_SLASH_DATE_RE = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?\b")
_DAY_MONTH_RE = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\.?\s+(?:of\s+)?({_MONTH})\b\.?(?:\s+(\d{{4}}))?",
    re.IGNORECASE,
)
_MONTH_DAY_RE = re.compile(
    rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?", re.IGNORECASE
)
_RELATIVE_DATE_RE = re.compile(
    r"\b(day after tomorrow|übermorgen|uebermorgen|tomorrow|morgen|today|tonight|heute)\b",
    re.IGNORECASE,
)
_WEEKDAY_RE = re.compile(
    rf"\b(?:(?:next|this|coming|nächsten|nächster|kommenden|diesen)\s+)?({_WEEKDAY})s?\b",
    re.IGNORECASE,
)

_AMPM = r"(a\.?\s?m\.?|p\.?\s?m\.?)"
_CLOCK_RE = re.compile(rf"\b(\d{{1,2}})[:.h](\d{{2}})(?!\d)\s*(?:{_AMPM}|uhr)?", re.IGNORECASE)
_HOUR_AMPM_RE = re.compile(rf"\b(\d{{1,2}})\s*{_AMPM}(?!\w)", re.IGNORECASE)
_HOUR_UHR_RE = re.compile(r"\b(\d{1,2})\s*uhr\b(?:\s*(\d{2})\b)?", re.IGNORECASE)
_HALF_RE = re.compile(rf"\b(halb|half past)\s+(\d{{1,2}}|{_HOUR_WORD})\b", re.IGNORECASE)
_CUED_HOUR_RE = re.compile(
    rf"\b(?:at|around|about|by|um|gegen|ab)\s+(\d{{1,2}}|{_HOUR_WORD})\b(?!\s*(?:{_PEOPLE})\b)",
    re.IGNORECASE,
)
# German "am" is also "on": in "für 4 am Freitag" it is no a.m.
_AFTER_GERMAN_AM_RE = re.compile(
    rf"\s+(?:{_WEEKDAY}|{_MONTH}|\d|wochenende|kommenden|nächsten)", re.IGNORECASE
)
_NOON_RE = re.compile(r"\b(noon|midday|mittag)\b", re.IGNORECASE)
_EVENING_RE = re.compile(r"\b(evening|tonight|abends?|nachts?)\b", re.IGNORECASE)
_MORNING_RE = re.compile(r"\b(morning|morgens|vormittags?|früh)\b", re.IGNORECASE)

_PARTY_COUNT_RE = re.compile(rf"\b({_COUNT}|eine)\s*(?:{_PEOPLE})\b", re.IGNORECASE)
_PARTY_CUE_RE = re.compile(
    rf"\b(?:party of|group of|table for|for|für|we are|we're|wir sind|zu|gruppe von|gruppe mit)"
    rf"\s+({_COUNT})\b",
    re.IGNORECASE,
)

# A cue that introduces a name whatever its case, and one that only does when the name
# is capitalised ("I'm Anna" but not "I'm looking for a table").
_NAME_CUE_RE = re.compile(
    r"\b(?:my name is|my name's|name is|name\s*[:=]|under the name(?: of)?|in the name of|"
    r"contact person\s*[:=]?|ich heiße|ich heisse|mein name ist|mein name lautet|"
    r"auf den namen|unter dem namen|ansprechpartner(?:in)?\s*[:=]?)\s*",
    re.IGNORECASE,
)
_WEAK_NAME_CUE_RE = re.compile(
    r"\b(?:i am|i'm|this is|hier ist|hier spricht|(?:reserve|book|booking|reservation)"
    r"(?: it| a table)? for|(?:reservierung|reservieren|tisch) für)\s+",
    re.IGNORECASE,
)
# Letters, with inner apostrophes and hyphens: O'Brien, Müller-Lüdenscheidt.
_NAME_WORD_RE = re.compile(r"[^\W\d_](?:[^\W\d_]|['’-](?=[^\W\d_]))*")
_NOT_NAME = word_set(
    "and und my mein meine email e-mail mail phone telefon tel at um on am for für with mit "
    "tomorrow morgen today heute please bitte table tisch i ich we wir contact kontakt number "
    "nummer reach erreichbar party people personen is ist it it's the a an der die das "
    "thanks thank danke yes no ja nein ok okay sure gern gerne you sounds good fine great "
    "gut super what why how was wie warum hello hi hallo lunch dinner mittagessen abendessen"
)
_FILLER = word_set("it's its it is name my is please bitte thanks danke ist mein")


def _blank(text: str, match: re.Match[str]) -> str:
    start, end = match.span()
    return text[:start] + " " * (end - start) + text[end:]


def _first(pattern: re.Pattern[str], text: str, convert: Any) -> tuple[Any, str]:
    """The first match ``convert`` accepts (returns non-None), and the text without it."""
    for match in pattern.finditer(text):
        value = convert(match)
        if value is not None:
            return value, _blank(text, match)
    return None, text


def _number(word: str) -> int | None:
    word = word.lower()
    if word.isdigit():
        return int(word)
    return _COUNT_WORDS.get(word, 1 if word == "eine" else None)


# --- dates ---------------------------------------------------------------------------


def _date_or_none(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _with_year(month: int, day: int, year: str | None, today: date) -> date | None:
    """A date without a year means its next occurrence."""
    if year:
        full = int(year) + (2000 if len(year) == 2 else 0)
        return _date_or_none(full, month, day)
    found = _date_or_none(today.year, month, day)
    if found is not None and found < today:
        found = _date_or_none(today.year + 1, month, day)
    return found


def next_weekday(weekday: int, now: datetime, at: time | None = None) -> date:
    """The next such day; today if it is that day and ``at`` has not passed yet."""
    ahead = (weekday - now.weekday()) % 7
    if ahead == 0 and at is not None and at <= now.time():
        ahead = 7
    return now.date() + timedelta(days=ahead)


def _parse_date(text: str, now: datetime) -> tuple[date | int | None, str]:
    """A date, or a weekday number when the date depends on the time (see next_weekday)."""
    today = now.date()

    def iso(m: re.Match[str]) -> date | None:
        return _date_or_none(int(m[1]), int(m[2]), int(m[3]))

    def dotted(m: re.Match[str]) -> date | None:
        return _with_year(int(m[2]), int(m[1]), m[3], today)

    def slashed(m: re.Match[str]) -> date | None:
        first, second = int(m[1]), int(m[2])
        # Day first, as in Europe, unless only month-first makes sense (12/24).
        day, month = (second, first) if second > 12 >= first else (first, second)
        return _with_year(month, day, m[3], today)

    def day_month(m: re.Match[str]) -> date | None:
        return _with_year(MONTHS[m[2].lower()], int(m[1]), m[3], today)

    def month_day(m: re.Match[str]) -> date | None:
        return _with_year(MONTHS[m[1].lower()], int(m[2]), m[3], today)

    for pattern, convert in (
        (_ISO_DATE_RE, iso),
        (_DOTTED_DATE_RE, dotted),
        (_SLASH_DATE_RE, slashed),
        (_DAY_MONTH_RE, day_month),
        (_MONTH_DAY_RE, month_day),
    ):
        found, text = _first(pattern, text, convert)
        if found is not None:
            return found, text

    relative = {m[1].lower(): m for m in _RELATIVE_DATE_RE.finditer(text)}
    # "heute Morgen" is this morning, "morgen früh" tomorrow morning: "heute" wins.
    for words, days in (
        (("heute", "today", "tonight"), 0),
        (("day after tomorrow", "übermorgen", "uebermorgen"), 2),
        (("tomorrow", "morgen"), 1),
    ):
        for word in words:
            if word in relative:
                return today + timedelta(days=days), _blank(text, relative[word])

    match = _WEEKDAY_RE.search(text)
    if match:
        return WEEKDAYS[match[1].lower()], _blank(text, match)
    return None, text


# --- times ---------------------------------------------------------------------------


def _is_preposition(match: re.Match[str], group: int, text: str) -> bool:
    word = match[group]
    return (
        bool(word)
        and word.lower() == "am"
        and bool(_AFTER_GERMAN_AM_RE.match(text, match.end(group)))
    )


def _hour(hour: int, minute: int, ampm: str | None, text: str) -> time | None:
    if ampm and hour > 12:
        ampm = None  # "19:30 pm": the 24-hour reading is unambiguous
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm.lower().startswith("p") else 0)
    elif 1 <= hour <= 10 and not _MORNING_RE.search(text):
        # A restaurant takes no 7 o'clock breakfast bookings: "at 7" means 19:00.
        hour += 12
    elif hour == 11 and _EVENING_RE.search(text):
        hour = 23
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        return None
    return time(hour, minute)


def _parse_time(text: str, original: str) -> tuple[time | None, str]:
    """``original`` is ``text`` before blanking (same positions), for context clues."""

    def clock(m: re.Match[str]) -> time | None:
        ampm = None if _is_preposition(m, 3, original) else m[3]
        return _hour(int(m[1]), int(m[2]), ampm, original)

    def hour_ampm(m: re.Match[str]) -> time | None:
        if _is_preposition(m, 2, original):
            return None
        return _hour(int(m[1]), 0, m[2], original)

    def hour_uhr(m: re.Match[str]) -> time | None:
        return _hour(int(m[1]), int(m[2] or 0), None, original)

    def half(m: re.Match[str]) -> time | None:
        # German "halb acht" is half past seven.
        hour = _number(m[2])
        if hour is None:
            return None
        return _hour(hour - 1 if m[1].lower() == "halb" else hour, 30, None, original)

    def cued(m: re.Match[str]) -> time | None:
        hour = _number(m[1])
        return None if hour is None else _hour(hour, 0, None, original)

    for pattern, convert in (
        (_CLOCK_RE, clock),
        (_HOUR_AMPM_RE, hour_ampm),
        (_HOUR_UHR_RE, hour_uhr),
        (_HALF_RE, half),
        (_CUED_HOUR_RE, cued),
    ):
        found, text = _first(pattern, text, convert)
        if found is not None:
            return found, text
    match = _NOON_RE.search(text)
    if match:
        return time(12, 0), _blank(text, match)
    return None, text


# --- people, names, contacts ---------------------------------------------------------


def _parse_party(text: str) -> tuple[int | None, str]:
    found, text = _first(_PARTY_COUNT_RE, text, lambda m: _number(m[1]))
    if found is None:
        found, text = _first(_PARTY_CUE_RE, text, lambda m: _number(m[1]))
    return found, text


def _name_words(text: str, *, capitalised: bool) -> str | None:
    words: list[str] = []
    position = 0
    for match in _NAME_WORD_RE.finditer(text):
        gap = text[position : match.start()]
        if words and gap.strip():  # punctuation or a digit ends the name
            break
        word = match[0]
        if word.lower() in _NOT_NAME or (capitalised and not word[0].isupper()):
            break
        words.append(word)
        position = match.end()
        if len(words) == 4:
            break
    return " ".join(words) or None


def _parse_name(text: str) -> tuple[str | None, str]:
    for pattern, capitalised in ((_NAME_CUE_RE, False), (_WEAK_NAME_CUE_RE, True)):
        for cue in pattern.finditer(text):
            name = _name_words(text[cue.end() :], capitalised=capitalised)
            if name:
                end = text.index(name, cue.end()) + len(name)
                return name, text[: cue.start()] + " " * (end - cue.start()) + text[end:]
    return None, text


def _parse_phone(text: str) -> tuple[str | None, str]:
    def phone(m: re.Match[str]) -> str | None:
        digits = re.sub(r"\D", "", m[0])
        return m[0].strip() if 7 <= len(digits) <= 15 else None

    return _first(_PHONE_RE, text, phone)


def _bare_answer(text: str, expecting: Iterable[str], found: dict[str, Any]) -> None:
    """Read a reply such as "4" or "Anna Schmidt" as the field the agent asked for."""
    expecting = [f for f in expecting if f not in found]
    if not expecting:
        return
    words = _NAME_WORD_RE.findall(text)
    numbers = re.findall(r"(?<![\w.:])\d{1,3}(?![\w.:])", text)
    counted = [w for w in words if w.lower() in _COUNT_WORDS]
    number = None
    if len(numbers) + len(counted) == 1:
        number = _number((numbers or counted)[0])
    if number is not None and "party_size" in expecting:
        found["party_size"] = number
    elif number is not None and "time" in expecting:
        at = _hour(number, 0, None, text)
        if at is not None:
            found["time"] = f"{at:%H:%M}"
    if "name" in expecting:
        names = [w for w in words if w.lower() not in _FILLER and w not in counted]
        if 1 <= len(names) <= 4 and not any(w.lower() in _NOT_NAME for w in names):
            found["name"] = " ".join(names)


# --- entry points --------------------------------------------------------------------


def _known(value: str | None) -> time | None:
    try:
        return time.fromisoformat(value) if value else None
    except ValueError:
        return None


def parse_reservation(
    text: str,
    now: datetime,
    *,
    expecting: Iterable[str] = (),
    known_time: str | None = None,
) -> dict[str, Any]:
    """The reservation fields the text mentions.

    ``expecting`` names the fields the agent just asked for, so a bare "4" or "Anna"
    can be read as the answer. ``known_time`` ("HH:MM", from an earlier turn) decides
    whether a weekday that is today means today or a week from today.
    """
    found: dict[str, Any] = {}
    work = text

    # Order matters: e-mail addresses and dates hold digits that later patterns would
    # misread (a date as a phone number, "1.12. um 19.30" as 1:12).
    email, work = _first(_EMAIL_RE, work, lambda m: m[0])
    day, work = _parse_date(work, now)
    at, work = _parse_time(work, text)
    if isinstance(day, int):
        day = next_weekday(day, now, at or _known(known_time))
    phone, work = _parse_phone(work)
    party, work = _parse_party(work)
    name, work = _parse_name(work)

    if day is not None:
        found["date"] = day.isoformat()
    if at is not None:
        found["time"] = f"{at:%H:%M}"
    if party is not None:
        found["party_size"] = party
    if name:
        found["name"] = name
    if email or phone:
        found["contact"] = email or phone
    _bare_answer(work, expecting, found)
    return found
