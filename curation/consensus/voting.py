"""Vote-counting policies: at least k of n agree, or everyone agrees."""

from __future__ import annotations

import numpy as np

from curation.agreement.variables import SIDE_NONE
from curation.consensus.base import (
    DISPUTED,
    DROPPED,
    KEPT,
    MAJORITY_NO_SIDE,
    MAJORITY_TIE,
    NO_MAJORITY,
    NO_RATINGS,
    NOT_UNANIMOUS,
    ConsensusPolicy,
    Decision,
    PairRatings,
    PolicyError,
    item_details,
    register,
    require_sides,
)


def category_sides(ratings: PairRatings) -> list[str | None]:
    """The side each nominal category names: "A", "B", or None (tie, both bad, …)."""
    variable = ratings.variable
    sides: list[str | None] = [None] * len(variable.categories)
    for code, side in enumerate(variable.side_of_code):
        if side != SIDE_NONE:
            sides[variable.category_of_code[code]] = "AB"[side]
    return sides


def keeps_ties(ratings: PairRatings, params: dict) -> bool:
    """Whether an agreed tie is an outcome: the question offers "tie" as an answer (a choice or criteria
    question, as Omni-RewardBench's) and the policy is not asked for a strict winner. The middle of an
    oriented scale (MMRB2's 3–4) is a tie band, not an answer: it stays a drop."""
    if params.get("strict_winner"):
        return False
    return not ratings.variable.numeric and "tie" in ratings.variable.categories


def settled(pair_id: int, category: str, side: str | None, info: dict, *, keep_tie: bool = False) -> Decision:
    """Kept on the agreed side (or on an agreed tie, with ``keep_tie``), or dropped because what the raters
    agree on is not a side."""
    if side is not None:
        return Decision(pair_id, KEPT, side, "", info)
    if category == "tie" and keep_tie:
        return Decision(pair_id, KEPT, "tie", "", info)
    return Decision(pair_id, DROPPED, "", MAJORITY_TIE if category == "tie" else MAJORITY_NO_SIDE,
                    {**info, "agreed": category})


def decide_majority(ratings: PairRatings, params: dict) -> list[Decision]:
    """Keep when at least ``k`` ratings (default: more than half) share one category and it is a side, or a tie
    the schema offers (unless ``strict_winner``)."""
    require_sides(ratings, "majority")
    k = params["k"]
    if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 1):
        raise PolicyError("majority: k must be a whole number of ratings, at least 1")
    counts = ratings.category_counts()
    sides = category_sides(ratings)
    details = item_details(ratings.counts, ratings.variable)
    keep_tie = keeps_ties(ratings, params)
    out = []
    for i, pair_id in enumerate(ratings.pair_ids):
        n = int(counts[i].sum())
        if n == 0:
            out.append(Decision(int(pair_id), DROPPED, "", NO_RATINGS, details[i]))
            continue
        needed = k if k is not None else n // 2 + 1
        top = int(counts[i].max())
        winners = np.flatnonzero(counts[i] == top)
        if top < needed or len(winners) > 1:
            out.append(Decision(int(pair_id), DISPUTED, "", NO_MAJORITY, {**details[i], "needed": needed}))
            continue
        category = int(winners[0])
        out.append(settled(int(pair_id), ratings.variable.categories[category], sides[category], details[i],
                           keep_tie=keep_tie))
    return out


def decide_unanimous(ratings: PairRatings, params: dict) -> list[Decision]:
    """Keep when every rating names the same side (or the tie the schema offers, unless ``strict_winner``); a
    split is a dispute, a unanimous tie on a scale a drop."""
    require_sides(ratings, "unanimous")
    counts = ratings.category_counts()
    sides = category_sides(ratings)
    details = item_details(ratings.counts, ratings.variable)
    keep_tie = keeps_ties(ratings, params)
    out = []
    for i, pair_id in enumerate(ratings.pair_ids):
        n = int(counts[i].sum())
        if n < params["min_ratings"]:
            out.append(Decision(int(pair_id), DROPPED, "", NO_RATINGS, details[i]))
        elif int(counts[i].max()) != n:
            out.append(Decision(int(pair_id), DISPUTED, "", NOT_UNANIMOUS, details[i]))
        else:
            category = int(counts[i].argmax())
            out.append(settled(int(pair_id), ratings.variable.categories[category], sides[category], details[i],
                               keep_tie=keep_tie))
    return out


register(ConsensusPolicy(
    name="majority",
    scope="pair",
    defaults={"k": None, "strict_winner": False},
    decide=decide_majority,
    description="Keep when at least k ratings (default: a strict majority) choose the same side, or the "
                "schema's tie unless strict_winner.",
))
register(ConsensusPolicy(
    name="unanimous",
    scope="pair",
    defaults={"min_ratings": 1, "strict_winner": False},
    decide=decide_unanimous,
    description="Keep only when every rating chooses the same side, or the schema's tie unless strict_winner.",
))
