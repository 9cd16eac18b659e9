"""Celery tasks of the catalogue: thin wrappers that load by id and call one service."""

from celery import shared_task

from config.celery import Queue


@shared_task(name="annotation.import_pairs", queue=Queue.IMPORTS, acks_late=True, soft_time_limit=6 * 3600,
             time_limit=6 * 3600 + 300)
def import_pairs_task(job_id: int) -> None:
    """Import an uploaded file for job ``job_id``; a finished job is left as it is, so a redelivery is harmless."""
    from catalogue.services.imports import import_job_run
    from core.services.jobs import job_leased

    job_leased(import_job_run, job_id=job_id)


@shared_task(name="annotation.media_renditions_prepare", queue=Queue.IMPORTS, acks_late=True, soft_time_limit=6 * 3600,
             time_limit=6 * 3600 + 300)
def media_renditions_prepare_task(campaign_id: int) -> dict:
    """Make the renditions of a campaign's media ahead of its annotators; what is stored already is kept."""
    from catalogue.models import Campaign
    from catalogue.services.renditions import media_renditions_prepare

    campaign = Campaign.objects.filter(pk=campaign_id).first()
    return media_renditions_prepare(campaign=campaign) if campaign is not None else {"media": 0, "unrenderable": []}
