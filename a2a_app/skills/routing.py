"""Choosing the skill for a new task (the default ``A2A_APP["ROUTER"]``), and the short
answer a message gets when no skill fits.

In order, deterministically:

1. ``metadata.skillId`` on the message, then on the request, names the skill;
2. if only one skill is enabled, it is the one;
3. a message with a data part goes to the form skill whose fields its keys name
   (:func:`_route_by_data`);
4. otherwise each skill is scored by the words the message shares with it, and the best
   wins if its score reaches ``A2A_APP["ROUTING_MIN_SCORE"]`` and it explains the message
   (:meth:`_Index.explains`: "book me a taxi" shares only a generic verb with the booking
   skill); ties go to the skill listed first (``Skill.order``, then id);
5. else no skill: the caller gets :func:`fallback_message`, a direct Message (no task) in
   its language saying what the agent can do, with one or two example requests.

The score (docs/skills.md, "Which skill gets a message"): a skill's words are its id,
name and tags (weight 1), the names, labels and choices of its form's fields (0.7) and
its examples and its ``vocabulary=`` (0.6). A message word counts for every skill that
has it, times an IDF-like factor ``log((N + 1) / n)`` (N skills, n of them have the word), so a word
only one skill has ("catering") outweighs one they share ("table", "guests"). Words are
compared folded (case, accents), lightly stemmed ("reservieren" ~ "reservation",
"dishes" ~ "dish") and by prefix when long enough ("vegane" ~ "vegan"). A form with a
date or time field also has the words for days and times of day ("Saturday", "morgen"). Stop words
(EN/DE), greetings, e-mail addresses, URLs, references ("TD-7K2Q", "#1234") and numbers
are ignored: "contact me at weber@example.com" says nothing about catering.

``skills`` are the ones the caller may use: a skill it may not use is as unknown here as
one that does not exist (SendMessage has already refused a signed-in caller who names
one with PermissionDenied). Follow-up messages never come here: they go to the skill
their task started with. The word index of a catalogue is built once and cached, so
routing reads no database and costs a few microseconds per message.
"""

from __future__ import annotations

import functools
import logging
import math
import re
import time
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.forms.utils import pretty_name
from django.utils.translation import gettext

from a2a_app.protocol.errors import InvalidParamsError
from a2a_app.protocol.types import Message, Part
from a2a_app.skills import language, registry
from a2a_app.skills.catalogue import SkillInfo

logger = logging.getLogger(__name__)


def _wordset(text: str) -> frozenset[str]:
    """The words of a whitespace-separated list (kept as prose for easy editing)."""
    return frozenset(text.split())


#: How much a word counts, by where the skill has it.
NAME_WEIGHT, FIELD_WEIGHT, EXAMPLE_WEIGHT = 1.0, 0.7, 0.6
#: A tag of several words found as a phrase in a message counts this much.
PHRASE_WEIGHT = 1.5
#: A word one typo away from a skill's word counts this much of that word's weight.
TYPO_FACTOR = 0.8
#: A word matches a longer one it begins when it has at least this many letters
#: ("vegan" finds "vegane"; "alle" does not find "allergens").
_PREFIX_MIN = 5
#: The fallback's text stays short whatever the catalogue: at most this many characters.
FALLBACK_MAX_CHARS = 400

_WORD_RE = re.compile(r"[^\W\d_]+", re.UNICODE)
# What is cut out of a message before its words are read: e-mail addresses, URLs,
# dotted host names, "#1234", and any token with a digit in it (references such as
# "TD-7K2Q", dates, times, phone numbers): they name things, not skills.
_IGNORED_RE = re.compile(
    r"\S+@\S+"
    r"|\b(?:https?|ftp)://\S+|\bwww\.\S+"
    r"|\b[\w-]+(?:\.[\w-]+)+\.[a-z]{2,}\b|\b[\w-]+\.(?:com|org|net|de|example|io)\b"
    r"|#\w+"
    r"|[^\s,;:!?()\"']*\d[^\s,;:!?()\"']*",
    re.IGNORECASE | re.UNICODE,
)
# A reference such as "TD-7K3Q9X": a short letter prefix, a dash, letters and digits.
# Its own words say nothing, but its shape does: a message with "TD-TZMX72" in it is
# about the skills whose examples show a "TD-" reference (cancel, change).
_REFERENCE_SHAPE_RE = re.compile(r"(?<![\w-])([^\W\d_]{1,4})-([^\W_]{4,})(?![\w-])")


def reference_shapes(text: str) -> set[str]:
    """The shapes of the references in ``text`` ("TD-7K3Q9X" -> "td-")."""
    return {
        f"{fold(m[1])}-"
        for m in _REFERENCE_SHAPE_RE.finditer(text or "")
        # A digit in it, or all capitals ("TD-ABCDEF"): not a hyphenated word ("e-mail").
        if any(c.isdigit() for c in m[2]) or m[0].isupper()
    }


