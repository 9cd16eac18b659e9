"""Where the CPU of one claim → submit cycle goes: queries per request, CPU per request, a cProfile of the cycle.

    /work/main/.venv/bin/python bench/assignment_profile.py --pairs 3000 --cycles 200

Creates (drops first) the database ``concord_bench_profile`` on 127.0.0.1 with the same settings as
``bench/annotate_load.py`` (debug off, sessions in the database), then drives the
API in process with Django's test client (no HTTP, no gunicorn): a trivial signed-in GET
(``/api/v1/campaigns/``), then claim → submit cycles. It prints the SQL statements of one request
of each, the CPU per request, a calibration loop (pure Python, to compare this machine's CPU with
others), and the functions that take most of the cycle's CPU under cProfile.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import annotate_load  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3000)
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--db", default="concord_bench_profile")
    parser.add_argument("--top", type=int, default=25, help="functions listed from the profile")
    args = parser.parse_args()

    annotate_load.setup_django(args.db)
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from annotation.models import Campaign, User

    annotate_load.make_annotators(1)
    annotate_load.copy_campaign("profile", args.pairs)
    rater = User.objects.create(username="profile-rater")
    Campaign.objects.get(slug="profile").members.add(rater)
    client = Client()
    client.force_login(rater)

    def trivial():
        client.get("/api/v1/campaigns/")

    def cycle():
        assignment = client.post("/api/v1/campaigns/profile/claim/").json()["assignment"]
        client.post(f"/api/v1/assignments/{assignment}/submit/", {"values": {"preference": "A"}},
                    content_type="application/json", HTTP_IDEMPOTENCY_KEY=f"profile-{assignment}")

    for _ in range(20):  # imports, URL resolver and caches warm
        trivial()
        cycle()
    for label, work in (("trivial GET", trivial), ("claim + submit", cycle)):
        with CaptureQueriesContext(connection) as queries:
            work()
        print(f"{label}: {len(queries)} statements")
        for query in queries:
            print("    " + " ".join(query["sql"].split())[:150])
    for label, work in (("trivial GET", trivial), ("claim + submit", cycle)):
        started = time.process_time()
        for _ in range(args.cycles):
            work()
        print(f"{label}: {1000 * (time.process_time() - started) / args.cycles:.2f} ms CPU in this process")
    print(f"calibration: sum(range(1000)) takes {annotate_load.calibration_us()} µs of CPU (~8-10 µs on a current desktop core)")
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    for _ in range(args.cycles):
        cycle()
    profile.disable()
    pstats.Stats(profile).sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
