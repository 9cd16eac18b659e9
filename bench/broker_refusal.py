"""How long a job start takes to be refused (503) while the broker is down, for each way a broker is down.

    /work/main/.venv/bin/python bench/broker_refusal.py [--starts 5] [--json]

Creates (drops first) the database ``concord_broker_refusal`` on 127.0.0.1, a small campaign and a curator, then
starts agreement jobs through the API (Django's test client, in process: the time is the request's own, with no
queueing in front of it) with Redis as broker, result store and cache, as in production (``REDIS_URL``), at:

- ``closed``: a port nothing listens on (a Redis that was stopped: the connection is refused);
- ``killed``: a redis-server that took a first job start (so the process holds broker and cache connections)
  and was then killed, as the soak kills it;
- ``unreachable``: a port whose accept queue is full, so a connection is never answered (a host that is gone,
  a firewall that drops);
- ``hung``: a port that takes the connection and never answers (a frozen Redis, a half-open connection).

Each start must answer 503 ``broker_unavailable`` with its job failed; the script prints each mode's slowest and
median refusal. Target (issue 35): every refusal within 1 s. Never part of ``make test``; figures go in
``bench/README.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import annotate_load  # noqa: E402

SLUG = "refusal"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def closed_port():
    yield free_port()


@contextmanager
def unreachable_port():
    """A listening socket whose accept queue is full: the kernel drops further SYNs, so a connect never completes."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    for _ in range(3):
        filler = socket.socket()
        filler.setblocking(False)
        try:
            filler.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        fillers.append(filler)
    try:
        yield port
    finally:
        for filler in fillers:
            filler.close()
        listener.close()


@contextmanager
def hung_port():
    """A server that accepts every connection and never sends a byte."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for conn in accepted:
            conn.close()
        listener.close()


@contextmanager
def killed_redis(start_job):
    """A redis-server that answered one job start, then killed (SIGKILL)."""
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not on PATH")
    port = free_port()
    folder = tempfile.mkdtemp(prefix="concord-refusal-")
    server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--dir", folder], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            if time.monotonic() > deadline:
                sys.exit("redis-server did not start")
            time.sleep(0.05)
        with pointed_at(f"redis://127.0.0.1:{port}/0"):
            status, _seconds = start_job()
            if status != 202:
                sys.exit(f"a job start with Redis up answered {status}")
        server.kill()
        server.wait()
        yield port
    finally:
        if server.poll() is None:
            server.kill()
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def pointed_at(url: str):
    """Broker, result store and cache at ``url`` for the duration; pooled connections kept across uses, as a web
    process keeps them."""
    from django.conf import settings
    from django.test import override_settings

    from config.celery import app

    app.conf.update(broker_url=url, result_backend=url, task_always_eager=False)
    if getattr(app, "_concord_url", None) != url:
        app._pool = None
        app.amqp._producer_pool = None
        app._concord_url = url
    caches = {"default": {**settings.CACHES["default"], "LOCATION": url}}
    with override_settings(CACHES=caches):
        yield


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=5, help="job starts timed per mode")
    parser.add_argument("--db", default="concord_broker_refusal")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    # Production's shape: one Redis is broker, result store and cache (the URL is replaced per mode below).
    os.environ["REDIS_URL"] = "redis://127.0.0.1:1/0"
    os.environ["BENCH_CACHE_URL"] = os.environ["REDIS_URL"]
    annotate_load.setup_django(args.db)
    from django.conf import settings
    from django.test import Client
    from django.urls import reverse

    from annotation.accounts.models import User
    from annotation.jobs.models import Job

    annotate_load.copy_campaign(SLUG, 8)
    curator = User.objects.create(username="bench-curator", role="curator")
    client = Client()
    client.force_login(curator)
    path = reverse("api-agreement-job-start", args=[SLUG])
    client.post(path, {"bootstrap": 10}, content_type="application/json")  # the first request's imports
    Job.objects.all().delete()

    def start_job() -> tuple[int, float]:
        began = time.perf_counter()
        answer = client.post(path, {"bootstrap": 10}, content_type="application/json")
        seconds = time.perf_counter() - began
        if answer.status_code == 503:
            job = Job.objects.get(pk=answer.json()["extra"]["job"])
            assert answer.json()["code"] == "broker_unavailable" and job.status == Job.Status.FAILED, job.error
        return answer.status_code, seconds

    modes = {"closed": closed_port, "killed": lambda: killed_redis(start_job), "unreachable": unreachable_port,
             "hung": hung_port}
    figures = {}
    for name, make in modes.items():
        with make() as port, pointed_at(f"redis://127.0.0.1:{port}/0"):
            answers = [start_job() for _ in range(args.starts)]
        seconds = [elapsed for _status, elapsed in answers]
        figures[name] = {"statuses": sorted({status for status, _elapsed in answers}),
                         "median_s": round(statistics.median(seconds), 3), "max_s": round(max(seconds), 3)}
        if not args.json:
            print(f"{name:12} statuses {figures[name]['statuses']}  median {figures[name]['median_s']:.3f} s  "
                  f"slowest {figures[name]['max_s']:.3f} s", flush=True)
    result = {"starts_per_mode": args.starts, "publish_timeouts": getattr(settings, "CONCORD_BROKER_PUBLISH_TIMEOUTS", None),
              "cache_options": settings.CACHES["default"].get("OPTIONS", {}), "modes": figures,
              "all_refused_within_1s": all(f["statuses"] == [503] and f["max_s"] < 1.0 for f in figures.values())}
    print(json.dumps(result, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
