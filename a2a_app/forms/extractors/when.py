"""Dates and clock times in English and German.

A thin layer of our own finds the expression in a whole sentence and normalises it;
``dateparser`` does the calendar arithmetic for the words ("next Friday", "übermorgen",
"24. Dezember", "in drei Tagen"). Measured in docs/parsing.md: on whole sentences
dateparser takes in party sizes and loses German clock times ("um 19 Uhr"), so times are
read here, and numeric dates (ISO, "24.12.", "12/24") too, which need no library.
"""

from __future__ import annotations

import difflib
import re
from datetime import date, datetime, time, timedelta
from functools import lru_cache
from typing import Any

from a2a_app.forms.extractors.base import Work
from a2a_app.forms.extractors.words import GROUP_WORDS, MONTHS, NUMBER_WORDS, WEEKDAYS, alternation

_MONTH = alternation(MONTHS)
#: Words close to a weekday's spelling that are other words.
NOT_WEEKDAY = frozenset({"sundae", "sundaes", "monthly"})
_WEEKDAY = alternation(WEEKDAYS)
_HOUR_WORDS = {k: v for k, v in NUMBER_WORDS.items() if v <= 12 and k not in {"couple", "dozen"}}
_HOUR_WORD = alternation(_HOUR_WORDS)
_PEOPLE_AHEAD = r"(?!\s*(?:people|persons?|guests?|pax|personen|leute|gäste|of us)\b)"

# An ISO datetime's "T" would glue the time to the date ("2026-12-24T20:00").
_ISO_T_RE = re.compile(r"(\d{4}-\d{1,2}-\d{1,2})T(?=\d)")
_ISO_RE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_DOTTED_RE = re.compile(r"\b(\d{1,2})\.(\d{1,2})\.(\d{4}\b|\d{2}(?![\d.:]))?")
# "am 9.12 abends", "on 24.12": a day and month without the closing dot, which would be a
# clock time ("9.12" as 9:12) but for the date word before it.
_CUED_DOTTED_RE = re.compile(
    r"\b(?:am|on|vom|zum|für|fur|den)\s+(\d{1,2})\.(\d{1,2})(?![\d.:])(?!\s*(?:uhr|h)\b)",
    re.IGNORECASE,
)
_SLASHED_RE = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?\b")
_DAY_MONTH_RE = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\.?\s*(?:of\s+)?(?:{_MONTH})\b\.?(?:,?\s+\d{{4}}\b)?",
    re.IGNORECASE,
)
_MONTH_DAY_RE = re.compile(
    rf"\b(?:{_MONTH})\.?\s+(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}}\b)?",
    re.IGNORECASE,
)
_RELATIVE_RE = re.compile(
    r"\b(?:(?:the\s+)?day after tomorrow|übermorgen|uebermorgen|(?:the\s+)?day before yesterday|"
    r"vorgestern|tomorrow|tomorow|tommorow|tommorrow|tomorro|tmrw|tmr|morgen|morgn|today|tonight|heute|yesterday|gestern|"
    # "A table for 2 right now": today (the time is asked, or said, apart).
    r"right\s+now|right\s+away|jetzt\s+gleich|jetzt\s+sofort|sofort|"
    r"in\s+(?:\d{1,2}|a|one|two|three|four|five|six|seven|einer|einem|zwei|drei|vier|fünf|"
    r"sechs|sieben)\s+(?:days?|weeks?|tage?n?|wochen?))\b",
    re.IGNORECASE,
)
_LAST = r"last|past|previous|letzten|letzter|letztes|vergangenen|vergangener|vorigen|voriger"
_WEEKDAY_RE = re.compile(
    rf"\b(?:(next|this|coming|nächsten|nächster|naechsten|kommenden|kommender|diesen|dieser|"
    rf"{_LAST})"
    # "Samstagabend", "Freitagmittag": a German weekday and the time of day, one word.
    rf"\s+)?({_WEEKDAY})s?(?:abend|abends|mittag|mittags|nachmittag|vormittag|morgen)?\b",
    re.IGNORECASE,
)
_DAY_OF_MONTH_RE = re.compile(
    r"\b(?:(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)?|(\d{1,2})(?:st|nd|rd|th)|(?:am|den)\s+(\d{1,2})\.)"
    r"(?![\w.:/])",
    re.IGNORECASE,
)
#: Days with a fixed date that guests name instead of the date.
_HOLIDAYS = {
    "christmas eve": (12, 24), "heiligabend": (12, 24), "heiligen abend": (12, 24),
    "christmas day": (12, 25), "christmas": (12, 25), "weihnachten": (12, 25),
    "boxing day": (12, 26), "new year's eve": (12, 31), "new years eve": (12, 31),
    "silvester": (12, 31), "new year's day": (1, 1), "neujahr": (1, 1),
    "valentine's day": (2, 14), "valentinstag": (2, 14),
    # The German names of the two Christmas holidays: "am 2. Weihnachtsfeiertag" is 26
    # December, not the 2nd of this month.
    "1. weihnachtsfeiertag": (12, 25), "erster weihnachtsfeiertag": (12, 25),
    "ersten weihnachtsfeiertag": (12, 25), "weihnachtsfeiertag": (12, 25),
    "2. weihnachtsfeiertag": (12, 26), "zweiter weihnachtsfeiertag": (12, 26),
    "zweiten weihnachtsfeiertag": (12, 26), "stephanstag": (12, 26),
}  # fmt: skip
_HOLIDAY_RE = re.compile(rf"\b(?:{alternation(_HOLIDAYS)})(?!\w)", re.IGNORECASE)
# Read before any other date: "2. Weihnachtsfeiertag" is no "2." of this month. (The other
# holidays come last: "Christmas dinner on Friday 18 December" is the 18th.)
_NUMBERED_HOLIDAY_RE = re.compile(
    rf"\b(?:{alternation(k for k in _HOLIDAYS if 'weihnachtsfeiertag' in k)})(?!\w)",
    re.IGNORECASE,
)
# "next week Friday", "Friday next week", "nächste Woche Samstag": the weekday of the
# calendar week after this one (not the coming one, which "next Friday" may mean).
_NEXT_WEEK = r"(?:next\s+week|nächste\s+woche|naechste\s+woche|kommende\s+woche)"
_NEXT_WEEK_RE = re.compile(
    rf"\b(?:{_NEXT_WEEK}\s+(?:on\s+|am\s+)?({_WEEKDAY})|({_WEEKDAY})\s+(?:of\s+)?{_NEXT_WEEK})\b",
    re.IGNORECASE,
)
# "Saturday week", "a week on Saturday", "Samstag in einer Woche": the weekday a week after
# the coming one (not "in a week", which is a week from today).
_WEEKDAY_WEEK_RE = re.compile(
    rf"\b(?:({_WEEKDAY})s?\s+(?:week|in\s+(?:einer|a|one)\s+(?:woche|week))|"
    rf"(?:a|one)\s+week\s+(?:on|from)\s+({_WEEKDAY}))\b",
    re.IGNORECASE,
)
_ANY_WEEKDAY_RE = re.compile(rf"\b(?:{_WEEKDAY})s?\b,?", re.IGNORECASE)

