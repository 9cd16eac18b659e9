"""Simulated raters against the qualification and pause rules (``annotation.workqueue.qualification``).

Each rater type matches the expected answer of a gold or calibration pair with a fixed probability: good 0.9,
decent 0.8, borderline 0.72, random on A/B 0.5, random on A/B/tie 1/3, adversarial 0.2. Printed per type:

- the calibration round: the share of raters who pass ``--items`` pairs at ``--pass-mark``;
- work: the share paused within ``--gold`` gold pairs, and the median and 90th percentile of gold pairs answered
  until the pause (of those paused), with the rule's ``--window`` and ``--min-gold``.

Plain Python, seeded, no database.

    python bench/qualification_sim.py --raters 2000 --gold 200 [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.workqueue.qualification import pause_decision, qualification_decision  # noqa: E402

TYPES = {"good": 0.9, "decent": 0.8, "borderline": 0.72, "random A/B": 0.5, "random A/B/tie": 1 / 3,
         "adversarial": 0.2}


def simulate(*, p: float, raters: int, items: int, gold: int, pass_mark: float, window: int, min_gold: int,
             confidence: float, rng: random.Random) -> dict:
    passed, paused_after = 0, []
    for _ in range(raters):
        correct = sum(rng.random() < p for _ in range(items))
        passed += qualification_decision(correct=correct, answered=items, pass_mark=pass_mark,
                                         min_items=items, confidence=confidence).verdict == "passed"
        outcomes: list[bool] = []
        for n in range(1, gold + 1):
            outcomes.append(rng.random() < p)
            if n >= min_gold and pause_decision(outcomes=outcomes, pass_mark=pass_mark, window=window,
                                                min_gold=min_gold, confidence=confidence).verdict == "paused":
                paused_after.append(n)
                break
    paused_after.sort()
    return {
        "p_correct": round(p, 3),
        "calibration_pass_share": passed / raters,
        "paused_share": len(paused_after) / raters,
        "gold_until_pause_median": statistics.median(paused_after) if paused_after else None,
        "gold_until_pause_p90": paused_after[int(0.9 * (len(paused_after) - 1))] if paused_after else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--raters", type=int, default=2000, help="simulated raters per type")
    parser.add_argument("--items", type=int, default=20, help="calibration pairs in a round")
    parser.add_argument("--gold", type=int, default=200, help="gold pairs each rater answers during work")
    parser.add_argument("--pass-mark", type=float, default=0.7)
    parser.add_argument("--window", type=int, default=40)
    parser.add_argument("--min-gold", type=int, default=20)
    parser.add_argument("--confidence", type=float, default=0.99, help="of the interval the pause rule reads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    out = {"parameters": {k: v for k, v in vars(args).items() if k != "json"}, "types": {}}
    for name, p in TYPES.items():
        out["types"][name] = simulate(p=p, raters=args.raters, items=args.items, gold=args.gold,
                                      pass_mark=args.pass_mark, window=args.window, min_gold=args.min_gold,
                                      confidence=args.confidence, rng=rng)
        if not args.json:
            print(f"{name} done", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(out))
        return
    print(f"pass mark {args.pass_mark:.0%}; round of {args.items}; window {args.window}, min gold {args.min_gold}, "
          f"{args.confidence:.0%} interval; "
          f"{args.gold} gold pairs; {args.raters} raters per type")
    print(f"{'rater':<16}{'p':>6}{'passes round':>14}{'paused':>9}{'median':>8}{'p90':>6}")
    for name, r in out["types"].items():
        med = r["gold_until_pause_median"]
        p90 = r["gold_until_pause_p90"]
        print(f"{name:<16}{r['p_correct']:>6.2f}{r['calibration_pass_share']:>14.1%}{r['paused_share']:>9.1%}"
              f"{'—' if med is None else f'{med:.0f}':>8}{'—' if p90 is None else p90:>6}")


if __name__ == "__main__":
    main()
