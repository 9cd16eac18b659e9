"""The ensemble-judge pre-filter: judge every candidate pair with every chosen judge in both orders,
then drop the easy pairs and queue the rest for humans.

A run is an ``annotation.Job`` of kind ``prefilter``. Its life: ``prefilter_start`` (or
``prefilter_job_create`` for the command line) → ``prefilter_prepare`` (candidates, progress, a
new *attempt*) → ``prefilter_batch_run`` per batch of pairs (a Celery chord, or in-process) →
``prefilter_finish`` (apply the rule, store the report). Every call's verdict is written as soon as
it comes back, under the unique (pair, judge, order) constraint, so a killed worker loses no
verdict and a resumed run (a new attempt) makes only the calls still missing. A batch of an older
attempt stops at its next check, so a resumed run never races the run it replaced.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings as django_settings
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from annotation.catalogue.content import MEDIA_TYPES, iter_media
from annotation.catalogue.models import Campaign, Media, Pair
from annotation.catalogue.services.pair_status import status_in_annotation
from annotation.jobs.models import JOB_COMPLETED, Job
from annotation.jobs.services import job_create, job_dispatch, job_fail, job_lease, job_succeed
from annotation.workqueue.models import Assignment
from core.errors import ApplicationError
from curation.judges import parsing, registry
from curation.judges.base import JudgeCall, JudgeConfigError, JudgeRequest, MediaFile, MediaStore
from curation.judges.runner import JudgeRunner, WorkItem
from curation.models import Judge, JudgeVerdict
from curation.prefilter import JOB_KIND, metrics, rules

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from annotation.accounts.models import User

ORDERS = (JudgeVerdict.Order.FORWARD, JudgeVerdict.Order.SWAPPED)
REASON_PREFIX = "prefilter:"
PROGRESS_EVERY_S = 0.5
UPSERT_CHUNK = 500

ProgressCallback = Callable[[int], None]


# --- rules -------------------------------------------------------------------------------------------


def prefilter_rule_for(*, campaign: Campaign, threshold: float | None = None) -> rules.Rule:
    """The campaign's rule (MMRB2's majority rule by default), with an optional threshold override."""
    try:
        return rules.rule_from_config(campaign.prefilter_rule, threshold=threshold)
    except rules.RuleError as exc:
        raise ApplicationError(str(exc), code="invalid_prefilter_rule") from exc


def prefilter_rule_set(*, campaign: Campaign, rule: dict) -> Campaign:
    """Store a validated rule on the campaign; it applies to the next run."""
    try:
        parsed = rules.rule_from_config(rule)
    except rules.RuleError as exc:
        raise ApplicationError(str(exc), code="invalid_prefilter_rule") from exc
    campaign.prefilter_rule = parsed.as_config()
    campaign.save(update_fields=["prefilter_rule"])
    return campaign


# --- starting, resuming ------------------------------------------------------------------------------


def _chosen_judges(judge_names: list[str] | None) -> list[Judge]:
    if not judge_names:
        judges = list(Judge.objects.filter(enabled=True).order_by("name"))
        if not judges:
            raise ApplicationError("no enabled judges; configure one first", code="no_judges")
        return judges
    names = list(dict.fromkeys(judge_names))
    found = {j.name: j for j in Judge.objects.filter(name__in=names)}
    unknown = [n for n in names if n not in found]
    if unknown:
        raise ApplicationError(f"unknown judge(s): {', '.join(unknown)}", code="unknown_judge", status_code=404)
    disabled = [n for n in names if not found[n].enabled]
    if disabled:
        raise ApplicationError(f"disabled judge(s): {', '.join(disabled)}; enable them first", code="judge_disabled")
    return [found[n] for n in sorted(names)]


def prefilter_job_create(
    *,
    campaign: Campaign,
    judge_names: list[str] | None = None,
    threshold: float | None = None,
    force: bool = False,
    created_by: User | None = None,
) -> Job:
    """A queued pre-filter run with its judges and rule frozen; nothing is enqueued.

    A run given a ``threshold`` re-decides from the stored verdicts: it calls only what was never
    called, and leaves failed calls as they are (a run without one retries them).
    """
    judges = _chosen_judges(judge_names)
    rule = prefilter_rule_for(campaign=campaign, threshold=threshold)
    if not candidate_pairs(campaign=campaign).exists():
        # A run with nothing to judge finished "succeeded · 0 verdicts" and said nothing: refuse it, saying why.
        why = ("it does not use the pre-filter (its pairs go straight to raters)" if not campaign.requires_prefilter
               else "every pair has left the pre-filter's hands (rated, claimed, or restored by a curator)")
        raise ApplicationError(f"{campaign.slug} has no pair a pre-filter run could judge: {why}",
                               code="nothing_to_prefilter", status_code=409,
                               extra={"requires_prefilter": campaign.requires_prefilter})
    params = {
        "judges": [j.pk for j in judges],
        "judge_names": [j.name for j in judges],
        "rule": rule.as_config(),
        "retry_failed": threshold is None,
        "force": bool(force),
        "force_cleared": False,
        "attempt": 0,
    }
    return job_create(kind=JOB_KIND, campaign=campaign, params=params, created_by=created_by)


def prefilter_start(
    *,
    campaign: Campaign,
    judge_names: list[str] | None = None,
    threshold: float | None = None,
    force: bool = False,
    created_by: User | None = None,
) -> Job:
    """Create a run and hand it to the workers once the caller's transaction commits."""
    from curation.tasks import prefilter_dispatch_task

    job = prefilter_job_create(
        campaign=campaign, judge_names=judge_names, threshold=threshold, force=force, created_by=created_by
    )
    job_dispatch(job=job, task=prefilter_dispatch_task, args=[job.pk])
    return job