_AMPM = r"(a\.?\s?m\.?|p\.?\s?m\.?)"
_CLOCK_RE = re.compile(
    rf"\b(\d{{1,2}})[:.h](\d{{2}})(?![\d:]|\.\d)(?:\s*(?:{_AMPM}|uhr\b|o'?clock\b|h\b))?",
    re.IGNORECASE,
)
_HOUR_AMPM_RE = re.compile(rf"\b(\d{{1,2}})\s*{_AMPM}(?!\w)", re.IGNORECASE)
_HOUR_UHR_RE = re.compile(
    rf"\b(\d{{1,2}}|{_HOUR_WORD})\s*(?:uhr|o'?clock)\b(?:\s*(\d{{2}})\b)?", re.IGNORECASE
)
# "19h" (French/German shorthand) and "7ish": an hour on its own.
_HOUR_H_RE = re.compile(r"\b(1\d|2[0-3])h\b", re.IGNORECASE)
_HOUR_ISH_RE = re.compile(r"\b(\d{1,2})\s*-?ish\b", re.IGNORECASE)
_HALF_RE = re.compile(
    # British "half seven" is 7:30 (German "halb acht" is 7:30 as well, an hour later).
    rf"\b(halb|half past|half|viertel nach|quarter past|viertel vor|quarter to|dreiviertel)\s+"
    rf"(\d{{1,2}}|{_HOUR_WORD})\b{_PEOPLE_AHEAD}",
    re.IGNORECASE,
)
_CUED_HOUR_RE = re.compile(
    rf"\b(?:at|around|about|by|from|um|gegen|ab|so um)\s+(?:ca\.?\s+)?(\d{{1,2}}|{_HOUR_WORD})\b"
    rf"(?![.:/]\d){_PEOPLE_AHEAD}",
    re.IGNORECASE,
)
# German "am" is also "on": in "für 4 am Freitag" it is no a.m.
_AFTER_GERMAN_AM_RE = re.compile(
    rf"\s+(?:{_WEEKDAY}|{_MONTH}|\d|wochenende|kommenden|nächsten|abend|morgen|mittag)",
    re.IGNORECASE,
)
_NOON_RE = re.compile(r"\b(?:noon|midday|mittags?|zu mittag)\b", re.IGNORECASE)
_MIDNIGHT_RE = re.compile(r"\b(?:midnight|mitternacht)\b", re.IGNORECASE)
_EVENING_RE = re.compile(
    r"\b(?:evening|tonight|night|abends?|nachts?|heute abend)\b|\dp\.?\s?m\b", re.IGNORECASE
)
_SMALL_HOURS_RE = re.compile(r"\b(?:nachts|in der nacht|in the night|at night)\b", re.I)
# "am" alone is German for "on": a.m. counts only right after a number.
_MORNING_RE = re.compile(
    # Breakfast and brunch are morning meals: "um 10 Uhr zum Frühstück" is 10:00.
    r"\b(?:morning|morgens|vormittags?|früh|breakfast|brunch|frühstück|fruehstueck)\b|\d\s*a\.?m\.?(?!\s*(?:\d|[^\W\d_]{3}))",
    re.IGNORECASE,
)


