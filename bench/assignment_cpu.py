"""CPU of one claim → submit cycle in process, for this checkout: the web code's and its database backend's.

    /work/main/.venv/bin/python bench/assignment_cpu.py --setup        # once: the database and its raters
    /work/main/.venv/bin/python bench/assignment_cpu.py --cycles 3000  # as often as wanted

Thirty-two signed-in raters (Django's test client, each its own session) take turns claiming and submitting in
one campaign, so each claim meets the others' leases as it would under load; no HTTP, no gunicorn. It prints
the CPU per cycle of this process (``time.process_time``) and of its PostgreSQL backend (from /proc). Run it in
two checkouts, one after the other and again (``cd /tmp/before && /work/main/.venv/bin/python
/work/main/bench/assignment_cpu.py --db concord_cpu_before ...``): it measures the checkout it is run from, with
that checkout's ``bench/annotate_load.py``, and each checkout needs its own ``--db``, made with ``--setup``.
Never part of ``make test``.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

ROOT = Path.cwd()
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))  # the measured checkout's own annotate_load (its database setup, its models)

import annotate_load  # noqa: E402

RATERS = 32
SLUG = "cpu"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="concord_cpu")
    parser.add_argument("--setup", action="store_true", help="make the database, the campaign and the raters")
    parser.add_argument("--pairs", type=int, default=60_000)
    parser.add_argument("--cycles", type=int, default=3000)
    args = parser.parse_args()

    if args.setup:
        annotate_load.setup_django(args.db)
    else:
        import django

        os.environ.update(annotate_load._env(args.db))
        django.setup()
    from django.apps import apps
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    user_model = get_user_model()
    # Campaigns moved from the annotation app to catalogue with issue 21; an older checkout has them in annotation.
    campaign_model = apps.get_model("annotation" if (ROOT / "annotation" / "models.py").is_file() else "catalogue",
                                    "Campaign")
    if args.setup:
        annotate_load.make_annotators(1)
        annotate_load.copy_campaign(SLUG, args.pairs)
        campaign = campaign_model.objects.get(slug=SLUG)
        for index in range(RATERS):
            campaign.members.add(user_model.objects.create(username=f"cpu-rater-{index}"))
        print(f"{args.db}: {args.pairs:,} pairs, {RATERS} raters")
        return

    clients = []
    for index in range(RATERS):
        client = Client()
        client.force_login(user_model.objects.get(username=f"cpu-rater-{index}"))
        clients.append(client)

    def cycle(client: Client) -> None:
        assignment = client.post(f"/api/v1/campaigns/{SLUG}/claim/").json()["assignment"]
        client.post(f"/api/v1/assignments/{assignment}/submit/", {"values": {"preference": "A"}},
                    content_type="application/json", HTTP_IDEMPOTENCY_KEY=f"cpu-{assignment}")

    for index in range(2 * RATERS):  # imports, URL resolver, prepared statements
        cycle(clients[index % RATERS])
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (backend,) = cursor.fetchone()
    gc.collect()
    gc.freeze()  # as config/wsgi.py does at boot
    started, backend_started = time.process_time(), annotate_load._cpu_seconds(backend)
    for index in range(args.cycles):
        cycle(clients[index % RATERS])
    web = (time.process_time() - started) / args.cycles
    database = (annotate_load._cpu_seconds(backend) - backend_started) / args.cycles
    print(f"{ROOT}: {1000 * web:.3f} ms of web CPU + {1000 * database:.3f} ms of database CPU per cycle "
          f"({args.cycles:,} cycles, {RATERS} raters)")


if __name__ == "__main__":
    main()