def prefilter_resume(*, job: Job) -> Job:
    """Run again what a cancelled, failed or interrupted run left undone; a finished run is refused."""
    from curation.tasks import prefilter_dispatch_task

    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job.pk)
        if job.kind != JOB_KIND:
            raise ApplicationError(f"job {job.pk} is not a pre-filter run", code="not_a_prefilter_run", status_code=404)
        if job.status in JOB_COMPLETED:
            raise ApplicationError(
                f"run {job.pk} has finished; start a new run instead", code="run_finished", status_code=409
            )
        job.status, job.finished_at, job.error = Job.Status.QUEUED, None, ""
        job.save(update_fields=["status", "finished_at", "error"])
    job_dispatch(job=job, task=prefilter_dispatch_task, args=[job.pk])
    return job


# --- candidates and preparation -------------------------------------------------------------------


def candidate_pairs(*, campaign: Campaign) -> QuerySet[Pair]:
    """Pairs a run may (re)decide: awaiting the pre-filter, dropped by it, or queued by it and untouched.

    A pair a curator restored, or one an annotator has claimed, is never moved by a run.
    """
    claimed = Assignment.objects.filter(pair=OuterRef("pk"))
    return (
        Pair.objects.filter(campaign=campaign)
        .filter(
            Q(status=Pair.Status.PENDING)
            | Q(status=Pair.Status.DROPPED_EASY, status_reason__startswith=REASON_PREFIX)
            | Q(status=Pair.Status.QUEUED, status_reason__startswith=REASON_PREFIX, annotations_done=0, active_claims=0)
        )
        .exclude(Exists(claimed))
    )


@dataclass(frozen=True)
class Plan:
    attempt: int
    batches: list[list[int]]


