"""Soak: raters claim → submit over HTTP for minutes while the Celery worker is killed and restarted and Redis is
restarted, and curators start agreement and consensus jobs throughout; then every figure that must be 0 is counted.

    .venv/bin/python bench/soak.py --raters 50 --minutes 10 --kill-every 120 --redis-restart-at 300

Everything on 127.0.0.1, in the separate database ``concord_soak`` (dropped and recreated), with a private
redis-server on a free port as broker, result store and cache:

1. migrate; ``--raters`` annotators and one curator, with passwords; a campaign of ``--pairs`` pairs (overlap 3);
2. gunicorn serves Concord (``config.settings.local``, debug off, ``REDIS_URL`` = the private Redis); one Celery
   worker (every queue, prefork) and Celery beat (the one schedule: the reaper every 2 minutes), with the reaper's
   thresholds at ``--stall`` seconds;
3. each rater signs in through the log-in page, then loops claim → submit (a failed submit is sent again with the
   same Idempotency-Key, as the workspace does) and signs in again every minute; the curator starts a pre-filter
   run of ``--prefilter-pairs`` pairs whose judge answers in ``--judge-seconds`` (minutes of work, so worker kills
   interrupt it), then an agreement and a consensus job every ``--job-every`` seconds; after an acknowledged submit
   a rater withdraws it with probability ``--withdraw-share`` (and then, with probability ``--resubmit-share``, tries
   to submit the withdrawn assignment again, with its own Idempotency-Key or a new one: it must be refused with 409
   ``assignment_withdrawn``), or corrects one of its last 20 answers with probability ``--correct-share``;
4. every ``--kill-every`` seconds the worker's process group gets SIGKILL and a new worker starts 2 s later; at
   ``--redis-restart-at`` seconds Redis is killed and a new, empty one starts ``--redis-down`` seconds later
   (queued messages, chord counters and cached counts are gone: the harshest restart); raters keep signing in
   while it is down. With ``--redis-restart-during-prefilter`` the restart waits, from ``--redis-restart-at`` on,
   until the pre-filter job is ``running`` with verdicts stored (read from the database), so the outage falls on a
   worker in the middle of it. A worker that exits when it was not killed is counted (an anomaly) and started again;
5. after the load, waits up to ``--settle`` seconds for the jobs to finish, then prints: submits, over-assignment
   (pairs with more annotations than they require), duplicates (two annotations by one rater of one pair), lost
   submissions (acknowledged but not stored), 5xx answers (by request), stuck jobs (still queued or running), and
   job starts refused with 503 while Redis was down (by design: each such job is failed with its reason); and the
   anomalies of review and correct: counter drift (a pair whose ``active_claims`` or ``annotations_done`` is not the
   count of its live leases or stored answers), withdrawn answers accepted (a 2xx to a withdrawn assignment's
   submit) or stored, corrections lost (acknowledged without their revision), blocked pairs (queued with a free
   slot, yet not given to a new member who claims until 204; or complete with a free slot), unexpected worker exits,
   and the worker log's broker errors. Every anomaly must be 0.

Never part of ``make test``. Figures and their command go in ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from annotate_load import PG, _free_port, _wait_for, copy_campaign, recreate_database  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DB = "concord_soak"
SLUG = "soak"
PREFILTER_SLUG = "soak-prefilter"
PASSWORD = "soak-password-1"
QUEUES = "celery,imports,judges,analytics,releases"
ANSWER = {"values": {"preference": "A"}, "time_on_item_ms": 1000}
# What a worker logs when it loses its broker the way docs/decisions/worker-broker-restarts.md describes.
BROKER_ERRORS = ("Unrecoverable error", "AttributeError", "Error on restarting")


class Redis:
    def __init__(self, folder: Path):
        self.folder, self.port, self.process = folder, _free_port(), None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_for(self.port)

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


def soak_env(redis: Redis, stall: int) -> dict:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DATABASE_URL": PG + DB,
        "DJANGO_DEBUG": "false",
        "DJANGO_LOG_LEVEL": "ERROR",
        "REDIS_URL": redis.url,
        "CONCORD_JOB_STALL_SECONDS": str(stall),
        "CONCORD_JOB_QUEUED_SECONDS": str(stall),
        "CONCORD_JOB_MAX_DISPATCHES": "10",
    }


def spawn(command: list[str], env: dict, log: Path) -> subprocess.Popen:
    with log.open("ab") as handle:
        return subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True, stdout=handle, stderr=handle)


def kill_group(process: subprocess.Popen, sig=signal.SIGKILL) -> None:
    if process.poll() is None:
        os.killpg(process.pid, sig)
        process.wait(timeout=60)


def setup(raters: int, pairs: int, prefilter_pairs: int, judge_seconds: float) -> None:
    """The database, the accounts, the raters' campaign, and a campaign of pairs awaiting a slow judge's pre-filter."""
    import django

    os.environ.update({"DJANGO_SETTINGS_MODULE": "config.settings.local", "DATABASE_URL": PG + DB,
                       "DJANGO_DEBUG": "false"})
    sys.path.insert(0, str(ROOT))
    os.environ.pop("REDIS_URL", None)
    os.environ.pop("CACHE_URL", None)
    recreate_database(DB)
    django.setup()
    from django.contrib.auth.hashers import make_password

    from annotation.accounts.models import User

    password = make_password(PASSWORD)
    User.objects.bulk_create([User(username=f"bench-rater-{i}", role="annotator", password=password)
                              for i in range(raters)])
    User.objects.create(username="soak-curator", role="curator", password=password)
    copy_campaign(SLUG, pairs)
    if prefilter_pairs:
        from annotation.catalogue.models import Campaign, Pair
        from curation.services.judges import judge_create

        copy_campaign(PREFILTER_SLUG, prefilter_pairs)
        Campaign.objects.filter(slug=PREFILTER_SLUG).update(requires_prefilter=True)
        Pair.objects.filter(campaign__slug=PREFILTER_SLUG).update(status=Pair.Status.PENDING)
        judge_create(name="soak-slow", backend="python", settings={
            "callable": "bench.soak_judge.slow_judge", "options": {"seconds": judge_seconds}, "concurrency": 2})


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts: Counter = Counter()
        self.acknowledged: set[int] = set()
        self.withdrawn: set[int] = set()
        self.corrected: set[int] = set()
        self.durations: dict[str, list[float]] = {}

    def took(self, key: str, seconds: float) -> None:
        with self.lock:
            self.durations.setdefault(key, []).append(seconds)

    def spread(self) -> dict:
        """Median, 95th percentile and slowest seconds of each timed kind of request."""
        out = {}
        for key, values in sorted(self.durations.items()):
            ordered = sorted(values)
            out[key] = {"n": len(ordered), "p50": round(ordered[len(ordered) // 2], 2),
                        "p95": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 2),
                        "max": round(ordered[-1], 2)}
        return out

    def add(self, key: str, n: int = 1) -> None:
        with self.lock:
            self.counts[key] += n


def signed_in(base: str, username: str, timeout: float) -> httpx.Client:
    """A client with a session from the log-in page (CSRF token and all); raises on anything but a redirect."""
    client = httpx.Client(base_url=base, timeout=timeout)
    client.get("/login/")
    answer = client.post("/login/", data={"username": username, "password": PASSWORD,
                                          "csrfmiddlewaretoken": client.cookies["csrftoken"]})
    if answer.status_code != 302:
        client.close()
        if answer.status_code >= 500:
            raise ServerError(f"log-in answered {answer.status_code}")
        raise RuntimeError(f"log-in answered {answer.status_code}")
    client.headers["X-CSRFToken"] = client.cookies["csrftoken"]
    return client


class ServerError(RuntimeError):
    """A 5xx where a log-in expected its redirect."""


@dataclass(frozen=True)
class Review:
    """How often a rater changes its mind: shares of acknowledged submits withdrawn or followed by a correction,
    and of withdrawals followed by a submit of the withdrawn assignment."""

    withdraw: float = 0.0
    correct: float = 0.0
    resubmit: float = 0.5


def rater_loop(base: str, username: str, end: float, tally: Tally, redis_down: threading.Event, timeout: float,
               review: Review = Review(), seed: int = 0) -> None:
    client, signed_at = None, 0.0
    rng = random.Random(seed)
    answered: list[int] = []  # this rater's acknowledged, not withdrawn answers, newest last
    while time.monotonic() < end:
        try:
            if client is None or time.monotonic() - signed_at > 60:
                if client is not None:
                    client.post("/logout/")
                    client.close()
                client, signed_at = None, time.monotonic()
                down, began = redis_down.is_set(), time.monotonic()
                client = signed_in(base, username, timeout)
                if down and redis_down.is_set():
                    tally.add("log-ins while Redis was down")
                    tally.took("log-in while Redis was down", time.monotonic() - began)
                else:
                    tally.add("log-ins")
                    tally.took("log-in", time.monotonic() - began)
            claim = client.post(f"/api/v1/campaigns/{SLUG}/claim/")
            _count(tally, "claim", claim.status_code)
            if claim.status_code == 204:
                time.sleep(1)
                continue
            if claim.status_code != 200:
                continue
            assignment = claim.json()["assignment"]
            key = submit_with_retries(client, assignment, tally)
            if key is None:
                continue
            draw = rng.random()
            if draw < review.withdraw:
                withdraw(client, assignment, key, tally, resubmit=rng.random() < review.resubmit,
                         same_key=rng.random() < 0.5)
                continue
            if draw < review.withdraw + review.correct and answered:
                correct(client, rng.choice(answered[-20:]), tally)
            answered.append(assignment)
        except (httpx.HTTPError, RuntimeError) as exc:
            tally.add(f"client error {type(exc).__name__}")
            if isinstance(exc, ServerError):
                tally.add("5xx")
            if client is not None:
                client.close()
            client = None
            time.sleep(0.5)
    if client is not None:
        client.close()


def submit_with_retries(client: httpx.Client, assignment: int, tally: Tally) -> str | None:
    """Submit, sending the same Idempotency-Key again after a 5xx or a timeout, as the workspace does; the key when
    the submit was acknowledged, else None."""
    key = str(uuid.uuid4())
    for _attempt in range(5):
        try:
            submit = client.post(f"/api/v1/assignments/{assignment}/submit/", headers={"Idempotency-Key": key},
                                 json=ANSWER)
        except httpx.TimeoutException:
            tally.add("submit timed out, sent again")
            continue
        _count(tally, "submit", submit.status_code)
        if submit.status_code in (200, 201):
            with tally.lock:
                tally.acknowledged.add(assignment)
            return key
        if submit.status_code < 500:
            return None
        time.sleep(0.5)
    return None



def _code(answer: httpx.Response) -> str:
    try:
        return str(answer.json().get("code", ""))
    except ValueError:
        return ""


def withdraw(client: httpx.Client, assignment: int, key: str, tally: Tally, *, resubmit: bool, same_key: bool) -> None:
    """Withdraw an acknowledged answer (sent again after a timeout: a 409 ``assignment_withdrawn`` then means the
    first one went through); then, when ``resubmit``, submit the withdrawn assignment again, which must be refused."""
    for attempt in range(3):
        try:
            answer = client.post(f"/api/v1/assignments/{assignment}/withdrawal/")
        except httpx.TimeoutException:
            tally.add("withdrawal timed out, sent again")
            continue
        code = _code(answer)
        _count(tally, f"withdraw {code}" if code else "withdraw", answer.status_code)
        done = answer.status_code == 200 or (attempt and answer.status_code == 409 and code == "assignment_withdrawn")
        if done:
            break
        return
    else:
        return
    with tally.lock:
        tally.acknowledged.discard(assignment)
        tally.withdrawn.add(assignment)
    if not resubmit:
        return
    again = client.post(f"/api/v1/assignments/{assignment}/submit/",
                        headers={"Idempotency-Key": key if same_key else str(uuid.uuid4())}, json=ANSWER)
    code = _code(again)
    _count(tally, f"submit of a withdrawn assignment {code}" if code else "submit of a withdrawn assignment",
           again.status_code)
    if again.status_code < 300:
        tally.add("withdrawn answers accepted")


def correct(client: httpx.Client, assignment: int, tally: Tally) -> None:
    """Change an earlier answer to B (a 409 ``pair_decided`` once consensus took its pair is by design)."""
    try:
        answer = client.post(f"/api/v1/assignments/{assignment}/correction/", json={"values": {"preference": "B"}})
    except httpx.TimeoutException:
        tally.add("correction timed out")
        return
    code = _code(answer)
    _count(tally, f"correct {code}" if code else "correct", answer.status_code)
    if answer.status_code == 200:
        with tally.lock:
            tally.corrected.add(assignment)


def _count(tally: Tally, what: str, status: int) -> None:
    tally.add(f"{what} {status}")
    if status >= 500:
        tally.add("5xx")


def curator_loop(base: str, end: float, every: float, tally: Tally, redis_down: threading.Event,
                 timeout: float, prefilter: bool) -> None:
    client = None
    while time.monotonic() < end:
        try:
            client = client or signed_in(base, "soak-curator", timeout)
            if prefilter:
                answer = client.post(f"/api/v1/prefilter/campaigns/{PREFILTER_SLUG}/start/", json={"judges": ["soak-slow"]})
                _count(tally, "prefilter start", answer.status_code)
                prefilter = answer.status_code != 202
            for kind, path in (("agreement", f"/api/v1/campaigns/{SLUG}/agreement/jobs/"),
                               ("consensus", f"/api/v1/campaigns/{SLUG}/consensus/jobs/")):
                began = time.monotonic()
                answer = client.post(path, json={"bootstrap": 50} if kind == "agreement" else {})
                if answer.status_code == 503 and redis_down.is_set():
                    tally.add("job starts refused (503) while Redis was down")
                    tally.took("job start answered 503", time.monotonic() - began)
                else:
                    _count(tally, f"{kind} start", answer.status_code)
        except (httpx.HTTPError, RuntimeError) as exc:
            tally.add(f"client error {type(exc).__name__}")
            if isinstance(exc, ServerError):
                tally.add("5xx")
            client = None
        time.sleep(every)


def prefilter_running() -> dict | None:
    """The running pre-filter job's id, attempt and progress once it judged something (the worker is in the middle
    of it), else None."""
    from annotation.jobs.models import Job

    job = Job.objects.filter(kind="prefilter", status=Job.Status.RUNNING, progress_done__gt=0).order_by("pk").first()
    if job is None:
        return None
    return {"job": job.pk, "attempt": job.params.get("attempt"), "progress": [job.progress_done, job.progress_total]}


def settle(seconds: float) -> int:
    """Wait for every job to leave queued/running; the number still there when time runs out."""
    from annotation.jobs.models import Job

    deadline = time.monotonic() + seconds
    while True:
        unfinished = Job.objects.filter(status__in=[Job.Status.QUEUED, Job.Status.RUNNING]).count()
        if unfinished == 0 or time.monotonic() > deadline:
            return unfinished
        time.sleep(5)


def database_waits() -> list[dict]:
    """What the soak database's other sessions are doing (for stuck jobs): state, wait, query, seconds."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, state, wait_event_type, wait_event, left(query, 120), "
            "extract(epoch FROM now() - coalesce(xact_start, query_start))::int FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'")
        columns = ("pid", "state", "wait_type", "wait", "query", "seconds")
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def _counted_pairs():
    """Every pair with ``live`` (its live leases) and ``stored`` (its stored answers) counted from the rows."""
    from django.db.models import Count, IntegerField, OuterRef, Subquery
    from django.db.models.functions import Coalesce

    from annotation.catalogue.models import Pair
    from annotation.workqueue.models import Annotation, Assignment

    live = (Assignment.objects.filter(pair_id=OuterRef("pk"), status=Assignment.Status.ACTIVE)
            .values("pair_id").annotate(n=Count("pk")).values("n"))
    stored = Annotation.objects.filter(pair_id=OuterRef("pk")).values("pair_id").annotate(n=Count("pk")).values("n")
    return Pair.objects.annotate(live=Coalesce(Subquery(live, output_field=IntegerField()), 0),
                                 stored=Coalesce(Subquery(stored, output_field=IntegerField()), 0))


