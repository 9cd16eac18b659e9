"""Benchmark: publish a release of 100,000 pairs over 20,000 stored images, on local disk, images embedded in Parquet.

Goal (issues 6 and 17): at most 60 s, peak memory under 1 GB. Data is generated with bulk inserts (INSERT ... SELECT
in PostgreSQL) into a separate database (``concord_release_bench``), then ``publish_release`` runs in a child
process so its wall time and peak resident memory are its own. Every pair has two response images, so the
Parquet files embed 200,000 images (each distinct image about ten times).

    .venv/bin/python bench/release_bench.py [--pairs 100000] [--media 20000] [--image-size 32] [--keep]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import subprocess
import sys
import tempfile
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


def forget_releases() -> None:
    """Drop the releases a previous run published: their files went with the store, and a new version would
    read the latest one back for its CHANGELOG."""
    import psycopg

    with psycopg.connect(DB_URL, autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('curation_release')").fetchone()[0]:
            conn.execute("TRUNCATE curation_release CASCADE")


GENERATE_SQL = """
INSERT INTO annotation_prompt (campaign_id, external_id, source, source_task, content, metadata, created_at)
SELECT %(campaign)s, 'prompt-' || i, (ARRAY['oneigbench', 'wise', 'genai'])[1 + i %% 3], '',
       jsonb_build_array(jsonb_build_object('type', 'text', 'format', 'plain',
                                            'text', 'Draw scene ' || i || ': a fox under a red umbrella in the rain')),
       jsonb_build_object('id', i::text, 'category', 'animals'), now()
FROM generate_series(0, %(pairs)s - 1) AS i;

INSERT INTO annotation_response (prompt_id, model_name, content, content_sha256, created_at)
SELECT p.id, m.model, c.content, encode(sha256(convert_to(c.content::text, 'UTF8')), 'hex'), now()
FROM annotation_prompt p
CROSS JOIN (VALUES (0, 'imagen4'), (1, 'gpt-image')) AS m(side, model)
CROSS JOIN LATERAL (SELECT jsonb_build_array(jsonb_build_object(
    'type', 'image', 'alt', '',
    'media', (%(digests)s::text[])[1 + ((p.id * 2 + m.side) * 2654435761 %% %(media)s)::int])) AS content) AS c
WHERE p.campaign_id = %(campaign)s;

INSERT INTO annotation_pair (campaign_id, prompt_id, response_a_id, response_b_id, external_id, criteria, status, status_reason,
                             priority, required_annotations, active_claims, annotations_done, is_gold, metadata, created_at)
SELECT %(campaign)s, p.id, a.id, b.id, 'pair-' || substr(p.external_id, 8), '[]', 'complete', '', 0, 3, 0, 3, false, '{}', now()
FROM annotation_prompt p
JOIN annotation_response a ON a.prompt_id = p.id AND a.model_name = 'imagen4'
JOIN annotation_response b ON b.prompt_id = p.id AND b.model_name = 'gpt-image'
WHERE p.campaign_id = %(campaign)s;

INSERT INTO annotation_annotation (pair_id, annotator_id, source, rater_label, values, rationale, created_at)
SELECT pr.id, (%(users)s::bigint[])[1 + ((pr.id * 3 + k) %% %(user_count)s)::int], 'concord', '',
       jsonb_build_object('text_faithfulness', '{"A": 2, "B": 3}'::jsonb, 'image_quality', '{"A": 3, "B": 2}'::jsonb,
                          'overall', (ARRAY[1, 2, 5, 6])[1 + ((pr.id * 7 + k * 5) %% 4)::int],
                          'rationale', 'sharper and closer to the prompt', 'prompt_valid', true), '', now()
FROM annotation_pair pr CROSS JOIN generate_series(0, 2) AS k
WHERE pr.campaign_id = %(campaign)s;

INSERT INTO curation_consensusrecord (pair_id, policy, params, decision, chosen, reason, details, stale_reason,
                                      basis_annotations, decided_at, criteria)
SELECT a.pair_id, 'mmrb2-generation', '{"max_spread": 4, "tie_band": [3.0, 4.0]}', 'kept',
       CASE WHEN avg((a.values ->> 'overall')::int) > 3.5 THEN 'A' ELSE 'B' END, '', '{}', '', count(*), now(), '[]'
