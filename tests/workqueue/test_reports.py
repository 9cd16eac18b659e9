"""Reporting a broken pair (issue 31): the rater's report over HTTP gives the pair back and reaches the curator's
queue under a pseudonym; the curator answers, excludes or marks fixed; the rater reads the answer; a report is never
a rating (agreement, consensus and releases do not see it)."""

import json

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.catalogue.models import Pair
from annotation.workqueue.models import Annotation, Assignment, AssignmentEvent, PairReport
from annotation.workqueue.selectors import my_reports
from annotation.workqueue.services.reports import REPORT_NOTE_MAX
from curation.selectors.reports import pair_reports_list
from curation.services.reports import REPORT_ANSWER_MAX
from tests.factories import CuratorFactory
from tests.workqueue.assignment_helpers import ab_tie_campaign, submit

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def claim(api, campaign) -> dict:
    answer = api.post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert answer.status_code == 200, answer.content
    return answer.json()


def report(api, assignment_id, **body):
    return api.post(f"/api/v1/assignments/{assignment_id}/report/", body, format="json")


@pytest.fixture
def reported():
    """Two pairs; the first rater claims one and reports it as having a broken image."""
    campaign, (rater, second, third), pairs = ab_tie_campaign(pairs=2, overlap=2)
    api = client_for(rater)
    shown = claim(api, campaign)
    answer = report(api, shown["assignment"], reason="media_broken", note="  Image B is all grey.  ")
    assert answer.status_code == 201, answer.content
    return {"campaign": campaign, "raters": [rater, second, third], "api": api, "shown": shown,
            "report": PairReport.objects.get(pk=answer.json()["report"]), "body": answer.json(),
            "curator": CuratorFactory()}


def test_a_report_is_stored_with_the_pair_the_rater_the_reason_and_the_note(reported):
    stored, shown = reported["report"], reported["shown"]
    assignment = Assignment.objects.get(pk=shown["assignment"])
    assert (stored.assignment_id, stored.pair_id, stored.campaign_id, stored.reporter) == (
        assignment.pk, assignment.pair_id, reported["campaign"].pk, reported["raters"][0])
    assert (stored.reason, stored.note, stored.status, stored.action) == ("media_broken", "Image B is all grey.", "open",
                                                                          "none")
    assert stored.created_at is not None and stored.answered_at is None
    assert reported["body"] == {"report": stored.pk, "assignment": assignment.pk, "reason": "media_broken",
                                "note": "Image B is all grey.", "status": "open",
                                "created_at": stored.created_at.isoformat().replace("+00:00", "Z")}


def test_a_report_gives_the_lease_back_like_a_skip_and_the_next_claim_brings_the_next_pair(reported):
    shown = reported["shown"]
    assignment = Assignment.objects.get(pk=shown["assignment"])
    assert assignment.status == Assignment.Status.SKIPPED
    assert assignment.skip_reason == "reported: media_broken"
    pair = Pair.objects.get(pk=assignment.pair_id)
    assert (pair.active_claims, pair.annotations_done) == (0, 0), "the slot went back, no rating was counted"
    assert AssignmentEvent.objects.filter(assignment=assignment, kind=AssignmentEvent.Kind.SKIP).count() == 1
    following = claim(reported["api"], reported["campaign"])
    assert following["assignment"] != shown["assignment"]
    assert following["pair_key"] != shown["pair_key"], "never the reported pair again"
    # The slot is someone else's now.
    other = claim(client_for(reported["raters"][1]), reported["campaign"])
    assert Assignment.objects.get(pk=other["assignment"]).pair_id in {assignment.pair_id,
                                                                       Assignment.objects.get(pk=following["assignment"]).pair_id}


def test_an_unknown_reason_is_refused_naming_the_reasons_there_are():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    api = client_for(rater)
    shown = claim(api, campaign)
    answer = report(api, shown["assignment"], reason="ugly", note="")
    assert answer.status_code == 400
    body = answer.json()
    assert body["code"] == "invalid_reason"
    assert body["message"] == ("Unknown reason 'ugly'; choose one of: media_broken, prompt_invalid, leaks_model, "
                               "cannot_judge, other.")
    assert report(api, shown["assignment"], reason=7).json()["message"].startswith("Unknown reason a int;")
    assert report(api, shown["assignment"]).status_code == 400, "a reason is required"
    assert Assignment.objects.get(pk=shown["assignment"]).status == Assignment.Status.ACTIVE, "nothing changed"
    assert not PairReport.objects.exists()


def test_a_note_over_the_cap_is_refused_and_other_needs_a_note():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    api = client_for(rater)
    shown = claim(api, campaign)
    long = report(api, shown["assignment"], reason="cannot_judge", note="x" * (REPORT_NOTE_MAX + 1))
    assert long.status_code == 400
    assert (long.json()["code"], long.json()["message"]) == (
        "note_too_long", f"The note is {REPORT_NOTE_MAX + 1:,} characters; keep it to {REPORT_NOTE_MAX:,}.")
    bare = report(api, shown["assignment"], reason="other", note="   ")
    assert (bare.status_code, bare.json()["code"]) == (400, "note_required")
    assert report(api, shown["assignment"], reason="cannot_judge", note=["a list"]).json()["code"] == "invalid_note"
    assert not PairReport.objects.exists()
    exact = report(api, shown["assignment"], reason="other", note="y" * REPORT_NOTE_MAX)
    assert exact.status_code == 201


