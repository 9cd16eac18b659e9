"""MMRB2's consensus rules, exactly as the benchmark was built (Hu et al., 2026)."""

from __future__ import annotations

import numpy as np

from curation.agreement.variables import SIDE_NONE
from curation.consensus.base import (
    BOTH_PREFERRED,
    BOTH_REJECTED,
    DISPUTED,
    DROPPED,
    KEPT,
    MAJORITY_TIE,
    MEAN_IN_TIE_BAND,
    NO_RATINGS,
    RESPONSE_DISAGREEMENT,
    RESPONSE_UNRATED,
    RESPONSE_USED_TWICE,
    SPREAD_TOO_WIDE,
    ConsensusPolicy,
    Decision,
    PairRatings,
    PolicyError,
    item_details,
    register,
    require_sides,
)


def decide_generation(ratings: PairRatings, params: dict) -> list[Decision]:
    """Drop when spread > ``max_spread``, when the mean lies in ``tie_band`` (inclusive), or when tie
    ratings (3 or 4) are a strict majority; otherwise keep, choosing A exactly when the mean > ``threshold``.

    A spread above the limit is a dispute (the raters disagree); the other drops are settled outcomes.
    """
    require_sides(ratings, "mmrb2-generation")
    variable = ratings.variable
    if not variable.numeric:
        raise PolicyError(f"policy 'mmrb2-generation' needs a numeric scale, not {variable.qid!r}")
    low, high = params["tie_band"]
    counts = ratings.counts
    n = counts.sum(axis=1)
    values = variable.values
    ties = counts[:, np.asarray(variable.side_of_code) == SIDE_NONE].sum(axis=1)
    details = item_details(counts, variable)
    out = []
    for i, pair_id in enumerate(ratings.pair_ids):
        info = details[i]
        if n[i] == 0:
            out.append(Decision(int(pair_id), DROPPED, "", NO_RATINGS, info))
            continue
        mean = float(counts[i] @ values) / n[i]
        if info["spread"] > params["max_spread"]:
            out.append(Decision(int(pair_id), DISPUTED, "", SPREAD_TOO_WIDE, info))
        elif low <= mean <= high:
            out.append(Decision(int(pair_id), DROPPED, "", MEAN_IN_TIE_BAND, info))
        elif ties[i] * 2 > n[i]:
            out.append(Decision(int(pair_id), DROPPED, "", MAJORITY_TIE, info))
        else:
            out.append(Decision(int(pair_id), KEPT, "A" if mean > params["threshold"] else "B", "", info))
    return out


PREFERRED, REJECTED, DISCARDED, UNRATED = "preferred", "rejected", "discarded", "unrated"
# ``both_preferred``: what a pair of two unanimously preferred responses becomes.
BOTH_PREFERRED_CHOICES = ("keep", "drop")
# ``unique_responses``: which responses a kept pair may not share with an earlier kept pair.
UNIQUE_CHOICES = ("chosen", "all", "none")


def response_verdicts(counts: np.ndarray, rejected: np.ndarray, variable, params: dict) -> np.ndarray:
    """Per pair and response: preferred (every rating in ``preferred_values``), rejected (every rating in
    ``rejected_values``, or marked rejected for a wrong final answer), discarded (raters disagree) or unrated."""
    domain = np.asarray(variable.domain)
    preferred_codes = np.isin(domain, params["preferred_values"])
    rejected_codes = np.isin(domain, params["rejected_values"])
    n = counts.sum(axis=-1)
    all_preferred = (counts[..., preferred_codes].sum(axis=-1) == n) & (n > 0)
    all_rejected = (counts[..., rejected_codes].sum(axis=-1) == n) & (n > 0)
    verdict = np.where(all_preferred, PREFERRED, np.where(all_rejected, REJECTED, np.where(n > 0, DISCARDED, UNRATED)))
    return np.where(rejected, REJECTED, verdict)


def _unique_mode(value) -> str:
    """``unique_responses`` as one of UNIQUE_CHOICES; true and false are read as "all" and "none"."""
    if value is True or value is False:
        return "all" if value else "none"
    if value not in UNIQUE_CHOICES:
        raise PolicyError(f"unique_responses must be one of {', '.join(UNIQUE_CHOICES)} (or true / false), not {value!r}")
    return value


