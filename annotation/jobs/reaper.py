"""The reaper: a job whose task never reached a worker, or whose worker died, is sent again or failed.

It runs from the one beat schedule (``annotation.jobs.reap``), over jobs of every kind. A queued job is
waiting as long as its message is in the broker's queue, or was sent or delivered to a worker less
than CONCORD_JOB_QUEUED_SECONDS ago; a running job is alive while a process holds its lease or reported within
CONCORD_JOB_STALL_SECONDS. An abandoned job is sent again (every task resumes what its job left) until
it has been sent CONCORD_JOB_MAX_DISPATCHES times, then failed with the reason, so nothing waits on it
for ever (the hourly agreement schedule skips a campaign only while its job is queued or running).

A job kind that needs more registers it here (``job_kind_register``) from its app's ``ready()``: curation's
releases, whose running builders are never sent again (publishing again is the curator's decision), fail
their stalled releases before each pass and mark a failed job's release failed.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone
from django.utils.module_loading import import_string

from annotation.jobs.models import Job
from annotation.jobs.services import JobNotQueued, job_fail, job_publish, jobs_leased
from core.queues import Queue

REAPER_LOCK = (7012, 0)


@dataclass(frozen=True)
class JobKindHooks:
    """What the reaper does for one kind of job beyond sending it again or failing it.

    The hooks are dotted paths, imported when the reaper first calls them: registering a kind at start-up costs
    no import of the code behind it (a release's pulls in pyarrow).
    """

    # Runs before each pass; returns how many of the kind's own objects it failed (stalled releases).
    before_reap: str | None = None
    # Runs after a job of the kind is failed, with the job's id and the reason.
    on_fail: str | None = None
    # False: a running job of the kind is never sent again by the reaper (``before_reap`` deals with it).
    resume_running: bool = True


_KINDS: dict[str, JobKindHooks] = {}


def job_kind_register(kind: str, hooks: JobKindHooks) -> None:
    """Register ``kind``'s hooks (from its app's ``ready()``); registering the same hooks again changes nothing."""
    _KINDS[kind] = hooks


@dataclass
class Reaped:
    resumed: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    # Per job kind, the objects its ``before_reap`` hook failed (``{"release": 1}``: one stalled release).
    stalled_failed: dict[str, int] = field(default_factory=dict)


def broker_task_ids(*, delivered_within: float) -> set[str] | None:
    """Ids of the tasks waiting in the Redis broker's queues, or delivered to a worker less than
    ``delivered_within`` seconds ago and not yet acknowledged; None for another broker, which is not looked into.

    A worker reserves no more messages than it has processes (prefetch multiplier 1), so a message it received
    and has not started by then belongs to a worker that died: Redis would hand it out again only after the
    visibility timeout (hours).
    """
    from celery import current_app as app

    with app.connection_for_read() as conn:
        if conn.transport.driver_type != "redis":
            return None
        channel = conn.default_channel
        client = channel.client
        ids: set[str] = set()
        names = [value for key, value in vars(Queue).items() if key.isupper()]
        for name in names:
            for priority in channel.priority_steps:
                ids.update(json.loads(raw)["headers"]["id"] for raw in client.lrange(channel._q_for_pri(name, priority), 0, -1))
        recent = client.zrangebyscore(channel.unacked_index_key, time.time() - delivered_within, "+inf")
        if recent:
            ids.update(json.loads(raw)[0]["headers"]["id"] for raw in client.hmget(channel.unacked_key, recent) if raw)
        return ids


def _try_lock() -> bool:
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", list(REAPER_LOCK))
        return cursor.fetchone()[0]


def _unlock() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", list(REAPER_LOCK))


def jobs_reap() -> Reaped:
    """Send again or fail every abandoned job; nothing happens while another reaper runs."""
    reaped = Reaped()
    if not _try_lock():
        return reaped
    try:
        for kind, hooks in _KINDS.items():
            if hooks.before_reap is not None:
                reaped.stalled_failed[kind] = import_string(hooks.before_reap)()
        _reap(reaped)
    finally:
        _unlock()
    return reaped


def _reap(reaped: Reaped) -> None:
    now = timezone.now()
    queued_grace = timedelta(seconds=settings.CONCORD_JOB_QUEUED_SECONDS)
    stall = timedelta(seconds=settings.CONCORD_JOB_STALL_SECONDS)
    jobs = list(
        Job.objects.filter(status__in=[Job.Status.QUEUED, Job.Status.RUNNING])
        .exclude(kind__in=[kind for kind, hooks in _KINDS.items() if not hooks.resume_running],
                 status=Job.Status.RUNNING)
        .only("kind", "status", "task_name", "task_id", "dispatches", "created_at", "dispatched_at", "started_at",
              "heartbeat_at")
        .order_by("pk")
    )
    leased = jobs_leased([job.pk for job in jobs])
    waiting = None
    for job in jobs:
        if job.status == Job.Status.QUEUED:
            if now - (job.dispatched_at or job.created_at) < queued_grace:
                continue
            if waiting is None:
                waiting = broker_task_ids(delivered_within=queued_grace.total_seconds()) or set()
            if job.task_id and job.task_id in waiting:
                continue
            lost = "its task never reached a worker"
        else:
            if job.pk in leased or now - (job.heartbeat_at or job.started_at or job.created_at) < _stall_for(job, stall):
                continue
            lost = "its worker stopped"
        _resume_or_fail(job, lost, reaped)


def _stall_for(job: Job, stall: timedelta) -> timedelta:
    """Off PostgreSQL no lease can be seen: a job is given up only after its task's hard time limit."""
    if connection.vendor == "postgresql":
        return stall
    from celery import current_app as app

    task = app.tasks.get(job.task_name)
    return max(stall, timedelta(seconds=getattr(task, "time_limit", None) or 0))


def _fail(job: Job, message: str, reaped: Reaped) -> None:
    """Fail the job, and what its kind's ``on_fail`` hook fails with it (the release it builds)."""
    job_fail(job_id=job.pk, error=message)
    hooks = _KINDS.get(job.kind)
    if hooks is not None and hooks.on_fail is not None:
        import_string(hooks.on_fail)(job.pk, message)
    reaped.failed.append(job.pk)


def _resume_or_fail(job: Job, lost: str, reaped: Reaped) -> None:
    limit = settings.CONCORD_JOB_MAX_DISPATCHES
    if not job.task_name:
        _fail(job, f"{lost} and it cannot be sent again (it was not started by a worker); start it again", reaped)
        return
    if job.dispatches >= limit:
        _fail(job, f"{lost}; it was sent {job.dispatches} times, the limit (CONCORD_JOB_MAX_DISPATCHES) is {limit}. "
                   "Start it again.", reaped)
        return
    try:
        job_publish(job_id=job.pk)
    except JobNotQueued:
        reaped.failed.append(job.pk)
        return
    reaped.resumed.append(job.pk)
