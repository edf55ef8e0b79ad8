"""Choosing the skill for a new task (the default ``A2A_APP["ROUTER"]``).

In order, deterministically:

1. ``metadata.skillId`` on the message, then on the request, names the skill;
2. if only one skill is enabled, it is the one;
3. otherwise the skill whose name, id, tags and examples share the most words with the
   message text wins (a long word also matches its prefixes: "vegane" ~ "vegan");
   ties go to the skill listed first (``Skill.order``, then id);
4. no shared word: no skill, and the caller gets a direct Message listing the skills.

``skills`` are the ones the caller may use: a skill it may not use is as unknown here as
one that does not exist (SendMessage has already refused a signed-in caller who names
one with PermissionDenied). Follow-up messages never come here: they go to the skill
their task started with.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from a2a_app.protocol.errors import InvalidParamsError
from a2a_app.protocol.types import Message
from a2a_app.skills.catalogue import SkillInfo

_WORD_RE = re.compile(r"\w+", re.UNICODE)
# Words too common to say anything about which skill is meant.
_STOP_WORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "at",
        "be",
        "can",
        "could",
        "do",
        "for",
        "from",
        "have",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "please",
        "show",
        "tell",
        "the",
        "to",
        "want",
        "what",
        "which",
        "with",
        "would",
        "you",
        "your",
        "der",
        "die",
        "das",
        "ein",
        "eine",
        "und",
        "ich",
        "ist",
        "mit",
        "zu",
        "für",
        "bitte",
        "wir",
        "ihr",
        "sie",
        "es",
    }
)


def words(text: str) -> set[str]:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return {w for w in _WORD_RE.findall(folded) if w not in _STOP_WORDS and len(w) > 1}


def _vocabulary(skill: SkillInfo) -> set[str]:
    text = " ".join((skill.id.replace("-", " "), skill.name, *skill.tags, *skill.examples))
    return words(text)


def _matches(word: str, vocabulary_word: str) -> bool:
    """Equal, or one a prefix of the other when both are long enough ("vegane", "vegan")."""
    if word == vocabulary_word:
        return True
    if min(len(word), len(vocabulary_word)) < 4:
        return False
    return word.startswith(vocabulary_word) or vocabulary_word.startswith(word)


def _score(text_words: set[str], vocabulary: set[str]) -> int:
    return sum(1 for w in text_words if any(_matches(w, v) for v in vocabulary))


def requested_skill(message: Message, metadata: dict[str, Any]) -> tuple[Any, str]:
    """The skill id the client names, if any, and the field that names it."""
    requested = message.metadata.get("skillId")
    if requested is not None:
        return requested, "message.metadata.skillId"
    return metadata.get("skillId"), "metadata.skillId"


def route_message(
    message: Message, metadata: dict[str, Any], skills: Sequence[SkillInfo]
) -> SkillInfo | None:
    requested, field = requested_skill(message, metadata)
    if requested is not None:
        for candidate in skills:
            if candidate.id == requested:
                return candidate
        known = ", ".join(s.id for s in skills) or "none"
        raise InvalidParamsError.for_field(
            field, f"no available skill {requested!r}; available skills: {known}"
        )
    if len(skills) == 1:
        return skills[0]
    text_words = words(message.text)
    best, best_score = None, 0
    for candidate in skills:
        score = _score(text_words, _vocabulary(candidate))
        if score > best_score:
            best, best_score = candidate, score
    return best
