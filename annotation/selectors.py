"""Read queries for the annotation app."""

from __future__ import annotations

from annotation.models import Assignment, Campaign, Media


def media_visible_to(*, user, digest: str) -> Media | None:
    """The media ``digest`` when ``user`` may see it: curators always, annotators through a pair they hold."""
    media = Media.objects.filter(sha256=digest).first()
    if media is None or user.is_curator:
        return media
    holds = Assignment.objects.filter(annotator=user, pair__media=media).exists()
    return media if holds else None


def media_url(digest: str, extension: str) -> str:
    return f"/media/{digest}.{extension}"


def campaigns_for_user(*, user):
    """Campaigns a user may see: all for curators, those they belong to for annotators."""
    qs = Campaign.objects.select_related("rating_schema").order_by("slug")
    if user.is_curator:
        return qs
    return qs.filter(members=user)


def import_jobs_recent(*, limit: int = 20):
    """The latest upload imports, newest first, with their campaign."""
    from annotation.models import Job

    return Job.objects.filter(kind="import").select_related("campaign", "created_by").order_by("-created_at")[:limit]
