"""Consensus: apply a campaign's policy to its rated pairs, settle disputes, and record a curator's decision."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from django.db import transaction
from django.db.models import Value

from annotation.catalogue import schemas
from annotation.catalogue.models import Campaign, Pair
from annotation.catalogue.services.pair_status import ADJUDICATED, status_entering_annotation
from annotation.jobs.models import Job
from annotation.jobs.services import (
    JobCancelled,
    job_attempt,
    job_create,
    job_dispatch,
    job_is_cancelled,
    job_progress,
    job_start,
    job_succeed,
)
from core.errors import ApplicationError
from curation.agreement.report import ANONYMOUS_WHY
from curation.agreement.variables import Variable, primary_variable
from curation.consensus import DISPUTE_REASONS, ConsensusPolicy, PolicyError, get_policy
from curation.consensus.base import DISPUTED, DROPPED, KEPT, PairRatings, pair_ratings_from_table
from curation.consensus.criteria import CriteriaRatings, criteria_ratings_from_table, decide_by_criterion
from curation.models import ConsensusRecord
from curation.selectors.ratings import pair_facts, rating_table

if TYPE_CHECKING:
    from annotation.accounts.models import User

JOB_KIND = "consensus"
ADJUDICATION_POLICY = "adjudication"
ADJUDICATED_DROP = "adjudicated_drop"
ON_DISPUTE = ("drop", "escalate", "adjudicate")
DEFAULT_POLICY = "majority"
WRITE_BATCH = 5_000
MAX_NOTE = 5_000
UNDECIDED_STATUSES = {Pair.Status.PENDING, Pair.Status.DROPPED_EASY, Pair.Status.EXCLUDED}
# Why an undecided pair is not waiting for ratings, by its status; the first that applies names it.
LEFT_OUT_STATUSES = {Pair.Status.PENDING: "awaiting_prefilter", Pair.Status.DROPPED_EASY: "dropped_by_prefilter",
                     Pair.Status.EXCLUDED: "excluded"}


def consensus_settings(*, campaign: Campaign, policy: str | None = None, params: dict | None = None,
                       on_dispute: str | None = None) -> tuple[ConsensusPolicy, dict, str]:
    """The policy, its full parameters and the dispute handling to use: explicit arguments first, then the
    campaign's ``consensus_policy`` and ``consensus_params`` (policy parameters plus ``on_dispute``)."""
    stored = dict(campaign.consensus_params or {})
    stored_dispute = stored.pop("on_dispute", None)
    name = policy or campaign.consensus_policy or DEFAULT_POLICY
    try:
        chosen = get_policy(name)
        full = chosen.params(params if params is not None else (stored if name == campaign.consensus_policy else {}))
    except PolicyError as exc:
        raise ApplicationError(str(exc), code="invalid_policy") from exc
    dispute = on_dispute or stored_dispute or "drop"
    if dispute not in ON_DISPUTE:
        raise ApplicationError(f"on_dispute must be one of {', '.join(ON_DISPUTE)}, not {dispute!r}",
                               code="invalid_on_dispute")
    return chosen, full, dispute


def _policy_variable(policy: ConsensusPolicy, params: dict, variables: dict[str, Variable]) -> Variable:
    """The question a policy decides on: its ``question`` parameter for per-response policies, else the
    schema's preference question."""
    if policy.scope == "response":
        variable = variables.get(params["question"])
        if variable is None or variable.scope != "response" or not variable.numeric:
            raise ApplicationError(f"policy {policy.name!r} needs a per-response scale {params['question']!r} "
                                   f"in the rating schema", code="invalid_policy")
        return variable
    variable = primary_variable(variables)
    if variable is None or not variable.oriented:
        raise ApplicationError(f"policy {policy.name!r} needs a question that names the preferred side (A/B)",
                               code="invalid_policy")
    return variable


