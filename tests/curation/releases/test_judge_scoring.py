"""Judge scoring equals the benchmarks' own rules, written from their published definitions, edge cases included."""

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
    # several entries per order: only the first counts (both right; the later wrong ones are ignored)
    "p1": {"forward": [{"judgement": "A"}, {"judgement": "B"}], "reverse": [{"judgement": "B"}, {"judgement": "A"}]},
    "p2": {"forward": [{"judgement": "A"}], "reverse": [{"judgement": "A"}]},  # forward wrong, reverse right
    "p3": {"forward": [{"judgement": "C"}], "reverse": [{"judgement": "a"}]},  # neither A nor B: both wrong
    "p4": {"forward": [{"judgement": "B"}], "notes": "kept by the judge"},  # reverse order missing: skipped
    "p5": {"forward": [{"judgement": ""}, {"judgement": "A"}], "reverse": [{"judgement": "tie"}]},  # empty first
    # entry skipped (not the second one); a tie is wrong
    "unknown": {"forward": [{"judgement": "A"}], "reverse": [{"judgement": "B"}]},
}  # p6 has no prediction at all: a missing pair


def mmrb2_reference(gold, predictions):
    """compute_accuracy.py's rules, written from MMRB2's published definition: per pair of the benchmark, a
    pair absent from the predictions is missing; otherwise the first entry of a non-empty forward (reverse)
    list is read, an empty judgement is skipped, any other is one judgement made, right when it (flipped
    A↔B for reverse) equals chosen. Returns (correct, made, evaluated pairs, missing pairs)."""
    correct = made = evaluated = missing = 0
    for pair in gold:
        if pair.id not in predictions:
            missing += 1
            continue
        evaluated += 1
        entry = predictions[pair.id]
        for order in ("forward", "reverse"):
            if order in entry and len(entry[order]) > 0:
                judgement = entry[order][0].get("judgement")
                if judgement:
                    made += 1
                    if order == "reverse" and judgement == "A":
                        judgement = "B"
                    elif order == "reverse" and judgement == "B":
                        judgement = "A"
                    correct += judgement == pair.chosen
    return correct, made, evaluated, missing


def test_mmrb2_accuracy_is_compute_accuracy_first_entry_per_order_empty_skipped_anything_else_wrong():
    scores = score_mmrb2(GOLD, parse_mmrb2(MMRB2_PREDICTIONS), samples=200)
    correct, made, evaluated, missing = mmrb2_reference(GOLD, MMRB2_PREDICTIONS)
    assert (correct, made, evaluated, missing) == (4, 8, 5, 1)
    assert scores["accuracy"] == correct / made == 4 / 8
    assert (scores["verdicts"], scores["correct"], scores["evaluated"], scores["missing"]) == (made, correct, 5, 1)
    assert (scores["invalid"], scores["missing_verdicts"], scores["ignored_entries"]) == (3, 2, 3)
    assert scores["pairs_without_verdict"] == 0
    assert (scores["unknown_ids"], scores["unknown_examples"]) == (1, ["unknown"])
    for task in ("text-to-image", "image-editing"):
        subset = [g for g in GOLD if g.task == task]
        task_correct, task_made, task_evaluated, task_missing = mmrb2_reference(subset, MMRB2_PREDICTIONS)
        figures = scores["per_task"][task]
        assert figures["accuracy"] == task_correct / task_made
        assert (figures["evaluated"], figures["missing"]) == (task_evaluated, task_missing)
    assert scores["per_task"]["text-to-image"]["accuracy"] == 3 / 6
    assert scores["per_task"]["image-editing"]["accuracy"] == 1 / 2
    assert scores["per_source"]["wise"]["accuracy"] == 0.0
    assert scores["per_source"]["oneigbench"]["accuracy"] == 3 / 4
    assert scores["with_ties"] is None and scores["without_ties"] is None


