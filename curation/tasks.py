"""Celery tasks of the curation app: thin wrappers that load by id and call one service."""

from celery import shared_task

from core.db_faults import DATABASE_FAULT_RETRY
from core.queues import Queue


@shared_task(name="curation.agreement_compute", queue=Queue.ANALYTICS, acks_late=True, soft_time_limit=3600,
             time_limit=3700, **DATABASE_FAULT_RETRY)
def agreement_compute(job_id: int) -> None:
    """Compute and store a campaign's agreement reports for a queued job."""
    from annotation.jobs.services import job_leased
    from curation.services.agreement import agreement_job_run

    job_leased(agreement_job_run, job_id=job_id)


@shared_task(name="curation.consensus_apply", queue=Queue.ANALYTICS, acks_late=True, soft_time_limit=3600,
             time_limit=3700, **DATABASE_FAULT_RETRY)
def consensus_apply(job_id: int) -> None:
    """Apply a campaign's consensus policy for a queued job."""
    from annotation.jobs.services import job_leased
    from curation.services.consensus import consensus_job_run

    job_leased(consensus_job_run, job_id=job_id)


@shared_task(name="curation.agreement_schedule", queue=Queue.ANALYTICS, acks_late=True, soft_time_limit=300,
             time_limit=360, **DATABASE_FAULT_RETRY)
def agreement_schedule() -> list[int]:
    """Queue agreement jobs for active campaigns with new ratings; returns the job ids."""
    from curation.services.agreement import agreement_schedule_due

    return [job.pk for job in agreement_schedule_due()]


@shared_task(name="curation.release_build", queue=Queue.RELEASES, acks_late=True, soft_time_limit=3 * 3600,
             time_limit=3 * 3600 + 300)
def release_build_task(release_id: int) -> None:
    """Build and publish one release; a published release is left as it is, a failed one is retried."""
    from core.errors import ApplicationError
    from curation.services.releases import release_build

    try:
        release_build(release_id=release_id)
    except ApplicationError:
        # The service already marked the release and its job failed with this error; nothing to retry blindly.
        return


@shared_task(name="curation.training_export", queue=Queue.RELEASES, acks_late=True, soft_time_limit=3600, time_limit=3660)
def training_export_task(job_id: int) -> None:
    """Write a release's training export; a finished export is found and reused, so a rerun repeats nothing."""
    from annotation.jobs.services import job_leased
    from curation.services.training_exports import training_export_job_run

    job_leased(training_export_job_run, job_id=job_id)


@shared_task(name="curation.release_verify", queue=Queue.RELEASES, acks_late=True, soft_time_limit=3600, time_limit=3660)
def release_verify_task(job_id: int) -> None:
    """Re-read a published release's files against its manifest; the job holds the result, so a rerun only repeats it."""
    from annotation.jobs.services import job_leased
    from curation.services.releases import release_verify_job_run

    job_leased(release_verify_job_run, job_id=job_id)


@shared_task(name="curation.prefilter_dispatch", queue=Queue.JUDGES, acks_late=True, soft_time_limit=600, time_limit=660)
def prefilter_dispatch_task(job_id: int) -> None:
    """Start or resume a pre-filter run: a new attempt fanned out as a chord of batch tasks."""
    from annotation.jobs.services import job_leased
    from curation.services.prefilter import prefilter_dispatch

    job_leased(prefilter_dispatch, job_id=job_id, shared=True)


@shared_task(name="curation.prefilter_batch", queue=Queue.JUDGES, acks_late=True, soft_time_limit=3_600, time_limit=3_660)
def prefilter_batch_task(job_id: int, attempt: int, pair_ids: list[int]) -> dict:
    """Judge one batch of pairs; verdicts already stored are not called again, so a rerun is harmless."""
    from annotation.jobs.services import job_fail, job_leased
    from curation.services.prefilter import prefilter_batch_run

    try:
        return job_leased(prefilter_batch_run, job_id=job_id, shared=True, attempt=attempt, pair_ids=pair_ids)
    except Exception as exc:
        job_fail(job_id=job_id, error=f"a batch failed: {type(exc).__name__}: {exc}")
        raise


@shared_task(name="curation.prefilter_finish", queue=Queue.JUDGES, acks_late=True, soft_time_limit=1_800, time_limit=1_860)
def prefilter_finish_task(job_id: int, attempt: int) -> dict | None:
    """Apply the rule to the judged pairs and store the run's report; a stale attempt does nothing."""
    from annotation.jobs.services import job_leased
    from curation.services.prefilter import prefilter_finish

    return job_leased(prefilter_finish, job_id=job_id, shared=True, attempt=attempt)


@shared_task(name="curation.leaderboard_fit", queue=Queue.ANALYTICS, acks_late=True, soft_time_limit=1800,
             time_limit=1860)
def leaderboard_fit_task(job_id: int) -> None:
    """Fit the model leaderboard a curator asked for; a finished job is left as it is, so a rerun changes nothing."""
    from annotation.jobs.services import job_leased
    from curation.services.leaderboard import leaderboard_fit_job_run

    job_leased(leaderboard_fit_job_run, job_id=job_id)
