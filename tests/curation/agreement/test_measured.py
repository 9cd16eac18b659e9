"""Every agreement figure names the variable and level of measurement it was computed on."""

import pytest

from annotation.catalogue import schemas
from curation import quality
from curation.agreement.report import agreement_report
from curation.agreement.variables import variables_of_schema
from tests.curation.agreement.mmrb2_files import generation_table, load_pairs


@pytest.mark.parametrize(
    ("preset", "kind", "qid", "expected"),
    [
        ("mmrb2-generation", "text-to-image", "overall",
         ["overall: nominal on A/B/tie", "overall: ordinal on 1..6", "overall: interval on 1..6"]),
        ("mmrb2-generation", "text-to-image", "image_quality",
         ["image_quality per response: nominal on 0/1/2/3", "image_quality per response: ordinal on 0..3",
          "image_quality per response: interval on 0..3"]),
        ("mmrb2-generation", "text-to-image", "prompt_valid", ["prompt_valid: nominal on false/true"]),
        ("mmrb2-reasoning", "reasoning", "correctness",
         ["correctness per response: nominal on 1/2/3/4/5", "correctness per response: ordinal on 1..5",
          "correctness per response: interval on 1..5"]),
        ("omni-criteria", "text-to-text", "criteria", ["criteria per criterion: nominal on A/B/tie"]),
    ],
)
def test_a_variable_names_itself_its_level_and_the_values_counted(preset, kind, qid, expected):
    variable = variables_of_schema(schemas.preset(preset, kind))[qid]
    assert [variable.measured(level) for level in variable.levels] == expected


def test_fleiss_kappa_on_mmrb2s_t2i_ratings_is_labelled_as_counted_on_a_b_tie_not_the_six_points(mmrb2_dir):
    """0.461 on A / B / tie; on the six raw scale points it would be 0.245, so the label matters."""
    report = agreement_report(generation_table(load_pairs(mmrb2_dir, "t2i"), "text-to-image"), bootstrap=0)
    assert round(report["fleiss_kappa"], 3) == 0.461
    assert report["measured"]["fleiss_kappa"] == "overall: nominal on A/B/tie"
    assert report["per_dimension"]["overall"]["measured"] == report["measured"]
    assert report["per_dimension"]["image_quality"]["measured"]["alpha"]["ordinal"] == (
        "image_quality per response: ordinal on 0..3")
    assert report["per_dimension"]["image_quality"]["measured"]["pairwise_agreement_excluding_ties"] is None


def test_the_console_headline_points_carry_the_label_of_what_they_measured():
    report = {"pairwise_agreement_excluding_ties": 95.34, "alpha": {"nominal": 0.46, "ordinal": 0.7162},
              "alpha_ci95": {"ordinal": [0.69, 0.74]},
              "measured": {"alpha": {"nominal": "overall: nominal on A/B/tie", "ordinal": "overall: ordinal on 1..6"},
                           "pairwise_agreement_excluding_ties": "overall: nominal on A/B (ties excluded)"}}
    assert quality.agreement_points(report) == {
        "pairwise_agreement": {"value": 0.9534, "low": None, "high": None,
                               "measured": "overall: nominal on A/B (ties excluded)"},
        "krippendorff_alpha_ordinal": {"value": 0.7162, "low": 0.69, "high": 0.74, "measured": "overall: ordinal on 1..6"},
    }
