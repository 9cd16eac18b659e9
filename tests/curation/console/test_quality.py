"""Data-quality arithmetic, without a database."""

import pytest

from annotation.catalogue import schemas
from curation import quality

GEN = schemas.preset("mmrb2-generation", "text-to-image")


@pytest.mark.parametrize(("overall", "side"), [(6, "A"), (5, "A"), (4, "tie"), (3, "tie"), (2, "B"), (1, "B")])
def test_mmrb2_overall_ratings_map_to_sides_with_3_and_4_as_ties(overall, side):
    assert quality.preference_side(GEN, {"overall": overall}) == side


@pytest.mark.parametrize(
    ("preset", "values", "side"),
    [
        ("ab-tie", {"preference": "B"}, "B"),
        ("arena", {"preference": "both_bad"}, "tie"),
        ("omni-criteria", {"criteria": [{"criterion": "x", "label": "A"}, {"criterion": "y", "label": "A"}]}, "A"),
        ("omni-criteria", {"criteria": [{"criterion": "x", "label": "A"}, {"criterion": "y", "label": "B"}]}, "tie"),
        ("mmrb2-reasoning", {"correctness": {"A": 1, "B": 5}}, "A"),
        ("mmrb2-reasoning", {"correctness": {"A": 2, "B": 2}}, "tie"),
        ("mmrb2-generation", {"overall": "6"}, None),
        ("mmrb2-generation", {}, None),
        ("mmrb2-generation", "not a dict", None),
    ],
)
def test_every_preset_yields_a_side_or_none(preset, values, side):
    assert quality.preference_side(schemas.preset(preset, "text-to-image"), values) == side


@pytest.mark.parametrize(
    ("side", "swapped", "left"),
    [("A", False, True), ("A", True, False), ("B", True, True), ("tie", False, None), ("A", None, None)],
)
def test_the_left_response_depends_on_the_orientation_shown(side, swapped, left):
    assert quality.shown_left(side, swapped) is left


@pytest.mark.parametrize(
    ("order", "verdict", "first"),
    [("forward", "A", True), ("forward", "B", False), ("swapped", "B", True), ("swapped", "tie", None)],
)
def test_a_judge_picks_first_when_its_canonical_verdict_was_shown_first(order, verdict, first):
    assert quality.judge_first_position(order, verdict) is first


def test_the_wilson_interval_matches_the_textbook_value():
    low, high = quality.wilson_interval(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    assert quality.wilson_interval(0, 0) == (None, None)
    assert quality.rate(0, 0)["rate"] is None


def test_fast_work_needs_enough_items_and_flags_both_ways_of_skimming():
    assert quality.fast_work([1, 1, 1, 1], everyone_median=30).flagged is False
    slow_burst = quality.fast_work([60, 60, 60, 2, 2], everyone_median=30)
    assert slow_burst.reasons == ("40% of items under 5s",)
    always_quick = quality.fast_work([8, 8, 9, 9, 9], everyone_median=40)
    assert always_quick.reasons == ("median 9.0s is under a third of everyone's 40.0s",)
    assert quality.fast_work([30] * 6, everyone_median=30).flagged is False


def test_median_and_bucket_labels():
    assert quality.median([3, 1, 2]) == 2 and quality.median([1, 2, 3, 4]) == 2.5 and quality.median([]) is None
    assert quality.time_bucket_labels((5, 10)) == ["<5s", "5–10s", "≥10s"]


@pytest.mark.parametrize(
    ("report", "expected"),
    [
        ({"pairwise_agreement_excluding_ties": 87.5, "alpha": {"nominal": 0.5, "ordinal": 0.7, "interval": 0.6},
          "alpha_ci95": {"nominal": [0.4, 0.6], "ordinal": [0.6, 0.8], "interval": None}},
         {"pairwise_agreement": {"value": 0.875, "low": None, "high": None},
          "krippendorff_alpha_ordinal": {"value": 0.7, "low": 0.6, "high": 0.8}}),
        # An A/B/tie question allows the nominal level only; no side pairs leave pairwise agreement null.
        ({"pairwise_agreement_excluding_ties": None, "alpha": {"nominal": 0.3, "ordinal": None, "interval": None},
          "alpha_ci95": {"nominal": [0.1, 0.5], "ordinal": None, "interval": None}},
         {"krippendorff_alpha_nominal": {"value": 0.3, "low": 0.1, "high": 0.5}}),
        # Too few ratings: alpha is defined but no bootstrap interval is.
        ({"alpha": {"nominal": None, "ordinal": 0.2, "interval": 0.1}, "alpha_ci95": {"ordinal": None}},
         {"krippendorff_alpha_ordinal": {"value": 0.2, "low": None, "high": None}}),
        ({"pairwise_agreement_excluding_ties": "high", "alpha": True}, {}),
        ({"pairwise_agreement_excluding_ties": float("nan"), "alpha": {"ordinal": float("inf")}}, {}),
        ("garbage", {}),
    ],
)
def test_agreement_points_read_the_agreement_report_and_skip_what_is_undefined(report, expected):
    assert quality.agreement_points(report) == expected
