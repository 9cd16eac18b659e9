"""Consistency warnings (issue 31): the soft check of one set of answers, asked by the rating page before a submit
through POST /api/v1/assignments/<id>/check/, and a submission that records the rater confirmed despite it."""

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotation.catalogue import schemas
from annotation.workqueue import consistency
from annotation.workqueue.models import Annotation, Assignment
from annotation.workqueue.selectors import answers_check
from annotation.workqueue.services.assignments import assignment_claim
from tests.workqueue.assignment_helpers import ab_tie_campaign

GENERATION = schemas.preset("mmrb2-generation", "text-to-image")


def _answer(overall: int, a: int, b: int, *, valid: bool = True) -> dict:
    """Every rubric scored ``a`` for A and ``b`` for B (3 Excellent … 1 Weak), with ``overall`` on the 1–6 scale."""
    return {"overall": overall, "text_faithfulness": {"A": a, "B": b}, "image_quality": {"A": a, "B": b},
            "text_rendering": {"A": a, "B": b}, "rationale": "because", "prompt_valid": valid}


def test_a_excellent_and_b_weak_everywhere_with_b_significantly_better_overall_is_a_contradiction():
    (found,) = consistency.contradictions(GENERATION, _answer(1, 3, 1))
    assert found.message.startswith("Overall preference prefers B, but your scores favour A (Faithful to the "
                                    "instruction: A 3, B 1; Image quality: A 3, B 1; Text rendering: A 3, B 1)")
    assert found.questions == ("overall", "text_faithfulness", "image_quality", "text_rendering"), "preference first"


def test_an_invalid_prompt_with_the_strongest_preference_is_a_contradiction_a_weaker_one_is_not():
    (found,) = consistency.contradictions(GENERATION, _answer(6, 3, 1, valid=False))
    assert found.message.startswith("You answered no to “Is the prompt valid and answerable?”, yet Overall preference "
                                    "is “A significantly better”")
    assert found.questions == ("overall", "prompt_valid")
    assert consistency.warnings(GENERATION, _answer(5, 3, 1, valid=False)) == [], "marginally better is not strong"
    assert consistency.warnings(GENERATION, _answer(4, 2, 2, valid=False)) == [], "unsure"
    assert consistency.warnings(GENERATION, _answer(6, 3, 1, valid=True)) == [], "a valid prompt"


def test_both_contradictions_are_named_when_both_hold():
    rubrics, validity = consistency.warnings(GENERATION, _answer(1, 3, 1, valid=False))
    assert rubrics.startswith("Overall preference prefers B") and validity.startswith("You answered no")


def test_only_schemas_whose_answers_can_contradict_are_checked():
    fits = {name: consistency.can_contradict(schemas.preset(name, "text-to-image" if name == "mmrb2-generation"
                                                             else "text-to-text")) for name in schemas.PRESETS}
    assert fits == {"mmrb2-generation": True, "mmrb2-reasoning": False, "omni-criteria": False, "ab-tie": False,
                    "arena": False}


def _generation_lease(*, swapped: bool = False):
    campaign, (rater, other, _), _ = ab_tie_campaign(pairs=1)
    campaign.rating_schema.definition = GENERATION
    campaign.rating_schema.save()
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    Assignment.objects.filter(pk=assignment.pk).update(swapped=swapped)
    return rater, other, assignment


def _api(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


@pytest.mark.django_db
def test_the_check_names_the_contradiction_and_the_questions_and_nothing_for_consistent_answers():
    rater, _, assignment = _generation_lease()
    url = f"/api/v1/assignments/{assignment.pk}/check/"
    checked = _api(rater).post(url, {"values": _answer(1, 3, 1)}, format="json")
    assert checked.status_code == 200
    assert checked.json()["warnings"][0].startswith("Overall preference prefers B, but your scores favour A")
    assert checked.json()["questions"] == ["overall", "text_faithfulness", "image_quality", "text_rendering"]
    both = _api(rater).post(url, {"values": _answer(1, 3, 1, valid=False)}, format="json").json()
    assert len(both["warnings"]) == 2 and both["questions"][-1] == "prompt_valid", "each question once"
    consistent = _api(rater).post(url, {"values": _answer(6, 3, 1)}, format="json")
    assert consistent.status_code == 200 and consistent.json() == {"warnings": [], "questions": []}
    partial = _api(rater).post(url, {"values": {"overall": 1}}, format="json")
    assert partial.json() == {"warnings": [], "questions": []}, "answers not given yet contradict nothing"
    assert not Annotation.objects.exists() and Assignment.objects.get(pk=assignment.pk).status == "active"


@pytest.mark.django_db
def test_the_check_of_another_raters_assignment_is_not_found():
    _, other, assignment = _generation_lease()
    response = _api(other).post(f"/api/v1/assignments/{assignment.pk}/check/", {"values": _answer(1, 3, 1)}, format="json")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert _api(other).post("/api/v1/assignments/999999/check/", {"values": {}}, format="json").status_code == 404


@pytest.mark.django_db
def test_the_check_reads_the_schema_in_one_query(django_assert_num_queries):
    rater, _, assignment = _generation_lease()
    with django_assert_num_queries(1):
        assert answers_check(assignment_id=assignment.pk, annotator=rater, values=_answer(1, 3, 1))


def _submit(client, assignment, values, **extra):
    body = {"values": values, "time_on_item_ms": 1000, "idempotency_key": f"k-{assignment.pk}", **extra}
    return client.post(f"/api/v1/assignments/{assignment.pk}/submit/", json.dumps(body), content_type="application/json")


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["door", "drf"])
def test_a_submit_confirmed_despite_the_warning_stores_the_warning_as_shown(path):
    rater, _, assignment = _generation_lease(swapped=True)
    if path == "door":  # a signed-in session: the work queue's own door (annotation.workqueue.hotpath)
        client = Client()
        client.force_login(rater)
    else:
        client = _api(rater)
    response = _submit(client, assignment, _answer(1, 3, 1), confirm_warnings=True)
    assert response.status_code == 200, response.content
    annotation = Annotation.objects.get(assignment=assignment)
    (confirmed,) = annotation.confirmed_warnings
    assert confirmed.startswith("Overall preference prefers B, but your scores favour A"), "worded as shown"
    assert annotation.values["overall"] == 6, "the answer itself is stored canonical, as always (shown swapped)"
    review = _api(rater).get(f"/api/v1/assignments/{assignment.pk}/review/").json()
    assert review["confirmed_warnings"] == [confirmed] and review["warnings"] == [confirmed]


@pytest.mark.django_db
@pytest.mark.parametrize(("values", "confirm"), [(_answer(1, 3, 1), False), (_answer(6, 3, 1), True)])
def test_a_submit_not_confirmed_or_without_a_contradiction_records_no_confirmation(values, confirm):
    rater, _, assignment = _generation_lease()
    client = Client()
    client.force_login(rater)
    assert _submit(client, assignment, values, confirm_warnings=confirm).status_code == 200
    assert Annotation.objects.get(assignment=assignment).confirmed_warnings is None
    assert _api(rater).get(f"/api/v1/assignments/{assignment.pk}/review/").json()["confirmed_warnings"] == []


@pytest.mark.django_db
def test_a_confirmation_that_is_not_true_or_false_is_refused():
    rater, _, assignment = _generation_lease()
    client = Client()
    client.force_login(rater)
    response = _submit(client, assignment, _answer(1, 3, 1), confirm_warnings="maybe")
    assert response.status_code == 400 and "confirm_warnings" in response.content.decode()
    assert not Annotation.objects.exists()
