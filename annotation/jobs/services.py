"""Background jobs: create, dispatch, hold, report progress, finish. Every long task writes through these.

A job row and its dispatch agree: ``job_dispatch`` records the task and its arguments on the row and
publishes it once the caller's transaction commits; a broker that cannot take it leaves the job
``failed`` with the reason and raises ``JobNotQueued`` (503). A worker holds the job's lease (a
PostgreSQL advisory lock, which dies with the worker's connection) while it works, and every start
and progress report is a heartbeat, so the reaper (``annotation.jobs.reaper``) can tell an
abandoned job from a busy one.
"""

from __future__ import annotations

import traceback
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from annotation.jobs.models import JOB_COMPLETED, Job
from core.errors import ApplicationError

if TYPE_CHECKING:
    from celery import Task

    from annotation.accounts.models import User
    from annotation.catalogue.models import Campaign

LEASE_LOCK_CLASS = 7011
ONCE_LOCK_CLASS = 7013
# A broker that does not answer is reported at once: no retry, never Celery's default of three with growing
# waits (with the result store's reconnects, a publish to a stopped Redis took 19 s). Each publish opens a
# connection of its own, so there is no stale pooled connection a retry would replace, and that connection
# has timeouts of its own (settings.CONCORD_BROKER_PUBLISH_TIMEOUTS), far shorter than the worker's.
PUBLISH_RETRY_POLICY = {"max_retries": 0, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}


class JobCancelled(Exception):
    """The curator cancelled the job while it ran: its runner stops before storing anything."""


class JobNotQueued(ApplicationError):
    """The broker did not take the job's task; the job is marked failed with the reason."""

    status_code = 503


# What each kind of job counts in progress_done / progress_total, so a bar names its own units.
JOB_UNITS = {"import": "bytes", "prefilter": "verdicts", "agreement": "steps", "consensus": "pairs", "release": "rows",
             "leaderboard_fit": "resamples", "training_export": "pairs"}


def job_unit(kind: str) -> str:
    return JOB_UNITS.get(kind, "items")


def job_create(*, kind: str, campaign: Campaign | None = None, params: dict | None = None, created_by: User | None = None,
               total: int | None = None) -> Job:
    return Job.objects.create(
        kind=kind, campaign=campaign, params=params or {}, created_by=created_by, progress_total=total
    )


@transaction.atomic
def job_create_once(*, kind: str, key: str, dispatch: Callable[[Job], None], campaign: Campaign | None = None,
                    params: dict | None = None, created_by: User | None = None, total: int | None = None) -> Job:
    """The queued or running job of ``kind`` whose ``params["key"]`` is ``key``, or a new one sent by ``dispatch(job)``.

    Concurrent callers with one key get one job: on PostgreSQL a transaction-level advisory lock on the key
    serialises them; SQLite's immediate transactions (the embedded default's) serialise every writer already.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [ONCE_LOCK_CLASS, f"{kind}:{key}"])
    running = (Job.objects.filter(kind=kind, status__in=[Job.Status.QUEUED, Job.Status.RUNNING], params__key=key)
               .order_by("pk").first())
    if running is not None:
        return running
    job = job_create(kind=kind, campaign=campaign, params={**(params or {}), "key": key}, created_by=created_by,
                     total=total)
    dispatch(job)
    return job


def job_dispatch(*, job: Job, task: Task, args: list) -> None:
    """Record ``task(*args)`` as the job's dispatch and publish it once the caller's transaction commits.

    The publish raises ``JobNotQueued`` (after marking the job failed) when the broker cannot take it.
    """
    Job.objects.filter(pk=job.pk).update(task_name=task.name, task_args=args)
    job.task_name, job.task_args = task.name, args
    transaction.on_commit(lambda: job_publish(job_id=job.pk))


def job_publish(*, job_id: int) -> None:
    """Send the job's recorded task to the broker now (again, for the reaper); JobNotQueued when it cannot."""
    from celery import current_app as app
    from django.conf import settings
    from kombu.exceptions import OperationalError

    job = Job.objects.only("task_name", "task_args").get(pk=job_id)
    task_id = str(uuid.uuid4())
    now = timezone.now()
    Job.objects.filter(pk=job_id).update(task_id=task_id, dispatches=F("dispatches") + 1, dispatched_at=now,
                                         heartbeat_at=now)
    try:
        # A connection of its own, not one from the pool the worker's settings made: a broker that is unreachable
        # or does not answer is given up on after the publish's short timeouts (a request waits for this), not
        # after the worker's. No task result is stored: the job row is the result, and a result store that is
        # down must not hold up the publish.
        with app.connection_for_write(transport_options=settings.CONCORD_BROKER_PUBLISH_TIMEOUTS) as broker:
            app.tasks[job.task_name].apply_async(job.task_args, task_id=task_id, ignore_result=True,
                                                 connection=broker, retry_policy=PUBLISH_RETRY_POLICY)
    except OperationalError as exc:
        message = (f"the task queue did not take job {job_id} ({exc}); it was not started. "
                   "Start it again once the queue (Redis) is back.")
        job_fail(job_id=job_id, error=message)
        raise JobNotQueued(message, code="broker_unavailable", extra={"job": job_id}) from exc


