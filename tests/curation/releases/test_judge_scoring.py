"""Judge scoring equals a straightforward computation of the papers' formulas, edge cases included."""

import numpy as np
import pytest

from curation.releases.scoring import (
    GoldPair,
    PredictionsError,
    bootstrap_ci,
    parse_mmrb2,
    parse_omnireward,
    score_mmrb2,
    score_omnireward,
)

GOLD = [
    GoldPair("p1", "text-to-image", "oneigbench", "A"),
    GoldPair("p2", "text-to-image", "oneigbench", "B"),
    GoldPair("p3", "text-to-image", "wise", "A"),
    GoldPair("p4", "image-editing", "dreambench", "B"),
    GoldPair("p5", "image-editing", "dreambench", "A"),
    GoldPair("p6", "image-editing", "wise", "B"),
]

MMRB2_PREDICTIONS = {
    "p1": {"forward": [{"judgement": "A"}], "reverse": [{"judgement": "B"}]},  # both right (reverse flips to A)
    "p2": {"forward": [{"judgement": "A"}], "reverse": [{"judgement": "A"}]},  # forward wrong, reverse right
    "p3": {"forward": [{"judgement": "C"}], "reverse": [{"judgement": "a"}]},  # both invalid: wrong
    "p4": {"forward": [{"judgement": "B"}]},  # reverse missing: leaves the denominator
    "p5": {"forward": [{"judgement": None}], "reverse": [{"judgement": "tie"}]},  # forward missing, "tie" wrong
    "unknown": {"forward": [{"judgement": "A"}], "reverse": [{"judgement": "B"}]},
}  # p6 has no prediction at all


def straightforward_mmrb2(gold, predictions):
    """MMRB2's formula, written as plainly as possible."""
    right = made = 0
    for pair in gold:
        entry = predictions.get(pair.id, {})
        for item in entry.get("forward", []):
            verdict = item.get("judgement")
            if verdict is None:
                continue
            made += 1
            if verdict == pair.chosen:
                right += 1
        for item in entry.get("reverse", []):
            verdict = item.get("judgement")
            if verdict is None:
                continue
            made += 1
            if (verdict == "A" and pair.chosen == "B") or (verdict == "B" and pair.chosen == "A"):
                right += 1
    return right, made


def test_mmrb2_accuracy_counts_both_orders_flips_swapped_ones_and_drops_missing_verdicts():
    scores = score_mmrb2(GOLD, parse_mmrb2(MMRB2_PREDICTIONS), samples=200)
    right, made = straightforward_mmrb2(GOLD, MMRB2_PREDICTIONS)
    assert (right, made) == (4, 8)
    assert scores["accuracy"] == right / made == 0.5
    assert (scores["verdicts"], scores["correct"], scores["invalid"]) == (8, 4, 3)
    assert (scores["evaluated"], scores["missing"], scores["missing_verdicts"]) == (5, 1, 4)
    assert (scores["unknown_ids"], scores["unknown_examples"]) == (1, ["unknown"])
    t2i = [g for g in GOLD if g.task == "text-to-image"]
    assert scores["per_task"]["text-to-image"]["accuracy"] == pytest.approx(
        straightforward_mmrb2(t2i, MMRB2_PREDICTIONS)[0] / straightforward_mmrb2(t2i, MMRB2_PREDICTIONS)[1]
    ) == pytest.approx(3 / 6)
    assert scores["per_task"]["image-editing"]["accuracy"] == pytest.approx(1 / 2)
    assert scores["per_source"]["wise"]["accuracy"] == 0.0
    assert scores["per_source"]["oneigbench"]["accuracy"] == pytest.approx(3 / 4)
    assert scores["with_ties"] is None and scores["without_ties"] is None


def test_position_consistency_is_the_share_of_pairs_judged_the_same_way_in_both_orders():
    scores = score_mmrb2(GOLD, parse_mmrb2(MMRB2_PREDICTIONS), samples=50)
    # Valid A/B in both orders: p1 (A, then B = A flipped: consistent) and p2 (A, then A = B flipped: not).
    assert scores["position_consistency_pairs"] == 2
    assert scores["position_consistency"] == 0.5


