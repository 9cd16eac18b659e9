"""A model leaderboard from human preferences: Bradley–Terry ratings, bootstrap intervals, win rates.

Each human rating of a pair is one comparison between the two responses' models. The fit is the
Bradley–Terry maximum-likelihood model as FastChat's arena publishes it (``compute_mle_elo``): a
logistic regression without intercept or penalty (``C=inf``) on a design row ``+1`` for the model of response
A and ``-1`` for that of response B, fitted here by scikit-learn's ``LogisticRegression``. Two
choices are Concord's:

- **Ties count as half a win for each side** (FastChat's convention; not the Davidson model): a tie is
  a win for A with weight ½ and a win for B with weight ½.
- **Position-controlled:** one more column is ``+1`` when response A was shown on the left, ``-1`` when
  response B was, ``0`` when unknown (imported ratings). Its coefficient is the raters' pull towards
  the left-hand response, so a model is not rewarded for having been shown on the left more often.

Only models joined by comparisons can be ranked against each other: the comparison graph's largest connected
component (most comparisons) is fitted, and the models of any other component are listed apart ("never
compared with the others"), with their comparisons and scores but no rating. The method text says what
the fit that ran did (position term or not), never a constant.

Ratings are on the Elo scale FastChat prints: 400 points are 10:1 odds, and the mean model is 1000.
Intervals are percentile intervals over bootstrap resamples of *pairs* (all ratings of a pair go in
or out together, since they are not independent). No Django here: the ORM feeds arrays in.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

SCALE = 400.0
BASE = 10.0
INIT_RATING = 1000.0
# Below this many comparisons a model's rating rests on too little to rank it: the board says so (FastChat's arena
# leaves such models out of its public board; here they stay, flagged).
FEW_COMPARISONS = 50
WIN_A, WIN_B, TIE = 1.0, 0.0, 0.5
MAX_ITER = 1000
# Part of every cached board's key: a change to what a fit computes changes it.
FIT_VERSION = "bt-3: Davidson ties where ratings hold ties, simultaneous intervals"


TIES = ("auto", "davidson", "half")


def method_text(*, position: bool, ties: str = "half", models: int = 0) -> str:
    """What the fit did, in words: the page, the card and the CSV print this."""
    control = ("position-controlled (a left-side term; the ratings are net of it)" if position else
               "not position-controlled (no rating knows which side was shown on the left)")
    model = ("Bradley-Terry maximum likelihood with Davidson's tie model (a tie is its own outcome, its rate "
             "fitted)" if ties == "davidson" else
             "Bradley-Terry maximum likelihood (logistic regression, scikit-learn), ties as half wins")
    joint = f"; simultaneous 95% intervals (Bonferroni over the {models} models)" if models > 1 else ""
    return (f"{model}, {control}, Elo scale (400 points = 10:1 odds, mean 1000), percentile bootstrap over pairs: "
            f"per-model 95% intervals{joint}")


def components(c: Comparisons) -> list[list[int]]:
    """The comparison graph's connected components (model indices, each sorted), most comparisons first."""
    parent = list(range(len(c.models)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in set(zip(c.model_a.tolist(), c.model_b.tolist(), strict=True)):
        parent[root(a)] = root(b)
    groups: dict[int, list[int]] = {}
    for i in range(len(c.models)):
        groups.setdefault(root(i), []).append(i)
    comparisons = np.bincount(c.model_a, minlength=len(c.models)) + np.bincount(c.model_b, minlength=len(c.models))
    return sorted(groups.values(), key=lambda g: (-int(comparisons[g].sum()), -len(g), c.models[g[0]]))


@dataclass(frozen=True)
class Comparisons:
    """One entry per human rating: the models compared, the outcome for A, the side shown left, the pair.

    ``outcome`` is 1 (A preferred), 0 (B preferred) or 0.5 (tie); ``left`` is +1 (A shown left), -1 (B
    shown left) or 0 (unknown); ``pair`` groups the ratings of one pair for the bootstrap.
    """

    model_a: np.ndarray
    model_b: np.ndarray
    outcome: np.ndarray
    left: np.ndarray
    pair: np.ndarray
    models: list[str]

    def __len__(self) -> int:
        return len(self.outcome)

    def restrict(self, keep: np.ndarray) -> Comparisons:
        """The comparisons where ``keep`` is true, over the models still present."""
        present = np.unique(np.concatenate([self.model_a[keep], self.model_b[keep]]))
        remap = np.full(len(self.models), -1, dtype=np.int64)
        remap[present] = np.arange(len(present))
        return Comparisons(model_a=remap[self.model_a[keep]], model_b=remap[self.model_b[keep]],
                           outcome=self.outcome[keep], left=self.left[keep], pair=self.pair[keep],
                           models=[self.models[i] for i in present])


def comparisons_from_names(*, model_a: list[str], model_b: list[str], outcome: list[float], left: list[int] | None = None,
                           pair: list[int] | None = None) -> Comparisons:
    """Comparisons from plain lists; ratings of a model against itself are left out (they say nothing)."""
    a = np.asarray(model_a, dtype=object)
    b = np.asarray(model_b, dtype=object)
    n = len(a)
    keep = a != b
    models = sorted(set(a[keep]) | set(b[keep]))
    index = {name: i for i, name in enumerate(models)}
    return Comparisons(
        model_a=np.asarray([index[x] for x in a[keep]], dtype=np.int64),
        model_b=np.asarray([index[x] for x in b[keep]], dtype=np.int64),
        outcome=np.asarray(outcome, dtype=float)[keep],
        left=np.asarray(left if left is not None else [0] * n, dtype=float)[keep],
        pair=np.asarray(pair if pair is not None else range(n), dtype=np.int64)[keep],
        models=models,
    )


@dataclass(frozen=True)
class _Collapsed:
    """The comparisons folded into distinct (A, B, left, outcome) rows; ``row`` maps each comparison to one."""

    a: np.ndarray
    b: np.ndarray
    left: np.ndarray
    outcome: np.ndarray
    row: np.ndarray


def _collapse(c: Comparisons) -> _Collapsed:
    keys = np.stack([c.model_a, c.model_b, c.left, c.outcome * 2], axis=1)
    unique, row = np.unique(keys, axis=0, return_inverse=True)
    return _Collapsed(a=unique[:, 0].astype(np.int64), b=unique[:, 1].astype(np.int64), left=unique[:, 2],
                      outcome=unique[:, 3] / 2, row=row.reshape(-1))


def _fit(rows: _Collapsed, weights: np.ndarray, n_models: int, *, position: bool,
         start: np.ndarray | None = None) -> np.ndarray:
    """The coefficients (natural-log strengths, then the left-side term) from weighted distinct rows.

    ``start`` (the point fit's coefficients) starts a bootstrap fit near its answer: same optimum, fewer steps.
    """
    used = weights > 0
    a, b, left, outcome, w = rows.a[used], rows.b[used], rows.left[used], rows.outcome[used], weights[used]
    n = len(a)
    design = np.zeros((n, n_models + 1))
    design[np.arange(n), a] = 1.0
    design[np.arange(n), b] = -1.0
    if position:
        design[:, n_models] = left
    # A tie is a win for each side with half the weight (FastChat duplicates the row instead). Each row
    # also enters mirrored (-x with the other label, the same likelihood), so both classes are always present.
    wins_a = w * outcome
    wins_b = w * (1 - outcome)
    x = np.concatenate([design, -design, design, -design])
    y = np.concatenate([np.ones(n), np.zeros(n), np.zeros(n), np.ones(n)])
    sample_weight = np.concatenate([wins_a, wins_a, wins_b, wins_b])
    keep = sample_weight > 0
    model = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-8, max_iter=MAX_ITER, warm_start=start is not None)
    if start is not None:
        model.coef_ = start.reshape(1, -1).copy()
    with warnings.catch_warnings():
        # A model that won (or lost) every comparison has no finite maximum-likelihood rating; the
        # fit stops at MAX_ITER and the leaderboard says so in its notes.
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x[keep], y[keep], sample_weight=sample_weight[keep] / sample_weight[keep].mean())
    return model.coef_[0]


