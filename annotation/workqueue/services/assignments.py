"""The work queue: claim the next pair, save a draft, submit, skip, and return expired leases.

Invariants (each held by the database, not by the callers' good manners):

- an annotator never gets the same pair twice: ``assignment_once_per_annotator``;
- a pair never has more live claims plus annotations than its overlap: the claim increments
  ``Pair.active_claims`` only while ``active_claims + annotations_done < required_annotations``
  on a locked row, and ``pair_claims_within_overlap`` checks it again;
- an annotator holds at most one lease per campaign: ``assignment_one_active_per_campaign``.

Each rule is stated here once; the reads and writes go through the store (``annotation.workqueue.store``): on
PostgreSQL hand-written statements (a claim is one statement around ``SELECT … FOR UPDATE SKIP LOCKED LIMIT 1`` on
the partial index ``pair_claim_idx``), elsewhere the ORM, inside transactions that on SQLite take the database's
write lock at BEGIN and so serialize claims.
"""

from __future__ import annotations

import json
import random
from contextlib import nullcontext
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Count, F, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotation.catalogue import schemas
from annotation.catalogue.models import PAIR_CLAIMABLE, Campaign, Pair
from annotation.catalogue.services.pair_status import status_following_counts
from annotation.workqueue import consistency, selectors
from annotation.workqueue.models import Annotation, Assignment, AssignmentEvent
from annotation.workqueue.playback import media_played_canonical, refuse_short_playback
from annotation.workqueue.rules import gold_matches
from annotation.workqueue.services.profile import entry_gate
from annotation.workqueue.store import AssignmentChanged, event_record, store
from core.errors import ApplicationError

if TYPE_CHECKING:

    from annotation.accounts.models import User

LAZY_EXPIRY_BATCH = 20
EXPIRY_BATCH = 500
IDEMPOTENCY_KEY_MAX = 64
SKIP_REASON_MAX = 500
DRAFT_MAX_BYTES = 200_000
TIME_ON_ITEM_MAX_MS = 24 * 3600 * 1000

_rng = random.SystemRandom()


_record = event_record


def assignment_claim(*, campaign: Campaign, annotator: User, now: datetime | None = None,
                     rng: random.Random | None = None) -> Assignment | None:
    """The annotator's current lease in ``campaign`` if it is still valid, else a new lease on the next pair.

    Returns None when the campaign is not active or no pair is left for this annotator. Only members
    get work (ApplicationError 403), and only once ``profile_required`` lets them (its 403s). The lease comes
    with what ``selectors.pair_display`` reads loaded.
    ``rng`` draws once per claim whether it looks for a gold pair first (probability ``campaign.gold_rate``);
    tests pass a seeded one.

    On PostgreSQL the campaign's state, the membership, the gates and, in the common case (a member admitted, an
    active campaign, no lease of theirs, none of the campaign's due), the claim itself are one statement
    (``annotation/workqueue/sql/claim.sql``).
    """
    return _claim_first(by="id", campaign=campaign.pk, annotator=annotator, now=now or timezone.now(), rng=rng,
                        known=campaign)


def assignment_claim_by_slug(
    *, slug: str, annotator: User, now: datetime | None = None, rng: random.Random | None = None
) -> Assignment | None:
    """``assignment_claim`` for the campaign ``slug`` (ApplicationError 404 when there is none)."""
    return _claim_first(by="slug", campaign=slug, annotator=annotator, now=now or timezone.now(), rng=rng)


def _gold_first(campaign: Campaign, draw: float) -> bool:
    """Whether a claim whose draw (in [0, 1)) is ``draw`` looks for a gold pair first."""
    return campaign.gold_rate > 0 and draw < campaign.gold_rate


