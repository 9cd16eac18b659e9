"""The curator API for agreement jobs, reports, trend history, consensus runs and adjudication."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.catalogue.models import Pair
from annotation.jobs.models import Job
from curation.models import ConsensusRecord
from curation.services.agreement import agreement_compute
from curation.services.consensus import consensus_apply
from tests.curation.agreement.conftest import add_pairs, make_campaign
from tests.factories import CuratorFactory, UserFactory

pytestmark = pytest.mark.django_db

RATINGS = [[6, 5, 6], [1, 2, 1], [6, 1, 4], [3, 4, 5]]


@pytest.fixture
def curator_client():
    client = APIClient()
    client.force_authenticate(CuratorFactory())
    return client


@pytest.fixture
def campaign():
    campaign = make_campaign(consensus_policy="mmrb2-generation")
    add_pairs(campaign, RATINGS)
    return campaign


def urls(campaign, pair_id=1):
    return {
        "start": ("post", reverse("api-agreement-job-start", args=[campaign.slug])),
        "latest": ("get", reverse("api-agreement-latest", args=[campaign.slug])),
        "history": ("get", reverse("api-agreement-history", args=[campaign.slug])),
        "policies": ("get", reverse("api-consensus-policies")),
        "consensus": ("post", reverse("api-consensus-job-start", args=[campaign.slug])),
        "queue": ("get", reverse("api-adjudication-queue", args=[campaign.slug])),
        "adjudicate": ("post", reverse("api-pair-adjudicate", args=[pair_id])),
    }


def test_annotators_and_anonymous_callers_are_refused_everywhere(campaign):
    annotator = APIClient()
    annotator.force_authenticate(UserFactory())
    anonymous = APIClient()
    for method, url in urls(campaign).values():
        assert getattr(annotator, method)(url, {}, format="json").status_code == 403, url
        assert getattr(anonymous, method)(url, {}, format="json").status_code in (401, 403), url
    assert not Job.objects.exists()


def test_a_curator_starts_an_agreement_job_and_reads_the_report_and_its_history(
        curator_client, campaign, django_capture_on_commit_callbacks):
    method, url = urls(campaign)["start"]
    with django_capture_on_commit_callbacks(execute=True):
        response = curator_client.post(url, {"bootstrap": 100, "seed": 4}, format="json")
    assert response.status_code == 202
    job = curator_client.get(response.json()["job_url"]).json()
    assert (job["id"], job["status"], job["percent"]) == (response.json()["job_id"], "succeeded", 100.0)
    latest = curator_client.get(urls(campaign)["latest"][1]).json()
    assert latest["report"]["report"]["items"] == 4 and latest["slices"] == [""]
    assert latest["report"]["params"]["seed"] == 4
    agreement_compute(campaign=campaign, bootstrap=10, seed=5)
    history = curator_client.get(urls(campaign)["history"][1], {"limit": 10}).json()
    assert [point["params"]["seed"] for point in history] == [4, 5]
    assert history[0]["alpha"]["ordinal"] == latest["report"]["report"]["alpha"]["ordinal"]
    assert set(history[0]) >= {"computed_at", "items", "annotations", "alpha_ci95", "pairwise_agreement_excluding_ties"}


def test_bad_requests_get_precise_errors(curator_client, campaign):
    response = curator_client.post(urls(campaign)["start"][1], {"bootstrap": -5}, format="json")
    assert response.status_code == 400 and "bootstrap" in response.json()["extra"]["fields"]
    assert curator_client.get(urls(campaign)["latest"][1]).json()["code"] == "no_report"
    assert curator_client.get(urls(campaign)["history"][1], {"limit": "lots"}).json()["code"] == "invalid_limit"
    assert curator_client.get(reverse("api-agreement-latest", args=["missing"])).status_code == 404
    response = curator_client.post(urls(campaign)["consensus"][1], {"policy": "majority", "params": {"depth": 1}},
                                   format="json")
    assert (response.status_code, response.json()["code"]) == (400, "invalid_policy")
    assert not Job.objects.exists()


def test_policies_are_listed_with_their_defaults(curator_client, campaign):
    policies = {p["name"]: p for p in curator_client.get(urls(campaign)["policies"][1]).json()}
    assert policies["mmrb2-generation"]["defaults"]["max_spread"] == 4
    assert set(policies) == {"dawid-skene", "majority", "mmrb2-generation", "mmrb2-reasoning", "unanimous"}


def test_a_consensus_run_fills_the_adjudication_queue_and_a_curator_decides(
        curator_client, campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = curator_client.post(urls(campaign)["consensus"][1], {"on_dispute": "adjudicate"}, format="json")
    assert response.status_code == 202
    assert Job.objects.get(pk=response.json()["job_id"]).result["adjudication"] == 1
    queue = curator_client.get(urls(campaign)["queue"][1]).json()
    (entry,) = queue["results"]
    assert entry["consensus"]["reason"] == "spread_too_wide"
    assert sorted(r["values"]["overall"] for r in entry["ratings"]) == [1, 4, 6]
    decide = reverse("api-pair-adjudicate", args=[entry["id"]])
    missing_note = curator_client.post(decide, {"chosen": "A"}, format="json")
    assert missing_note.status_code == 400 and "note" in missing_note.json()["extra"]["fields"]
    decided = curator_client.post(decide, {"chosen": "B", "note": "B keeps the subject intact."}, format="json")
    assert decided.status_code == 200 and decided.json()["chosen"] == "B"
    assert curator_client.post(decide, {"chosen": "A", "note": "again"}, format="json").status_code == 409
    assert curator_client.get(urls(campaign)["queue"][1]).json()["results"] == []
    assert ConsensusRecord.objects.get(pair_id=entry["id"]).details["note"] == "B keeps the subject intact."


def test_the_adjudication_queue_costs_the_same_queries_for_one_pair_or_many(curator_client):
    campaign = make_campaign(consensus_policy="mmrb2-generation", consensus_params={"on_dispute": "adjudicate"})
    add_pairs(campaign, [[6, 1, 5]])
    consensus_apply(campaign=campaign)
    url = reverse("api-adjudication-queue", args=[campaign.slug])
    with CaptureQueriesContext(connection) as one:
        assert len(curator_client.get(url).json()["results"]) == 1
    add_pairs(campaign, [[6, 1, 5]] * 6)
    Pair.objects.filter(campaign=campaign).update(status=Pair.Status.COMPLETE)
    consensus_apply(campaign=campaign)
    with CaptureQueriesContext(connection) as many:
        assert len(curator_client.get(url).json()["results"]) == 7
    assert len(many.captured_queries) == len(one.captured_queries)
