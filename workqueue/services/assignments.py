"""The work queue: claim the next pair, save a draft, submit, skip, and return expired leases.

Invariants (each held by the database, not by the callers' good manners):

- an annotator never gets the same pair twice: ``assignment_once_per_annotator``;
- a pair never has more live claims plus annotations than its overlap: the claim increments
  ``Pair.active_claims`` only while ``active_claims + annotations_done < required_annotations``
  on a locked row, and ``pair_claims_within_overlap`` checks it again;
- an annotator holds at most one lease per campaign: ``assignment_one_active_per_campaign``.

On PostgreSQL the claim is one statement around ``SELECT … FOR UPDATE SKIP LOCKED LIMIT 1`` reading the
top of the partial index ``pair_claim_idx`` (see claim_sql), so concurrent annotators take different pairs
without waiting and the cost grows neither with the pool nor with the annotator's own backlog. On SQLite
every transaction begins IMMEDIATE (see settings), which takes the database's write lock at BEGIN and
serializes claims.
"""

from __future__ import annotations

import functools
import json
import random
from collections import Counter
from contextlib import nullcontext
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db import IntegrityError, connection, transaction
from django.db.models import Case, Exists, F, OuterRef, Q, Subquery, Value, When
from django.utils import timezone

from accounts.sessions import Companion
from catalogue import schemas
from catalogue.models import PAIR_CLAIMABLE, PAIR_SLOTS_TAKEN, Campaign, Pair, RatingSchema
from core import rows
from core.errors import ApplicationError
from workqueue import selectors
from workqueue.models import Annotation, Assignment, AssignmentEvent
from workqueue.playback import media_played_canonical, refuse_short_playback
from workqueue.rules import gold_matches, orientation_swapped
from workqueue.selectors import STILL_MEMBER, still_member

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from accounts.models import User

LAZY_EXPIRY_BATCH = 20
EXPIRY_BATCH = 500
IDEMPOTENCY_KEY_MAX = 64
SKIP_REASON_MAX = 500
DRAFT_MAX_BYTES = 200_000
TIME_ON_ITEM_MAX_MS = 24 * 3600 * 1000

_rng = random.SystemRandom()


def _record(assignment: Assignment, kind: str, at: datetime, **detail) -> AssignmentEvent:
    return AssignmentEvent.objects.create(
        assignment_id=assignment.pk,
        campaign_id=assignment.campaign_id,
        annotator_id=assignment.annotator_id,
        kind=kind,
        at=at,
        detail=detail,
    )


_CAMPAIGN_PART = [rows.part("c", Campaign)]


def _membership_sql(campaign_by: str, annotator: str = "%(annotator)s") -> str:
    """The campaign's row, whether the annotator is a member, their open lease and whether any lease is due."""
    members = Campaign.members.through._meta
    m_campaign, m_user = members.get_field("campaign").column, members.get_field("user").column
    table = Assignment._meta.db_table
    own = f"FROM {table} WHERE annotator_id = {annotator} AND campaign_id = c.id AND status = 'active' LIMIT 1"
    return (
        f"SELECT {rows.select_list(_CAMPAIGN_PART)}, m.{m_user} IS NOT NULL, (SELECT id {own}), "
        f"(SELECT expires_at {own}), EXISTS (SELECT 1 FROM {table} WHERE campaign_id = c.id AND status = 'active' "
        f"AND expires_at <= %(now)s) FROM {Campaign._meta.db_table} c LEFT JOIN {members.db_table} m "
        f"ON m.{m_campaign} = c.id AND m.{m_user} = {annotator} WHERE c.{campaign_by} = %(campaign)s"
    )


# The ORM queries of the SQLite branch below, written by hand for PostgreSQL: compiling them cost more
# CPU than running them, on every claim. The campaign comes in the same round trip.
MEMBERSHIP_SQL = {"id": _membership_sql("id"), "slug": _membership_sql("slug")}
# The same read for the signed-in user, to ride on the session's statement (accounts.sessions.Companion).
_MEMBERSHIP_COMPANION_SQL = _membership_sql("slug", annotator="signed_in.id")


def membership_companion(*, slug: str, now: datetime) -> Companion:
    """The read ``assignment_claim_by_slug`` starts with, for the session's statement; hand its columns back as
    ``read`` with the same ``now``."""
    return Companion(_MEMBERSHIP_COMPANION_SQL, {"campaign": slug, "now": now})


def assignment_claim(*, campaign: Campaign, annotator: User, now: datetime | None = None,
                     rng: random.Random | None = None) -> Assignment | None:
    """The annotator's current lease in ``campaign`` if it is still valid, else a new lease on the next pair.

    Returns None when the campaign is not active or no pair is left for this annotator. Only members
    get work (ApplicationError 403). The lease comes with what ``selectors.pair_display`` reads loaded.
    ``rng`` decides whether this claim looks for a gold pair first (probability ``campaign.gold_rate``);
    tests pass a seeded one.
    """
    now = now or timezone.now()
    if connection.vendor == "postgresql":
        _, membership = _membership_postgresql(by="id", campaign=campaign.pk, annotator=annotator, now=now)
    else:
        membership = _membership_portable(campaign=campaign, annotator=annotator, now=now)
    return _claim_for_member(campaign=campaign, annotator=annotator, membership=membership, now=now, rng=rng)