def _chunks(items: list[int], size: int) -> list[list[int]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def prefilter_prepare(*, job_id: int) -> Plan | None:
    """Start (or restart) a run as a new attempt; None when it is finished or cancelled.

    With ``force`` the stored verdicts of the candidate pairs are deleted once, on the first attempt.
    """
    with transaction.atomic():
        job = Job.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=job_id)
        if job.status in (*JOB_COMPLETED, Job.Status.CANCELLED):
            return None
        params = dict(job.params)
        judge_ids = params["judges"]
        pair_ids = list(candidate_pairs(campaign=job.campaign).order_by("pk").values_list("pk", flat=True))
        if params["force"] and not params["force_cleared"]:
            for chunk in _chunks(pair_ids, 5_000):
                JudgeVerdict.objects.filter(pair_id__in=chunk, judge_id__in=judge_ids).delete()
            params["force_cleared"] = True
        params["attempt"] = params["attempt"] + 1
        done = _count_settled(pair_ids=pair_ids, judge_ids=judge_ids, retry_failed=_retries_failed(params))
        job.params = params
        job.status = Job.Status.RUNNING
        job.started_at = job.started_at or timezone.now()
        job.finished_at = None
        job.error = ""
        job.progress_total = len(pair_ids) * len(judge_ids) * len(ORDERS)
        job.progress_done = done
        job.save()
    size = getattr(django_settings, "CONCORD_PREFILTER_BATCH_PAIRS", 50)
    return Plan(attempt=params["attempt"], batches=_chunks(pair_ids, size))


def _retries_failed(params: dict) -> bool:
    return params.get("retry_failed", True)


def _settled(*, pair_ids: list[int], judge_ids, retry_failed: bool):
    """The stored verdicts a run does not call again: answers, and failed calls too when it does not retry."""
    verdicts = JudgeVerdict.objects.filter(pair_id__in=pair_ids, judge_id__in=judge_ids)
    return verdicts.filter(error="") if retry_failed else verdicts


def _count_settled(*, pair_ids: list[int], judge_ids: list[int], retry_failed: bool) -> int:
    return sum(
        _settled(pair_ids=chunk, judge_ids=judge_ids, retry_failed=retry_failed).count()
        for chunk in _chunks(pair_ids, 5_000)
    )


def _attempt_is_current(job_id: int, attempt: int) -> bool:
    row = Job.objects.filter(pk=job_id).values_list("status", "params").first()
    return row is not None and row[0] == Job.Status.RUNNING and row[1].get("attempt") == attempt


# --- one batch ---------------------------------------------------------------------------------------


def _criteria(raw) -> list[str]:
    out = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, str) and item.strip():
            out.append(item.strip())
        elif isinstance(item, dict) and str(item.get("criterion", "")).strip():
            out.append(str(item["criterion"]).strip())
    return out


def pair_media_store(pairs: list[Pair], kinds: set[str]) -> MediaStore:
    """The bytes of every file of ``kinds`` the pairs show, read from storage once per batch."""
    digests = {
        block["media"]
        for pair in pairs
        for blocks in (pair.prompt.content, pair.response_a.content, pair.response_b.content)
        for block in iter_media(blocks or [])
        if block.get("media") and block["type"] in kinds
    }
    store = MediaStore()
    rows = {m.sha256: m for m in Media.objects.filter(sha256__in=digests)}
    for digest in digests:
        media = rows.get(digest)
        if media is None:
            store.missing[digest] = "no such media in the database"
            continue
        try:
            with default_storage.open(media.file.name, "rb") as handle:
                store.files[digest] = MediaFile(media.mime_type, handle.read())
        except OSError as exc:
            store.missing[digest] = f"the stored file cannot be read ({type(exc).__name__})"
    return store


def judge_request(pair: Pair, order: str) -> JudgeRequest:
    first, second = pair.response_a, pair.response_b
    if order == JudgeVerdict.Order.SWAPPED:
        first, second = second, first
    return JudgeRequest(
        kind=pair.campaign.kind,
        prompt=pair.prompt.content or [],
        first=first.content or [],
        second=second.content or [],
        criteria=_criteria(pair.criteria),
    )


_COLUMNS = ("pair_id", "judge_id", "order", "verdict", "score", "confidence", "raw_output", "latency_ms",
            "prompt_tokens", "completion_tokens", "error", "requests", "created_at")


