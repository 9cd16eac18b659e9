"""Dawid–Skene by expectation–maximisation, in plain numpy, run to a stated convergence criterion.

Each rater has a confusion matrix (true category → the category they give) and the categories a prior;
EM alternates the posterior of each unit's true category (E) with the maximum a posteriori priors and
confusion matrices (M). Started, as Dawid and Skene and crowd-kit start it, from the majority vote's
label shares.

Why not crowd-kit's ``DawidSkene``: its stopping rule compares an evidence lower bound that adds each
unit's log prior once per *rating* rather than once per unit, so the bound falls after the second
iteration and the fit stops there whatever ``n_iter`` says. Here the objective is the exact log
posterior of the parameters — the observed ratings' log-likelihood plus the Dirichlet prior's log
density — which EM never decreases; the fit stops when one iteration raises it by less than ``tol``
(relative), or after ``max_iter`` iterations, and reports which.

``smoothing`` is the Dirichlet prior's pseudo-count added to every confusion cell (and to the prior's
categories): with 0 the fit is plain maximum likelihood (crowd-kit's M-step, which clips a cell at
1e-10), and a rater who never used a category is certain never to; a small count keeps a rare category
such as a tie from capturing units (measured in ``bench/consensus_sim.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FLOOR = 1e-10  # the least probability a cell may hold (crowd-kit's clip), so a log is always finite


@dataclass(frozen=True)
class EMResult:
    """The fitted model: ``posterior`` (units × categories; NaN rows for units without ratings), ``priors``,
    ``confusion`` (raters × true × given), the iterations run, the final objective and log-likelihood, and
    whether the relative change fell below the tolerance before ``max_iter``."""

    posterior: np.ndarray
    priors: np.ndarray
    confusion: np.ndarray
    iterations: int
    log_likelihood: float
    objective: float
    converged: bool

    def summary(self) -> dict:
        return {"iterations": self.iterations, "converged": self.converged,
                "log_likelihood": round(self.log_likelihood, 6), "objective": round(self.objective, 6)}


def _m_step(posterior, unit, rater, label, n_raters, k, smoothing):
    priors = posterior.sum(axis=0) + smoothing
    priors = np.maximum(priors / priors.sum(), FLOOR)
    confusion = np.zeros((n_raters, k, k))
    weights = posterior[unit]  # (ratings × true)
    for true in range(k):
        np.add.at(confusion[:, true, :], (rater, label), weights[:, true])
    confusion = np.maximum(confusion + smoothing, FLOOR)
    confusion /= confusion.sum(axis=2, keepdims=True)
    return priors, confusion


def _e_step(priors, confusion, unit, rater, label, n_units):
    """Unnormalised log posteriors per unit and the observed ratings' log-likelihood under the parameters."""
    log_joint = np.tile(np.log(priors), (n_units, 1))
    np.add.at(log_joint, unit, np.log(confusion[rater, :, label]))
    top = log_joint.max(axis=1, keepdims=True)
    log_evidence = top[:, 0] + np.log(np.exp(log_joint - top).sum(axis=1))
    return np.exp(log_joint - log_evidence[:, None]), float(log_evidence.sum())


def _log_prior(priors, confusion, smoothing) -> float:
    return float(smoothing * (np.log(confusion).sum() + np.log(priors).sum())) if smoothing else 0.0


def dawid_skene(unit: np.ndarray, rater: np.ndarray, label: np.ndarray, *, n_units: int, n_categories: int,
                max_iter: int = 500, tol: float = 1e-9, smoothing: float = 0.0) -> EMResult:
    """Fit Dawid–Skene to ratings (``unit``, ``rater``, ``label`` per rating; raters numbered from 0).

    Returns the posteriors of every unit in ``range(n_units)``; a unit nobody rated has a NaN row.
    """
    unit, rater, label = (np.asarray(x, dtype=np.int64) for x in (unit, rater, label))
    n_raters = int(rater.max()) + 1 if len(rater) else 0
    rated = np.bincount(unit, minlength=n_units) > 0
    posterior = np.zeros((n_units, n_categories))
    np.add.at(posterior, (unit, label), 1.0)
    posterior[rated] /= posterior[rated].sum(axis=1, keepdims=True)
    if not len(unit):
        return EMResult(np.full((n_units, n_categories), np.nan), np.full(n_categories, 1 / n_categories),
                        np.zeros((0, n_categories, n_categories)), 0, 0.0, 0.0, True)
    # Only rated units enter the fit; the others have no posterior.
    index = np.cumsum(rated) - 1
    fit_unit, m = index[unit], int(rated.sum())
    current = posterior[rated]
    objective = -np.inf
    converged = False
    iterations = 0
    log_likelihood = 0.0
    while iterations < max_iter:
        iterations += 1
        priors, confusion = _m_step(current, fit_unit, rater, label, n_raters, n_categories, smoothing)
        current, log_likelihood = _e_step(priors, confusion, fit_unit, rater, label, m)
        new = log_likelihood + _log_prior(priors, confusion, smoothing)
        if new - objective <= tol * abs(new):
            objective, converged = new, True
            break
        objective = new
    out = np.full((n_units, n_categories), np.nan)
    out[rated] = current
    return EMResult(out, priors, confusion, iterations, log_likelihood, objective, converged)