def assignment_claim_by_slug(
    *, slug: str, annotator: User, now: datetime | None = None, rng: random.Random | None = None, read: tuple | None = None
) -> Assignment | None:
    """``assignment_claim`` for the campaign ``slug`` (ApplicationError 404 when there is none).

    On PostgreSQL the campaign is read in the membership statement: one round trip less per claim. ``read`` is
    that statement's answer when it was already read with the session (``membership_companion``, same ``now``).
    """
    now = now or timezone.now()
    if connection.vendor == "postgresql":
        campaign, membership = _membership_postgresql(by="slug", campaign=slug, annotator=annotator, now=now, row=read)
    else:
        campaign = Campaign.objects.filter(slug=slug).first()
        membership = None if campaign is None else _membership_portable(campaign=campaign, annotator=annotator, now=now)
    if campaign is None:
        raise ApplicationError("No such campaign.", code="not_found", status_code=404)
    return _claim_for_member(campaign=campaign, annotator=annotator, membership=membership, now=now, rng=rng)


def _membership_postgresql(*, by: str, campaign, annotator, now: datetime, row: tuple | None = None):
    """(campaign, (open lease id, its expiry, any lease due)), the second None for a non-member; ``row``: the
    statement's answer read already (all None for no campaign)."""
    if row is None:
        with connection.cursor() as cursor:
            cursor.execute(MEMBERSHIP_SQL[by], {"campaign": campaign, "annotator": annotator.pk, "now": now})
            row = cursor.fetchone()
    if row is None or row[0] is None:
        return None, None
    width = len(_CAMPAIGN_PART[0][2])
    found = rows.instances(row[:width], _CAMPAIGN_PART)["c"]
    is_member, *membership = row[width:]
    return found, (tuple(membership) if is_member else None)


def _membership_portable(*, campaign: Campaign, annotator, now: datetime) -> tuple | None:
    own = _own(campaign, annotator)
    due = Assignment.objects.filter(campaign_id=campaign.pk, status=Assignment.Status.ACTIVE, expires_at__lte=now)
    return (
        Campaign.members.through.objects.filter(campaign_id=campaign.pk, user_id=annotator.pk)
        .values_list(Subquery(own.values("pk")[:1]), Subquery(own.values("expires_at")[:1]), Exists(due))
        .first()
    )


def _claim_for_member(*, campaign: Campaign, annotator, membership: tuple | None, now: datetime, rng):
    if membership is None:
        raise ApplicationError("You are not a member of this campaign.", code="not_a_member", status_code=403)
    if campaign.status != Campaign.Status.ACTIVE:
        return None
    current_id, current_expires_at, any_due = membership
    if current_id is not None and current_expires_at > now:
        return selectors.assignment_for_annotator(assignment_id=current_id, annotator=annotator)
    gold_first = campaign.gold_rate > 0 and (rng or _rng).random() < campaign.gold_rate
    # Each PostgreSQL claim statement is atomic on its own: with nothing to expire, outside any transaction,
    # it needs none (BEGIN and COMMIT are two round trips of the four a claim had). SQLite needs the
    # transaction for its write lock.
    alone = connection.vendor == "postgresql" and not any_due and not connection.in_atomic_block
    try:
        with nullcontext() if alone else transaction.atomic():
            if any_due:
                due_ids = _lock_due(campaign_id=campaign.pk, now=now, limit=LAZY_EXPIRY_BATCH)
                if current_id is not None and current_id not in due_ids:
                    # The annotator's own stale lease must go whatever the batch, or the new lease cannot be written.
                    stale = _own(campaign, annotator).filter(pk=current_id).select_for_update()
                    due_ids += list(stale.values_list("pk", flat=True))
                _expire_locked(ids=due_ids, now=now)
            claimed = _claim(campaign=campaign, annotator=annotator, now=now, gold_first=gold_first)
        if claimed is None and any_due:
            # The due leases skipped above may belong to another claim that is expiring them: their slots
            # are not back until it commits, so "nothing left" would be premature. Wait for it (holding no
            # other lock, rows taken in one order) and look once more.
            with transaction.atomic():
                _expire_locked(ids=_lock_due(campaign_id=campaign.pk, now=now, limit=LAZY_EXPIRY_BATCH, wait=True), now=now)
                claimed = _claim(campaign=campaign, annotator=annotator, now=now, gold_first=gold_first)
        return claimed
    except IntegrityError:
        # Another claim by the same annotator (a second tab) committed first: that lease is the answer.
        current = _own(campaign, annotator).first()
        if current is not None and current.expires_at > now:
            return selectors.assignment_for_annotator(assignment_id=current.pk, annotator=annotator)
        raise ApplicationError(
            "Another claim for you in this campaign was being made at the same moment; try again.",
            code="claim_conflict",
            status_code=409,
        ) from None