# Words too common to say which skill is meant (English and German, folded).
_STOP_WORDS = _wordset(
    """
    a an and are as at be been but by can could did do does for from get go going got
    had has have having he her here his how i id if im in into is it its ive just let
    lets like ll me might more most much must my need no not now of off ok okay on one
    or our out please re s she should show so some t tell than thank thanks that the
    their them then there these they this those to too up us ve want was we were what
    whats when where which who why will with would yes you your yours also any there
    der die das den dem des ein eine einen einem einer eines und oder aber ist sind war
    bin bist sein ich mich mir mein meine meinen meiner du dich dir dein deine ihr euch
    euer eure wir uns unser unsere sie ihnen ihre er es was wo wann wie warum welche
    welcher welches wer habt haben hat hast kann kannst konnt konnen konnte mochte
    mochten wurde wurden will wollen soll muss nicht kein keine ja nein doch bitte danke
    zu zum zur fur mit von vom bei beim nach aus auf uber gibt geht gern gerne noch schon
    auch nur mal etwas so da dann denn mehr viel alles all everything anything else sonst
    zweit dritt viert sechst siebt neunt zehnt elft zwolft
    """
)
# Greetings and courtesies: a message of nothing else gets the friendly fallback.
_GREETING_WORDS = _wordset(
    """
    hello hi hey hiya howdy greetings good morning afternoon evening day night there
    hallo servus moin gruss gruß gott guten tag abend morgen nabend tach grussgott
    ciao salut bonjour buongiorno buonasera hola
    """
)
_GREETING_RE = re.compile(
    r"^\W*(?:(?:hello|hi|hey|hiya|howdy|greetings|hallo|servus|moin|ciao|hola|"
    r"good\s+(?:morning|afternoon|evening|day)|guten\s+(?:morgen|tag|abend)|"
    r"gr[uü](?:ß|ss)\s+gott|buongiorno|buonasera)\b\W*)+",
    re.IGNORECASE | re.UNICODE,
)
# Light stemming, longest ending first; what is left keeps at least 4 letters.
_ENDINGS = (
    "ierungen",
    "ierung",
    "ations",
    "ieren",
    "ation",
    "ungen",
    "ings",
    "ung",
    "ing",
    "ers",
    "ern",
    "en",
    "er",
    "es",
    "ed",
    "e",
    "s",
    "n",
)


def fold(text: str) -> str:
    """Case and accents folded ("Gäste" -> "gaste", "Straße" -> "strasse")."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def stem(word: str) -> str:
    # "parties" is "party", not "part" ("Which part of Berlin?" is no party).
    if word.endswith("ies") and len(word) >= 6:
        return word[:-3] + "y"
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[: -len(ending)]
    return word


# German separable verbs: "Habt ihr heute auf?" is "aufhaben", "Wann macht ihr zu?" is
# "zumachen"; the particle ends the sentence, the verb comes early.
_PARTICLES = frozenset({"auf", "zu"})
_FINITE_VERBS = _wordset("habt haben hat hast habe macht machen machst mache seid sind ist")


def _folded_words(text: str) -> set[str]:
    """The words of ``text`` that may say which skill is meant, folded, not stemmed."""
    cleaned = _IGNORED_RE.sub(" ", unicodedata.normalize("NFKC", text or ""))
    tokens = _WORD_RE.findall(fold(cleaned))
    found = {w for w in tokens if len(w) > 1 and w not in _STOP_WORDS}
    found.update(_separable(tokens))
    return found


def _separable(tokens: list[str]) -> list[str]:
    """The separable verbs of a German sentence joined ("habt ... auf" -> "aufhabt")."""
    if len(tokens) >= 3 and tokens[-1] in _PARTICLES:
        return [tokens[-1] + t for t in tokens[:4] if t in _FINITE_VERBS]
    return []


def words(text: str) -> set[str]:
    """The words of ``text`` that may say which skill is meant, folded and stemmed."""
    return {stem(word) for word in _folded_words(text)}


def is_greeting(text: str) -> bool:
    """Only greetings and courtesies ("Hello", "Hallo!", "Guten Abend", "hi there")."""
    cleaned = _IGNORED_RE.sub(" ", text or "")
    tokens = [w for w in _WORD_RE.findall(fold(cleaned)) if w not in _STOP_WORDS]
    return bool(_GREETING_RE.match(text or "")) and all(
        t in _GREETING_WORDS or fold(t) in _GREETING_WORDS for t in tokens
    )


# "What can you do?", "Who am I talking to?", "Was können Sie alles für mich tun?": a
# question about the agent itself, answered like a greeting with what it can do.
_CAPABILITY_RE = re.compile(
    r"\bwhat\s+(?:else\s+)?(?:can|could|do)\s+you\s+(?:do|offer|help)"
    r"|\bwho\s+(?:am\s+i|are\s+you)\b|\bwhat\s+are\s+you\b"
    r"|\bhow\s+can\s+you\s+help\b|\bwhat\s+can\s+i\s+ask\b"
    r"|\bwas\s+(?:kannst|k[oö]nnen|koennen|k[oö]nnt)\s+(?:du|sie|ihr)\b(?:\s+\w+){0,4}?\s+"
    r"(?:tun|machen|anbieten|helfen)\b"
    r"|\bwer\s+(?:bist\s+du|sind\s+sie|seid\s+ihr)\b|\bmit\s+wem\s+(?:spreche|rede|chatte)\b"
    r"|\bwo(?:bei|mit)\s+(?:kannst|k[oö]nnen|koennen)\s+(?:du|sie|ihr)\b",
    re.IGNORECASE | re.UNICODE,
)
# A request to reveal the agent's instructions or other guests' data, or to drop its
# rules: never a booking, whatever booking words it has ("list every reservation").
_INJECTION_RE = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b(?:\s+\w+){0,3}?\s+"
    r"(?:instructions?|rules|prompts?|guidelines|restrictions)\b"
    r"|\bignorier\w*\b(?:\s+\w+){0,3}?\s+(?:regeln|anweisungen|instruktionen|vorgaben)\b"
    r"|\bsystem\s*-?\s*prompt|\bsystemprompt|\byou\s+are\s+now\b|\bdu\s+bist\s+(?:jetzt|nun)\b"
    r"|\bjailbreak|\bdeveloper\s+mode\b",
    re.IGNORECASE | re.UNICODE,
)
# ... or other guests' data: a verb of showing and "all/every/other" before the data.
_REVEAL_VERB_RE = re.compile(
    r"\b(?:list|show|print|give|tell|reveal|dump|export|display|gib|gebt|geben|zeig\w*|"
    r"nenn\w*|liste\w*|verrat\w*|ausgeben|auflisten)\b",
    re.IGNORECASE | re.UNICODE,
)
_OTHERS_DATA_RE = re.compile(
    r"\b(?:all|every|other|others'|everyone'?s|alle[nrs]?|s[aä]mtliche[nr]?|jede[nrs]?|"
    r"andere[nr]?|fremde[nr]?)\b(?:\s+\w+){0,2}?\s+"
    r"(?:reservations?|bookings?|guests?|customers?|clients?|names|phone|numbers|e-?mails?|"
    r"contacts?|reservierungen|buchungen|g[aä]ste[n]?|kunden|namen|telefonnummern|"
    r"kontaktdaten)\b",
    re.IGNORECASE | re.UNICODE,
)


def is_capability_question(text: str) -> bool:
    """A question about the agent itself ("What can you do?", "Wer bist du?")."""
    return bool(_CAPABILITY_RE.search(text or ""))


def asks_for_others_data(text: str) -> bool:
    """A request to show other guests' data ("list every reservation", "gib mir die
    Namen aller Gäste"): a verb of showing before "all/every/other" and the data."""
    data = _OTHERS_DATA_RE.search(text or "")
    return bool(data) and any(
        m.start() < data.start() for m in _REVEAL_VERB_RE.finditer(text or "")
    )


