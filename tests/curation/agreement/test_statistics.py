"""Agreement statistics on small, hand-computed cases: ties, missing values, single ratings, no variation."""

import math

import krippendorff
import numpy as np
import pytest

from annotation.catalogue import schemas
from curation.agreement import alpha as kalpha
from curation.agreement.report import agreement_report, variable_agreement
from curation.agreement.stats import fleiss_kappa, item_statistics, pairwise_agreement_excluding_ties, percent_agreement
from curation.agreement.table import table_from_answers
from curation.agreement.variables import SIDE_A, SIDE_B, SIDE_NONE, scale_side, variables_of_schema

# Krippendorff's canonical example (Krippendorff 2011, also the package's docstring): 3 coders, 15 units.
CANONICAL = [
    [np.nan, np.nan, np.nan, np.nan, np.nan, 3, 4, 1, 2, 1, 1, 3, 3, np.nan, 3],
    [1, np.nan, 2, 1, 3, 3, 4, 3, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan],
    [np.nan, np.nan, 2, 1, 3, 4, 4, np.nan, 2, 1, 1, 3, 3, np.nan, 4],
]


def counts_of(units: list[list[int]], values: list[int]) -> np.ndarray:
    return np.array([[u.count(v) for v in values] for u in units])


def canonical_counts() -> np.ndarray:
    data = np.array(CANONICAL)
    return np.array([[(data[:, u] == v).sum() for v in (1, 2, 3, 4)] for u in range(data.shape[1])])


def generation_variables():
    return variables_of_schema(schemas.preset("mmrb2-generation", "text-to-image"))


def test_alpha_on_krippendorffs_canonical_example_matches_the_published_values():
    """Nominal 0.691 and interval 0.811 (Krippendorff 2011, p. 7), ordinal 0.815 from the package's doc."""
    counts = canonical_counts()
    values = np.array([1.0, 2.0, 3.0, 4.0])
    assert round(kalpha.alpha(counts, level="nominal", values=values), 6) == 0.691358
    assert round(kalpha.alpha(counts, level="interval", values=values), 6) == 0.810845


def test_alpha_by_hand_on_four_units():
    """Units (1,1) (1,2) (2,2) (2,2): o12 = o21 = 1, n1 = 3, n2 = 5, n = 8, so nominal alpha = 1 − 7·2 / (2·15)."""
    counts = counts_of([[1, 1], [1, 2], [2, 2], [2, 2]], [1, 2])
    assert kalpha.alpha(counts, level="nominal", values=np.array([1.0, 2.0])) == pytest.approx(1 - 14 / 30)


def test_a_unit_with_one_rating_changes_nothing_and_is_not_pairable():
    """A lone rating pairs with nothing, so alpha is the same with or without that unit."""
    base = counts_of([[1, 1], [1, 2], [2, 2], [2, 2]], [1, 2])
    with_single = np.vstack([base, [[1, 0]]])
    for level in ("nominal", "ordinal", "interval"):
        assert kalpha.alpha(with_single, level=level, values=np.array([1.0, 2.0])) == pytest.approx(
            kalpha.alpha(base, level=level, values=np.array([1.0, 2.0])))


def test_missing_values_leave_a_unit_with_fewer_ratings():
    """A rater who skipped a unit just lowers its count; the figures equal the package's on NaN-coded data."""
    variables = generation_variables()
    answers = [{"overall": 6}, {"overall": 5}, {}, {"overall": 2}, {"overall": None}, {"overall": 1}]
    table = table_from_answers(variables=variables, pair_ids=[1, 1, 1, 2, 2, 2], raters=["x", "y", "z"] * 2,
                               answers=answers)
    figures = variable_agreement(table, variables["overall"], bootstrap=0, seed=0)
    assert figures["ratings"] == 4 and figures["units"] == 2
    expected = krippendorff.alpha(reliability_data=[[6, 2], [5, np.nan], [np.nan, 1]], level_of_measurement="ordinal",
                                  value_domain=[1, 2, 3, 4, 5, 6])
    assert figures["alpha"]["ordinal"] == pytest.approx(expected)


def test_all_identical_ratings_make_alpha_and_kappa_undefined_but_agreement_perfect():
    """With no variation, expected disagreement is 0, so alpha and kappa are 0/0: reported as None."""
    variables = generation_variables()
    table = table_from_answers(variables=variables, pair_ids=[1, 1, 2, 2], raters=["x", "y"] * 2,
                               answers=[{"overall": 6}] * 4)
    figures = variable_agreement(table, variables["overall"], bootstrap=50, seed=0)
    assert figures["alpha"] == {"nominal": None, "ordinal": None, "interval": None}
    assert figures["alpha_ci95"] == {"nominal": None, "ordinal": None, "interval": None}
    assert figures["percent_agreement"] == 100.0
    assert figures["pairwise_agreement_excluding_ties"] == 100.0
    assert figures["fleiss_kappa"] is None