def consensus_apply(*, campaign: Campaign, policy: str | None = None, params: dict | None = None,
                    on_dispute: str | None = None, job: Job | None = None,
                    progress: Callable[[int, int], None] | None = None) -> dict:
    """Decide every pair that has all its required ratings and write one ConsensusRecord per decided pair.

    A pair is decided when it has at least ``required_annotations`` ratings, is not awaiting pre-filter,
    dropped as easy or excluded, has no current curator adjudication (a curator's decision is final) and
    was not sent to adjudication by a curator (it waits for the curator's decision).
    A dispute (raters disagree) is dropped (``on_dispute`` "drop"), sent to the adjudication queue
    ("adjudicate"), or given one more annotator up to ``campaign.max_overlap`` and re-queued, then
    adjudicated ("escalate"). Running it twice changes nothing more: an escalated pair waits for its
    next rating. Returns the counts by outcome.

    A criteria question is decided per criterion (``curation.consensus.criteria``): under "drop" a pair keeps
    the criteria that were kept; under "escalate" and "adjudicate" a disputed criterion holds the whole pair.
    """
    chosen_policy, full_params, dispute = consensus_settings(campaign=campaign, policy=policy, params=params,
                                                             on_dispute=on_dispute)
    facts = pair_facts(campaign=campaign)
    table = rating_table(campaign=campaign, facts=facts, progress=(lambda done: progress(done, 0)) if progress else None)
    variable = _policy_variable(chosen_policy, full_params, table.variables)
    ratings_per_pair = np.bincount(table.pair, minlength=len(facts.pair_ids))
    adjudicated = np.isin(facts.pair_ids, list(
        ConsensusRecord.objects.filter(pair__campaign=campaign, policy=ADJUDICATION_POLICY, stale_reason="")
        .values_list("pair_id", flat=True)))
    awaiting_curator = np.isin(facts.pair_ids, _awaiting_curator(campaign))
    ready = ((ratings_per_pair >= np.maximum(facts.required, 1))
             & ~np.isin(facts.status, list(UNDECIDED_STATUSES))
             & ~adjudicated & ~awaiting_curator)
    ratings: PairRatings | CriteriaRatings
    try:
        if variable.scope == "criteria":
            ratings = criteria_ratings_from_table(table, variable, keep=ready)
            decisions = decide_by_criterion(chosen_policy, ratings, full_params, pair_ids=facts.pair_ids[ready].tolist(),
                                            order=_named_criteria(campaign), hold_disputes=dispute != "drop")
        else:
            ratings = pair_ratings_from_table(table, variable, rejected=facts.rejected,
                                              response_ids=facts.response_ids).subset(ready)
            decisions = chosen_policy.decide(ratings, full_params)
    except PolicyError as exc:
        raise ApplicationError(str(exc), code="invalid_policy") from exc
    if job is not None and job_is_cancelled(job_id=job.pk):
        raise JobCancelled
    summary = _write(campaign=campaign, decisions=decisions, facts=facts, ready=ready, policy=chosen_policy.name,
                     params=full_params, dispute=dispute, progress=progress)
    pending, not_rated = _undecided(facts=facts, ready=ready, adjudicated=adjudicated,
                                    awaiting_curator=awaiting_curator)
    summary.update({"policy": chosen_policy.name, "params": full_params, "on_dispute": dispute,
                    "pairs": int(len(facts.pair_ids)), "pending": pending, "left_out": not_rated})
    if chosen_policy.models_raters:
        left_out = ratings.anonymous_ratings()
        summary["ratings_left_out"] = {"anonymous_slots": left_out,
                                       "why": ANONYMOUS_WHY if left_out else None}
    return summary


def _named_criteria(campaign: Campaign) -> dict[int, list[str]]:
    """The criteria each pair of the campaign names, as raters' labels name them (trimmed text)."""
    return {pair_id: [str(c).strip() for c in criteria if isinstance(c, str)]
            for pair_id, criteria in Pair.objects.filter(campaign=campaign).exclude(criteria=[])
            .values_list("pk", "criteria").iterator() if isinstance(criteria, list)}


def _undecided(*, facts, ready: np.ndarray, adjudicated: np.ndarray,
               awaiting_curator: np.ndarray) -> tuple[int, dict[str, int]]:
    """The undecided pairs that wait for ratings, and the others counted by why no rating will decide them
    now: awaiting or dropped by the pre-filter, excluded, decided by a curator, or waiting for a curator."""
    undecided = ~ready
    left_out: dict[str, int] = {}
    for status, why in LEFT_OUT_STATUSES.items():
        these = undecided & (facts.status == status)
        left_out[why] = int(these.sum())
        undecided &= ~these
    for why, mask in (("adjudicated", adjudicated), ("awaiting_curator", awaiting_curator)):
        left_out[why] = int((undecided & mask).sum())
        undecided &= ~mask
    return int(undecided.sum()), {why: n for why, n in sorted(left_out.items()) if n}


def _awaiting_curator(campaign: Campaign) -> list[int]:
    """Pairs in the adjudication queue that a curator put there (no current dispute of a policy sent them):
    only the curator's decision settles them, never a run of consensus."""
    return list(
        Pair.objects.filter(campaign=campaign, status=Pair.Status.ADJUDICATION)
        .exclude(consensus__decision=ConsensusRecord.Decision.DISPUTED, consensus__stale_reason="")
        .values_list("pk", flat=True)
    )