def _claim_first(*, by: str, campaign: int | str, annotator, now: datetime, rng,
                 known: Campaign | None = None) -> Assignment | None:
    """The store's first read, which on PostgreSQL claims the drawn kind of pair when the rater may; the rest of
    ``_claim_for_member`` only when it did not (a portable store, an open or due lease, a gate to check, nothing of
    that kind left in a campaign with gold). ``known``: the caller's campaign (a claim by id), which the lease then
    carries."""
    draw = (rng or _rng).random()
    try:
        # A store whose statements are atomic may claim in this read: alone the statement is atomic; inside a
        # transaction it needs a savepoint for a conflict to be caught. The ORM's read only reads.
        savepoint = store().statements_atomic and connection.in_atomic_block
        with transaction.atomic() if savepoint else nullcontext():
            read = store().claim_read(by=by, campaign=campaign, annotator=annotator, now=now, draw=draw, known=known)
    except IntegrityError:
        return _claimed_at_the_same_moment(known or Campaign.objects.get(**{by: campaign}), annotator, now)
    if read.lease is not None:
        return read.lease
    if read.campaign is None:
        raise ApplicationError("No such campaign.", code="not_found", status_code=404)
    if read.membership is not None:
        entry_gate(campaign_id=read.campaign.pk, profile_missing=read.profile_missing,
                   crowd_entry_id=read.crowd_entry_id)
    gold_first = _gold_first(read.campaign, draw)
    return _claim_for_member(campaign=read.campaign, annotator=annotator, membership=read.membership, now=now,
                             gold_first=gold_first, tried=gold_first if read.looked else None, held=read.held)


def _claim_for_member(*, campaign: Campaign, annotator, membership: tuple | None, now: datetime, gold_first: bool,
                      tried: bool | None = None, held: bool | None = False):
    """``membership``: (open lease id, its expiry, any lease due), None for a non-member. ``tried``: the kind of pair
    (gold or not) the claim statement already looked for and found none of. ``held``: whether the claim statement
    found the rater not admitted (None: not read by the store)."""
    if membership is None:
        raise ApplicationError("You are not a member of this campaign.", code="not_a_member", status_code=403)
    if held is None or held:
        # Imported here: the qualification services release leases through this module.
        from annotation.workqueue.services.qualification import admission_refuse, rater_admission

        admission = rater_admission(user=annotator, campaign=campaign, now=now)
        if not admission.admitted:
            admission_refuse(admission)
    if campaign.status != Campaign.Status.ACTIVE:
        return None
    current_id, current_expires_at, any_due = membership
    if current_id is not None and current_expires_at > now:
        return selectors.assignment_for_annotator(assignment_id=current_id, annotator=annotator)
    order = [gold for gold in _gold_order(campaign, gold_first) if gold != tried]
    # A store whose statement is atomic on its own needs no transaction with nothing to expire, outside any (BEGIN
    # and COMMIT would be two more round trips). SQLite needs the transaction for its write lock.
    alone = store().statements_atomic and not any_due and not connection.in_atomic_block
    try:
        with nullcontext() if alone else transaction.atomic():
            if any_due:
                due_ids = _lock_due(campaign_id=campaign.pk, now=now, limit=LAZY_EXPIRY_BATCH)
                if current_id is not None and current_id not in due_ids:
                    # The annotator's own stale lease must go whatever the batch, or the new lease cannot be written.
                    stale = _own(campaign, annotator).filter(pk=current_id).select_for_update()
                    due_ids += list(stale.values_list("pk", flat=True))
                _expire_locked(ids=due_ids, now=now)
            claimed = _claim(campaign=campaign, annotator=annotator, now=now, order=order)
        if claimed is None and any_due:
            # The due leases skipped above may belong to another claim that is expiring them: their slots
            # are not back until it commits, so "nothing left" would be premature. Wait for it (holding no
            # other lock, rows taken in one order) and look once more.
            with transaction.atomic():
                _expire_locked(ids=_lock_due(campaign_id=campaign.pk, now=now, limit=LAZY_EXPIRY_BATCH, wait=True), now=now)
                claimed = _claim(campaign=campaign, annotator=annotator, now=now, order=order)
        return claimed
    except IntegrityError:
        return _claimed_at_the_same_moment(campaign, annotator, now)