def _own(campaign: Campaign, annotator):
    return Assignment.objects.filter(annotator_id=annotator.pk, campaign_id=campaign.pk, status=Assignment.Status.ACTIVE)


def _claim(*, campaign: Campaign, annotator, now: datetime, gold_first: bool) -> Assignment | None:
    """Runs inside a transaction (the write lock on SQLite), after leases that are due were expired."""
    order = (True, False) if gold_first else (False, True) if campaign.gold_rate > 0 else (False,)
    lease = _lease_postgresql if connection.vendor == "postgresql" else _lease_portable
    for gold in order:
        assignment = lease(campaign=campaign, annotator=annotator, gold=gold, now=now)
        if assignment is not None:
            return assignment
    return None


# The claim in one round trip: pick this annotator's next pair (skipping rows other claims hold), take
# a slot, write the lease and its event, and read what the display needs of the pair (the rows written
# are not read back: the lease's are known). The orientation bit is assignment_rules.orientation_swapped
# in SQL. Every WHERE repeats PAIR_CLAIMABLE verbatim, so the planner matches the partial indexes, and so
# a row another claim updated is checked again once locked.
#
# The pick follows pair_claim_idx's order without paying for the annotator's own backlog: the pairs they
# annotated that still wait for others sit at the top of that index (breadth-first puts pairs in progress
# first), so "the first entry this annotator never had" could mean walking thousands of their own.
#  1. The first of the top CLAIM_HEAD entries of pair_claim_idx that they never had. Usually the very
#     first: one entry, one probe. A subquery (not a CTE) keeps the head's order known to the planner,
#     so it walks lazily and stops at the first hit.
#  2. If the head holds nothing for them and is full (its last entry has priority `floor`), the first
#     untouched pair (no claim, no annotation: `pair_fresh_idx`) of priority `floor` or above. A pair in
#     progress further down the same priority, which they never had, is left to the others: the only
#     way this pick differs from the plain walk of pair_claim_idx, and only for an annotator whose own
#     backlog fills the head.
#  3. Else the plain walk of pair_claim_idx (the end of a priority's fresh pairs, or of the campaign).
# OFFSET 0 keeps "never had it" a per-candidate probe of the (pair, annotator) unique index: left to
# itself the planner may turn it into an anti join that reads all of the annotator's assignments.
#
# The head's size is written into the statement, not passed as a parameter: with a parameter in LIMIT
# and OFFSET, PostgreSQL's generic plan for the prepared statement looks costlier than a plan made for
# the values at hand (it assumes a LIMIT of a tenth of the rows), so it planned the statement anew on
# every claim, and planning cost more than running it (1.0 of 1.7 ms of database CPU per claim).
_NEVER_HAD = (
    "NOT EXISTS (SELECT 1 FROM annotation_assignment a"
    " WHERE a.pair_id = p.id AND a.annotator_id = %(annotator)s OFFSET 0)"
)
_CLAIMABLE = (
    "p.campaign_id = %(campaign)s AND p.is_gold = %(gold)s AND p.status = 'queued'"
    " AND (p.active_claims + p.annotations_done) < p.required_annotations"
)
_CLAIM_ORDER = "p.priority DESC, (p.active_claims + p.annotations_done) DESC, p.id"
CLAIM_HEAD = 32

