"""A pair's place in annotation follows from its counts, decided here and nowhere else.

In annotation a pair is ``complete`` once it holds its ``required_annotations`` and ``queued`` while one is
missing; the database refuses a queued pair with none missing (the ``pair_queued_misses_a_rating`` constraint),
since nobody could claim it. Every write that changes a pair's required or done count, or puts a pair (back)
into annotation, takes the status from here. Statuses the pipeline or a curator set (awaiting the pre-filter,
dropped by it, excluded, awaiting adjudication) are never changed by a count, nor is a curator's adjudication
(complete, with ``ADJUDICATED`` as its reason, whatever its counts).

``submit.sql`` (the PostgreSQL submission, one round trip) writes the same rule for its one case, a count going
up by one, in its own SQL; the constraint holds it to the rule.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Case, Expression, F, Q, QuerySet, Value, When
from django.db.models.functions import Greatest
from django.db.models.lookups import GreaterThanOrEqual, LessThan

from annotation.catalogue.models import Campaign, Pair

DONE = F("annotations_done")
REQUIRED = F("required_annotations")
ADJUDICATED = "adjudicated"


def status_in_annotation(*, done: int, required: int) -> str:
    """The status of a pair in annotation holding ``done`` of its ``required`` ratings (for rows held in memory)."""
    return Pair.Status.COMPLETE if done >= required else Pair.Status.QUEUED


def status_entering_annotation(*, done: Expression | F = DONE, required: Expression | F = REQUIRED) -> Case:
    """The status of a pair put into annotation, in SQL: ``done`` and ``required`` are what the same UPDATE
    writes (the columns, unless it changes them)."""
    return Case(
        When(GreaterThanOrEqual(done, required), then=Value(Pair.Status.COMPLETE)),
        default=Value(Pair.Status.QUEUED),
    )


def status_following_counts(*, done: Expression | F = DONE, required: Expression | F = REQUIRED) -> Case:
    """The status of a pair whose counts become ``done`` and ``required`` in this UPDATE, in SQL: a queued pair
    with all its ratings is complete, a complete pair missing one is queued again (unless a curator adjudicated
    it), any other status stays."""
    return Case(
        When(_stranded(done, required), then=Value(Pair.Status.COMPLETE)),
        When(_short(done, required), then=Value(Pair.Status.QUEUED)),
        default=F("status"),
    )


def _stranded(done, required) -> Q:
    return Q(status=Pair.Status.QUEUED) & Q(GreaterThanOrEqual(done, required))


def _short(done, required) -> Q:
    return Q(status=Pair.Status.COMPLETE) & Q(LessThan(done, required)) & ~Q(status_reason=ADJUDICATED)


def pair_status_refresh(*, pair_ids: Iterable[int]) -> int:
    """Bring the status of each pair in ``pair_ids`` in line with its counts; returns how many changed.

    Precondition: called in the transaction that changed the counts, after the change (the rows it touches are
    locked by that change or by this UPDATE).
    """
    ids = sorted(set(pair_ids))
    if not ids:
        return 0
    out_of_step = _stranded(DONE, REQUIRED) | _short(DONE, REQUIRED)
    return Pair.objects.filter(out_of_step, pk__in=ids).update(status=status_following_counts())


# The pairs a campaign's new overlap can apply to: those awaiting the pre-filter or in annotation, but for a
# curator's adjudication (awaiting or done), which no count changes.
FOLLOW_OVERLAP = Q(status__in=[Pair.Status.PENDING, Pair.Status.QUEUED, Pair.Status.COMPLETE]) & ~Q(
    status=Pair.Status.COMPLETE, status_reason=ADJUDICATED)


def overlap_target(*, before: int, after: int) -> Case:
    """The required count of a pair when its campaign's overlap goes from ``before`` to ``after``, in SQL.

    A pair asking for ``before`` or fewer asks for ``after``; one a curator or a dispute gave more than ``before``
    keeps its own count where that is more than ``after``. A pair never asks for fewer than it holds and has
    leased out, so a lease taken stays a slot.
    """
    target = Case(When(required_annotations__gt=before, then=Greatest(REQUIRED, Value(after))), default=Value(after))
    return Case(When(active_claims__gt=0, then=Greatest(target, F("active_claims") + DONE)), default=target)


def pairs_to_follow_overlap(*, campaign: Campaign, before: int, after: int) -> QuerySet[Pair]:
    """The campaign's pairs whose required count a change of overlap from ``before`` to ``after`` changes."""
    return Pair.objects.filter(FOLLOW_OVERLAP, campaign=campaign).exclude(
        required_annotations=overlap_target(before=before, after=after))


def pairs_overlap_apply(*, campaign: Campaign, before: int, after: int) -> int:
    """Give the campaign's pairs the required count its overlap, changed from ``before`` to ``after``, asks for
    (``overlap_target``), in one UPDATE whose statuses follow the new counts; returns how many pairs changed.

    Precondition: inside the transaction that changes the campaign, holding its row lock.
    """
    target = overlap_target(before=before, after=after)
    return pairs_to_follow_overlap(campaign=campaign, before=before, after=after).update(
        required_annotations=target, status=status_following_counts(required=target))
