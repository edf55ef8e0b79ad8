"""The bench's judging: a case measured next to its reference, ratios paired by round."""

from __future__ import annotations

import argparse

import pytest

from bench.cases import CASES, measuring_order, round_order
from bench.config import REPORT
from bench.report import Measurement, compared_pairs, paired_ratio
from bench.run import default_report


def test_every_compared_pair_is_measured_within_a_few_slices_of_each_other() -> None:
    names = [case.name for case in CASES]
    order = measuring_order(names, compared_pairs())
    assert sorted(order) == sorted(names)
    position = {name: i for i, name in enumerate(order)}
    distances = {(case, ref): abs(position[case] - position[ref]) for case, ref in compared_pairs()}
    assert max(distances.values()) <= 4, distances
    # The lines that decided verdicts, next to each other.
    assert distances["send", "bare-insert"] == 1
    assert distances["send", "sdk-send"] == 1
    assert distances["card", "bare-json"] == 1


def test_cases_without_partners_keep_their_order() -> None:
    order = measuring_order(["a", "b", "c", "d", "e"], [("d", "a"), ("x", "b")])
    assert order == ["a", "d", "b", "c", "e"]


def measured(case: str, rounds: list[float]) -> Measurement:
    m = Measurement(case, "uvicorn", requests=int(sum(rounds)), duration_s=len(rounds))
    m.rps, m.rounds_rps = m.requests / m.duration_s, rounds
    return m


def test_a_slow_moment_that_caught_one_side_of_one_round_does_not_decide() -> None:
    # The case runs at 60 % of its reference; in round 2 the machine slowed down while
    # the case ran and was fast again for its reference.
    case = measured("send", [600, 150, 600])
    reference = measured("bare-insert", [1000, 1000, 1000])
    assert case.rps / reference.rps == pytest.approx(0.45)  # the totals' verdict
    assert paired_ratio(case, reference) == pytest.approx(0.6)
    # A slow round that caught both sides changes nothing.
    assert paired_ratio(case, measured("bare-insert", [1000, 250, 1000])) == pytest.approx(0.6)


def test_unequal_rounds_fall_back_to_the_totals() -> None:
    case = measured("send", [600, 600])
    reference = measured("bare-insert", [1000, 1000, 1000])
    assert paired_ratio(case, reference) == pytest.approx(0.6)
    assert paired_ratio(measured("send", [500]), measured("bare-insert", [1000])) == 0.5


@pytest.mark.parametrize(
    ("options", "report"),
    [
        ({}, str(REPORT)),
        ({"cases": "send,card"}, "-"),
        ({"servers": "uvicorn"}, "-"),
        ({"smoke": True}, None),
    ],
)
def test_only_a_run_of_everything_writes_the_committed_report(options, report) -> None:
    args = argparse.Namespace(**{"smoke": False, "cases": None, "servers": None, **options})
    assert default_report(args) == report


def test_every_other_round_measures_each_pair_the_other_way_round() -> None:
    order = measuring_order([case.name for case in CASES], compared_pairs())
    first, second = round_order(order, 0), round_order(order, 1)
    assert first == order and round_order(order, 2) == order
    assert sorted(second) == sorted(order)
    for case, reference in compared_pairs():
        before_in_first = first.index(case) < first.index(reference)
        assert before_in_first != (second.index(case) < second.index(reference))