_CLAIM_TEMPLATE = """
WITH floor AS (
    SELECT p.priority FROM annotation_pair p WHERE CLAIMABLE ORDER BY CLAIM_ORDER OFFSET HEAD_LAST LIMIT 1
), picked AS (
    SELECT COALESCE(
        (SELECT p.id
         FROM (SELECT p.id, p.priority, (p.active_claims + p.annotations_done) AS taken FROM annotation_pair p
               WHERE CLAIMABLE ORDER BY CLAIM_ORDER LIMIT HEAD_SIZE) head
         JOIN annotation_pair p ON p.id = head.id
         WHERE CLAIMABLE AND NEVER_HAD
         ORDER BY head.priority DESC, head.taken DESC, head.id
         LIMIT 1 FOR UPDATE OF p SKIP LOCKED),
        (SELECT p.id FROM annotation_pair p
         WHERE CLAIMABLE AND p.active_claims = 0 AND p.annotations_done = 0
           AND p.priority >= (SELECT priority FROM floor) AND NEVER_HAD
         ORDER BY p.priority DESC, p.id
         LIMIT 1 FOR UPDATE OF p SKIP LOCKED),
        (SELECT p.id FROM annotation_pair p
         WHERE CLAIMABLE AND NEVER_HAD AND EXISTS (SELECT FROM floor)
         ORDER BY CLAIM_ORDER
         LIMIT 1 FOR UPDATE OF p SKIP LOCKED)
    ) AS id
), taken AS (
    UPDATE annotation_pair p SET active_claims = p.active_claims + 1 FROM picked WHERE p.id = picked.id RETURNING p.id
), leased AS (
    INSERT INTO annotation_assignment
        (pair_id, campaign_id, annotator_id, status, swapped, claimed_at, expires_at, skip_reason, draft)
    SELECT taken.id, %(campaign)s, %(annotator)s, 'active',
           get_byte(sha256(convert_to(%(seed_prefix)s || taken.id::text || %(seed_suffix)s, 'UTF8')), 0) & 1 = 1,
           %(now)s, %(expires)s, '', '{}'::jsonb
    FROM taken
    RETURNING id, pair_id, swapped
), recorded AS (
    INSERT INTO annotation_assignmentevent (assignment_id, campaign_id, annotator_id, kind, at, detail)
    SELECT id, %(campaign)s, %(annotator)s, 'claim', %(now)s, '{}'::jsonb FROM leased
)
SELECT leased.id, leased.pair_id, leased.swapped, DISPLAY_PAIR_COLUMNS FROM leased DISPLAY_PAIR_JOINS
"""
for _name, _text in (
    ("CLAIMABLE", _CLAIMABLE),
    ("CLAIM_ORDER", _CLAIM_ORDER),
    ("NEVER_HAD", _NEVER_HAD),
    ("DISPLAY_PAIR_COLUMNS", selectors.DISPLAY_PAIR_COLUMNS),
    ("DISPLAY_PAIR_JOINS", selectors.DISPLAY_PAIR_JOINS.format(pair="leased.pair_id")),
):
    _CLAIM_TEMPLATE = _CLAIM_TEMPLATE.replace(_name, _text)


@functools.cache
def _claim_sql(head: int) -> str:
    return _CLAIM_TEMPLATE.replace("HEAD_LAST", str(int(head) - 1)).replace("HEAD_SIZE", str(int(head)))


def claim_sql() -> str:
    """The claim statement, for a head of CLAIM_HEAD entries (the bench and the tests EXPLAIN it)."""
    return _claim_sql(CLAIM_HEAD)


def claim_params(*, campaign: Campaign, annotator: User, gold: bool, now: datetime) -> dict:
    """The claim statement's parameters (the bench and the tests EXPLAIN it with them)."""
    return {
        "campaign": campaign.pk,
        "annotator": annotator.pk,
        "gold": gold,
        "seed_prefix": f"{campaign.orientation_seed}:",
        "seed_suffix": f":{annotator.pk}",
        "now": now,
        "expires": now + timedelta(minutes=campaign.lease_minutes),
        "schema": campaign.rating_schema_id,
    }


def _lease_postgresql(*, campaign: Campaign, annotator, gold: bool, now: datetime) -> Assignment | None:
    """Precondition: inside a transaction on PostgreSQL."""
    params = claim_params(campaign=campaign, annotator=annotator, gold=gold, now=now)
    with connection.cursor() as cursor:
        cursor.execute(claim_sql(), params)
        row = cursor.fetchone()
    if row is None:
        return None
    assignment = rows.loaded(
        Assignment, id=row[0], pair_id=row[1], campaign=campaign, annotator=annotator, status=Assignment.Status.ACTIVE,
        swapped=row[2], claimed_at=now, expires_at=params["expires"], finished_at=None, skip_reason="", draft={},
        draft_saved_at=None,
    )
    return selectors.attach_display_rows(assignment, row[3:])


def _lease_portable(*, campaign: Campaign, annotator, gold: bool, now: datetime) -> Assignment | None:
    """The same claim through the ORM. Precondition: inside a transaction that holds the write lock (SQLite)."""
    pair_id = claimable_pairs(campaign=campaign, annotator=annotator, gold=gold).values_list("pk", flat=True).first()
    if pair_id is None:
        return None
    taken = Pair.objects.filter(PAIR_CLAIMABLE, pk=pair_id).update(active_claims=F("active_claims") + 1)
    if taken != 1:
        raise ApplicationError(
            "The pair filled up while it was being claimed; try again.", code="claim_conflict", status_code=409
        )
    assignment = Assignment.objects.create(
        pair_id=pair_id,
        campaign=campaign,
        annotator=annotator,
        status=Assignment.Status.ACTIVE,
        swapped=orientation_swapped(campaign.orientation_seed, pair_id, annotator.pk),
        claimed_at=now,
        expires_at=now + timedelta(minutes=campaign.lease_minutes),
    )
    _record(assignment, AssignmentEvent.Kind.CLAIM, now)
    return selectors.assignment_for_annotator(assignment_id=assignment.pk, annotator=annotator)