def _davidson_objective(params: np.ndarray, rows: _Collapsed, w_a, w_b, w_t, m: int, position: bool):
    """Minus the Davidson (1970) log-likelihood of the weighted rows and its gradient.

    P(A) = π_A / D, P(B) = π_B / D, P(tie) = ν √(π_A π_B) / D with D = π_A + π_B + ν √(π_A π_B), log π = strength
    (± half the left-side term for the response shown left), ν = exp(λ). A penalty on the strengths' sum fixes
    their level (only differences are identified) without moving the differences.
    """
    theta, delta, lam = params[:m], (params[m] if position else 0.0), params[-1]
    half = 0.5 * delta * rows.left
    sa, sb = theta[rows.a] + half, theta[rows.b] - half
    st = lam + 0.5 * (sa + sb)
    top = np.maximum(np.maximum(sa, sb), st)
    log_d = top + np.log(np.exp(sa - top) + np.exp(sb - top) + np.exp(st - top))
    p_a, p_b, p_t = np.exp(sa - log_d), np.exp(sb - log_d), np.exp(st - log_d)
    total = w_a + w_b + w_t
    loglik = float(np.sum(w_a * (sa - log_d) + w_b * (sb - log_d) + w_t * (st - log_d)))
    d_sa = w_a + 0.5 * w_t - total * (p_a + 0.5 * p_t)
    d_sb = w_b + 0.5 * w_t - total * (p_b + 0.5 * p_t)
    grad = np.zeros_like(params)
    np.add.at(grad, rows.a, d_sa)
    np.add.at(grad, rows.b, d_sb)
    level = theta.sum()
    grad[:m] -= level  # the penalty ½ (Σ θ)²
    if position:
        grad[m] = float(np.sum(0.5 * rows.left * (d_sa - d_sb)))
    grad[-1] = float(np.sum(w_t - total * p_t))
    return -(loglik - 0.5 * level * level), -grad


