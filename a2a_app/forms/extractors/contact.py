"""E-mail addresses and phone numbers (phones with Google's ``phonenumbers``, as E.164)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from a2a_app.forms.extractors.base import Work

_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.UNICODE)
# Whatever looks like a phone number but no region validates: blanked all the same, so its
# digits are not read as a count.
_DIGIT_RUN_RE = re.compile(r"(?<![\w+])(?:\+|00)?\d[\d ()/.-]{5,}\d(?!\w)")


def find_email(work: Work) -> str | None:
    return work.first(_EMAIL_RE, lambda m: m[0].rstrip("."))


def find_phone(work: Work, regions: Iterable[str | None]) -> str | None:
    """The first valid phone number, tried in each region in turn, as E.164."""
    import phonenumbers  # lazily: its metadata takes a moment to load

    for region in dict.fromkeys(regions):
        matcher = phonenumbers.PhoneNumberMatcher(
            work.text, region, leniency=phonenumbers.Leniency.VALID
        )
        for match in matcher:
            work.blank(match.start, match.end)
            return phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
    return None


# A number the guest calls a phone number ("Tel 0151 765432"), valid or not.
_CUED_DIGITS_RE = re.compile(
    r"\b(?:phone|telephone|tel|telefon|telefonnummer|mobile|mobil|handy|cell|nummer|number)"
    r"\.?\s*(?:no\.?|nr\.?|is|ist|:)?\s*((?:\+|00)?\d[\d ()/.-]{4,}\d)(?!\w)",
    re.IGNORECASE,
)


_INTERNATIONAL_RE = re.compile(r"(?<![\w+])\+\d[\d ()/.-]{6,}\d(?!\w)")


def find_cued_digits(work: Work) -> str | None:
    """Digits the text calls a phone number, as written, when no region validates them:
    a contact field compares the digits, whatever the numbering plan says."""

    def convert(m: re.Match[str]) -> str | None:
        return m[1].strip() if len(re.sub(r"\D", "", m[1])) >= 6 else None

    found = work.first(_CUED_DIGITS_RE, convert)
    if found is None:  # "+44 ...": an international number is meant as one
        found = work.first(_INTERNATIONAL_RE, lambda m: m[0].strip())
    return found


def blank_digit_runs(work: Work) -> None:
    for match in _DIGIT_RUN_RE.finditer(work.text):
        if len(re.sub(r"\D", "", match[0])) >= 7:
            work.take(match)
