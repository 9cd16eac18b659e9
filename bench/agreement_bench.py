"""Agreement at scale: 1,000,000 annotations (333,334 pairs × 3 raters) on PostgreSQL.

    python bench/agreement_bench.py                 # generate (once) and measure
    python bench/agreement_bench.py --regenerate    # drop and rebuild the bench database first

Uses its own database (``concord_agreement_bench`` on 127.0.0.1:5432, or BENCH_DATABASE_URL), fills it
with COPY, then measures, each in a fresh process so peak memory is its own: the full report with
no bootstrap, with 1,000 resamples, and with every slice; each time reading the ratings from the
database. Prints the figures; never part of ``make test``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/concord_agreement_bench"
PAIRS = 333_334
RATERS_PER_PAIR = 3
ANNOTATORS = 300
PROMPTS = 2_000
SOURCES = ("oneigbench", "genai-bench", "t2i-compbench", "hpsv2", "partiprompts")
WEEKS = 8
CAMPAIGN = "bench-agreement"
SEED = 20260101


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    import django

    django.setup()


def ensure_database(url: str, *, regenerate: bool) -> bool:
    """Create the bench database; True when it is new and needs data."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None
        if exists and regenerate:
            conn.execute(f'DROP DATABASE "{name}"')
            exists = False
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
    return not exists


def _copy(table: str, columns: list[str], lines) -> None:
    from django.db import connection

    connection.ensure_connection()
    with connection.connection.cursor() as cursor:
        with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            buffer = io.StringIO()
            for n, line in enumerate(lines, 1):
                buffer.write(line)
                if n % 50_000 == 0:
                    copy.write(buffer.getvalue())
                    buffer = io.StringIO()
            copy.write(buffer.getvalue())


def _defaults(model, given: set[str]) -> dict[str, str]:
    """COPY text for every other non-null column of ``model``, from the field defaults (new fields included)."""
    out = {}
    for field in model._meta.concrete_fields:
        if field.primary_key or field.column in given or field.null:
            continue
        value = field.get_default()
        if isinstance(value, bool):
            out[field.column] = "t" if value else "f"
        elif isinstance(value, dict | list):
            out[field.column] = json.dumps(value)
        else:
            out[field.column] = str(value)
    return out


