"""The work queue's store: the reads and writes of a claim, a draft's or skip's lock, and a submission, behind one
interface with two implementations, chosen once per process by the database Django is configured for.

- ``postgresql`` (``store/postgresql.py``): the hand-written statements of ``annotation/workqueue/sql/``; a claim is
  one statement in the common case, a submission an unlocked read and one guarded write, each atomic on its own.
- ``portable`` (``store/portable.py``): the same reads and writes through the ORM, inside the transaction the
  service opens (on SQLite every transaction begins IMMEDIATE and holds the database's write lock, which serializes
  claims: a pair's overlap holds there too).

The services (``annotation.workqueue.services.assignments``) state each rule once and call ``store()``; nothing else
in the work queue asks which database it runs on. ``tests/workqueue/test_store_contract.py`` runs one contract
against whichever store the suite's database chose (the PostgreSQL leg and the SQLite leg of ``make test``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple, Protocol

from annotation.workqueue import sql
from annotation.workqueue.models import AssignmentEvent
from core import rows

if TYPE_CHECKING:
    from annotation.accounts.models import User
    from annotation.catalogue.models import Campaign
    from annotation.workqueue.models import Annotation, Assignment


class ClaimRead(NamedTuple):
    """What a claim's first read answers: the lease it took (or None); without one, the campaign (None: no such
    campaign), the membership (open lease id, its expiry, any lease of the campaign due; None for a non-member),
    and whether it looked for a pair. With a lease the campaign is the caller's ``known`` one, or None.

    ``held``: the rater is not admitted to the queue (paused, or not qualified), as ``rater_admission`` decides;
    None when the store did not read it (the service asks ``rater_admission``). ``profile_missing`` and
    ``crowd_entry_id``: the entry gate's facts, as ``profile.entry_gate`` takes them."""

    lease: Assignment | None
    campaign: Campaign | None
    membership: tuple | None
    looked: bool
    held: bool | None = False
    profile_missing: bool = False
    crowd_entry_id: int | None = None


@dataclass(frozen=True, slots=True)
class SubmissionRead:
    """The assignment as a submission reads it: whose it is, its state, and what checking the answers needs."""

    id: int
    pair_id: int
    campaign_id: int
    annotator_id: int
    status: str
    swapped: bool
    criteria: list
    is_gold: bool
    gold_answer: dict | None
    definition: dict
    kind: str
    requires_full_playback: bool

    @classmethod
    def of(cls, locked: Assignment) -> SubmissionRead:
        """From ``Store.locked_own``'s instance (its pair, campaign and schema loaded)."""
        pair, campaign = locked.pair, locked.campaign
        return cls(id=locked.pk, pair_id=locked.pair_id, campaign_id=locked.campaign_id,
                   annotator_id=locked.annotator_id, status=locked.status, swapped=locked.swapped,
                   criteria=pair.criteria or [], is_gold=pair.is_gold, gold_answer=pair.gold_answer,
                   definition=campaign.rating_schema.definition, kind=campaign.kind,
                   requires_full_playback=campaign.requires_full_playback)

    @classmethod
    def read(cls, row) -> SubmissionRead:
        """From a row of the ``submit`` select list (``sql.parts("submit")``)."""
        read = rows.values(row, sql.parts("submit"))
        a, p, c = read["a"], read["p"], read["c"]
        return cls(id=a["id"], pair_id=a["pair_id"], campaign_id=a["campaign_id"], annotator_id=a["annotator_id"],
                   status=a["status"], swapped=a["swapped"], criteria=p["criteria"] or [], is_gold=p["is_gold"],
                   gold_answer=p["gold_answer"], definition=read["s"]["definition"], kind=c["kind"],
                   requires_full_playback=c["requires_full_playback"])


class AssignmentChanged(Exception):
    """A submission's write found the assignment's status no longer the one read (or the unlocked try could not
    answer): nothing was written; the service tries again under the row lock."""


class Store(Protocol):
    """The work queue's storage. Each method's precondition is the service's: inside a transaction unless
    ``statements_atomic`` says a statement may run alone."""

    name: str
    # Whether one statement is atomic on its own, outside a transaction (the claim with nothing due, the
    # submission's unlocked try): PostgreSQL's statements are; the ORM's several statements are not.
    statements_atomic: bool

    def claim_read(self, *, by: str, campaign: int | str, annotator: User, now: datetime, draw: float,
                   known: Campaign | None) -> ClaimRead:
        """The campaign (by ``id`` or ``slug``), the membership, the gate's facts and, where the store can in the
        same round trip and the rater may claim now, the claim itself (PostgreSQL)."""
        ...

    def lease(self, *, campaign: Campaign, annotator: User, gold: bool, now: datetime) -> Assignment | None:
        """A new lease on the annotator's next pair of that kind (gold or not), its display loaded; None when none
        is left. Precondition: the due leases were expired, the gates passed; in a transaction unless
        ``statements_atomic``."""
        ...

    def locked_own(self, assignment: Assignment, annotator: User) -> Assignment:
        """The annotator's assignment (a member of its campaign), locked, with its pair, campaign and schema; 404
        otherwise. Precondition: inside a transaction."""
        ...

    def display_read(self, *, assignment_id: int, annotator: User) -> Assignment:
        """The annotator's assignment with what ``pair_display`` needs loaded; 404 otherwise."""
        ...

    def submission_read(self, assignment: Assignment, annotator: User, *,
                        lock: bool) -> tuple[SubmissionRead, Annotation | None]:
        """The assignment as the submission reads it, and the annotation already stored for it (with ``lock``;
        without, None: an open assignment has none). Without ``lock`` only where ``statements_atomic``."""
        ...

    def submission_write(self, *, held: SubmissionRead, annotator: User, fields: dict, was_expired: bool,
                         now: datetime) -> Annotation | None:
        """Store the annotation, close the assignment, count it on the pair and record the event, only while the
        assignment's status is still ``held.status`` (else AssignmentChanged, nothing written). None: the lease had
        expired and its pair has no free slot (nothing kept: the portable store's close of the assignment is undone
        with the caller's transaction, which the refusal rolls back)."""
        ...


def event_record(assignment: Assignment | SubmissionRead, kind: str, at: datetime, **detail: object) -> AssignmentEvent:
    """One event of an assignment (``assignment``: anything with ``id``, ``campaign_id`` and ``annotator_id``)."""
    return AssignmentEvent.objects.create(assignment_id=assignment.id, campaign_id=assignment.campaign_id,
                                          annotator_id=assignment.annotator_id, kind=kind, at=at, detail=detail)


def submit_detail(fields: dict, was_expired: bool) -> dict:
    """The submission event's detail."""
    return {"time_on_item_ms": fields["time_on_item_ms"], "gold_correct": fields["gold_correct"],
            "after_expiry": was_expired}


@functools.cache
def store() -> Store:
    """The store for the configured database, chosen on first use and kept for the process."""
    from django.db import connection

    if connection.vendor == "postgresql":
        from annotation.workqueue.store.postgresql import PostgreSQLStore

        return PostgreSQLStore()
    from annotation.workqueue.store.portable import PortableStore

    return PortableStore()