def test_mmrb2_scoring_agrees_with_the_reference_on_random_prediction_files():
    rng = np.random.default_rng(7)
    gold = [GoldPair(f"p{i}", "text-to-image" if i % 3 else "image-editing", "src", "AB"[i % 2]) for i in range(60)]
    choices = ["A", "B", "", None, "tie", "C", "b", 0, 1, ["A"], {"side": "A"}, [], {}]
    for _ in range(25):
        predictions = {}
        for pair in gold + [GoldPair("stray", "t", "s", "A")]:
            if rng.random() < 0.15:
                continue
            entry = {}
            for order in ("forward", "reverse"):
                if rng.random() < 0.1:
                    continue
                entry[order] = [{"judgement": choices[rng.integers(len(choices))]} for _ in range(rng.integers(0, 4))]
            predictions[pair.id] = entry
        scores = score_mmrb2(gold, parse_mmrb2(predictions), samples=10)
        correct, made, evaluated, missing = mmrb2_reference(gold, predictions)
        assert scores["accuracy"] == (correct / made if made else None)
        assert (scores["correct"], scores["verdicts"], scores["evaluated"], scores["missing"]) == (
            correct, made, evaluated, missing)


def test_mmrb2_scoring_leaves_tie_pairs_out_and_says_so():
    gold = [*GOLD, GoldPair("t1", "text-to-image", "omni", "tie")]
    predictions = {**MMRB2_PREDICTIONS, "t1": {"forward": [{"judgement": "A"}], "reverse": [{"judgement": "A"}]}}
    scores = score_mmrb2(gold, parse_mmrb2(predictions), samples=10)
    assert scores["accuracy"] == 4 / 8
    assert scores["tie_pairs_left_out"] == 1 and scores["unknown_ids"] == 1


def test_position_consistency_is_the_share_of_pairs_judged_the_same_way_in_both_orders():
    scores = score_mmrb2(GOLD, parse_mmrb2(MMRB2_PREDICTIONS), samples=50)
    # Valid A/B first entries in both orders: p1 (A, then B = A flipped: consistent) and p2 (A, then A: not).
    assert scores["position_consistency_pairs"] == 2
    assert scores["position_consistency"] == 0.5


def test_a_judge_with_no_verdicts_has_no_accuracy_rather_than_zero():
    scores = score_mmrb2(GOLD, {}, samples=10)
    assert scores["accuracy"] is None and scores["ci95"] is None
    assert (scores["evaluated"], scores["missing"], scores["missing_verdicts"]) == (0, 6, 0)
    empty = score_mmrb2(GOLD, parse_mmrb2({"p1": {"forward": [], "reverse": [{"judgement": None}]}}), samples=10)
    assert empty["accuracy"] is None
    assert (empty["evaluated"], empty["pairs_without_verdict"], empty["missing_verdicts"]) == (1, 1, 2)


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


def test_omni_reward_accuracy_with_ties_counts_every_pair_and_without_ties_leaves_tie_pairs_out():
    scores = score_omnireward(OMNI_GOLD, parse_omnireward(OMNI_LABELS), samples=100)
    # Right: o1, o3, o6. With ties: every pair, o7 (no label) and o4 ("A" is not a label) wrong: 3 / 7.
    # Without ties: o1, o2, o4, o6, o7: right o1, o6: 2 / 5.
    assert scores["with_ties"] == scores["accuracy"] == 3 / 7
    assert scores["without_ties"] == 2 / 5
    assert (scores["pairs"], scores["evaluated"], scores["missing"], scores["invalid"]) == (7, 6, 1, 1)
    assert scores["tie_pairs"] == 2
    assert scores["per_task"]["text-to-text"]["with_ties"] == 2 / 3
    assert scores["per_task"]["text-to-text"]["without_ties"] == 1 / 2
    assert scores["per_task"]["text-to-video"]["without_ties"] == 1 / 3
    assert scores["position_consistency"] is None


def test_omni_reward_figures_of_the_issue_item_set_are_0_5625_with_ties_and_0_6364_without():
    """Sixteen pairs, five of them ties: the judge gets 7 of the 11 non-tie pairs and 2 of the 5 ties."""
    gold = [GoldPair(f"n{i}", "text-to-image", "omni", "AB"[i % 2]) for i in range(11)]
    gold += [GoldPair(f"t{i}", "text-to-image", "omni", "tie") for i in range(5)]
    right = {"A": "response1", "B": "response2"}
    wrong = {"A": "response2", "B": "tie"}
    labels = {g.id: (right if i < 7 else wrong)[g.chosen] for i, g in enumerate(gold[:11])}
    labels.update({"t0": "tie", "t1": "tie", "t2": "response1", "t3": "response2", "t4": None})
    scores = score_omnireward(gold, parse_omnireward(labels), samples=50)
    assert scores["with_ties"] == 9 / 16 == 0.5625
    assert round(scores["without_ties"], 4) == 0.6364 == round(7 / 11, 4)


