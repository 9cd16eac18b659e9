"""Dawid–Skene aggregation (crowd-kit): weigh raters by their estimated confusion matrices."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from crowdkit.aggregation import DawidSkene

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
from curation.consensus.voting import category_sides, keeps_ties, settled


def posteriors(ratings: PairRatings, *, n_iter: int, tol: float) -> np.ndarray:
    """(pairs × categories) posterior probability of each category from stable raters' ratings; rows of
    pairs without one are NaN. An anonymous slot rates one pair only, so it has no confusion matrix to learn."""
    variable = ratings.variable
    category_of = np.asarray(variable.category_of_code)
    out = np.full((len(ratings.pair_ids), len(variable.categories)), np.nan)
    person = np.ones(len(ratings.unit), dtype=bool) if ratings.stable is None else ratings.stable
    if not person.any():
        return out
    frame = pd.DataFrame({"task": ratings.unit[person], "worker": ratings.rater[person],
                          "label": category_of[ratings.code[person]]})
    with warnings.catch_warnings():
        # crowd-kit 1.4 still uses pandas keywords that pandas 3 deprecates; the results are unaffected.
        warnings.simplefilter("ignore", DeprecationWarning)
        probas = DawidSkene(n_iter=n_iter, tol=tol).fit_predict_proba(frame)
    probas = probas.reindex(columns=range(len(variable.categories)), fill_value=0.0)
    out[probas.index.to_numpy(dtype=np.int64)] = probas.to_numpy(dtype=float)
    return out


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
    probabilities = posteriors(ratings, n_iter=int(params["n_iter"]), tol=float(params["tol"]))
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
        info = {**details[i], "posterior": float(row[category])}
        if row[category] < threshold:
            out.append(Decision(int(pair_id), DISPUTED, "", LOW_POSTERIOR, info))
        else:
            out.append(settled(int(pair_id), ratings.variable.categories[category], sides[category], info,
                               keep_tie=keep_tie))
    return out


register(ConsensusPolicy(
    name="dawid-skene",
    scope="pair",
    defaults={"threshold": 0.9, "n_iter": 100, "tol": 1e-5, "strict_winner": False},
    decide=decide_dawid_skene,
    description="Dawid–Skene posterior (crowd-kit) over stable raters; keep when the winning side reaches the threshold.",
    models_raters=True,
))