def verdicts_write(rows: list[tuple]) -> int:
    """Insert verdict rows (``_COLUMNS`` order); a stored answer is never overwritten, a stored error is.

    Returns how many rows were written. Safe against concurrent writers of the same verdict.
    """
    if not rows:
        return 0
    qn = connection.ops.quote_name
    table = qn(JudgeVerdict._meta.db_table)
    columns = ", ".join(qn(c) for c in _COLUMNS)
    updates = ", ".join(f"{qn(c)} = excluded.{qn(c)}" for c in _COLUMNS[3:])
    written = 0
    for chunk in _chunks(rows, UPSERT_CHUNK):
        values = ", ".join(["(" + ", ".join(["%s"] * len(_COLUMNS)) + ")"] * len(chunk))
        sql = (
            f"INSERT INTO {table} ({columns}) VALUES {values} "
            f"ON CONFLICT ({qn('pair_id')}, {qn('judge_id')}, {qn('order')}) DO UPDATE SET {updates} "
            f"WHERE {table}.{qn('error')} <> ''"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [value for row in chunk for value in row])
            written += max(cursor.rowcount, 0)
    return written


def _row(key: tuple, call: JudgeCall, now) -> tuple:
    pair_id, judge_id, order = key
    swapped = order == JudgeVerdict.Order.SWAPPED
    label = parsing.to_canonical(call.label, swapped=swapped) if not call.error else parsing.INVALID
    score = parsing.score_to_canonical(call.score, swapped=swapped) if not call.error else None
    return (
        pair_id, judge_id, order, label, score, call.confidence, call.raw_output, call.latency_ms,
        call.prompt_tokens, call.completion_tokens, call.error, call.attempts,
        connection.ops.adapt_datetimefield_value(now),
    )


class _Writer:
    """Writes delivered calls at once and reports progress at most every PROGRESS_EVERY_S."""

    def __init__(self, job_id: int, on_progress: ProgressCallback | None):
        self.job_id = job_id
        self.on_progress = on_progress
        self.unreported = 0
        self.last_report = time.monotonic()
        self.calls = defaultdict(int)

    def __call__(self, delivered: list[tuple[WorkItem, JudgeCall]]) -> None:
        now = timezone.now()
        written = verdicts_write([_row(item.key, call, now) for item, call in delivered])
        for item, _call in delivered:
            self.calls[item.judge] += 1
        self.unreported += written
        if self.on_progress:
            self.on_progress(written)
        if time.monotonic() - self.last_report >= PROGRESS_EVERY_S:
            self.flush()

    def flush(self) -> None:
        if self.unreported:
            Job.objects.filter(pk=self.job_id).update(progress_done=F("progress_done") + self.unreported,
                                                      heartbeat_at=timezone.now())
            self.unreported = 0
        self.last_report = time.monotonic()


def prefilter_batch_run(*, job_id: int, attempt: int, pair_ids: list[int], on_progress: ProgressCallback | None = None) -> dict:
    """Make the missing calls for ``pair_ids``; a no-op when the attempt is no longer current.

    Idempotent: a second run of the same batch finds every verdict stored and calls nothing.
    """
    if not _attempt_is_current(job_id, attempt):
        return {"skipped": True, "calls": 0}
    job = Job.objects.get(pk=job_id)
    judges = list(Judge.objects.filter(pk__in=job.params["judges"]).order_by("name"))
    pairs = list(
        Pair.objects.filter(pk__in=pair_ids).select_related("campaign", "prompt", "response_a", "response_b").order_by("pk")
    )
    answered = set(
        _settled(pair_ids=pair_ids, judge_ids=[j.pk for j in judges], retry_failed=_retries_failed(job.params))
        .values_list("pair_id", "judge_id", "order")
    )
    media = MediaStore()
    backends, broken = {}, {}
    for judge in judges:
        try:
            backends[judge.name] = registry.build(name=judge.name, backend=judge.backend, settings=judge.settings, media=media)
        except JudgeConfigError as exc:
            broken[judge.name] = f"judge settings cannot work: {exc}"
    work = [
        WorkItem(judge=judge.name, key=(pair.pk, judge.pk, order), request=judge_request(pair, order))
        for pair in pairs
        for judge in judges
        for order in ORDERS
        if (pair.pk, judge.pk, order) not in answered
    ]
    writer = _Writer(job_id, on_progress)
    failed = [(item, JudgeCall(error=broken[item.judge], attempts=0)) for item in work if item.judge in broken]
    if failed:
        writer(failed)
    work = [item for item in work if item.judge not in broken]
    if work:
        kinds = set()
        for backend in backends.values():
            kinds.update(backend.settings.get("modalities", MEDIA_TYPES))
        loaded = pair_media_store(pairs, kinds)
        media.files.update(loaded.files)
        media.missing.update(loaded.missing)
        JudgeRunner(backends).run(work, deliver=writer, should_stop=lambda: not _attempt_is_current(job_id, attempt))
    writer.flush()
    return {"skipped": False, "calls": dict(writer.calls)}