def test_the_same_report_twice_is_one_report_and_a_different_second_one_is_a_conflict(reported):
    api, assignment_id = reported["api"], reported["shown"]["assignment"]
    again = report(api, assignment_id, reason="media_broken", note="Image B is all grey.")
    assert again.status_code == 200
    assert again.json() == reported["body"]
    other = report(api, assignment_id, reason="leaks_model", note="it says its name")
    assert (other.status_code, other.json()["code"]) == (409, "already_reported")
    assert PairReport.objects.count() == 1
    assert AssignmentEvent.objects.filter(assignment_id=assignment_id, kind=AssignmentEvent.Kind.SKIP).count() == 1
    with pytest.raises(IntegrityError), transaction.atomic():
        PairReport.objects.create(assignment_id=assignment_id, pair_id=reported["report"].pair_id,
                                  campaign=reported["campaign"], reporter=reported["raters"][0], reason="other",
                                  created_at=timezone.now())


def test_only_the_raters_own_open_pair_can_be_reported():
    campaign, (rater, other, _), _ = ab_tie_campaign(pairs=2)
    api = client_for(rater)
    shown = claim(api, campaign)
    assert report(client_for(other), shown["assignment"], reason="media_broken").status_code == 404
    submit(Assignment.objects.get(pk=shown["assignment"]))
    rated = report(api, shown["assignment"], reason="media_broken")
    assert (rated.status_code, rated.json()["code"]) == (409, "assignment_closed")
    skipped = claim(api, campaign)
    assert api.post(f"/api/v1/assignments/{skipped['assignment']}/skip/", {"reason": "x"}, format="json").status_code == 200
    assert report(api, skipped["assignment"], reason="media_broken").json()["code"] == "assignment_skipped"
    assert not PairReport.objects.exists()


def test_the_curators_queue_lists_open_reports_with_a_pseudonym_never_the_username(reported, django_assert_num_queries):
    rater = reported["raters"][0]
    curator_api = client_for(reported["curator"])
    # A second report, in the same campaign by another rater: one query for the page, whatever the count.
    second = claim(client_for(reported["raters"][1]), reported["campaign"])
    assert report(client_for(reported["raters"][1]), second["assignment"], reason="leaks_model",
                  note="The answer starts with the model's name").status_code == 201
    with django_assert_num_queries(1):
        pair_reports_list(campaign=reported["campaign"])
    answer = curator_api.get(f"/api/v1/reports/?campaign={reported['campaign'].slug}")
    assert answer.status_code == 200
    rows = answer.json()
    assert [row["reason"] for row in rows] == ["media_broken", "leaks_model"], "oldest first"
    first = rows[0]
    assert (first["id"], first["pair"], first["note"], first["status"]) == (
        reported["report"].pk, reported["report"].pair_id, "Image B is all grey.", "open")
    assert first["reporter"].startswith("rater-") and first["reporter"] != rows[1]["reporter"]
    assert rater.username not in answer.content.decode() and str(rater.pk) != first["reporter"].removeprefix("rater-")
    assert client_for(rater).get("/api/v1/reports/").status_code == 403, "annotators never see the queue"
    assert curator_api.get("/api/v1/reports/?campaign=no-such").status_code == 404
    assert curator_api.get("/api/v1/reports/?status=bogus").status_code == 400


def test_the_curators_answer_reaches_the_rater_and_can_be_given_again_until_closed(reported, django_assert_num_queries):
    curator_api, stored = client_for(reported["curator"]), reported["report"]
    answered = curator_api.post(f"/api/v1/reports/{stored.pk}/answer/", {"answer": "Thanks, we re-rendered it."},
                                format="json")
    assert answered.status_code == 200, answered.content
    assert (answered.json()["status"], answered.json()["action"], answered.json()["answer"]) == (
        "answered", "none", "Thanks, we re-rendered it.")
    stored.refresh_from_db()
    assert (stored.answered_by, stored.answered_at is not None) == (reported["curator"], True)
    assert client_for(reported["campaign"].members.first()).post(
        f"/api/v1/reports/{stored.pk}/answer/", {"answer": "hi"}, format="json").status_code == 403
    with django_assert_num_queries(1):
        (mine,) = my_reports(annotator=reported["raters"][0])
    assert (mine["answer"], mine["status"], mine["reason"], mine["note"]) == (
        "Thanks, we re-rendered it.", "answered", "media_broken", "Image B is all grey.")
    assert "secretmodel" not in str(mine)
    fixed = curator_api.post(f"/api/v1/reports/{stored.pk}/answer/", {"action": "fixed"}, format="json")
    assert (fixed.json()["status"], fixed.json()["action"], fixed.json()["answer"]) == (
        "closed", "fixed", "Thanks, we re-rendered it."), "an empty answer keeps the one given"
    closed = curator_api.post(f"/api/v1/reports/{stored.pk}/answer/", {"answer": "more"}, format="json")
    assert (closed.status_code, closed.json()["code"]) == (409, "report_closed")
    assert curator_api.get("/api/v1/reports/").json() == [], "the queue holds open reports only"
    assert len(curator_api.get("/api/v1/reports/?status=all").json()) == 1


