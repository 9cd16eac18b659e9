"""A real Celery worker in a thread, consuming one queue from its own Redis database, for tests."""

import time
from contextlib import contextmanager

from tests.conftest import port_open, require


@contextmanager
def threaded_worker(*, redis_url: str, queue: str):
    """Run the app's tasks on a real worker over Redis at ``redis_url``; restores eager settings afterwards."""
    require(port_open("127.0.0.1", 6379), "Redis on 127.0.0.1:6379")
    import redis
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    redis.Redis.from_url(redis_url).flushdb()
    saved = {key: app.conf[key] for key in ("broker_url", "task_always_eager", "result_backend")}
    app.conf.update(broker_url=redis_url, task_always_eager=False, result_backend=None)
    _forget_connections(app)
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, queues=[queue], shutdown_timeout=10):
            yield app
    finally:
        app.conf.update(saved)
        _forget_connections(app)


@contextmanager
def filesystem_worker(*, folder, queues=("celery", "imports", "judges", "analytics", "releases")):
    """A real worker in a thread on kombu's filesystem transport (core.kombu_filesystem: whole messages only)
    and a file result backend, as `make demo` runs one (no Redis); every page and service in this process enqueues
    to it. Restores eager settings afterwards."""
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    for name in ("queue", "control", "results"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    keys = ("broker_url", "broker_transport", "task_always_eager", "result_backend", "broker_transport_options")
    saved = {key: app.conf[key] for key in keys}
    app.conf.update(
        broker_url="filesystem://", broker_transport="core.kombu_filesystem:Transport", task_always_eager=False,
        result_backend=f"file://{folder / 'results'}",
        broker_transport_options={"data_folder_in": str(folder / "queue"), "data_folder_out": str(folder / "queue"),
                                  "control_folder": str(folder / "control"), "store_processed": False,
                                  "polling_interval": 0.1},
    )
    _forget_connections(app)
    try:
        with start_worker(app, pool="threads", concurrency=2, perform_ping_check=False, queues=list(queues),
                          shutdown_timeout=10):
            yield app
    finally:
        app.conf.update(saved)
        _forget_connections(app)


@contextmanager
def broker_at(url: str):
    """Publish to the broker at ``url`` (no worker, not eager) for the duration; restores the settings afterwards."""
    from config.celery import app

    saved = {key: app.conf[key] for key in ("broker_url", "task_always_eager", "result_backend")}
    app.conf.update(broker_url=url, task_always_eager=False, result_backend=url)
    _forget_connections(app)
    try:
        yield app
    finally:
        app.conf.update(saved)
        _forget_connections(app)


def _forget_connections(app) -> None:
    """Drop pooled broker connections made under the previous settings, as Celery does after a fork."""
    app._pool = None
    app.amqp._producer_pool = None


def wait_for_job(client, job_id: int, seconds: float = 60) -> dict:
    """Poll the job API as a page's progress bar does until the job leaves queued/running (or time runs out)."""
    from django.urls import reverse

    from annotation.jobs.models import Job

    deadline = time.monotonic() + seconds
    detail = client.get(reverse("api-job-detail", args=[job_id])).json()
    while detail["status"] in (Job.Status.QUEUED, Job.Status.RUNNING) and time.monotonic() < deadline:
        time.sleep(0.2)
        detail = client.get(reverse("api-job-detail", args=[job_id])).json()
    return detail
