"""The agreement report of a rating table: every figure a dashboard shows, as JSON-ready data."""

from __future__ import annotations

import math

import numpy as np

from curation.agreement import alpha as kalpha
from curation.agreement.annotators import annotator_statistics, chose_left, leave_one_out_majority
from curation.agreement.stats import fleiss_kappa, item_statistics, pairwise_agreement_excluding_ties, percent_agreement
from curation.agreement.table import RatingTable
from curation.agreement.variables import LEVELS, SIDE_NONE, Variable, primary_variable

MOST_DISPUTED = 20
ANONYMOUS_WHY = ("imported without a stable rater identity: each is one rating slot of one pair "
                 "(e.g. MMRB2's three anonymous ratings), never a person")


def _finite(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else float(x)


def variable_agreement(table: RatingTable, variable: Variable, *, bootstrap: int, seed: int,
                       confidence: float = 0.95, progress=None) -> dict:
    """Alpha at every level the question allows (nominal on its categories), with bootstrap intervals,
    percent agreement, Fleiss' kappa and, for oriented questions, MMRB2's pairwise agreement excluding ties.

    ``measured`` names, per figure, the variable and level of measurement it was computed on.
    """
    obs = table.observations[variable.qid]
    counts = obs.counts(len(variable.domain))
    category_counts = counts @ variable.category_matrix()
    rated = counts.sum(axis=1)
    result = {
        "units": int(np.count_nonzero(rated)),
        "pairable_units": int(np.count_nonzero(rated >= 2)),
        "ratings": int(rated.sum()),
        # How often each answer was given, over every rating of the question (domain order).
        "distribution": [{"value": value, "ratings": int(n)} for value, n in zip(variable.domain, counts.sum(axis=0),
                                                                                 strict=True)],
        "alpha": {},
        "alpha_ci95": {},
        "measured": measured(variable),
    }
    for level in LEVELS:
        if level not in variable.levels:
            result["alpha"][level] = None
            result["alpha_ci95"][level] = None
            continue
        if level == "nominal":
            level_counts, values = category_counts, np.arange(len(variable.categories), dtype=float)
        else:
            level_counts, values = counts, variable.values
        result["alpha"][level] = kalpha.alpha(level_counts, level=level, values=values)
        samples = kalpha.alpha_bootstrap(level_counts, level=level, values=values, resamples=bootstrap, seed=seed)
        interval = kalpha.percentile_interval(samples, confidence=confidence) if result["alpha"][level] is not None else None
        result["alpha_ci95"][level] = interval
        if progress:
            progress()
    result["percent_agreement"] = percent_agreement(category_counts)
    result["fleiss_kappa"] = fleiss_kappa(category_counts)
    if variable.oriented:
        agreement, rater_pairs = pairwise_agreement_excluding_ties(counts @ variable.side_matrix())
        result["pairwise_agreement_excluding_ties"] = agreement
        result["side_rater_pairs"] = rater_pairs
    else:
        result["pairwise_agreement_excluding_ties"] = None
        result["side_rater_pairs"] = 0
    return result


def measured(variable: Variable) -> dict:
    """Per figure of ``variable_agreement``: the variable and level of measurement it is computed on."""
    return {
        "alpha": {level: variable.measured(level) if level in variable.levels else None for level in LEVELS},
        "percent_agreement": variable.measured("nominal"),
        "fleiss_kappa": variable.measured("nominal"),
        "pairwise_agreement_excluding_ties": variable.measured_sides() if variable.oriented else None,
    }


def items_summary(table: RatingTable, variable: Variable) -> tuple[dict, dict[str, np.ndarray]]:
    """Distribution of the per-item statistics and the most disputed units; also the per-unit arrays."""
    obs = table.observations[variable.qid]
    counts = obs.counts(len(variable.domain))
    stats = item_statistics(counts, values=variable.values if variable.numeric else None,
                            category_matrix=variable.category_matrix())
    rated = stats["n"] > 0
    summary = {
        "rated_units": int(rated.sum()),
        "with_majority": int((stats["majority"] >= 0).sum()),
        "majority_by_category": {
            name: int((stats["majority"] == i).sum()) for i, name in enumerate(variable.categories)
        },
        "mean_entropy_bits": _finite(float(np.nanmean(stats["entropy"]))) if rated.any() else None,
        "mean_majority_share": _finite(float(np.nanmean(stats["share"]))) if rated.any() else None,
    }
    if variable.numeric and rated.any():
        spread = stats["spread"][rated].astype(int)
        values, frequency = np.unique(spread, return_counts=True)
        summary["spread_histogram"] = {str(int(v)): int(f) for v, f in zip(values, frequency, strict=True)}
    order = np.lexsort((-stats["spread"], -stats["entropy"]))
    disputed = [u for u in order[: MOST_DISPUTED * 4] if rated[u] and stats["entropy"][u] > 0][:MOST_DISPUTED]
    summary["most_disputed"] = [_unit_entry(table, variable, obs, stats, int(u)) for u in disputed]
    return summary, stats


def _unit_entry(table, variable, obs, stats, u: int) -> dict:
    entry = {"pair_id": int(table.pair_ids[obs.unit_pair[u]])}
    if variable.scope == "response":
        entry["response"] = "AB"[u % 2]
    majority = int(stats["majority"][u])
    entry.update({
        "ratings": int(stats["n"][u]),
        "mean": _finite(float(stats["mean"][u])),
        "spread": _finite(float(stats["spread"][u])),
        "majority": variable.categories[majority] if majority >= 0 else None,
        "share": _finite(float(stats["share"][u])),
        "entropy_bits": _finite(float(stats["entropy"][u]) + 0.0),
    })
    return entry


def annotators_section(table: RatingTable, variable: Variable) -> list[dict]:
    """Per-rater quality figures on the primary question, for stable raters only.

    An anonymous slot's ratings still count in the others' leave-one-out consensus; they get no row.
    """
    obs = table.observations[variable.qid]
    category_of = np.asarray(variable.category_of_code, dtype=np.int64)
    category = category_of[obs.code]
    majority = leave_one_out_majority(obs.unit, category, n_units=obs.n_units, n_categories=len(variable.categories))
    agree = np.where(majority >= 0, (majority == category).astype(np.int64), -1)
    gold = table.gold.get(variable.qid)
    if gold is not None and len(gold):
        gold_code = gold[obs.unit]
        gold_correct = np.where(gold_code >= 0, (category_of[np.maximum(gold_code, 0)] == category).astype(np.int64), -1)
    else:
        gold_correct = np.full(len(obs.unit), -1, dtype=np.int64)
    if variable.oriented and variable.scope == "pair":
        side = np.asarray(variable.side_of_code, dtype=np.int64)[obs.code]
        left = chose_left(side, table.swapped[obs.row])
    else:
        left = np.full(len(obs.unit), SIDE_NONE, dtype=np.int64)
    person = table.stable()[obs.rater]
    return annotator_statistics(
        rater=obs.rater[person], agree=agree[person], gold_correct=gold_correct[person], left=left[person],
        time_ms=table.time_ms[obs.row][person], period=table.period[obs.row][person], rater_keys=table.rater_keys,
        category=category[person], majority=majority[person], n_categories=len(variable.categories),
    )


def rater_identities(table: RatingTable) -> dict:
    """How many raters are people (stable identities), and the ratings of anonymous slots left out of
    every per-rater figure, with the reason."""
    stable = table.stable()
    rated = np.unique(table.rater)
    anonymous_ratings = int(np.count_nonzero(~stable[table.rater]))
    return {
        "stable_raters": int(np.count_nonzero(stable[rated])),
        "anonymous_slots": int(np.count_nonzero(~stable[rated])),
        "anonymous_ratings": anonymous_ratings,
        "left_out_of_per_rater_figures": anonymous_ratings,
        "why": ANONYMOUS_WHY if anonymous_ratings else None,
    }


def agreement_report(table: RatingTable, *, bootstrap: int = 1000, seed: int = 0, confidence: float = 0.95,
                     progress=None) -> dict:
    """The full report: headline figures on the primary question, every other question, items, annotators.

    ``progress`` (optional) is called once per alpha level computed, so a job can show live progress.
    Percentages are in percent (0..100); alphas and kappa in their natural range; null where undefined.
    """
    primary = primary_variable(table.variables)
    identities = rater_identities(table)
    report = {
        "items": int(np.unique(table.pair).size),
        "annotations": int(table.annotations),
        "raters": identities["stable_raters"],
        "rater_identities": identities,
        "primary_question": primary.qid if primary else None,
        "bootstrap": {"resamples": bootstrap, "seed": seed, "confidence": confidence},
    }
    per_dimension = {}
    for qid, variable in table.variables.items():
        per_dimension[qid] = variable_agreement(table, variable, bootstrap=bootstrap, seed=seed,
                                                confidence=confidence, progress=progress)
    report["per_dimension"] = per_dimension
    headline = per_dimension[primary.qid] if primary else {}
    for key in ("alpha", "alpha_ci95", "pairwise_agreement_excluding_ties", "percent_agreement", "fleiss_kappa",
                "pairable_units", "side_rater_pairs", "measured"):
        report[key] = headline.get(key, {level: None for level in LEVELS} if key.startswith("alpha") else None)
    if primary is not None:
        report["items_summary"], _ = items_summary(table, primary)
        report["annotators"] = annotators_section(table, primary)
    else:
        report["items_summary"], report["annotators"] = {}, []
    return report


def alpha_steps(table: RatingTable) -> int:
    """How many times ``agreement_report`` calls ``progress``: one per question and allowed level."""
    return sum(len(v.levels) for v in table.variables.values())
