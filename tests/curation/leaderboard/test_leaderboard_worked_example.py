"""docs/leaderboard.md's worked example, by hand and by the fit: Bradley–Terry, Davidson's ties, ties as half wins."""

import math

import pytest

from curation.leaderboard.bradley_terry import comparisons_from_names, leaderboard


def board(outcomes: list[float], **options):
    n = len(outcomes)
    comparisons = comparisons_from_names(model_a=["x"] * n, model_b=["y"] * n, outcome=outcomes, left=[0] * n,
                                         pair=list(range(n)))
    return leaderboard(comparisons, bootstrap=0, seed=0, **options)


def elo_pair(odds: float) -> list[float]:
    difference = 400 * math.log10(odds)
    return [1000 + difference / 2, 1000 - difference / 2]


def test_three_wins_to_one_is_190_8_points():
    fitted = board([1, 1, 1, 0])
    assert fitted.models == ["x", "y"] and fitted.ties == "half"  # no tie: the two models coincide
    assert fitted.rating == pytest.approx(elo_pair(3), abs=0.05)
    assert [round(r, 1) for r in fitted.rating] == [1095.4, 904.6]


def test_a_tie_davidsons_model_and_half_wins():
    davidson = board([1, 1, 0, 0.5])
    assert davidson.ties == "davidson"
    assert davidson.rating == pytest.approx(elo_pair(2), abs=0.05)
    assert [round(r, 1) for r in davidson.rating] == [1060.2, 939.8]
    assert davidson.tie_rate_parameter == pytest.approx(1 / math.sqrt(2), abs=1e-4)
    half = board([1, 1, 0, 0.5], ties="half")
    assert half.rating == pytest.approx(elo_pair(5 / 3), abs=0.05)
    assert [round(r, 1) for r in half.rating] == [1044.4, 955.6]
