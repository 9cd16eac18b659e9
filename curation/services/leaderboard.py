"""The model leaderboard off the request path: a board never fitted before is fitted by a background job.

A request (the API, the console page) reads the ratings of its scope, and serves the board of exactly those
comparisons when it was fitted before (``stored_leaderboard``: the cache, or a finished fit job); otherwise it
starts a ``leaderboard_fit`` job, or joins the one already fitting the same comparisons (one job per board
digest, however many curators ask at once), and answers with the job for a progress bar. The fit reports its
progress per bootstrap resample. With eager tasks (the embedded default) the job has run when the request
looks again, so the board is served at once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from annotation.jobs.models import Job
from annotation.jobs.services import (
    JobCancelled,
    job_attempt,
    job_create_once,
    job_dispatch,
    job_is_cancelled,
    job_progress,
    job_start,
    job_succeed,
)
from curation.selectors.leaderboard import (
    FIT_JOB_KIND,
    board_key,
    check_bootstrap,
    check_bootstrap_budget,
    fitted_leaderboard,
    leaderboard_campaigns,
    leaderboard_scope,
    stored_leaderboard,
)

if TYPE_CHECKING:
    from annotation.accounts.models import User
    from annotation.catalogue.models import Campaign

# A fit job writes its progress at most this often (and at every 1%), not once per resample.
PROGRESS_EVERY_S = 0.25


@dataclass(frozen=True)
class LeaderboardAnswer:
    """A request's answer: the report (its ``leaderboard`` ready), or the fit job its board waits on."""

    report: dict
    job: Job | None


def leaderboard_answer(*, campaigns: list[Campaign], kind: str = "", source: str = "", bootstrap: int = 200,
                       seed: int = 0, created_by: User | None = None) -> LeaderboardAnswer:
    """The leaderboard a curator asks for, never fitted here: the stored board of exactly the scope's comparisons,
    or the ``leaderboard_fit`` job (started, or already running for the same comparisons) that fits it.

    400 ``bootstrap_over_budget`` (``check_bootstrap_budget``) before any job starts; 503 ``broker_unavailable``
    when the task queue does not take the job.
    """
    check_bootstrap(bootstrap)
    scope = leaderboard_scope(campaigns=campaigns, kind=kind, source=source)
    if len(scope.comparisons.models) < 2:
        return LeaderboardAnswer(report=scope.report(None), job=None)  # nothing to fit
    key = board_key(scope.comparisons, bootstrap=bootstrap, seed=seed)
    found = stored_leaderboard(key=key)
    if found is None:
        check_bootstrap_budget(scope.comparisons, bootstrap=bootstrap)
        job = leaderboard_fit_job_start(campaigns=campaigns, kind=kind, source=source, bootstrap=bootstrap, seed=seed,
                                        key=key, comparisons=len(scope.comparisons), created_by=created_by)
        job.refresh_from_db()
        # An eager task (the embedded default) has fitted the board by now; a worker's job is followed by its bar.
        found = stored_leaderboard(key=key) if job.status == Job.Status.SUCCEEDED else None
        if found is None:
            return LeaderboardAnswer(report=scope.report(None), job=job)
    return LeaderboardAnswer(report=scope.report(found["board"]), job=None)


def leaderboard_fit_job_start(*, campaigns: list[Campaign], kind: str, source: str, bootstrap: int, seed: int,
                              key: str, comparisons: int, created_by: User | None = None) -> Job:
    """The queued or running fit job of the board ``key``, or a new one, sent once the transaction commits."""
    from curation.tasks import leaderboard_fit_task

    params = {"campaigns": [c.slug for c in campaigns], "kind": kind, "source": source, "bootstrap": bootstrap,
              "seed": seed, "comparisons": comparisons}
    return job_create_once(kind=FIT_JOB_KIND, key=key, params=params, created_by=created_by, total=bootstrap + 1,
                           campaign=campaigns[0] if len(campaigns) == 1 else None,
                           dispatch=lambda job: job_dispatch(job=job, task=leaderboard_fit_task, args=[job.pk]))


def leaderboard_fit_job_run(*, job_id: int) -> None:
    """Fit a queued job's board (its campaigns' ratings as they are now) into the cache and the job's result
    (``digest``, ``board``); a job already finished or cancelled is left as it is.

    The ratings are read again here: when they changed since the request, the board fitted is that of the new
    ratings, stored under their own digest (a cached board is never one of other data).
    """
    job = job_start(job_id=job_id)
    if job.status != Job.Status.RUNNING:
        return
    params = job.params
    written = {"done": 0, "at": time.monotonic()}

    def report_progress(done: int, total: int) -> None:
        """Write progress every 1% or quarter second, and stop when the curator has cancelled the job."""
        now = time.monotonic()
        if done < total and done - written["done"] < max(1, total // 100) and now - written["at"] < PROGRESS_EVERY_S:
            return
        written.update(done=done, at=now)
        job_progress(job_id=job_id, done=done, total=total)
        if job_is_cancelled(job_id=job_id):
            raise JobCancelled

    def fit() -> tuple[str, dict | None]:
        scope = leaderboard_scope(campaigns=leaderboard_campaigns(slugs=params["campaigns"]), kind=params["kind"],
                                  source=params["source"])
        key = board_key(scope.comparisons, bootstrap=params["bootstrap"], seed=params["seed"])
        return key, fitted_leaderboard(scope.comparisons, bootstrap=params["bootstrap"], seed=params["seed"],
                                       progress=report_progress)

    finished, fitted = job_attempt(job_id=job_id, work=fit)
    if not finished or fitted is None:
        return
    key, board = fitted
    job_progress(job_id=job_id, done=params["bootstrap"] + 1)
    job_succeed(job_id=job_id, result={"digest": key, "board": board})