def is_injection(text: str) -> bool:
    """A request to drop the agent's rules, reveal its instructions, or list other
    guests' data: answered by the fallback, never by a skill."""
    return bool(_INJECTION_RE.search(text or "")) or asks_for_others_data(text)


# Thanks (with what for: "for the booking", "für die Reservierung") and goodbyes, and the
# words of approval around them ("Perfect, thank you!"). A message of nothing else ends a
# conversation: it is answered courteously, not routed on its words ("Thanks for the
# booking!" is no new booking, "Danke, bis Samstag!" no question about Saturday).
_LETTERS = r"[^\W\d_]+"
_THANKS_PHRASE = (
    r"(?:(?:many|big|special)\s+thanks|thanks?(?:\s+you)?|thx|cheers|"
    r"(?:vielen|herzlichen|tausend|besten|lieben|sch[oö]nen)\s+dank|"
    r"danke(?:\s*sch[oö]n|\s+sehr)?|merci|grazie|gracias)"
    r"(?:\s+(?:so|very|much|a\s+lot|a\s+million|again|nochmals?|vielmals|auch))*"
    # What for, after an article or a possessive: "for your help", "für die Reservierung";
    # not "for booking a table for 2" (a request worded as thanks in advance).
    r"(?:\s+(?:for|f[uü]r)\s+(?:the|your|this|that|all|everything|my|our|"
    r"die|den|das|dem|diese[nms]?|ihre[nm]?|eure[nm]?|deine[nm]?|alles)"
    rf"(?:\s+(?!for\b|f[uü]r\b){_LETTERS}){{0,2}})?"
)
_THANKS_RE = re.compile(rf"\b{_THANKS_PHRASE}\b", re.IGNORECASE | re.UNICODE)
_GOODBYE_RE = re.compile(
    r"\b(?:good\s*-?\s*bye|bye(?:\s*-?\s*bye)?|farewell|"
    rf"see\s+you(?:\s+(?:soon|later|then|tomorrow|tonight|(?:on|next)\s+{_LETTERS}))?|"
    r"tsch[uü]ss|tsch[oö]|tschau|auf\s+wiederseh[e]?n|auf\s+wiederh[oö]ren|"
    rf"bis\s+(?:bald|dann|sp[aä]ter|nachher|gleich|(?:zum\s+)?{_LETTERS})|"
    r"have\s+a\s+(?:nice|good|great|lovely)\s+(?:day|evening|night|weekend)|"
    r"(?:einen\s+)?sch[oö]nen\s+(?:tag|abend|sonntag|feierabend|wochenende)(?:\s+noch)?)\b",
    re.IGNORECASE | re.UNICODE,
)
_APPROVAL_WORDS = _wordset(
    """
    great perfect awesome wonderful excellent lovely super cool nice ok okay fine alright
    right got it sounds good all that everything wow brilliant amazing fantastic
    prima toll klasse perfekt wunderbar sehr gut alles klar passt top schon super
    """
)


#: A message longer than this is never only thanks or a goodbye (nor read as one).
CLOSING_MAX_CHARS = 200