def claimable_pairs(*, campaign: Campaign, annotator: User, gold: bool) -> QuerySet[Pair]:
    """The claim's candidates in ``pair_claim_idx`` order, locked with SKIP LOCKED where the database can.

    Precondition: inside a transaction.
    """
    seen = Assignment.objects.filter(pair=OuterRef("pk"), annotator=annotator)
    return (
        Pair.objects.filter(PAIR_CLAIMABLE, campaign=campaign, is_gold=gold)
        .filter(~Exists(seen))
        .order_by(F("priority").desc(), PAIR_SLOTS_TAKEN.desc(), "id")
        .select_for_update(skip_locked=True)
    )


def _lock_due(*, campaign_id: int | None, now: datetime, limit: int, wait: bool = False) -> list[int]:
    """Lock up to ``limit`` active leases past their time, oldest first; rows another transaction holds are
    skipped, or with ``wait`` waited for (then re-checked: one that transaction expired is not returned)."""
    due = Assignment.objects.filter(status=Assignment.Status.ACTIVE, expires_at__lte=now)
    if campaign_id is not None:
        due = due.filter(campaign_id=campaign_id)
    locking = due.order_by("expires_at", "pk").select_for_update(skip_locked=not wait)
    return list(locking.values_list("pk", flat=True)[:limit])


def _expire_locked(*, ids: list[int], now: datetime) -> int:
    """Expire the given active assignments and return their slots. Precondition: their rows are locked."""
    if not ids:
        return 0
    locked = Assignment.objects.filter(pk__in=ids, status=Assignment.Status.ACTIVE)
    rows = list(locked.only("pk", "pair_id", "campaign_id", "annotator_id", "expires_at"))
    locked.update(status=Assignment.Status.EXPIRED, finished_at=now)
    # Pairs in ascending id order, so two expiries running at once never wait on each other in a cycle.
    for pair_id, count in sorted(Counter(row.pair_id for row in rows).items()):
        Pair.objects.filter(pk=pair_id).update(active_claims=F("active_claims") - count)
    AssignmentEvent.objects.bulk_create(
        AssignmentEvent(
            assignment_id=row.pk,
            campaign_id=row.campaign_id,
            annotator_id=row.annotator_id,
            kind=AssignmentEvent.Kind.EXPIRE,
            at=now,
            detail={"expired_at": row.expires_at.isoformat()},
        )
        for row in rows
    )
    return len(rows)


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


# _locked_own on PostgreSQL: the same rows and lock as the ORM query below, every column, written by hand
# (compiling that select_related query cost more CPU than the rest of a submission).
_LOCKED_PARTS = [rows.part("a", Assignment), rows.part("p", Pair), rows.part("c", Campaign), rows.part("s", RatingSchema)]
_LOCKED_FROM = (
    f"FROM {Assignment._meta.db_table} a "
    f"JOIN {Pair._meta.db_table} p ON p.id = a.pair_id JOIN {Campaign._meta.db_table} c ON c.id = a.campaign_id "
    f"JOIN {RatingSchema._meta.db_table} s ON s.id = c.rating_schema_id"
)
_LOCKED_WHERE = f"WHERE a.id = %s AND a.annotator_id = %s AND {STILL_MEMBER} FOR UPDATE OF a"
_LOCKED_SQL = f"SELECT {rows.select_list(_LOCKED_PARTS)} {_LOCKED_FROM} {_LOCKED_WHERE}"


