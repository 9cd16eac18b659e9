"""Criteria questions (Omni-RewardBench): every criterion of a pair decided on its own, then the pair's outcome.

A pair of a criteria question carries one or more criteria and a rater labels each A / B / tie. As in
Omni-RewardBench, where each (pair, criterion) is one item with its own ``criteria_preference``, a policy
decides each criterion over the labels raters gave that criterion, with the policy and parameters the
curator chose; labels of different criteria are never counted together. The pair's outcome follows from
its criteria (``pair_outcome``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from curation.agreement.variables import Variable
from curation.consensus.base import (
    DISPUTED,
    DROPPED,
    KEPT,
    NO_RATINGS,
    ConsensusPolicy,
    CriterionDecision,
    Decision,
    PairRatings,
)


@dataclass(frozen=True)
class CriteriaRatings:
    """The ratings of a criteria question, one policy unit per (pair, criterion).

    ``ratings.pair_ids`` are unit numbers; ``unit_pair`` and ``unit_criterion`` give, per unit number, the
    pair id and the criterion text.
    """

    ratings: PairRatings
    unit_pair: np.ndarray
    unit_criterion: tuple[str, ...]

    def anonymous_ratings(self) -> int:
        return self.ratings.anonymous_ratings()


def criteria_ratings_from_table(table, variable: Variable, *, keep: np.ndarray) -> CriteriaRatings:
    """The criterion units of ``variable`` in a ``RatingTable`` whose pair is marked in ``keep`` (one flag per
    pair of the table)."""
    obs = table.observations[variable.qid]
    units = PairRatings(pair_ids=np.arange(obs.n_units), variable=variable, counts=obs.counts(len(variable.domain)),
                        unit=obs.unit, rater=obs.rater, code=obs.code, stable=table.stable()[obs.rater])
    return CriteriaRatings(ratings=units.subset(keep[obs.unit_pair]),
                           unit_pair=np.asarray(table.pair_ids)[obs.unit_pair], unit_criterion=obs.unit_criterion)


def decide_by_criterion(policy: ConsensusPolicy, ratings: CriteriaRatings, params: dict, *, pair_ids: Sequence[int],
                        order: dict[int, list[str]], hold_disputes: bool) -> list[Decision]:
    """One Decision per pair of ``pair_ids``, in that order, each with its criteria decided one by one.

    A pair's criteria come in the order of ``order[pair_id]`` (the criteria the pair names), then any a
    rater added, by text.
    """
    decided: dict[int, list[CriterionDecision]] = {int(p): [] for p in pair_ids}
    for d in policy.decide(ratings.ratings, params):
        decided[int(ratings.unit_pair[d.pair_id])].append(
            CriterionDecision(ratings.unit_criterion[d.pair_id], d.decision, d.chosen, d.reason, d.details))
    out = []
    for pair_id, criteria in decided.items():
        named = {text: i for i, text in enumerate(order.get(pair_id, []))}
        criteria.sort(key=lambda c: (named.get(c.criterion, len(named)), c.criterion))
        out.append(pair_outcome(pair_id, criteria, hold_disputes=hold_disputes))
    return out


def pair_outcome(pair_id: int, criteria: list[CriterionDecision], *, hold_disputes: bool) -> Decision:
    """Kept when at least one criterion is kept, unless a disputed criterion waits for more ratings or a
    curator (``hold_disputes``); else disputed when a criterion is, else dropped for its first criterion's reason.

    A kept pair's ``chosen`` sums up its kept criteria: the side more of them prefer, else a tie. Releases
    use each criterion's own label.
    """
    kept = [c for c in criteria if c.decision == KEPT]
    disputed = [c for c in criteria if c.decision == DISPUTED]
    details = {"criteria": len(criteria), "criteria_kept": len(kept), "criteria_disputed": len(disputed)}
    found = tuple(criteria)
    if kept and not (disputed and hold_disputes):
        a, b = sum(c.chosen == "A" for c in kept), sum(c.chosen == "B" for c in kept)
        return Decision(pair_id, KEPT, "A" if a > b else "B" if b > a else "tie", "", details, found)
    if disputed:
        return Decision(pair_id, DISPUTED, "", disputed[0].reason, details, found)
    if criteria:
        return Decision(pair_id, DROPPED, "", criteria[0].reason, details, found)
    return Decision(pair_id, DROPPED, "", NO_RATINGS, details, found)
