"""Consensus policies on hand-made ratings: every decision, chosen side and reason code."""

import numpy as np
import pytest

from annotation.catalogue import schemas
from curation.agreement.table import table_from_answers
from curation.agreement.variables import variables_of_schema
from curation.consensus import DISPUTE_REASONS, PolicyError, get_policy, policy_names
from curation.consensus.base import pair_ratings_from_table
from curation.consensus.criteria import criteria_ratings_from_table, decide_by_criterion


def decide(policy_name, ratings_by_pair, *, preset="mmrb2-generation", qid="overall", params=None, **extra):
    variables = variables_of_schema(schemas.preset(preset, "text-to-image"))
    pair_ids, raters, answers = [], [], []
    for pair_id, ratings in ratings_by_pair.items():
        for j, value in enumerate(ratings):
            pair_ids.append(pair_id)
            raters.append(f"r{j}")
            answers.append({qid: value})
    table = table_from_answers(variables=variables, pair_ids=pair_ids, raters=raters, answers=answers)
    policy = get_policy(policy_name)
    if variables[qid].scope == "criteria":
        ratings = criteria_ratings_from_table(table, variables[qid], keep=np.ones(len(table.pair_ids), dtype=bool))
        return decide_by_criterion(policy, ratings, policy.params(params), pair_ids=table.pair_ids.tolist(),
                                   order=extra.get("order", {}), hold_disputes=extra.get("hold_disputes", True))
    return policy.decide(pair_ratings_from_table(table, variables[qid], **extra), policy.params(params))


def outcome(decisions):
    return [(d.decision, d.chosen or d.reason) for d in decisions]


def test_registry_lists_the_built_in_policies_and_refuses_unknown_names_and_parameters():
    assert policy_names() == ["dawid-skene", "majority", "mmrb2-generation", "mmrb2-reasoning", "unanimous"]
    with pytest.raises(PolicyError, match="unknown consensus policy 'bogus'"):
        get_policy("bogus")
    with pytest.raises(PolicyError, match="has no parameter wrong"):
        get_policy("majority").params({"wrong": 1})


def test_mmrb2_generation_rules_in_order():
    decisions = decide("mmrb2-generation", {
        1: [6, 5, 6],   # mean 5.67 → A
        2: [1, 2, 2],   # mean 1.67 → B
        3: [6, 1, 5],   # spread 5 > 4 → disputed
        4: [6, 2, 3],   # mean 3.67 in [3, 4]
        5: [5, 3, 4],   # mean 4.0 in [3, 4] (inclusive)
        6: [6, 4, 3, 6, 4],  # mean 4.6 but 3 of 5 are ties
        7: [2, 4, 3, 2, 3],  # mean 2.8 but 3 of 5 are ties
        8: [5, 5, 1],   # spread 4 is allowed; mean 3.67 → tie band
        9: [6, 6, 2],   # spread 4, mean 4.67 → A
    })
    assert outcome(decisions) == [
        ("kept", "A"), ("kept", "B"), ("disputed", "spread_too_wide"), ("dropped", "mean_in_tie_band"),
        ("dropped", "mean_in_tie_band"), ("dropped", "majority_tie"), ("dropped", "majority_tie"),
        ("dropped", "mean_in_tie_band"), ("kept", "A"),
    ]
    assert decisions[0].details["mean"] == pytest.approx(17 / 3) and decisions[0].details["majority"] == "A"
    assert "spread_too_wide" in DISPUTE_REASONS and "mean_in_tie_band" not in DISPUTE_REASONS


def test_majority_k_of_n():
    ratings = {1: [6, 5, 1], 2: [6, 1, 3], 3: [3, 4, 6], 4: [6, 6, 6]}
    assert outcome(decide("majority", ratings)) == [
        ("kept", "A"), ("disputed", "no_majority"), ("dropped", "majority_tie"), ("kept", "A")]
    assert outcome(decide("majority", ratings, params={"k": 3})) == [
        ("disputed", "no_majority"), ("disputed", "no_majority"), ("disputed", "no_majority"), ("kept", "A")]
    with pytest.raises(PolicyError, match="k must be a whole number"):
        decide("majority", ratings, params={"k": 0})


def test_majority_on_an_arena_choice_drops_both_bad_with_its_own_reason():
    decisions = decide("majority", {1: ["both_bad", "both_bad", "A"], 2: ["B", "B", "tie"]}, preset="arena",
                       qid="preference")
    assert outcome(decisions) == [("dropped", "majority_no_side"), ("kept", "B")]
    assert decisions[0].details["agreed"] == "both_bad"


