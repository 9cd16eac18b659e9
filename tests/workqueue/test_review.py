"""Review and correct: a rater reopens a submitted pair, changes or withdraws the answer until consensus, every
version kept; a soft warning when rubric scores contradict the overall preference."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from annotation.catalogue import schemas
from annotation.catalogue.models import Pair
from annotation.workqueue import consistency
from annotation.workqueue.models import Annotation, AnnotationRevision, Assignment, AssignmentEvent
from annotation.workqueue.services.assignments import assignment_claim
from curation.services.consensus import consensus_apply
from tests.factories import UserFactory
from tests.workqueue.assignment_helpers import ab_tie_campaign, submit

GENERATION = schemas.preset("mmrb2-generation", "text-to-image")


def _answer(overall: int, faithful: tuple[int, int], quality: tuple[int, int]) -> dict:
    return {"overall": overall, "text_faithfulness": {"A": faithful[0], "B": faithful[1]},
            "image_quality": {"A": quality[0], "B": quality[1]}, "rationale": "because", "prompt_valid": True}


def test_rubric_scores_favouring_only_the_other_side_give_a_warning():
    (warning,) = consistency.warnings(GENERATION, _answer(6, (1, 3), (2, 2)))
    assert warning.startswith("Overall preference prefers A, but your scores favour B (Faithful to the instruction: A 1, B 3)")
    assert warning.endswith("this is only a warning.")
    assert consistency.warnings(GENERATION, _answer(1, (3, 1), (3, 0)))[0].startswith("Overall preference prefers B")


def test_consistent_mixed_or_undecided_answers_give_no_warning():
    assert consistency.warnings(GENERATION, _answer(6, (3, 1), (1, 3))) == [], "one rubric each way"
    assert consistency.warnings(GENERATION, _answer(6, (2, 2), (2, 2))) == [], "all even"
    assert consistency.warnings(GENERATION, _answer(4, (0, 3), (0, 3))) == [], "a tie overall names no side"
    assert consistency.warnings(GENERATION, {"overall": 6}) == [], "no rubric answered"


def _api(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def _submitted(answer="A", *, overlap=1, swapped=False):
    campaign, (rater, other, _), (pair, *_) = ab_tie_campaign(overlap=overlap, pairs=1)
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    if swapped != assignment.swapped:
        Assignment.objects.filter(pk=assignment.pk).update(swapped=swapped)
        assignment.refresh_from_db()
    submit(assignment, {"preference": answer})
    return campaign, rater, other, assignment


@pytest.mark.django_db
def test_a_correction_replaces_the_answer_and_keeps_each_version_with_its_time():
    campaign, rater, _, assignment = _submitted("A")
    first = Annotation.objects.get(assignment=assignment)
    response = _api(rater).post(f"/api/v1/assignments/{assignment.pk}/correction/", {"values": {"preference": "B"}},
                                format="json")
    assert response.status_code == 200, response.json()
    assert response.json() == {"annotation": first.pk, "warnings": []}
    assert Annotation.objects.get(pk=first.pk).values == {"preference": "B"}
    revisions = list(AnnotationRevision.objects.filter(assignment=assignment).order_by("at", "id").values_list(
        "kind", "values", "at"))
    assert [(k, v) for k, v, _ in revisions] == [("submitted", {"preference": "A"}), ("corrected", {"preference": "B"})]
    assert revisions[0][2] == first.created_at and revisions[1][2] > first.created_at
    assert AssignmentEvent.objects.filter(assignment=assignment, kind="correct").count() == 1
    again = _api(rater).post(f"/api/v1/assignments/{assignment.pk}/correction/", {"values": {"preference": "tie"}},
                             format="json")
    assert again.status_code == 200
    assert AnnotationRevision.objects.filter(assignment=assignment).count() == 3, "the first submission recorded once"


@pytest.mark.django_db
def test_consensus_uses_the_latest_answer_and_a_correction_after_it_is_a_409_keeping_the_answer():
    campaign, rater, _, assignment = _submitted("A")
    _api(rater).post(f"/api/v1/assignments/{assignment.pk}/correction/", {"values": {"preference": "B"}}, format="json")
    consensus_apply(campaign=campaign, policy="majority", params={"k": 1})
    assert Pair.objects.get(pk=assignment.pair_id).consensus.chosen == "B"
    refused = _api(rater).post(f"/api/v1/assignments/{assignment.pk}/correction/", {"values": {"preference": "A"}},
                               format="json")
    assert refused.status_code == 409
    assert refused.json()["code"] == "pair_decided"
    assert refused.json()["message"].startswith("This pair has gone into consensus")
    assert Annotation.objects.get(assignment=assignment).values == {"preference": "B"}
    assert AnnotationRevision.objects.filter(assignment=assignment).count() == 2
    withdrawn = _api(rater).post(f"/api/v1/assignments/{assignment.pk}/withdrawal/")
    assert (withdrawn.status_code, withdrawn.json()["code"]) == (409, "pair_decided")
    assert Annotation.objects.filter(assignment=assignment).exists()


@pytest.mark.django_db
def test_a_correction_is_given_as_shown_and_stored_in_canonical_orientation():
    _, rater, _, assignment = _submitted("A", swapped=True)
    assert Annotation.objects.get(assignment=assignment).values == {"preference": "B"}, "left was B"
    _api(rater).post(f"/api/v1/assignments/{assignment.pk}/correction/", {"values": {"preference": "B"}}, format="json")
    assert Annotation.objects.get(assignment=assignment).values == {"preference": "A"}
    review = _api(rater).get(f"/api/v1/assignments/{assignment.pk}/review/").json()
    assert review["draft"] == {"preference": "B"}, "the review shows the answer as the rater gave it"
    assert [r["kind"] for r in review["revisions"]] == ["submitted", "corrected"]
    assert (review["can_change"], review["decided"]) == (True, False)


@pytest.mark.django_db
def test_invalid_answers_and_other_raters_assignments_are_refused_and_change_nothing():
    _, rater, other, assignment = _submitted("A")
    bad = _api(rater).post(f"/api/v1/assignments/{assignment.pk}/correction/", {"values": {"preference": "C"}},
                           format="json")
    assert (bad.status_code, bad.json()["code"]) == (400, "invalid_answers")
    assert "preference" in bad.json()["extra"]["fields"]
    for url in (f"/api/v1/assignments/{assignment.pk}/correction/", f"/api/v1/assignments/{assignment.pk}/withdrawal/"):
        assert _api(other).post(url, {"values": {"preference": "B"}}, format="json").status_code == 404
    assert _api(other).get(f"/api/v1/assignments/{assignment.pk}/review/").status_code == 404
    assert Annotation.objects.get(assignment=assignment).values == {"preference": "A"}
    assert not AnnotationRevision.objects.exists()


@pytest.mark.django_db
def test_an_open_lease_cannot_be_reviewed():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    response = _api(rater).post(f"/api/v1/assignments/{assignment.pk}/correction/", {"values": {"preference": "B"}},
                                format="json")
    assert (response.status_code, response.json()["code"]) == (409, "assignment_not_submitted")


@pytest.mark.django_db
def test_a_withdrawal_frees_the_slot_for_another_rater_and_keeps_the_versions():
    campaign, rater, other, assignment = _submitted("A", overlap=1)
    pair = Pair.objects.get(pk=assignment.pair_id)
    assert (pair.status, pair.annotations_done) == (Pair.Status.COMPLETE, 1)
    response = _api(rater).post(f"/api/v1/assignments/{assignment.pk}/withdrawal/")
    assert response.json() == {"assignment": assignment.pk, "status": "withdrawn"}
    pair.refresh_from_db()
    assert (pair.status, pair.annotations_done, pair.active_claims) == (Pair.Status.QUEUED, 0, 0)
    assert not Annotation.objects.filter(pair=pair).exists()
    assert list(AnnotationRevision.objects.filter(assignment=assignment).order_by("at", "id").values_list(
        "kind", "values")) == [("submitted", {"preference": "A"}), ("withdrawn", {})]
    assert assignment_claim(campaign=campaign, annotator=other).pair_id == pair.pk
    assert assignment_claim(campaign=campaign, annotator=rater) is None, "the rater who withdrew does not get it back"
    again = _api(rater).post(f"/api/v1/assignments/{assignment.pk}/withdrawal/")
    assert (again.status_code, again.json()["code"]) == (409, "assignment_withdrawn")


@pytest.mark.django_db
def test_my_work_lists_submitted_and_withdrawn_pairs_newest_first_in_one_query():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=3)
    named = Pair.objects.filter(campaign=campaign).select_related("prompt", "response_a").order_by("pk").first()
    named.prompt.content = [{"type": "text", "text": f"Which is kinder? (asked of {named.response_a.model_name})"}]
    named.prompt.save(update_fields=["content"])
    done = []
    for answer in ("A", "B", "tie"):
        assignment = assignment_claim(campaign=campaign, annotator=rater)
        submit(assignment, {"preference": answer})  # as shown, whichever side was on the left
        done.append(assignment)
    api = _api(rater)
    api.post(f"/api/v1/assignments/{done[0].pk}/withdrawal/")
    with CaptureQueriesContext(connection) as queries:
        listed = api.get("/api/v1/me/work/").json()
    assert len(queries) == 1, [q["sql"] for q in queries]
    assert [item["assignment"] for item in listed] == [d.pk for d in reversed(done)]
    assert [item["answer"] for item in listed] == ["Tie", "B", ""]
    assert [(item["status"], item["can_change"]) for item in listed] == [
        ("submitted", True), ("submitted", True), ("withdrawn", False)]
    assert all("external" not in key for item in listed for key in item)
    prompts = {item["assignment"]: item["prompt"] for item in listed}
    shown = prompts[next(d.pk for d in done if d.pair_id == named.pk)]
    assert shown.startswith("Which is kinder? (asked of ") and named.response_a.model_name not in shown, "blind"
    assert UserFactory(username="nobody") and _api(UserFactory(username="nobody")).get("/api/v1/me/work/").json() == []


@pytest.mark.django_db
def test_the_check_endpoint_warns_without_storing_anything():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    campaign.rating_schema.definition = GENERATION
    campaign.rating_schema.save()
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    checked = _api(rater).post(f"/api/v1/assignments/{assignment.pk}/check/", {"values": _answer(6, (0, 3), (1, 2))},
                               format="json")
    assert checked.status_code == 200
    assert checked.json()["warnings"][0].startswith("Overall preference prefers A, but your scores favour B")
    assert not Annotation.objects.exists() and Assignment.objects.get(pk=assignment.pk).status == "active"
