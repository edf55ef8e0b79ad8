"""People's names ("my name is Tom Lee", "unter dem Namen Weber") and bare answers."""

from __future__ import annotations

import re

from a2a_app.forms.extractors.base import Work
from a2a_app.forms.extractors.words import FILLER, MONTHS, NOT_NAME, word_set

# A cue that introduces a name whatever its case, and one that only does when the name is
# capitalised ("I'm Anna" but not "I'm looking for a table").
_NAME_CUE_RE = re.compile(
    r"\b(?:my name is|my name's|name's|name is|name\s*[:=-]|names?\b|under the name(?: of)?|"
    r"in the name of|booked under|contact person\s*[:=]?|call me|ich heiße|ich heisse|"
    r"mein name ist|mein name lautet|auf den namen|unter dem namen|unter|"
    r"ansprechpartner(?:in)?\s*[:=]?)\s*",
    re.IGNORECASE,
)
_WEAK_NAME_CUE_RE = re.compile(
    r"(?:\b(?:i am|i'm|im|this is|it's|it is|ich bin|hier ist|hier spricht|hier|for|für|"
    r"family|familie|"
    r"under|contact:?|kontakt:?|"
    r"(?:reserve|book|booking|reservation)(?: it| a table)? for|"
    # "Reservierung auf Müller": a booking "on" a name.
    r"(?:reservierung|reservieren|reserviert|buchung|buchen|gebucht|tisch)\s+auf))\s+",
    re.IGNORECASE,
)
# A signature closing the message: "Thanks, Peter", "LG Anna Weber".
_SIGN_OFF_RE = re.compile(
    r"\b(?:thanks|thank you|cheers|regards|best|grüße|gruß|lg|vg|mfg|danke)[,!.]?\s+"
    r"(?=[^\W\d_][^\d]{0,60}$)",
    re.IGNORECASE,
)
# Letters with inner apostrophes and hyphens: O'Brien, Müller-Lüdenscheidt.
_NAME_WORD_RE = re.compile(r"[^\W\d_](?:[^\W\d_]|['’-](?=[^\W\d_]))*")
# Titles and forms of address before a name: "Dr. Ahmed Karimi", "Frau Dr. Weber". They
# are no part of the name the booking is under (and never the name alone).
_TITLES_RE = re.compile(
    r"(?:\b(?:dr|med|prof|frau|herr|herrn|mr|mrs|ms|miss|mx|sir|madam)\b\.?\s*)+", re.IGNORECASE
)
_TITLES = word_set("dr med prof frau herr herrn mr mrs ms miss mx sir madam")
_PARTICLES = word_set("von van de der den da di del le la zu ten ter")


def _name_words(text: str, *, capitalised: bool) -> tuple[str, int] | None:
    """The name at the start of ``text`` and where it ends. After a weak cue
    (``capitalised``) the name follows at once: in "for 3 people, I'm Anna" the "for"
    cues no name once "3 people" is read, whatever comes after the comma."""
    words: list[str] = []
    position = end = 0
    for match in _NAME_WORD_RE.finditer(text):
        gap = text[position : match.start()]
        lead = gap.strip() if capitalised else gap.strip(" :,-")
        if (words and gap.strip()) or (not words and lead):
            break  # punctuation or a digit ends the name; a name starts right away
        word = match[0]
        lowered = word.lower()
        particle = bool(words) and lowered in _PARTICLES
        if not particle and (lowered in NOT_NAME or (capitalised and not word[0].isupper())):
            break
        words.append(word)
        position = end = match.end()
        if len(words) == 4:
            break
    while words and words[-1].lower() in _PARTICLES:
        words.pop()
    if not words:
        return None
    return " ".join(words), end