def test_unanimous():
    assert outcome(decide("unanimous", {1: [6, 5, 5], 2: [6, 5, 3], 3: [3, 4, 3], 4: [1]})) == [
        ("kept", "A"), ("disputed", "not_unanimous"), ("dropped", "majority_tie"), ("kept", "B")]
    assert outcome(decide("unanimous", {1: [1]}, params={"min_ratings": 2})) == [("dropped", "no_ratings")]


def test_policies_that_choose_a_side_refuse_a_question_without_sides():
    with pytest.raises(PolicyError, match="names a side"):
        decide("majority", {1: [{"A": 1, "B": 2}]}, preset="mmrb2-reasoning", qid="correctness")


def test_dawid_skene_keeps_confident_pairs_and_disputes_the_rest():
    """Three reliable raters agree on 30 pairs; on pair 99 they split 2–1 with an unreliable fourth, so
    the posterior decides; a threshold of 1.0 makes even the clear pairs disputes."""
    ratings = {p: [6, 6, 5, 1 if p % 3 else 6] for p in range(30)}
    ratings.update({p: [1, 2, 1, 6 if p % 2 else 1] for p in range(30, 60)})
    decisions = decide("dawid-skene", ratings)
    assert outcome(decisions)[:30] == [("kept", "A")] * 30
    assert outcome(decisions)[30:] == [("kept", "B")] * 30
    assert all(d.details["posterior"] >= 0.9 for d in decisions)
    strict = decide("dawid-skene", {1: [6, 1], 2: [1, 6]}, params={"threshold": 1.0})
    assert {d.decision for d in strict} == {"disputed"} and strict[0].reason == "low_posterior"
    with pytest.raises(PolicyError, match="threshold"):
        decide("dawid-skene", ratings, params={"threshold": 0.2})


def reasoning(ratings_by_pair, rejected, response_ids=None, params=None):
    variables = variables_of_schema(schemas.preset("mmrb2-reasoning", "reasoning"))
    pair_ids, raters, answers = [], [], []
    for pair_id, (a, b) in ratings_by_pair.items():
        for j in range(max(len(a), len(b))):
            pair_ids.append(pair_id)
            raters.append(f"r{j}")
            answers.append({"correctness": {"A": a[j] if j < len(a) else None, "B": b[j] if j < len(b) else None}})
    table = table_from_answers(variables=variables, pair_ids=pair_ids, raters=raters, answers=answers)
    policy = get_policy("mmrb2-reasoning")
    ratings = pair_ratings_from_table(table, variables["correctness"], rejected=np.array(rejected),
                                      response_ids=None if response_ids is None else np.array(response_ids))
    return policy.decide(ratings, policy.params(params))


def test_mmrb2_reasoning_pairs_a_preferred_with_a_rejected_response():
    decisions = reasoning(
        {
            1: ([1, 2, 2], [3, 3, 3]),   # A preferred, B rejected → A
            2: ([], [2, 2, 1]),          # A rejected without rating (wrong answer) → B
            3: ([1, 1, 1], [2, 1, 1]),   # both preferred: kept, B's mean 1.33 is worse → A
            4: ([3, 3, 3], [3, 3, 3]),   # both rejected
            5: ([1, 2, 3], [3, 3, 3]),   # A's raters disagree → disputed
            6: ([1, 1, 4], [3, 3, 3]),   # A's raters disagree (4 rejects, 1 prefers) → disputed
            7: ([1, 1, 1], []),          # B neither rated nor marked → not decidable
        },
        rejected=[[False, False], [True, False], [False, False], [False, False], [False, False], [False, False],
                  [False, False]],
    )
    assert outcome(decisions) == [
        ("kept", "A"), ("kept", "B"), ("kept", "A"), ("dropped", "both_rejected"),
        ("disputed", "response_disagreement"), ("disputed", "response_disagreement"), ("dropped", "response_unrated"),
    ]
    assert decisions[1].details == {"response_a": "rejected", "response_b": "preferred", "ratings_a": 0, "ratings_b": 3}
    assert (decisions[2].details["mean_a"], round(decisions[2].details["mean_b"], 4)) == (1.0, 1.3333)