def counter_drift() -> int:
    """Pairs whose counters are not what their rows say: ``active_claims`` the live leases, ``annotations_done``
    the stored answers."""
    from django.db.models import F, Q

    return _counted_pairs().filter(~Q(active_claims=F("live")) | ~Q(annotations_done=F("stored"))).count()


def open_pairs(slug: str, status: str) -> set[int]:
    """Pairs of the campaign in ``status`` whose live leases and stored answers, counted from the rows, leave a slot."""
    from django.db.models import F

    return set(_counted_pairs().filter(campaign__slug=slug, status=status, required_annotations__gt=F("live") + F("stored"))
               .values_list("pk", flat=True))


def blocked_pairs(limit: int) -> dict:
    """A new member who never had a pair claims (and skips) until told 204: a queued pair with a free slot it never
    got is blocked; so is a complete pair with a free slot (out of the queue for no reason). When the walk takes more
    than ``limit`` claims (the campaign is far from done) the queued pairs are not judged."""
    from annotation.accounts.models import User
    from annotation.catalogue.models import Campaign, Pair
    from annotation.workqueue.services.assignments import assignment_claim, assignment_skip

    complete = open_pairs(SLUG, Pair.Status.COMPLETE)
    queued = open_pairs(SLUG, Pair.Status.QUEUED)
    campaign = Campaign.objects.get(slug=SLUG)
    member = User.objects.create(username=f"soak-late-member-{uuid.uuid4().hex[:8]}", role="annotator")
    campaign.members.add(member)
    got: set[int] = set()
    for _ in range(limit):
        assignment = assignment_claim(campaign=campaign, annotator=member)
        if assignment is None:
            break
        got.add(assignment.pair_id)
        assignment_skip(assignment=assignment, annotator=member, reason="soak: checking that every open pair is claimable")
    else:
        return {"complete_with_a_free_slot": len(complete), "queued_with_a_free_slot": len(queued),
                "queued_not_claimable": None, "claims": limit, "walk": f"stopped after {limit} claims"}
    return {"complete_with_a_free_slot": len(complete), "queued_with_a_free_slot": len(queued),
            "queued_not_claimable": len(queued - got), "claims": len(got), "walk": "ended with nothing left (204)"}


