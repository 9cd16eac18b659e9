"""The worker as docker-compose.yml runs it survives its Redis killed and restarted empty, several times, while a
pre-filter runs: it reconnects without an error on its way back, and the run finishes with every verdict once.

With Celery's gossip and mingle on (the compose command before docs/decisions/worker-broker-restarts.md) the
restart raised ``AttributeError: 'NoneType' object has no attribute ...`` out of kombu on every outage ("Error on
restarting Gossip"), and on production settings took the worker's process group down ("Unrecoverable error").
"""

import os
import sys
import time

import pytest
import yaml

from annotation.jobs.models import Job
from curation.models import JudgeVerdict
from curation.services.prefilter import prefilter_start
from tests.celery_worker import broker_at
from tests.curation import prefilter_support as support
from tests.curation.judge_server import JudgeServer, Reply, votes_script
from tests.curation.test_prefilter_worker import (
    JUDGES,
    PAIRS,
    REPO,
    assert_every_verdict_once,
    kill,
    reap_once_abandoned,
    start_worker,
    wait_for,
)


def compose_worker_command() -> list[str]:
    """docker-compose.yml's worker command, run with this interpreter, two processes and a unique node name."""
    command = yaml.safe_load((REPO / "docker-compose.yml").read_text())["services"]["worker"]["command"]
    assert command[:4] == ["celery", "-A", "config", "worker"]
    at = command.index("--concurrency")
    return [sys.executable, "-m", *command[:at], "--concurrency", "2", *command[at + 2:],
            "-n", f"compose-like-{os.getpid()}@%h"]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_compose_worker_keeps_running_through_redis_restarts_mid_run_and_the_run_finishes(
    postgres_only, settings, tmp_path, private_redis
):
    settings.CONCORD_JOB_STALL_SECONDS = 1
    log = tmp_path / "worker.log"
    with JudgeServer(lambda seen: Reply(content=votes_script({})(seen).content, delay=1.0)) as server, \
            broker_at(private_redis.url()):
        campaign = support.campaign()
        for i in range(PAIRS):
            support.marked_pair(campaign, f"r{i}")
        support.chat_judges(server, [f"j{i}" for i in range(JUDGES)], concurrency=2)

        worker = start_worker(settings, log, private_redis.url(), command=compose_worker_command())
        try:
            job = prefilter_start(campaign=campaign)
            wait_for(lambda: JudgeVerdict.objects.count() >= 10, timeout=120, what="the first verdicts", worker=worker,
                     log=log)
            for down in (3.0, 0.0, 1.0, 5.0, 0.3):  # restarts at several points of the worker's reconnect cycle
                private_redis.stop()
                time.sleep(down)
                private_redis.start()
                for _ in range(60):  # six seconds: it reconnects and restores what it held, or exits
                    assert worker.poll() is None, f"the worker exited: {log.read_text()[-3000:]}"
                    time.sleep(0.1)
            assert reap_once_abandoned(job.pk) == [job.pk]
            wait_for(lambda: Job.objects.get(pk=job.pk).status == "succeeded", timeout=180, what="the resumed run",
                     worker=worker, log=log)
        finally:
            kill(worker)

    text = log.read_text()
    for sign in ("Unrecoverable error", "Error on restarting", "AttributeError"):
        assert sign not in text, text[text.index(sign) - 2000:text.index(sign) + 2000]
    assert_every_verdict_once(job.pk, campaign, attempts=2)