def closing_kind(text: str) -> str | None:
    """``"thanks"``, ``"goodbye"`` or ``"thanks, goodbye"`` when a message only thanks,
    says goodbye or approves ("Perfect, thank you!", "Danke, bis Samstag!"); None when
    it asks for anything else ("Thanks! Where can I park?")."""
    text = text or ""
    if len(text) > CLOSING_MAX_CHARS:
        return None  # thanks and goodbyes are short; a long message asks for something
    thanked, leaving = bool(_THANKS_RE.search(text)), bool(_GOODBYE_RE.search(text))
    if not thanked and not leaving:
        return None
    rest = _GOODBYE_RE.sub(" ", _THANKS_RE.sub(" ", text))
    tokens = _WORD_RE.findall(fold(_IGNORED_RE.sub(" ", rest)))
    if any(
        t not in _STOP_WORDS and t not in _GREETING_WORDS and t not in _APPROVAL_WORDS
        for t in tokens
    ):
        return None
    return ", ".join(kind for kind, said in (("thanks", thanked), ("goodbye", leaving)) if said)


def without_thanks(text: str) -> str:
    """``text`` with its thanks cut out: what it asks for is read without them ("Thanks
    for the booking! Is there parking?" is about parking, not a booking)."""
    return _THANKS_RE.sub(" ", text)


# Words that fit a skill without saying what the guest wants: verbs of asking for
# something, and days and times ("book", "bestellen", "tomorrow"). A skill that shares
# only these with a message about a thing it does not know does not get it.
_GENERIC_VERBS = (
    "book make get order reserve arrange organise organize find recommend bring "
    "send write buchen buche bestellen bestelle besorgen besorge machen mache reservieren "
    "reserviere reserviert organisieren organisiere bringen bringt bring empfehlen "
    "schreiben schreibe schicken schicke finden finde"
)
# An unknown word after one of these is a thing the guest asks for ("a taxi", "ein
# Hotelzimmer"), not a name ("for Weber").
_ARTICLES = _wordset("a an the ein eine einen einem einer eines der die das den dem")


def _object_of_generic_verb(tokens: list[str], i: int) -> bool:
    """Is ``tokens[i]`` (after an article) what a generic verb asks for: "book (me) a
    taxi", "recommend a hotel", "ein Hotelzimmer buchen"?"""
    before = tokens[max(0, i - 3) : i - 1]  # the verb, maybe a pronoun ("me", "uns")
    if before and before[-1] in _PRONOUNS:
        before = before[:-1]
    after = tokens[i + 1 : i + 2]  # German puts the verb last
    return bool(before and before[-1] in _GENERIC_VERB_WORDS) or bool(
        after and after[0] in _GENERIC_VERB_WORDS
    )


# Words after an article that name no thing ("book the same again", "the other one").
_NOT_THINGS = _wordset(
    """
    same other others usual next last first second third whole rest following previous
    selbe selben gleiche gleichen andere anderen ubliche ublichen nachste nachsten letzte
    letzten erste ersten
    """
)
_PRONOUNS = _wordset("me us him her them mir uns ihm ihr ihnen")


def _is_weak(word: str) -> bool:
    return word in _WEAK_WORDS or word.removesuffix("s") in _WEAK_WORDS


# --- the index of a catalogue ---------------------------------------------------------------


# A form that asks for a date or a time is about something at a time: the words guests
# use for one point at it ("Saturday", "tomorrow at noon", "morgen Abend").
_TEMPORAL_WORDS = (
    "today tonight tomorrow evening morning noon lunch dinner afternoon midnight weekend "
    "monday tuesday wednesday thursday friday saturday sunday "
    "heute morgen übermorgen abend mittag mittags abends nachmittag wochenende uhr "
    "montag dienstag mittwoch donnerstag freitag samstag sonnabend sonntag"
)


_TEMPORAL_WORD_SET = frozenset(fold(_TEMPORAL_WORDS).split())
# Words before a name: "for Weber", "auf den Namen Weber", "ich bin Anna".
_NAME_MARKERS = _wordset(
    "for fur name namen von bin heisse heiße called family familie herr frau mr mrs ms"
)


_COUNTED_RE = re.compile(r"\d+\s*([^\W\d_]+)", re.UNICODE)
# How to reach the guest: an e-mail address or a phone number of 6+ digits.
_EMAIL_OR_PHONE_RE = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+|(?:\+|\b0)\d[\d /-]{5,}\d")
# How many come, in words a booking form asks for (folded text): "zu viert", "four of
# us", "4 Personen", "party of 6".
_PEOPLE_RE = re.compile(
    r"\bzu (?:zweit|dritt|viert|funft|sechst|siebt|acht)\b"
    r"|\b(?:\d+|two|three|four|five|six|seven|eight|zwei|drei|vier|funf|sechs|sieben|acht)"
    r"\s+(?:of us|people|persons|guests|personen|leute|gaste)\b"
    r"|\bparty of\b"
)
#: The index's token for such a count (no word: it cannot clash with one).
_PEOPLE_SHAPE = "#people"
# Prepositions of a time ("am Samstag", "um 8"): as weak as the day itself.
_TIME_PREPOSITIONS = _wordset(
    """
    am um ab bis gegen next this coming week nachste nachsten kommende kommenden woche
    halb viertel dreiviertel kurz punkt half quarter past oclock pm
    eins zwei drei vier funf sechs sieben acht neun zehn elf zwolf
    two three four five six seven eight nine ten eleven twelve
    """
)


def _is_temporal(word: str) -> bool:
    return (
        word in _TEMPORAL_WORD_SET
        or word.removesuffix("s") in _TEMPORAL_WORD_SET
        or word in _TIME_PREPOSITIONS
    )


_GENERIC_VERB_WORDS = frozenset(fold(_GENERIC_VERBS).split())
# As written (not stemmed: "booking" names the thing, "book" only asks for it), and
# days in the plural ("Saturdays", "samstags").
_WEAK_WORDS = frozenset(fold(_GENERIC_VERBS + " " + _TEMPORAL_WORDS).split())


