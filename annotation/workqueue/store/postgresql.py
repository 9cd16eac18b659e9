"""The work queue's store on PostgreSQL: the hand-written statements of ``annotation/workqueue/sql/``.

A claim is one statement around ``SELECT … FOR UPDATE SKIP LOCKED LIMIT 1`` reading the top of the partial index
``pair_claim_idx`` (``claim.sql``), so concurrent annotators take different pairs without waiting and the cost grows
neither with the pool nor with the annotator's own backlog. A submission is an unlocked read and one write guarded
by the status read. Reasons and figures: docs/decisions/hand-written-claim-and-submit-sql.md.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import connection

from annotation.workqueue import selectors, sql
from annotation.workqueue.models import Annotation, Assignment
from annotation.workqueue.store import AssignmentChanged, ClaimRead, SubmissionRead, submit_detail
from core import rows
from core.errors import ApplicationError

if TYPE_CHECKING:
    from annotation.accounts.models import User
    from annotation.catalogue.models import Campaign

# The claim's head: how many entries of pair_claim_idx it reads first (claim.sql, docs/assignment.md).
CLAIM_HEAD = 32


def claim_sql(by: str = "id") -> str:
    """The claim statement (``annotation/workqueue/sql/claim.sql``), the campaign found by ``id`` or ``slug``, for a
    head of CLAIM_HEAD entries (the bench and the tests EXPLAIN it)."""
    return sql.statement("claim", campaign_by={"id": "id", "slug": "slug"}[by], head_size=CLAIM_HEAD,
                         head_last=CLAIM_HEAD - 1)


def claim_params(*, campaign: int | str, annotator: User, now: datetime, draw: float = 1.0, gold: bool | None = None,
                 due_expired: bool = False) -> dict:
    """The claim statement's parameters: ``campaign`` its id or slug, ``gold`` the kind of pair (None: the
    ``draw``'s), ``due_expired`` when the caller has expired the campaign's due leases, and so has passed the entry
    gate (``gate_passed``) after the statement's first read (the bench and the tests EXPLAIN it with them)."""
    return {"campaign": campaign, "annotator": annotator.pk, "now": now, "draw": draw, "gold": gold,
            "due_expired": due_expired, "gate_passed": due_expired}


def _not_found() -> ApplicationError:
    return ApplicationError("No such assignment.", code="not_found", status_code=404)