@contextmanager
def job_lease(*, job_id: int, shared: bool = False) -> Iterator[bool]:
    """Hold the job's lease while this process works on it; yields False when another process holds it.

    ``shared`` leases (the pre-filter's parallel batches) never exclude each other. On PostgreSQL the
    lease is an advisory lock, released with the connection if the worker dies; elsewhere it is always granted.
    """
    if connection.vendor != "postgresql":
        yield True
        return
    function = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s, %s)", [LEASE_LOCK_CLASS, job_id])
        held = cursor.fetchone()[0]
    if not held:
        yield False
        return
    Job.objects.filter(pk=job_id).update(heartbeat_at=timezone.now())
    try:
        yield True
    finally:
        unlock = "pg_advisory_unlock_shared" if shared else "pg_advisory_unlock"
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {unlock}(%s, %s)", [LEASE_LOCK_CLASS, job_id])


def job_leased(run: Callable[..., object], *, job_id: int, shared: bool = False, **kwargs: object) -> object:
    """``run(job_id=job_id, **kwargs)`` under the job's lease; None, without running, when another process holds it."""
    with job_lease(job_id=job_id, shared=shared) as held:
        return run(job_id=job_id, **kwargs) if held else None


def jobs_leased(job_ids: list[int]) -> set[int]:
    """Which of ``job_ids`` some process holds the lease of now (always none off PostgreSQL)."""
    if connection.vendor != "postgresql" or not job_ids:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT objid::bigint FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND granted",
            [LEASE_LOCK_CLASS],
        )
        return {row[0] for row in cursor.fetchall()} & set(job_ids)


def job_start(*, job_id: int, total: int | None = None) -> Job:
    """Mark a job running; a job that completed or was cancelled is returned unchanged, so tasks stay idempotent."""
    job = Job.objects.get(pk=job_id)
    if job.status in (*JOB_COMPLETED, Job.Status.CANCELLED):
        return job
    fields = {"status": Job.Status.RUNNING, "started_at": job.started_at or timezone.now(), "error": "",
              "heartbeat_at": timezone.now()}
    if total is not None:
        fields["progress_total"] = total
    Job.objects.filter(pk=job_id).update(**fields)
    job.refresh_from_db()
    return job


def job_progress(*, job_id: int, done: int, total: int | None = None) -> None:
    """Record progress outside any surrounding transaction's visibility concerns (a single UPDATE)."""
    fields = {"progress_done": done, "heartbeat_at": timezone.now()}
    if total is not None:
        fields["progress_total"] = total
    Job.objects.filter(pk=job_id).update(**fields)


def job_succeed(*, job_id: int, result: dict) -> None:
    Job.objects.filter(pk=job_id).update(status=Job.Status.SUCCEEDED, result=result, finished_at=timezone.now())


def job_partial(*, job_id: int, result: dict, error: str = "") -> None:
    """Mark the job finished with part of its work done (an import some of whose rows failed, or whose reader failed
    after writing some); ``result`` says how much, ``error`` what stopped the rest, if anything did."""
    Job.objects.filter(pk=job_id).update(status=Job.Status.PARTIAL, result=result, error=error[:10_000],
                                         finished_at=timezone.now())


def job_fail(*, job_id: int, error: str, result: dict | None = None) -> None:
    """Mark the job failed with ``error`` (its start, when long) and, where it got that far, the ``result`` it has."""
    Job.objects.filter(pk=job_id).update(status=Job.Status.FAILED, error=error[:10_000], result=result,
                                         finished_at=timezone.now())


@transaction.atomic
def job_cancel(*, job_id: int) -> Job:
    job = Job.objects.select_for_update().get(pk=job_id)
    if job.status in (Job.Status.QUEUED, Job.Status.RUNNING):
        job.status = Job.Status.CANCELLED
        job.finished_at = timezone.now()
        job.save(update_fields=["status", "finished_at"])
    return job


T = TypeVar("T")


def job_attempt(*, job_id: int, work: Callable[[], T]) -> tuple[bool, T | None]:
    """Run a job's work: ``(True, its value)`` when it finished; ``(False, None)`` when the curator cancelled it
    (JobCancelled) or it was refused (an ApplicationError: the job fails with its message). Any other exception
    fails the job with its traceback and is raised again."""
    try:
        return True, work()
    except JobCancelled:
        return False, None
    except ApplicationError as exc:
        job_fail(job_id=job_id, error=exc.message)
        return False, None
    except Exception:
        job_fail(job_id=job_id, error=traceback.format_exc())
        raise


def job_is_cancelled(*, job_id: int) -> bool:
    return Job.objects.filter(pk=job_id, status=Job.Status.CANCELLED).exists()
