"""Read queries of the catalogue: campaigns a user sees, members, media URLs."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from django.db.models import Count, F, Q
from django.db.models.lookups import GreaterThanOrEqual, LessThan

from annotation.catalogue import renditions
from annotation.catalogue.models import Campaign, Media, Pair
from annotation.catalogue.services.pair_status import overlap_target, pairs_to_follow_overlap

if TYPE_CHECKING:
    from collections.abc import Iterable

    from django.db.models import QuerySet

    from annotation.accounts.models import User


def media_url(digest: str, extension: str) -> str:
    return f"/media/{digest}.{extension}"


def media_sources(rows: Iterable[tuple]) -> dict[str, dict]:
    """What an annotator's page requests for each media, from rows of (sha256, file, kind, mime type, width,
    render error): ``url`` (an image's ``full`` rendition, else the file's ``clean`` one) and, for images,
    ``srcset`` (the sized WebP renditions, then the full one at its width). A file that cannot be rendered or
    cleaned gets no URL at all."""
    sources = {}
    for digest, name, kind, mime_type, width, render_error in rows:
        if render_error:
            sources[digest] = {"url": ""}
        elif kind != Media.Kind.IMAGE:
            sources[digest] = {"url": media_url(digest, PurePosixPath(name).suffix.lstrip(".").lower() or "bin")}
        else:
            url = media_url(digest, renditions.full_extension(mime_type))
            sized = [f"/media/{digest}/w{w}.webp {w}w" for w in renditions.widths_for(width)]
            sources[digest] = {"url": url, "srcset": ", ".join([*sized, f"{url} {width}w"]) if sized else ""}
    return sources


def campaigns_for_user(*, user: User) -> QuerySet[Campaign]:
    """Campaigns a user may see: all for curators, those they belong to for annotators."""
    qs = Campaign.objects.select_related("rating_schema").order_by("slug")
    if user.is_curator:
        return qs
    return qs.filter(members=user)


def campaign_members(*, campaign: Campaign) -> QuerySet[User]:
    return campaign.members.order_by("username").only("username", "role")


def campaign_member_candidates(*, campaign: Campaign, limit: int = 500) -> list[str]:
    """Usernames of accounts that are not members yet, for the add-members box."""
    from django.contrib.auth import get_user_model

    return list(get_user_model().objects.exclude(campaigns=campaign).order_by("username")
                .values_list("username", flat=True)[:limit])


def campaign_overlap_change(*, campaign: Campaign, overlap: int) -> dict[str, int]:
    """What applying ``overlap`` to the campaign's existing pairs would change: ``pairs`` (whose required count
    changes), ``requeued`` (complete ones that go back to the queue), ``completed`` (queued ones that complete)."""
    target = overlap_target(before=campaign.overlap, after=overlap)
    return pairs_to_follow_overlap(campaign=campaign, before=campaign.overlap, after=overlap).aggregate(
        pairs=Count("pk"),
        requeued=Count("pk", filter=Q(status=Pair.Status.COMPLETE) & Q(LessThan(F("annotations_done"), target))),
        completed=Count("pk", filter=Q(status=Pair.Status.QUEUED) & Q(GreaterThanOrEqual(F("annotations_done"), target))),
    )
