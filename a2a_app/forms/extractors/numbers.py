"""Counts and amounts: "for 4 people", "4 Personen", "party of six", "wir sind zu viert"."""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal

from a2a_app.forms.extractors.base import Work, fold
from a2a_app.forms.extractors.words import (
    ARTICLES,
    GROUP_WORDS,
    NUMBER_WORDS,
    alternation,
    word_set,
)

#: Unit words that mean the same thing; a field whose name, label or help text holds one
#: of them is cued by all of them.
SYNONYMS: list[frozenset[str]] = [
    word_set(
        "people persons person guests guest pax adults adult attendees participants diners "
        "covers seats party size group pers ppl personen leute leuten gäste gästen gaeste gast "
        "erwachsene erwachsenen teilnehmer teilnehmern teilnehmerinnen kollegen mitarbeiter "
        "mitarbeitern plätze gruppe "
        "team family familie"
    ),
    word_set("children child kids kid kinder kindern kind"),
    word_set("nights night nächte nächten nacht übernachtungen"),
    word_set("rooms room zimmer"),
    word_set("tickets ticket karten karte"),
    word_set("hours hour stunden stunde"),
    word_set("minutes minute minuten"),
]
#: The group whose fields are also cued by "for 4", "table for two", "wir sind zu viert".
PEOPLE = SYNONYMS[0]

_STOP = word_set(
    "the a an of in for to your you number anzahl der die das des von für ihre ihr wie viele "
    "how many much please bitte enter eingeben is are"
)
_COUNT = r"\d{1,5}(?:[.,]\d{1,2})?|" + alternation(NUMBER_WORDS)
#: A minus sign right before a number ("-3 people"): kept, so the form can say why it
#: is no count rather than read "3".
_SIGNED = rf"(?:(?<![\w.])-\s?)?(?:{_COUNT})"
_WHOLE = r"\d{1,5}|" + alternation(NUMBER_WORDS)
_ONE = alternation(ARTICLES)
#: Unit words that come before the number only: "party of 6", not "6 party".
_LEADING_ONLY = word_set("party size group gruppe anzahl team family familie")
#: Units an article can count: "one person", "eine Nacht" (but "a party of 4" is no 1).
_SINGULAR = word_set(
    "person guest adult child kid night room ticket hour gast erwachsener erwachsene kind "
    "nacht zimmer karte stunde"
)


#: After a count: no word, time or path goes on; a full stop ends a sentence ("a party of
#: 3. Thursday ...") but "3.5" or a date's "3.12." is no count.
_COUNT_END = r"(?![\w:/]|\.\d)"
_FILLER_WORDS = (
    r"(?:(?:actually|now|then|really|all in all|in total|doch|jetzt|nun|dann|eigentlich|"
    r"insgesamt|also|wohl|ja|nur|only|just|about|around|ca\.?|etwa|circa)\s+)*"
)
_WE_ARE_RE = re.compile(
    rf"\b(?:we are|we're|we re|were going to be|we will be|we'll be|there will be|"
    rf"there'll be|wir sind|wir werden|wir kommen zu|wir kommen mit)\s+{_FILLER_WORDS}"
    rf"({_COUNT}){_COUNT_END}(?!\s*(?:uhr|o'?clock|pm|am\b|p\.m|a\.m|min|minute|minuten|"
    rf"hours?|stunden?|euro|eur|€|%|percent|prozent|years?|jahre?|late|später|spät))",
    re.IGNORECASE,
)
# "me and my wife", "my husband and I", "meine Frau und ich": a couple.
_PARTNER = (
    r"(?:wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|friend|mum|mom|mother|dad|"
    r"father|son|daughter|sister|brother|colleague|date|frau|mann|freundin|freund|"
    r"partnerin|verlobte|verlobten|mutter|vater|sohn|tochter|schwester|bruder|kollegin|"
    r"kollegen|kollege|ehefrau|ehemann|mama|papa)"
)
_TWO_RE = re.compile(
    r"\b(?:(?:just\s+)?the\s+two\s+of\s+us|both\s+of\s+us|us\s+two|wir\s+(?:beide|zwei)|"
    r"(?:nur\s+)?wir\s+zwei)\b",
    re.IGNORECASE,
)
_COUPLE_RE = re.compile(
    rf"\b(?:(?:me|i|myself)\s+and\s+my\s+{_PARTNER}|my\s+{_PARTNER}\s+and\s+(?:i|me|myself)|"
    rf"(?:ich|mich|mir)\s+und\s+(?:meine[nmr]?|meine)\s+{_PARTNER}|"
    rf"(?:meine[nmr]?|meine)\s+{_PARTNER}\s+und\s+(?:ich|mich|mir))\b(?!\s*(?:and|und|,|plus|\+))",
    re.IGNORECASE,
)


