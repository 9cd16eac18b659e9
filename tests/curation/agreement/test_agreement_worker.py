"""Agreement and consensus as background jobs on a real Celery worker over Redis, with live progress."""


import pytest
from django.conf import settings
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.jobs.models import Job
from curation.models import AgreementReport, ConsensusRecord
from tests.celery_worker import threaded_worker, wait_for_job
from tests.curation.agreement.conftest import add_pairs, make_campaign
from tests.factories import CuratorFactory

REDIS_DB_URL = "redis://127.0.0.1:6379/5"


@pytest.fixture
def analytics_worker():
    """A real Celery worker (in a thread) consuming the analytics queue from Redis db 5."""
    from core.queues import Queue

    with threaded_worker(redis_url=REDIS_DB_URL, queue=Queue.ANALYTICS) as app:
        yield app


@pytest.mark.django_db(transaction=True)
def test_a_worker_computes_the_agreement_job_a_curator_started_and_then_applies_consensus(analytics_worker):
    campaign = make_campaign(consensus_policy="mmrb2-generation")
    add_pairs(campaign, [[6, 5, 6], [1, 2, 1], [6, 1, 4], [3, 4, 5]] * 5, source="oneigbench")
    add_pairs(campaign, [[6, 6, 5], [2, 1, 1]], source="genai-bench")
    client = APIClient()
    client.force_authenticate(CuratorFactory())

    started = client.post(reverse("api-agreement-job-start", args=[campaign.slug]), {"bootstrap": 200}, format="json")
    assert started.status_code == 202
    detail = wait_for_job(client, started.json()["job_id"])
    assert detail["status"] == Job.Status.SUCCEEDED, detail
    assert detail["percent"] == 100.0 and detail["progress_done"] == detail["progress_total"]
    stored = AgreementReport.objects.filter(job_id=detail["id"])
    assert sorted(stored.values_list("slice_key", flat=True)) == ["", "source=genai-bench", "source=oneigbench"]
    assert detail["result"]["items"] == 22 and detail["result"]["alpha"]["ordinal"] is not None

    started = client.post(reverse("api-consensus-job-start", args=[campaign.slug]), {}, format="json")
    detail = wait_for_job(client, started.json()["job_id"])
    assert detail["status"] == Job.Status.SUCCEEDED, detail
    assert (detail["result"]["kept"], detail["result"]["chosen"]) == (12, {"A": 6, "B": 6})
    assert ConsensusRecord.objects.filter(pair__campaign=campaign).count() == 22


def test_the_schedule_names_a_registered_task_with_an_expiry():
    from config.celery import app

    app.loader.import_default_modules()  # what a worker does at start: the tasks modules, found by autodiscovery
    entry = settings.CELERY_BEAT_SCHEDULE["curation.agreement_schedule"]
    assert entry["task"] in app.tasks
    assert 0 < entry["options"]["expires"] < entry["schedule"]