FROM annotation_annotation a JOIN annotation_pair pr ON pr.id = a.pair_id
WHERE pr.campaign_id = %(campaign)s
GROUP BY a.pair_id;
"""


def generate(pairs: int, media_count: int, image_size: int) -> float:
    """Media stored through media_store; prompts, responses, pairs, ratings and consensus generated by PostgreSQL."""
    import django

    os.environ.update(environment())
    sys.path.insert(0, str(ROOT))
    django.setup()
    from django.core.files.storage import default_storage
    from django.core.management import call_command
    from django.db import connection, transaction
    from PIL import Image

    from annotation.accounts.models import User
    from annotation.catalogue import schemas
    from annotation.catalogue.models import Campaign, Media, RatingSchema
    from annotation.catalogue.services.media import storage_name

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    # Files written straight under their storage names and rows bulk-inserted: media_store's one-by-one path
    # (a query and a transaction per file) would dominate the set-up, and it is not what is measured.
    digests, rows = [], []
    for i in range(media_count):
        buffer = io.BytesIO()
        # Noise does not compress: each PNG is about 3 KiB at 32 px, so the embedded bytes are real work.
        noise = random.Random(i).randbytes(image_size * image_size * 3)
        Image.frombytes("RGB", (image_size, image_size), noise).save(buffer, "PNG")
        data = buffer.getvalue()
        digest = hashlib.sha256(data).hexdigest()
        name = storage_name(digest, "png")
        target = Path(default_storage.path(name))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        digests.append(digest)
        rows.append(Media(sha256=digest, kind="image", mime_type="image/png", size=len(data), width=image_size,
                          height=image_size, file=name))
    Media.objects.bulk_create(rows, batch_size=5_000, ignore_conflicts=True)
    users = User.objects.bulk_create([User(username=f"bench-rater-{i}", email=f"r{i}@example.org") for i in range(30)])
    schema = RatingSchema.objects.create(slug="bench-t2i", preset="mmrb2-generation",
                                         definition=schemas.preset("mmrb2-generation", "text-to-image"))
    campaign = Campaign.objects.create(slug="bench-t2i", name="Bench", kind="text-to-image", rating_schema=schema,
                                       consensus_policy="mmrb2-generation")
    params = {"campaign": campaign.pk, "pairs": pairs, "digests": digests, "media": len(digests),
              "users": [u.pk for u in users], "user_count": len(users)}
    with transaction.atomic(), connection.cursor() as cursor:
        for statement in GENERATE_SQL.split(";\n"):
            if statement.strip():
                cursor.execute(statement, params)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return time.perf_counter() - started


def run_child(args: list[str]) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds, peak RSS (MiB) and stdout of a manage.py command run in a child process.

    The figures are that child's own (``wait4``), not the maximum over every child this process has run.
    """
    with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, str(ROOT / "manage.py"), *args], env=environment(), cwd=ROOT,
                                 stdout=stdout, stderr=stderr, text=True)
        _pid, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.perf_counter() - started
        if child.returncode != 0:
            stderr.seek(0)
            sys.stderr.write(stderr.read())
            raise SystemExit(f"{args[0]} exited with {child.returncode}")
        stdout.seek(0)
        return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stdout.read()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--media", type=int, default=20_000)
    parser.add_argument("--image-size", type=int, default=32, help="Side of each generated PNG, in pixels.")
    parser.add_argument("--keep", action="store_true", help="Reuse the generated database and media.")
    options = parser.parse_args()
    import shutil

    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start", flush=True)
    if not options.keep:
        shutil.rmtree(OUT, ignore_errors=True)
        recreate_database()
        print(f"generated {options.pairs:,} pairs, {options.media:,} media, {3 * options.pairs:,} ratings "
              f"in {generate(options.pairs, options.media, options.image_size):.1f} s (bulk inserts)", flush=True)
    shutil.rmtree(OUT / "store", ignore_errors=True)
    forget_releases()
    tag = str(int(time.time()) % 1_000_000)
    for version in (f"1.0.{tag}", f"1.1.{tag}"):
        elapsed, cpu, peak, stdout = run_child(["publish_release", "--campaign", "bench-t2i", "--name", "bench",
                                                "--version", version, "--json"])
        result = json.loads(stdout)
        print(f"publish_release bench@{version}: {elapsed:.1f} s wall, {cpu:.1f} s CPU, peak RSS {peak:.0f} MiB, "
              f"{result['pairs']:,} pairs, {result['files']:,} files", flush=True)
    elapsed, cpu, peak, stdout = run_child(["verify_release", f"bench@{version}", "--json"])
    print(f"verify_release bench@{version}: {elapsed:.1f} s wall, {cpu:.1f} s CPU, ok={json.loads(stdout)['ok']}, "
          f"{json.loads(stdout)['files_checked']:,} files re-read", flush=True)
    data = OUT / "store" / "bench" / version / "data"
    sizes = sorted((p.stat().st_size, p.relative_to(data).as_posix()) for p in data.rglob("*") if p.is_file())
    print("data files: " + ", ".join(f"{name} {size / 2**20:.1f} MiB" for size, name in sizes))
    media = list((OUT / "store" / "bench" / version / "media").iterdir())
    print(f"media files: {len(media):,}, {sum(p.stat().st_size for p in media) / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