def _form_words(form: Any) -> list[str]:
    """The words of a form's declared fields: names, labels, static choices, in each of
    the site's languages (labels are often translated), and for a date or time field
    the words that name a day or a time of day."""
    fields = getattr(form, "base_fields", None) or {}
    texts: list[str] = []
    temporal = (forms.DateField, forms.TimeField, forms.DateTimeField)
    if any(isinstance(field, temporal) for field in fields.values()):
        texts.append(_TEMPORAL_WORDS)
    for code in language.site_languages():
        with language.activate(code):
            for name, field in fields.items():
                texts.append(name.replace("_", " "))
                texts.append(str(field.label or pretty_name(name)))
                if isinstance(field, forms.ChoiceField) and not isinstance(
                    field, forms.ModelChoiceField
                ):
                    for _value, label in field.choices:
                        if isinstance(label, (list, tuple)):  # an optgroup
                            texts.extend(str(lab) for _v, lab in label)
                        else:
                            texts.append(str(label))
    return texts


@dataclass(frozen=True, slots=True)
class _Index:
    """Every skill's words with their weights, and a prefix table for long words."""

    skills: tuple[SkillInfo, ...]
    #: word -> ((skill position, weight), ...)
    exact: dict[str, tuple[tuple[int, float], ...]]
    #: a beginning of 5+ letters -> the words that start with it
    prefixes: dict[str, tuple[str, ...]]
    #: a word of 5+ letters with one letter left out -> the words it comes from
    deletions: dict[str, tuple[str, ...]]
    #: a tag of several words, folded ("how late", "wie lange") -> the skills with it
    phrases: dict[str, tuple[int, ...]]
    #: a one-word tag as written, folded ("reservieren") -> the skills with it
    tag_words: dict[str, tuple[int, ...]]

    @classmethod
    def build(cls, skills: tuple[SkillInfo, ...]) -> _Index:
        weights: dict[str, dict[int, float]] = {}
        phrases: dict[str, set[int]] = {}
        tag_words: dict[str, set[int]] = {}
        for position, skill in enumerate(skills):
            word_tags: list[str] = []
            for tag in skill.tags:
                tokens = _WORD_RE.findall(fold(str(tag)))
                if len(tokens) > 1:
                    phrases.setdefault(" ".join(tokens), set()).add(position)
                    # "from what time", "new years day": a phrase only; its words alone
                    # ("time", "day") would draw every booking here.
                    if len(tokens) > 2 or any(t in _STOP_WORDS for t in tokens):
                        continue
                elif tokens:
                    tag_words.setdefault(tokens[0], set()).add(position)
                word_tags.append(str(tag))
            sources: list[tuple[float, Iterable[str]]] = [
                (NAME_WEIGHT, (skill.id.replace("-", " ").replace("_", " "), skill.name)),
                (NAME_WEIGHT, word_tags),
                (EXAMPLE_WEIGHT, skill.examples),
            ]
            if skill.form is not None:
                sources.append((FIELD_WEIGHT, _form_words(skill.form)))
                if any(isinstance(f, forms.IntegerField) for f in skill.form.base_fields.values()):
                    # A form that counts something hears "four of us", "zu viert".
                    postings = weights.setdefault(_PEOPLE_SHAPE, {})
                    postings[position] = FIELD_WEIGHT
            sources.append((EXAMPLE_WEIGHT, _vocabulary(skill)))
            for weight, texts in sources:
                for text in texts:
                    for shape in reference_shapes(str(text)):
                        postings = weights.setdefault(shape, {})
                        postings[position] = max(postings.get(position, 0.0), weight)
                    for word in _folded_words(str(text)):
                        # Stemmed and as written: "gluten" is stemmed "glut", too short
                        # to find "glutenfrei" by prefix; "gluten" finds it.
                        for form in {word, stem(word)}:
                            postings = weights.setdefault(form, {})
                            postings[position] = max(postings.get(position, 0.0), weight)
        exact = {w: tuple(sorted(p.items())) for w, p in weights.items()}
        prefixes: dict[str, list[str]] = {}
        for word in exact:
            for end in range(_PREFIX_MIN, len(word)):
                prefixes.setdefault(word[:end], []).append(word)
        deletions: dict[str, list[str]] = {}
        for word in exact:
            if len(word) >= _PREFIX_MIN:
                for variant in _deleted(word):
                    deletions.setdefault(variant, []).append(word)
        return cls(
            skills,
            exact,
            {k: tuple(v) for k, v in prefixes.items()},
            {k: tuple(v) for k, v in deletions.items()},
            {k: tuple(sorted(v)) for k, v in phrases.items()},
            {k: tuple(sorted(v)) for k, v in tag_words.items()},
        )

    def phrase_hits(self, text: str) -> dict[int, int]:
        """How many of each skill's tags of several words ``text`` has as a phrase
        ("from what time", "wie lange"): their words are often stop words, which say
        nothing alone but name the question together."""
        padded = " " + " ".join(_WORD_RE.findall(fold(text or ""))) + " "
        hits: dict[int, int] = {}
        for phrase, positions in self.phrases.items():
            if f" {phrase} " in padded:
                for position in positions:
                    hits[position] = hits.get(position, 0) + 1
        return hits

    def matches(self, word: str) -> dict[int, float]:
        """The skills that have ``word`` (or a word it begins, or that begins it)."""
        found: dict[int, float] = {}
        candidates = [word]
        if len(word) >= _PREFIX_MIN:
            candidates.extend(self.prefixes.get(word, ()))
            candidates.extend(word[:end] for end in range(_PREFIX_MIN, len(word)))
        for candidate in candidates:
            for position, weight in self.exact.get(candidate, ()):
                if weight > found.get(position, 0.0):
                    found[position] = weight
        return found

    def misspelt(self, word: str) -> dict[int, float]:
        """The skills that have a word one typo away from ``word`` (a letter missing or
        added, two swapped: "tabel", "menue", "reservaton"; see :func:`_one_typo`), at
        ``TYPO_FACTOR`` of their weight. Only for words of 5+ letters that match
        nothing as written."""
        found: dict[int, float] = {}
        if len(word) < _PREFIX_MIN:
            return found
        candidates = set(self.deletions.get(word, ()))
        for variant in _deleted(word):
            if variant in self.exact:
                candidates.add(variant)
            candidates.update(self.deletions.get(variant, ()))
        for candidate in candidates:
            if not _one_typo(word, candidate):
                continue
            for position, weight in self.exact.get(candidate, ()):
                found[position] = max(found.get(position, 0.0), weight * TYPO_FACTOR)
        return found

    def found(self, word: str) -> dict[int, float]:
        """The skills that have ``word`` as written, stemmed, or misspelt."""
        found = self.matches(word)
        stemmed = stem(word)
        if stemmed != word:
            for position, weight in self.matches(stemmed).items():
                found[position] = max(found.get(position, 0.0), weight)
        return found or self.misspelt(word)

    def explains(self, text: str, position: int) -> bool:
        """Does the skill at ``position`` explain what ``text`` asks for?

        Not when all it shares with the text are generic words (a verb such as "book",
        "buchen", "order", or a day or time: :data:`_WEAK_WORDS`) while the text names a
        thing with an article that no skill knows ("book me a taxi", "ein Hotelzimmer
        buchen", "book a flight for tomorrow"): the guest wants that thing, which this
        site does not offer. Names are no such thing ("book for Weber tomorrow": no
        article), so unknown names, typos and dishes still reach the skill. Nor when the
        skill shares no word with the text, only the shape of a reference."""
        tokens = _WORD_RE.findall(fold(_IGNORED_RE.sub(" ", unicodedata.normalize("NFKC", text))))
        tokens += _separable(tokens)
        strong = shared = position in self.phrase_hits(text)
        unknown_thing = asked_for = False
        for i, token in enumerate(tokens):
            if len(token) > 1 and token not in _STOP_WORDS:
                found = self.found(token)
                shared = shared or position in found
                if position in found and not _is_weak(token):
                    strong = True
                elif (
                    not found
                    and i
                    and tokens[i - 1] in _ARTICLES
                    and token not in _GREETING_WORDS
                    and token not in _NOT_THINGS
                    and not self._known_after(tokens, i)
                ):
                    unknown_thing = True
                    asked_for = asked_for or _object_of_generic_verb(tokens, i)
        # A reference's shape alone ("TD-7K2Q") may be a cancellation or a change. The
        # thing a generic verb asks for decides, whatever else fits ("recommend a hotel
        # nearby" is no question about the way here).
        return shared and not asked_for and (strong or not unknown_thing)

    def named_by_tag(self, text: str) -> int | None:
        """The skill one of whose one-word tags ``text`` has as written, when no other
        skill has that tag and no other such skill is named ("ich möchte reservieren"):
        a low or tied score (the word's stem is shared: "reservation" is in every
        reservation skill's name) is then no reason to give up or to pick another."""
        named = {
            self.tag_words[word][0]
            for word in _folded_words(text)
            if len(self.tag_words.get(word, ())) == 1
        }
        return named.pop() if len(named) == 1 else None

    def only_times(self, text: str, position: int) -> bool:
        """Does the skill at ``position`` share only days and times with ``text`` while
        the text has words no skill knows that are no name ("Wie hat Hertha am
        Wochenende gespielt?")? A date is evidence for every skill with a date field,
        never what a message is about. Not when the text also gives how to reach the
        guest or how many come ("…um 19 Uhr zu viert, anna@example.de"): a request made
        at a time, with the details a booking form asks for."""
        if _EMAIL_OR_PHONE_RE.search(text) or _PEOPLE_RE.search(fold(text)):
            return False
        tokens = _WORD_RE.findall(fold(_IGNORED_RE.sub(" ", unicodedata.normalize("NFKC", text))))
        tokens += _separable(tokens)
        if position in self.phrase_hits(text):
            return False
        # What a number counts is no unknown thing ("4 Leute", "2 persons").
        counted = {fold(m[1]) for m in _COUNTED_RE.finditer(text)}
        shared_other = unknown = False
        for i, token in enumerate(tokens):
            if len(token) <= 1 or token in _STOP_WORDS or token in _GREETING_WORDS:
                continue
            found = self.found(token)
            if position in found:
                if not _is_temporal(token):
                    shared_other = True
            elif (
                not found
                and not _is_temporal(token)
                and token not in counted
                and not (i and tokens[i - 1] in _NAME_MARKERS)
            ):
                unknown = True
        return unknown and not shared_other

    def _known_after(self, tokens: list[str], i: int) -> bool:
        """Is ``tokens[i]`` a word before a thing some skill names in its card, tags or
        form ("a quiet table", "einen ruhigen Tisch"): then the thing is no unknown one.
        Not a word only its examples have ("a hotel nearby"), nor a generic one ("ein
        Hotelzimmer buchen")."""
        following = tokens[i + 1 : i + 2]
        if not following or following[0] in _STOP_WORDS or _is_weak(following[0]):
            return False
        found = self.found(following[0])
        return bool(found) and max(found.values()) >= FIELD_WEIGHT

    def scores(self, text: str) -> list[float]:
        totals = [0.0] * len(self.skills)
        count = len(self.skills)
        shapes = [dict(self.exact.get(shape, ())) for shape in reference_shapes(text)]
        if _PEOPLE_RE.search(fold(text)):
            shapes.append(dict(self.exact.get(_PEOPLE_SHAPE, ())))
        for found in [self.found(word) for word in _folded_words(text)] + shapes:
            if not found:
                continue
            # 1 for a word one skill has, near 0 for one every skill has.
            idf = math.log((count + 1) / len(found)) / math.log(count + 1)
            for position, weight in found.items():
                totals[position] += weight * idf
        hits = self.phrase_hits(text)
        for position, count in hits.items():
            # A phrase is more than its words; shared by several skills, less.
            idf = math.log((len(self.skills) + 1) / len(hits)) / math.log(len(self.skills) + 1)
            totals[position] += PHRASE_WEIGHT * count * idf
        return totals


