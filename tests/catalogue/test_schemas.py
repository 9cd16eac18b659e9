"""Rating schemas: presets are valid, answers are checked, orientation round-trips."""

import pytest

from annotation.catalogue import schemas


@pytest.mark.parametrize("name", schemas.PRESETS)
@pytest.mark.parametrize("kind", ["text-to-image", "image-editing", "interleaved", "reasoning", "text-to-audio"])
def test_every_preset_is_a_valid_schema_for_every_kind(name, kind):
    definition = schemas.preset(name, kind)
    schemas.validate_schema(definition)
    assert all(q["level"] in ("nominal", "ordinal", "interval", None) for q in definition["questions"])


def test_generation_rubrics_follow_the_task_kind():
    ids = lambda kind: [q["id"] for q in schemas.preset("mmrb2-generation", kind)["questions"]]  # noqa: E731
    assert "image_faithfulness" not in ids("text-to-image")
    assert "image_faithfulness" in ids("image-editing")
    assert "cross_image_congruence" in ids("interleaved")
    assert ids("text-to-image")[-3:] == ["overall", "rationale", "prompt_valid"]


def test_each_preset_fits_the_kinds_its_questions_can_be_answered_for():
    """Picture rubrics fit picture-making kinds, the reasoning scale fits written answers, the A/B presets any kind."""
    from annotation.catalogue.models import TaskKind
    from annotation.catalogue.services.campaigns import DEFAULT_PRESET_BY_KIND

    assert set(schemas.PRESET_KINDS) == set(schemas.PRESETS)
    assert schemas.presets_for_kind("text-to-text") == ["mmrb2-reasoning", "omni-criteria", "ab-tie", "arena"]
    assert schemas.presets_for_kind("text-to-image") == ["mmrb2-generation", "omni-criteria", "ab-tie", "arena"]
    assert schemas.presets_for_kind("text-to-audio") == ["omni-criteria", "ab-tie", "arena"]
    for kind in TaskKind.values:
        assert schemas.preset_fits(DEFAULT_PRESET_BY_KIND.get(kind, "ab-tie"), kind), f"{kind}'s default preset fits it"
        if not schemas.preset_fits("mmrb2-generation", kind):
            labels = [q["label"] for q in schemas.preset("mmrb2-generation", kind)["questions"]]
            assert "Image quality" in labels  # what a campaign of this kind could not answer
    with pytest.raises(schemas.SchemaError, match="preset 'mmrb2-generation' does not fit a text-to-text campaign"):
        schemas.check_preset_fits("mmrb2-generation", "text-to-text")


def test_missing_required_answers_are_reported_per_question():
    definition = schemas.preset("mmrb2-generation", "text-to-image")
    errors = schemas.validate_answers(definition, {"overall": 7})
    assert errors["overall"].startswith("Overall preference: choose a whole number from 1 to 6")
    assert errors["rationale"] == "This question is required."
    assert "text_rendering" not in errors


def test_complete_answers_pass():
    definition = schemas.preset("mmrb2-generation", "text-to-image")
    answers = {
        "text_faithfulness": {"A": 3, "B": 1},
        "image_quality": {"A": 2, "B": 2},
        "overall": 5,
        "rationale": "A follows the prompt.",
        "prompt_valid": True,
    }
    assert schemas.validate_answers(definition, answers) == {}


def test_swapped_answers_are_stored_canonically_and_reorient_is_its_own_inverse():
    definition = schemas.preset("mmrb2-generation", "text-to-image")
    shown = {"overall": 6, "image_quality": {"A": 3, "B": 0}, "rationale": "left wins"}
    canonical = schemas.reorient(definition, shown, swapped=True)
    assert canonical["overall"] == 1
    assert canonical["image_quality"] == {"A": 0, "B": 3}
    assert schemas.reorient(definition, canonical, swapped=True) == shown


def test_criteria_labels_flip_with_the_sides():
    definition = schemas.preset("omni-criteria", "text-to-text")
    shown = {"criteria": [{"criterion": "helpfulness", "label": "A"}, {"criterion": "tone", "label": "tie"}]}
    assert schemas.reorient(definition, shown, swapped=True)["criteria"] == [
        {"criterion": "helpfulness", "label": "B"},
        {"criterion": "tone", "label": "tie"},
    ]


def test_a_malformed_schema_is_refused_with_the_reason():
    with pytest.raises(schemas.SchemaError, match="duplicate question id 'x'"):
        schemas.validate_schema({"questions": [{"id": "x", "type": "text"}, {"id": "x", "type": "text"}]})
