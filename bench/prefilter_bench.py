"""Pre-filter throughput: one Celery worker against a local judge endpoint that answers after 200 ms.

Goal: at least 200 judge calls per second, i.e. 1,000 pairs × 9 judges × 2 orders (18,000 calls) in at
most 90 s. The bench makes its own PostgreSQL database (``concord_bench_judges``), uses Redis db 6,
starts the endpoint in this process (asyncio + h11, hundreds of concurrent connections) and one
worker subprocess, runs the pre-filter through Celery, and prints calls/s and the total time.

    /work/main/.venv/bin/python bench/prefilter_bench.py [--pairs 1000] [--judges 9] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--judges", type=int, default=9)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the endpoint waits before answering")
    parser.add_argument("--judge-concurrency", type=int, default=64, help="calls in flight per judge per batch task")
    parser.add_argument("--worker-concurrency", type=int, default=2, help="prefork processes of the one worker")
    parser.add_argument("--batch-pairs", type=int, default=50, help="pairs per Celery batch task")
    parser.add_argument("--database", default="concord_bench_judges")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/6")
    return parser.parse_args()


def ensure_database(name: str) -> str:
    import psycopg

    with psycopg.connect("postgres://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    return f"postgres://postgres@127.0.0.1:5432/{name}"


def seed(pairs: int, judges: int, endpoint: str, judge_concurrency: int):
    """A fresh campaign of pending pairs and ``judges`` chat judges pointing at the endpoint."""
    from annotation.catalogue import content
    from annotation.catalogue.models import Campaign, Pair, Prompt, RatingSchema, Response
    from annotation.catalogue.schemas import preset
    from curation.models import Judge
    from tests.curation.judge_server import pair_text, response_text

    Campaign.objects.filter(slug="bench-prefilter").delete()
    Judge.objects.filter(name__startswith="bench-").delete()
    schema, _ = RatingSchema.objects.get_or_create(
        slug="bench-mmrb2", version=1, defaults={"definition": preset("mmrb2-generation", "text-to-image")}
    )
    campaign = Campaign.objects.create(slug="bench-prefilter", name="Bench", kind="text-to-image", rating_schema=schema,
                                       requires_prefilter=True)
    prompts = Prompt.objects.bulk_create(
        Prompt(campaign=campaign, external_id=f"b{i}", content=[{"type": "text", "text": f"Draw {pair_text(f'b{i}')}",
                                                                  "format": "plain"}])
        for i in range(pairs)
    )
    responses = []
    for i, prompt in enumerate(prompts):
        for side in ("a", "b"):
            blocks = [{"type": "text", "text": f"{response_text(f'b{i}', side)} a picture", "format": "plain"}]
            responses.append(Response(prompt=prompt, model_name=f"model-{side}", content=blocks,
                                      content_sha256=content.digest(blocks)))
    responses = Response.objects.bulk_create(responses)
    Pair.objects.bulk_create(
        Pair(campaign=campaign, prompt=prompt, response_a=responses[2 * i], response_b=responses[2 * i + 1],
             external_id=f"b{i}", status=Pair.Status.PENDING)
        for i, prompt in enumerate(prompts)
    )
    settings = {"base_url": f"{endpoint}/v1", "concurrency": judge_concurrency, "timeout_s": 30, "max_retries": 3}
    Judge.objects.bulk_create(
        Judge(name=f"bench-j{j}", backend="openai-chat", settings={**settings, "model": f"bench-j{j}"}) for j in range(judges)
    )
    return campaign, [f"bench-j{j}" for j in range(judges)]


def wait_until_ready(sender, worker: subprocess.Popen) -> None:
    """Start the clock only once the worker answers a ping: its start-up is not the pre-filter's time."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            raise SystemExit("the worker exited during start-up")
        if sender.control.ping(timeout=1.0):
            return
    raise SystemExit("the worker did not answer within 120 s")


