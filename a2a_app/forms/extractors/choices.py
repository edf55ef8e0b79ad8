"""Choices by label or value, and yes/no answers."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from a2a_app.forms.extractors.base import Work, fold
from a2a_app.forms.extractors.words import NO, YES, word_set

_STOP = word_set(
    "the a an of on in at with and or for to my mit und oder der die das den dem im am an "
    "auf für zum zur ein eine einen"
)
_WORD_RE = re.compile(r"[^\W_]+")


def folded(text: str) -> str:
    """``fold`` char by char, so positions in the folded text match the original."""
    out = []
    for char in text:
        f = fold(char)
        out.append(f if len(f) == 1 else char.lower())
    return "".join(out)


def _phrase_re(phrase: str) -> re.Pattern[str]:
    words = _WORD_RE.findall(phrase)
    return re.compile(r"(?<![^\W_])" + r"\W+".join(map(re.escape, words)) + r"(?![^\W_])")


def find_choice(work: Work, choices: Sequence[tuple[Any, Iterable[str]]]) -> Any | None:
    """The value of the choice whose label or value the text names first.

    ``choices`` pairs each value with its names (value, labels in each language). A whole
    name matches; so does a word that only one choice's names hold ("terrace" for
    "On the terrace").
    """
    text = folded(work.text)
    hits: list[tuple[int, int, int, Any]] = []
    word_owners: dict[str, set[int]] = {}
    for index, (_, names) in enumerate(choices):
        for name in names:
            for word in _WORD_RE.findall(fold(name)):
                if len(word) >= 3 and word not in _STOP:
                    word_owners.setdefault(word, set()).add(index)
    for index, (value, names) in enumerate(choices):
        phrases = {fold(n).strip() for n in names if _WORD_RE.search(fold(n))}
        phrases |= {w for w, owners in word_owners.items() if owners == {index}}
        for phrase in phrases:
            match = _phrase_re(phrase).search(text)
            if match:
                # Earliest first; at one place the longer name wins ("Red wine" over "wine").
                hits.append((match.start(), -(match.end() - match.start()), index, value))
                break
    if not hits:
        return None
    start, negative_length, _, value = min(hits, key=lambda h: (h[0], h[1]))
    work.blank(start, start - negative_length)
    return value


_YES_RE = re.compile(
    r"(?<![^\W_])(" + "|".join(map(re.escape, sorted(YES, key=len, reverse=True))) + r")(?![^\W_])",
    re.IGNORECASE,
)
_NO_RE = re.compile(
    r"(?<![^\W_])(" + "|".join(map(re.escape, sorted(NO, key=len, reverse=True))) + r")(?![^\W_])",
    re.IGNORECASE,
)


def find_yes_no(work: Work) -> bool | None:
    """A yes or a no in a reply to a yes/no question; whichever comes first."""
    yes = _YES_RE.search(work.text)
    no = _NO_RE.search(work.text)
    if no and (not yes or no.start() <= yes.start()):
        work.take(no)
        return False
    if yes:
        work.take(yes)
        return True
    return None


def find_mention(work: Work, words: Sequence[str]) -> bool | None:
    """True when the text names all ``words`` (a field's own words: "terrace",
    "wheelchair access"), False when a negation comes just before ("no terrace")."""
    text = folded(work.text)
    spans = []
    for word in words:
        match = re.search(rf"(?<![^\W_]){re.escape(word)}\w{{0,2}}(?![^\W_])", text)
        if not match:
            return None
        spans.append(match.span())
    start = min(s for s, _ in spans)
    before = text[max(0, start - 30) : start].split()[-3:]
    negated = any(w.strip(",.") in NO for w in before)
    for span in spans:
        work.blank(*span)
    return not negated