def test_excluding_from_a_report_uses_the_consoles_exclude(reported):
    curator_api, stored = client_for(reported["curator"]), reported["report"]
    excluded = curator_api.post(f"/api/v1/reports/{stored.pk}/answer/",
                                {"answer": "The image is broken; the pair is out.", "action": "exclude"}, format="json")
    assert excluded.status_code == 200, excluded.content
    assert (excluded.json()["status"], excluded.json()["action"], excluded.json()["pair_status"]) == (
        "closed", "excluded", "excluded")
    pair = Pair.objects.get(pk=stored.pair_id)
    assert pair.status == Pair.Status.EXCLUDED
    assert pair.status_reason == f"excluded by {reported['curator'].username}: report {stored.pk} (media broken)"


def test_bad_answers_are_refused_precisely(reported):
    curator_api, stored = client_for(reported["curator"]), reported["report"]
    url = f"/api/v1/reports/{stored.pk}/answer/"
    for body, code in (({"answer": ""}, "answer_required"), ({"answer": "x", "action": "delete"}, "invalid_action"),
                       ({"answer": "x" * (REPORT_ANSWER_MAX + 1)}, "answer_too_long"), ({"answer": 5}, "invalid_answer")):
        answer = curator_api.post(url, body, format="json")
        assert (answer.status_code, answer.json()["code"]) == (400, code), body
    assert curator_api.post(url, {"answer": "x", "action": "delete"}, format="json").json()["message"] == (
        "Unknown action 'delete'; choose one of: none, exclude, fixed.")
    assert curator_api.post("/api/v1/reports/999999/answer/", {"answer": "x"}, format="json").status_code == 404
    stored.refresh_from_db()
    assert stored.status == "open"


def test_a_report_is_not_a_rating_it_never_enters_agreement_consensus_or_a_release(settings, tmp_path):
    from curation.models import ConsensusRecord, Release
    from curation.services.agreement import agreement_compute
    from curation.services.consensus import consensus_apply
    from curation.services.releases import release_publish

    settings.CONCORD_RELEASES_ROOT = tmp_path / "releases"
    settings.CONCORD_RELEASES_S3 = {**settings.CONCORD_RELEASES_S3, "bucket": ""}
    campaign, (reporter, *raters), _ = ab_tie_campaign(pairs=1, overlap=2, members=3)
    shown = claim(client_for(reporter), campaign)
    assert report(client_for(reporter), shown["assignment"], reason="cannot_judge", note="Both are fine").status_code == 201
    for rater in raters:
        lease = Assignment.objects.get(pk=claim(client_for(rater), campaign)["assignment"])
        submit(lease, {"preference": "B" if lease.swapped else "A"})  # canonical A from both
    pair = Pair.objects.get(campaign=campaign)
    assert (pair.annotations_done, pair.status) == (2, Pair.Status.COMPLETE)
    assert set(Annotation.objects.values_list("annotator", flat=True)) == {r.pk for r in raters}

    agreement = agreement_compute(campaign=campaign, bootstrap=10, seed=1)
    assert (agreement.report["annotations"], agreement.report["raters"]) == (2, 2)
    assert {row["rater"] for row in agreement.report["annotators"]} == {f"user:{r.pk}" for r in raters}, (
        "the reporter is no rater of the agreement report")
    consensus_apply(campaign=campaign, policy="majority", params={"k": 2})
    record = ConsensusRecord.objects.get(pair=pair)
    assert (record.decision, record.chosen, record.basis_annotations) == (ConsensusRecord.Decision.KEPT, "A", 2)
    release = release_publish(name="reports-bench", version="1.0.0", campaign_slugs=[campaign.slug])
    assert Release.objects.get(pk=release.pk).status == Release.Status.PUBLISHED
    published = b"".join(path.read_bytes() for path in (tmp_path / "releases").rglob("*") if path.is_file())
    assert b"Both are fine" not in published and b"cannot_judge" not in published
    (manifest,) = (tmp_path / "releases").rglob("manifest.json")
    assert json.loads(manifest.read_text())["raters"]["ratings"] == 2, "two ratings released, the report is none"


def test_the_queues_filters_refuse_an_empty_value_rather_than_reading_it_as_left_out(reported):
    curator_api = client_for(reported["curator"])
    for query in ("campaign=", "status=", "campaign=&status="):
        answer = curator_api.get(f"/api/v1/reports/?{query}")
        assert answer.status_code == 400, query
    assert len(curator_api.get(f"/api/v1/reports/?campaign={reported['campaign'].slug}&status=open").json()) == 1
