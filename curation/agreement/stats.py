"""Agreement between raters and per-item statistics, all from per-unit count matrices."""

from __future__ import annotations

import numpy as np


def _pairs(n: np.ndarray) -> np.ndarray:
    return n * (n - 1) / 2


def pairwise_agreement_excluding_ties(side_counts: np.ndarray) -> tuple[float | None, int]:
    """MMRB2's pairwise agreement in percent, and how many rater pairs it counts.

    ``side_counts`` is (units × 2): per unit, the ratings that chose A and those that chose B; ties are
    not in it, so only rater pairs where both chose a side count. None when no such pair exists.
    """
    a = side_counts[:, 0].astype(float)
    b = side_counts[:, 1].astype(float)
    total = float(_pairs(a + b).sum())
    if total == 0:
        return None, 0
    return 100.0 * float((_pairs(a) + _pairs(b)).sum()) / total, int(total)


def percent_agreement(counts: np.ndarray) -> float | None:
    """Share of rater pairs within a unit that gave the same category, in percent; None without pairs."""
    counts = counts.astype(float)
    total = float(_pairs(counts.sum(axis=1)).sum())
    if total == 0:
        return None
    return 100.0 * float(_pairs(counts).sum()) / total


def fleiss_kappa(counts: np.ndarray) -> float | None:
    """Fleiss' kappa over the rated units; None unless every rated unit has the same number (2+) of ratings.

    Also None when every rating falls in one category (chance agreement is 1, so kappa is 0/0).
    """
    per_unit = counts.sum(axis=1)
    rated = counts[per_unit > 0].astype(float)
    if rated.shape[0] == 0:
        return None
    m = rated.sum(axis=1)
    if not np.all(m == m[0]) or m[0] < 2:
        return None
    m0 = m[0]
    p_i = ((rated**2).sum(axis=1) - m0) / (m0 * (m0 - 1))
    p_j = rated.sum(axis=0) / rated.sum()
    p_e = float((p_j**2).sum())
    if p_e >= 1.0:
        return None
    return (float(p_i.mean()) - p_e) / (1.0 - p_e)


def item_statistics(counts: np.ndarray, *, values: np.ndarray | None, category_matrix: np.ndarray) -> dict[str, np.ndarray]:
    """Per unit: ratings, mean and spread (numeric scales), majority category and its share, entropy in bits.

    ``majority`` is the index of the category with strictly the most ratings, -1 when two or more tie
    for first or the unit has no rating; ``share`` is the top category's count over the unit's ratings.
    Entropy is over the raw values, so 5 and 6 on MMRB2's scale are different answers. NaN where undefined.
    """
    n = counts.sum(axis=1)
    rated = n > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        if values is not None:
            mean = np.where(rated, counts @ values / n, np.nan)
            present = counts > 0
            big = np.where(present, values[None, :], -np.inf).max(axis=1)
            small = np.where(present, values[None, :], np.inf).min(axis=1)
            spread = np.where(rated, big - small, np.nan)
        else:
            mean = np.full(counts.shape[0], np.nan)
            spread = np.full(counts.shape[0], np.nan)
        by_category = counts @ category_matrix
        top = by_category.max(axis=1)
        unique_top = (by_category == top[:, None]).sum(axis=1) == 1
        majority = np.where(rated & unique_top, by_category.argmax(axis=1), -1)
        share = np.where(rated, top / n, np.nan)
        p = counts / n[:, None]
        entropy = np.where(rated, -np.nansum(np.where(counts > 0, p * np.log2(p), 0.0), axis=1), np.nan)
    return {"n": n, "mean": mean, "spread": spread, "majority": majority, "share": share, "entropy": entropy}
