"""English and German words guests use for numbers, days, months, yes and no."""

from __future__ import annotations

import re


def word_set(text: str) -> frozenset[str]:
    """A word set written as one string, for long lists that read better as prose."""
    return frozenset(text.split())


def alternation(words: object) -> str:
    """A regex alternation, longest first so "sechzehn" wins over "sechs"."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))  # type: ignore[arg-type]


NUMBER_WORDS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "couple": 2, "dozen": 12,
    "eins": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "fuenf": 5, "sechs": 6,
    "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12, "zwoelf": 12,
    "dreizehn": 13, "vierzehn": 14, "fünfzehn": 15, "sechzehn": 16, "siebzehn": 17,
    "achtzehn": 18, "neunzehn": 19, "zwanzig": 20, "dreißig": 30, "vierzig": 40,
    "fünfzig": 50,
}  # fmt: skip

#: "zu viert", "zu zweit": German counts of a group.
GROUP_WORDS: dict[str, int] = {
    "zweit": 2, "dritt": 3, "viert": 4, "fünft": 5, "fuenft": 5, "sechst": 6, "siebt": 7,
    "acht": 8, "neunt": 9, "zehnt": 10,
}  # fmt: skip

#: "ein", "eine", "one" are articles far more often than counts ("einen Tisch").
ARTICLES = word_set("a an ein eine einen einem one")

WEEKDAYS: dict[str, int] = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4,
    "saturday": 5, "sunday": 6,
    "montag": 0, "dienstag": 1, "mittwoch": 2, "donnerstag": 3, "freitag": 4,
    "samstag": 5, "sonnabend": 5, "sonntag": 6,
    # Short forms guests type; not "sun" ("a table in the sun").
    "mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4,
    "sat": 5,
}  # fmt: skip

MONTHS: dict[str, int] = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "sept": 9, "oct": 10, "nov": 11, "dec": 12,
    "januar": 1, "jänner": 1, "februar": 2, "märz": 3, "maerz": 3, "mai": 5, "juni": 6,
    "juli": 7, "oktober": 10, "okt": 10, "dezember": 12, "dez": 12,
}  # fmt: skip

YES = word_set(
    "yes yeah yep yup sure ok okay please certainly absolutely "
    "ja jawohl gerne gern klar genau bitte jo"
)
NO = word_set("no nope nah not never nein nee nö kein keine keinen nicht ohne without none")

#: Words that are never (part of) a name, whatever their case.
NOT_NAME = (
    word_set(
        "and und or oder my mein meine email e-mail mail phone telefon tel handy mobile at um on "
        "am for für with mit tomorrow morgen today heute tonight please bitte table tisch i ich we "
        "wir contact kontakt number nummer reach erreichbar party people personen persons guests "
        "gäste is ist it it's the a an der die das den dem thanks thank danke yes no ja nein ok "
        "okay sure gern gerne you sounds good fine great gut super what why how was wie warum "
        "hello hi hey hallo moin servus lunch dinner breakfast mittagessen abendessen frühstück "
        "evening morning afternoon night abend abends morgens nachmittag nachts next nächsten "
        "nächste kommenden coming this diesen yesterday gestern übermorgen reservation "
        "reservierung book buchen reserve reservieren booking would like möchte möchten gern "
        "need brauche brauchen name namen heiße heisse call me see then later soon bye ciao "
        "tschüss bis dann bald i'm im i’m team family familie same people's usual new year "
        "year's eve christmas xmas silvester weihnachten heiligabend ostern easter cheers "
        "sorry also actually perfect cool awesome thx danke tschau grüße gruß regards "
        # Greetings that open a message: "Guten Tag, ..." is no guest called Guten Tag.
        "guten tag good dear liebe lieber sehr geehrte geehrter damen herren grüß gott"
    )
    | frozenset(WEEKDAYS)
    | frozenset(MONTHS)
    | frozenset(NUMBER_WORDS)
)

#: Greetings and politeness that surround a bare answer ("Hi, it's Tom Lee, thanks!").
FILLER = word_set(
    "hi hello hey hallo moin servus guten tag good morning evening it's its it is name my "
    "is please bitte thanks thank you danke schön sure ok okay yes ja ist mein meine lautet "
    "this here hier"
)
