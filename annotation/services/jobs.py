"""Background jobs: create, report progress, finish. Every long task writes through these."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from annotation.models import Job

if TYPE_CHECKING:
    from annotation.models import Campaign, User

# What each kind of job counts in progress_done / progress_total, so a bar names its own units.
JOB_UNITS = {"import": "bytes", "prefilter": "verdicts", "agreement": "steps", "consensus": "pairs", "release": "rows"}


def job_unit(kind: str) -> str:
    return JOB_UNITS.get(kind, "items")


def job_create(*, kind: str, campaign: Campaign | None = None, params: dict | None = None, created_by: User | None = None,
               total: int | None = None) -> Job:
    return Job.objects.create(
        kind=kind, campaign=campaign, params=params or {}, created_by=created_by, progress_total=total
    )


def job_start(*, job_id: int, total: int | None = None) -> Job:
    """Mark a job running; a job already finished is returned unchanged, so tasks stay idempotent."""
    job = Job.objects.get(pk=job_id)
    if job.status in (Job.Status.SUCCEEDED, Job.Status.CANCELLED):
        return job
    fields = {"status": Job.Status.RUNNING, "started_at": job.started_at or timezone.now(), "error": ""}
    if total is not None:
        fields["progress_total"] = total
    Job.objects.filter(pk=job_id).update(**fields)
    job.refresh_from_db()
    return job


def job_progress(*, job_id: int, done: int, total: int | None = None) -> None:
    """Record progress outside any surrounding transaction's visibility concerns (a single UPDATE)."""
    fields = {"progress_done": done}
    if total is not None:
        fields["progress_total"] = total
    Job.objects.filter(pk=job_id).update(**fields)


def job_succeed(*, job_id: int, result: dict) -> None:
    Job.objects.filter(pk=job_id).update(status=Job.Status.SUCCEEDED, result=result, finished_at=timezone.now())


def job_fail(*, job_id: int, error: str) -> None:
    Job.objects.filter(pk=job_id).update(status=Job.Status.FAILED, error=error[:10_000], finished_at=timezone.now())


@transaction.atomic
def job_cancel(*, job_id: int) -> Job:
    job = Job.objects.select_for_update().get(pk=job_id)
    if job.status in (Job.Status.QUEUED, Job.Status.RUNNING):
        job.status = Job.Status.CANCELLED
        job.finished_at = timezone.now()
        job.save(update_fields=["status", "finished_at"])
    return job


def job_is_cancelled(*, job_id: int) -> bool:
    return Job.objects.filter(pk=job_id, status=Job.Status.CANCELLED).exists()