def _date_or_none(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _with_year(month: int, day: int, year: str | None, today: date) -> date | None:
    """A date written without a year means its next occurrence."""
    if year:
        return _date_or_none(int(year) + (2000 if len(year) == 2 else 0), month, day)
    found = _date_or_none(today.year, month, day)
    if found is not None and found < today:
        found = _date_or_none(today.year + 1, month, day)
    return found


@lru_cache(maxsize=512)
def _calendar(expression: str, languages: tuple[str, ...], today: date) -> date | None:
    """dateparser's reading of a short date expression, relative to ``today``.

    Cached: guests repeat the same few words, and dateparser's first call per language
    costs tens of milliseconds.
    """
    import dateparser  # lazily: importing it costs ~0.1 s, and only text needs it

    settings: dict[str, Any] = {
        "PREFER_DATES_FROM": "future",
        "RELATIVE_BASE": datetime.combine(today, time(12, 0)),
        "DATE_ORDER": "DMY",
        "REQUIRE_PARTS": ["day"],
    }
    found = dateparser.parse(expression, languages=list(languages), settings=settings)
    return found.date() if found is not None else None


def _calendar_languages(language: str) -> tuple[str, ...]:
    return (language,) if language in {"en", "de"} else ("en", "de")


def find_date(work: Work, now: datetime, language: str = "") -> date | None:
    """The first date the text names (blanked), or None."""
    today = now.date()
    work.text = _ISO_T_RE.sub(lambda m: m[1] + " ", work.text)
    languages = _calendar_languages(language)

    def iso(m: re.Match[str]) -> date | None:
        return _date_or_none(int(m[1]), int(m[2]), int(m[3]))

    def dotted(m: re.Match[str]) -> date | None:
        return _with_year(int(m[2]), int(m[1]), m[3], today)

    def slashed(m: re.Match[str]) -> date | None:
        first, second = int(m[1]), int(m[2])
        # Day first, as in Europe, unless only month first makes sense (12/24).
        day, month = (second, first) if second > 12 >= first else (first, second)
        return _with_year(month, day, m[3], today)

    def words(m: re.Match[str]) -> date | None:
        return _calendar(m[0].lower().strip(" ,."), languages, today)

    def holiday(m: re.Match[str]) -> date | None:
        month, day = _HOLIDAYS[m[0].lower().replace("’", "'")]
        return _with_year(month, day, None, today)

    found = None
    for pattern, convert in (
        (_NUMBERED_HOLIDAY_RE, holiday),
        (_ISO_RE, iso),
        (_DOTTED_RE, dotted),
        (_CUED_DOTTED_RE, lambda m: _with_year(int(m[2]), int(m[1]), None, today)),
        (_SLASHED_RE, slashed),
        (_DAY_MONTH_RE, words),
        (_MONTH_DAY_RE, words),
        (_HOLIDAY_RE, holiday),
    ):
        found = work.first(pattern, convert)
        if found is not None:
            break
    if found is None:
        # "Feb 30", "2026-13-45": no date, but no count or phone number either.
        for pattern in (_ISO_RE, _DAY_MONTH_RE, _MONTH_DAY_RE):
            for match in pattern.finditer(work.text):
                work.take(match)
        found = _weekday_week(work, today)
    if found is None:
        found = _relative(work, today, languages)
    if found is None:
        # "Sunday the 13th": the day of the month is the date; the weekday only names it.
        found = _day_of_month(work, today)
    if found is None:
        found = _weekday(work, today, languages)
    if found is not None:
        # "Friday, December 4": the weekday is part of the date just read.
        for match in _ANY_WEEKDAY_RE.finditer(work.text):
            work.take(match)
    return found


def _relative(work: Work, today: date, languages: tuple[str, ...]) -> date | None:
    matches = []
    for match in _RELATIVE_RE.finditer(work.text):
        before = work.text[max(0, match.start() - 6) : match.start()].lower()
        if match[0].lower() == "morgen" and before.rstrip().endswith(("guten", "heute")):
            continue  # "Guten Morgen" greets; "heute Morgen" is this morning
        matches.append(match)
    if not matches:
        return None
    match = matches[0]
    words = re.sub(r"\s+", " ", match[0].lower())
    simple = {"tonight": 0, "tmrw": 1, "tmr": 1, "tomorow": 1, "tommorow": 1}
    simple |= {"tommorrow": 1, "tomorro": 1, "morgn": 1}
    # German words in an English sentence ("a table morgen at 7"): dateparser reads a
    # message in its language only, so the few German day words are read here.
    simple |= {"heute": 0, "morgen": 1, "übermorgen": 2, "uebermorgen": 2}
    simple |= dict.fromkeys(
        ("right now", "right away", "jetzt gleich", "jetzt sofort", "sofort"), 0
    )
    if words in simple:
        found: date | None = today + timedelta(days=simple[words])
    else:
        found = _calendar(words.removeprefix("the "), languages, today)
    if found is not None:
        work.take(match)
        weekday = _WEEKDAY_RE.search(work.text) if re.search(r"week|woche", words) else None
        if weekday is not None and not weekday[1]:
            # "in zwei Wochen am Freitag": that weekday in the week the weeks lead to.
            work.take(weekday)
            found += timedelta(days=(WEEKDAYS[weekday[2].lower()] - found.weekday()) % 7)
    return found


def _weekday_week(work: Work, today: date) -> date | None:
    match = _WEEKDAY_WEEK_RE.search(work.text)
    if not match:
        return None
    work.take(match)
    ahead = (WEEKDAYS[(match[1] or match[2]).lower()] - today.weekday()) % 7 or 7
    return today + timedelta(days=ahead + 7)


def _weekday(work: Work, today: date, languages: tuple[str, ...]) -> date | None:
    next_week = _NEXT_WEEK_RE.search(work.text)
    if next_week:
        monday = today + timedelta(days=7 - today.weekday())
        work.take(next_week)
        return monday + timedelta(days=WEEKDAYS[(next_week[1] or next_week[2]).lower()])
    match = _WEEKDAY_RE.search(work.text)
    if not match:
        return _misspelt_weekday(work, today)
    if match[1] and re.fullmatch(_LAST, match[1], re.IGNORECASE):
        # "last Monday": the one before today (a past date the form can say is past),
        # not the coming one dateparser would give.
        work.take(match)
        return today - timedelta(days=(today.weekday() - WEEKDAYS[match[2].lower()]) % 7 or 7)
    # "next Friday" is the coming Friday, as most guests mean it (and dateparser reads it);
    # the same weekday as today is a week from today.
    found = _calendar(match[2].lower(), languages, today)
    if found is None:  # dateparser always reads a bare weekday; this is a safety net
        ahead = (WEEKDAYS[match[2].lower()] - today.weekday()) % 7 or 7
        found = today + timedelta(days=ahead)
    work.take(match)
    return found


#: Full weekday names, for reading a misspelt one ("wendesday", "samstg").
_FULL_WEEKDAYS = [w for w in WEEKDAYS if len(w) >= 6]


def _misspelt_weekday(work: Work, today: date) -> date | None:
    """A weekday typed with a letter or two wrong or missing: the coming one."""
    for match in re.finditer(r"[^\W\d_]{5,}", work.text):
        word = match[0].lower()
        if word in NOT_WEEKDAY:
            continue
        close = difflib.get_close_matches(word, _FULL_WEEKDAYS, n=1, cutoff=0.8)
        if close and close[0][0] == word[0]:
            work.take(match)
            ahead = (WEEKDAYS[close[0]] - today.weekday()) % 7 or 7
            return today + timedelta(days=ahead)
    return None


def _day_of_month(work: Work, today: date) -> date | None:
    # dateparser reads a lone "12th" as December 2027: the next 12th is what is meant.
    def convert(m: re.Match[str]) -> date | None:
        day = int(m[1] or m[2] or m[3])
        found = _date_or_none(today.year, today.month, day) if day >= today.day else None
        if found is None:
            month = today.month % 12 + 1
            found = _date_or_none(today.year + (month == 1), month, day)
        return found

    return work.first(_DAY_OF_MONTH_RE, convert)


# --- times -----------------------------------------------------------------------------


def _number(word: str) -> int | None:
    word = word.lower()
    if word.isdigit():
        return int(word)
    return _HOUR_WORDS.get(word, GROUP_WORDS.get(word))


def _german_am(match: re.Match[str], group: int, text: str, language: str = "") -> bool:
    word = match[group]
    if not word or word.lower() != "am":
        return False
    # In German text a bare "am" is "on" ("für 3 am samstg"): a.m. is written "a.m." there.
    return language == "de" or bool(_AFTER_GERMAN_AM_RE.match(text, match.end(group)))


class _Clock:
    """Turns an hour and minute into a time, reading context for a.m. or p.m."""

    def __init__(self, original: str, pm_hours: range) -> None:
        self.original = original
        self.morning = bool(_MORNING_RE.search(original))
        self.evening = bool(_EVENING_RE.search(original))
        self.small_hours = bool(_SMALL_HOURS_RE.search(original))
        self.pm_hours = pm_hours

    def at(self, hour: int, minute: int, ampm: str | None = None) -> time | None:
        if ampm and hour > 12:
            ampm = None  # "19:30 pm": the 24-hour reading is unambiguous
        if ampm:
            if not 1 <= hour <= 12:
                return None
            hour = hour % 12 + (12 if ampm.lower().startswith("p") else 0)
        elif self.small_hours and hour <= 5:
            pass  # "3 Uhr nachts", "2 in the night": the small hours, not the afternoon
        elif not self.morning and ((1 <= hour <= 11 and self.evening) or hour in self.pm_hours):
            hour += 12
        if not (0 <= hour <= 23 and 0 <= minute <= 59):
            return None
        return time(hour, minute)


def find_time(work: Work, pm_hours: range, language: str = "") -> time | None:
    """The first clock time in the text (blanked), or None. Day parts alone ("evening")
    are no time: the form asks for one."""
    clock = _Clock(work.original, pm_hours)
    original = work.original

    def hh_mm(m: re.Match[str]) -> time | None:
        ampm = None if _german_am(m, 3, original, language) else m[3]
        if m[1].startswith("0") and not ampm:  # "09:00": a 24-hour clock
            return time(int(m[1]), int(m[2])) if int(m[2]) < 60 else None
        return clock.at(int(m[1]), int(m[2]), ampm)

    def hour_ampm(m: re.Match[str]) -> time | None:
        return None if _german_am(m, 2, original, language) else clock.at(int(m[1]), 0, m[2])

    def hour_uhr(m: re.Match[str]) -> time | None:
        hour = _number(m[1])
        return None if hour is None else clock.at(hour, int(m[2] or 0))

    def fraction(m: re.Match[str]) -> time | None:
        hour = _number(m[2])
        if hour is None:
            return None
        kind = m[1].lower()
        if kind == "halb":  # German "halb acht" is half past seven
            return clock.at((hour - 1) or 12, 30)
        if kind in {"half past", "half"}:
            return clock.at(hour, 30)
        if kind in {"viertel nach", "quarter past"}:
            return clock.at(hour, 15)
        return clock.at((hour - 1) or 12, 45)  # quarter to, viertel vor, dreiviertel

    def cued(m: re.Match[str]) -> time | None:
        hour = _number(m[1])
        return None if hour is None or hour > 24 else clock.at(hour % 24, 0)

    for pattern, convert in (
        (_CLOCK_RE, hh_mm),
        (_HOUR_AMPM_RE, hour_ampm),
        (_HOUR_UHR_RE, hour_uhr),
        (_HALF_RE, fraction),
        (_CUED_HOUR_RE, cued),
        (_HOUR_H_RE, lambda m: time(int(m[1]), 0)),
        (_HOUR_ISH_RE, cued),
    ):
        found = work.first(pattern, convert)
        if found is not None:
            return found
    if work.first(_NOON_RE, lambda m: True):
        return time(12, 0)
    if work.first(_MIDNIGHT_RE, lambda m: True):
        return time(0, 0)
    return None


def bare_time(work: Work, pm_hours: range) -> time | None:
    """The only number in a reply to "what time?" as an hour ("8", "um 8")."""
    matches = list(re.finditer(r"(?<![\w.:])(\d{1,2})(?![\w.:])", work.text))
    if len(matches) != 1 or int(matches[0][1]) > 24:
        return None
    work.take(matches[0])
    return _Clock(work.original, pm_hours).at(int(matches[0][1]) % 24, 0)
