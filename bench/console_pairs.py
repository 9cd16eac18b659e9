"""Console read paths over a large campaign: keyset pages at any depth, the funnel, the dashboard figures.

PostgreSQL only. Fills a campaign with N pairs (one prompt and two responses each) with SQL
generate_series, judge verdicts on a fifth of them and three ratings on a third, then times each
read path (median of repeated runs, warm cache) and prints one line per figure. Each prompt reads
"Draw a <word> number <n>" with <word> one of 100 (so a word matches 1% of the pairs; "draw" all
of them) and each response shows one of ten stored images, so the browser's thumbnails, prompt text
and model names are read as on real data. ``--browser-only`` skips the funnel and the figures;
``--leaderboard`` also times the model leaderboard over every rating.

    createdb -h 127.0.0.1 -U postgres bench_console
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_console DJANGO_SETTINGS_MODULE=config.settings.local \\
        DJANGO_DEBUG=false .venv/bin/python bench/console_pairs.py --pairs 300000
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

import django  # noqa: E402

django.setup()

from django.contrib.postgres.search import SearchQuery  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from annotation.catalogue.models import Campaign, Pair, Prompt  # noqa: E402
from annotation.catalogue.services.campaigns import rating_schema_for_preset  # noqa: E402
from curation.selectors.console import PairFilters, campaign_funnel, encode_cursor, pair_browse  # noqa: E402
from curation.selectors.dashboards import FIGURES, dashboard_figure  # noqa: E402
from curation.selectors.leaderboard import model_leaderboard  # noqa: E402
from curation.selectors.pair_columns import PromptDocument  # noqa: E402

SLUG = "bench-console"


def fill(pairs: int) -> Campaign:
    """A campaign with ``pairs`` pairs, judged and rated in part; reused when it already has that many."""
    campaign = Campaign.objects.filter(slug=SLUG).first()
    if campaign and campaign.pairs.count() == pairs and campaign.prompts.filter(content__0__text__startswith="Draw a ").exists():
        return campaign
    if campaign:
        campaign.delete()
    schema = rating_schema_for_preset(preset="mmrb2-generation", kind="text-to-image")
    campaign = Campaign.objects.create(slug=SLUG, name="Bench", kind="text-to-image", rating_schema=schema, max_overlap=5)
    started = time.perf_counter()
    with connection.cursor() as cur:
        cur.execute(
            """INSERT INTO annotation_prompt (campaign_id, external_id, source, source_task, content, metadata, created_at)
               SELECT %s, 'p' || g, (ARRAY['oneig','wise','genai','tiif','imgedit'])[1 + g %% 5], 't2i',
                      jsonb_build_array(jsonb_build_object('type','text','format','plain',
                          'text','Draw a ' || (SELECT array_agg('w' || w) FROM generate_series(0, 99) w)[1 + g %% 100]
                                 || ' number ' || g)), '{}', now()
               FROM generate_series(1, %s) g""",
            [campaign.pk, pairs],
        )
        cur.execute(
            """INSERT INTO annotation_media (sha256, kind, mime_type, size, width, height, file, created_at)
               SELECT md5('bench-image-' || i) || md5('bench-image-' || i), 'image', 'image/png', 100, 8, 8,
                      'media/' || md5('bench-image-' || i) || md5('bench-image-' || i) || '.png', now()
               FROM generate_series(0, 9) i ON CONFLICT (sha256) DO NOTHING"""
        )
        cur.execute(
            """INSERT INTO annotation_response (prompt_id, model_name, content, content_sha256, created_at)
               SELECT p.id, 'model-' || side || '-' || (p.id %% 7),
                      jsonb_build_array(jsonb_build_object('type','image','alt','',
                          'media', md5('bench-image-' || (p.id %% 10)) || md5('bench-image-' || (p.id %% 10)))),
                      md5(p.id::text || side), now()
               FROM annotation_prompt p, (VALUES ('a'), ('b')) s(side) WHERE p.campaign_id = %s""",
            [campaign.pk],
        )
        cur.execute(
            """INSERT INTO annotation_pair (campaign_id, prompt_id, response_a_id, response_b_id, external_id, criteria, status,
                   status_reason, priority, required_annotations, active_claims, annotations_done, is_gold, metadata,
                   created_at)
               SELECT %s, p.id, min(r.id), max(r.id), 'pair-' || p.external_id, '[]',
                      (ARRAY['queued','complete','dropped_easy','pending','queued','complete'])[1 + p.id %% 6], '', (p.id %% 3),
                      3, 0, 0, p.id %% 50 = 0, '{}', now()
               FROM annotation_prompt p JOIN annotation_response r ON r.prompt_id = p.id WHERE p.campaign_id = %s
               GROUP BY p.id""",
            [campaign.pk, campaign.pk],
        )
        cur.execute(
            """INSERT INTO curation_judge (name, backend, settings, enabled, created_at)
               SELECT 'bench-judge-' || j, 'python', '{}', true, now() FROM generate_series(1, 3) j
               ON CONFLICT (name) DO NOTHING"""
        )
        cur.execute(
            """INSERT INTO curation_judgeverdict (pair_id, judge_id, "order", verdict, raw_output, error, requests, created_at)
               SELECT p.id, j.id, o.ord, (ARRAY['A','B','A','tie'])[1 + (p.id + j.id + length(o.ord)) %% 4], '{}', '', 1,
                      now()
               FROM annotation_pair p, curation_judge j, (VALUES ('forward'), ('swapped')) o(ord)
               WHERE p.campaign_id = %s AND p.id %% 5 = 0 AND j.name LIKE 'bench-judge-%%'""",
            [campaign.pk],
        )
        cur.execute(
            """INSERT INTO annotation_user (password, is_superuser, username, first_name, last_name, email, is_staff, is_active,
                   date_joined, role)
               SELECT '!', false, 'bench-rater-' || u, '', '', '', false, true, now(), 'annotator' FROM generate_series(1, 20) u
               ON CONFLICT (username) DO NOTHING"""
        )
        cur.execute(
            """INSERT INTO annotation_annotation (pair_id, annotator_id, source, rater_label, values, shown_swapped, rationale,
                   time_on_item_ms, created_at)
               SELECT p.id, u.id, 'concord', '', jsonb_build_object('overall', 1 + (p.id * 7 + u.id) %% 6),
                      (p.id + u.id) %% 2 = 0, 'because', 2000 + ((p.id * 13 + u.id * 17) %% 120000),
                      now() - ((p.id %% 30) || ' days')::interval
               FROM annotation_pair p
               JOIN LATERAL (SELECT id FROM annotation_user WHERE username LIKE 'bench-rater-%%'
                             ORDER BY (id * 31 + p.id) %% 20 LIMIT 3) u ON true
               WHERE p.campaign_id = %s AND p.id %% 3 = 0""",
            [campaign.pk],
        )
        cur.execute(
            # A queued pair holding its three ratings is complete (the pair_queued_misses_a_rating constraint).
            """UPDATE annotation_pair p SET annotations_done = 3,
                   status = CASE WHEN status = 'queued' THEN 'complete' ELSE status END
               WHERE campaign_id = %s AND id %% 3 = 0""", [campaign.pk]
        )
        cur.execute(
            """INSERT INTO curation_consensusrecord (pair_id, policy, params, decision, chosen, reason, details, decided_at,
                   basis_annotations, stale_reason, criteria)
               SELECT id, 'bench', '{}', (ARRAY['kept','dropped','disputed'])[1 + id %% 3],
                      CASE WHEN id %% 3 = 0 THEN (ARRAY['A','B'])[1 + id %% 2] ELSE '' END,
                      CASE WHEN id %% 3 = 1 THEN 'spread' ELSE '' END, '{}', now(), annotations_done, '', '[]'
               FROM annotation_pair WHERE campaign_id = %s AND annotations_done = 3""",
            [campaign.pk],
        )
        cur.execute("ANALYZE")
    print(f"filled {pairs} pairs in {time.perf_counter() - started:.1f}s", flush=True)
    return campaign


def timed(label: str, fn, repeat: int = 5) -> None:
    fn()
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - started) * 1000)
    print(f"{label:<58} median {statistics.median(runs):8.1f} ms   (min {min(runs):.1f}, max {max(runs):.1f})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=300_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--browser-only", action="store_true", help="time the pair browser only")
    parser.add_argument("--leaderboard", action="store_true", help="also time the model leaderboard (200 resamples)")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("this benchmark needs PostgreSQL (set DATABASE_URL)")
    call_command("migrate", verbosity=0)
    campaign = Campaign.objects.select_related("rating_schema").get(pk=fill(args.pairs).pk)
    ids = list(Pair.objects.filter(campaign=campaign).order_by("id").values_list("id", flat=True)[:: max(1, args.pairs // 10)])
    deep = encode_cursor(sort="id", value=ids[-1], pk=ids[-1])
    deep_priority = encode_cursor(sort="-priority", value=0, pk=ids[len(ids) // 2])
    print(f"campaign {campaign.slug}: {args.pairs} pairs; deep cursor at pair id {ids[-1]}")
    r = args.repeat
    timed("pair_browse first page (50, by id)", lambda: pair_browse(campaign=campaign, filters=PairFilters()), r)
    timed("pair_browse page at 90% depth (by id)", lambda: pair_browse(campaign=campaign, filters=PairFilters(), cursor=deep), r)
    timed("pair_browse -priority page mid-way", lambda: pair_browse(
        campaign=campaign, filters=PairFilters(sort="-priority"), cursor=deep_priority), r)
    timed("pair_browse source=wise", lambda: pair_browse(campaign=campaign, filters=PairFilters(source="wise")), r)
    timed("pair_browse status=complete, disputed", lambda: pair_browse(
        campaign=campaign, filters=PairFilters(status="complete", disputed=True)), r)
    timed("pair_browse judge_agreement <= 0.5", lambda: pair_browse(
        campaign=campaign, filters=PairFilters(judge_agreement_max=0.5)), r)
    timed("pair_browse human_agreement = 1", lambda: pair_browse(
        campaign=campaign, filters=PairFilters(human_agreement_min=1.0)), r)
    timed("pair_browse gold (2% of pairs)", lambda: pair_browse(campaign=campaign, filters=PairFilters(gold=True)), r)
    for word, share in (("w7", "1%"), ("draw", "100%")):
        matching = list(Pair.objects.filter(campaign=campaign).filter(
            prompt__in=Prompt.objects.filter(campaign=campaign).alias(doc=PromptDocument("content")).filter(
                doc=SearchQuery(word, config="simple", search_type="websearch"))).order_by("id").values_list("id", flat=True))
        at = matching[int(len(matching) * 0.9)]
        deep_search = encode_cursor(sort="id", value=at, pk=at)
        search = PairFilters(q=word)
        timed(f"pair_browse q={word} ({share} of pairs), first page", lambda s=search: pair_browse(
            campaign=campaign, filters=s), r)
        timed(f"pair_browse q={word} ({share} of pairs), 90% depth", lambda s=search, c=deep_search: pair_browse(
            campaign=campaign, filters=s, cursor=c), r)
    if args.leaderboard:
        timed("model_leaderboard (all ratings, 200 resamples)", lambda: model_leaderboard(campaigns=[campaign]), 1)
    if args.browser_only:
        return
    timed("campaign_funnel", lambda: campaign_funnel(campaign=campaign), r)
    for name in FIGURES:
        timed(f"figure {name}", lambda name=name: dashboard_figure(name=name, campaign=campaign), max(1, r // 2))


if __name__ == "__main__":
    main()
