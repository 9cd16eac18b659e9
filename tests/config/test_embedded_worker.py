"""`manage.py serve` with CONCORD_EMBEDDED_WORKER=1: a real Celery worker on kombu's filesystem transport (no Redis)
runs a pre-filter started over HTTP outside the request, and the job's progress counts its verdicts."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from django.db import connection

from annotation.accounts.models import Role
from annotation.accounts.services.accounts import user_create
from curation.services.judges import judge_create
from tests.conftest import require
from tests.curation import prefilter_support as support

REPO = Path(__file__).resolve().parents[2]
PAIRS = 6

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(condition, *, timeout: float, what: str, server: subprocess.Popen, log: Path):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        if server.poll() is not None:
            pytest.fail(f"the server exited while waiting for {what}: {log.read_text()[-3000:]}")
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what}: {log.read_text()[-3000:]}")


def test_a_prefilter_started_over_http_runs_on_the_embedded_worker_with_progress_in_verdicts(settings, tmp_path):
    require(connection.vendor == "postgresql", "PostgreSQL, shared by the test and the server it starts")
    campaign = support.campaign(slug="embedded")
    for i in range(PAIRS):
        support.marked_pair(campaign, f"e{i}")
    judge_create(name="marked", backend="python",
                 settings={"callable": "tests.curation.judge_callables.prefer_marked_side", "options": {"winner": "a"}})
    user_create(username="cur", password="curator-pass-1", role=Role.CURATOR)
    port, log = free_port(), tmp_path / "serve.log"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "CONCORD_EMBEDDED_WORKER": "1",
           "CELERY_TASK_ALWAYS_EAGER": "false", "CONCORD_CELERY_DIR": str(tmp_path / "celery"),
           "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{connection.settings_dict['NAME']}",
           "DJANGO_MEDIA_ROOT": str(settings.MEDIA_ROOT), "CONCORD_PREFILTER_BATCH_PAIRS": "2"}
    env.pop("REDIS_URL", None)
    env.pop("CELERY_BROKER_URL", None)
    with log.open("ab") as handle:
        server = subprocess.Popen([sys.executable, "manage.py", "serve", f"127.0.0.1:{port}", "--no-reload"], cwd=REPO,
                                  env=env, start_new_session=True, stdout=handle, stderr=handle)
    base = f"http://127.0.0.1:{port}"
    try:
        session = requests.Session()

        def up():
            try:
                return session.get(f"{base}/login/", timeout=2).status_code == 200
            except requests.ConnectionError:
                return False

        wait_until(up, timeout=60, what="the web server", server=server, log=log)
        assert "started on the filesystem transport" in log.read_text()
        token = session.cookies["csrftoken"]
        session.post(f"{base}/login/", data={"username": "cur", "password": "curator-pass-1",
                                             "csrfmiddlewaretoken": token}, headers={"Referer": f"{base}/login/"})
        started = session.post(f"{base}/api/v1/prefilter/campaigns/embedded/start/", json={},
                               headers={"X-CSRFToken": session.cookies["csrftoken"], "Referer": f"{base}/"})
        assert started.status_code == 202, started.text + log.read_text()[-3000:]
        assert started.json()["status"] == "queued", "the request only enqueues: the worker does the work"
        job_id = started.json()["id"]

        def finished():
            job = session.get(f"{base}/api/v1/jobs/{job_id}/", timeout=5).json()
            return job if job["status"] in ("succeeded", "failed", "cancelled") else None

        job = wait_until(finished, timeout=120, what="the pre-filter job", server=server, log=log)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    assert job["status"] == "succeeded", job["error"]
    assert (job["unit"], job["progress_done"], job["progress_total"]) == ("verdicts", PAIRS * 2, PAIRS * 2)
    assert job["result"]["dropped_easy"] == PAIRS
    assert "Celery worker" in log.read_text()