def find_name(work: Work) -> tuple[str, bool] | None:
    """A name after a cue; ``(name, strong)``."""
    cues = ((_NAME_CUE_RE, True), (_WEAK_NAME_CUE_RE, False), (_SIGN_OFF_RE, False))
    for pattern, strong in cues:
        for cue in pattern.finditer(work.text):
            title = _TITLES_RE.match(work.text, cue.end())
            skip = title.end() - cue.end() if title and title.end() < len(work.text) else 0
            found = _name_words(work.text[cue.end() + skip :], capitalised=not strong)
            if found is not None:
                found = (found[0], found[1] + skip)
            if found is None and strong and cue[0].strip().lower() in {"unter", "name", "names"}:
                continue
            if found is None:
                continue
            name, length = found
            rest = work.text[cue.end() + length :]
            if pattern is _SIGN_OFF_RE and rest.strip(" .!"):
                continue  # only a signature at the very end
            lowercase_only = not any(c.isupper() for c in work.original)
            if cue[0].strip().lower() in {"unter", "name", "names"} and not name[0].isupper():
                if not (lowercase_only and cue[0].strip().lower() == "name"):
                    continue  # "unter" and a bare "name" cue only a capitalised name
                # A guest who writes all in lower case ("name alex kim") still names.
                name = " ".join(w[:1].upper() + w[1:] for w in name.split())
            work.blank(cue.start(), cue.end() + length)
            return name, strong
    return None


# A part of a list on its own: "Table for 4 on Friday at 8, Tom Lee, tom@lee.de".
# A dash between spaces separates items too: "for 2 tonight - Tom Lee - 0176 ...".
_SEGMENT_RE = re.compile(r"(?:[^,;()\n?!.\s]|\.(?!\s)|\s(?![-–—]\s))+")


def listed_name(work: Work, *, single: bool = False) -> str | None:
    """A name given as one item of a comma-separated message, once dates, numbers and
    contacts are read: two to four capitalised words that are no other word we know;
    ``single``: one such word will do ("Weber, weber@example.com": next to a contact)."""
    for segment in _SEGMENT_RE.finditer(work.text):
        text = segment[0].strip(" .!-–—")
        words = _NAME_WORD_RE.findall(text)
        fewest = 1 if single else 2
        if not fewest <= len(words) <= 4 or " ".join(words) != " ".join(text.split()):
            continue
        if any(not w[0].isupper() and w.lower() not in _PARTICLES for w in words):
            continue
        if all(w.lower() in _TITLES for w in words):
            continue  # "Dr" of "Dr. Ahmed Karimi": the name follows the dot
        # A month after the first word is a surname ("Jo March"): a date was read already.
        if any(
            w.lower() in NOT_NAME and (i == 0 or w.lower() not in MONTHS)
            for i, w in enumerate(words)
        ):
            continue
        if len(words) == 1:
            # A lone word stands for a name only if it was alone there ("Weber, ..."),
            # not what is left once a count was read ("Catering für 40").
            rest = work.original[segment.start() : segment.end()].replace(words[0], "", 1)
            if re.search(r"[^\W\d_]", rest) and "@" not in rest:
                continue
        while len(words) > 1 and words[0].lower() in _TITLES:
            words = words[1:]  # "Frau Schmidt": a name with its title, given without it
        work.blank(*segment.span())
        return " ".join(words)
    return None


def bare_name(work: Work, *, capitalised: bool = False) -> str | None:
    """The whole short reply as a name: "Tom Lee", "Hi, it's Anna Weber. Thanks!";
    ``capitalised``: only capitalised words (the name was asked with other fields)."""
    words = [w for w in _NAME_WORD_RE.findall(work.text) if w.lower() not in FILLER]
    while len(words) > 1 and words[0].lower() in _TITLES:
        words = words[1:]  # "Frau Weber", "Dr. Lee": the name without the title
    if not 1 <= len(words) <= 4 or any(w.lower() in NOT_NAME for w in words):
        return None
    if capitalised and any(not w[0].isupper() and w.lower() not in _PARTICLES for w in words):
        return None
    if re.search(r"\d", work.text):
        return None
    work.blank(0, len(work.text))
    return " ".join(words)


def bare_text(work: Work) -> str | None:
    """The reply itself, for a free-text field that was the only thing asked."""
    value = work.original.strip()
    return value or None