def test_mmrb2_reasoning_rejects_a_response_every_rater_called_incorrect_or_unreasoned():
    """5 (incorrect) and 4 (correct, no reasoning) from every rater reject the response, as the paper's
    rule does for a wrong final answer: the raters agree, so there is nothing to dispute or escalate."""
    decisions = reasoning(
        {
            1: ([1, 1, 2], [5, 5, 5]),   # all three said B is incorrect → A
            2: ([4, 4, 4], [2, 1, 2]),   # all three said A gives no reasoning → B
            3: ([5, 3, 4], [1, 1, 1]),   # every rater rejects A, for different reasons → B
            4: ([5, 5, 5], [4, 4, 4]),   # both rejected
            5: ([1, 1, 5], [3, 3, 3]),   # A: two prefer, one says incorrect → disputed
        },
        rejected=[[False, False]] * 5,
    )
    assert outcome(decisions) == [
        ("kept", "A"), ("kept", "B"), ("kept", "B"), ("dropped", "both_rejected"), ("disputed", "response_disagreement"),
    ]
    assert decisions[0].details["response_b"] == "rejected"
    strict = reasoning({1: ([1, 1, 2], [5, 5, 5])}, rejected=[[False, False]], params={"rejected_values": [3]})
    assert outcome(strict) == [("disputed", "response_disagreement")]


def test_mmrb2_reasoning_keeps_two_preferred_responses_unless_asked_to_drop_them():
    """Two preferred responses with equal ratings give B (A only when strictly better rated), as the
    release's one such pair has it; ``both_preferred: drop`` is the stricter reading of the paper."""
    pairs = {1: ([2, 2, 1], [2, 2, 1]), 2: ([1, 1, 2], [2, 2, 2]), 3: ([2, 2, 2], [1, 2, 2])}
    assert outcome(reasoning(pairs, rejected=[[False, False]] * 3)) == [("kept", "B"), ("kept", "A"), ("kept", "B")]
    strict = reasoning(pairs, rejected=[[False, False]] * 3, params={"both_preferred": "drop"})
    assert outcome(strict) == [("dropped", "both_preferred")] * 3
    with pytest.raises(PolicyError, match="both_preferred must be one of keep, drop"):
        reasoning(pairs, rejected=[[False, False]] * 3, params={"both_preferred": "maybe"})


def test_mmrb2_reasoning_uses_no_chosen_response_twice_and_no_response_at_all_when_asked():
    pairs = {1: ([1, 1, 1], [3, 3, 3]), 2: ([1, 1, 1], [3, 3, 3]), 3: ([2, 2, 2], [3, 3, 3]), 4: ([3, 3, 3], [1, 1, 1])}
    ids = [[10, 11], [10, 12], [13, 11], [11, 14]]
    rejected = [[False, False]] * 4
    # The default: pair 2 reuses pair 1's chosen response 10; pair 3 reuses only the rejected response 11.
    assert outcome(reasoning(pairs, rejected, response_ids=ids)) == [
        ("kept", "A"), ("dropped", "response_used_twice"), ("kept", "A"), ("kept", "B")]
    assert outcome(reasoning(pairs, rejected, response_ids=ids, params={"unique_responses": "all"})) == [
        ("kept", "A"), ("dropped", "response_used_twice"), ("dropped", "response_used_twice"),
        ("dropped", "response_used_twice")]
    assert outcome(reasoning(pairs, rejected, response_ids=ids, params={"unique_responses": True})) == outcome(
        reasoning(pairs, rejected, response_ids=ids, params={"unique_responses": "all"}))
    assert [d.decision for d in reasoning(pairs, rejected, response_ids=ids, params={"unique_responses": "none"})] == [
        "kept"] * 4
    assert [d.decision for d in reasoning(pairs, rejected, response_ids=ids, params={"unique_responses": False})] == [
        "kept"] * 4
    with pytest.raises(PolicyError, match="unique_responses must be one of chosen, all, none"):
        reasoning(pairs, rejected, response_ids=ids, params={"unique_responses": "some"})


def test_an_agreed_tie_is_kept_as_a_tie_where_the_schema_offers_one():
    ab_tie = decide("majority", {1: ["tie", "tie", "A"], 2: ["A", "A", "tie"]}, preset="ab-tie", qid="preference")
    assert outcome(ab_tie) == [("kept", "tie"), ("kept", "A")]
    assert outcome(decide("unanimous", {1: ["tie", "tie"]}, preset="ab-tie", qid="preference")) == [("kept", "tie")]
    omni = decide("majority", {1: [[{"criterion": "tone", "label": "tie"}]], 2: [[{"criterion": "tone", "label": "B"}]]},
                  preset="omni-criteria", qid="criteria")
    assert outcome(omni) == [("kept", "tie"), ("kept", "B")]


