"""Which language a guest's message is in: the one place that decides it.

:func:`detect` answers for a text and its hints; :func:`message_language` for a message
as the library sees it (its metadata, the request's, the caller's Accept-Language, the
language its task already speaks). The answer is a language code the site offers
(``settings.LANGUAGES``), or "" when nothing tells.

In order:

1. hints: ``metadata.language`` / ``metadata.locale`` on the message, then on the
   request, then the request's Accept-Language; the first that names a language the
   site offers wins (a client that says which language it wants gets it, whatever the
   words);
2. within a task that already speaks a language (a follow-up), that language, unless
   the text clearly reads as another (two marking words at least): "2", "19:30",
   "Tom Lee" or one stray English word keep a German conversation German;
3. otherwise the language the text reads as most; "" when nothing tells (a tie, no
   word of any language). :func:`message_language` then answers ``LANGUAGE_CODE``.

The text is read by ``A2A_APP["LANGUAGE_DETECTOR"]``, a function ``(text, candidates) ->
dict[code, score]``. The default (:func:`lexical_scores`) needs no package and no model:
it counts the words and letters that mark English and German in short messages, which
is what guests send ("Hallo", "Wo kann ich parken?", "Table for 2 tomorrow").
docs/language.md compares it with lingua, py3langid and langdetect on such messages
and shows how to plug in lingua (:func:`lingua_scores`) for more languages.
"""

from __future__ import annotations

import contextlib
import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import global_settings, settings
from django.core.signals import setting_changed
from django.utils import translation

from a2a_app.conf import a2a_settings


def _wordset(text: str) -> frozenset[str]:
    """The words of a whitespace-separated list (kept as prose for easy editing)."""
    return frozenset(text.split())


#: A task's ``skill_state`` key for the language its conversation speaks.
LANGUAGE_STATE_KEY = "a2a_language"

_WORD_RE = re.compile(r"[^\W\d_]+", re.UNICODE)
_CODE_RE = re.compile(r"[\d@/]")

# Words that mark a language in short messages. Kept small and frequent: function
# words, greetings and the restaurant's everyday words. A word in both lists (e.g.
# "in", "so") is left out of both.
_MARKERS: dict[str, frozenset[str]] = {
    "en": _wordset(
        """
        a an the and or but is are was were be been am i i'm im me my mine you your yours
        we our us they them their he she it its this that these those what what's whats
        where when which who whom whose why how do does did don't have has had can could
        would should will shall may might must not no yes yeah yep nope ok okay please
        thanks thank hello hi hey good morning afternoon evening night bye goodbye cheers
        to of for on at by with from about into there here any some much many more less
        table tables book booking reserve reservation tomorrow today tonight people
        persons guests party open opening hours close closed located location where
        park parking menu dish dishes food drink drinks wine wines price prices cost
        costs how much vegetarian vegan fish meat cancel change move name phone email
        like want need get got let lets sorry welcome great nice also just only
        weather deliver delivery options free gluten
        """
    ),
    "de": _wordset(
        """
        der die das den dem des ein eine einen einem einer eines und oder aber ist sind
        war waren bin bist sein ich mich mir mein meine meinen du dich dir dein deine
        ihr euch euer eure wir uns unser unsere sie ihnen ihre er es dies diese dieser
        was wo wann welche welcher welches wer wen wem wie warum wieso habt haben hat
        hast hatte kann kannst könnt können könnte möchte möchten würde würden will
        wollen soll sollen muss müssen nicht kein keine keinen ja nein doch bitte danke
        vielen dank hallo servus moin tschüss tschüs grüß gott guten morgen abend tag
        nacht heute gestern übermorgen zu zum zur für mit von vom bei beim nach aus auf
        über unter gibt geht gern gerne noch schon auch nur mal etwas viel viele mehr
        tisch tische reservieren reservierung buchen buchung personen leute gäste
        geöffnet offen öffnungszeiten geschlossen parken parkplatz speisekarte karte
        gericht gerichte essen trinken getränke wein weine preis preise kostet kosten
        vegetarisch vegane veganes vegan fisch fleisch stornieren absagen ändern
        verschieben storniere stornierung kontakt heiße heisse name telefon uhr wetter
        liefert lieferung glutenfrei
        glutenfreie firmenfeier feier
        """
    ),
}
# Letters and endings that only one of the two languages writes.
_LETTERS = {"de": frozenset("äöüß")}
_NO_LETTERS: frozenset[str] = frozenset()
_ENDINGS = {
    "de": ("ung", "ungen", "chen", "lich", "keit", "heit", "ieren", "iert", "sch", "tz"),
    "en": ("ing", "tion", "ness", "ful", "ly", "'s"),
}


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def lexical_scores(text: str, candidates: Iterable[str]) -> dict[str, float]:
    """The default detector: marker words count 1, a letter or ending only one language
    writes counts 0.5 (once per word). Languages it has no markers for score 0."""
    scores = dict.fromkeys(candidates, 0.0)
    known = [code for code in scores if code in _MARKERS]
    words = (
        word
        for token in _fold(text).replace("’", "'").split()
        # A reference, an e-mail address, a time or a link is in no language: "TD-9V884A"
        # would read as the English "a" (and "…8ME" as "me"), outvoting a German request.
        if not _CODE_RE.search(token)
        for word in _WORD_RE.findall(token)
    )
    for word in words:
        for code in known:
            if word in _MARKERS[code]:
                scores[code] += 1.0
            elif not _LETTERS.get(code, _NO_LETTERS).isdisjoint(word) or (
                len(word) > 4 and word.endswith(_ENDINGS.get(code, ()))
            ):
                scores[code] += 0.5
    return scores