def decide_reasoning(ratings: PairRatings, params: dict) -> list[Decision]:
    """Keep a pair of one preferred and one rejected response, choosing the preferred one; a response whose
    raters disagree discards the pair (a dispute); two rejected responses drop it.

    Two preferred responses: with ``both_preferred`` "keep" (the default, as the release has it) the pair is
    kept and chosen = A exactly when A's mean rating is better (lower) than B's, else B, the form of the
    generation rule (A exactly when the mean is above 3.5); "drop" drops it (``both_preferred``).

    ``unique_responses``, taking pairs in the given order: "chosen" (the default) drops a pair whose chosen
    response is already the chosen response of a kept pair; "all" drops a pair that uses any response of a
    kept pair (the paper's "no response appears in two pairs"); "none" checks nothing. Responses are the same
    when their ids are (Concord stores identical outputs of one model for one prompt once)."""
    variable = ratings.variable
    if ratings.counts.ndim != 3 or not variable.numeric:
        raise PolicyError(f"policy 'mmrb2-reasoning' needs a per-response scale, not {variable.qid!r}")
    if params["both_preferred"] not in BOTH_PREFERRED_CHOICES:
        raise PolicyError(f"both_preferred must be one of {', '.join(BOTH_PREFERRED_CHOICES)}, "
                          f"not {params['both_preferred']!r}")
    unique = _unique_mode(params["unique_responses"])
    if ratings.response_ids is None:
        unique = "none"
    rejected = ratings.rejected if ratings.rejected is not None else np.zeros((len(ratings.pair_ids), 2), dtype=bool)
    verdicts = response_verdicts(ratings.counts, rejected, variable, params)
    values = np.asarray(variable.values, dtype=float)
    used: set[int] = set()
    out = []
    for i, pair_id in enumerate(ratings.pair_ids):
        a, b = verdicts[i]
        info = {"response_a": str(a), "response_b": str(b),
                "ratings_a": int(ratings.counts[i, 0].sum()), "ratings_b": int(ratings.counts[i, 1].sum())}
        if UNRATED in (a, b):
            out.append(Decision(int(pair_id), DROPPED, "", RESPONSE_UNRATED, info))
            continue
        if DISCARDED in (a, b):
            out.append(Decision(int(pair_id), DISPUTED, "", RESPONSE_DISAGREEMENT, info))
            continue
        if a == b == REJECTED:
            out.append(Decision(int(pair_id), DROPPED, "", BOTH_REJECTED, info))
            continue
        if a == b == PREFERRED:
            if params["both_preferred"] == "drop":
                out.append(Decision(int(pair_id), DROPPED, "", BOTH_PREFERRED, info))
                continue
            mean_a = float(ratings.counts[i, 0] @ values) / info["ratings_a"]
            mean_b = float(ratings.counts[i, 1] @ values) / info["ratings_b"]
            info.update({"mean_a": mean_a, "mean_b": mean_b})
            chosen = "A" if mean_a < mean_b else "B"
        else:
            chosen = "A" if a == PREFERRED else "B"
        if unique == "all":
            checked = [int(x) for x in ratings.response_ids[i]]
        elif unique == "chosen":
            checked = [int(ratings.response_ids[i]["AB".index(chosen)])]
        else:
            checked = []
        if any(x >= 0 and x in used for x in checked):
            out.append(Decision(int(pair_id), DROPPED, "", RESPONSE_USED_TWICE, info))
            continue
        used.update(x for x in checked if x >= 0)
        out.append(Decision(int(pair_id), KEPT, chosen, "", info))
    return out


register(ConsensusPolicy(
    name="mmrb2-generation",
    scope="pair",
    defaults={"max_spread": 4, "tie_band": [3.0, 4.0], "threshold": 3.5},
    decide=decide_generation,
    description="MMRB2 generation tasks: drop on spread > 4, mean in [3, 4] or a tie majority; A when mean > 3.5.",
))
register(ConsensusPolicy(
    name="mmrb2-reasoning",
    scope="response",
    defaults={"question": "correctness", "preferred_values": [1, 2], "rejected_values": [3, 4, 5],
              "both_preferred": "keep", "unique_responses": "chosen"},
    decide=decide_reasoning,
    description="MMRB2 reasoning: pair one unanimously preferred (1–2) with one rejected (3–5 or wrong answer) "
                "response; reproduces the released file (stricter: both_preferred drop, unique_responses all).",
))
