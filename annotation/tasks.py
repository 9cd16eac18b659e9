"""Celery tasks of the annotation app: thin wrappers that load by id and call one service."""

from celery import shared_task

from config.celery import Queue


@shared_task(name="annotation.import_pairs", queue=Queue.IMPORTS, acks_late=True, soft_time_limit=6 * 3600,
             time_limit=6 * 3600 + 300)
def import_pairs_task(job_id: int) -> None:
    """Import an uploaded file for job ``job_id``; a finished job is left as it is, so a redelivery is harmless."""
    from annotation.services.imports import import_job_run

    import_job_run(job_id=job_id)