def test_a_policy_asked_for_a_strict_winner_drops_an_agreed_tie_as_majority_tie():
    strict = decide("majority", {1: ["tie", "tie", "A"]}, preset="ab-tie", qid="preference",
                    params={"strict_winner": True})
    assert outcome(strict) == [("dropped", "majority_tie")]
    unanimous = decide("unanimous", {1: ["tie", "tie"]}, preset="ab-tie", qid="preference", params={"strict_winner": True})
    assert outcome(unanimous) == [("dropped", "majority_tie")]
    # The middle of MMRB2's 1..6 scale is a tie band, not an answer: a drop whatever the parameter.
    assert outcome(decide("majority", {1: [3, 4, 6]})) == [("dropped", "majority_tie")]


def labels(**by_criterion):
    """One rater's answer to a criteria question: ``labels(tone="A", facts="tie")``."""
    return [{"criterion": criterion, "label": label} for criterion, label in by_criterion.items()]


def criteria_outcome(decision):
    return [(c.criterion, c.decision, c.chosen or c.reason) for c in decision.criteria]


def test_each_criterion_is_decided_by_its_own_majority_never_by_the_labels_of_all_criteria_pooled():
    """Demo pair demo-t2t-002: criterion 1 rated A, A, tie and criterion 2 tie, tie, tie. Pooled, 4 of 6 labels
    are ties; per criterion, 2 of 3 raters prefer A on criterion 1 and all three see a tie on criterion 2."""
    ratings = {2: [labels(one="A", two="tie"), labels(one="A", two="tie"), labels(one="tie", two="tie")]}
    (pair,) = decide("majority", ratings, preset="omni-criteria", qid="criteria", order={2: ["one", "two"]})
    assert (pair.decision, pair.chosen) == ("kept", "A"), "the pair sums up its kept criteria: one A, one tie"
    assert criteria_outcome(pair) == [("one", "kept", "A"), ("two", "kept", "tie")]
    assert pair.criteria[0].details["ratings"] == 3 and pair.criteria[0].details["share"] == pytest.approx(2 / 3)
    (unanimous,) = decide("unanimous", ratings, preset="omni-criteria", qid="criteria", order={2: ["two", "one"]})
    assert criteria_outcome(unanimous) == [("two", "kept", "tie"), ("one", "disputed", "not_unanimous")], (
        "the curator's policy applies to each criterion, in the order the pair names them")
    assert (unanimous.decision, unanimous.reason) == ("disputed", "not_unanimous")


def test_a_pair_keeps_its_agreed_criteria_when_disputes_are_dropped_and_waits_when_they_are_held():
    ratings = {1: [labels(style="A", facts="A"), labels(style="B", facts="A"), labels(style="tie", facts="B")],
               2: [labels(style="A"), labels(style="B")]}
    dropped = decide("majority", ratings, preset="omni-criteria", qid="criteria", hold_disputes=False)
    assert outcome(dropped) == [("kept", "A"), ("disputed", "no_majority")]
    assert criteria_outcome(dropped[0]) == [("facts", "kept", "A"), ("style", "disputed", "no_majority")]
    held = decide("majority", ratings, preset="omni-criteria", qid="criteria", hold_disputes=True)
    assert outcome(held) == [("disputed", "no_majority"), ("disputed", "no_majority")]
    strict = decide("majority", {1: [labels(facts="tie"), labels(facts="tie")]}, preset="omni-criteria",
                    qid="criteria", params={"strict_winner": True})
    assert outcome(strict) == [("dropped", "majority_tie")]


def test_dawid_skene_weighs_raters_per_criterion():
    ratings = {p: [labels(one="A", two="B"), labels(one="A", two="B"), labels(one="A", two="B")] for p in (1, 2, 3)}
    decisions = decide("dawid-skene", ratings, preset="omni-criteria", qid="criteria", params={"threshold": 0.5})
    assert [criteria_outcome(d) for d in decisions] == [[("one", "kept", "A"), ("two", "kept", "B")]] * 3
    assert [d.chosen for d in decisions] == ["tie"] * 3, "one criterion for A, one for B: the pair sums up as a tie"


def test_a_criteria_question_is_never_pooled_into_one_vote_per_pair():
    variables = variables_of_schema(schemas.preset("omni-criteria", "text-to-text"))
    table = table_from_answers(variables=variables, pair_ids=[1], raters=["r"], answers=[{"criteria": labels(x="A")}])
    with pytest.raises(PolicyError, match="decide it per criterion"):
        pair_ratings_from_table(table, variables["criteria"])