def _claimed_at_the_same_moment(campaign: Campaign, annotator, now: datetime) -> Assignment:
    """The answer when writing the lease broke ``assignment_one_active_per_campaign``: another claim by the same
    annotator (a second tab) committed first, and that lease is the answer."""
    current = _own(campaign, annotator).first()
    if current is not None and current.expires_at > now:
        return selectors.assignment_for_annotator(assignment_id=current.pk, annotator=annotator)
    raise ApplicationError(
        "Another claim for you in this campaign was being made at the same moment; try again.",
        code="claim_conflict",
        status_code=409,
    )


def _own(campaign: Campaign, annotator):
    return Assignment.objects.filter(annotator_id=annotator.pk, campaign_id=campaign.pk, status=Assignment.Status.ACTIVE)


def _gold_order(campaign: Campaign, gold_first: bool) -> tuple[bool, ...]:
    """The kinds of pair a claim looks for, in order: gold (True) first when drawn, regular pairs alone when the
    campaign mixes in no gold."""
    return (True, False) if gold_first else (False, True) if campaign.gold_rate > 0 else (False,)


def _claim(*, campaign: Campaign, annotator, now: datetime, order: list[bool]) -> Assignment | None:
    """Runs inside a transaction (the write lock on SQLite), after leases that are due were expired; where the
    store's statements are atomic and none was due, alone."""
    for gold in order:
        assignment = store().lease(campaign=campaign, annotator=annotator, gold=gold, now=now)
        if assignment is not None:
            return assignment
    return None


def _lock_due(*, campaign_id: int | None, now: datetime, limit: int, wait: bool = False) -> list[int]:
    """Lock up to ``limit`` active leases past their time, oldest first; rows another transaction holds are
    skipped, or with ``wait`` waited for (then re-checked: one that transaction expired is not returned)."""
    due = Assignment.objects.filter(status=Assignment.Status.ACTIVE, expires_at__lte=now)
    if campaign_id is not None:
        due = due.filter(campaign_id=campaign_id)
    locking = due.order_by("expires_at", "pk").select_for_update(skip_locked=not wait)
    return list(locking.values_list("pk", flat=True)[:limit])


def _expire_locked(*, ids: list[int], now: datetime, **detail) -> int:
    """Expire the given active assignments and return their slots; ``detail`` joins each event's. Precondition:
    their rows are locked."""
    if not ids:
        return 0
    locked = Assignment.objects.filter(pk__in=ids, status=Assignment.Status.ACTIVE)
    rows = list(locked.only("pk", "pair_id", "campaign_id", "annotator_id", "expires_at"))
    locked.update(status=Assignment.Status.EXPIRED, finished_at=now)
    pair_counters_recount(pair_ids=[row.pair_id for row in rows])
    AssignmentEvent.objects.bulk_create(
        AssignmentEvent(
            assignment_id=row.pk,
            campaign_id=row.campaign_id,
            annotator_id=row.annotator_id,
            kind=AssignmentEvent.Kind.EXPIRE,
            at=now,
            detail={"expired_at": row.expires_at.isoformat(), **detail},
        )
        for row in rows
    )
    return len(rows)


def pair_counters_recount(*, pair_ids: list[int]) -> None:
    """Set each pair's counters to what its rows say: ``active_claims`` its live leases, ``annotations_done`` its
    stored answers (imported ones included). A counter derived so can never go below zero or drift, whatever
    happened before.

    Precondition: inside a transaction. The pairs are locked here first, in ascending id order (so two callers never
    wait on each other in a cycle), and counted in the next statement, whose snapshot then holds every claim and
    submission committed on them: one still running holds its pair's lock, and adds or takes its own one after this.
    """
    ids = sorted(set(pair_ids))
    if not ids:
        return
    list(Pair.objects.filter(pk__in=ids).order_by("pk").select_for_update().values_list("pk", flat=True))
    live = (Assignment.objects.filter(pair_id=OuterRef("pk"), status=Assignment.Status.ACTIVE)
            .values("pair_id").annotate(n=Count("pk")).values("n"))
    stored = Annotation.objects.filter(pair_id=OuterRef("pk")).values("pair_id").annotate(n=Count("pk")).values("n")
    done = Coalesce(Subquery(stored), 0)
    Pair.objects.filter(pk__in=ids).update(
        active_claims=Coalesce(Subquery(live), 0), annotations_done=done, status=status_following_counts(done=done)
    )


