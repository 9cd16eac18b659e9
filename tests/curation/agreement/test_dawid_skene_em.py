"""Concord's Dawid–Skene EM: crowd-kit's iterations where crowd-kit is right, a true stopping rule where it is not."""

import numpy as np
import pandas as pd
import pytest
from crowdkit.aggregation import DawidSkene

from curation.consensus.em import dawid_skene


def campaign(seed: int = 3, units: int = 120, raters: int = 6):
    """Three categories, three ratings per unit: four good raters, one random, one who always says 0."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(3, units, p=[0.45, 0.45, 0.1])
    unit, rater, label = [], [], []
    for i in range(units):
        for j in rng.choice(raters, 3, replace=False):
            if j < 4:
                given = truth[i] if rng.random() < 0.8 else rng.choice(3)
            elif j == 4:
                given = rng.choice(3)
            else:
                given = 0
            unit.append(i)
            rater.append(j)
            label.append(given)
    return truth, np.array(unit), np.array(rater), np.array(label)


@pytest.mark.parametrize("iterations", [1, 2, 3, 5])
def test_without_smoothing_each_iteration_equals_crowd_kits(iterations):
    """crowd-kit 1.4.2 is the reference for the algorithm: started from the majority vote's shares, with the same
    M-step and E-step, our posteriors after n iterations are its posteriors after n (its early stop disabled)."""
    _, unit, rater, label = campaign()
    ours = dawid_skene(unit, rater, label, n_units=120, n_categories=3, max_iter=iterations, tol=-np.inf)
    frame = pd.DataFrame({"task": unit, "worker": rater, "label": label})
    theirs = DawidSkene(n_iter=iterations, tol=-np.inf).fit_predict_proba(frame)
    theirs = theirs.reindex(columns=range(3), fill_value=0.0).sort_index().to_numpy()
    assert ours.iterations == iterations
    np.testing.assert_allclose(ours.posterior, theirs, atol=1e-7)


def test_the_fit_runs_until_the_objective_stops_rising_and_never_falls():
    """crowd-kit stops after a few iterations because its lower bound (which adds a unit's log prior once per
    rating) falls; the true objective never falls under EM, and the fit stops by the stated criterion."""
    _, unit, rater, label = campaign()
    frame = pd.DataFrame({"task": unit, "worker": rater, "label": label})
    crowd = DawidSkene(n_iter=100, tol=1e-5)
    crowd.fit(frame)
    history = crowd.loss_history_
    assert len(history) < 100 and history[-1] < history[-2], (
        "the flaw this module exists for: crowd-kit's bound falls, and it stops long before n_iter")
    history = [dawid_skene(unit, rater, label, n_units=120, n_categories=3, max_iter=n, tol=-np.inf,
                           smoothing=1.0).objective for n in range(1, 40)]
    assert all(b >= a - 1e-9 for a, b in zip(history, history[1:], strict=False))
    fit = dawid_skene(unit, rater, label, n_units=120, n_categories=3, smoothing=1.0)
    assert fit.converged and 3 < fit.iterations < 500
    assert fit.summary() == {"iterations": fit.iterations, "converged": True,
                             "log_likelihood": round(fit.log_likelihood, 6), "objective": round(fit.objective, 6)}


def test_with_smoothing_the_model_beats_the_majority_vote_on_a_campaign_with_known_truth():
    truth, unit, rater, label = campaign(seed=11, units=400)
    fit = dawid_skene(unit, rater, label, n_units=400, n_categories=3, smoothing=1.0)
    counts = np.zeros((400, 3))
    np.add.at(counts, (unit, label), 1)
    assert (fit.posterior.argmax(axis=1) == truth).mean() >= (counts.argmax(axis=1) == truth).mean()
    always_zero = fit.confusion[5]
    assert always_zero[1, 0] > 0.8 and always_zero[2, 0] > 0.8, "the rater who always says 0 is found out"


def test_a_unit_nobody_rated_has_no_posterior():
    fit = dawid_skene([0, 0, 2], [0, 1, 0], [1, 1, 0], n_units=3, n_categories=2, smoothing=1.0)
    assert np.isnan(fit.posterior[1]).all() and not np.isnan(fit.posterior[[0, 2]]).any()