def broker_errors(log: Path) -> dict:
    text = log.read_text(errors="replace") if log.exists() else ""
    return {marker: text.count(marker) for marker in BROKER_ERRORS}


def figures(tally: Tally, stuck: int, started: float) -> dict:
    from django.db.models import Count, F

    from annotation.catalogue.models import Pair
    from annotation.jobs.models import Job
    from annotation.workqueue.models import Annotation, AnnotationRevision

    stored = set(Annotation.objects.filter(assignment_id__in=tally.acknowledged).values_list("assignment_id", flat=True))
    revised = set(AnnotationRevision.objects.filter(assignment_id__in=tally.corrected,
                                                    kind=AnnotationRevision.Kind.CORRECTED)
                  .values_list("assignment_id", flat=True))
    over = Pair.objects.filter(campaign__slug=SLUG).annotate(n=Count("annotations")).filter(
        n__gt=F("required_annotations")).count()
    duplicates = (Annotation.objects.filter(pair__campaign__slug=SLUG).values("pair_id", "annotator_id")
                  .annotate(n=Count("id")).filter(n__gt=1).count())
    jobs = Counter(f"{kind} {status}" for kind, status in Job.objects.values_list("kind", "status"))
    prefilter = [{"status": job.status, "attempts": job.params.get("attempt"), "sent": job.dispatches,
                  "verdicts": (job.result or {}).get("verdicts"), "progress": [job.progress_done, job.progress_total]}
                 for job in Job.objects.filter(kind="prefilter").order_by("pk")]
    reasons = Counter(error.split(";")[0][:90] for error in Job.objects.filter(status=Job.Status.FAILED)
                      .values_list("error", flat=True))
    return {
        "elapsed_seconds": round(time.monotonic() - started),
        "submits": Annotation.objects.filter(pair__campaign__slug=SLUG).count(),
        "submits_acknowledged": len(tally.acknowledged),
        "over_assignment": over,
        "duplicates": duplicates,
        "lost_submissions": len(tally.acknowledged - stored),
        "5xx": tally.counts.get("5xx", 0),
        "stuck_jobs": stuck,
        "counter_drift": counter_drift(),
        "withdrawn_answers_accepted": tally.counts.get("withdrawn answers accepted", 0),
        "withdrawn_answers_stored": Annotation.objects.filter(assignment_id__in=tally.withdrawn).count(),
        "corrections_lost": len(tally.corrected - revised),
        "withdrawals": len(tally.withdrawn),
        "corrections": len(tally.corrected),
        "job_starts_refused_while_redis_down": tally.counts.get("job starts refused (503) while Redis was down", 0),
        "log_ins_while_redis_down": tally.counts.get("log-ins while Redis was down", 0),
        "jobs_resent_by_the_reaper": Job.objects.filter(dispatches__gt=1).count(),
        "seconds": tally.spread(),
        "jobs": dict(sorted(jobs.items())),
        "prefilter_runs": prefilter,
        "failed_job_reasons": dict(reasons.most_common(5)),
        "requests": dict(sorted((k, v) for k, v in tally.counts.items() if k != "5xx")),
    }