@transaction.atomic
def _write(*, campaign, decisions, facts, ready, policy, params, dispute, progress) -> dict:
    required_of = dict(zip(facts.pair_ids[ready].tolist(), facts.required[ready].tolist(), strict=True))
    basis_of = dict(zip(facts.pair_ids[ready].tolist(), facts.annotations_done[ready].tolist(), strict=True))
    status_of = dict(zip(facts.pair_ids[ready].tolist(), facts.status[ready].tolist(), strict=True))
    records, escalate, adjudicate, settled_from_queue = [], {}, [], []
    dropped_by_reason: Counter = Counter()
    chosen = Counter({"A": 0, "B": 0})
    if any(d.decision == KEPT and d.chosen == "tie" for d in decisions):
        chosen["tie"] = 0
    by_criterion: Counter = Counter()
    for d in decisions:
        # A criterion is tallied as its pair went: under on_dispute=drop a disputed criterion's pair is dropped,
        # and so is the criterion (the summary said "disputed 17, dropped 0" where the pairs count 17 dropped).
        for c in d.criteria:
            outcome = c.chosen if c.decision == KEPT else c.decision
            by_criterion[DROPPED if outcome == DISPUTED and dispute == "drop" else outcome] += 1
        details = dict(d.details)
        if d.decision == KEPT:
            decision = ConsensusRecord.Decision.KEPT
            chosen[d.chosen] += 1
        elif d.decision == DISPUTED and dispute != "drop":
            decision = ConsensusRecord.Decision.DISPUTED
            # One more rating than the pair holds, or asked for if more: a pair rated beyond its overlap
            # (imported ratings) would otherwise be asked for ratings it already has.
            target = max(required_of[d.pair_id], basis_of[d.pair_id]) + 1
            if dispute == "escalate" and target <= campaign.max_overlap:
                escalate.setdefault((required_of[d.pair_id], target), []).append(d.pair_id)
                details["escalated_to"] = target
            else:
                adjudicate.append(d.pair_id)
                details["queued_for_adjudication"] = True
        else:
            decision = ConsensusRecord.Decision.DROPPED
            dropped_by_reason[d.reason] += 1
        if decision != ConsensusRecord.Decision.DISPUTED and status_of[d.pair_id] == Pair.Status.ADJUDICATION:
            settled_from_queue.append(d.pair_id)
        details["dispute"] = d.reason in DISPUTE_REASONS
        records.append(ConsensusRecord(pair_id=d.pair_id, policy=policy, params=params, decision=decision,
                                       chosen=d.chosen, reason=d.reason, details=details, stale_reason="",
                                       basis_annotations=basis_of[d.pair_id],
                                       criteria=[c.as_json() for c in d.criteria]))
    for start in range(0, len(records), WRITE_BATCH):
        ConsensusRecord.objects.bulk_create(
            records[start:start + WRITE_BATCH], update_conflicts=True, unique_fields=["pair"],
            update_fields=["policy", "params", "decision", "chosen", "reason", "details", "stale_reason",
                           "basis_annotations", "criteria", "decided_at"],
        )
        if progress:
            progress(start + len(records[start:start + WRITE_BATCH]), len(records))
    escalated = 0
    for (required, target), pair_ids in escalate.items():
        # Guarded by the value read, so two concurrent runs raise a pair's overlap once.
        escalated += Pair.objects.filter(pk__in=pair_ids, required_annotations=required).update(
            required_annotations=target, status=status_entering_annotation(required=Value(target)),
            status_reason="disputed")
    Pair.objects.filter(pk__in=adjudicate).update(status=Pair.Status.ADJUDICATION, status_reason="disputed")
    Pair.objects.filter(pk__in=settled_from_queue).update(status=status_entering_annotation(), status_reason="")
    kept = sum(chosen.values())
    criteria = {}
    if any(d.criteria for d in decisions):
        criteria = {"criteria": {
            "decided": sum(by_criterion.values()),
            "kept": sum(by_criterion[side] for side in ("A", "B", "tie")),
            "chosen": {side: by_criterion[side] for side in ("A", "B", "tie")},
            "dropped": by_criterion[DROPPED], "disputed": by_criterion[DISPUTED]}}
    return {
        **criteria,
        "kept": kept,
        "dropped": sum(dropped_by_reason.values()),
        "dropped_by_reason": dict(sorted(dropped_by_reason.items())),
        "chosen": dict(chosen),
        "disputed": len(records) - kept - sum(dropped_by_reason.values()),
        "escalated": escalated,
        "adjudication": len(adjudicate),
        "decided": len(records),
    }