# --- finishing ---------------------------------------------------------------------------------------


def _verdict_rows(*, campaign: Campaign, judge_ids: list[int]):
    return JudgeVerdict.objects.filter(pair__campaign=campaign, judge_id__in=judge_ids).values_list(
        "pair_id", "judge__name", "order", "verdict", "score", "latency_ms", "error", "created_at", "requests"
    )


def prefilter_finish(*, job_id: int, attempt: int) -> dict | None:
    """Apply the run's rule to every fully judged candidate pair and store the report.

    A no-op (None) when the run was cancelled or a newer attempt replaced this one.
    """
    with transaction.atomic():
        job = Job.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=job_id)
        if job.status != Job.Status.RUNNING or job.params.get("attempt") != attempt:
            return None
        rule = rules.rule_from_config(job.params["rule"])
        report = _decide_and_apply(job=job, rule=rule)
    job_succeed(job_id=job_id, result=report)
    return report


def _decide_and_apply(*, job: Job, rule: rules.Rule) -> dict:
    """Holds a row lock on the job. Locks the candidate pairs, moves them, and returns the report."""
    judge_ids = job.params["judges"]
    expected = len(judge_ids) * len(ORDERS)
    candidates = {p.pk: p for p in candidate_pairs(campaign=job.campaign).select_for_update(of=("self",))}
    by_pair: dict[int, list[tuple]] = defaultdict(list)
    for row in _verdict_rows(campaign=job.campaign, judge_ids=judge_ids):
        if row[0] in candidates:
            by_pair[row[0]].append(row)
    judged = {pk: rows for pk, rows in by_pair.items() if len(rows) == expected}
    changed, dropped, kept = [], 0, 0
    for pk, rows in judged.items():
        votes = [rules.Vote(judge=r[1], order=r[2], label=r[3], score=r[4], failed=bool(r[6])) for r in rows]
        decision = rules.decide(rule, votes, planned=expected)
        pair = candidates[pk]
        status = Pair.Status.DROPPED_EASY if decision.easy else status_in_annotation(
            done=pair.annotations_done, required=pair.required_annotations)
        dropped += decision.easy
        kept += not decision.easy
        if (pair.status, pair.status_reason) != (status, decision.reason):
            pair.status, pair.status_reason = status, decision.reason
            changed.append(pair)
    Pair.objects.bulk_update(changed, ["status", "status_reason"], batch_size=1_000)
    rows = [r for rows in judged.values() for r in rows]
    report = _report(job=job, rule=rule, rows=rows, dropped=dropped, kept=kept, not_judged=len(candidates) - len(judged))
    # Pairs no run may move (claimed, rated or restored by a curator) stay in annotation: the funnel counts them
    # with the kept ones. The campaign's counts after the run come from the funnel's own selector, so the report
    # and the funnel never disagree.
    from curation.selectors.console import ANNOTATION_STATUSES, campaign_funnel

    report["left_alone"] = (Pair.objects.filter(campaign=job.campaign, status__in=ANNOTATION_STATUSES)
                            .exclude(pk__in=list(candidates)).count())
    report["campaign_after"] = campaign_funnel(campaign=job.campaign)["prefilter"]
    return report