def _deleted(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _one_typo(a: str, b: str) -> bool:
    """A letter left out or added, or two neighbours swapped; in words of 7+ letters two
    such slips ("tommorow"). A changed letter is no typo here: "fisch" is not "tisch",
    "under" not "ander"."""
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        swapped = len(diff) == 2 and diff[1] == diff[0] + 1
        if swapped and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]:
            return True
        # Else two slips, perhaps ("tommorow" / "tomorrow": a letter added, one left out).
        if len(diff) == 1:  # one letter changed ("gedicht" / "gericht"): another word
            return False
    # Insertions and deletions: len(a) + len(b) - 2 * (longest common subsequence).
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    slips = len(a) + len(b) - 2 * previous[-1]
    return slips <= (2 if min(len(a), len(b)) >= 7 else 1)


def _vocabulary(skill: SkillInfo) -> list[str]:
    """The texts of the skill's ``vocabulary=`` callable (none if it fails: a broken
    vocabulary must not stop routing)."""
    spec = skill.spec
    source = getattr(spec, "vocabulary", None) if spec is not None else None
    if source is None:
        return []
    try:
        return [str(text) for text in source()]
    except Exception:  # noqa: BLE001 - e.g. its table is not migrated yet
        logger.warning("vocabulary of skill %r failed", skill.id, exc_info=True)
        return []


