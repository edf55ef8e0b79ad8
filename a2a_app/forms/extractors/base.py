"""The text being read, with the spans already used blanked out."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class Work:
    """``text`` is what is left to read; ``original`` keeps the positions for context."""

    def __init__(self, text: str) -> None:
        # NFC: a "ü" typed as "u" + combining diaeresis must match the word lists.
        self.original = unicodedata.normalize("NFC", text)
        self.text = self.original

    def blank(self, start: int, end: int) -> None:
        self.text = self.text[:start] + " " * (end - start) + self.text[end:]

    def take(self, match: re.Match[str]) -> None:
        self.blank(*match.span())

    def first(
        self, pattern: re.Pattern[str], convert: Callable[[re.Match[str]], T | None]
    ) -> T | None:
        """The first match ``convert`` accepts (returns non-None); its span is blanked."""
        for match in pattern.finditer(self.text):
            value = convert(match)
            if value is not None:
                self.take(match)
                return value
        return None


def fold(text: str) -> str:
    """Lower case without accents, for matching labels: "Terrasse" ~ "terrasse", "Café" ~ "cafe"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))