def test_a_judge_with_no_verdicts_has_no_accuracy_rather_than_zero():
    scores = score_mmrb2(GOLD, {}, samples=10)
    assert scores["accuracy"] is None and scores["ci95"] is None
    assert (scores["evaluated"], scores["missing"], scores["missing_verdicts"]) == (0, 6, 12)


def test_the_bootstrap_interval_resamples_pairs_with_a_fixed_seed():
    correct = [2, 1, 0, 1, 0, 2, 2, 1]
    made = [2, 2, 2, 1, 1, 2, 2, 2]
    rng = np.random.default_rng(0)
    estimates = []
    for _ in range(300):
        index = rng.integers(0, len(made), size=len(made))
        estimates.append(sum(correct[i] for i in index) / sum(made[i] for i in index))
    expected = np.percentile(estimates, [2.5, 97.5])
    low, high = bootstrap_ci(correct, made, samples=300, seed=0)
    assert (low, high) == pytest.approx(tuple(expected), abs=1e-6)
    assert low <= sum(correct) / sum(made) <= high
    assert bootstrap_ci([3, 2], [3, 2], samples=50) == [1.0, 1.0]


OMNI_GOLD = [
    GoldPair("o1", "text-to-text", "hh", "A"),
    GoldPair("o2", "text-to-text", "hh", "B"),
    GoldPair("o3", "text-to-text", "hh", "tie"),
    GoldPair("o4", "text-to-video", "vid", "A"),
    GoldPair("o5", "text-to-video", "vid", "tie"),
    GoldPair("o6", "text-to-video", "vid", "B"),
    GoldPair("o7", "text-to-video", "vid", "A"),
]
OMNI_LABELS = {"o1": "response1", "o2": "tie", "o3": "tie", "o4": "A", "o5": "response2", "o6": "response2", "o7": None}


def straightforward_omni(gold, labels, *, ties: bool):
    reference = {"A": "response1", "B": "response2", "tie": "tie"}
    right = total = 0
    for pair in gold:
        label = labels.get(pair.id)
        if label is None or (not ties and pair.chosen == "tie"):
            continue
        total += 1
        right += label == reference[pair.chosen]
    return right / total


def test_omni_reward_accuracy_with_and_without_ties():
    scores = score_omnireward(OMNI_GOLD, parse_omnireward(OMNI_LABELS), samples=100)
    assert scores["with_ties"] == straightforward_omni(OMNI_GOLD, OMNI_LABELS, ties=True) == pytest.approx(3 / 6)
    assert scores["without_ties"] == straightforward_omni(OMNI_GOLD, OMNI_LABELS, ties=False) == pytest.approx(2 / 4)
    assert scores["accuracy"] == scores["with_ties"]
    assert (scores["evaluated"], scores["missing"], scores["invalid"]) == (6, 1, 1)
    assert scores["per_task"]["text-to-text"]["with_ties"] == pytest.approx(2 / 3)
    assert scores["per_task"]["text-to-text"]["without_ties"] == pytest.approx(1 / 2)
    assert scores["per_task"]["text-to-video"]["without_ties"] == pytest.approx(1 / 2)
    assert scores["position_consistency"] is None


def test_omni_reward_labels_are_accepted_as_a_list_of_records():
    records = [{"id": "o1", "criteria_preference": "response1"}, {"id": "o2", "prediction": "response2"}]
    assert parse_omnireward(records) == {"o1": "response1", "o2": "response2"}


@pytest.mark.parametrize(
    ("parse", "data", "message"),
    [
        (parse_mmrb2, [], "object keyed by pair id"),
        (parse_mmrb2, {"p1": "A"}, r"p1: expected \{\"forward\""),
        (parse_mmrb2, {"p1": {"forward": "A"}}, r"p1.forward: expected a list"),
        (parse_mmrb2, {"p1": {"forward": [7]}}, r"p1.forward\[0\]"),
        (parse_mmrb2, {"p1": {"forwards": []}}, "unknown key"),
        (parse_omnireward, "response1", "an object or a list"),
        (parse_omnireward, [{"prediction": "tie"}], "an id and a prediction"),
        (parse_omnireward, {"o1": {"label": "tie"}}, "prediction"),
    ],
)
def test_malformed_predictions_are_refused_naming_the_entry(parse, data, message):
    with pytest.raises(PredictionsError, match=message):
        parse(data)
