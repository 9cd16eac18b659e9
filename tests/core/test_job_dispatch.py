"""A job row and its dispatch agree: with the broker stopped (a private redis-server the test starts and stops),
starting any job answers 503 with the reason and leaves the job failed, nothing queued and no upload behind."""

import io

import pytest
from django.core.files.storage import default_storage
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.jobs.models import Job
from annotation.jobs.reaper import broker_task_ids
from annotation.jobs.services import JobNotQueued, job_create, job_publish
from curation.models import Release
from curation.services.judges import judge_create
from tests.celery_worker import broker_at
from tests.curation.agreement.conftest import add_pairs, make_campaign
from tests.curation.releases.conftest import kept
from tests.factories import CuratorFactory
from tests.redis_server import SilentServer, free_port

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def curator():
    client = APIClient()
    client.force_authenticate(CuratorFactory())
    return client


@pytest.fixture
def campaign():
    campaign = make_campaign(consensus_policy="mmrb2-generation", slug="wave")
    add_pairs(campaign, [[6, 5, 6], [1, 2, 1]])
    return campaign


def start_agreement(curator, campaign):
    return curator.post(reverse("api-agreement-job-start", args=[campaign.slug]), {"bootstrap": 10}, format="json")


def start_consensus(curator, campaign):
    return curator.post(reverse("api-consensus-job-start", args=[campaign.slug]), {}, format="json")


def start_prefilter(curator, campaign):
    # A run needs a pair it could judge (a campaign with none is refused, 409 nothing_to_prefilter).
    campaign.pairs.filter(pk=campaign.pairs.order_by("pk").first().pk).update(status="pending", annotations_done=0)
    judge_create(name="local", backend="python", settings={"callable": "tests.curation.judge_callables.prefer_marked_side"})
    return curator.post(reverse("api-prefilter-start", args=[campaign.slug]), {}, format="json")


def start_import(curator, campaign):
    upload = io.BytesIO(b'{"id": "x"}\n')
    upload.name = "pairs.jsonl"
    return curator.post(reverse("api-import-create"), {"campaign": "uploaded", "format": "concord",
                                                       "task": "text-to-image", "file": upload}, format="multipart")


def start_release(curator, campaign):
    for pair in campaign.pairs.all():
        kept(pair, "A", policy={"policy": "mmrb2-generation", "params": {}})
    return curator.post(reverse("api-release-list"), {"name": "wave-bench", "version": "1.0.0",
                                                      "campaigns": [campaign.slug]}, format="json")


@pytest.mark.parametrize("start", [start_agreement, start_consensus, start_prefilter, start_import, start_release],
                         ids=["agreement", "consensus", "prefilter", "import", "release"])
def test_a_job_started_with_the_broker_stopped_answers_503_and_is_failed_with_the_reason(
    start, curator, campaign, private_redis
):
    private_redis.stop()
    with broker_at(private_redis.url()):
        answer = start(curator, campaign)
    assert answer.status_code == 503, answer.content
    body = answer.json()
    assert body["code"] == "broker_unavailable"
    job = Job.objects.get()
    assert body["extra"] == {"job": job.pk}
    assert job.status == Job.Status.FAILED and job.finished_at is not None
    assert job.error == body["message"]
    assert f"the task queue did not take job {job.pk}" in job.error and "Connection refused" in job.error
    assert job.dispatches == 1 and job.task_name


def test_a_job_published_to_a_port_nothing_listens_on_is_refused_and_failed_with_the_reason():
    """The service itself: JobNotQueued (503 broker_unavailable), the job failed, nothing left queued."""
    from curation.tasks import agreement_compute

    job = job_create(kind="agreement")
    Job.objects.filter(pk=job.pk).update(task_name=agreement_compute.name, task_args=[job.pk])
    with broker_at(f"redis://127.0.0.1:{free_port()}/0"), pytest.raises(JobNotQueued) as refused:
        job_publish(job_id=job.pk)
    assert refused.value.status_code == 503 and refused.value.code == "broker_unavailable"
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and "Connection refused" in job.error and job.dispatches == 1


def test_a_broker_that_takes_the_connection_and_never_answers_is_given_up_on_after_the_publish_timeout(
    settings, campaign, curator
):
    """The publish waits the publish's own read timeout (CONCORD_BROKER_PUBLISH_TIMEOUTS), not the worker's: the
    broker here would close the connection after 3 s, long past the publish's timeout and before the worker's 5 s,
    so a refusal that names the closed connection waited on the worker's settings."""
    assert settings.CONCORD_BROKER_PUBLISH_TIMEOUTS["socket_timeout"] < 3 < settings.CELERY_BROKER_TRANSPORT_OPTIONS.get(
        "socket_timeout", 5)
    with SilentServer(close_after=3) as broker, broker_at(broker.url()):
        answer = start_agreement(curator, campaign)
    assert answer.status_code == 503, answer.content
    job = Job.objects.get()
    assert job.status == Job.Status.FAILED and "Timeout reading from socket" in job.error, job.error


def test_an_upload_whose_import_could_not_be_queued_is_not_kept(curator, campaign, private_redis):
    private_redis.stop()
    with broker_at(private_redis.url()):
        assert start_import(curator, campaign).status_code == 503
    _folders, files = default_storage.listdir("imports") if default_storage.exists("imports") else ([], [])
    assert files == []


def test_a_release_whose_build_could_not_be_queued_is_failed_not_left_building(curator, campaign, private_redis):
    private_redis.stop()
    with broker_at(private_redis.url()):
        assert start_release(curator, campaign).status_code == 503
    release = Release.objects.get()
    assert release.status == Release.Status.FAILED and "the task queue did not take" in release.error


def test_a_job_started_with_the_broker_up_records_its_dispatch_and_its_message_waits_in_redis(
    curator, campaign, private_redis
):
    with broker_at(private_redis.url()):
        answer = start_agreement(curator, campaign)
        assert answer.status_code == 202
        job = Job.objects.get()
        assert (job.status, job.task_name, job.task_args, job.dispatches) == (
            Job.Status.QUEUED, "curation.agreement_compute", [job.pk], 1)
        assert job.task_id in broker_task_ids(delivered_within=60)


def test_the_console_page_says_why_a_job_could_not_start_with_the_broker_stopped(client, campaign, private_redis):
    client.force_login(CuratorFactory(username="console-curator"))
    private_redis.stop()
    with broker_at(private_redis.url()):
        started = client.post(reverse("console-campaign-run", args=[campaign.slug, "agreement"]))
    assert started.status_code == 302
    job = Job.objects.get()
    assert job.status == Job.Status.FAILED
    page = client.get(started["Location"]).content.decode()
    assert f"the task queue did not take job {job.pk}" in page and "Start it again once the queue (Redis) is back." in page