class PostgreSQLStore:
    name = "postgresql"
    statements_atomic = True

    def claim_read(self, *, by: str, campaign: int | str, annotator: User, now: datetime, draw: float,
                   known: Campaign | None) -> ClaimRead:
        return self._claim(by=by, campaign=campaign, annotator=annotator, now=now, draw=draw, known=known)

    def lease(self, *, campaign: Campaign, annotator: User, gold: bool, now: datetime) -> Assignment | None:
        return self._claim(by="id", campaign=campaign.pk, annotator=annotator, now=now, gold=gold, due_expired=True,
                           known=campaign).lease

    def _claim(self, *, by: str, campaign: int | str, annotator: User, now: datetime, draw: float = 1.0,
               gold: bool | None = None, due_expired: bool = False, known: Campaign | None = None) -> ClaimRead:
        """One run of the claim statement. ``known``: the caller's campaign, which the lease then carries. A lease
        comes with its display (``Assignment.shown``) read from the same row: no instance but the lease's own."""
        params = claim_params(campaign=campaign, annotator=annotator, now=now, draw=draw, gold=gold,
                              due_expired=due_expired)
        with connection.cursor() as cursor:
            cursor.execute(claim_sql(by), params)
            row = cursor.fetchone()
        if row is None:
            return ClaimRead(None, None, None, False)
        (campaign_part,) = sql.parts("claim_campaign")
        width = len(campaign_part.attnames)
        (is_member, current_id, current_expires_at, any_due, held, profile_missing, crowd_entry_id, looked, lease_id,
         pair_id, swapped, expires_at) = row[width:width + 12]
        membership = (current_id, current_expires_at, any_due) if is_member else None
        if lease_id is None:
            found = known or rows.instances(row[:width], [campaign_part])["c"]
            return ClaimRead(None, found, membership, looked, held, profile_missing, crowd_entry_id)
        campaign_values = rows.values(row[:width], [campaign_part])["c"]
        lease = {"id": lease_id, "pair_id": pair_id, "annotator_id": annotator.pk, "status": Assignment.Status.ACTIVE,
                 "swapped": swapped, "claimed_at": now, "expires_at": expires_at, "finished_at": None,
                 "skip_reason": "", "draft": {}, "draft_saved_at": None}
        assignment = rows.loaded(Assignment, **lease, annotator=annotator,
                                 **({"campaign": known} if known else {"campaign_id": campaign_values["id"]}))
        assignment.shown = selectors.Shown.read(lease, campaign_values, rows.values(row[width + 12:],
                                                                                    sql.parts("claim_display")))
        return ClaimRead(assignment, known, membership, looked, False)

    def locked_own(self, assignment: Assignment, annotator: User) -> Assignment:
        with connection.cursor() as cursor:
            cursor.execute(sql.statement("locked"), {"assignment": assignment.pk, "annotator": annotator.pk})
            row = cursor.fetchone()
        if row is None:
            raise _not_found()
        built = rows.instances(row, sql.parts("locked"))
        built["c"].rating_schema = built["s"]
        built["a"].pair, built["a"].campaign = built["p"], built["c"]
        return built["a"]

    def display_read(self, *, assignment_id: int, annotator: User) -> Assignment:
        """One statement (``display.sql``): the rows select_related reads, but only the columns pair_display uses
        (the others stay deferred on the instances), and no ORM compilation, which cost more CPU than anything else
        on the claim path."""
        with connection.cursor() as cursor:
            cursor.execute(sql.statement("display"), {"assignment": assignment_id, "annotator": annotator.pk})
            row = cursor.fetchone()
        if row is None:
            raise _not_found()
        built = rows.instances(row, sql.parts("display"))
        assignment, campaign, pair = built["a"], built["c"], built["p"]
        campaign.rating_schema = built["s"]
        pair.prompt, pair.response_a, pair.response_b = built["q"], built["ra"], built["rb"]
        assignment.campaign, assignment.pair = campaign, pair
        return assignment

    def submission_read(self, assignment: Assignment, annotator: User, *,
                        lock: bool) -> tuple[SubmissionRead, Annotation | None]:
        """Locked (``submit_locked.sql``), it comes with the annotation already stored for the assignment, if any, in
        the same round trip. Unlocked (``submit_read.sql``, the first try outside a transaction) it reads no
        annotation: a plan PostgreSQL kept for the prepared statement while the annotation table was nearly empty
        (a sequential scan) read the whole table long after it had grown. The unlocked try needs no lookup: an
        assignment still active or expired has no annotation (it is stored with the status change)."""
        with connection.cursor() as cursor:
            if lock:
                cursor.execute(sql.statement("submit_locked"), {"assignment": assignment.pk, "annotator": annotator.pk})
            else:
                cursor.execute(sql.statement("submit_read"), {"assignment": assignment.pk})
            row = cursor.fetchone()
        if not lock:
            held = None if row is None else SubmissionRead.read(row)
            if held is None or held.annotator_id != annotator.pk:  # whose it is, checked on the row read by id
                raise _not_found()
            return held, None
        if row is None:
            raise _not_found()
        (earlier_part,) = sql.parts("earlier")
        width = len(earlier_part.attnames)
        earlier = rows.instances(row[:width], [earlier_part])["n"] if row[0] is not None else None
        return SubmissionRead.read(row[width:]), earlier

    def submission_write(self, *, held: SubmissionRead, annotator: User, fields: dict, was_expired: bool,
                         now: datetime) -> Annotation | None:
        """One statement (``submit.sql``), which locks the row to check the status: atomic alone, or in a
        transaction."""
        with connection.cursor() as cursor:
            cursor.execute(
                sql.statement("submit"),
                {
                    **fields,
                    "values": json.dumps(fields["values"]),
                    "media_played": None if fields["media_played"] is None else json.dumps(fields["media_played"]),
                    "confirmed_warnings": (None if fields["confirmed_warnings"] is None
                                           else json.dumps(fields["confirmed_warnings"])),
                    "release": 0 if was_expired else 1,
                    "pair": held.pair_id,
                    "assignment": held.id,
                    "annotator": annotator.pk,
                    "campaign": held.campaign_id,
                    "detail": json.dumps(submit_detail(fields, was_expired)),
                    "now": now,
                    "status": held.status,
                },
            )
            guarded, annotation_id = cursor.fetchone()
        if not guarded:
            raise AssignmentChanged
        if annotation_id is None:
            return None
        return rows.loaded(
            Annotation, id=annotation_id, pair_id=held.pair_id, assignment_id=held.id, annotator=annotator,
            source=Annotation.Source.CONCORD, rater_label="", created_at=now, **fields,
        )