def _fit_davidson(rows: _Collapsed, weights: np.ndarray, m: int, *, position: bool,
                  start: np.ndarray | None = None) -> np.ndarray:
    """The Davidson model's maximum likelihood: (natural-log strengths, the left-side term, log ν)."""
    from scipy.optimize import minimize

    w_a = weights * (rows.outcome == WIN_A)
    w_b = weights * (rows.outcome == WIN_B)
    w_t = weights * (rows.outcome == TIE)
    x0 = np.zeros(m + 2) if start is None else start.copy()
    if start is None:
        share = w_t.sum() / max(weights.sum(), 1e-12)
        x0[-1] = math.log(max(share, 1e-3) / max(1 - share, 1e-3)) + math.log(2)
    result = minimize(_davidson_objective, x0, args=(rows, w_a, w_b, w_t, m, position), jac=True, method="L-BFGS-B",
                      options={"maxiter": MAX_ITER, "gtol": 1e-8})
    return result.x


def _elo(strengths: np.ndarray) -> np.ndarray:
    return INIT_RATING + SCALE * strengths / math.log(BASE)


def _interval(samples: np.ndarray, confidence: float) -> list[float] | None:
    defined = samples[np.isfinite(samples)]
    if defined.size == 0:
        return None
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(defined, [tail, 100 - tail])
    return [float(low), float(high)]


