"""Celery tasks of the jobs: the reaper, run from the one beat schedule."""

from celery import shared_task

from core.queues import Queue


@shared_task(name="annotation.jobs.reap", queue=Queue.DEFAULT, acks_late=True, soft_time_limit=240, time_limit=300)
def jobs_reap_task() -> dict:
    """Send again or fail the jobs whose task was lost or whose worker died; a second run finds nothing more."""
    from dataclasses import asdict

    from annotation.jobs.reaper import jobs_reap

    return asdict(jobs_reap())
