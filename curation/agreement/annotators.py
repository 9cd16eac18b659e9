"""Annotator quality: agreement with the others, gold accuracy, position bias, speed, and their trends.

Every function works on one entry per rating of the report's primary question and is vectorised over
raters, so a campaign with a million ratings and thousands of raters stays fast.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binom

from curation.agreement.variables import SIDE_A, SIDE_B


def leave_one_out_majority(unit: np.ndarray, category: np.ndarray, *, n_units: int, n_categories: int) -> np.ndarray:
    """Per rating: the category the *other* ratings of its unit hold strictly the most of, -1 when none does
    (the other ratings tie for first, or there is no other rating). The rating's own vote never counts."""
    counts = np.bincount(unit * n_categories + category, minlength=n_units * n_categories).reshape(n_units, n_categories)
    others = counts[unit]
    others[np.arange(len(unit)), category] -= 1
    top = others.max(axis=1)
    unique = ((others == top[:, None]).sum(axis=1) == 1) & (top > 0)
    return np.where(unique, others.argmax(axis=1), -1)


def leave_one_out_agreement(unit: np.ndarray, category: np.ndarray, *, n_units: int, n_categories: int) -> np.ndarray:
    """Per rating: 1 when it matches the other ratings' majority (``leave_one_out_majority``), 0 when not, -1
    when there is none."""
    majority = leave_one_out_majority(unit, category, n_units=n_units, n_categories=n_categories)
    return np.where(majority >= 0, (majority == category).astype(np.int64), -1)


def chose_left(side: np.ndarray, swapped: np.ndarray) -> np.ndarray:
    """Per rating: 1 when it chose the response shown on the left, 0 the right, -1 no side or orientation unknown.

    ``side`` is in canonical orientation (A, B or none); ``swapped`` is 1 when B was shown on the left,
    0 when A was, -1 when unknown (imported ratings).
    """
    out = np.where(((side == SIDE_A) & (swapped == 0)) | ((side == SIDE_B) & (swapped == 1)), 1, 0)
    return np.where((side < 0) | (swapped < 0), -1, out)


