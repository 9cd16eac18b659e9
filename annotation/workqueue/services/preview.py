"""The next pair, shown ahead: its display and media fetched in the background while the rater works on the current
one, without taking a lease (a lease is taken only when the rater moves on, by the work queue's claim).

The preview is the top of the claim's order (priority, then the pair with most slots taken, then the oldest)
among the queued, non-gold pairs with an open slot that the annotator never held, other than the one they hold;
the orientation is the one the claim will fix (``orientation_swapped``). Another rater may take that pair first, or
a gold pair may be drawn instead: then the claim gives another pair and the preview was only a warm-up. Apart
from the work queue: the claim and submit paths are unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.cache import cache
from django.db.models import Exists, F, OuterRef

from annotation.catalogue import content
from annotation.catalogue.models import PAIR_CLAIMABLE, PAIR_SLOTS_TAKEN, Campaign, Pair
from annotation.workqueue.models import Assignment
from annotation.workqueue.rules import orientation_swapped
from annotation.workqueue.selectors import pair_display
from annotation.workqueue.services.profile import profile_required

if TYPE_CHECKING:
    from annotation.accounts.models import User

PREVIEW_SECONDS = 15 * 60


def preview_key(user_id: int, digest: str) -> str:
    """The cache entry that lets ``user_id`` fetch media ``digest`` before holding a lease on a pair showing it."""
    return f"media-preview:{user_id}:{digest}"


def pair_preview_next(*, campaign: Campaign, annotator: User) -> dict | None:
    """The blind display of the pair ``annotator`` most likely gets on their next claim in ``campaign``, with
    ``assignment`` and ``expires_at`` empty; None when nothing is left or the campaign is not active.

    Refused as the claim refuses (ApplicationError 403 ``profile_required``, ``quota_done``,
    ``qualification_required``, ``paused_recalibrate``): nothing of the real queue is shown before the rater may
    claim it. Membership is the caller's to check.

    Writes no row: it lets the annotator fetch that pair's media (renditions, as always) for PREVIEW_SECONDS, through
    the cache (Redis when configured), so their browser can hold them before the claim.
    """
    # Imported here: the qualification services read this module's media grants.
    from annotation.workqueue.services.qualification import admission_refuse, rater_admission

    profile_required(user=annotator, campaign=campaign)
    admission = rater_admission(user=annotator, campaign=campaign)
    if not admission.admitted:
        admission_refuse(admission)
    if campaign.status != Campaign.Status.ACTIVE:
        return None
    held = Assignment.objects.filter(pair=OuterRef("pk"), annotator=annotator)
    pair = (
        Pair.objects.filter(PAIR_CLAIMABLE, campaign=campaign, is_gold=False)
        .filter(~Exists(held))
        .select_related("prompt", "response_a", "response_b")
        .order_by(F("priority").desc(), PAIR_SLOTS_TAKEN.desc(), "id")
        .first()
    )
    if pair is None:
        return None
    # Never saved: it only orients the display as the claim will (expires_at is required of a stored one).
    assignment = Assignment(pair=pair, campaign=campaign, annotator=annotator, status="preview", draft={},  # type: ignore[misc]
                            expires_at=None,
                            swapped=orientation_swapped(campaign.orientation_seed, pair.pk, annotator.pk))
    display = pair_display(assignment=assignment)
    digests = {d for blocks in (pair.prompt.content, pair.response_a.content, pair.response_b.content)
               for d in content.media_digests(blocks or [])}
    cache.set_many({preview_key(annotator.pk, digest): True for digest in digests}, timeout=PREVIEW_SECONDS)
    return display