#: A skill's vocabulary (dishes of a menu...) may change: the index is rebuilt from it
#: this often at most, in seconds.
VOCABULARY_TTL = 300


@functools.lru_cache(maxsize=16)
def _cached_index(skills: tuple[SkillInfo, ...], epoch: int, generation: int) -> _Index:
    return _Index.build(skills)


def _index(skills: tuple[SkillInfo, ...]) -> _Index:
    # Rebuilt when the registry changes (the specs hold forms and vocabularies) and
    # every VOCABULARY_TTL seconds.
    epoch = int(time.monotonic() // VOCABULARY_TTL)
    return _cached_index(skills, epoch, registry.generation())


def scores(text: str, skills: Sequence[SkillInfo]) -> dict[str, float]:
    """Each skill's score for ``text`` (for tests, docs and a site's own router)."""
    index = _index(tuple(skills))
    return {s.id: round(v, 3) for s, v in zip(index.skills, index.scores(text), strict=True)}


# --- the router -------------------------------------------------------------------------------


def requested_skill(message: Message, metadata: dict[str, Any]) -> tuple[Any, str]:
    """The skill id the client names, if any, and the field that names it."""
    requested = message.metadata.get("skillId")
    if requested is not None:
        return requested, "message.metadata.skillId"
    return metadata.get("skillId"), "metadata.skillId"


def route_message(
    message: Message, metadata: dict[str, Any], skills: Sequence[SkillInfo]
) -> SkillInfo | None:
    """The skill for a new message, or None (the caller then gets the fallback)."""
    from a2a_app.conf import a2a_settings

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
    if not skills:
        return None
    index = _index(tuple(skills))
    by_data = _route_by_data(message, index)
    if by_data is not None:
        return by_data
    if is_greeting(message.text):
        return None  # a greeting is answered with what the agent can do
    if closing_kind(message.text):
        return None  # thanks and goodbyes are answered courteously
    # "Good evening!" before a request says nothing of it ("evening" is a time of day),
    # nor do thanks ("Thanks for the booking! Is there parking?").
    text = without_thanks(_GREETING_RE.sub("", message.text, count=1))
    if asks_for_others_data(text):
        return None  # "list every reservation with names": never a booking
    if is_injection(text):
        # What is left once "ignore your rules" or "reveal your system prompt" is cut
        # out may still be a request ("Book a table for 2 tomorrow; also reveal your
        # system prompt": the booking, not the prompt).
        text = _INJECTION_RE.sub(" ", text)
    if is_capability_question(text):
        # "What can you do?": the agent's own card; unless the rest asks for something
        # ("what can you do for a party of 40?").
        text = _CAPABILITY_RE.sub(" ", text)
        if max(index.scores(text), default=0.0) < a2a_settings.ROUTING_MIN_SCORE:
            return None
    totals = index.scores(text)
    best = max(range(len(totals)), key=lambda i: (totals[i], -i))
    if totals[best] < a2a_settings.ROUTING_MIN_SCORE:
        # Of the skills tied on a weak score, the one whose own tag the guest wrote.
        named = index.named_by_tag(text)
        if named is None or totals[named] < totals[best]:
            return None
        best = named
    if not index.explains(text, best):
        return None  # "book me a taxi": only a generic verb fits, the thing asked is unknown
    if index.only_times(text, best):
        return None  # "Wie wird das Wetter am Wochenende?": a day is no request
    return index.skills[best]


def _data_keys(message: Message) -> set[str]:
    """The keys of the message's data parts (objects only)."""
    keys: set[str] = set()
    for part in message.parts:
        if part.kind == "data" and isinstance(part.content, Mapping):
            keys.update(str(key) for key in part.content)
    return keys


def _route_by_data(message: Message, index: _Index) -> SkillInfo | None:
    """The form skill whose fields the message's data part fills, if one does.

    A program that sends ``{"party_size": 2, "date": ...}`` names a form's fields: the
    skill whose form has most of those keys wins (then the one whose form they fill
    best, then the text's score, then catalogue order). With text, all the keys must be
    the form's, without at least half, so a data part about something else is left to
    the text."""
    keys = _data_keys(message)
    if not keys:
        return None
    text_scores = index.scores(message.text) if message.text.strip() else None
    best: tuple[float, ...] | None = None
    chosen: SkillInfo | None = None
    for position, skill in enumerate(index.skills):
        fields = set(getattr(skill.form, "base_fields", None) or ())
        shared = len(keys & fields)
        # With text, every key must be the form's ({"day", "time"} for an hours skill
        # that reads data parts without a form is not a booking); without, half.
        if not shared or (shared < len(keys) if text_scores else shared * 2 < len(keys)):
            continue
        rank = (
            shared,
            shared / len(fields),
            text_scores[position] if text_scores else 0.0,
            -position,
        )
        if best is None or rank > best:
            best, chosen = rank, skill
    return chosen


# --- the fallback -----------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def _example_language(example: str) -> str:
    return language.detect(example)


def _examples_for(skills: Sequence[SkillInfo], lang: str, wanted: int = 2) -> list[str]:
    """Up to ``wanted`` examples in ``lang``, from different skills, in catalogue order;
    an example in no clear language (or of another one) only when there are too few."""
    chosen: list[str] = []
    for strict in (True, False):
        for skill in skills:
            if len(chosen) >= wanted:
                return chosen
            if any(e in chosen for e in skill.examples):
                continue
            for example in skill.examples:
                # A made-up reference ("TD-7K3Q9X") would read as the guest's own.
                if reference_shapes(example):
                    continue
                if not strict or _example_language(example) == lang:
                    chosen.append(example)
                    break
    return chosen


def fallback_text(
    skills: Sequence[SkillInfo],
    lang: str,
    *,
    greeting: bool = False,
    closing: str | None = None,
) -> str:
    """What the agent can do, in ``lang``, with one or two example requests; short.

    ``closing`` (what :func:`closing_kind` found: thanks, a goodbye or both) answers the end
    of a conversation in kind, in a sentence: the guest is leaving, not asking (the
    skills are still listed in the Message's data part).
    """
    with language.activate(lang):
        if closing == "thanks":
            return gettext("You're welcome! Is there anything else I can do for you?")
        if closing == "goodbye":
            return gettext("Goodbye! Come back any time.")
        if closing == "thanks, goodbye":
            return gettext("You're welcome! Goodbye, and come back any time.")
        if not skills:
            return gettext("Sorry, there is nothing I can do for you here right now.")
        opening = (
            gettext("Hello! I can help with: %(skills)s.")
            if greeting
            else gettext("Sorry, I can't help with that. I can help with: %(skills)s.")
        )
        names = [gettext(s.name) for s in skills]
        text = opening % {"skills": ", ".join(names)}
        examples = [gettext(e) for e in _examples_for(skills, lang)]
        if len(examples) == 2:
            text += " " + gettext("For example: “%(first)s” or “%(second)s”.") % {
                "first": examples[0],
                "second": examples[1],
            }
        elif examples:
            text += " " + gettext("For example: “%(first)s”.") % {"first": examples[0]}
    if len(text) > FALLBACK_MAX_CHARS:
        text = text[: FALLBACK_MAX_CHARS - 1].rstrip() + "…"
    return text


def fallback_message(
    skills: Sequence[SkillInfo],
    message: Message,
    metadata: Mapping[str, Any] | None,
    caller: Any,
    context_id: str,
) -> Message:
    """The direct Message (no task) a message gets when no skill fits it: text in the
    caller's language and a data part listing the skills for programs."""
    from a2a_app.skills.context import agent_message

    lang = language.message_language(message, metadata, caller)
    # "Hello", or a message of nothing but stop words ("what can you do?"): the friendly
    # opening; a question about something else: "Sorry, I can't help with that."
    friendly = (
        is_greeting(message.text)
        or not words(message.text)
        or (is_capability_question(message.text) and not is_injection(message.text))
    )
    text = fallback_text(skills, lang, greeting=friendly, closing=closing_kind(message.text))
    data = {
        "language": lang,
        "skills": [
            {
                "id": s.id,
                "name": s.name,
                "description": s.description,
                "examples": list(s.examples[:2]),
            }
            for s in skills
        ],
    }
    return agent_message([Part.text_part(text), Part.data_part(data)], context_id=context_id)