# "me and three friends", "ich und mein Mann und unsere Tochter", "my partner and I plus
# our 2 kids": the guest listing who comes, the guest included. Each item counts one
# (me, my wife) or its number (three friends).
_KIN = rf"(?:{_PARTNER}|kids?|child|children|kinder|kind|baby|son|daughter)"
_SELF_ITEM = r"(?:me|i(?!['’])|myself|ich|mich|mir)"
_ONE_ITEM = rf"(?:my|our|mein(?:e[nmr]?)?|unser(?:e[nmr]?)?)\s+{_KIN}"
_MANY_ITEM = (
    rf"(?:(?:my|our|meine[nmr]?|unsere[nmr]?)\s+)?({_COUNT})\s+"
    rf"(?:other\s+|more\s+|andere[nmr]?\s+|weitere[nmr]?\s+)?"
    rf"(?!(?:uhr|o'?clock|pm|am|p\.m|a\.m|days?|tage?n?|weeks?|wochen?|in|of|on|at|um)\b)"
    rf"[^\W\d_]{{3,}}"
)
_ITEM = rf"(?:{_SELF_ITEM}|{_ONE_ITEM}|{_MANY_ITEM})\b"
# A comma alone joins items only in a list an "and" closes ("ich, meine Frau und ...").
_LIST_SEP = r"(?:\s*,?\s*(?:and|und|plus|\+|&)\s*|\s*,\s*(?=[^,.;]*\b(?:and|und)\b))"
_PEOPLE_LIST_RE = re.compile(rf"\b{_ITEM}(?:{_LIST_SEP}{_ITEM})+", re.IGNORECASE)
_ITEM_RE = re.compile(rf"\b(?:({_SELF_ITEM})|{_ONE_ITEM}|{_MANY_ITEM})\b", re.IGNORECASE)


def _people_listed(match: re.Match[str]) -> Decimal | None:
    """How many people a list with the guest in it names, or None without the guest."""
    total, me = Decimal(0), False
    for item in _ITEM_RE.finditer(match[0]):
        me = me or bool(item[1])
        value = _value(item[2]) if item[2] else Decimal(1)
        if value is None:
            return None
        total += value
    return total if me else None


# "sie und ihr Mann", "he and his wife": someone else and their partner, a couple.
_THEY_TWO_RE = re.compile(
    rf"\b(?:she|he|sie|er)\s+(?:and|und)\s+(?:her|his|ihr(?:e[nmr]?)?|sein(?:e[nmr]?)?)\s+"
    rf"{_PARTNER}\b(?!\s*(?:and|und|,|plus|\+))",
    re.IGNORECASE,
)


def cue_words(*texts: str) -> frozenset[str]:
    """The unit words that point at a field, from its name, label and help text."""
    words = {w for t in texts for w in re.findall(r"[^\W\d_]+", fold(t)) if w not in _STOP}
    for group in SYNONYMS:
        if words & {fold(w) for w in group}:
            words |= group
    return frozenset(words)


def _value(word: str) -> Decimal | None:
    word = word.lower().replace(" ", "")
    if word.startswith("-"):
        positive = _value(word[1:])
        return None if positive is None else -positive
    if word[0].isdigit():
        return Decimal(word.replace(",", "."))
    if word in ARTICLES:
        return Decimal(1)
    found = NUMBER_WORDS.get(word)
    return None if found is None else Decimal(found)


def _add(first: Decimal | None, second: Decimal | None) -> Decimal | None:
    return None if first is None or second is None else first + second


def _units(cues: Iterable[str]) -> str:
    return alternation(set(cues))


_CHILDREN = alternation(SYNONYMS[1])
_ADULTS = alternation(word_set("adults adult erwachsene erwachsenen grown-ups"))
#: "4 adults and 2 kids": everyone, when no field counts the children apart.
_FAMILY_RE = re.compile(
    rf"\b({_COUNT})\s+(?:{_ADULTS})\s*(?:and|und|plus|\+|,|&)\s*({_COUNT})\s+(?:{_CHILDREN})\b",
    re.IGNORECASE,
)