def binomial_two_sided_half(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Two-sided binomial test p-values of k successes in n trials against p = 1/2 (scipy's binomtest, vectorised).

    For p = 1/2 the distribution is symmetric, so the values as extreme as k are those at most
    min(k, n − k) or at least max(k, n − k). NaN where n is 0.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore"):
        p = np.minimum(1.0, 2.0 * binom.cdf(np.minimum(k, n - k), n, 0.5))
    return np.where(n > 0, p, np.nan)


def _na(series: pd.Series, fill=np.nan) -> pd.Series:
    return series.where(series >= 0, fill).astype(float)


def _frame(rater, agree, gold_correct, left, time_ms, period) -> pd.DataFrame:
    return pd.DataFrame({
        "rater": rater,
        "period": period,
        "agree": _na(pd.Series(agree)),
        "gold": _na(pd.Series(gold_correct)),
        "left": _na(pd.Series(left)),
        "time": np.asarray(time_ms, dtype=float),
    })


def _aggregate(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return frame.groupby(keys, sort=True).agg(
        ratings=("agree", "size"),
        loo_compared=("agree", "count"),
        loo_agreement=("agree", "mean"),
        gold_ratings=("gold", "count"),
        gold_accuracy=("gold", "mean"),
        position_choices=("left", "count"),
        left_choices=("left", "sum"),
        timed_ratings=("time", "count"),
        median_time_ms=("time", "median"),
    )


def _clean(value):
    if isinstance(value, float | np.floating):
        return None if np.isnan(value) else float(value)
    if isinstance(value, np.integer | np.bool_):
        return value.item()
    return value


def annotator_statistics(
    *,
    rater: np.ndarray,
    agree: np.ndarray,
    gold_correct: np.ndarray,
    left: np.ndarray,
    time_ms: np.ndarray,
    period: np.ndarray,
    rater_keys: list[str],
    category: np.ndarray | None = None,
    majority: np.ndarray | None = None,
    n_categories: int = 0,
) -> list[dict]:
    """One row per rater with every quality figure, its flags and its weekly trend, rater keys in sorted order.

    All arrays have one entry per rating of the primary question: ``agree`` from
    ``leave_one_out_agreement``, ``gold_correct`` (1 right, 0 wrong, -1 not a gold pair), ``left`` from
    ``chose_left``, ``time_ms`` (NaN unknown) and ``period`` (ISO year × 100 + ISO week; 0 when unknown,
    which leaves the rating out of the trend). ``category`` and ``majority`` (the rating's answer and the other
    raters' majority, ``leave_one_out_majority``) give each rater's chance agreement. The flags are
    ``curation.quality``'s rules, the same the dashboards apply: guessing (leave-one-out agreement no better
    than chance, or below the panel's median), position bias (binomial p < 0.01) and speed.
    """
    from curation import quality

    frame = _frame(rater, agree, gold_correct, left, time_ms, period)
    if frame.empty:
        return []
    per_rater = _aggregate(frame, ["rater"])
    per_rater["left_share"] = per_rater["left_choices"] / per_rater["position_choices"].replace(0, np.nan)
    per_rater["position_p_value"] = binomial_two_sided_half(per_rater["left_choices"], per_rater["position_choices"])
    per_rater["position_biased"] = ((per_rater["position_p_value"] < quality.POSITION_BIAS_P_VALUE)
                                    & (per_rater["position_choices"] >= quality.MIN_ITEMS_FOR_FLAGS))
    seconds = frame["time"].to_numpy() / 1000
    everyone_median = quality.median(seconds[~np.isnan(seconds)].tolist())
    times_of = {int(r): (t[~np.isnan(t)] / 1000).tolist() for r, t in frame.groupby("rater")["time"]}
    chance_of: dict[int, float | None] = {}
    if category is not None and majority is not None:
        compared = majority >= 0
        for r in np.unique(rater):
            mine = compared & (rater == r)
            chance_of[int(r)] = quality.chance_agreement(category[mine].tolist(), majority[mine].tolist(), n_categories)
    judged = per_rater["loo_compared"] >= quality.MIN_ITEMS_FOR_GUESSING
    panel = float(per_rater.loc[judged, "loo_agreement"].median()) if judged.any() else None
    per_week = _aggregate(frame, ["rater", "period"])
    per_week["left_share"] = per_week["left_choices"] / per_week["position_choices"].replace(0, np.nan)
    trend_columns = ["ratings", "loo_agreement", "gold_accuracy", "left_share", "median_time_ms"]
    trends: dict[int, list[dict]] = {}
    for (r, period_key), row in zip(per_week.index, per_week[trend_columns].itertuples(index=False), strict=True):
        if period_key <= 0:
            continue
        week = {"week": f"{int(period_key) // 100}-W{int(period_key) % 100:02d}"}
        week.update({name: _clean(value) for name, value in zip(trend_columns, row, strict=True)})
        trends.setdefault(int(r), []).append(week)
    columns = ["ratings", "loo_compared", "loo_agreement", "gold_ratings", "gold_accuracy", "position_choices",
               "left_share", "position_p_value", "position_biased", "timed_ratings", "median_time_ms"]
    rows = []
    for r, row in zip(per_rater.index, per_rater[columns].itertuples(index=False), strict=True):
        entry = {"rater": rater_keys[int(r)]}
        entry.update({name: _clean(value) for name, value in zip(columns, row, strict=True)})
        compared_n = int(entry["loo_compared"] or 0)
        agreeing = round((entry["loo_agreement"] or 0) * compared_n)
        low, high = quality.wilson_interval(agreeing, compared_n)
        chance = chance_of.get(int(r))
        entry["loo_agreement_ci95"] = None if low is None else [round(low, 4), round(high, 4)]
        entry["loo_chance"] = None if chance is None else round(chance, 4)
        fast = quality.fast_work(times_of.get(int(r), []), everyone_median=everyone_median)
        entry["fast"] = fast.flagged
        guessing = quality.guessing_flag(agreeing, compared_n, chance=chance, panel=panel)
        entry["guessing"] = guessing is not None
        position = quality.position_flag(int(per_rater.at[r, "left_choices"]), int(row.position_choices))
        entry["flags"] = [flag for flag in (guessing, position) if flag] + list(fast.reasons)
        entry["trend"] = trends.get(int(r), [])
        rows.append(entry)
    return rows
