"""Agreement reports: computed from the database in one streamed read, stored per campaign and per slice."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

import numpy as np
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotation.catalogue.models import Campaign
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
from annotation.workqueue.models import Annotation
from core.errors import ApplicationError
from curation.agreement.report import agreement_report, alpha_steps
from curation.agreement.table import RatingTable
from curation.models import AgreementReport
from curation.selectors.agreement import HEADLINE
from curation.selectors.ratings import PairFacts, pair_facts, rating_table

if TYPE_CHECKING:
    from annotation.accounts.models import User

JOB_KIND = "agreement"
MAX_RESAMPLES = 100_000
SLICE_KEY_LENGTH = 200


def validate_parameters(*, bootstrap: object, seed: object, quality: dict | None = None) -> dict:
    """The report parameters, checked; ApplicationError names the bad one."""
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or not 0 <= bootstrap <= MAX_RESAMPLES:
        raise ApplicationError(f"bootstrap must be a whole number of resamples from 0 to {MAX_RESAMPLES:,}",
                               code="invalid_bootstrap")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise ApplicationError("seed must be a whole number from 0 to 2**32 − 1", code="invalid_seed")
    if quality:
        raise ApplicationError(
            f"quality parameter(s) {', '.join(sorted(quality))} refused: the annotator-quality flags follow one set of "
            "rules, shared by the report and the dashboards (curation/quality.py, docs/agreement.md), and take no "
            "parameters", code="invalid_quality")
    return {"bootstrap": bootstrap, "seed": seed, "quality": {}}


def _week_label(period: int) -> str:
    return f"{period // 100}-W{period % 100:02d}"


def report_slices(table: RatingTable, facts: PairFacts) -> list[tuple[str, np.ndarray]]:
    """(slice key, annotation mask) for the source benchmark, task and ISO week of each rating.

    A dimension with a single value is left out: its slice would repeat the whole campaign's report.
    """
    out = []
    for dimension, per_pair in (("source", facts.source), ("task", facts.source_task)):
        if len(per_pair) == 0:
            continue
        labels, inverse = np.unique(per_pair.astype(str), return_inverse=True)
        per_row = inverse[table.pair]
        present = np.unique(per_row)
        if len(present) < 2:
            continue
        for code in present:
            key = f"{dimension}={labels[code] or '(none)'}"[:SLICE_KEY_LENGTH]
            out.append((key, per_row == code))
    weeks = np.unique(table.period)
    if len(weeks) >= 2:
        out.extend((f"week={_week_label(int(w))}", table.period == w) for w in weeks)
    return out


def agreement_compute(*, campaign: Campaign, bootstrap: int = 1000, seed: int = 0, quality: dict | None = None,
                      slices: bool = True, job: Job | None = None,
                      progress: Callable[[int, int], None] | None = None) -> AgreementReport:
    """Compute and store the campaign's report and, with ``slices``, one per slice; returns the campaign's.

    Reads every rating with one streamed query. ``progress(done, total)`` counts ratings read, then alpha
    levels computed; it may raise to abandon the run. A re-run for the same job replaces that job's reports, so a redelivered task
    stores each report once.
    """
    parameters = validate_parameters(bootstrap=bootstrap, seed=seed, quality=quality)
    facts = pair_facts(campaign=campaign)
    state = {"done": 0, "total": max(facts.expected_ratings, 1)}

    def advance(done: int | None = None) -> None:
        state["done"] = done if done is not None else state["done"] + 1
        state["total"] = max(state["total"], state["done"])
        if progress:
            progress(state["done"], state["total"])

    table = rating_table(campaign=campaign, facts=facts, progress=advance)
    portions = [("", None)] + (report_slices(table, facts) if slices else [])
    state["total"] = state["done"] + alpha_steps(table) * len(portions)
    reports = []
    for key, mask in portions:
        part = table if mask is None else table.restrict(mask)
        report = agreement_report(part, bootstrap=bootstrap, seed=seed, progress=advance)
        report["slice"] = key
        reports.append(AgreementReport(campaign=campaign, slice_key=key, job=job, report=report,
                                       params={**parameters, "slices": slices}))
    with transaction.atomic():
        if job is not None:
            AgreementReport.objects.filter(job=job).delete()
        AgreementReport.objects.bulk_create(reports)
    return reports[0]


def headline(report: dict) -> dict:
    """The figures a job result and a trend point carry."""
    return {key: report.get(key) for key in HEADLINE}


def agreement_job_create(*, campaign: Campaign, created_by: User | None = None, bootstrap: int = 1000, seed: int = 0,
                         quality: dict | None = None) -> Job:
    """A queued agreement job; its task is enqueued once the surrounding transaction commits."""
    parameters = validate_parameters(bootstrap=bootstrap, seed=seed, quality=quality)
    job = job_create(kind=JOB_KIND, campaign=campaign, params=parameters, created_by=created_by)
    from curation.tasks import agreement_compute as task

    job_dispatch(job=job, task=task, args=[job.pk])
    return job


def agreement_job_run(*, job_id: int) -> None:
    """Run a queued agreement job; a job already finished or cancelled is left as it is."""
    job = job_start(job_id=job_id)
    if job.status != Job.Status.RUNNING or job.campaign_id is None:
        return
    params = job.params
    written = {"done": -1}

    def report_progress(done: int, total: int) -> None:
        """Write progress about every 1% and stop when the curator has cancelled the job."""
        if done - written["done"] < max(1, total // 100) and done < total:
            return
        written["done"] = done
        job_progress(job_id=job_id, done=done, total=total)
        if job_is_cancelled(job_id=job_id):
            raise JobCancelled

    finished, report = job_attempt(job_id=job_id, work=lambda: agreement_compute(
        campaign=job.campaign, bootstrap=params.get("bootstrap", 1000), seed=params.get("seed", 0),
        quality=params.get("quality"), job=job, progress=report_progress))
    if not finished or report is None:
        return
    job.refresh_from_db(fields=["progress_total"])
    job_progress(job_id=job_id, done=job.progress_total or 0)
    job_succeed(job_id=job_id, result={"report_id": report.pk, **headline(report.report)})


def agreement_schedule_due(*, min_age: timedelta = timedelta(minutes=50)) -> list[Job]:
    """Queue an agreement job for every active campaign rated since its last report.

    Skips a campaign whose agreement job is still queued or running, and one whose last report is
    younger than ``min_age``, so a schedule that fires twice queues nothing more.
    """
    now = timezone.now()
    jobs = []
    for campaign in Campaign.objects.filter(status=Campaign.Status.ACTIVE).order_by("id"):
        busy = Job.objects.filter(campaign=campaign, kind=JOB_KIND, status__in=[Job.Status.QUEUED, Job.Status.RUNNING])
        if busy.exists():
            continue
        last = AgreementReport.objects.filter(campaign=campaign, slice_key="").aggregate(at=Max("computed_at"))["at"]
        latest_rating = Annotation.objects.filter(pair__campaign=campaign).aggregate(at=Max("created_at"))["at"]
        if latest_rating is None or (last is not None and (latest_rating <= last or now - last < min_age)):
            continue
        with transaction.atomic():
            jobs.append(agreement_job_create(campaign=campaign))
    return jobs