HEADLINE = ("submits", "over_assignment", "duplicates", "lost_submissions", "5xx", "stuck_jobs", "counter_drift",
            "withdrawn_answers_accepted", "withdrawn_answers_stored", "corrections_lost", "worker_unexpected_exits")


def anomalies(result: dict) -> dict:
    """Every figure that must be 0, and the ones that are not."""
    counts = {key: result[key] for key in HEADLINE if key != "submits"}
    blocked = result["blocked_pairs"]
    counts["blocked_pairs"] = blocked["complete_with_a_free_slot"] + (blocked["queued_not_claimable"] or 0)
    counts["worker_log_broker_errors"] = sum(result["worker_log_broker_errors"].values())
    return {"total": sum(counts.values()), "nonzero": {k: v for k, v in counts.items() if v}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raters", type=int, default=50)
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--kill-every", type=float, default=120)
    parser.add_argument("--redis-restart-at", type=float, default=300)
    parser.add_argument("--redis-down", type=float, default=20)
    parser.add_argument("--client-timeout", type=float, default=120)
    parser.add_argument("--job-every", type=float, default=20)
    parser.add_argument("--stall", type=int, default=30, help="the reaper's stall and queued thresholds (seconds)")
    parser.add_argument("--settle", type=float, default=300)
    parser.add_argument("--web-workers", type=int, default=3)
    parser.add_argument("--prefilter-pairs", type=int, default=300,
                        help="pairs of a pre-filter run started at once, judged by a judge answering in --judge-seconds")
    parser.add_argument("--judge-seconds", type=float, default=2.0)
    parser.add_argument("--withdraw-share", type=float, default=0.0,
                        help="share of acknowledged submits the rater withdraws at once")
    parser.add_argument("--resubmit-share", type=float, default=0.5,
                        help="share of withdrawals followed by a submit of the withdrawn assignment (must be refused)")
    parser.add_argument("--correct-share", type=float, default=0.0,
                        help="share of acknowledged submits followed by a correction of one of the rater's last 20 answers")
    parser.add_argument("--redis-restart-during-prefilter", action="store_true",
                        help="from --redis-restart-at on, restart Redis only once the pre-filter job is running")
    parser.add_argument("--blocked-check-claims", type=int, default=5000,
                        help="claims a new member may make, after the load, to find blocked pairs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not on PATH")

    folder = Path(tempfile.mkdtemp(prefix="concord-soak-"))
    redis = Redis(folder)
    redis.start()
    setup(args.raters, args.pairs, args.prefilter_pairs, args.judge_seconds)
    env = soak_env(redis, args.stall)
    port = _free_port()
    python = sys.executable
    web = spawn([python, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers",
                 str(args.web_workers), "--worker-class", "gthread", "--threads", "8", "--log-level", "warning"],
                env, folder / "web.log")
    worker_command = [python, "-m", "celery", "-A", "config", "worker", "-Q", QUEUES, "-c", "2", "--pool", "prefork",
                      "-l", "warning", "--without-gossip", "--without-mingle", "-n", "soak@%h"]
    worker = spawn(worker_command, env, folder / "worker.log")
    beat = spawn([python, "-m", "celery", "-A", "config", "beat", "-l", "warning", "-s", str(folder / "beat-schedule")],
                 env, folder / "beat.log")
    _wait_for(port)
    base = f"http://127.0.0.1:{port}"
    tally = Tally()
    redis_down = threading.Event()
    started = time.monotonic()
    end = started + args.minutes * 60
    review = Review(withdraw=args.withdraw_share, correct=args.correct_share, resubmit=args.resubmit_share)
    threads = [threading.Thread(target=rater_loop, daemon=True,
                                args=(base, f"bench-rater-{i}", end, tally, redis_down, args.client_timeout, review, i))
               for i in range(args.raters)]
    threads.append(threading.Thread(target=curator_loop, daemon=True,
                                    args=(base, end, args.job_every, tally, redis_down, args.client_timeout,
                                          bool(args.prefilter_pairs))))
    load_before = os.getloadavg()
    for thread in threads:
        thread.start()
    next_kill, redis_restarted, kills = started + args.kill_every, False, 0
    unexpected_exits, prefilter_at_restart, alive_after_restart, redis_back = [], None, None, None
    try:
        while time.monotonic() < end:
            now = time.monotonic()
            if worker.poll() is not None:
                # Killed only by the schedule below, which starts the next one at once: this one went by itself.
                unexpected_exits.append({"at_seconds": round(now - started), "returncode": worker.returncode})
                print(f"[{now - started:5.0f} s] the worker exited by itself ({worker.returncode}); started again",
                      file=sys.stderr)
                worker = spawn(worker_command, env, folder / "worker.log")
            if redis_back is not None and alive_after_restart is None and now - redis_back >= 30:
                alive_after_restart = worker.poll() is None and not unexpected_exits
            if now >= next_kill:
                kill_group(worker)
                kills += 1
                time.sleep(2)
                worker = spawn(worker_command, env, folder / "worker.log")
                next_kill += args.kill_every
                print(f"[{now - started:5.0f} s] worker killed and restarted ({kills})", file=sys.stderr)
            due = not redis_restarted and now - started >= args.redis_restart_at
            if due and args.redis_restart_during_prefilter:
                prefilter_at_restart = prefilter_running()
                due = prefilter_at_restart is not None
            if due:
                redis_down.set()
                redis.kill()
                print(f"[{now - started:5.0f} s] Redis killed", file=sys.stderr)
                time.sleep(args.redis_down)
                redis.start()
                redis_down.clear()
                redis_restarted, redis_back = True, time.monotonic()
                print(f"[{time.monotonic() - started:5.0f} s] Redis started again (empty)", file=sys.stderr)
            time.sleep(0.5)
        for thread in threads:
            thread.join(timeout=60)
        print(f"[{time.monotonic() - started:5.0f} s] load over; waiting up to {args.settle:.0f} s for the jobs",
              file=sys.stderr)
        stuck = settle(args.settle)
        waits = database_waits() if stuck else []
        worker_alive_at_end = worker.poll() is None
        result = {**figures(tally, stuck, started), "blocked_pairs": blocked_pairs(args.blocked_check_claims),
                  "worker_unexpected_exits": len(unexpected_exits), "worker_exits": unexpected_exits,
                  "worker_alive_30s_after_redis_restart": alive_after_restart,
                  "worker_alive_at_end": worker_alive_at_end,
                  "worker_log_broker_errors": broker_errors(folder / "worker.log"),
                  "prefilter_job_at_redis_restart": prefilter_at_restart,
                  "worker_kills": kills, "redis_restarts": int(redis_restarted),
                  "raters": args.raters, "minutes": args.minutes, "load_average_before_after": [
                      round(load_before[0], 1), round(os.getloadavg()[0], 1)], "logs": str(folder),
                  "database_sessions_when_stuck": waits}
        result["anomalies"] = anomalies(result)
    finally:
        for process in (web, worker, beat):
            kill_group(process, signal.SIGTERM if process is web else signal.SIGKILL)
        redis.kill()
    if args.json:
        print(json.dumps(result))
        return
    for key in HEADLINE:
        print(f"{key}: {result[key]}")
    print(f"anomalies: {anomalies(result)}")
    print(json.dumps({k: v for k, v in result.items() if k not in HEADLINE}, indent=1))


if __name__ == "__main__":
    main()
