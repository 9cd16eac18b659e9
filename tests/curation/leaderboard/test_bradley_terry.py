"""The Bradley–Terry leaderboard as plain computation: known rankings, FastChat's method, position, ties."""

import numpy as np
import pandas as pd
import pytest

from curation.leaderboard.bradley_terry import (
    FEW_COMPARISONS,
    TIE,
    WIN_A,
    WIN_B,
    comparisons_from_names,
    leaderboard,
)
from tests.curation.leaderboard.fastchat_reference import compute_bt

TRUE_STRENGTH = {"atlas": 1.4, "borealis": 0.7, "cirrus": 0.2, "dune": -0.3, "ember": -0.8, "fjord": -1.2}


def simulated(*, ratings_per_pair: int = 3, pairs: int = 1500, left_pull: float = 0.0, tie_rate: float = 0.1,
              seed: int = 7) -> dict:
    """Ratings drawn from a Bradley–Terry model with known strengths (natural log-odds) and a left-side pull."""
    rng = np.random.default_rng(seed)
    names = list(TRUE_STRENGTH)
    out = {"model_a": [], "model_b": [], "outcome": [], "left": [], "pair": []}
    for p in range(pairs):
        a, b = rng.choice(len(names), 2, replace=False)
        for _ in range(ratings_per_pair):
            left = int(rng.choice([1, -1]))
            z = TRUE_STRENGTH[names[a]] - TRUE_STRENGTH[names[b]] + left_pull * left
            p_a = 1 / (1 + np.exp(-z))
            u = rng.random()
            outcome = TIE if u < tie_rate else (WIN_A if rng.random() < p_a else WIN_B)
            for key, value in (("model_a", names[a]), ("model_b", names[b]), ("outcome", outcome), ("left", left),
                               ("pair", p)):
                out[key].append(value)
    return out


def test_simulated_preferences_recover_the_known_ranking_with_intervals_covering_the_truth():
    """Strengths drawn from a known order (no ties) come back in that order; each 95% interval holds the true rating."""
    board = leaderboard(comparisons_from_names(**simulated(tie_rate=0.0)), bootstrap=200, seed=1)
    assert board.models == list(TRUE_STRENGTH)
    true_elo = {name: 400 * s / np.log(10) for name, s in TRUE_STRENGTH.items()}
    shift = np.mean(list(true_elo.values()))
    for name, (low, high) in zip(board.models, board.rating_ci95, strict=True):
        assert low < 1000 + true_elo[name] - shift < high, name
    assert sum(board.comparisons) == 2 * board.total_comparisons == 2 * 4500


def test_the_fit_equals_fastchats_published_bradley_terry_on_a_fixed_input():
    """Without the position term, our ratings equal FastChat's compute_bt (scipy L-BFGS) on the same battles."""
    battles = [
        ("gpt", "llama", "model_a", 30), ("gpt", "llama", "model_b", 12), ("gpt", "llama", "tie", 8),
        ("llama", "mistral", "model_a", 21), ("llama", "mistral", "model_b", 17), ("llama", "mistral", "tie", 5),
        ("mistral", "gpt", "model_a", 6), ("mistral", "gpt", "model_b", 25), ("mistral", "gpt", "tie", 4),
        ("qwen", "gpt", "model_a", 9), ("qwen", "llama", "model_b", 11), ("qwen", "mistral", "tie", 7),
        ("mistral", "qwen", "model_a", 10), ("llama", "qwen", "model_b", 3),
    ]
    rows = [(a, b, w) for a, b, w, n in battles for _ in range(n)]
    frame = pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])
    reference = compute_bt(frame, tol=1e-10)
    outcome = {"model_a": WIN_A, "model_b": WIN_B, "tie": TIE}
    board = leaderboard(comparisons_from_names(model_a=list(frame.model_a), model_b=list(frame.model_b),
                                               outcome=[outcome[w] for w in frame.winner]),
                        bootstrap=0, position=False, ties="half")
    ours = dict(zip(board.models, board.rating, strict=True))
    centred = reference - reference.mean() + 1000
    assert board.models == list(reference.index)
    for name, rating in centred.items():
        assert ours[name] == pytest.approx(rating, abs=0.01), name


