"""Celery tasks of the curation app: thin wrappers that load by id and call one service."""

from celery import shared_task

from config.celery import Queue


@shared_task(name="curation.release_build", queue=Queue.RELEASES, acks_late=True, soft_time_limit=3 * 3600,
             time_limit=3 * 3600 + 300)
def release_build_task(release_id: int) -> None:
    """Build and publish one release; a published release is left as it is, a failed one is retried."""
    from annotation.errors import ApplicationError
    from curation.services.releases import release_build

    try:
        release_build(release_id=release_id)
    except ApplicationError:
        # The service already marked the release and its job failed with this error; nothing to retry blindly.
        return


@shared_task(name="curation.release_reap_stalled", queue=Queue.RELEASES, acks_late=True, time_limit=300)
def release_reap_stalled_task() -> int:
    """Mark failed the releases whose builder died, so they show their error and can be retried."""
    from curation.services.releases import release_reap_stalled

    return release_reap_stalled()
