"""What every consensus policy takes and returns, the reason codes, and the registry of policies by name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from curation.agreement.stats import item_statistics
from curation.agreement.variables import Variable

KEPT, DROPPED, DISPUTED = "kept", "dropped", "disputed"

# Reason codes. A *dispute* means the raters disagree, so more ratings or a curator could settle it;
# every other drop is a settled outcome (the raters agree there is no clear preference).
SPREAD_TOO_WIDE = "spread_too_wide"
MEAN_IN_TIE_BAND = "mean_in_tie_band"
MAJORITY_TIE = "majority_tie"
MAJORITY_NO_SIDE = "majority_no_side"
NO_MAJORITY = "no_majority"
NOT_UNANIMOUS = "not_unanimous"
LOW_POSTERIOR = "low_posterior"
BOTH_PREFERRED = "both_preferred"
BOTH_REJECTED = "both_rejected"
RESPONSE_DISAGREEMENT = "response_disagreement"
RESPONSE_UNRATED = "response_unrated"
RESPONSE_USED_TWICE = "response_used_twice"
NO_RATINGS = "no_ratings"
DISPUTE_REASONS = frozenset({SPREAD_TOO_WIDE, NO_MAJORITY, NOT_UNANIMOUS, LOW_POSTERIOR, RESPONSE_DISAGREEMENT})


class PolicyError(ValueError):
    """A policy cannot decide on these ratings (wrong kind of question, bad parameters, unknown name)."""


@dataclass(frozen=True)
class PairRatings:
    """The ratings a policy decides on, for a batch of pairs.

    ``counts`` holds value counts of ``variable``: (pairs × values) for a pair-level question,
    (pairs × 2 × values) for a per-response one (index 0 is A). ``unit``, ``rater`` and ``code`` list
    every rating (unit = pair position) for policies that model raters. ``rejected`` (pairs × 2) marks
    responses rejected without rating (a wrong final answer); ``response_ids`` (pairs × 2) identify
    responses across pairs, -1 where unknown. ``stable`` (one per rating) is False for a rating of an
    anonymous slot, whose rater is no person a policy could model (None: every rater is stable).
    """

    pair_ids: np.ndarray
    variable: Variable
    counts: np.ndarray
    unit: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    rater: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    code: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    rejected: np.ndarray | None = None
    response_ids: np.ndarray | None = None
    stable: np.ndarray | None = None

    def category_counts(self) -> np.ndarray:
        return self.counts @ self.variable.category_matrix()

    def subset(self, keep: np.ndarray) -> PairRatings:
        """Only the pairs where ``keep`` is true, in the same order; rating units re-indexed to match."""
        position = np.cumsum(keep) - 1
        rated = keep[self.unit]
        return PairRatings(
            pair_ids=self.pair_ids[keep], variable=self.variable, counts=self.counts[keep],
            unit=position[self.unit[rated]], rater=self.rater[rated], code=self.code[rated],
            rejected=None if self.rejected is None else self.rejected[keep],
            response_ids=None if self.response_ids is None else self.response_ids[keep],
            stable=None if self.stable is None else self.stable[rated],
        )

    def anonymous_ratings(self) -> int:
        """How many ratings come from anonymous slots rather than stable raters."""
        return 0 if self.stable is None else int(np.count_nonzero(~self.stable))


@dataclass(frozen=True)
class CriterionDecision:
    """One criterion's outcome within a pair (criteria questions): as a Decision, named by its criterion text."""

    criterion: str
    decision: str
    chosen: str = ""
    reason: str = ""
    details: dict = field(default_factory=dict)

    def as_json(self) -> dict:
        return {"criterion": self.criterion, "decision": self.decision, "chosen": self.chosen, "reason": self.reason,
                "details": self.details}


@dataclass(frozen=True)
class Decision:
    """One pair's outcome: ``decision`` kept / dropped / disputed, ``chosen`` A, B or tie when kept, else "".

    ``criteria``: for a criteria question, each criterion's own outcome, in the pair's order.
    """

    pair_id: int
    decision: str
    chosen: str = ""
    reason: str = ""
    details: dict = field(default_factory=dict)
    criteria: tuple[CriterionDecision, ...] = ()