def test_position_control_does_not_credit_a_model_for_being_shown_on_the_left():
    """Two equal models, one shown left far more often, raters pulled to the left: controlled ratings stay equal."""
    rng = np.random.default_rng(3)
    data = {"model_a": [], "model_b": [], "outcome": [], "left": [], "pair": []}
    for p in range(4000):
        left = 1 if rng.random() < 0.85 else -1
        outcome = WIN_A if rng.random() < 1 / (1 + np.exp(-0.8 * left)) else WIN_B
        for key, value in (("model_a", "lefty"), ("model_b", "righty"), ("outcome", outcome), ("left", left), ("pair", p)):
            data[key].append(value)
    comparisons = comparisons_from_names(**data)
    naive = leaderboard(comparisons, bootstrap=0, position=False)
    controlled = leaderboard(comparisons, bootstrap=100, position=True)
    assert naive.rating[0] - naive.rating[1] > 80
    low, high = controlled.rating_ci95[0]
    assert low < 1000 < high
    assert controlled.left_advantage == pytest.approx(400 * 0.8 / np.log(10), rel=0.15)
    assert controlled.left_advantage_ci95[0] > 0


def test_a_tie_counts_as_half_a_win_for_each_side():
    """One win each way and two ties: equal ratings, each model scores one half, the win rate is one half."""
    board = leaderboard(comparisons_from_names(model_a=["x", "x", "y", "y"], model_b=["y", "y", "x", "x"],
                                               outcome=[WIN_A, TIE, WIN_A, TIE]), bootstrap=20, ties="half")
    assert board.rating == pytest.approx([1000, 1000], abs=1e-3)
    assert board.win_rate[0][1] == pytest.approx(0.5)
    assert board.as_dict()["models"][0]["score"] == pytest.approx(0.5)
    assert board.pair_comparisons == [[0, 4], [4, 0]]


def test_the_win_rate_matrix_and_counts_follow_the_rating_order():
    """Row beats column: the win rate of the stronger model over the weaker is above one half, and its mirror below."""
    board = leaderboard(comparisons_from_names(**simulated(pairs=400)), bootstrap=30)
    first, last = 0, len(board.models) - 1
    assert board.win_rate[first][last] > 0.5 > board.win_rate[last][first]
    assert board.win_rate[first][last] + board.win_rate[last][first] == pytest.approx(1.0)
    assert board.pair_comparisons[first][last] == board.pair_comparisons[last][first] > 0
    low, high = board.win_rate_ci95[first][last]
    assert low <= board.win_rate[first][last] <= high
    assert board.win_rate[first][first] is None


def test_self_matches_are_left_out_and_one_model_gives_no_leaderboard():
    """A response rated against its own model says nothing: it is not a comparison, and one model is not a ranking."""
    assert leaderboard(comparisons_from_names(model_a=["x", "x"], model_b=["x", "x"], outcome=[WIN_A, TIE])) is None
    comparisons = comparisons_from_names(model_a=["x", "x", "y"], model_b=["x", "y", "x"], outcome=[WIN_A, WIN_A, TIE])
    assert len(comparisons) == 2


def test_a_model_that_won_every_comparison_is_flagged_as_having_no_finite_rating():
    """Perfect separation has no maximum-likelihood rating: the board says so rather than print a number silently."""
    board = leaderboard(comparisons_from_names(model_a=["x", "x", "y", "z"], model_b=["y", "z", "z", "y"],
                                               outcome=[WIN_A, WIN_A, WIN_A, WIN_B]), bootstrap=10)
    assert board.models[0] == "x"
    assert any(note.startswith("x, z won or lost every comparison") for note in board.notes)


def test_ratings_without_known_sides_are_fitted_without_the_position_term_and_say_so():
    """Imported ratings do not know which side was shown left: the fit is plain Bradley–Terry, named as such."""
    board = leaderboard(comparisons_from_names(model_a=["x", "y", "x"], model_b=["y", "x", "y"],
                                               outcome=[WIN_A, WIN_A, WIN_A]), bootstrap=10)
    assert board.left_advantage_ci95 is None
    assert any("not position-controlled" in note for note in board.notes)


def test_models_with_few_comparisons_are_flagged_and_well_compared_ones_are_not():
    """Four ratings give intervals hundreds of points wide: the board says which models rest on too little data."""
    tiny = leaderboard(comparisons_from_names(model_a=["x", "y", "x", "y"], model_b=["y", "x", "y", "x"],
                                              outcome=[WIN_A, WIN_A, TIE, WIN_B]), bootstrap=20)
    assert any(note.startswith(f"x, y: fewer than {FEW_COMPARISONS} comparisons") for note in tiny.notes)
    plenty = leaderboard(comparisons_from_names(**simulated(pairs=400)), bootstrap=20)
    assert not any("fewer than" in note for note in plenty.notes)


