"""A reward model's scores scored as the field reports them (issue 30): accuracy without ties by RewardBench's rule,
and tie-calibrated accuracy (Deutsch, Foster and Freitag, 2023, "Ties Matter", as VideoGen-RewardBench reports it),
each checked against a brute force written from the paper's definition."""

import numpy as np
import pytest

from curation.releases.scoring import GoldPair, PredictionsError, parse_scores, score_scores, tie_calibration


def brute_force(delta, reference):
    """Every threshold the paper allows (0 and each |delta|), each pair called a tie at or below it and by the sign
    of delta above; the best agreement with the reference over all pairs. A pair without scores is never right."""
    best = (-1, None)
    for epsilon in sorted({0.0, *(abs(d) for d in delta if d is not None)}):
        right = sum(d is not None and (0 if abs(d) <= epsilon else (1 if d > 0 else -1)) == r
                    for d, r in zip(delta, reference, strict=True))
        if right > best[0]:
            best = (right, epsilon)
    return best[0] / len(delta), best[1]


@pytest.mark.parametrize("seed", range(40))
def test_tie_calibration_equals_the_brute_force_on_random_scores(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    reference = rng.choice([-1, 0, 1], size=n, p=[0.4, 0.2, 0.4])
    # Coarse scores give equal differences and exact zeros; some pairs have none.
    delta = [None if rng.random() < 0.1 else float(np.round(r * rng.random() + rng.normal(0, 0.6), 1))
             for r in reference]
    accuracy, epsilon = tie_calibration(np.asarray([np.nan if d is None else d for d in delta]), reference)
    expected_accuracy, _ = brute_force(delta, reference)
    assert accuracy == pytest.approx(expected_accuracy)
    # The threshold found gives that accuracy (several thresholds may tie for the best).
    again = sum(d is not None and (0 if abs(d) <= epsilon else (1 if d > 0 else -1)) == r
                for d, r in zip(delta, reference, strict=True)) / n
    assert again == pytest.approx(accuracy)


GOLD = [GoldPair("p1", "text-to-image", "genai", "A"), GoldPair("p2", "text-to-image", "genai", "B"),
        GoldPair("p3", "text-to-image", "genai", "tie"), GoldPair("p4", "text-to-video", "vbench", "A"),
        GoldPair("p5", "text-to-video", "vbench", "tie"), GoldPair("p6", "text-to-video", "vbench", "B")]


def test_a_worked_example_by_hand():
    """Differences A − B: p1 +2 (right), p2 −0.1 (right by sign), p3 +0.05 (a tie at ε ≥ 0.05), p4 0 (equal:
    wrong without ties), p5 −0.3, p6 unscored. Without ties: p1, p2 right of p1 p2 p4 p6 → 2/4. Calibrated: at
    ε = 0.05 p1 p2 p3 right (p4 is called a tie, its reference is A) → 3/6; at ε = 0.1 p2 becomes a tie (wrong)
    and at 0.3 p5 right but p2 still a tie: 3/6 again; the smallest best threshold is kept, 0.05."""
    scores = parse_scores([{"id": "p1", "score_a": 3, "score_b": 1}, {"id": "p2", "scores": [0.4, 0.5]},
                           {"id": "p3", "score_A": 1.05, "score_B": 1.0}, {"id": "p4", "scores": [2, 2]},
                           {"id": "p5", "score_a": 0.1, "score_b": 0.4}, {"id": "p6", "scores": [None, None]},
                           {"id": "elsewhere", "scores": [1, 0]}])
    result = score_scores(GOLD, scores, samples=200)
    assert (result["correct"], result["verdicts"], result["accuracy"]) == (2, 4, 0.5)
    assert result["tie_calibrated_accuracy"] == 0.5 and result["tie_epsilon"] == pytest.approx(0.05)
    assert (result["tie_pairs"], result["missing"], result["missing_verdicts"]) == (2, 1, 1)
    assert result["unknown_ids"] == 1 and result["format"] == "scores"
    assert result["per_task"]["text-to-image"]["tie_calibrated_accuracy"] == 1.0  # p1, p2 right; p3 a tie
    assert result["per_source"]["vbench"]["accuracy"] == 0.0
    assert result["macro_by_source_tie_calibrated"]["accuracy"] == pytest.approx((1.0 + 0.0) / 2)


@pytest.mark.parametrize(("data", "message"), [
    ({"p1": {"chosen": "A"}}, "chosen is the reference answer"),
    ({"p1": [1]}, "expected two scores"),
    ({"p1": [1, "2"]}, "response B is '2', not a finite number"),
    ({"p1": {"score_a": float("inf"), "score_b": 0}}, "response A is inf"),
    ({"p1": [True, 0]}, "response A is True"),
    ([{"score_a": 1, "score_b": 0}], "[0]: expected an object with an id"),
    ("scores", "got str"),
])
def test_malformed_scores_are_refused_naming_the_entry(data, message):
    with pytest.raises(PredictionsError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_scores(data)


def test_the_worked_example_of_docs_releases_md():
    """docs/releases.md: differences [2.0, 0.1, -0.05, -1.5, 0.3], humans [A, tie, tie, B, B] → ε = 0.1, 4 of 5."""
    accuracy, epsilon = tie_calibration(np.array([2.0, 0.1, -0.05, -1.5, 0.3]), np.array([1, 0, 0, -1, -1]))
    assert (accuracy, epsilon) == (0.8, 0.1)
