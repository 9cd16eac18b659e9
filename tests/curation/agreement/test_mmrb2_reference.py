"""The statistics and policies reproduce MMRB2's published figures from the release files, with no database."""

import numpy as np
import pytest

from curation.agreement.report import variable_agreement
from curation.consensus import get_policy
from curation.consensus.base import pair_ratings_from_table
from tests.curation.agreement.mmrb2_files import (
    GENERATION_TASKS,
    PUBLISHED,
    generation_table,
    load_pairs,
    reasoning_response_ids,
    reasoning_table,
)


@pytest.mark.parametrize("task", sorted(GENERATION_TASKS))
def test_pairwise_agreement_excluding_ties_and_ordinal_alpha_match_the_paper(mmrb2_dir, task):
    """95.34 / 96.32 / 95.22 % pairwise agreement and ordinal alpha 0.7162 / 0.7517 / 0.7333, from the files."""
    table = generation_table(load_pairs(mmrb2_dir, task), GENERATION_TASKS[task])
    figures = variable_agreement(table, table.variables["overall"], bootstrap=200, seed=7)
    assert round(figures["pairwise_agreement_excluding_ties"], 2) == PUBLISHED[task]["pairwise"]
    assert round(figures["alpha"]["ordinal"], 4) == PUBLISHED[task]["ordinal"]
    low, high = figures["alpha_ci95"]["ordinal"]
    assert low < figures["alpha"]["ordinal"] < high
    assert figures["units"] == 1000 and figures["ratings"] == 3000


@pytest.mark.parametrize("task", sorted(GENERATION_TASKS))
def test_mmrb2_generation_policy_keeps_every_released_pair_with_its_chosen_side(mmrb2_dir, task):
    """The consensus rule keeps 1000 of 1000 pairs and the mean rule gives the file's `chosen` for each."""
    pairs = load_pairs(mmrb2_dir, task)
    table = generation_table(pairs, GENERATION_TASKS[task])
    policy = get_policy("mmrb2-generation")
    decisions = policy.decide(pair_ratings_from_table(table, table.variables["overall"]), policy.params({}))
    assert [d.decision for d in decisions] == ["kept"] * 1000
    assert [d.chosen for d in decisions] == [p["chosen"] for p in pairs]


def test_mmrb2_reasoning_policy_keeps_every_released_pair_with_its_chosen_side(mmrb2_dir):
    """With its defaults the rule keeps 1000 of 1000 pairs, each with the file's `chosen`, as the generation
    rule does for its files: responses rejected unrated (a wrong final answer) count as rejected, the one pair
    of two preferred responses (equal ratings) is kept with B, and the one response the release uses twice
    (a rejected o3 answer) is never a chosen one."""
    pairs = load_pairs(mmrb2_dir, "reasoning")
    table, rejected = reasoning_table(pairs)
    ids = reasoning_response_ids(pairs)
    assert len(np.unique(ids)) == 1999
    policy = get_policy("mmrb2-reasoning")
    ratings = pair_ratings_from_table(table, table.variables["correctness"], rejected=rejected, response_ids=ids)
    decisions = policy.decide(ratings, policy.params({}))
    assert [d.decision for d in decisions] == ["kept"] * 1000
    assert [d.chosen for d in decisions] == [p["chosen"] for p in pairs]
    assert (~rejected.any(axis=1)).sum() == 294
    assert np.array_equal(ratings.counts.sum(axis=-1)[rejected], np.zeros(int(rejected.sum())))


def test_the_stricter_mmrb2_reasoning_options_drop_the_two_pairs_the_paper_text_rules_out(mmrb2_dir):
    """``both_preferred: drop`` and ``unique_responses: all`` (the paper's sentences read literally) drop the
    pair of two preferred responses and the second pair using the reused response; every other pair keeps
    the file's `chosen`."""
    pairs = load_pairs(mmrb2_dir, "reasoning")
    table, rejected = reasoning_table(pairs)
    policy = get_policy("mmrb2-reasoning")
    ratings = pair_ratings_from_table(table, table.variables["correctness"], rejected=rejected,
                                      response_ids=reasoning_response_ids(pairs))
    decisions = policy.decide(ratings, policy.params({"both_preferred": "drop", "unique_responses": "all"}))
    dropped = [(i, d.reason) for i, d in enumerate(decisions) if d.decision != "kept"]
    assert dropped == [(538, "both_preferred"), (623, "response_used_twice")]
    assert all(d.chosen == p["chosen"] for d, p in zip(decisions, pairs, strict=True) if d.decision == "kept")