def test_omni_reward_labels_are_accepted_as_a_list_of_records_omni_results_included():
    records = [{"id": "o1", "criteria_preference": "response1", "predicted": None},
               {"id": "o2", "prediction": "response2"},
               {"id": "o3", "criteria_preference": "tie", "predicted": "response1"}]
    assert parse_omnireward(records) == {"o1": None, "o2": "response2", "o3": "response1"}


@pytest.mark.parametrize("data", [
    [{"id": "o1", "criteria_preference": "response1"}],
    [{"id": "o1", "prediction": "tie"}, {"id": "o2", "criteria_preference": "tie", "pred": "response2"}],
    {"o1": {"criteria_preference": "response1"}},
    {"o1": {"chosen": "A"}},
])
def test_the_reference_answer_is_never_read_as_a_prediction(data):
    """A release's own Omni export (every record carries criteria_preference) scored 100 %; so did a file whose
    records named their label "pred". Both are refused, naming the first record without a prediction."""
    with pytest.raises(PredictionsError, match=r"no prediction\. (criteria_preference|chosen) is the reference answer"):
        parse_omnireward(data)


def test_a_record_with_neither_prediction_nor_reference_names_its_keys():
    with pytest.raises(PredictionsError, match=r"\[0\] \(o1\): no prediction .*keys: id, label, score"):
        parse_omnireward([{"id": "o1", "label": "tie", "score": 3}])


def test_omni_without_ties_is_read_from_the_no_tie_run_when_one_is_given():
    """Omni-RewardBench's protocol: the no-tie prompt's run on the non-tie pairs gives the figure without ties."""
    with_tie = parse_omnireward(OMNI_LABELS)
    # The no-tie run: o1, o4, o6 right, o7 wrong; o2 a "tie" (not an answer in this run: wrong and invalid);
    # o3 is a tie pair (ignored, counted).
    no_tie = {"o1": "response1", "o2": "tie", "o3": "response1", "o4": "response1", "o6": "response2",
              "o7": "response2"}
    scores = score_omnireward(OMNI_GOLD, with_tie, no_tie_labels=no_tie, samples=100)
    assert scores["with_ties"] == 3 / 7, "the with-tie figure still comes from the with-tie run"
    assert scores["without_ties"] == 3 / 5
    assert scores["without_ties_from"] == "no-tie run" and scores["with_ties_from"] == "with-tie run"
    assert (scores["without_ties_missing"], scores["without_ties_invalid"]) == (0, 1)
    assert scores["without_ties_tie_pairs_ignored"] == 1
    alone = score_omnireward(OMNI_GOLD, with_tie, samples=100)
    assert alone["without_ties"] == 2 / 5 and alone["without_ties_from"] == "with-tie run, tie pairs left out"


def test_the_mean_over_sources_counts_each_source_once_with_a_stratified_interval():
    scores = score_mmrb2(GOLD, parse_mmrb2(MMRB2_PREDICTIONS), samples=200)
    per_source = {s: v["accuracy"] for s, v in scores["per_source"].items()}
    macro = scores["macro_by_source"]
    assert macro["groups"] == len([a for a in per_source.values() if a is not None])
    assert macro["accuracy"] == pytest.approx(np.mean([a for a in per_source.values() if a is not None]))
    assert macro["ci95"][0] <= macro["accuracy"] <= macro["ci95"][1]
    omni = score_omnireward(OMNI_GOLD, parse_omnireward(OMNI_LABELS), samples=100)
    assert omni["macro_by_source"]["accuracy"] == pytest.approx(
        np.mean([v["with_ties"] for v in omni["per_source"].values()]))


@pytest.mark.parametrize(
    ("parse", "data", "message"),
    [
        (parse_mmrb2, [], "object keyed by pair id"),
        (parse_mmrb2, {"p1": "A"}, r"p1: expected \{\"forward\""),
        (parse_mmrb2, {"p1": {"forward": "A"}}, r"p1.forward: expected a list"),
        (parse_mmrb2, {"p1": {"forward": [7]}}, r"p1.forward\[0\]"),
        (parse_omnireward, "response1", "an object or a list"),
        (parse_omnireward, [{"prediction": "tie"}], "an id and a prediction"),
        (parse_omnireward, {"o1": {"label": "tie"}}, "prediction"),
    ],
)
def test_malformed_predictions_are_refused_naming_the_entry(parse, data, message):
    with pytest.raises(PredictionsError, match=message):
        parse(data)
