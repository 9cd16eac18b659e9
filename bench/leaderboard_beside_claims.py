"""Raters' claims beside curators' leaderboard fits: claim latency alone and while six curators fit boards.

    .venv/bin/python bench/leaderboard_beside_claims.py --pairs 4000 --raters 10 --rate 20
    .venv/bin/python bench/leaderboard_beside_claims.py --code-dir /work/wt-old   # the same, served by another tree

Everything on 127.0.0.1, in the separate database ``--db`` (dropped, recreated and migrated from this checkout):

1. a rated campaign of ``--pairs`` pairs over ``--models`` models (one pair per prompt, two models drawn at random),
   each with ``--ratings`` imported human ratings (A / B / tie drawn from a Bradley–Terry model with spread
   strengths, the side shown drawn too), written with COPY; a campaign of ``--claim-pairs`` pairs for the raters
   (``annotate_load.copy_campaign``); ``--raters`` raters and ``--curators`` curators with a signed-in session each;
2. gunicorn as docker-compose.yml runs it (gthread, 3 workers × 2 threads) serving ``--code-dir`` (this checkout
   by default: pass an older ``git worktree`` to measure the code before a change);
3. one leaderboard request alone (``GET /api/v1/leaderboard/models/?campaign=…&bootstrap=…&seed=…``), timed;
4. (a) the raters loop claim → submit at ``--rate`` cycles per second for ``--alone`` seconds
   (``annotate_load.run_phase``: a claim's latency counts from when it was due);
   (b) the same for ``--beside`` seconds while every curator sends the leaderboard request in a loop, each with a
   seed of its own (so no two fits are the same board, and none is served from the cache); a 503 is followed by the
   wait its ``Retry-After`` asks for, as a client should;
5. prints claim and submit p50/p95/p99 of both phases, the cycles offered but never sent (their rater was still
   waiting on a claim), and the leaderboard answers by status (and code).

Never part of ``make test``. Figures and their command go in ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from annotate_load import (  # noqa: E402
    ROOT,
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


def one_answer(client: httpx.Client, path: str) -> tuple[str, float, float]:
    """(status and error code, seconds, the Retry-After it asks for or 0)."""
    began = time.perf_counter()
    answer = client.get(path)
    took = time.perf_counter() - began
    label = str(answer.status_code)
    if answer.status_code >= 400:
        try:
            label += f" {answer.json().get('code', '')}".rstrip()
        except ValueError:
            pass
    return label, took, float(answer.headers.get("Retry-After", 0) or 0)


def curator_loop(base: str, session: tuple[str, str], seeds, stop: threading.Event, bootstrap: int, timeout: float,
                 answers: Counter, seconds: dict, lock: threading.Lock) -> None:
    with curator_client(base, session, timeout) as client:
        for seed in seeds:
            if stop.is_set():
                return
            try:
                label, took, retry = one_answer(client, leaderboard_path(bootstrap, seed))
            except httpx.HTTPError as exc:
                label, took, retry = f"client error {type(exc).__name__}", 0.0, 1.0
            with lock:
                answers[label] += 1
                seconds.setdefault(label, []).append(took)
            if retry:
                stop.wait(retry)


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
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    code_dir = args.code_dir.resolve()
    rater_sessions, curator_sessions = setup(args.db, pairs=args.pairs, models=args.models, ratings=args.ratings,
                                             claim_pairs=args.claim_pairs, raters=args.raters, curators=args.curators)
    # Seeds never asked before (the cache is Redis's and outlives a run): every request is a fit.
    seed0 = random.SystemRandom().randrange(10**6, 10**9)
    web, base = start_gunicorn(args.db, tree=code_dir, workers=3, worker_class="gthread", threads=2)
    result: dict = {"code_dir": str(code_dir), "pairs": args.pairs, "models": args.models, "ratings": args.ratings,
                    "raters": args.raters, "rate": args.rate, "curators": args.curators, "bootstrap": args.bootstrap,
                    "load_average_before": round(os.getloadavg()[0], 1)}
    try:
        run_phase(base, CLAIMS, rater_sessions, duration=3, rate=args.rate)  # warm every worker process
        with curator_client(base, curator_sessions[0], args.timeout) as client:
            label, took, _ = one_answer(client, leaderboard_path(args.bootstrap, seed0))
        result["one_leaderboard_alone"] = {"status": label, "seconds": round(took, 2)}
        print(f"one leaderboard request alone: {label} in {took:.1f} s", file=sys.stderr)

        alone = run_phase(base, CLAIMS, rater_sessions, duration=args.alone, rate=args.rate)
        print(f"alone: claim {alone['claim']}", file=sys.stderr)

        stop, lock, answers, seconds = threading.Event(), threading.Lock(), Counter(), {}
        curators = [threading.Thread(target=curator_loop, daemon=True, args=(
            base, session, (seed0 + 1 + n * args.curators + i for n in range(10**6)), stop, args.bootstrap,
            args.timeout, answers, seconds, lock)) for i, session in enumerate(curator_sessions)]
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
            "load_average_after": round(os.getloadavg()[0], 1),
        })
    finally:
        stop_gunicorn(web)
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