def assignments_expire(*, now: datetime | None = None) -> int:
    """Expire every lease past its time, in batches of short transactions; returns how many expired."""
    now = now or timezone.now()
    total = 0
    while True:
        with transaction.atomic():
            expired = _expire_locked(ids=_lock_due(campaign_id=None, now=now, limit=EXPIRY_BATCH), now=now)
        total += expired
        if expired < EXPIRY_BATCH:
            return total


@transaction.atomic
def assignments_release(*, annotator: User, reason: str, now: datetime | None = None,
                        campaign: Campaign | None = None) -> int:
    """End every live lease of ``annotator`` (in ``campaign`` only, when given) now, before its time (their account
    was deactivated, say): each is expired, its slot goes to someone else, its event says ``released`` with the
    reason. Returns how many."""
    now = now or timezone.now()
    live = Assignment.objects.filter(annotator=annotator, status=Assignment.Status.ACTIVE).order_by("pk")
    if campaign is not None:
        live = live.filter(campaign_id=campaign.pk)
    ids = list(live.select_for_update().values_list("pk", flat=True))
    return _expire_locked(ids=ids, now=now, released=reason)


def _locked_own(assignment: Assignment, annotator) -> Assignment:
    """The assignment's row, locked, with its pair and campaign (404 unless the annotator's, in a campaign they are
    still a member of). Precondition: inside a transaction."""
    return store().locked_own(assignment, annotator)


@transaction.atomic
def assignment_save_draft(*, assignment: Assignment, annotator: User, values: dict, now: datetime | None = None) -> Assignment:
    """Store answers as shown on screen (partial answers allowed); a live lease is renewed by the work."""
    now = now or timezone.now()
    locked = _locked_own(assignment, annotator)
    if not isinstance(values, dict):
        raise ApplicationError("A draft is an object keyed by question id.", code="invalid_draft")
    known = {q["id"] for q in locked.campaign.rating_schema.definition["questions"]}
    unknown = sorted(set(values) - known)
    if unknown:
        named = schemas.shown_names(unknown)
        more = f" and {len(unknown) - len(named):,} more" if len(unknown) > len(named) else ""
        raise ApplicationError(
            f"Unknown question(s) in the draft: {', '.join(named)}{more}.", code="invalid_draft",
            extra={"fields": named, "unknown": len(unknown)},
        )
    if len(json.dumps(values)) > DRAFT_MAX_BYTES:
        raise ApplicationError(f"A draft may hold at most {DRAFT_MAX_BYTES:,} bytes.", code="draft_too_large")
    if locked.status in (Assignment.Status.SUBMITTED, Assignment.Status.SKIPPED):
        raise ApplicationError(
            f"This assignment is already {locked.status}; the draft was not saved.", code="assignment_closed", status_code=409
        )
    locked.draft = values
    locked.draft_saved_at = now
    fields = ["draft", "draft_saved_at"]
    if locked.status == Assignment.Status.ACTIVE and locked.expires_at > now:
        # The work renews a live lease as a renewal does, within the campaign's longest lease; a lease already due
        # keeps the draft but is not revived (the rater claims again: ``assignment_renew(reclaim=True)``).
        renewed = min(now + timedelta(minutes=locked.campaign.lease_minutes), lease_renewable_until(locked))
        if renewed > locked.expires_at:
            locked.expires_at = renewed
            fields.append("expires_at")
    locked.save(update_fields=fields)
    _record(locked, AssignmentEvent.Kind.DRAFT, now, answered=len(values))
    return locked


