"""Annotator quality figures on hand-made cases: leave-one-out agreement, gold, position bias, speed, trends."""

import numpy as np
import pytest
from scipy.stats import binomtest

from annotation.catalogue import schemas
from curation.agreement.annotators import (
    binomial_two_sided_half,
    chose_left,
    fast_work_flags,
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


def test_fast_work_is_flagged_against_the_floor_and_the_others():
    medians = np.array([20_000.0, 22_000.0, 4_000.0, 2_000.0, np.nan, 1_000.0])
    timed = np.array([10, 10, 10, 10, 0, 2])
    flags = fast_work_flags(medians, timed, floor_ms=3000, fraction=0.25, min_ratings=5)
    # median of judged medians (20k, 22k, 4k, 2k) = 12k; threshold max(3000, 3000) = 3000
    assert flags.tolist() == [False, False, False, True, False, False]


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