def _report(*, job: Job, rule: rules.Rule, rows: list[tuple], dropped: int, kept: int, not_judged: int) -> dict:
    figures = metrics.judge_figures(
        metrics.VerdictRow(pair=r[0], judge=r[1], order=r[2], label=r[3], latency_ms=r[5], error=bool(r[6])) for r in rows
    )
    samples: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        if r[6] and r[6] not in samples[r[1]] and len(samples[r[1]]) < 3:
            samples[r[1]].append(r[6])
    started = job.started_at
    for name, entry in figures.items():
        this_run = [r for r in rows if r[1] == name and started and r[7] >= started]
        entry["verdicts_stored"] = len(this_run)
        entry["calls_made"] = sum(r[8] for r in this_run)
    for name in job.params["judge_names"]:
        figures.setdefault(name, {"calls": 0, "errors": 0, "abstained": 0, "abstained_rate": 0.0, "invalid": 0,
                                  "invalid_rate": 0.0, "position_consistency": None,
                                  "latency_ms": {"mean": None, "p50": None, "p95": None}, "verdicts_stored": 0,
                                  "calls_made": 0})
    return {
        "job": job.pk,
        "campaign": job.campaign.slug,
        "pairs": len({r[0] for r in rows}),
        "verdicts": len(rows),
        "invalid": sum(1 for r in rows if r[3] == JudgeVerdict.Verdict.INVALID and not r[6]),
        "abstained": sum(1 for r in rows if r[3] == JudgeVerdict.Verdict.ABSTAIN),
        "errors": sum(1 for r in rows if r[6]),
        "dropped_easy": dropped,
        "kept": kept,
        "not_judged": not_judged,
        "verdicts_stored": sum(entry["verdicts_stored"] for entry in figures.values()),
        "calls_made": sum(entry["calls_made"] for entry in figures.values()),
        "planned_votes": len(job.params["judges"]) * len(ORDERS),
        "rule": rule.as_config(),
        "per_judge": dict(sorted(figures.items())),
        "error_samples": dict(samples),
    }


# --- running ------------------------------------------------------------------------------------------


def prefilter_dispatch(*, job_id: int) -> None:
    """Start a new attempt and fan its batches out as a Celery chord that finishes the run."""
    from celery import chord

    from curation.tasks import prefilter_batch_task, prefilter_finish_task

    plan = prefilter_prepare(job_id=job_id)
    if plan is None:
        return
    if not plan.batches:
        prefilter_finish(job_id=job_id, attempt=plan.attempt)
        return
    header = [prefilter_batch_task.si(job_id, plan.attempt, batch) for batch in plan.batches]
    chord(header, prefilter_finish_task.si(job_id, plan.attempt)).apply_async()


def prefilter_run_inline(
    *,
    job_id: int,
    on_progress: ProgressCallback | None = None,
    on_plan: Callable[[int, int], None] | None = None,
) -> dict | None:
    """Run the whole pre-filter in this process (the command line); None when it was cancelled.

    ``on_plan(total, done)`` hears how many verdicts the run needs and how many are already stored.
    """
    try:
        with job_lease(job_id=job_id, shared=True):
            plan = prefilter_prepare(job_id=job_id)
            if plan is None:
                return None
            if on_plan is not None:
                job = Job.objects.get(pk=job_id)
                on_plan(job.progress_total, job.progress_done)
            for batch in plan.batches:
                if not _attempt_is_current(job_id, plan.attempt):
                    return None
                prefilter_batch_run(job_id=job_id, attempt=plan.attempt, pair_ids=batch, on_progress=on_progress)
            return prefilter_finish(job_id=job_id, attempt=plan.attempt)
    except Exception as exc:
        job_fail(job_id=job_id, error=f"{type(exc).__name__}: {exc}")
        raise


# --- pairs --------------------------------------------------------------------------------------------


@transaction.atomic
def pair_restore(*, pair: Pair, user: User) -> Pair:
    """Put a pair the pre-filter dropped back into the annotation queue; later runs leave it there."""
    pair = Pair.objects.select_for_update().get(pk=pair.pk)
    if pair.status != Pair.Status.DROPPED_EASY:
        raise ApplicationError(
            f"pair {pair.external_id!r} is {pair.get_status_display().lower()}, not dropped by the pre-filter",
            code="pair_not_dropped",
            status_code=409,
        )
    pair.status = status_in_annotation(done=pair.annotations_done, required=pair.required_annotations)
    pair.status_reason = f"restored by {getattr(user, 'username', None) or 'a curator'} after the pre-filter"[:200]
    pair.save(update_fields=["status", "status_reason"])
    return pair