# How long a lease may last in all, counted from its claim, when the campaign sets no ``lease_max_minutes``: in units
# of its lease_minutes. An active tab renews (assignment_renew, and the drafts it saves) up to claimed_at + that, and
# no further, so that a tab left open does not hold a slot for ever.
LEASE_RENEWALS_MAX = 4


def lease_renewable_until(assignment: Assignment) -> datetime:
    """The latest time the lease of ``assignment`` may be renewed to: its claim + the campaign's longest lease."""
    campaign = assignment.campaign
    return assignment.claimed_at + timedelta(minutes=campaign.lease_max_minutes or LEASE_RENEWALS_MAX * campaign.lease_minutes)


@transaction.atomic
def assignment_renew(*, assignment: Assignment, annotator: User, reclaim: bool = False,
                     now: datetime | None = None) -> Assignment:
    """Extend the annotator's live lease to ``now`` + the campaign's lease_minutes, never beyond
    ``lease_renewable_until`` (a renewal there changes nothing). Holds the assignment's row lock.

    A lease past its time (expired, or still marked active but due) is refused with ``lease_expired`` (409), unless
    ``reclaim``: the rater asks for the pair again, and gets it for another lease time while its slot is still free
    (``lease_taken`` when it went to someone else, ``lease_elsewhere`` when they hold another pair of the campaign
    now). A submitted or skipped assignment is refused with ``assignment_closed``, a withdrawn one with
    ``assignment_withdrawn``; another annotator's is not found (404)."""
    now = now or timezone.now()
    locked = _locked_own(assignment, annotator)
    if locked.status == Assignment.Status.WITHDRAWN:
        raise ApplicationError("You withdrew your answer to this pair; there is no lease to renew.",
                               code="assignment_withdrawn", status_code=409)
    if locked.status in (Assignment.Status.SUBMITTED, Assignment.Status.SKIPPED):
        raise ApplicationError(f"This assignment is already {locked.status}; there is no lease to renew.",
                               code="assignment_closed", status_code=409)
    lease_minutes = locked.campaign.lease_minutes
    if locked.status == Assignment.Status.EXPIRED or locked.expires_at <= now:
        if not reclaim:
            raise ApplicationError("Your time on this pair ran out; claim it again if its slot is still free.",
                                   code="lease_expired", status_code=409)
        _reclaim(locked, now=now)
        return locked
    renewed = min(now + timedelta(minutes=lease_minutes), lease_renewable_until(locked))
    if renewed > locked.expires_at:
        locked.expires_at = renewed
        locked.save(update_fields=["expires_at"])
    return locked


def _reclaim(locked: Assignment, *, now: datetime) -> None:
    """The lease of ``locked``, whose time ran out, again for one lease time while its pair has a free slot.
    Precondition: holds the assignment's row lock."""
    if locked.status == Assignment.Status.EXPIRED:
        if Assignment.objects.filter(annotator_id=locked.annotator_id, campaign_id=locked.campaign_id,
                                     status=Assignment.Status.ACTIVE).exists():
            raise ApplicationError("You hold another pair of this campaign now; finish that one first.",
                                   code="lease_elsewhere", status_code=409)
        # Its slot went back to the pool when it expired: take it again only while the pair has room.
        taken = Pair.objects.filter(PAIR_CLAIMABLE, pk=locked.pair_id).update(active_claims=F("active_claims") + 1)
        if taken != 1:
            raise ApplicationError("Your time on this pair ran out and its slot went to someone else.",
                                   code="lease_taken", status_code=409)
        locked.status = Assignment.Status.ACTIVE
    locked.expires_at = now + timedelta(minutes=locked.campaign.lease_minutes)
    locked.save(update_fields=["status", "expires_at"])
    _record(locked, AssignmentEvent.Kind.CLAIM, now, reclaim=True)