def _pair_table(rows: _Collapsed, weights: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """(models × models) comparisons and points of the row model against the column model (a tie is ½),
    from the weighted distinct rows (a few hundred at most, however many ratings)."""
    count = np.zeros((m, m))
    points = np.zeros((m, m))
    np.add.at(count, (rows.a, rows.b), weights)
    np.add.at(count, (rows.b, rows.a), weights)
    np.add.at(points, (rows.a, rows.b), weights * rows.outcome)
    np.add.at(points, (rows.b, rows.a), weights * (1 - rows.outcome))
    return count, points


@dataclass
class Leaderboard:
    """Ratings best first, each with its interval; the win-rate and comparison-count matrices in that order."""

    models: list[str]
    rating: list[float]
    rating_ci95: list[list[float] | None]
    rating_ci_simultaneous: list[list[float] | None]
    comparisons: list[int]
    wins: list[float]
    left_advantage: float
    left_advantage_ci95: list[float] | None
    win_rate: list[list[float | None]]
    win_rate_ci95: list[list[list[float] | None]]
    pair_comparisons: list[list[int]]
    total_comparisons: int
    bootstrap: int
    seed: int
    position_controlled: bool
    ties: str
    tie_rate_parameter: float | None
    method: str
    apart: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        """JSON-ready: one entry per model with rank, rating, interval, comparisons and score."""
        return {
            "method": self.method,
            "position_controlled": self.position_controlled,
            "ties": "davidson" if self.ties == "davidson" else "half wins",
            "tie_rate_parameter": self.tie_rate_parameter,
            "intervals": {"per_model": "95% percentile bootstrap, each model on its own",
                          "simultaneous": f"95% for all {len(self.models)} models at once (Bonferroni: "
                                          f"{100 - 5 / max(len(self.models), 1):.2f}% each)"},
            "comparisons": self.total_comparisons,
            "bootstrap": self.bootstrap,
            "seed": self.seed,
            "left_advantage": self.left_advantage,
            "left_advantage_ci95": self.left_advantage_ci95,
            "models": [
                {"rank": i + 1, "model": name, "rating": self.rating[i], "rating_ci95": self.rating_ci95[i],
                 "rating_ci_simultaneous": self.rating_ci_simultaneous[i],
                 "comparisons": self.comparisons[i], "score": self.wins[i] / self.comparisons[i] if self.comparisons[i] else None}
                for i, name in enumerate(self.models)
            ],
            "win_rate": {"models": self.models, "rows": self.win_rate, "ci95": self.win_rate_ci95},
            "pair_comparisons": {"models": self.models, "rows": self.pair_comparisons},
            "apart": self.apart,
            "notes": self.notes,
        }


def leaderboard(c: Comparisons, *, bootstrap: int = 200, seed: int = 0, confidence: float = 0.95,
                position: bool = True, ties: str = "auto",
                progress: Callable[[int, int], None] | None = None) -> Leaderboard | None:
    """The leaderboard of the comparisons, or None when fewer than two models were compared.

    ``ties``: ``half`` counts a tie as half a win for each side (FastChat's arena); ``davidson`` fits Davidson's tie
    model, where a tie is its own outcome (half wins shrink the ratings towards the mean as the tie rate grows, so
    boards of campaigns with different tie rates were not comparable); ``auto`` (the default) is Davidson where
    any rating is a tie and plain Bradley–Terry otherwise.

    Only the largest component of the comparison graph is ranked; the other components' models are listed in
    ``apart`` (comparisons and score within their own component), never ranked against the ranked ones.
    ``progress(done, total)`` hears after the point fit and after each bootstrap resample (``total`` is
    ``bootstrap + 1``); it may raise to abandon the fit.
    """
    if len(c.models) < 2 or len(c) == 0:
        return None
    groups = components(c)
    apart = []
    if len(groups) > 1:
        main = np.zeros(len(c.models), dtype=bool)
        main[groups[0]] = True
        for number, group in enumerate(groups[1:], start=2):
            inside = np.isin(c.model_a, group)
            for i in sorted(group, key=lambda i: c.models[i]):
                mine_a, mine_b = inside & (c.model_a == i), inside & (c.model_b == i)
                n = int(mine_a.sum() + mine_b.sum())
                wins = float(c.outcome[mine_a].sum() + (1 - c.outcome[mine_b]).sum())
                apart.append({"model": c.models[i], "component": number, "comparisons": n,
                              "score": wins / n if n else None,
                              "compared_with": sorted(c.models[j] for j in group if j != i)})
        c = c.restrict(main[c.model_a])
    if ties not in TIES:
        raise ValueError(f"ties must be one of {', '.join(TIES)}")
    if ties == "auto":
        ties = "davidson" if bool(np.any(c.outcome == TIE)) else "half"
    m = len(c.models)
    rows = _collapse(c)
    ones = np.bincount(rows.row, minlength=len(rows.a)).astype(float)
    # The left-side term is only estimable when some ratings know their side; without it the fit is plain BT.
    position = position and bool(np.any(c.left != 0))
    count, points = _pair_table(rows, ones, m)
    pairs, pair_of = np.unique(c.pair, return_inverse=True)
    rng = np.random.default_rng(seed)
    boot_ratings = np.full((bootstrap, m), np.nan)
    boot_left = np.full(bootstrap, np.nan)
    boot_rate = np.full((bootstrap, m, m), np.nan)
    # BLAS threads only contend with each other on problems this small (and with the web server's workers).
    def fit(weights, start=None):
        if ties == "davidson":
            return _fit_davidson(rows, weights, m, position=position, start=start)
        return _fit(rows, weights, m, position=position, start=start)

    def strengths_and_left(coef):
        return (coef[:m] - coef[:m].mean(), float(coef[m]) if position or ties == "half" else 0.0)

    with threadpool_limits(limits=1):
        point = fit(ones)
        if progress is not None:
            progress(1, bootstrap + 1)
        for r in range(bootstrap):
            drawn = np.bincount(rng.integers(0, len(pairs), len(pairs)), minlength=len(pairs)).astype(float)
            weight = drawn[pair_of]
            row_weight = np.bincount(rows.row, weights=weight, minlength=len(rows.a))
            present = np.zeros(m, dtype=bool)
            present[rows.a[row_weight > 0]] = True
            present[rows.b[row_weight > 0]] = True
            coef = fit(row_weight, start=point)
            # A model absent from a resample has no rating there; its interval comes from the others.
            boot_strengths, boot_left[r] = strengths_and_left(coef)
            boot_ratings[r] = np.where(present, _elo(boot_strengths), np.nan)
            n, p = _pair_table(rows, row_weight, m)
            with np.errstate(invalid="ignore", divide="ignore"):
                boot_rate[r] = p / n
            if progress is not None:
                progress(r + 2, bootstrap + 1)
    strengths, left = strengths_and_left(point)
    elo = _elo(strengths)
    order = np.argsort(-elo, kind="stable")
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = points / count
    notes = []
    if not position:
        notes.append("no rating knows which side was shown on the left: not position-controlled")
    if apart:
        notes.append(f"{', '.join(e['model'] for e in apart)}: never compared with the ranked models (another part of "
                     "the comparison graph); listed apart, not ranked against them")
    few = [c.models[i] for i in order if count[i].sum() < FEW_COMPARISONS]
    if few:
        notes.append(f"{', '.join(few)}: fewer than {FEW_COMPARISONS} comparisons each, too few to rank on; their "
                     "ratings and intervals rest on little data")
    unbounded = [c.models[i] for i in range(m) if points[i].sum() in (0, count[i].sum())]
    if unbounded:
        notes.append(f"{', '.join(unbounded)} won or lost every comparison: no finite rating exists, the one shown "
                     "is where the fit stopped")
    return Leaderboard(
        models=[c.models[i] for i in order],
        rating=[float(elo[i]) for i in order],
        rating_ci95=[_interval(boot_ratings[:, i], confidence) for i in order],
        rating_ci_simultaneous=[_interval(boot_ratings[:, i], 1 - (1 - confidence) / m) for i in order],
        comparisons=[int(count[i].sum()) for i in order],
        wins=[float(points[i].sum()) for i in order],
        left_advantage=float(SCALE * left / math.log(BASE)),
        left_advantage_ci95=_interval(SCALE * boot_left / math.log(BASE), confidence) if position else None,
        win_rate=[[None if i == j or count[i, j] == 0 else float(rate[i, j]) for j in order] for i in order],
        win_rate_ci95=[[None if i == j or count[i, j] == 0 else _interval(boot_rate[:, i, j], confidence) for j in order]
                       for i in order],
        pair_comparisons=[[int(count[i, j]) for j in order] for i in order],
        total_comparisons=len(c),
        bootstrap=bootstrap,
        seed=seed,
        position_controlled=position,
        ties=ties,
        tie_rate_parameter=float(math.exp(point[-1])) if ties == "davidson" else None,
        method=method_text(position=position, ties=ties, models=m),
        apart=apart,
        notes=notes,
    )