def _locked_own(assignment: Assignment, annotator) -> Assignment:
    """The assignment's row, locked, with its pair and campaign. Precondition: inside a transaction."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_LOCKED_SQL, [assignment.pk, annotator.pk])
            row = cursor.fetchone()
        if row is None:
            raise ApplicationError("No such assignment.", code="not_found", status_code=404)
        return _locked_from_row(row)
    locked = (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("pair", "campaign__rating_schema")
        .filter(still_member(), pk=assignment.pk, annotator_id=annotator.pk)
        .first()
    )
    if locked is None:
        raise ApplicationError("No such assignment.", code="not_found", status_code=404)
    return locked


def _locked_from_row(row, parts=_LOCKED_PARTS) -> Assignment:
    built = rows.instances(row, parts)
    built["c"].rating_schema = built["s"]
    built["a"].pair, built["a"].campaign = built["p"], built["c"]
    return built["a"]


# The submission's read: the assignment with what validating the answers needs. Locked, it comes with its
# idempotency lookup in the same round trip (the annotation already stored for this assignment if any, else
# one stored under the same key, for another assignment). Unlocked (the first try outside a transaction) it
# reads no annotation: every statement a connection runs often becomes a prepared statement, and PostgreSQL
# may keep a plan made while the annotation table was nearly empty (a sequential scan) long after it has
# grown, so every submission read the whole table. The unlocked try needs no lookup: an assignment still
# active or expired has no annotation (it is stored with the status change), and a key already used for
# another assignment fails the insert on its unique index.
_EARLIER_PART = rows.part("n", Annotation, ["id", "assignment_id", "created_at"])
_SUBMIT_PARTS = [
    rows.part("a", Assignment, ["id", "pair_id", "campaign_id", "annotator_id", "status", "swapped"]),
    rows.part("p", Pair, ["id", "criteria", "is_gold", "gold_answer"]),
    rows.part("c", Campaign, ["id", "rating_schema_id", "kind", "requires_full_playback"]),
    rows.part("s", RatingSchema, ["id", "definition"]),
]
# By id alone, whose it is checked on the row read, so that it can ride on the session's statement
# (``submission_companion``): joined to the signed-in user there, a plan kept while the table had no statistics
# went from the user to all their assignments (test_assignment_plans).
_READ_SUBMIT_SQL = f"SELECT {rows.select_list(_SUBMIT_PARTS)} {_LOCKED_FROM} WHERE a.id = %(assignment)s AND {STILL_MEMBER}"
_READ_ANNOTATOR = [f.attname for f in _SUBMIT_PARTS[0][2]].index("annotator_id")
_LOCKED_SUBMIT_SQL = (
    f"SELECT {rows.select_list([_EARLIER_PART, *_SUBMIT_PARTS])} {_LOCKED_FROM} "
    f"LEFT JOIN LATERAL (SELECT id, assignment_id, created_at FROM {Annotation._meta.db_table} n WHERE n.assignment_id = a.id "
    f"OR n.idempotency_key = %s ORDER BY n.assignment_id = a.id DESC NULLS LAST LIMIT 1) n ON true "
    f"WHERE a.id = %s AND a.annotator_id = %s AND {STILL_MEMBER} FOR UPDATE OF a"
)


def submission_companion(*, assignment_id: int) -> Companion:
    """The read ``annotation_submit`` starts with, for the session's statement (accounts.sessions.Companion); hand
    its columns back as ``read``."""
    return Companion(_READ_SUBMIT_SQL, {"assignment": assignment_id})


def _locked_for_submit(
    assignment: Assignment, annotator, key: str, lock: bool = True, read: tuple | None = None
) -> tuple[Assignment, Annotation | None]:
    """``_locked_own`` and the earlier annotation of this assignment, or else of this idempotency key, if any.

    Precondition: inside a transaction, unless ``lock`` is false (PostgreSQL only: the read without the lock and
    without the lookup, whose answer is then None; see _READ_SUBMIT_SQL). ``read``: that unlocked read's answer,
    read already with the session (``submission_companion``; all None when it found no row).
    """
    if connection.vendor == "postgresql":
        if lock:
            with connection.cursor() as cursor:
                cursor.execute(_LOCKED_SUBMIT_SQL, [key, assignment.pk, annotator.pk])
                row = cursor.fetchone()
        else:
            if read is None:
                with connection.cursor() as cursor:
                    cursor.execute(_READ_SUBMIT_SQL, {"assignment": assignment.pk})
                    read = cursor.fetchone()
            row = read if read is not None and read[0] is not None and read[_READ_ANNOTATOR] == annotator.pk else None
        if row is None:
            raise ApplicationError("No such assignment.", code="not_found", status_code=404)
        if not lock:
            return _locked_from_row(row, _SUBMIT_PARTS), None
        width = len(_EARLIER_PART[2])
        earlier = rows.instances(row[:width], [_EARLIER_PART])["n"] if row[0] is not None else None
        return _locked_from_row(row[width:], _SUBMIT_PARTS), earlier
    locked = _locked_own(assignment, annotator)
    earlier = sorted(
        Annotation.objects.filter(Q(assignment=locked) | Q(idempotency_key=key)),
        key=lambda annotation: annotation.assignment_id != locked.pk,
    )
    return locked, (earlier[0] if earlier else None)


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
    if locked.status == Assignment.Status.ACTIVE:
        locked.expires_at = now + timedelta(minutes=locked.campaign.lease_minutes)
        fields.append("expires_at")
    locked.save(update_fields=fields)
    _record(locked, AssignmentEvent.Kind.DRAFT, now, answered=len(values))
    return locked


def _idempotency_key(annotator, key: str) -> str:
    if not isinstance(key, str) or not key.strip():
        raise ApplicationError("An idempotency key is required (header Idempotency-Key).", code="idempotency_key_required")
    if len(key) > IDEMPOTENCY_KEY_MAX:
        raise ApplicationError(
            f"The idempotency key may have at most {IDEMPOTENCY_KEY_MAX} characters.", code="invalid_idempotency_key"
        )
    # Scoped to the annotator, so one rater's key can never collide with another's.
    return f"{annotator.pk}:{key.strip()}"


class _AssignmentChanged(Exception):
    """The unlocked try cannot answer (the assignment is closed, or its status changed before the write): nothing
    was written."""


def annotation_submit(
    *,
    assignment: Assignment,
    annotator: User,
    values: dict,
    time_on_item_ms: int | None,
    idempotency_key: str,
    now: datetime | None = None,
    read: tuple | None = None,
    media_played: dict | None = None,
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
    always does elsewhere. Two round trips instead of four (BEGIN, the locked read, the write, COMMIT); one when
    the unlocked read came with the session (``read``, see ``submission_companion``).

    ``media_played``: the share of each medium heard or watched, as shown ("A" is the left response; "prompt"),
    stored canonical. A campaign that ``requires_full_playback`` refuses a submission short of
    workqueue.playback.FULL_PLAYBACK_TOLERANCE on any of its kind's media with ``media_not_played``.
    """
    now = now or timezone.now()
    key = _idempotency_key(annotator, idempotency_key)
    submission = {"assignment": assignment, "annotator": annotator, "values": values, "time_on_item_ms": time_on_item_ms,
                  "key": key, "now": now, "media_played": media_played}
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        try:
            return _submit(**submission, lock=False, read=read)
        except _AssignmentChanged:
            pass
    with transaction.atomic():
        return _submit(**submission, lock=True)