def test_no_pairable_unit_gives_no_alpha():
    counts = counts_of([[1], [2], [3]], [1, 2, 3])
    assert kalpha.alpha(counts, level="ordinal", values=np.array([1.0, 2.0, 3.0])) is None
    assert kalpha.alpha_bootstrap(counts, level="ordinal", values=np.array([1.0, 2.0, 3.0]), resamples=10, seed=0).size == 0


def test_ties_are_left_out_of_pairwise_agreement():
    """(6, 3, 1): A, tie, B, so only the A–B pair counts and disagrees; (5, 6, 4): A, A, tie agree: 1 of 2."""
    variable = generation_variables()["overall"]
    counts = counts_of([[6, 3, 1], [5, 6, 4]], list(variable.domain))
    agreement, rater_pairs = pairwise_agreement_excluding_ties(counts @ variable.side_matrix())
    assert (agreement, rater_pairs) == (50.0, 2)
    assert pairwise_agreement_excluding_ties(counts_of([[3, 4, 3]], list(variable.domain)) @ variable.side_matrix()) == (
        None, 0)


def test_the_middle_of_an_oriented_scale_is_a_tie():
    assert [scale_side(v, lo=1, hi=6) for v in range(1, 7)] == [SIDE_B, SIDE_B, SIDE_NONE, SIDE_NONE, SIDE_A, SIDE_A]
    assert [scale_side(v, lo=1, hi=5) for v in range(1, 6)] == [SIDE_B, SIDE_B, SIDE_NONE, SIDE_A, SIDE_A]


def test_percent_agreement_counts_agreeing_rater_pairs():
    """(A, A, B): 1 of 3 pairs agree; (A, A): 1 of 1; together 2 of 4."""
    assert percent_agreement(np.array([[2, 1], [2, 0]])) == 50.0
    assert percent_agreement(np.array([[1, 0], [0, 1]])) is None


def test_fleiss_kappa_on_the_textbook_example():
    """Fleiss (1971) as tabulated on Wikipedia: 10 subjects, 14 raters, 5 categories, kappa = 0.210."""
    table = np.array([
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ])
    assert round(fleiss_kappa(table), 3) == 0.210


def test_fleiss_kappa_needs_the_same_number_of_ratings_on_every_unit():
    assert fleiss_kappa(np.array([[2, 1], [1, 1]])) is None
    assert fleiss_kappa(np.array([[2, 1], [1, 2], [0, 0]])) == pytest.approx(-1 / 3)


def test_item_statistics_by_hand():
    """(6, 6, 1): mean 13/3, spread 5, majority A with 2/3, entropy H(2/3, 1/3); (3, 4): no majority side."""
    variable = generation_variables()["overall"]
    counts = counts_of([[6, 6, 1], [3, 5], []], list(variable.domain))
    stats = item_statistics(counts, values=variable.values, category_matrix=variable.category_matrix())
    assert stats["mean"][0] == pytest.approx(13 / 3) and stats["spread"][0] == 5
    assert variable.categories[stats["majority"][0]] == "A" and stats["share"][0] == pytest.approx(2 / 3)
    assert stats["entropy"][0] == pytest.approx(-(2 / 3) * math.log2(2 / 3) - (1 / 3) * math.log2(1 / 3))
    assert stats["majority"][1] == -1 and stats["entropy"][1] == pytest.approx(1.0)
    assert stats["majority"][2] == -1 and np.isnan(stats["mean"][2])


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_from_coincidences_equals_the_package_for_any_unit_weights(level):
    """A bootstrap resample is a vector of unit weights; alpha over it equals the package's alpha on the
    units repeated that many times, so the vectorised bootstrap computes exact alphas."""
    rng = np.random.default_rng(3)
    counts = rng.multinomial(3, [0.1, 0.2, 0.1, 0.1, 0.2, 0.3], size=400)
    values = np.arange(1.0, 7.0)
    patterns, multiplicity = kalpha.unit_patterns(counts)
    o_flat = kalpha.pattern_coincidences(patterns).reshape(len(patterns), -1)
    whole = kalpha.alpha_from_coincidences((multiplicity @ o_flat).reshape(6, 6), level=level, values=values)
    assert whole == pytest.approx(kalpha.alpha(counts, level=level, values=values), abs=1e-12)
    weights = rng.multinomial(multiplicity.sum(), multiplicity / multiplicity.sum())
    repeated = np.repeat(patterns, weights, axis=0)
    resampled = kalpha.alpha_from_coincidences((weights @ o_flat).reshape(6, 6), level=level, values=values)
    assert resampled == pytest.approx(krippendorff.alpha(value_counts=repeated, value_domain=values,
                                                          level_of_measurement=level), abs=1e-12)


