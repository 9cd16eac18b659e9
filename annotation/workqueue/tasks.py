"""Celery tasks of the work queue: thin wrappers that call one service."""

from celery import shared_task

from core.queues import Queue


@shared_task(name="annotation.workqueue.assignments_expire", queue=Queue.DEFAULT, acks_late=True, soft_time_limit=240,
             time_limit=300)
def assignments_expire_task() -> int:
    """Return the slots of expired leases to the pool; running it twice expires nothing more."""
    from annotation.workqueue.services.assignments import assignments_expire

    return assignments_expire()