def _submit(*, assignment: Assignment, annotator, values, time_on_item_ms, key: str, now: datetime, lock: bool,
            read: tuple | None = None, media_played: dict | None = None):
    """Precondition: inside a transaction when ``lock``; else on PostgreSQL, outside one."""
    locked, earlier = _locked_for_submit(assignment, annotator, key, lock=lock, read=read)
    if not lock and locked.status not in (Assignment.Status.ACTIVE, Assignment.Status.EXPIRED):
        raise _AssignmentChanged  # submitted (a repeat) or skipped: the locked read, with its lookup, answers
    if earlier is not None and earlier.assignment_id == locked.pk:
        return earlier
    if earlier is not None:
        raise ApplicationError(
            "This idempotency key was already used for another assignment.", code="idempotency_key_reused", status_code=409
        )
    if time_on_item_ms is not None and not (
        type(time_on_item_ms) is int and 0 <= time_on_item_ms <= TIME_ON_ITEM_MAX_MS
    ):
        raise ApplicationError(
            "time_on_item_ms must be a whole number of milliseconds within a day.", code="invalid_time_on_item"
        )
    definition = locked.campaign.rating_schema.definition
    pair = locked.pair
    errors = schemas.validate_answers(definition, values, criteria=[c for c in pair.criteria if isinstance(c, str)] or None)
    if errors:
        raise ApplicationError("Some answers are missing or invalid.", code="invalid_answers", extra={"fields": errors})
    if locked.status == Assignment.Status.SKIPPED:
        raise ApplicationError(
            "You skipped this pair; it can no longer be submitted.", code="assignment_skipped", status_code=409
        )
    played = media_played_canonical(media_played, swapped=locked.swapped)
    if locked.campaign.requires_full_playback:
        refuse_short_playback(played, kind=locked.campaign.kind, swapped=locked.swapped)

    canonical = schemas.reorient(definition, values, swapped=locked.swapped)
    rationale = canonical.get("rationale")
    was_expired = locked.status == Assignment.Status.EXPIRED
    fields = {
        "values": canonical,
        "shown_swapped": locked.swapped,
        "rationale": rationale if isinstance(rationale, str) else "",
        "time_on_item_ms": time_on_item_ms,
        "media_played": played,
        "gold_correct": gold_matches(definition, pair.gold_answer, canonical) if pair.is_gold else None,
        "idempotency_key": key,
    }
    store = _store_postgresql if connection.vendor == "postgresql" else _store_portable
    try:
        annotation = store(assignment=locked, annotator=annotator, fields=fields, was_expired=was_expired, now=now)
    except IntegrityError:
        raise ApplicationError(
            "This idempotency key was already used for another assignment.", code="idempotency_key_reused", status_code=409
        ) from None
    if annotation is None:
        raise ApplicationError(
            "Your lease on this pair expired and its slot went to someone else; your answers were not stored.",
            code="lease_expired",
            status_code=409,
        )
    locked.status = Assignment.Status.SUBMITTED
    locked.finished_at = now
    locked.draft = {}
    return annotation


def _submit_detail(fields: dict, was_expired: bool) -> dict:
    return {"time_on_item_ms": fields["time_on_item_ms"], "gold_correct": fields["gold_correct"], "after_expiry": was_expired}


