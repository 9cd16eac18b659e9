"""Celery tasks of the catalogue: thin wrappers that load by id and call one service."""

from celery import shared_task

from core.queues import Queue


@shared_task(name="annotation.catalogue.media_renditions_prepare", queue=Queue.IMPORTS, acks_late=True, soft_time_limit=6 * 3600,
             time_limit=6 * 3600 + 300)
def media_renditions_prepare_task(campaign_id: int) -> dict:
    """Make the renditions of a campaign's media ahead of its annotators; what is stored already is kept."""
    from annotation.catalogue.models import Campaign
    from annotation.catalogue.services.renditions import media_renditions_prepare

    campaign = Campaign.objects.filter(pk=campaign_id).first()
    return media_renditions_prepare(campaign=campaign) if campaign is not None else {"media": 0, "unrenderable": []}