def consensus_job_create(*, campaign: Campaign, created_by: User | None = None, policy: str | None = None,
                         params: dict | None = None,
                         on_dispute: str | None = None) -> Job:
    """A queued consensus job with validated settings; its task is enqueued once the transaction commits."""
    chosen, full, dispute = consensus_settings(campaign=campaign, policy=policy, params=params, on_dispute=on_dispute)
    job = job_create(kind=JOB_KIND, campaign=campaign, created_by=created_by,
                     params={"policy": chosen.name, "params": full, "on_dispute": dispute})
    from curation.tasks import consensus_apply as task

    job_dispatch(job=job, task=task, args=[job.pk])
    return job


def consensus_job_run(*, job_id: int) -> None:
    """Run a queued consensus job; a finished or cancelled job is left as it is."""
    job = job_start(job_id=job_id)
    if job.status != Job.Status.RUNNING or job.campaign_id is None:
        return
    params = job.params

    def report_progress(done: int, total: int) -> None:
        if total and (done == total or done % (WRITE_BATCH * 4) == 0):
            job_progress(job_id=job_id, done=done, total=total)

    finished, summary = job_attempt(job_id=job_id, work=lambda: consensus_apply(
        campaign=job.campaign, policy=params.get("policy"), params=params.get("params"),
        on_dispute=params.get("on_dispute"), job=job, progress=report_progress))
    if not finished or summary is None:
        return
    job_progress(job_id=job_id, done=summary["decided"], total=summary["decided"])
    job_succeed(job_id=job_id, result=summary)


def consensus_invalidate(*, pair_id: int, reason: str) -> int:
    """Mark the pair's consensus record as no longer describing it (``reason``: the curator action).

    Precondition: the caller holds a row lock on the pair, in the transaction that changes it.
    """
    return ConsensusRecord.objects.filter(pair_id=pair_id).update(stale_reason=reason)


@transaction.atomic
def pair_adjudicate(*, pair_id: int, curator: User, chosen: str | None, note: str) -> ConsensusRecord:
    """Record a curator's final decision on a pair awaiting adjudication: keep it with ``chosen`` A or B (or
    tie, where the campaign's schema offers a tie), or drop it (``chosen`` None); on a criteria question the
    decision holds for every criterion of the pair. Holds a row lock on the pair, so two curators cannot both
    decide it."""
    if not getattr(curator, "is_curator", False):
        raise ApplicationError("only curators can adjudicate pairs", code="forbidden", status_code=403)
    if chosen not in ("A", "B", "tie", None):
        raise ApplicationError("chosen must be 'A', 'B', 'tie' (where the schema offers a tie), or null to drop the pair",
                               code="invalid_chosen")
    note = (note or "").strip()
    if not note:
        raise ApplicationError("write a note that explains the decision", code="note_required")
    if len(note) > MAX_NOTE:
        raise ApplicationError(f"keep the note under {MAX_NOTE:,} characters", code="note_too_long")
    pair = Pair.objects.select_for_update().filter(pk=pair_id).first()
    if pair is None:
        raise ApplicationError(f"pair {pair_id} does not exist", code="not_found", status_code=404)
    if chosen == "tie" and not schemas.offers_tie(pair.campaign.rating_schema.definition):
        raise ApplicationError("chosen must be 'A' or 'B', or null to drop the pair: this campaign's rating schema "
                               "has no tie", code="invalid_chosen")
    if pair.status != Pair.Status.ADJUDICATION:
        raise ApplicationError(f"pair {pair_id} is not awaiting adjudication (status {pair.status})",
                               code="not_awaiting_adjudication", status_code=409)
    previous = (ConsensusRecord.objects.filter(pair=pair)
                .values("policy", "params", "decision", "reason", "details", "criteria").first())
    record, _ = ConsensusRecord.objects.update_or_create(
        pair=pair,
        defaults={
            "policy": ADJUDICATION_POLICY,
            "params": {},
            "decision": ConsensusRecord.Decision.KEPT if chosen else ConsensusRecord.Decision.DROPPED,
            "chosen": chosen or "",
            "reason": "" if chosen else ADJUDICATED_DROP,
            "details": {"note": note, "curator_id": curator.pk, "curator": curator.get_username(),
                        "previous": previous},
            "stale_reason": "",
            "basis_annotations": pair.annotations_done,
            "criteria": [],
        },
    )
    pair.status = Pair.Status.COMPLETE
    pair.status_reason = ADJUDICATED
    pair.save(update_fields=["status", "status_reason"])
    return record