# The submission's writes in one round trip, only while the assignment's status is still the one the
# submission read (guard, which locks the row): count the annotation on the pair (releasing the lease's
# slot, or, for a lease that expired, only while the pair still has room), completing the pair at
# its overlap; store the annotation; close the assignment; record the event. It answers whether the
# guard held and the annotation's id (none: the pair had no room left for an expired lease).
SUBMIT_SQL = """
WITH guard AS (
    SELECT id FROM annotation_assignment WHERE id = %(assignment)s::bigint AND status = %(status)s::text FOR UPDATE
), counted AS (
    UPDATE annotation_pair SET
        annotations_done = annotations_done + 1,
        active_claims = active_claims - %(release)s::integer,
        status = CASE WHEN status = 'queued' AND required_annotations <= annotations_done + 1
                      THEN 'complete' ELSE status END
    WHERE id = %(pair)s::bigint AND EXISTS (SELECT 1 FROM guard)
      AND (%(release)s::integer = 1
           OR (status = 'queued' AND (active_claims + annotations_done) < required_annotations))
    RETURNING id
), stored AS (
    INSERT INTO annotation_annotation (pair_id, assignment_id, annotator_id, source, rater_label, "values",
        shown_swapped, rationale, time_on_item_ms, media_played, gold_correct, idempotency_key, created_at)
    SELECT id, %(assignment)s::bigint, %(annotator)s::bigint, 'concord', '', %(values)s::jsonb,
        %(shown_swapped)s::boolean, %(rationale)s::text, %(time_on_item_ms)s::integer, %(media_played)s::jsonb,
        %(gold_correct)s::boolean,
        %(idempotency_key)s::text, %(now)s::timestamptz
    FROM counted
    RETURNING id
), closed AS (
    UPDATE annotation_assignment SET status = 'submitted', finished_at = %(now)s::timestamptz, draft = '{}'::jsonb
    WHERE id = %(assignment)s::bigint AND EXISTS (SELECT 1 FROM stored)
), recorded AS (
    INSERT INTO annotation_assignmentevent (assignment_id, campaign_id, annotator_id, kind, at, detail)
    SELECT %(assignment)s::bigint, %(campaign)s::bigint, %(annotator)s::bigint, 'submit', %(now)s::timestamptz,
        %(detail)s::jsonb || jsonb_build_object('annotation', id)
    FROM stored
)
SELECT EXISTS (SELECT 1 FROM guard), (SELECT id FROM stored)
"""


def _store_postgresql(*, assignment: Assignment, annotator, fields: dict, was_expired: bool, now: datetime):
    """Writes only while the assignment's status is still ``assignment.status`` (the statement locks the row to
    check), else raises _AssignmentChanged having written nothing. One statement: atomic alone, or in a transaction."""
    with connection.cursor() as cursor:
        cursor.execute(
            SUBMIT_SQL,
            {
                **fields,
                "values": json.dumps(fields["values"]),
                "media_played": None if fields["media_played"] is None else json.dumps(fields["media_played"]),
                "release": 0 if was_expired else 1,
                "pair": assignment.pair_id,
                "assignment": assignment.pk,
                "annotator": annotator.pk,
                "campaign": assignment.campaign_id,
                "detail": json.dumps(_submit_detail(fields, was_expired)),
                "now": now,
                "status": assignment.status,
            },
        )
        guarded, annotation_id = cursor.fetchone()
    if not guarded:
        raise _AssignmentChanged
    if annotation_id is None:
        return None
    return rows.loaded(
        Annotation, id=annotation_id, pair=assignment.pair, assignment=assignment, annotator=annotator,
        source=Annotation.Source.CONCORD, rater_label="", created_at=now, **fields,
    )


def _store_portable(*, assignment: Assignment, annotator, fields: dict, was_expired: bool, now: datetime):
    """The same writes through the ORM. Precondition: inside a transaction holding the write lock (SQLite)."""
    done = F("annotations_done") + 1
    counted = Pair.objects.filter(PAIR_CLAIMABLE if was_expired else Q(), pk=assignment.pair_id).update(
        annotations_done=done,
        active_claims=F("active_claims") - (0 if was_expired else 1),
        status=Case(
            When(Q(status=Pair.Status.QUEUED) & Q(required_annotations__lte=done), then=Value(Pair.Status.COMPLETE)),
            default=F("status"),
        ),
    )
    if counted != 1:
        return None
    annotation = Annotation.objects.create(
        pair_id=assignment.pair_id, assignment=assignment, annotator=annotator, source=Annotation.Source.CONCORD, **fields
    )
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED, finished_at=now, draft={})
    _record(assignment, AssignmentEvent.Kind.SUBMIT, now, annotation=annotation.pk, **_submit_detail(fields, was_expired))
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
    if locked.status == Assignment.Status.ACTIVE:
        Pair.objects.filter(pk=locked.pair_id).update(active_claims=F("active_claims") - 1)
    was = locked.status
    locked.status = Assignment.Status.SKIPPED
    locked.skip_reason = reason
    locked.finished_at = now
    locked.save(update_fields=["status", "skip_reason", "finished_at"])
    _record(locked, AssignmentEvent.Kind.SKIP, now, reason=reason, after_expiry=was == Assignment.Status.EXPIRED)
    return locked