def main() -> None:
    args = parse_args()
    database_url = ensure_database(args.database)
    # The judge endpoint listens on 127.0.0.1, which judges reach only when an admin lists it.
    os.environ.update({"DJANGO_SETTINGS_MODULE": "config.settings.base", "DATABASE_URL": database_url,
                       "REDIS_URL": args.redis, "CELERY_TASK_ALWAYS_EAGER": "false",
                       "CONCORD_JUDGE_ALLOWED_HOSTS": "127.0.0.1"})
    import django

    django.setup()
    import redis
    from celery import Celery
    from django.core.management import call_command

    from annotation.jobs.models import Job
    from curation.models import JudgeVerdict
    from curation.services.prefilter import prefilter_job_create
    from tests.curation.judge_server import JudgeServer, Reply, json_verdict

    call_command("migrate", verbosity=0)
    redis.Redis.from_url(args.redis).flushdb()

    answer = Reply(content=json_verdict("A"), delay=args.latency)

    # The endpoint stands in for a model server elsewhere: it does not decode requests, to leave the CPUs to the worker.
    with JudgeServer(lambda seen: answer, parse=False) as server:
        campaign, names = seed(args.pairs, args.judges, server.url, args.judge_concurrency)
        job = prefilter_job_create(campaign=campaign, judge_names=names)
        expected = args.pairs * args.judges * 2
        env = {**os.environ, "CONCORD_PREFILTER_BATCH_PAIRS": str(args.batch_pairs)}
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "judges", "-c", str(args.worker_concurrency),
             "--pool", "prefork", "-l", "warning", "--without-gossip", "--without-mingle", "-n", "bench-judges@%h"],
            cwd=REPO, env=env, start_new_session=True,
        )
        try:
            sender = Celery("bench", broker=args.redis, backend=args.redis)
            wait_until_ready(sender, worker)
            load = os.getloadavg()[0]
            started = time.monotonic()
            sender.send_task("curation.prefilter_dispatch", args=[job.pk], queue="judges")
            first_call_at = None
            while True:
                job.refresh_from_db()
                if first_call_at is None and server.seen:
                    first_call_at = time.monotonic()
                if job.status in (Job.Status.SUCCEEDED, Job.Status.FAILED):
                    break
                if time.monotonic() - started > 900:
                    raise SystemExit("gave up after 900 s")
                time.sleep(0.2)
            elapsed = time.monotonic() - started
        finally:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(timeout=60)
        calls = server.count()
    worker_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    own_cpu = resource.getrusage(resource.RUSAGE_SELF)
    stored = JudgeVerdict.objects.filter(pair__campaign=campaign).count()
    print(f"status               {job.status} {job.error}")
    print(f"pairs × judges × 2   {args.pairs} × {args.judges} × 2 = {expected} calls expected")
    print(f"endpoint calls       {calls}  (verdicts stored: {stored})")
    print(f"endpoint latency     {args.latency * 1000:.0f} ms; judge concurrency {args.judge_concurrency}; "
          f"worker -c {args.worker_concurrency}; {args.batch_pairs} pairs per batch")
    print(f"total time           {elapsed:.1f} s (dispatch to report; first call after {first_call_at - started:.1f} s)")
    print(f"throughput           {calls / elapsed:.0f} calls/s")
    print(f"machine              {os.cpu_count()} CPUs, load average {load:.1f} when the run started")
    worker_s = worker_cpu.ru_utime + worker_cpu.ru_stime
    own_s = own_cpu.ru_utime + own_cpu.ru_stime
    print(f"CPU                  worker {worker_s:.1f} s ({1000 * worker_s / max(calls, 1):.2f} ms per call, start-up "
          f"included); endpoint and bench process {own_s:.1f} s")
    print(f"dropped / kept       {job.result and job.result['dropped_easy']} / {job.result and job.result['kept']}")


if __name__ == "__main__":
    main()
