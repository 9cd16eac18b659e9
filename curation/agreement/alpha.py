"""Krippendorff's alpha from per-unit value counts, and a vectorised, seeded bootstrap over units.

The point estimate comes from the ``krippendorff`` package. The bootstrap needs thousands of alphas, so it
works on coincidence matrices instead: every unit's coincidence matrix is computed once, units with the
same value counts share it, and a resample is a vector of unit weights (a multinomial draw over the
distinct count patterns, which has exactly the distribution of drawing units with replacement).
"""

from __future__ import annotations

import krippendorff
import numpy as np

BOOTSTRAP_MEMORY_CELLS = 20_000_000


def value_counts(unit: np.ndarray, code: np.ndarray, *, n_units: int, n_values: int) -> np.ndarray:
    """(n_units × n_values) matrix of how many ratings gave each value to each unit.

    Precondition: ``0 <= unit < n_units`` and ``0 <= code < n_values`` for every rating.
    """
    flat = np.bincount(np.asarray(unit, dtype=np.int64) * n_values + np.asarray(code, dtype=np.int64),
                       minlength=n_units * n_values)
    return flat.reshape(n_units, n_values)


def _pairable(counts: np.ndarray) -> np.ndarray:
    return counts[counts.sum(axis=1) >= 2]


def alpha(counts: np.ndarray, *, level: str, values: np.ndarray) -> float | None:
    """Krippendorff's alpha at ``level`` for value counts over the ordered ``values``.

    None when alpha is undefined: no unit has two ratings, or every pairable rating has the same value
    (no expected disagreement, so 0/0).
    """
    pairable = _pairable(counts)
    if len(values) < 2 or pairable.shape[0] == 0 or np.count_nonzero(pairable.sum(axis=0)) < 2:
        return None
    # Float counts are exact here and take numpy's fast path (int64 counts are ~9× slower from 5 values up).
    return float(krippendorff.alpha(value_counts=pairable.astype(float), value_domain=np.asarray(values, dtype=float),
                                    level_of_measurement=level))


def _distances(level: str, values: np.ndarray, n_v: np.ndarray) -> np.ndarray:
    """Squared distances δ² (…, V, V) for marginals ``n_v`` (…, V), as in Krippendorff (2011)."""
    v = len(values)
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(v), n_v.shape[:-1] + (v, v))
    if level == "interval":
        d = (values[:, None] - values[None, :]) ** 2
        return np.broadcast_to(d, n_v.shape[:-1] + (v, v))
    if level == "ordinal":
        idx = np.arange(v)
        lo, hi = np.minimum.outer(idx, idx), np.maximum.outer(idx, idx)
        cum = np.concatenate([np.zeros(n_v.shape[:-1] + (1,)), np.cumsum(n_v, axis=-1)], axis=-1)
        between = cum[..., hi + 1] - cum[..., lo]
        return (between - (n_v[..., lo] + n_v[..., hi]) / 2) ** 2
    raise ValueError(f"unknown level of measurement {level!r}")


def alpha_from_coincidences(o: np.ndarray, *, level: str, values: np.ndarray) -> np.ndarray:
    """Alpha for a stack of coincidence matrices ``o`` (…, V, V); NaN where expected disagreement is 0."""
    n_v = o.sum(axis=-2)
    n = n_v.sum(axis=-1)
    v = o.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        e = (n_v[..., :, None] * n_v[..., None, :] - n_v[..., :, None] * np.eye(v)) / (n - 1)[..., None, None]
        d = _distances(level, np.asarray(values, dtype=float), n_v)
        observed = (o * d).sum(axis=(-2, -1))
        expected = (e * d).sum(axis=(-2, -1))
        result = 1.0 - observed / expected
    return np.where(expected > 0, result, np.nan)


def unit_patterns(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct count rows of the pairable units and how many units have each."""
    pairable = _pairable(counts)
    if pairable.shape[0] == 0:
        return np.zeros((0, counts.shape[1]), dtype=np.int64), np.zeros(0, dtype=np.int64)
    base = int(pairable.max()) + 1
    if base ** pairable.shape[1] < 2**62:
        keys = pairable @ (base ** np.arange(pairable.shape[1], dtype=np.int64))
        _, first, multiplicity = np.unique(keys, return_index=True, return_counts=True)
        return pairable[first], multiplicity
    patterns, multiplicity = np.unique(pairable, axis=0, return_counts=True)
    return patterns, multiplicity


def pattern_coincidences(patterns: np.ndarray) -> np.ndarray:
    """(P × V × V) coincidence matrix of one unit with each count pattern; precondition: every row sums to 2+."""
    p = patterns.astype(float)
    m = p.sum(axis=1)
    o = p[:, :, None] * p[:, None, :] - p[:, :, None] * np.eye(p.shape[1])
    return o / (m - 1)[:, None, None]


def alpha_bootstrap(counts: np.ndarray, *, level: str, values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """``resamples`` alphas over pairable units drawn with replacement (seeded); NaN where undefined."""
    if resamples <= 0:
        return np.zeros(0)
    patterns, multiplicity = unit_patterns(counts)
    if patterns.shape[0] == 0:
        return np.zeros(0)
    n_units = int(multiplicity.sum())
    o_flat = pattern_coincidences(patterns).reshape(patterns.shape[0], -1)
    rng = np.random.default_rng(seed)
    probabilities = multiplicity / n_units
    batch = max(1, min(resamples, BOOTSTRAP_MEMORY_CELLS // max(1, patterns.shape[0])))
    out = np.empty(resamples)
    v = patterns.shape[1]
    for start in range(0, resamples, batch):
        size = min(batch, resamples - start)
        weights = rng.multinomial(n_units, probabilities, size=size).astype(float)
        o = (weights @ o_flat).reshape(size, v, v)
        out[start:start + size] = alpha_from_coincidences(o, level=level, values=values)
    return out


def percentile_interval(samples: np.ndarray, *, confidence: float = 0.95) -> list[float] | None:
    """The central ``confidence`` percentile interval of the defined samples; None when there are none."""
    defined = samples[~np.isnan(samples)]
    if defined.size == 0:
        return None
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(defined, [tail, 100 - tail])
    return [float(low), float(high)]
