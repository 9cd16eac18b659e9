"""What the import pages read: the latest upload imports, and one import's report (its outcome and row errors)."""

from django.db.models import QuerySet

from annotation.jobs.models import Job
from core.errors import ApplicationError

IMPORT_JOB = "import"


def import_jobs_recent(*, limit: int = 20) -> QuerySet[Job]:
    """The latest upload imports, newest first, with their campaign."""
    return Job.objects.filter(kind=IMPORT_JOB).select_related("campaign", "created_by").order_by("-created_at")[:limit]


def import_job_get(*, job_id: int) -> Job:
    """One upload import with its campaign and uploader; 404 when there is no import job ``job_id``."""
    job = Job.objects.filter(pk=job_id, kind=IMPORT_JOB).select_related("campaign", "created_by").first()
    if job is None:
        raise ApplicationError(f"there is no import {job_id}", code="import_not_found", status_code=404)
    return job


def import_job_errors(*, job: Job) -> list[dict]:
    """The import's row errors as stored, in file order: ``{"line": l, "message": m}``, ``line`` being where the row
    starts in the file. At most MAX_LISTED_ERRORS are stored; the last entry then says how many more failed.

    A job that failed before reading a row (an unreadable file, a refused archive) has one entry at line 0 with its
    error.
    """
    stored = (job.result or {}).get("errors") or []
    if not stored and job.status == Job.Status.FAILED and job.error:
        stored = [{"line": 0, "message": job.error}]
    return [{"line": error.get("line", 0), "message": error.get("message", "")} for error in stored]
