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
    _Index,
    _one_typo,
    _separable,
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
