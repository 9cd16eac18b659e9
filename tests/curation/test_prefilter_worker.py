"""A real Celery worker killed with SIGKILL mid-run, or its Redis killed and restarted empty: the reaper resumes the
run by itself, and every verdict exists exactly once."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from annotation.catalogue.models import Pair
from annotation.jobs.models import Job
from annotation.jobs.reaper import jobs_reap
from annotation.jobs.services import jobs_leased
from curation.models import JudgeVerdict
from curation.services.prefilter import prefilter_start
from tests.celery_worker import broker_at
from tests.conftest import port_open, require
from tests.curation import prefilter_support as support
from tests.curation.judge_server import JudgeServer, Reply, votes_script

REPO = Path(__file__).resolve().parents[2]
REDIS_URL = "redis://127.0.0.1:6379/6"
PAIRS, JUDGES = 20, 3
TOTAL = PAIRS * JUDGES * 2


def start_worker(settings, log: Path, redis_url: str = REDIS_URL, command: list[str] | None = None) -> subprocess.Popen:
    """A worker process on the test's database and ``redis_url``: the judges queue's, or ``command``."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{connection.settings_dict['NAME']}",
        "REDIS_URL": redis_url,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "DJANGO_MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "CONCORD_PREFILTER_BATCH_PAIRS": "5",
    }
    command = command or [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "judges", "-c", "1", "--pool",
                          "prefork", "-l", "warning", "--without-gossip", "--without-mingle",
                          "-n", f"judges-test-{os.getpid()}@%h"]
    with log.open("ab") as handle:
        return subprocess.Popen(command, cwd=REPO, env=env, start_new_session=True, stdout=handle, stderr=handle)


def kill(worker: subprocess.Popen) -> None:
    if worker.poll() is None:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)


def wait_for(condition, *, timeout: float, what: str, worker: subprocess.Popen, log: Path):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        if worker.poll() is not None:
            pytest.fail(f"the worker exited while waiting for {what}: {log.read_text()[-3000:]}")
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


def reap_once_abandoned(job_id: int) -> list[int]:
    """Call the reaper, as beat would, until it resends the run once (no lease, no heartbeat for the stall time)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if not jobs_leased([job_id]):
            resumed = jobs_reap().resumed
            if resumed:
                return resumed
        time.sleep(0.5)
    return []


@pytest.fixture
def run_settings(settings):
    settings.CONCORD_JOB_STALL_SECONDS = 1
    return settings


def assert_every_verdict_once(job_id: int, campaign, *, attempts: int):
    job = Job.objects.get(pk=job_id)
    keys = list(JudgeVerdict.objects.values_list("pair_id", "judge_id", "order"))
    assert len(keys) == len(set(keys)) == TOTAL
    assert job.progress_done == job.progress_total == TOTAL and job.params["attempt"] == attempts
    assert job.result["verdicts"] == TOTAL and job.result["dropped_easy"] == PAIRS
    assert set(Pair.objects.filter(campaign=campaign).values_list("status", flat=True)) == {"dropped_easy"}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_run_is_resumed_by_the_reaper_losing_no_verdict_and_duplicating_none(
    postgres_only, run_settings, tmp_path
):
    require(port_open("127.0.0.1", 6379), "Redis on 127.0.0.1:6379")
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
    log = tmp_path / "worker.log"
    with JudgeServer(lambda seen: Reply(content=votes_script({})(seen).content, delay=0.2)) as server, \
            broker_at(REDIS_URL):
        campaign = support.campaign()
        for i in range(PAIRS):
            support.marked_pair(campaign, f"w{i}")
        support.chat_judges(server, [f"j{i}" for i in range(JUDGES)], concurrency=2)

        worker = start_worker(run_settings, log)
        try:
            job = prefilter_start(campaign=campaign)
            wait_for(lambda: JudgeVerdict.objects.count() >= 25, timeout=120, what="the first verdicts", worker=worker, log=log)
        finally:
            kill(worker)
        stored_at_kill = JudgeVerdict.objects.count()
        time.sleep(0.5)
        assert JudgeVerdict.objects.count() == stored_at_kill < TOTAL
        assert Job.objects.get(pk=job.pk).status == "running"
        server.reset()

        assert reap_once_abandoned(job.pk) == [job.pk]
        worker = start_worker(run_settings, log)
        try:
            wait_for(lambda: Job.objects.get(pk=job.pk).status == "succeeded", timeout=180, what="the resumed run",
                     worker=worker, log=log)
        finally:
            kill(worker)
        calls_after_restart = server.count()

    assert calls_after_restart == TOTAL - stored_at_kill
    assert_every_verdict_once(job.pk, campaign, attempts=2)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_run_whose_redis_was_killed_and_restarted_empty_is_resumed_by_the_reaper(
    postgres_only, run_settings, tmp_path, private_redis
):
    log = tmp_path / "worker.log"
    with JudgeServer(lambda seen: Reply(content=votes_script({})(seen).content, delay=0.2)) as server, \
            broker_at(private_redis.url()):
        campaign = support.campaign()
        for i in range(PAIRS):
            support.marked_pair(campaign, f"w{i}")
        support.chat_judges(server, [f"j{i}" for i in range(JUDGES)], concurrency=2)

        worker = start_worker(run_settings, log, redis_url=private_redis.url())
        try:
            job = prefilter_start(campaign=campaign)
            wait_for(lambda: JudgeVerdict.objects.count() >= 25, timeout=120, what="the first verdicts", worker=worker, log=log)
            private_redis.stop()
            time.sleep(2)
            private_redis.start()
            assert Job.objects.get(pk=job.pk).status == "running"
            assert reap_once_abandoned(job.pk) == [job.pk]
            wait_for(lambda: Job.objects.get(pk=job.pk).status == "succeeded", timeout=180, what="the resumed run",
                     worker=worker, log=log)
        finally:
            kill(worker)

    assert_every_verdict_once(job.pk, campaign, attempts=2)
