"""Benchmark: publish a release of 100,000 pairs whose media is already stored, on local disk.

Goal (issue 6): at most 60 s, peak memory under 1 GB. Data is generated with bulk inserts into a
separate PostgreSQL database (``concord_release_bench``), then ``publish_release`` runs in a child
process so its wall time and peak resident memory are its own.

    /work/main/.venv/bin/python bench/release_bench.py [--pairs 100000] [--media 2000] [--keep]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out" / "releases"
DB_NAME = "concord_release_bench"
DB_URL = f"postgres://postgres@127.0.0.1:5432/{DB_NAME}"


def environment() -> dict:
    env = dict(os.environ)
    env.update({
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DATABASE_URL": DB_URL,
        "DJANGO_MEDIA_ROOT": str(OUT / "media"),
        "CONCORD_RELEASES_ROOT": str(OUT / "store"),
        "RELEASES_S3_BUCKET": "",
        "CELERY_TASK_ALWAYS_EAGER": "true",
        "DJANGO_DEBUG": "false",
    })
    return env


def recreate_database() -> None:
    import psycopg

    with psycopg.connect("postgres://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")


def generate(pairs: int, media_count: int) -> float:
    """Media stored through media_store, then prompts, responses, pairs, ratings and consensus by bulk insert."""
    import django

    os.environ.update(environment())
    sys.path.insert(0, str(ROOT))
    django.setup()
    from django.core.management import call_command
    from PIL import Image

    from annotation import content, schemas
    from annotation.models import Annotation, Campaign, Pair, Prompt, RatingSchema, Response, User
    from annotation.services.media import media_store
    from curation.models import ConsensusRecord

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    rng = random.Random(7)
    digests = []
    for i in range(media_count):
        buffer = io.BytesIO()
        Image.new("RGB", (16, 16), (i % 256, (i // 256) % 256, 99)).save(buffer, "PNG")
        digests.append(media_store(data=buffer.getvalue()).sha256)
    users = User.objects.bulk_create([User(username=f"bench-rater-{i}", email=f"r{i}@example.org") for i in range(30)])
    schema = RatingSchema.objects.create(slug="bench-t2i", preset="mmrb2-generation",
                                         definition=schemas.preset("mmrb2-generation", "text-to-image"))
    campaign = Campaign.objects.create(slug="bench-t2i", name="Bench", kind="text-to-image", rating_schema=schema,
                                       consensus_policy="mmrb2-generation")
    batch = 10_000
    policy = {"max_spread": 4, "tie_band": [3.0, 4.0]}
    for start in range(0, pairs, batch):
        stop = min(pairs, start + batch)
        prompts = Prompt.objects.bulk_create([
            Prompt(campaign=campaign, external_id=f"prompt-{i}", source=rng.choice(["oneigbench", "wise", "genai"]),
                   content=[{"type": "text", "text": f"Draw scene {i}: a fox under a red umbrella in the rain",
                             "format": "plain"}], metadata={"id": str(i), "category": "animals"})
            for i in range(start, stop)
        ])
        responses = []
        for prompt in prompts:
            for model in ("imagen4", "gpt-image"):
                blocks = [{"type": "image", "media": rng.choice(digests), "alt": ""}]
                responses.append(Response(prompt=prompt, model_name=model, content=blocks,
                                          content_sha256=content.digest(blocks)))
        Response.objects.bulk_create(responses)
        pair_rows = Pair.objects.bulk_create([
            Pair(campaign=campaign, prompt=prompt, response_a=responses[2 * k], response_b=responses[2 * k + 1],
                 external_id=f"pair-{start + k}", status="complete", annotations_done=3)
            for k, prompt in enumerate(prompts)
        ])
        ratings, records = [], []
        for pair in pair_rows:
            values = [rng.choice([1, 2, 5, 6]) for _ in range(3)]
            for rater, overall in zip(rng.sample(users, 3), values, strict=True):
                ratings.append(Annotation(pair=pair, annotator=rater, values={
                    "text_faithfulness": {"A": 2, "B": 3}, "image_quality": {"A": 3, "B": 2}, "overall": overall,
                    "rationale": "sharper and closer to the prompt", "prompt_valid": True}))
            records.append(ConsensusRecord(pair=pair, policy="mmrb2-generation", params=policy, decision="kept",
                                           chosen="A" if sum(values) / 3 > 3.5 else "B"))
        Annotation.objects.bulk_create(ratings)
        ConsensusRecord.objects.bulk_create(records)
    return time.perf_counter() - started


def run_child(args: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MiB) and stdout of a manage.py command run in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], env=environment(), cwd=ROOT,
                          capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0,):
        sys.stderr.write(done.stderr)
        raise SystemExit(f"{args[0]} exited with {done.returncode}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak, before) / 1024, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--media", type=int, default=2_000)
    parser.add_argument("--keep", action="store_true", help="Reuse the generated database and media.")
    options = parser.parse_args()
    import shutil

    if not options.keep:
        shutil.rmtree(OUT, ignore_errors=True)
        recreate_database()
        print(f"generated {options.pairs:,} pairs, {options.media:,} media, {3 * options.pairs:,} ratings "
              f"in {generate(options.pairs, options.media):.1f} s (bulk inserts)", flush=True)
    shutil.rmtree(OUT / "store", ignore_errors=True)
    tag = str(int(time.time()) % 1_000_000)
    for version in (f"1.0.{tag}", f"1.1.{tag}"):
        elapsed, peak, stdout = run_child(["publish_release", "--campaign", "bench-t2i", "--name", "bench",
                                           "--version", version, "--json"])
        result = json.loads(stdout)
        print(f"publish_release bench@{version}: {elapsed:.1f} s wall, peak RSS {peak:.0f} MiB, "
              f"{result['pairs']:,} pairs, {result['files']:,} files", flush=True)
    elapsed, peak, stdout = run_child(["verify_release", f"bench@{version}", "--json"])
    print(f"verify_release bench@{version}: {elapsed:.1f} s wall, ok={json.loads(stdout)['ok']}, "
          f"{json.loads(stdout)['files_checked']:,} files re-read", flush=True)
    sizes = sorted((p.stat().st_size, p.name) for p in (OUT / "store" / "bench" / version / "data").iterdir())
    print("data files: " + ", ".join(f"{name} {size / 2**20:.1f} MiB" for size, name in sizes))


if __name__ == "__main__":
    main()
