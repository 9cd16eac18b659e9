"""What a claim costs as one annotator's own backlog grows (pairs they annotated that wait for others).

    /work/main/.venv/bin/python bench/claim_backlog.py --pairs 20000 --backlog 0,250,1000,2500,5000

Breadth-first puts those pairs at the top of the claim's index, so an annotator far ahead of the
others (working alone at night, say) is the worst case for the claim. Creates (drops first) the
database ``concord_backlog`` on 127.0.0.1, a campaign of ``--pairs`` pairs with overlap 3 and one
annotator, who then annotates alone (claim → submit through the services, in process). At each
backlog size it prints the claim's latency in process (p50/p95 over ``--probes`` claims, each then
submitted) and the claim statement's EXPLAIN ANALYZE: execution time and buffers touched (its cost,
free of the machine's noise). ``--json`` prints one JSON object instead.

Never part of ``make test``. Figures and their command go in ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import annotate_load  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20000)
    parser.add_argument("--backlog", default="0,250,1000,2500,5000", help="backlog sizes to measure at, ascending")
    parser.add_argument("--probes", type=int, default=50, help="claims timed at each backlog size")
    parser.add_argument("--db", default="concord_backlog")
    parser.add_argument("--json", action="store_true", help="print one JSON object, no progress")
    args = parser.parse_args()
    sizes = sorted(int(size) for size in args.backlog.split(","))
    if sizes[-1] + args.probes > args.pairs:
        parser.error("--pairs must exceed the largest backlog plus the probes")

    annotate_load.setup_django(args.db)
    from annotation.accounts.models import User
    from annotation.catalogue.models import Campaign
    from core.cli import progress_bar

    annotate_load.make_annotators(1)
    annotate_load.copy_campaign("backlog", args.pairs)
    campaign = Campaign.objects.get(slug="backlog")
    rater = User.objects.get(username="bench-rater-0")

    def cycle() -> float:
        return annotate_load.timed_claim_then_submit(campaign, rater, "backlog")

    def explain() -> dict:  # the claim statement as bench-rater-0's next claim
        return annotate_load._plan_figures(annotate_load.explain_claim("backlog"))

    done, results = 0, []
    with progress_bar(total=sizes[-1] + args.probes, desc="annotating alone", enabled=not args.json) as bar:
        for size in sizes:
            while done < size:
                cycle()
                done += 1
                bar.update()
            figures = {"backlog": done, **explain()}
            times = []
            for _ in range(args.probes):
                times.append(cycle())
                done += 1
                bar.update()
            figures["claim"] = annotate_load.percentiles(times)
            results.append(figures)
            if not args.json:
                claim = figures["claim"]
                bar.write(f"backlog {figures['backlog']:>6}: claim p50 {claim['p50_ms']} ms, p95 {claim['p95_ms']} ms; statement "
                          f"{figures['execution_ms']} ms, {figures['buffers']} buffers")
    if args.json:
        print(json.dumps({"pairs": args.pairs, "calibration_us": annotate_load.calibration_us(), "results": results}))
    else:
        print(f"calibration: sum(range(1000)) takes {annotate_load.calibration_us()} µs of CPU")


if __name__ == "__main__":
    main()