def _idempotency_key(assignment: Assignment, key: str) -> str:
    if not isinstance(key, str) or not key.strip():
        raise ApplicationError("An idempotency key is required (header Idempotency-Key).", code="idempotency_key_required")
    if len(key) > IDEMPOTENCY_KEY_MAX:
        raise ApplicationError(
            f"The idempotency key may have at most {IDEMPOTENCY_KEY_MAX} characters.", code="invalid_idempotency_key"
        )
    # Scoped to the assignment it submits: a key names one request to store one assignment's answer, so the same
    # key sent for another assignment (a client that reuses keys) is another request, never a conflict.
    return f"{assignment.pk}:{key.strip()}"


# The statuses an assignment can be submitted from: a live lease, or one that expired while its pair still has room.
OPEN = (Assignment.Status.ACTIVE, Assignment.Status.EXPIRED)


def _refuse_closed(status: str) -> None:
    """Refuse a submission of an assignment that has no stored answer and is not open: it was skipped or withdrawn
    (its slot already went back to the queue, and may be someone else's now)."""
    if status == Assignment.Status.SKIPPED:
        raise ApplicationError(
            "You skipped this pair; it can no longer be submitted.", code="assignment_skipped", status_code=409
        )
    if status not in OPEN:
        raise ApplicationError(
            "You withdrew your answer to this pair; it can no longer be submitted, and its slot went back to the "
            "queue.", code="assignment_withdrawn", status_code=409,
        )


def annotation_submit(
    *,
    assignment: Assignment,
    annotator: User,
    values: dict,
    time_on_item_ms: int | None,
    idempotency_key: str,
    now: datetime | None = None,
    media_played: dict | None = None,
    confirm_warnings: bool = False,
) -> Annotation:
    """Store the answers (given as shown: left = "A") in canonical orientation; a repeat returns the same annotation.

    A lease that expired may still be submitted while its pair has a free slot; otherwise the
    submission is refused with ``lease_expired`` and nothing is stored. Only ``assignment.pk`` is read:
    the row is checked to be ``annotator``'s here (404 otherwise), so a caller need not load it.

    On PostgreSQL outside a transaction the submission first goes without one: an unlocked read, then
    one statement that writes everything only if the assignment's status is still the one read (it locks
    the row to check). What that read decides alone cannot change under it (whose the assignment is, the
    schema's verdict on the answers). If the assignment was already closed (a repeat, a skip) or its
    status moved before the write (a double submit, an expiry, a skip at the same moment), nothing was
    written and the submission runs again in a transaction holding the row lock from the start, as it
    always does elsewhere. Two round trips instead of four (BEGIN, the locked read, the write, COMMIT).

    ``media_played``: the share of each medium heard or watched, as shown ("A" is the left response; "prompt"),
    stored canonical. A campaign that ``requires_full_playback`` refuses a submission short of
    annotation.workqueue.playback.FULL_PLAYBACK_TOLERANCE on any of its kind's media with ``media_not_played``.

    ``confirm_warnings``: the rater was shown the soft warnings for these answers (``annotation.workqueue.consistency``)
    and submits them as they are; the warnings, as found here and worded as shown, are stored on the annotation.
    """
    now = now or timezone.now()
    key = _idempotency_key(assignment, idempotency_key)
    submission: dict[str, Any] = {
        "assignment": assignment, "annotator": annotator, "values": values, "time_on_item_ms": time_on_item_ms,
        "key": key, "now": now, "media_played": media_played, "confirm_warnings": confirm_warnings}
    annotation = None
    if store().statements_atomic and not connection.in_atomic_block:
        try:
            annotation = _submit(**submission, lock=False)
        except AssignmentChanged:
            pass
    if annotation is None:
        with transaction.atomic():
            annotation = _submit(**submission, lock=True)
    if annotation.gold_correct is not None:
        # A gold answer moves the rater's gold score: the pause rule reads it (only gold submissions pay for it).
        from annotation.workqueue.services.qualification import gold_pause_review

        gold_pause_review(pair_id=annotation.pair_id, annotator=annotator, now=now)
    return annotation


