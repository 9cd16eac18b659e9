"""Dawid–Skene aggregation: weigh raters by their estimated confusion matrices (``curation.consensus.em``).

The EM runs to its convergence criterion (``tol``, relative change of the log posterior) or ``max_iter``;
every decision records the fit's iterations, log-likelihood and whether it converged.
"""

from __future__ import annotations

import numpy as np

from curation.consensus.base import (
    DISPUTED,
    DROPPED,
    LOW_POSTERIOR,
    NO_RATINGS,
    ConsensusPolicy,
    Decision,
    PairRatings,
    PolicyError,
    item_details,
    register,
    require_sides,
)
from curation.consensus.em import EMResult, dawid_skene
from curation.consensus.voting import category_sides, keeps_ties, settled

# The Dirichlet pseudo-count on every confusion cell; chosen on bench/consensus_sim.py (bench/README.md).
SMOOTHING = 1.0


def posteriors(ratings: PairRatings, *, max_iter: int, tol: float, smoothing: float) -> EMResult:
    """The fitted model over stable raters' ratings: (pairs × categories) posteriors, NaN rows for pairs without
    one. An anonymous slot rates one pair only, so it has no confusion matrix to learn."""
    variable = ratings.variable
    category_of = np.asarray(variable.category_of_code)
    person = np.ones(len(ratings.unit), dtype=bool) if ratings.stable is None else ratings.stable
    _, rater = np.unique(ratings.rater[person], return_inverse=True)
    return dawid_skene(ratings.unit[person], rater.reshape(-1), category_of[ratings.code[person]],
                       n_units=len(ratings.pair_ids), n_categories=len(variable.categories), max_iter=max_iter,
                       tol=tol, smoothing=smoothing)


def _refuse_anonymous_only_pairs(ratings: PairRatings) -> None:
    """A pair rated only by anonymous slots has nobody the model could weigh: refuse rather than drop it."""
    if ratings.stable is None or ratings.stable.all():
        return
    rated = np.zeros(len(ratings.pair_ids), dtype=bool)
    rated[ratings.unit] = True
    by_person = np.zeros(len(ratings.pair_ids), dtype=bool)
    by_person[ratings.unit[ratings.stable]] = True
    only_anonymous = int(np.count_nonzero(rated & ~by_person))
    if only_anonymous:
        raise PolicyError(
            f"dawid-skene weighs raters by identity, but {only_anonymous:,} pair(s) have ratings only from anonymous "
            f"slots ({ratings.anonymous_ratings():,} ratings imported without a stable rater identity); "
            "decide them with a policy that counts ratings, such as majority or mmrb2-generation"
        )


def decide_dawid_skene(ratings: PairRatings, params: dict) -> list[Decision]:
    """Keep when the most probable category is a side (or the schema's tie, unless ``strict_winner``) with
    posterior at least ``threshold``; below it the pair is disputed. ``unit`` must index ``pair_ids``.

    A criteria question is decided per criterion: each (pair, criterion) is a unit a rater labels once."""
    require_sides(ratings, "dawid-skene")
    threshold = params["threshold"]
    if not isinstance(threshold, int | float) or not 0.5 <= threshold <= 1:
        raise PolicyError("dawid-skene: threshold is a posterior probability between 0.5 and 1")
    _refuse_anonymous_only_pairs(ratings)
    for name in ("max_iter", "tol", "smoothing"):
        value = params[name]
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise PolicyError(f"dawid-skene: {name} must be a number of at least 0")
    fit = posteriors(ratings, max_iter=max(1, int(params["max_iter"])), tol=float(params["tol"]),
                     smoothing=float(params["smoothing"]))
    probabilities = fit.posterior
    model = fit.summary()
    sides = category_sides(ratings)
    details = item_details(ratings.counts, ratings.variable)
    keep_tie = keeps_ties(ratings, params)
    out = []
    for i, pair_id in enumerate(ratings.pair_ids):
        row = probabilities[i]
        if np.isnan(row).all():
            out.append(Decision(int(pair_id), DROPPED, "", NO_RATINGS, details[i]))
            continue
        category = int(np.argmax(row))
        info = {**details[i], "posterior": float(row[category]), "model": model}
        if row[category] < threshold:
            out.append(Decision(int(pair_id), DISPUTED, "", LOW_POSTERIOR, info))
        else:
            out.append(settled(int(pair_id), ratings.variable.categories[category], sides[category], info,
                               keep_tie=keep_tie))
    return out


register(ConsensusPolicy(
    name="dawid-skene",
    scope="pair",
    defaults={"threshold": 0.9, "max_iter": 500, "tol": 1e-9, "smoothing": SMOOTHING, "strict_winner": False},
    decide=decide_dawid_skene,
    description="Dawid–Skene posterior (EM run to convergence) over stable raters; keep when the winning side "
                "reaches the threshold.",
    models_raters=True,
))