def lingua_scores(text: str, candidates: Iterable[str]) -> dict[str, float]:
    """``LANGUAGE_DETECTOR`` backed by lingua (``pip install lingua-language-detector``):
    accurate on short texts in many languages, at ~100 MB of models in memory."""
    detector, by_code = _lingua(tuple(sorted(candidates)))
    if detector is None:
        return {}
    values = detector.compute_language_confidence_values(text)
    return {by_code[v.language]: v.value for v in values if v.language in by_code}


@functools.lru_cache(maxsize=4)
def _lingua(codes: tuple[str, ...]) -> tuple[Any, dict[Any, str]]:
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    languages = {}
    for code in codes:
        try:
            languages[Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper()))] = code
        except (AttributeError, ValueError):
            continue
    if len(languages) < 2:
        return None, {}
    detector = (
        LanguageDetectorBuilder.from_languages(*languages).with_preloaded_language_models().build()
    )
    return detector, languages


@functools.cache
def site_languages() -> tuple[str, ...]:
    """The languages the site offers, primary codes, ``LANGUAGE_CODE``'s first.

    A site that keeps Django's default ``LANGUAGES`` (every language Django knows) has
    not chosen: then its ``LANGUAGE_CODE`` and the languages a2a_app speaks (en, de).
    Read once (every message asks), again after a change of those settings (tests).
    """
    default = _primary(settings.LANGUAGE_CODE) or "en"
    if settings.LANGUAGES is global_settings.LANGUAGES or list(settings.LANGUAGES) == list(
        global_settings.LANGUAGES
    ):
        offered = [default, "en", "de"]
    else:
        offered = [default, *(_primary(code) for code, _name in settings.LANGUAGES)]
    return tuple(dict.fromkeys(code for code in offered if code))


def _primary(tag: Any) -> str:
    """ "de-AT" / "de_AT" / "DE" -> "de"; "" for anything that is not a language tag."""
    if not isinstance(tag, str):
        return ""
    primary = tag.strip().replace("_", "-").split("-")[0].split(";")[0].strip().lower()
    return primary if primary.isalpha() and 2 <= len(primary) <= 3 else ""


def _from_hint(hint: Any, offered: tuple[str, ...]) -> str:
    """The site language a hint names ("de-DE", "de;q=0.9, en"...), or ""."""
    if not isinstance(hint, str):
        return ""
    for item in hint.split(","):  # Accept-Language lists several, best first
        code = _primary(item)
        if code in offered:
            return code
    return ""


def detect(text: str, *, hints: Iterable[Any] = (), previous: str = "") -> str:
    """The language of ``text``: the first hint naming a site language; else, without
    ``previous`` (the conversation's language), the language the text reads as most, or
    "" on a tie; with ``previous``, that one unless the text clearly reads as another."""
    offered = site_languages()
    for hint in hints:
        code = _from_hint(hint, offered) if hint else ""
        if code:
            return code
    previous = previous if previous in offered else ""
    if len(offered) == 1:
        return offered[0]
    scores = a2a_settings.LANGUAGE_DETECTOR(text or "", offered) or {}
    ranked = sorted(
        ((score, code) for code, score in scores.items() if code in offered and score > 0),
        reverse=True,
    )
    if not ranked:
        return previous
    best_score, best = ranked[0]
    runner_up = ranked[1][0] if len(ranked) > 1 else 0.0
    if not previous:
        return best if best_score > runner_up else ""
    # A switch must be clear: two marking words at least, twice the other language's.
    # One word ("Table", "Danke", a dish's name) is no switch.
    if best != previous and best_score >= 2.0 and best_score >= 2 * runner_up:
        return best
    return previous


def message_hints(message: Any, metadata: Mapping[str, Any] | None, caller: Any) -> list[Any]:
    """What says a message's language outright, strongest first: ``language`` /
    ``locale`` in the message's metadata, in the request's, then Accept-Language."""
    hints: list[Any] = []
    for source in (getattr(message, "metadata", None) or {}, metadata or {}):
        hints.extend(source.get(key) for key in ("language", "locale"))
    hints.append(getattr(caller, "language", ""))
    return hints


def message_language(
    message: Any, metadata: Mapping[str, Any] | None, caller: Any, *, previous: str = ""
) -> str:
    """The language to answer ``message`` in; never "": the site's ``LANGUAGE_CODE``
    when nothing tells."""
    found = detect(
        getattr(message, "text", "") or "",
        hints=message_hints(message, metadata, caller),
        previous=previous,
    )
    return found or site_languages()[0]


def activate(language: str) -> Any:
    """``translation.override`` for a language code ("" keeps the active language)."""
    if not language:
        return contextlib.nullcontext()
    return translation.override(language)


def _settings_changed(*, setting: str, **kwargs: Any) -> None:
    if setting in {"LANGUAGES", "LANGUAGE_CODE"}:
        site_languages.cache_clear()


setting_changed.connect(_settings_changed, dispatch_uid="a2a_app.site_languages")
