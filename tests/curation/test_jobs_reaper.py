"""The reaper: a job whose message was lost or whose worker died is sent again, then failed with the reason, so no
campaign waits for ever (a private redis-server is the broker; no worker runs)."""

from datetime import timedelta

import psycopg
import pytest
import redis
from django.conf import settings as django_settings
from django.db import connection
from django.utils import timezone

from annotation.jobs.models import Job
from annotation.jobs.reaper import broker_task_ids, jobs_reap
from annotation.jobs.services import LEASE_LOCK_CLASS, job_create
from curation.services.agreement import agreement_job_create, agreement_schedule_due
from tests.celery_worker import broker_at
from tests.curation.agreement.conftest import add_pairs, make_campaign

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def broker(private_redis, settings):
    settings.CONCORD_JOB_QUEUED_SECONDS = 0
    settings.CONCORD_JOB_STALL_SECONDS = 60
    settings.CONCORD_JOB_MAX_DISPATCHES = 2
    with broker_at(private_redis.url()):
        yield redis.Redis.from_url(private_redis.url())


@pytest.fixture
def campaign():
    campaign = make_campaign(slug="hourly")
    add_pairs(campaign, [[6, 5, 6], [1, 2, 1]])
    return campaign


def test_a_queued_job_whose_message_waits_in_the_broker_is_left_alone(broker, campaign):
    job = agreement_job_create(campaign=campaign)
    assert jobs_reap().resumed == []
    job.refresh_from_db()
    assert (job.status, job.dispatches) == (Job.Status.QUEUED, 1)


def test_a_queued_job_whose_message_was_lost_is_sent_again_then_failed_and_the_schedule_queues_a_new_one(broker, campaign):
    job = agreement_job_create(campaign=campaign)
    first_task = Job.objects.get(pk=job.pk).task_id
    broker.flushdb()
    assert jobs_reap().resumed == [job.pk]
    job.refresh_from_db()
    assert job.status == Job.Status.QUEUED and job.dispatches == 2 and job.task_id != first_task
    assert broker_task_ids(delivered_within=60) == {job.task_id}
    assert agreement_schedule_due(min_age=timedelta(0)) == []

    broker.flushdb()
    assert jobs_reap().failed == [job.pk]
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert job.error == ("its task never reached a worker; it was sent 2 times, the limit (CONCORD_JOB_MAX_DISPATCHES) "
                         "is 2. Start it again.")
    assert [j.campaign_id for j in agreement_schedule_due(min_age=timedelta(0))] == [campaign.pk]


def running(job: Job, *, heartbeat_age: timedelta) -> None:
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, started_at=timezone.now() - heartbeat_age,
                                         heartbeat_at=timezone.now() - heartbeat_age)


def test_a_running_job_with_no_lease_and_no_heartbeat_is_sent_again_to_resume(broker, campaign):
    job = agreement_job_create(campaign=campaign)
    broker.flushdb()
    running(job, heartbeat_age=timedelta(minutes=5))
    assert jobs_reap().resumed == [job.pk]
    job.refresh_from_db()
    assert job.dispatches == 2 and broker_task_ids(delivered_within=60) == {job.task_id}
    assert job.heartbeat_at > timezone.now() - timedelta(minutes=1)


def test_a_running_job_whose_worker_holds_its_lease_or_reported_lately_is_left_alone(broker, campaign, postgres_only):
    job = agreement_job_create(campaign=campaign)
    running(job, heartbeat_age=timedelta(minutes=5))
    db = connection.settings_dict
    with psycopg.connect(host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"], dbname=db["NAME"],
                         autocommit=True) as worker:
        worker.execute("SELECT pg_advisory_lock_shared(%s, %s)", [LEASE_LOCK_CLASS, job.pk])
        assert jobs_reap().resumed == []
    running(job, heartbeat_age=timedelta(seconds=5))
    assert jobs_reap().resumed == []
    assert Job.objects.get(pk=job.pk).dispatches == 1


def test_a_job_no_worker_was_sent_is_failed_once_abandoned(broker, campaign):
    job = job_create(kind="prefilter", campaign=campaign)
    running(job, heartbeat_age=timedelta(minutes=5))
    assert jobs_reap().failed == [job.pk]
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and job.error.startswith("its worker stopped and it cannot be sent again")


def test_the_visibility_timeout_outlasts_every_tasks_hard_time_limit():
    from config.celery import app

    app.loader.import_default_modules()
    limits = {name: task.time_limit for name, task in app.tasks.items() if getattr(task, "time_limit", None)}
    assert limits and max(limits.values()) < django_settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert all(task.acks_late for name, task in app.tasks.items() if name.startswith(("curation.", "annotation.")))


def test_the_reaper_is_in_the_one_schedule_with_an_expiry_and_a_registered_task():
    from config.celery import app

    app.loader.import_default_modules()  # what a worker does at start: the tasks modules, found by autodiscovery
    entry = django_settings.CELERY_BEAT_SCHEDULE["jobs-reap"]
    assert entry["task"] in app.tasks and 0 < entry["options"]["expires"] < entry["schedule"]


def test_a_release_whose_publishing_process_died_before_it_started_is_failed_with_its_job(broker, campaign):
    from curation.models import Release
    from curation.services.releases import release_request
    from tests.curation.releases.conftest import kept

    for pair in campaign.pairs.all():
        kept(pair, "A", policy={"policy": "mmrb2-generation", "params": {}})
    release = release_request(name="hourly-bench", version="1.0.0", campaign_slugs=[campaign.slug])
    Job.objects.filter(pk=release.job_id).update(created_at=timezone.now() - timedelta(minutes=10))
    assert jobs_reap().failed == [release.job_id]
    release.refresh_from_db()
    assert release.status == Release.Status.FAILED and release.error.startswith("its task never reached a worker")


def test_a_queued_job_whose_message_a_dead_worker_received_is_sent_again(broker, campaign, settings):
    """The message sits in Redis's unacknowledged set (acks_late) until the visibility timeout, hours away."""
    import json
    import time

    settings.CONCORD_JOB_QUEUED_SECONDS = 60
    job = agreement_job_create(campaign=campaign)
    Job.objects.filter(pk=job.pk).update(dispatched_at=timezone.now() - timedelta(minutes=5))
    raw = broker.rpop("analytics")
    broker.hset("unacked", "delivery-1", json.dumps([json.loads(raw), "analytics", "analytics"]))

    broker.zadd("unacked_index", {"delivery-1": time.time() - 10})
    assert jobs_reap().resumed == []
    broker.zadd("unacked_index", {"delivery-1": time.time() - 600})
    assert jobs_reap().resumed == [job.pk]
    assert Job.objects.get(pk=job.pk).dispatches == 2


def test_registering_the_release_hooks_at_start_up_imports_none_of_the_release_code():
    """Curation registers the release's reaper hooks by dotted path: a process that only sets Django up (a worker,
    a management command) does not import the release builder and pyarrow for them."""
    import subprocess
    import sys

    from django.conf import settings

    code = ("import django, sys; django.setup(); from annotation.jobs import reaper; "
            "print(sorted(reaper._KINDS), 'curation.services.releases' in sys.modules, 'pyarrow' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=settings.BASE_DIR, capture_output=True, text=True,
                          check=True, env={"DJANGO_SETTINGS_MODULE": "config.settings.test", "PATH": "/usr/bin:/bin"})
    assert done.stdout.split() == ["['release']", "False", "False"], done.stderr
