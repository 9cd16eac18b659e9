"""Celery tasks of the importers: a thin wrapper that loads the job by id and calls one service."""

from celery import shared_task

from core.queues import Queue


@shared_task(name="annotation.importers.import_pairs", queue=Queue.IMPORTS, acks_late=True, soft_time_limit=6 * 3600,
             time_limit=6 * 3600 + 300)
def import_pairs_task(job_id: int) -> None:
    """Import an uploaded file for job ``job_id``; a finished job is left as it is, so a redelivery is harmless."""
    from annotation.importers.services import import_job_run
    from annotation.jobs.services import job_leased

    job_leased(import_job_run, job_id=job_id)