def _submit(*, assignment: Assignment, annotator, values, time_on_item_ms, key: str, now: datetime, lock: bool,
            media_played: dict | None = None, confirm_warnings: bool = False):
    """Precondition: inside a transaction when ``lock``; else outside one, with a store whose statements are atomic."""
    held, earlier = store().submission_read(assignment, annotator, lock=lock)
    if not lock and held.status not in OPEN:
        raise AssignmentChanged  # submitted (a repeat), skipped or withdrawn: the locked read, with its lookup, answers
    if earlier is not None:
        return earlier  # a repeat (the answer stored for this assignment), whatever its key
    _refuse_closed(held.status)
    if time_on_item_ms is not None and not (
        type(time_on_item_ms) is int and 0 <= time_on_item_ms <= TIME_ON_ITEM_MAX_MS
    ):
        raise ApplicationError(
            "time_on_item_ms must be a whole number of milliseconds within a day.", code="invalid_time_on_item"
        )
    definition = held.definition
    errors = schemas.validate_answers(definition, values, criteria=[c for c in held.criteria if isinstance(c, str)] or None)
    if errors:
        raise ApplicationError("Some answers are missing or invalid.", code="invalid_answers", extra={"fields": errors})
    played = media_played_canonical(media_played, swapped=held.swapped)
    if held.requires_full_playback:
        refuse_short_playback(played, kind=held.kind, swapped=held.swapped)

    canonical = schemas.reorient(definition, values, swapped=held.swapped)
    rationale = canonical.get("rationale")
    was_expired = held.status == Assignment.Status.EXPIRED
    fields = {
        "values": canonical,
        "shown_swapped": held.swapped,
        "rationale": rationale if isinstance(rationale, str) else "",
        "time_on_item_ms": time_on_item_ms,
        "media_played": played,
        "gold_correct": gold_matches(definition, held.gold_answer, canonical) if held.is_gold else None,
        # Only asked for when the rater confirmed: the check costs nothing on the usual submit.
        "confirmed_warnings": (consistency.warnings(definition, values) or None) if confirm_warnings else None,
        "idempotency_key": key,
    }
    annotation = store().submission_write(held=held, annotator=annotator, fields=fields, was_expired=was_expired, now=now)
    if annotation is None:
        raise ApplicationError(
            "Your lease on this pair expired and its slot went to someone else; your answers were not stored.",
            code="lease_expired",
            status_code=409,
        )
    return annotation


@transaction.atomic
def assignment_skip(*, assignment: Assignment, annotator: User, reason: str, now: datetime | None = None) -> Assignment:
    """Give the pair back with a reason; its slot goes to someone else. Skipping twice changes nothing more."""
    now = now or timezone.now()
    reason = reason.strip() if isinstance(reason, str) else ""
    if not reason:
        raise ApplicationError("Say why you skip this pair.", code="reason_required")
    if len(reason) > SKIP_REASON_MAX:
        raise ApplicationError(f"Keep the reason under {SKIP_REASON_MAX} characters.", code="reason_too_long")
    locked = _locked_own(assignment, annotator)
    if locked.status == Assignment.Status.SKIPPED:
        return locked
    if locked.status == Assignment.Status.SUBMITTED:
        raise ApplicationError("This pair was already submitted.", code="assignment_closed", status_code=409)
    if locked.status == Assignment.Status.WITHDRAWN:
        raise ApplicationError("You withdrew your answer to this pair; there is nothing left to skip.",
                               code="assignment_withdrawn", status_code=409)
    was = locked.status
    locked.status = Assignment.Status.SKIPPED
    locked.skip_reason = reason
    locked.finished_at = now
    locked.save(update_fields=["status", "skip_reason", "finished_at"])
    if was == Assignment.Status.ACTIVE:
        pair_counters_recount(pair_ids=[locked.pair_id])
    _record(locked, AssignmentEvent.Kind.SKIP, now, reason=reason, after_expiry=was == Assignment.Status.EXPIRED)
    return locked
