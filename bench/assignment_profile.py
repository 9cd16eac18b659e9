"""Where the CPU of one claim → submit cycle goes: queries per request, CPU per request, a cProfile of the cycle.

    /work/main/.venv/bin/python bench/assignment_profile.py --pairs 3000 --cycles 200

Creates (drops first) the database ``concord_bench_profile`` on 127.0.0.1 with the same settings as
``bench/annotate_load.py`` (debug off, sessions in the database), then drives the
API in process with Django's test client (no HTTP, no gunicorn): a trivial signed-in GET
(``/api/v1/campaigns/``), then claim → submit cycles. It prints the SQL statements of one request
of each, the CPU per request, the database's CPU per statement (the backend's, from /proc) with how
PostgreSQL plans each prepared statement (one generic plan, or planned anew on every run: the claim was,
until its LIMIT stopped being a parameter), a calibration loop (pure Python, to compare this machine's
CPU with others), and the functions that take most of the cycle's CPU under cProfile.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from collections import Counter
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

    from annotation.accounts.models import User
    from annotation.catalogue.models import Campaign

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
    database_cpu(connection, cycle, args.cycles)
    print(f"calibration: sum(range(1000)) takes {annotate_load.calibration_us()} µs of CPU (~8-10 µs on a current desktop core)")
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    for _ in range(args.cycles):
        cycle()
    profile.disable()
    pstats.Stats(profile).sort_stats("cumulative").print_stats(args.top)


def database_cpu(connection, cycle, cycles: int) -> None:
    """The backend's CPU per statement of the cycle, and the plan cache's counts for each prepared statement."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    spent, runs = Counter(), Counter()

    def measured(execute, sql, params, many, context):
        before = annotate_load._cpu_seconds(backend)
        try:
            return execute(sql, params, many, context)
        finally:
            key = " ".join(sql.split())[:70]
            spent[key] += annotate_load._cpu_seconds(backend) - before
            runs[key] += 1

    with connection.execute_wrapper(measured):
        for _ in range(cycles):
            cycle()
    print(f"database CPU per cycle: {1000 * sum(spent.values()) / cycles:.2f} ms (the backend's clock ticks, summed)")
    for key, seconds in spent.most_common():
        print(f"    {1000 * seconds / cycles:6.3f} ms  x{runs[key] / cycles:.0f}  {key}")
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements ORDER BY 3 DESC, 2 DESC")
        print("prepared statements (generic plans / planned anew):")
        for statement, generic, custom in cursor.fetchall():
            print(f"    {generic:6d} / {custom:6d}  {' '.join(statement.split())[:70]}")


if __name__ == "__main__":
    main()