def generate() -> None:
    import numpy as np
    from django.core.management import call_command
    from django.utils import timezone

    from annotation.accounts.models import User
    from annotation.catalogue.models import Pair, Prompt, Response
    from annotation.catalogue.services.campaigns import campaign_create
    from annotation.workqueue.models import Annotation

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    rng = np.random.default_rng(SEED)
    campaign = campaign_create(slug=CAMPAIGN, kind="text-to-image", preset="mmrb2-generation")
    users = User.objects.bulk_create([User(username=f"bench-rater-{i}", role="annotator") for i in range(ANNOTATORS)])
    prompts = Prompt.objects.bulk_create([
        Prompt(campaign=campaign, external_id=f"bench-prompt-{i}", source=SOURCES[i % len(SOURCES)],
               source_task=("portrait", "scene", "text")[i % 3], content=[{"type": "text", "text": f"Draw {i}"}])
        for i in range(PROMPTS)])
    responses = Response.objects.bulk_create([
        Response(prompt=p, model_name=f"model-{side}", content=[{"type": "text", "text": f"{p.pk}{side}"}],
                 content_sha256=f"{p.pk:032d}{side:>32}") for p in prompts for side in "ab"])
    now = timezone.now()
    stamp = now.isoformat()
    pair_columns = ["campaign_id", "prompt_id", "response_a_id", "response_b_id", "external_id", "status",
                    "required_annotations", "annotations_done", "is_gold", "gold_answer", "created_at"]
    pair_defaults = _defaults(Pair, set(pair_columns))
    gold = rng.random(PAIRS) < 0.01

    def pair_lines():
        for i in range(PAIRS):
            prompt = i % PROMPTS
            fixed = [campaign.pk, prompts[prompt].pk, responses[2 * prompt].pk, responses[2 * prompt + 1].pk,
                     f"bench-pair-{i}", "complete", 3, 3, "t" if gold[i] else "f",
                     '{"overall": 6}' if gold[i] else "\\N", stamp]
            yield "\t".join(map(str, fixed + list(pair_defaults.values()))) + "\n"

    _copy("annotation_pair", pair_columns + list(pair_defaults), pair_lines())
    pair_ids = np.fromiter(Pair.objects.filter(campaign=campaign).order_by("id").values_list("id", flat=True),
                           dtype=np.int64)
    print(f"  {len(users)} raters, {len(pair_ids):,} pairs in {time.perf_counter() - started:.1f} s", file=sys.stderr)

    n = len(pair_ids) * RATERS_PER_PAIR
    latent = np.repeat(rng.normal(0, 1.6, len(pair_ids)), RATERS_PER_PAIR)
    latent[np.repeat(gold, RATERS_PER_PAIR)] = 2.5
    rater = (np.repeat(np.arange(len(pair_ids)) * 7, RATERS_PER_PAIR) + np.tile(np.arange(RATERS_PER_PAIR), len(pair_ids)))
    rater %= ANNOTATORS
    swapped = rng.random(n) < 0.5
    noise = rng.normal(0, 0.9, n)
    left_lovers = rater < 6  # a few raters prefer whatever is shown on the left
    shown = np.where(swapped, -1.0, 1.0)
    latent = np.where(left_lovers, shown * 2.0, latent)
    overall = np.clip(np.rint(3.5 + latent + noise), 1, 6).astype(int)
    rubric = np.clip(np.rint(1.5 + rng.normal(0, 0.8, (n, 4)) + latent[:, None] * [0.5, -0.5, 0.4, -0.4]), 0, 3).astype(int)
    time_ms = np.where(rater % 50 == 0, rng.integers(800, 2500, n), rng.lognormal(10.3, 0.5, n).astype(int))
    week_offset = rng.integers(0, WEEKS * 7 * 24 * 3600, n)
    base_time = now.timestamp() - WEEKS * 7 * 24 * 3600
    user_ids = np.array([u.pk for u in users])
    annotation_columns = ["pair_id", "annotator_id", "source", "rater_label", "values", "shown_swapped", "rationale",
                          "time_on_item_ms", "created_at"]
    annotation_defaults = _defaults(Annotation, set(annotation_columns))
    from datetime import UTC, datetime

    def annotation_lines():
        for k in range(n):
            values = (f'{{"overall": {overall[k]}, "text_faithfulness": {{"A": {rubric[k, 0]}, "B": {rubric[k, 1]}}}, '
                      f'"image_quality": {{"A": {rubric[k, 2]}, "B": {rubric[k, 3]}}}, "prompt_valid": true, '
                      f'"rationale": "compared both images"}}')
            created = datetime.fromtimestamp(base_time + week_offset[k], tz=UTC).isoformat()
            fixed = [pair_ids[k // RATERS_PER_PAIR], user_ids[rater[k]], "concord", "", values,
                     "t" if swapped[k] else "f", "compared both images", time_ms[k], created]
            yield "\t".join(map(str, fixed + list(annotation_defaults.values()))) + "\n"

    _copy("annotation_annotation", annotation_columns + list(annotation_defaults), annotation_lines())
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE annotation_annotation; ANALYZE annotation_pair;")
    print(f"  {n:,} annotations in {time.perf_counter() - started:.1f} s", file=sys.stderr)


def _backend_cpu_seconds() -> float:
    """CPU time of this connection's PostgreSQL backend process (same machine), from /proc."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(bootstrap: int, slices: bool) -> dict:
    from annotation.catalogue.models import Campaign
    from curation.services.agreement import agreement_compute

    campaign = Campaign.objects.select_related("rating_schema").get(slug=CAMPAIGN)
    marks = {}

    def progress(done: int, total: int) -> None:
        if "read" not in marks and done >= 1_000_000:
            marks["read"] = time.perf_counter()

    backend_before = _backend_cpu_seconds()
    cpu_before = time.process_time()
    started = time.perf_counter()
    stored = agreement_compute(campaign=campaign, bootstrap=bootstrap, seed=1, slices=slices, progress=progress)
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu_before
    backend = _backend_cpu_seconds() - backend_before
    report = stored.report
    return {
        "bootstrap": bootstrap,
        "slices": slices,
        "seconds": round(seconds, 2),
        "read_seconds": round(marks.get("read", started) - started, 2),
        "python_cpu_seconds": round(cpu, 2),
        "postgres_cpu_seconds": round(backend, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "load_average": os.getloadavg()[0],
        "items": report["items"],
        "annotations": report["annotations"],
        "alpha": report["alpha"],
        "alpha_ci95": report["alpha_ci95"],
        "pairwise_agreement_excluding_ties": report["pairwise_agreement_excluding_ties"],
        "reports_stored": stored.campaign.agreement_reports.filter(job=None, computed_at__gte=stored.computed_at).count(),
        "biased_raters": sum(1 for row in report["annotators"] if row["position_biased"]),
        "fast_raters": sum(1 for row in report["annotators"] if row["fast"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument("--measure", nargs=2, metavar=("BOOTSTRAP", "SLICES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)
    if args.measure:
        setup_django(url)
        print(json.dumps(measure(int(args.measure[0]), args.measure[1] == "1")))
        return
    fresh = ensure_database(url, regenerate=args.regenerate)
    if fresh:
        print("generating the bench database …", file=sys.stderr)
        setup_django(url)
        generate()
    results = []
    for bootstrap, slices in ((0, False), (1000, False), (1000, True)):
        out = subprocess.run([sys.executable, __file__, "--measure", str(bootstrap), "1" if slices else "0"],
                             capture_output=True, text=True, env={**os.environ, "BENCH_DATABASE_URL": url})
        if out.returncode != 0:
            sys.exit(f"measurement failed (an old bench database? run with --regenerate):\n{out.stderr}")
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
        r = results[-1]
        print(f"bootstrap={r['bootstrap']:>5}  slices={'yes' if r['slices'] else 'no ':3}  "
              f"wall {r['seconds']:6.2f} s (read {r['read_seconds']:5.2f} s)  "
              f"cpu: python {r['python_cpu_seconds']:5.2f} s + postgres {r['postgres_cpu_seconds']:5.2f} s  "
              f"peak RSS {r['peak_rss_mb']:6.1f} MB  reports={r['reports_stored']}  load {r['load_average']:.1f}")
    first = results[1]
    print(f"items={first['items']:,}  annotations={first['annotations']:,}  machine: {os.cpu_count()} cores")
    print(f"alpha {json.dumps(first['alpha'])}\nalpha_ci95 {json.dumps(first['alpha_ci95'])}\n"
          f"pairwise agreement excluding ties {first['pairwise_agreement_excluding_ties']:.2f}%  "
          f"position-biased raters {first['biased_raters']}  fast raters {first['fast_raters']}")


if __name__ == "__main__":
    main()