def test_models_never_compared_with_the_ranked_ones_are_listed_apart_not_ranked():
    """Comparisons only inside {x1, x2} and inside {y1, y2}: y1 was shown at 1190.8 above x1 at 1030.4, an order
    the centring and the optimiser made. The larger component is ranked; the other is listed apart."""
    a = ["x1"] * 30 + ["x2"] * 30 + ["y1"] * 12 + ["y2"] * 8
    b = ["x2"] * 30 + ["x1"] * 30 + ["y2"] * 12 + ["y1"] * 8
    outcome = [WIN_A] * 20 + [WIN_B] * 10 + [WIN_A] * 25 + [WIN_B] * 5 + [WIN_A] * 10 + [TIE] * 2 + [WIN_B] * 8
    board = leaderboard(comparisons_from_names(model_a=a, model_b=b, outcome=outcome, left=[1, -1] * 40),
                        bootstrap=20)
    assert sorted(board.models) == ["x1", "x2"] and board.total_comparisons == 60
    apart = {entry["model"]: entry for entry in board.apart}
    assert set(apart) == {"y1", "y2"}
    assert apart["y1"]["compared_with"] == ["y2"] and apart["y1"]["comparisons"] == 20
    assert apart["y1"]["score"] == pytest.approx((10 + 1 + 8) / 20)
    assert any(note.startswith("y1, y2: never compared with the ranked models") for note in board.notes)
    assert "rating" not in apart["y1"]


def test_the_method_text_says_what_the_fit_did():
    """The method read "position-controlled (a left-side term)" even where the fit had no left-side term."""
    known = leaderboard(comparisons_from_names(**simulated(pairs=200)), bootstrap=5)
    assert known.position_controlled and "position-controlled (a left-side term" in known.method
    unknown = leaderboard(comparisons_from_names(model_a=["x", "y", "x"], model_b=["y", "x", "y"],
                                                 outcome=[WIN_A, WIN_A, WIN_B]), bootstrap=5)
    assert not unknown.position_controlled
    assert "not position-controlled" in unknown.method and "a left-side term" not in unknown.method
    assert unknown.as_dict()["position_controlled"] is False


def test_the_fit_reports_its_progress_after_the_point_fit_and_each_resample_and_can_be_stopped():
    data = comparisons_from_names(model_a=["x", "x", "y", "y"], model_b=["y", "y", "x", "x"],
                                  outcome=[WIN_A, TIE, WIN_A, WIN_B])
    heard = []
    board = leaderboard(data, bootstrap=5, progress=lambda done, total: heard.append((done, total)))
    assert heard == [(1, 6), (2, 6), (3, 6), (4, 6), (5, 6), (6, 6)]
    assert board.as_dict() == leaderboard(data, bootstrap=5).as_dict()

    class Stop(Exception):
        pass

    def stop_at_three(done: int, total: int) -> None:
        if done == 3:
            raise Stop

    with pytest.raises(Stop):
        leaderboard(data, bootstrap=5, progress=stop_at_three)


def test_ties_as_half_wins_shrink_the_ratings_and_davidsons_model_does_not():
    """With 30 % ties independent of strength, half wins pull every rating towards the mean (the extremes' intervals
    missed the truth); Davidson's model, the default where ratings hold ties, recovers the strengths."""
    data = comparisons_from_names(**simulated(pairs=3000, ratings_per_pair=1, tie_rate=0.3, seed=11))
    truth = np.array(list(TRUE_STRENGTH.values()))
    truth = 1000 + 400 * (truth - truth.mean()) / np.log(10)
    expected = dict(zip(TRUE_STRENGTH, truth, strict=True))
    error = {}
    for ties in ("half", "davidson"):
        board = leaderboard(data, bootstrap=0, ties=ties)
        error[ties] = max(abs(r - expected[name]) for name, r in zip(board.models, board.rating, strict=True))
    assert error["davidson"] < 35 < error["half"], error
    default = leaderboard(data, bootstrap=20)
    assert default.ties == "davidson" and "Davidson's tie model" in default.method
    assert 0 < default.tie_rate_parameter
    assert leaderboard(comparisons_from_names(**simulated(pairs=200, tie_rate=0.0)), bootstrap=0).ties == "half"


def test_simultaneous_intervals_cover_every_model_at_once_and_the_board_says_which_is_which():
    board = leaderboard(comparisons_from_names(**simulated(pairs=400)), bootstrap=60)
    for single, joint in zip(board.rating_ci95, board.rating_ci_simultaneous, strict=True):
        assert joint[0] <= single[0] and single[1] <= joint[1]
    described = board.as_dict()
    assert described["intervals"]["simultaneous"].startswith("95% for all 6 models at once (Bonferroni")
    assert "simultaneous 95% intervals (Bonferroni over the 6 models)" in board.method
    assert described["models"][0]["rating_ci_simultaneous"] == board.rating_ci_simultaneous[0]
