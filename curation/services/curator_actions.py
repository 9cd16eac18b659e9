"""What a curator does to one pair from the console: more raters, adjudication, gold, exclude, restore.

Each action takes a row lock on the pair, checks the pair's status allows it, and refuses precisely
(an ApplicationError with a code) otherwise; the pair's ``status_reason`` records who did what.
An action that changes the pair's state invalidates its consensus record in the same transaction,
so no release takes a decision the curator has since overruled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from annotation.catalogue.models import Pair
from annotation.catalogue.services.pair_status import status_in_annotation
from core.errors import ApplicationError
from curation.services.consensus import consensus_invalidate

if TYPE_CHECKING:
    from annotation.accounts.models import User

MAX_NOTE = 150
ANNOTATION_STATUSES = (Pair.Status.QUEUED, Pair.Status.COMPLETE, Pair.Status.ADJUDICATION)


def _locked(pair_id: int) -> Pair:
    try:
        return Pair.objects.select_for_update().select_related("campaign").get(pk=pair_id)
    except Pair.DoesNotExist as exc:
        raise ApplicationError("no such pair", code="not_found", status_code=404) from exc


def _reason(*, actor, verb: str, note: str) -> str:
    note = (note or "").strip()
    if len(note) > MAX_NOTE:
        raise ApplicationError(f"the note is {len(note)} characters; keep it under {MAX_NOTE}", code="note_too_long")
    who = getattr(actor, "username", "") or "curator"
    return (f"{verb} by {who}" + (f": {note}" if note else ""))[: Pair._meta.get_field("status_reason").max_length]


@transaction.atomic
def pair_extend_overlap(*, pair_id: int, by: int = 1, actor: User | None = None, note: str = "") -> Pair:
    """Ask for ``by`` more annotations than the pair has (or was planned to have, if more); it goes back to the
    queue with that many open slots. A pair that already holds more ratings than its overlap (imported ones, say)
    gets ``by`` more than it holds, so the new slots can always be claimed.

    Preconditions: the pair is in annotation (queued, complete or awaiting adjudication) and the new
    overlap stays within the campaign's ``max_overlap``.
    """
    if not isinstance(by, int) or isinstance(by, bool) or by < 1:
        raise ApplicationError("extend the overlap by a whole number of at least 1", code="invalid_overlap")
    pair = _locked(pair_id)
    if pair.status not in ANNOTATION_STATUSES:
        raise ApplicationError(
            f"only a pair in annotation can get more annotators; this one is {pair.get_status_display().lower()}",
            code="invalid_status",
            status_code=409,
        )
    target = max(pair.required_annotations, pair.annotations_done) + by
    if target > pair.campaign.max_overlap:
        raise ApplicationError(
            f"overlap {target} exceeds the campaign's maximum of {pair.campaign.max_overlap}",
            code="overlap_above_max",
            status_code=409,
        )
    pair.required_annotations = target
    pair.status = status_in_annotation(done=pair.annotations_done, required=target)
    pair.status_reason = _reason(actor=actor, verb=f"overlap raised to {target}", note=note)
    pair.save(update_fields=["required_annotations", "status", "status_reason"])
    consensus_invalidate(pair_id=pair.pk, reason="overlap_extended")
    return pair


@transaction.atomic
def pair_send_to_adjudication(*, pair_id: int, actor: User | None = None, note: str = "") -> Pair:
    """Put a pair in the adjudication queue, where a curator decides it by hand.

    Precondition: the pair is queued or complete (annotation has started or finished).
    """
    pair = _locked(pair_id)
    if pair.status not in (Pair.Status.QUEUED, Pair.Status.COMPLETE):
        raise ApplicationError(
            f"only a queued or complete pair can go to adjudication; this one is {pair.get_status_display().lower()}",
            code="invalid_status",
            status_code=409,
        )
    pair.status = Pair.Status.ADJUDICATION
    pair.status_reason = _reason(actor=actor, verb="sent to adjudication", note=note)
    pair.save(update_fields=["status", "status_reason"])
    consensus_invalidate(pair_id=pair.pk, reason="sent_to_adjudication")
    return pair


@transaction.atomic
def pair_mark_gold(*, pair_id: int, side: str, actor: User | None = None, note: str = "") -> Pair:
    """Make a pair a gold question whose expected answer prefers ``side`` ("A" or "B", canonical).

    Gold answers are what annotators are scored against, so a tie is refused: it cannot be right or wrong.
    """
    if side not in ("A", "B"):
        raise ApplicationError("a gold answer names the better response: A or B", code="invalid_gold_answer")
    pair = _locked(pair_id)
    if pair.status in (Pair.Status.EXCLUDED, Pair.Status.DROPPED_EASY):
        raise ApplicationError(
            f"an {pair.get_status_display().lower()} pair cannot be gold; restore it first",
            code="invalid_status",
            status_code=409,
        )
    who = getattr(actor, "username", "") or "curator"
    pair.is_gold = True
    pair.gold_answer = {"side": side, "note": (note or "").strip()[:MAX_NOTE], "by": who, "at": timezone.now().isoformat()}
    pair.save(update_fields=["is_gold", "gold_answer"])
    return pair


@transaction.atomic
def pair_unmark_gold(*, pair_id: int, actor: User | None = None) -> Pair:
    """Stop using a pair as gold; its expected answer is forgotten."""
    pair = _locked(pair_id)
    if not pair.is_gold:
        raise ApplicationError("this pair is not gold", code="not_gold", status_code=409)
    pair.is_gold = False
    pair.gold_answer = None
    pair.save(update_fields=["is_gold", "gold_answer"])
    return pair


@transaction.atomic
def pair_exclude(*, pair_id: int, reason: str, actor: User | None = None) -> Pair:
    """Take a pair out of annotation, consensus and releases; a reason is required.

    Annotations already made are kept (restoring the pair brings them back into play).
    """
    if not (reason or "").strip():
        raise ApplicationError("say why the pair is excluded", code="reason_required")
    pair = _locked(pair_id)
    if pair.status == Pair.Status.EXCLUDED:
        raise ApplicationError("this pair is already excluded", code="invalid_status", status_code=409)
    pair.status = Pair.Status.EXCLUDED
    pair.status_reason = _reason(actor=actor, verb="excluded", note=reason)
    pair.save(update_fields=["status", "status_reason"])
    consensus_invalidate(pair_id=pair.pk, reason="excluded")
    return pair


@transaction.atomic
def pair_restore(*, pair_id: int, actor: User | None = None, note: str = "") -> Pair:
    """Bring back a pair the pre-filter dropped as easy, or one a curator excluded.

    A restored pair goes to the annotation queue, or straight to complete when it already has
    its annotations.
    """
    pair = _locked(pair_id)
    if pair.status not in (Pair.Status.DROPPED_EASY, Pair.Status.EXCLUDED):
        raise ApplicationError(
            f"only a pair dropped by the pre-filter or excluded can be restored; this one is {pair.get_status_display().lower()}",
            code="invalid_status",
            status_code=409,
        )
    verb = "restored after the pre-filter dropped it" if pair.status == Pair.Status.DROPPED_EASY else "restored"
    pair.status = status_in_annotation(done=pair.annotations_done, required=pair.required_annotations)
    pair.status_reason = _reason(actor=actor, verb=verb, note=note)
    pair.save(update_fields=["status", "status_reason"])
    consensus_invalidate(pair_id=pair.pk, reason="restored")
    return pair
