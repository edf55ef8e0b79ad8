"""English and German words shared by the menu, the booking skills and the replies.

Pure functions without Django: which language a short request is in (until a2a_app
detects it for every message), and how dates are written back to the guest. Reading
dates, times and counts is a2a_app's interpreter's (the demo's own parser is gone).
"""

from __future__ import annotations

import re
from datetime import date, time

EN, DE = "en", "de"

_WORD_RE = re.compile(r"[^\W\d_]+", re.UNICODE)


def word_set(text: str) -> frozenset[str]:
    """A word set written as one string, for long lists that read better as prose."""
    return frozenset(text.split())


# Words frequent in short requests and rare in the other language. "am" and "name"
# belong to both languages, so neither set has them.
_GERMAN = word_set(
    "ich wir sie mein meine ist sind bitte möchte möchten gerne gern einen einem für um uhr "
    "tisch personen person leute morgen heute übermorgen abend abends mittags heiße heisse "
    "und oder mit ohne nicht kein keine keinen gibt es was welche zeig zeige zeigen habt "
    "haben speisekarte gerichte gericht nachspeisen nachtisch vorspeisen getränke unter bis "
    "euro montag dienstag mittwoch donnerstag freitag samstag sonntag reservieren reservierung "
    "buchen vegetarisch vegetarische vegetarischen vegane veganen der die das dem den zu "
    "storniere stornieren storniert stornierung absagen sagen verschieben verschiebe ändern "
    "ändere kontakt statt doch wieder bei auf namen nächste nächsten woche kommen können"
)
_ENGLISH = word_set(
    "i we my is are please would like to a an the for at on table people persons guests "
    "tomorrow today tonight evening pm book reserve reservation with without no what which "
    "show me you have dishes dish menu under below than and or of from friday monday tuesday "
    "wednesday thursday saturday sunday dessert desserts drinks vegetarian cancel change "
    "move booking contact instead next week"
)


def detect_language(text: str) -> str | None:
    """``"de"`` or ``"en"`` when the text says so clearly enough, else ``None``."""
    lowered = text.lower()
    words = _WORD_RE.findall(lowered)
    german = sum(w in _GERMAN for w in words) + 2 * len(re.findall(r"[äöüß]", lowered))
    english = sum(w in _ENGLISH for w in words)
    if german > english:
        return DE
    if english > german:
        return EN
    return None


_DAY_NAMES = {
    EN: ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    DE: ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"),
}
_MONTH_NAMES = {
    EN: ("January", "February", "March", "April", "May", "June", "July", "August",
         "September", "October", "November", "December"),
    DE: ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
         "September", "Oktober", "November", "Dezember"),
}  # fmt: skip


def day_name(weekday: int, lang: str) -> str:
    return _DAY_NAMES[lang][weekday]


def format_date(day: date, lang: str) -> str:
    """``Friday 24 December 2026`` / ``Freitag, 24. Dezember 2026``."""
    month = _MONTH_NAMES[lang][day.month - 1]
    if lang == DE:
        return f"{day_name(day.weekday(), lang)}, {day.day}. {month} {day.year}"
    return f"{day_name(day.weekday(), lang)} {day.day} {month} {day.year}"


def format_time(value: time) -> str:
    return f"{value:%H:%M}"


def join_words(items: list[str], lang: str, *, alternatives: bool = False) -> str:
    """``a, b and c`` / ``a, b und c``; with ``alternatives``, ``a, b or c``."""
    if len(items) <= 1:
        return "".join(items)
    if alternatives:
        last = " oder " if lang == DE else " or "
    else:
        last = " und " if lang == DE else " and "
    return ", ".join(items[:-1]) + last + items[-1]