def test_bootstrap_is_seeded_and_its_interval_brackets_the_estimate():
    counts = canonical_counts()
    values = np.array([1.0, 2.0, 3.0, 4.0])
    first = kalpha.alpha_bootstrap(counts, level="ordinal", values=values, resamples=500, seed=11)
    again = kalpha.alpha_bootstrap(counts, level="ordinal", values=values, resamples=500, seed=11)
    other = kalpha.alpha_bootstrap(counts, level="ordinal", values=values, resamples=500, seed=12)
    assert np.array_equal(first, again, equal_nan=True) and not np.array_equal(first, other, equal_nan=True)
    low, high = kalpha.percentile_interval(first)
    assert low < kalpha.alpha(counts, level="ordinal", values=values) < high


def test_bootstrap_batches_give_the_same_draws_as_one_batch(monkeypatch):
    """Memory-bounded batching only splits the work: the seeded resamples are identical."""
    counts = canonical_counts()
    values = np.array([1.0, 2.0, 3.0, 4.0])
    whole = kalpha.alpha_bootstrap(counts, level="interval", values=values, resamples=64, seed=5)
    monkeypatch.setattr(kalpha, "BOOTSTRAP_MEMORY_CELLS", 30)
    batched = kalpha.alpha_bootstrap(counts, level="interval", values=values, resamples=64, seed=5)
    assert np.allclose(whole, batched, equal_nan=True)


def test_a_choice_question_has_only_nominal_alpha():
    variables = variables_of_schema(schemas.preset("ab-tie", "text-to-text"))
    table = table_from_answers(variables=variables, pair_ids=[1, 1, 2, 2, 3, 3], raters=["x", "y"] * 3,
                               answers=[{"preference": p} for p in ["A", "A", "B", "tie", "B", "B"]])
    report = agreement_report(table, bootstrap=20, seed=1)
    assert report["alpha"]["ordinal"] is None and report["alpha"]["interval"] is None
    assert report["alpha"]["nominal"] == pytest.approx(krippendorff.alpha(
        reliability_data=[[0, 1, 1], [0, 2, 1]], level_of_measurement="nominal"))
    assert report["pairwise_agreement_excluding_ties"] == 100.0


def test_criteria_answers_make_one_unit_per_pair_and_criterion():
    variables = variables_of_schema(schemas.preset("omni-criteria", "text-to-text"))
    answers = [
        {"criteria": [{"criterion": "accuracy", "label": "A"}, {"criterion": "style", "label": "tie"}]},
        {"criteria": [{"criterion": "accuracy", "label": "A"}, {"criterion": "style", "label": "B"}]},
        {"criteria": [{"criterion": "accuracy", "label": "bogus"}]},
    ]
    table = table_from_answers(variables=variables, pair_ids=[1, 1, 1], raters=["x", "y", "z"], answers=answers)
    figures = variable_agreement(table, variables["criteria"], bootstrap=0, seed=0)
    assert figures["units"] == 2 and figures["ratings"] == 4
    assert figures["percent_agreement"] == 50.0


def test_report_has_every_headline_key_and_per_dimension_entries():
    variables = generation_variables()
    answers = [{"overall": 6, "image_quality": {"A": 3, "B": 1}}, {"overall": 5, "image_quality": {"A": 2, "B": 1}},
               {"overall": 2, "image_quality": {"A": 0, "B": 2}}, {"overall": 1, "image_quality": {"A": 1, "B": 3}}]
    table = table_from_answers(variables=variables, pair_ids=[1, 1, 2, 2], raters=["x", "y"] * 2, answers=answers)
    report = agreement_report(table, bootstrap=30, seed=2)
    assert {"items", "annotations", "alpha", "alpha_ci95", "pairwise_agreement_excluding_ties", "per_dimension"} <= set(report)
    assert (report["items"], report["annotations"], report["raters"]) == (2, 4, 2)
    assert report["per_dimension"]["image_quality"]["units"] == 4
    assert report["per_dimension"]["image_quality"]["pairwise_agreement_excluding_ties"] is None
    assert report["per_dimension"]["text_rendering"]["ratings"] == 0
    assert report["per_dimension"]["text_rendering"]["alpha"]["ordinal"] is None
    assert "rationale" not in report["per_dimension"]