@dataclass(frozen=True)
class ConsensusPolicy:
    """A named policy: ``decide(ratings, params)`` returns one Decision per pair, in the order of ``pair_ids``.

    ``models_raters``: the policy weighs raters by identity, so it reads stable raters' ratings only.
    """

    name: str
    scope: str
    defaults: dict
    decide: Callable[[PairRatings, dict], list[Decision]]
    description: str
    models_raters: bool = False

    def params(self, overrides: dict | None) -> dict:
        """The defaults with ``overrides`` applied; an unknown parameter is refused."""
        overrides = overrides or {}
        unknown = sorted(set(overrides) - set(self.defaults))
        if unknown:
            raise PolicyError(f"policy {self.name!r} has no parameter {', '.join(unknown)}; "
                              f"it takes {', '.join(sorted(self.defaults)) or 'none'}")
        return {**self.defaults, **overrides}


_REGISTRY: dict[str, ConsensusPolicy] = {}


def register(policy: ConsensusPolicy) -> ConsensusPolicy:
    """Make ``policy`` available by name; a second policy with the same name is refused."""
    if policy.name in _REGISTRY:
        raise PolicyError(f"a consensus policy named {policy.name!r} is already registered")
    _REGISTRY[policy.name] = policy
    return policy


def get_policy(name: str) -> ConsensusPolicy:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise PolicyError(f"unknown consensus policy {name!r}; choose one of {', '.join(policy_names())}") from None


def policy_names() -> list[str]:
    return sorted(_REGISTRY)


def item_details(counts: np.ndarray, variable: Variable) -> list[dict]:
    """Per pair: ratings, mean, spread, majority category and share, entropy (JSON-ready, None where undefined)."""
    stats = item_statistics(counts, values=variable.values if variable.numeric else None,
                            category_matrix=variable.category_matrix())
    out = []
    for i in range(counts.shape[0]):
        majority = int(stats["majority"][i])
        out.append({
            "ratings": int(stats["n"][i]),
            "mean": _num(stats["mean"][i]),
            "spread": _num(stats["spread"][i]),
            "majority": variable.categories[majority] if majority >= 0 else None,
            "share": _num(stats["share"][i]),
            "entropy_bits": _num(stats["entropy"][i]),
        })
    return out


def _num(x) -> float | None:
    x = float(x)
    return None if np.isnan(x) else x + 0.0


def require_sides(ratings: PairRatings, policy: str) -> None:
    """Refuse a question that names no side: a policy that keeps a pair must be able to choose A or B."""
    if not ratings.variable.oriented or ratings.counts.ndim != 2:
        raise PolicyError(f"policy {policy!r} needs a pair-level question that names a side (A/B), "
                          f"not {ratings.variable.qid!r}")


def pair_ratings_from_table(table, variable: Variable, *, rejected: np.ndarray | None = None,
                            response_ids: np.ndarray | None = None) -> PairRatings:
    """The ratings of ``variable`` in a ``curation.agreement.table.RatingTable``, one row per pair of the table.

    A criteria question has no single answer per pair: ``curation.consensus.criteria`` decides it per criterion.
    """
    if variable.scope == "criteria":
        raise PolicyError(f"{variable.qid!r} is a criteria question: decide it per criterion "
                          "(curation.consensus.criteria), never with the labels of a pair's criteria pooled")
    obs = table.observations[variable.qid]
    n_values = len(variable.domain)
    n_pairs = len(table.pair_ids)
    counts = obs.counts(n_values)
    if variable.scope == "response":
        counts = counts.reshape(n_pairs, 2, n_values)
    return PairRatings(pair_ids=np.asarray(table.pair_ids), variable=variable, counts=counts,
                       unit=obs.unit_pair[obs.unit], rater=obs.rater, code=obs.code,
                       rejected=rejected, response_ids=response_ids, stable=table.stable()[obs.rater])
