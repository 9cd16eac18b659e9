"""Raters' claims beside curators' leaderboard fits: claim latency alone and while six curators fit boards.

    .venv/bin/python bench/leaderboard_beside_claims.py --pairs 4000 --raters 10 --rate 20
    .venv/bin/python bench/leaderboard_beside_claims.py --code-dir /work/wt-old   # the same, served by another tree

Everything on 127.0.0.1, in the separate database ``--db`` (dropped, recreated and migrated from this checkout):

1. a rated campaign of ``--pairs`` pairs over ``--models`` models (one pair per prompt, two models drawn at random),
   each with ``--ratings`` imported human ratings (A / B / tie drawn from a Bradley–Terry model with spread
   strengths, the side shown drawn too), written with COPY; a campaign of ``--claim-pairs`` pairs for the raters
   (``annotate_load.copy_campaign``); ``--raters`` raters and ``--curators`` curators with a signed-in session each;
2. gunicorn as docker-compose.yml runs it (gthread, 3 workers × 2 threads) and a Celery worker as it runs one
   (``--worker-concurrency`` processes, 4 by default, on the same machine; broker ``--broker``, a Redis database of
   its own), both serving ``--code-dir`` (this checkout by default: pass an older ``git worktree`` to measure the
   code before a change);
3. one leaderboard alone (``GET /api/v1/leaderboard/models/?campaign=…&bootstrap=…&seed=…``), timed to the board:
   a 202 (a ``leaderboard_fit`` job started) is followed by polling the job until it finishes, then the same
   request again;
4. (a) the raters loop claim → submit at ``--rate`` cycles per second for ``--alone`` seconds
   (``annotate_load.run_phase``: a claim's latency counts from when it was due);
   (b) the same for ``--beside`` seconds while every curator sends the leaderboard request in a loop, each with a
   seed of its own (so no two fits are the same board, and none is served from the cache), each followed to its
   board as in 3; a 503 (the code before fit jobs) is followed by the wait its ``Retry-After`` asks for, as a client
   should;
5. prints claim and submit p50/p95/p99 of both phases, the cycles offered but never sent (their rater was still
   waiting on a claim), the leaderboard answers by status (and code) with their latency, and the seconds from a
   request to its board.

Never part of ``make test``. Figures and their command go in ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from annotate_load import (  # noqa: E402
    ROOT,
    _env,
    _rows,
    _write,
    copy_campaign,
    make_annotators,
    make_sessions,
    percentiles,
    run_phase,
    setup_django,
    start_gunicorn,
    stop_gunicorn,
)

RATED = "lb-rated"
CLAIMS = "lb-claims"
CURATOR_PREFIX = "bench-curator-"
FINISHED = ("succeeded", "failed", "cancelled")


def strengths(models: int) -> list[float]:
    """Bradley–Terry strengths (log-odds scale) spread evenly over 2 units, strongest first."""
    if models < 2:
        return [0.0] * models
    return [1.0 - 2.0 * i / (models - 1) for i in range(models)]


def outcome(strength_a: float, strength_b: float, draw: float, tie_share: float = 0.1) -> str:
    """The answer ("A", "B" or "tie") a uniform ``draw`` in [0, 1) gives: a tie with probability ``tie_share``, else
    A with the Bradley–Terry probability of A beating B."""
    if draw < tie_share:
        return "tie"
    p_a = 1.0 / (1.0 + math.exp(strength_b - strength_a))
    return "A" if (draw - tie_share) / (1.0 - tie_share) < p_a else "B"


def rated_campaign(slug: str, pairs: int, models: int, ratings: int, seed: int) -> None:
    """A complete campaign: one pair per prompt between two distinct random models, ``ratings`` imported ratings each."""
    from django.db import connection

    from annotation.catalogue.services.campaigns import campaign_create

    rng = random.Random(seed)
    power = strengths(models)
    campaign = campaign_create(slug=slug, kind="text-to-text", preset="ab-tie", overlap=ratings)
    drawn = [rng.sample(range(models), 2) for _ in range(pairs)]
    with connection.cursor() as cursor:
        cur = cursor.connection.cursor()
        cur.execute("SELECT coalesce(max(id), 0) FROM annotation_prompt")
        prompt0 = cur.fetchone()[0] + 1
        cur.execute("SELECT coalesce(max(id), 0) FROM annotation_response")
        response0 = cur.fetchone()[0] + 1
        cur.execute("SELECT coalesce(max(id), 0) FROM annotation_pair")
        pair0 = cur.fetchone()[0] + 1
        text = json.dumps([{"type": "text", "text": "Which answer is better?", "format": "plain"}])
        with cur.copy("COPY annotation_prompt (id, campaign_id, external_id, source, source_task, content, metadata, "
                      "created_at) FROM STDIN") as copy:
            _write(copy, _rows((prompt0 + i, campaign.pk, f"{slug}-p{i}", "bench", "", text, "{}", "now()")
                               for i in range(pairs)))
        answer = '[{"type": "text", "text": "Answer of model %d to prompt %d.", "format": "plain"}]'
        with cur.copy("COPY annotation_response (id, prompt_id, model_name, content, content_sha256, created_at) "
                      "FROM STDIN") as copy:
            _write(copy, _rows((response0 + 2 * i + side, prompt0 + i, f"lb-model-{drawn[i][side]}",
                                answer % (drawn[i][side], i), f"{i:060d}{side:04d}", "now()")
                               for i in range(pairs) for side in (0, 1)))
        with cur.copy("COPY annotation_pair (id, campaign_id, prompt_id, response_a_id, response_b_id, external_id, "
                      "criteria, status, status_reason, priority, required_annotations, active_claims, annotations_done, "
                      "is_gold, gold_answer, metadata, created_at) FROM STDIN") as copy:
            _write(copy, _rows((pair0 + i, campaign.pk, prompt0 + i, response0 + 2 * i, response0 + 2 * i + 1,
                                f"{slug}-{i}", "[]", "complete", "", 0, ratings, 0, ratings, "f", None, "{}", "now()")
                               for i in range(pairs)))
        with cur.copy("COPY annotation_annotation (pair_id, source, rater_label, values, shown_swapped, rationale, "
                      "created_at) FROM STDIN") as copy:
            _write(copy, _rows(
                (pair0 + i, "imported", f"r{r}",
                 json.dumps({"preference": outcome(power[drawn[i][0]], power[drawn[i][1]], rng.random())}),
                 "t" if rng.random() < 0.5 else "f", "", "now()")
                for i in range(pairs) for r in range(ratings)))
        for table in ("annotation_prompt", "annotation_response", "annotation_pair", "annotation_annotation"):
            cur.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
            cur.execute(f"VACUUM (ANALYZE) {table}")
        cur.execute("CHECKPOINT")


def setup(db: str, *, pairs: int, models: int, ratings: int, claim_pairs: int, raters: int, curators: int):
    """The database; returns the raters' and the curators' sessions: (session key, CSRF token) each."""
    setup_django(db)
    from annotation.accounts.models import User

    rater_sessions = make_annotators(raters)
    User.objects.bulk_create([User(username=f"{CURATOR_PREFIX}{i}", role="curator") for i in range(curators)])
    curator_sessions = make_sessions(prefix=CURATOR_PREFIX)
    copy_campaign(CLAIMS, claim_pairs)
    rated_campaign(RATED, pairs, models, ratings, seed=36)
    return rater_sessions, curator_sessions


def leaderboard_path(bootstrap: int, seed: int) -> str:
    return f"/api/v1/leaderboard/models/?campaign={RATED}&bootstrap={bootstrap}&seed={seed}"


def curator_client(base: str, session: tuple[str, str], timeout: float) -> httpx.Client:
    key, csrf = session
    return httpx.Client(base_url=base, timeout=timeout, cookies={"sessionid": key, "csrftoken": csrf},
                        headers={"X-CSRFToken": csrf, "Accept": "application/json"})


def one_answer(client: httpx.Client, path: str) -> tuple[str, float, float, httpx.Response]:
    """(status and error code, seconds, the Retry-After it asks for or 0, the answer)."""
    began = time.perf_counter()
    answer = client.get(path)
    took = time.perf_counter() - began
    label = str(answer.status_code)
    if answer.status_code >= 400:
        try:
            label += f" {answer.json().get('code', '')}".rstrip()
        except ValueError:
            pass
    return label, took, float(answer.headers.get("Retry-After", 0) or 0), answer


def to_the_board(client: httpx.Client, path: str, stop: threading.Event | None = None,
                 poll: float = 0.5) -> tuple[str, float, float, str | None, float]:
    """One leaderboard request followed to its board: (first answer's label, its seconds, its Retry-After, how the
    board came: None when the first answer was the board or a refusal, else "job <status> then <label>", seconds
    from the request to the board)."""
    began = time.perf_counter()
    label, took, retry, answer = one_answer(client, path)
    if answer.status_code != 202:
        return label, took, retry, None, time.perf_counter() - began
    job_url = answer.json()["job_url"]
    status = answer.json()["status"]
    while status not in FINISHED and not (stop is not None and stop.is_set()):
        time.sleep(poll)
        status = client.get(job_url).json()["status"]
    if status not in FINISHED:
        return label, took, 0.0, "job unfinished at the end", time.perf_counter() - began
    again, *_ = one_answer(client, path)
    return label, took, 0.0, f"job {status} then {again}", time.perf_counter() - began


def curator_loop(base: str, session: tuple[str, str], seeds, stop: threading.Event, bootstrap: int, timeout: float,
                 answers: Counter, seconds: dict, boards: dict, lock: threading.Lock) -> None:
    with curator_client(base, session, timeout) as client:
        for seed in seeds:
            if stop.is_set():
                return
            try:
                label, took, retry, via, to_board = to_the_board(client, leaderboard_path(bootstrap, seed), stop)
            except httpx.HTTPError as exc:
                label, took, retry, via, to_board = f"client error {type(exc).__name__}", 0.0, 1.0, None, 0.0
            with lock:
                answers[label] += 1
                seconds.setdefault(label, []).append(took)
                if via is not None:
                    boards.setdefault(via, []).append(to_board)
            if retry:
                stop.wait(retry)


def start_worker(db: str, *, tree: Path, concurrency: int) -> subprocess.Popen:
    """A Celery worker as docker-compose.yml runs it (all queues, no gossip or mingle) serving ``tree``; returns once
    it answers a ping."""
    python = tree / ".venv" / "bin" / "python"
    process = subprocess.Popen(
        [str(python if python.exists() else sys.executable), "-m", "celery", "-A", "config", "worker",
         "--loglevel", "warning", "--queues", "celery,imports,judges,analytics,releases", "--concurrency",
         str(concurrency), "--without-gossip", "--without-mingle"],
        # Its banner on stderr: stdout is the bench's (--json).
        cwd=tree, env=_env(db), start_new_session=True, stdout=sys.stderr,
    )
    from config.celery import app

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if app.control.ping(timeout=1):
            return process
        if process.poll() is not None:
            raise RuntimeError(f"the Celery worker exited with {process.returncode}")
    stop_process(process)
    raise RuntimeError("the Celery worker did not answer a ping within 60 s")


def stop_process(process: subprocess.Popen) -> None:
    import signal

    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=60)


def served(phase: dict, rate: float, duration: float) -> dict:
    """A paced phase's figures with the cycles it never sent: a rater waiting on a claim sends none of the cycles
    that fall due meanwhile, so the percentiles of the claims answered say nothing of those."""
    offered = round(rate * duration)
    return {**{k: v for k, v in phase.items() if not k.startswith("_")}, "cycles_offered": offered,
            "cycles_not_sent": max(0, offered - phase["cycles"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="concord_lb_bench")
    parser.add_argument("--code-dir", type=Path, default=ROOT,
                        help="the checkout gunicorn serves (its cwd and import path); the database is this one's")
    parser.add_argument("--pairs", type=int, default=4000, help="pairs of the rated campaign")
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--ratings", type=int, default=3, help="human ratings per pair")
    parser.add_argument("--claim-pairs", type=int, default=5000)
    parser.add_argument("--raters", type=int, default=10)
    parser.add_argument("--rate", type=float, default=20, help="claim → submit cycles per second, all raters together")
    parser.add_argument("--curators", type=int, default=6)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--alone", type=float, default=30, help="seconds of claims alone")
    parser.add_argument("--beside", type=float, default=60, help="seconds of claims beside the curators' fits")
    parser.add_argument("--lead", type=float, default=3, help="seconds the curators start before the claims")
    parser.add_argument("--timeout", type=float, default=600, help="a curator's client timeout")
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/13",
                        help="the Celery broker of the web server and the worker (flushed first)")
    parser.add_argument("--worker-concurrency", type=int, default=4, help="the worker's processes (4 as in compose)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    code_dir = args.code_dir.resolve()
    import redis

    redis.Redis.from_url(args.broker).flushdb()
    os.environ["CELERY_BROKER_URL"] = args.broker  # the web server's and the worker's (annotate_load._env)
    rater_sessions, curator_sessions = setup(args.db, pairs=args.pairs, models=args.models, ratings=args.ratings,
                                             claim_pairs=args.claim_pairs, raters=args.raters, curators=args.curators)
    # Seeds never asked before (the cache is Redis's and outlives a run): every request is a fit.
    seed0 = random.SystemRandom().randrange(10**6, 10**9)
    worker = start_worker(args.db, tree=code_dir, concurrency=args.worker_concurrency)
    web, base = start_gunicorn(args.db, tree=code_dir, workers=3, worker_class="gthread", threads=2)
    result: dict = {"code_dir": str(code_dir), "pairs": args.pairs, "models": args.models, "ratings": args.ratings,
                    "raters": args.raters, "rate": args.rate, "curators": args.curators, "bootstrap": args.bootstrap,
                    "worker_concurrency": args.worker_concurrency, "cpus": os.cpu_count(),
                    "load_average_before": round(os.getloadavg()[0], 1)}
    try:
        run_phase(base, CLAIMS, rater_sessions, duration=3, rate=args.rate)  # warm every worker process
        with curator_client(base, curator_sessions[0], args.timeout) as client:
            label, took, _, via, to_board = to_the_board(client, leaderboard_path(args.bootstrap, seed0))
        result["one_leaderboard_alone"] = {"status": label, "seconds": round(took, 2), "board": via,
                                           "seconds_to_board": round(to_board, 2)}
        print(f"one leaderboard alone: {label} in {took:.2f} s, {via or 'the board'} after {to_board:.1f} s",
              file=sys.stderr)

        alone = run_phase(base, CLAIMS, rater_sessions, duration=args.alone, rate=args.rate)
        print(f"alone: claim {alone['claim']}", file=sys.stderr)

        stop, lock, answers, seconds, boards = threading.Event(), threading.Lock(), Counter(), {}, {}
        curators = [threading.Thread(target=curator_loop, daemon=True, args=(
            base, session, (seed0 + 1 + n * args.curators + i for n in range(10**6)), stop, args.bootstrap,
            args.timeout, answers, seconds, boards, lock)) for i, session in enumerate(curator_sessions)]
        for thread in curators:
            thread.start()
        time.sleep(args.lead)
        beside = run_phase(base, CLAIMS, rater_sessions, duration=args.beside, rate=args.rate)
        stop.set()
        with lock:
            during = dict(answers)
        for thread in curators:
            thread.join(timeout=args.timeout)
        print(f"beside the curators: claim {beside['claim']}", file=sys.stderr)
        result.update({
            "alone": served(alone, args.rate, args.alone),
            "beside_curators": served(beside, args.rate, args.beside),
            "leaderboard_answers_during_claims": during,
            "leaderboard_answers": dict(answers),
            "leaderboard_seconds": {label: percentiles(values) for label, values in seconds.items()},
            "boards_via_jobs": {via: len(values) for via, values in boards.items()},
            "seconds_to_board": {via: percentiles(values) for via, values in boards.items()},
            "load_average_after": round(os.getloadavg()[0], 1),
        })
    finally:
        stop_gunicorn(web)
        stop_process(worker)
    if args.json:
        print(json.dumps(result))
        return
    for phase in ("alone", "beside_curators"):
        r = result[phase]
        print(f"{phase}: claim {r['claim']}, submit {r['submit']}, {r['cycles_per_s']} cycles/s, "
              f"{r['cycles_not_sent']} of {r['cycles_offered']} offered cycles never sent, failures {r['failures']}")
    print(f"leaderboard answers (during the claims / in all): {result['leaderboard_answers_during_claims']} / "
          f"{result['leaderboard_answers']}")
    print(json.dumps({k: v for k, v in result.items() if k not in ("alone", "beside_curators")}, indent=1))


if __name__ == "__main__":
    main()