def find_count(
    work: Work, cues: frozenset[str], *, people: bool, with_children: bool = False
) -> tuple[Decimal, bool] | None:
    """A number cued by one of ``cues``; ``(value, strong)``. ``people``: "for 4" and
    "zu viert" count too (weaker: they may mean another field); ``with_children``: no
    other field counts children, so "4 adults and 2 kids" is 6."""
    if people:
        found = work.first(_PEOPLE_LIST_RE, _people_listed)
        if found is not None:
            return found, True
        if work.first(_THEY_TWO_RE, lambda m: True):
            return Decimal(2), True
    if with_children:
        found = work.first(_FAMILY_RE, lambda m: _add(_value(m[1]), _value(m[2])))
        if found is not None:
            return found, True
    if cues:
        units = _units(cues)
        trailing = cues - _LEADING_ONLY
        if trailing:
            # "4 statt 2 Personen", "6 instead of 4 people": the new number counts.
            instead = re.compile(
                rf"\b({_COUNT})\s+(?:statt|anstatt|instead of|rather than)\s+(?:{_COUNT})"
                rf"\s+(?:{_units(trailing)})\b",
                re.IGNORECASE,
            )
            found = work.first(instead, lambda m: _value(m[1]))
            if found is not None:
                return found, True
            number_unit = re.compile(
                rf"(?<![\w-])({_SIGNED})\s+(?:[^\W\d_]+\s+)?(?:{_units(trailing)})\b",
                re.IGNORECASE,
            )
            found = work.first(number_unit, lambda m: _value(m[1]))
            if found is not None:
                return found, True
        singular = cues & _SINGULAR
        if singular:
            one = re.compile(rf"\b({_ONE})\s+(?:{_units(singular)})\b", re.IGNORECASE)
            found = work.first(one, lambda m: Decimal(1))
            if found is not None:
                return found, True
        unit_number = re.compile(
            rf"\b(?:{units})\s*(?:of|:|=|von|mit)?\s*({_SIGNED}){_COUNT_END}", re.IGNORECASE
        )
        found = work.first(unit_number, lambda m: _value(m[1]))
        if found is not None:
            return found, True
    if people:
        alone = re.compile(r"\b(?:just me|only me|myself|by myself|nur ich|allein|alleine)\b", re.I)
        if work.first(alone, lambda m: True):
            return Decimal(1), True
        of_us = re.compile(rf"\b({_COUNT})\s+of\s+us\b", re.IGNORECASE)  # "5 of us"
        found = work.first(of_us, lambda m: _value(m[1]))
        if found is not None:
            return found, True
        group = re.compile(rf"\bzu\s+({alternation(GROUP_WORDS)})\b", re.IGNORECASE)
        # "statt zu viert zu sechst": the group struck out is no count.
        struck = re.compile(
            rf"\b(?:statt|anstatt|instead of|rather than)\s+zu\s+(?:{alternation(GROUP_WORDS)})\b",
            re.IGNORECASE,
        )
        for match in list(struck.finditer(work.text)):
            work.take(match)  # blanked: the new group, if any, is read below
        found = work.first(group, lambda m: Decimal(GROUP_WORDS[m[1].lower()]))
        if found is not None:
            return found, True
        couple = work.first(_COUPLE_RE, lambda m: True) or work.first(_TWO_RE, lambda m: True)
        if couple:
            return Decimal(2), True
        # "we're 11", "wir sind doch 12": the guests counting themselves, a restatement.
        found = work.first(_WE_ARE_RE, lambda m: None if _is_time(work, m) else _value(m[1]))
        if found is not None:
            return found, True
        cued = re.compile(
            rf"\b(?:table for|tisch für|tisch fuer|for|für|fuer|sind)\s+"
            rf"(?:about\s+|ca\.?\s+|etwa\s+)?({_COUNT}){_COUNT_END}",
            re.IGNORECASE,
        )
        found = work.first(cued, lambda m: None if _is_time(work, m) else _value(m[1]))
        if found is not None:
            return found, False
    return None


# "for 2 am" is a time, but "für zwei am Freitag" ("on Friday") a count.
_MERIDIEM_RE = re.compile(
    r"\s*(?:a\.?m\.?|p\.?m\.?)(?![\w.])(?!\s+(?:\d|(?-i:[A-ZÄÖÜ])|nächst|kommend))",
    re.IGNORECASE,
)


def _is_time(work: Work, match: re.Match[str]) -> bool:
    """Is the number of ``match`` an hour, "am"/"pm" after it in the original text?"""
    meridiem = _MERIDIEM_RE.match(work.original, match.end())
    # "für 3 am samstg": a date read there already (blanked) makes "am" German "on".
    german_on = (
        meridiem is not None
        and re.fullmatch(r"\s*am", meridiem[0], re.IGNORECASE) is not None
        and re.match(r"\s{3}", work.text[meridiem.end() :]) is not None
    )
    return bool(meridiem) and not german_on


def find_bare_number(work: Work, *, whole: bool = False) -> Decimal | None:
    """The only number left in a short reply ("4", "vier, bitte"); ``whole``: whole
    numbers only ("31.02." is no count)."""
    count = _WHOLE if whole else _COUNT
    pattern = re.compile(
        rf"(?<![\w.:,])((?:(?<![\w.])-\s?)?(?:{count}))(?![\w:]|[.,]\d)", re.IGNORECASE
    )
    matches = [m for m in pattern.finditer(work.text) if _value(m[1]) is not None]
    if len(matches) != 1:
        return None
    work.take(matches[0])
    return _value(matches[0][1])
