"""English and German words shared by the parsers and the replies.

Pure functions without Django; kept apart so the parsers and the handlers agree on
what counts as German and on how dates are written back to the guest.
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


NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "ein": 1, "eine": 1, "einen": 1, "eins": 1, "zwei": 2, "drei": 3, "vier": 4,
    "fünf": 5, "fuenf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
    "elf": 11, "zwölf": 12, "zwoelf": 12,
    "couple": 2, "zweit": 2, "dritt": 3, "viert": 4, "fünft": 5, "sechst": 6,
    "siebt": 7,
}  # fmt: skip

WEEKDAYS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4,
    "saturday": 5, "sunday": 6,
    "montag": 0, "dienstag": 1, "mittwoch": 2, "donnerstag": 3, "freitag": 4,
    "samstag": 5, "sonnabend": 5, "sonntag": 6,
}  # fmt: skip

MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "sept": 9, "oct": 10, "nov": 11, "dec": 12,
    "januar": 1, "jänner": 1, "februar": 2, "märz": 3, "maerz": 3, "mai": 5, "juni": 6,
    "juli": 7, "oktober": 10, "okt": 10, "dezember": 12, "dez": 12,
}  # fmt: skip

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
