"""Annotator quality figures on hand-made cases: leave-one-out agreement, gold, position bias, speed, trends."""

import numpy as np
import pytest
from scipy.stats import binomtest

from annotation.catalogue import schemas
from curation.agreement.annotators import (
    binomial_two_sided_half,
    chose_left,
    leave_one_out_agreement,
)
from curation.agreement.report import agreement_report
from curation.agreement.table import table_from_answers
from curation.agreement.variables import SIDE_A, SIDE_B, SIDE_NONE, variables_of_schema


def test_leave_one_out_compares_each_rating_with_the_others_consensus():
    """Unit 0 (A, A, A, B): each A sees A, A, B → consensus A, agrees; B sees A, A, A → disagrees.
    Unit 1 (A, B): each sees one rating of the other side → disagrees. Unit 2, a lone rating: no consensus."""
    unit = np.array([0, 0, 0, 0, 1, 1, 2])
    category = np.array([0, 0, 0, 1, 0, 1, 0])
    assert leave_one_out_agreement(unit, category, n_units=3, n_categories=3).tolist() == [1, 1, 1, 0, 0, 0, -1]


def test_leave_one_out_has_no_consensus_when_the_others_tie():
    """(A, A, B): each A sees A and B, a tie, so none; B sees A, A and disagrees."""
    assert leave_one_out_agreement(np.array([0, 0, 0]), np.array([0, 0, 1]), n_units=1, n_categories=2).tolist() == [
        -1, -1, 0]


def test_choosing_left_depends_on_the_orientation_shown():
    side = np.array([SIDE_A, SIDE_A, SIDE_B, SIDE_B, SIDE_NONE, SIDE_A])
    swapped = np.array([0, 1, 0, 1, 0, -1])
    assert chose_left(side, swapped).tolist() == [1, 0, 0, 1, -1, -1]


def test_vectorised_binomial_test_equals_scipys_binomtest():
    ks, ns = zip(*[(k, n) for n in range(1, 60) for k in range(n + 1)], strict=True)
    expected = [binomtest(k, n, 0.5).pvalue for k, n in zip(ks, ns, strict=True)]
    assert np.allclose(binomial_two_sided_half(np.array(ks), np.array(ns)), expected, rtol=1e-12, atol=1e-15)
    assert np.isnan(binomial_two_sided_half(np.array([0]), np.array([0]))[0])


def _swapped_table():
    """Rater 'lefty' always picks the left response; 'fair' picks A; a gold pair expects A."""
    variables = variables_of_schema(schemas.preset("mmrb2-generation", "text-to-image"))
    pair_ids, raters, answers, swapped, times, periods = [], [], [], [], [], []
    for p in range(40):
        shown_swapped = p % 2 == 1
        pair_ids += [p, p]
        raters += ["lefty", "fair"]
        answers += [{"overall": 1 if shown_swapped else 6}, {"overall": 6}]
        swapped += [shown_swapped, False]
        times += [900, 30_000]
        periods += [202540 if p < 20 else 202541] * 2
    gold = {0: {"overall": 6}, 1: {"side": "A", "note": "marked in the console"}}
    return table_from_answers(variables=variables, pair_ids=pair_ids, raters=raters, answers=answers, swapped=swapped,
                              time_ms=times, period=periods, gold_answers=gold)


def test_annotator_rows_report_bias_gold_speed_and_weekly_trends():
    report = agreement_report(_swapped_table(), bootstrap=0, seed=0)
    rows = {row["rater"]: row for row in report["annotators"]}
    lefty, fair = rows["lefty"], rows["fair"]
    assert lefty["left_share"] == 1.0 and lefty["position_choices"] == 40
    assert lefty["position_p_value"] == pytest.approx(binomtest(40, 40, 0.5).pvalue) and lefty["position_biased"]
    assert fair["left_share"] == 1.0 and fair["position_biased"]  # A always shown on the left for 'fair'
    assert lefty["gold_ratings"] == 2 and lefty["gold_accuracy"] == 0.5
    assert fair["gold_accuracy"] == 1.0
    assert lefty["fast"] is True and fair["fast"] is False
    assert lefty["median_time_ms"] == 900.0
    assert [week["week"] for week in lefty["trend"]] == ["2025-W40", "2025-W41"]
    assert [week["ratings"] for week in lefty["trend"]] == [20, 20]
    assert lefty["loo_agreement"] == 0.5  # agrees with the one other rating on the unswapped half


def _panel_with_a_guesser(seed: int = 5, pairs: int = 60):
    """Four good raters (the truth 85 % of the time) and one who answers at random, on every pair."""
    variables = variables_of_schema(schemas.preset("ab-tie", "text-to-image"))
    rng = np.random.default_rng(seed)
    truth = rng.choice(["A", "B", "tie"], pairs, p=[0.45, 0.45, 0.1])
    pair_ids, raters, answers = [], [], []
    for p in range(pairs):
        for rater in ("good-1", "good-2", "good-3", "good-4", "guesser"):
            if rater == "guesser":
                answer = str(rng.choice(["A", "B", "tie"]))
            else:
                answer = truth[p] if rng.random() < 0.85 else str(rng.choice(["A", "B", "tie"]))
            pair_ids.append(p)
            raters.append(rater)
            answers.append({"preference": answer})
    return table_from_answers(variables=variables, pair_ids=pair_ids, raters=raters, answers=answers)


def test_a_rater_who_answers_at_random_is_flagged_with_the_figure_and_its_interval():
    """Leave-one-out agreement 0.33 against 0.74-0.86 for the good raters fired no flag: now it is flagged as no
    better than chance, and no good rater is."""
    rows = {row["rater"]: row for row in agreement_report(_panel_with_a_guesser(), bootstrap=0, seed=0)["annotators"]}
    guesser = rows["guesser"]
    assert guesser["guessing"] and guesser["loo_agreement"] < 0.5
    low, high = guesser["loo_agreement_ci95"]
    assert low <= guesser["loo_chance"] <= high
    assert any("no better than chance" in flag and f"over {guesser['loo_compared']} pairs" in flag
               for flag in guesser["flags"])
    for name in ("good-1", "good-2", "good-3", "good-4"):
        assert not rows[name]["guessing"] and rows[name]["loo_agreement"] > 0.7, name


def test_the_report_and_the_dashboard_flag_position_bias_by_one_rule():
    from curation import quality

    assert quality.position_flag(4, 5) is None, "4 of 5 is no evidence (p = 0.38)"
    assert quality.position_flag(33, 40).startswith("picks the left response 82% of the time (binomial p = ")
    assert quality.position_flag(2, 40).startswith("picks the right response 95%")
    report = agreement_report(_swapped_table(), bootstrap=0, seed=0)
    lefty = next(row for row in report["annotators"] if row["rater"] == "lefty")
    assert lefty["position_biased"] and any(flag.startswith("picks the left response 100%") for flag in lefty["flags"])
