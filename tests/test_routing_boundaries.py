"""The edges of the router's word matching: how short a word may be to be stemmed, to
match by its beginning, to be forgiven a typo; each at the length where it starts."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_app.skills.catalogue import SkillInfo
from a2a_app.skills.routing import (
    EXAMPLE_WEIGHT,
    NAME_WEIGHT,
    TYPO_FACTOR,
    _examples_for,
    _form_words,
    _Index,
    _is_temporal,
    _is_weak,
    _object_of_generic_verb,
    _one_typo,
    _separable,
    fallback_text,
    scores,
    stem,
    words,
)


def info(skill_id: str, **values: Any) -> SkillInfo:
    values.setdefault("name", skill_id)
    return SkillInfo(
        id=skill_id,
        handler_key=skill_id,
        description="",
        tags=tuple(values.pop("tags", ())),
        examples=tuple(values.pop("examples", ())),
        input_modes=(),
        output_modes=(),
        access="public",
        **values,
    )


class TestStem:
    @pytest.mark.parametrize(
        ("word", "stemmed"),
        [
            ("parties", "party"),  # 7 letters: -ies is -y
            ("babies", "baby"),  # 6 letters: the shortest -ies made -y
            ("pies", "pies"),  # 4 letters: not "py", and -s would leave 3
            ("lies", "lies"),
            ("tables", "tabl"),  # -es, 4 letters left
            ("dates", "date"),  # -es would leave 3: the plain -s goes
            ("menus", "menu"),  # -s, 4 letters left
            ("bus", "bus"),  # -s would leave 2
            ("bookings", "book"),  # -ings, 4 letters left
            ("things", "thing"),  # -ings would leave 2; -s leaves 5
            ("reservierungen", "reserv"),  # the longest ending first
            ("reservierung", "reserv"),
            ("essen", "esse"),  # -en would leave 3; -n leaves 4
            ("gehen", "gehe"),
            ("tisch", "tisch"),
            ("kochen", "koch"),  # -en, 4 letters left
        ],
    )
    def test_endings_leave_at_least_four_letters(self, word, stemmed):
        assert stem(word) == stemmed


class TestWords:
    def test_one_letter_words_say_nothing(self):
        assert words("x y table") == {"tabl"}
        assert words("xy") == {"xy"}

    @pytest.mark.parametrize(
        ("tokens", "joined"),
        [
            (["habt", "ihr", "auf"], ["aufhabt"]),  # three words: the shortest sentence
            (["habt", "auf"], []),
            (["wann", "macht", "ihr", "zu"], ["zumacht"]),
            # The finite verb comes among the first four words.
            (["heute", "abend", "noch", "habt", "ihr", "auf"], ["aufhabt"]),
            (["heute", "abend", "noch", "lange", "habt", "auf"], []),
            (["habt", "ihr", "offen"], []),
        ],
    )
    def test_separable_verbs(self, tokens, joined):
        assert _separable(tokens) == joined


class TestTypos:
    @pytest.mark.parametrize(
        ("a", "b", "typo"),
        [
            ("tabel", "table", True),  # two neighbours swapped
            ("tbale", "table", True),
            ("tabel", "tbale", False),  # a swap and more
            ("fisch", "tisch", False),  # a changed letter is another word
            ("menue", "menu", True),  # one letter added
            ("reservaton", "reservation", True),  # one left out
            ("tomorow", "tomorrow", True),
            ("tommorow", "tomorrow", True),  # two slips in a word of 7+ letters
            ("reservaiton", "reservation", True),
            ("tommorw", "tomorrow", False),  # three slips
            ("bookinggg", "booking", True),  # the shorter has 7 letters: two slips
            ("bookin", "bookingg", False),  # the shorter has 6: one
            ("bookin", "booking", True),
            ("bokking", "booking", False),  # a changed letter
            ("tabl", "tablexx", False),  # three slips
            ("menuxx", "menu", False),  # two slips in words shorter than 7
            ("taable", "tabl", False),
            ("tisch", "fisch1", False),  # a letter changed and one added
            ("table", "ablet", False),  # a letter moved from the front to the end
        ],
    )
    def test_one_typo(self, a, b, typo):
        assert _one_typo(a, b) is typo
        assert _one_typo(b, a) is typo


class TestIndex:
    @pytest.fixture
    def index(self) -> _Index:
        return _Index.build(
            (
                info("book_table", name="Table", tags=["reservation"], examples=["gluten"]),
                info("menu", name="Menu", tags=["dish"]),
            )
        )

    def test_prefixes_start_at_five_letters(self, index):
        assert "reser" in index.prefixes
        assert "rese" not in index.prefixes
        # The whole word is in the exact table, not among its own prefixes.
        assert "reservation" not in index.prefixes
        assert index.prefixes["reservatio"] == ("reservation",)

    def test_a_word_matches_a_longer_one_from_five_letters(self, index):
        assert index.matches("reser") == {0: NAME_WEIGHT}
        assert index.matches("rese") == {}

    def test_a_longer_word_matches_a_known_beginning_of_five_letters(self, index):
        assert index.matches("glutenfrei") == {0: EXAMPLE_WEIGHT}  # "glute", "gluten"
        # "dish" is four letters: "dishes" finds it only through the stem.
        assert index.matches("dishwasher") == {}
        assert index.found("dishes") == {1: NAME_WEIGHT}

    def test_typo_deletions_are_kept_for_words_of_five_letters(self, index):
        assert "tble" in index.deletions  # "table" less a letter
        assert "mnu" not in index.deletions  # "menu" is too short for typos

    def test_typos_are_forgiven_from_five_letters(self, index):
        assert index.misspelt("tabel") == {0: NAME_WEIGHT * TYPO_FACTOR}
        assert index.misspelt("mneu") == {}
        assert index.found("mneu") == {}

    def test_the_best_weight_of_a_word_wins(self):
        index = _Index.build((info("menu", name="Menu", examples=["menu of the day"]),))
        assert index.matches("menu") == {0: NAME_WEIGHT}
        # A typed word of 5 letters may be a typo of a known word of 4.
        assert index.misspelt("meenu") == {0: NAME_WEIGHT * TYPO_FACTOR}


class TestGenericVerbObjects:
    """What a generic verb asks for, by where the verb stands around the article."""

    @pytest.mark.parametrize(
        ("text", "thing", "is_object"),
        [
            ("book a taxi", "taxi", True),  # the verb right before the article
            ("book me a taxi", "taxi", True),  # a pronoun between
            ("please book us a taxi", "taxi", True),
            ("book for me a taxi", "taxi", False),  # the verb three words back
            ("me a taxi", "taxi", False),  # a pronoun, no verb
            ("a taxi", "taxi", False),
            ("ein hotelzimmer buchen", "hotelzimmer", True),  # German: the verb after
            ("ein hotelzimmer heute buchen", "hotelzimmer", False),  # not right after
            ("ein hotelzimmer", "hotelzimmer", False),
            ("a taxi book", "taxi", True),
            ("find them the hotel", "hotel", True),
        ],
    )
    def test_object_of_a_generic_verb(self, text, thing, is_object):
        tokens = text.split()
        assert _object_of_generic_verb(tokens, tokens.index(thing)) is is_object


class TestTemporalWords:
    @pytest.mark.parametrize(
        ("word", "temporal"),
        [
            ("saturday", True),
            ("saturdays", True),  # the plural
            ("samstags", True),
            ("ssaturday", False),
            ("am", True),  # a preposition of a time
            ("ams", False),
            ("uhr", True),
            ("table", False),
            ("s", False),
        ],
    )
    def test_is_temporal(self, word, temporal):
        assert _is_temporal(word) is temporal


class TestFormWords:
    def test_names_labels_and_choices_in_each_language(self, settings):
        from django import forms

        class Booking(forms.Form):
            guest_count = forms.IntegerField()
            seating_area = forms.ChoiceField(
                label="Where to sit",
                choices=[("in", "Inside"), ("Outdoors", [("garden", "Garden"), ("roof", "Roof")])],
            )

        settings.LANGUAGES = [("en", "English")]
        settings.LANGUAGE_CODE = "en"
        assert _form_words(Booking) == [
            "guest count",
            "Guest count",
            "seating area",
            "Where to sit",
            "Inside",
            "Garden",
            "Roof",
        ]

    def test_a_date_field_brings_the_words_of_a_time(self, settings):
        from django import forms

        class When(forms.Form):
            day = forms.DateField(label="Day")

        settings.LANGUAGES = [("en", "English")]
        settings.LANGUAGE_CODE = "en"
        texts = _form_words(When)
        assert texts[0].split()[:3] == ["today", "tonight", "tomorrow"]
        assert texts[1:] == ["day", "Day"]

    def test_labels_are_read_in_each_site_language(self, settings):
        from django import forms
        from django.utils import translation
        from django.utils.functional import lazy

        class Greeting(forms.Form):
            # A label that says which language it is read in.
            hello = forms.CharField(label=lazy(translation.get_language, str)())

        settings.LANGUAGES = [("en", "English"), ("de", "Deutsch")]
        settings.LANGUAGE_CODE = "en"
        assert _form_words(Greeting) == ["hello", "en", "hello", "de"]

    def test_no_form_fields_no_words(self):
        assert _form_words(object()) == []


def test_scores_are_rounded_to_three_places():
    # "table" is in two of four skills: its weight log(5/2)/log(5) = 0.5693...
    skills = [info("a", name="Table"), info("b", name="Big table"), info("c"), info("d")]
    assert scores("table", skills) == {"a": 0.569, "b": 0.569, "c": 0.0, "d": 0.0}


class TestFallbackText:
    """The whole text of the fallback, not only its parts: a guest reads all of it."""

    def test_no_skills(self):
        assert fallback_text([], "en") == (
            "Sorry, there is nothing I can do for you here right now."
        )

    def test_two_skills_two_examples(self):
        skills = [
            info("a", name="Book a table", examples=["A table for two tonight"]),
            info("b", name="Menu", examples=["What is on the menu?"]),
        ]
        assert fallback_text(skills, "en") == (
            "Sorry, I can't help with that. I can help with: Book a table, Menu. "
            "For example: “A table for two tonight” or “What is on the menu?”."
        )
        assert fallback_text(skills, "en", greeting=True).startswith(
            "Hello! I can help with: Book a table, Menu. For example: "
        )

    def test_one_example(self):
        skills = [
            info("a", name="Menu", examples=["What is on the menu?"]),
            info("b", name="Hours"),
        ]
        assert fallback_text(skills, "en") == (
            "Sorry, I can't help with that. I can help with: Menu, Hours. "
            "For example: “What is on the menu?”."
        )

    def test_examples_come_from_different_skills_and_skip_references(self):
        skills = [
            info("a", name="Change", examples=["Change booking TD-7K3Q9X", "Move my booking"]),
            info("b", name="Also", examples=["Move my booking"]),  # the same example again
            info("c", name="Menu", examples=["What is on the menu?", "Vegan dishes?"]),
        ]
        assert _examples_for(skills, "en") == ["Move my booking", "What is on the menu?"]


class TestWeakWords:
    @pytest.mark.parametrize(
        ("word", "weak"),
        [("book", True), ("books", True), ("saturdays", True), ("sbook", False), ("taxi", False)],
    )
    def test_generic_verbs_and_days_are_weak(self, word, weak):
        assert _is_weak(word) is weak
