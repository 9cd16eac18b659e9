"""Celery tasks of the curation app: thin wrappers that load by id and call one service."""

from celery import shared_task

from config.celery import Queue


@shared_task(name="curation.agreement_compute", queue=Queue.ANALYTICS, acks_late=True, soft_time_limit=3600,
             time_limit=3700)
def agreement_compute(job_id: int) -> None:
    """Compute and store a campaign's agreement reports for a queued job."""
    from curation.services.agreement import agreement_job_run

    agreement_job_run(job_id=job_id)


@shared_task(name="curation.consensus_apply", queue=Queue.ANALYTICS, acks_late=True, soft_time_limit=3600,
             time_limit=3700)
def consensus_apply(job_id: int) -> None:
    """Apply a campaign's consensus policy for a queued job."""
    from curation.services.consensus import consensus_job_run

    consensus_job_run(job_id=job_id)


@shared_task(name="curation.agreement_schedule", queue=Queue.ANALYTICS, acks_late=True, soft_time_limit=300,
             time_limit=360)
def agreement_schedule() -> list[int]:
    """Queue agreement jobs for active campaigns with new ratings; returns the job ids."""
    from curation.services.agreement import agreement_schedule_due

    return [job.pk for job in agreement_schedule_due()]


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
