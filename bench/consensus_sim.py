"""Simulated campaigns with known truth: how well each consensus policy and setting decides, and how often the
leaderboard's intervals cover the true strengths.

Each campaign: 8 models with known Bradley–Terry strengths; pairs between two models; each pair's true label is
a tie with probability ``--ties`` (independent of strength), otherwise A or B by the Bradley–Terry odds. Raters:
five good ones (the truth with probability 0.8, otherwise another label), one who answers at random, one who
always prefers the response shown on the left (the side shown left is random per rating), one fast rater
(half of the answers random). 3–5 raters per pair. ``--split`` makes two groups of four models never compared.

Printed per policy and setting (``--json``: one object): the share of pairs kept, the accuracy of the kept
decisions against the truth, and the accuracy over every pair (a pair not kept counts as not decided); for the
leaderboard, per-model and joint coverage of the true strengths by the 95 % intervals (per-model and Bonferroni
over the models); for each rater, the share of campaigns in which the agreement report's rules flag them
(``curation.agreement.annotators.annotator_statistics``: guessing, position bias, speed). Runs in plain numpy
and the policies' own functions: no database.

    python bench/consensus_sim.py --campaigns 20 --pairs 240 --ties 0.1,0.3
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

import django  # noqa: E402

django.setup()

from annotation.catalogue import schemas  # noqa: E402
from curation.agreement.annotators import (  # noqa: E402
    annotator_statistics,
    chose_left,
    leave_one_out_agreement,
    leave_one_out_majority,
)
from curation.agreement.table import table_from_answers  # noqa: E402
from curation.agreement.variables import SIDE_A, SIDE_B, variables_of_schema  # noqa: E402
from curation.consensus import get_policy  # noqa: E402
from curation.consensus.base import pair_ratings_from_table  # noqa: E402
from curation.leaderboard.bradley_terry import comparisons_from_names, leaderboard  # noqa: E402

LABELS = ("A", "B", "tie")
STRENGTH = np.array([1.2, 0.8, 0.5, 0.2, -0.1, -0.4, -0.8, -1.4])  # natural log-odds, mean 0
RATERS = ["good-1", "good-2", "good-3", "good-4", "good-5", "random", "always-left", "fast"]
SETTINGS = [
    ("majority", {}),
    ("majority", {"k": 3}),
    ("unanimous", {}),
    ("dawid-skene", {"smoothing": 1.0}),
    ("dawid-skene", {"smoothing": 0.0}),
    ("dawid-skene", {"smoothing": 1.0, "threshold": 0.7}),
]


def campaign(rng: np.random.Generator, *, pairs: int, ties: float, split: bool):
    """(truth per pair, ratings as (pair, rater, label, left side), model of A and B per pair)."""
    groups = [np.arange(4), np.arange(4, 8)] if split else [np.arange(8)]
    truth, model_a, model_b, ratings = [], [], [], []
    for p in range(pairs):
        group = groups[p % len(groups)]
        a, b = rng.choice(group, 2, replace=False)
        if rng.random() < ties:
            label = "tie"
        else:
            label = "A" if rng.random() < 1 / (1 + np.exp(STRENGTH[b] - STRENGTH[a])) else "B"
        truth.append(label)
        model_a.append(int(a))
        model_b.append(int(b))
        for rater in rng.choice(len(RATERS), int(rng.integers(3, 6)), replace=False):
            left = "A" if rng.random() < 0.5 else "B"
            kind = RATERS[rater]
            if kind.startswith("good") or (kind == "fast" and rng.random() < 0.5):
                given = label if rng.random() < 0.8 else rng.choice([x for x in LABELS if x != label])
            elif kind == "always-left":
                given = left
            else:
                given = str(rng.choice(LABELS))
            ratings.append((p, int(rater), str(given), left))
    return np.array(truth), ratings, np.array(model_a), np.array(model_b)


def decide(policy_name: str, params: dict, ratings, pairs: int) -> list:
    variables = variables_of_schema(schemas.preset("ab-tie", "text-to-image"))
    table = table_from_answers(variables=variables, pair_ids=[r[0] for r in ratings],
                               raters=[RATERS[r[1]] for r in ratings], answers=[{"preference": r[2]} for r in ratings])
    policy = get_policy(policy_name)
    return policy.decide(pair_ratings_from_table(table, variables["preference"]), policy.params(params))


def score(decisions, truth) -> dict:
    kept = [(d.pair_id, d.chosen) for d in decisions if d.decision == "kept"]
    right = sum(truth[pair] == chosen for pair, chosen in kept)
    return {"kept": len(kept) / len(truth), "kept_accuracy": right / len(kept) if kept else None,
            "accuracy_all": right / len(truth)}


def flagged(ratings, pairs: int, rng: np.random.Generator) -> dict[str, list[str]]:
    """Each rater's flags by the report's own rules (``annotator_statistics``: guessing, position, speed). Times on
    item: the fast rater about 4 s, the others about 30 s (lognormal)."""
    rater = np.array([r[1] for r in ratings])
    category = np.array([LABELS.index(r[2]) for r in ratings])
    unit = np.array([r[0] for r in ratings])
    side = np.where(category == 0, SIDE_A, np.where(category == 1, SIDE_B, -1))
    swapped = np.array([0 if r[3] == "A" else 1 for r in ratings])
    fast = np.array([RATERS[r] == "fast" for r in rater])
    time_ms = np.where(fast, 4000, 30000) * rng.lognormal(0, 0.3, len(ratings))
    rows = annotator_statistics(
        rater=rater, agree=leave_one_out_agreement(unit, category, n_units=pairs, n_categories=3),
        gold_correct=np.full(len(ratings), -1), left=chose_left(side, swapped), time_ms=time_ms,
        period=np.zeros(len(ratings), dtype=np.int64), rater_keys=RATERS, category=category,
        majority=leave_one_out_majority(unit, category, n_units=pairs, n_categories=3), n_categories=3)
    return {row["rater"]: row["flags"] for row in rows}


def coverage(ratings, model_a, model_b, *, bootstrap: int, seed: int) -> dict:
    """Per-model and joint coverage of the true (centred, Elo-scaled) strengths by the board's intervals."""
    outcome = {"A": 1.0, "B": 0.0, "tie": 0.5}
    c = comparisons_from_names(model_a=[f"m{model_a[r[0]]}" for r in ratings],
                               model_b=[f"m{model_b[r[0]]}" for r in ratings],
                               outcome=[outcome[r[2]] for r in ratings],
                               left=[1 if r[3] == "A" else -1 for r in ratings], pair=[r[0] for r in ratings])
    board = leaderboard(c, bootstrap=bootstrap, seed=seed)
    ranked = [int(name[1:]) for name in board.models]
    truth = STRENGTH[ranked] - STRENGTH[ranked].mean()
    truth = 1000 + 400 * truth / np.log(10)
    inside = [ci is not None and ci[0] <= t <= ci[1] for ci, t in zip(board.rating_ci95, truth, strict=True)]
    jointly = [ci is not None and ci[0] <= t <= ci[1] for ci, t in zip(board.rating_ci_simultaneous, truth, strict=True)]
    return {"per_model": float(np.mean(inside)), "joint": bool(all(inside)), "joint_simultaneous": bool(all(jointly)),
            "ranked": len(ranked), "apart": len(board.apart), "ties": board.ties}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--campaigns", type=int, default=20)
    parser.add_argument("--pairs", type=int, default=240)
    parser.add_argument("--ties", default="0.1,0.3")
    parser.add_argument("--bootstrap", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    out = {"campaigns": args.campaigns, "pairs": args.pairs, "settings": {}}
    warnings.simplefilter("ignore")
    for ties in (float(t) for t in args.ties.split(",")):
        for split in (False, True):
            scenario = f"ties {ties:.0%}{', two unconnected groups' if split else ''}"
            figures: dict[str, list] = {}
            covered = []
            flags: dict[str, int] = dict.fromkeys(RATERS, 0)
            for n in range(args.campaigns):
                rng = np.random.default_rng(1000 * n + int(ties * 100) + split)
                truth, ratings, model_a, model_b = campaign(rng, pairs=args.pairs, ties=ties, split=split)
                for name, params in SETTINGS:
                    key = f"{name} {json.dumps(params, sort_keys=True)}"
                    figures.setdefault(key, []).append(score(decide(name, params, ratings, args.pairs), truth))
                covered.append(coverage(ratings, model_a, model_b, bootstrap=args.bootstrap, seed=n))
                for name, raised in flagged(ratings, args.pairs, rng).items():
                    flags[name] += bool(raised)
            summary = {key: {field: float(np.mean([r[field] for r in runs if r[field] is not None]))
                             for field in ("kept", "kept_accuracy", "accuracy_all")} for key, runs in figures.items()}
            summary["leaderboard"] = {"per_model_coverage": float(np.mean([c["per_model"] for c in covered])),
                                      "joint_coverage": float(np.mean([c["joint"] for c in covered])),
                                      "joint_coverage_simultaneous": float(np.mean([c["joint_simultaneous"]
                                                                                    for c in covered])),
                                      "tie_model": covered[0]["ties"],
                                      "models_ranked": float(np.mean([c["ranked"] for c in covered])),
                                      "models_apart": float(np.mean([c["apart"] for c in covered]))}
            summary["raters_flagged"] = {name: count / args.campaigns for name, count in flags.items()}
            out["settings"][scenario] = summary
            if not args.json:
                print(f"\n{scenario} ({args.campaigns} campaigns of {args.pairs} pairs)")
                for key, value in summary.items():
                    if key == "raters_flagged":
                        print("  raters flagged (share of campaigns): " + ", ".join(
                            f"{name} {share:.0%}" for name, share in value.items()))
                    elif key == "leaderboard":
                        print(f"  leaderboard ({value['tie_model']} ties): per-model 95% intervals cover the truth "
                              f"{value['per_model_coverage']:.0%} of the time, all at once {value['joint_coverage']:.0%}; "
                              f"simultaneous intervals cover all at once {value['joint_coverage_simultaneous']:.0%}; "
                              f"{value['models_ranked']:.1f} ranked, {value['models_apart']:.1f} listed apart")
                    else:
                        print(f"  {key:<50} kept {value['kept']:.1%}  accuracy of kept {value['kept_accuracy']:.3f}"
                              f"  right over all pairs {value['accuracy_all']:.3f}")
    out["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(out) if args.json else f"\n{out['seconds']} s")


if __name__ == "__main__":
    main()
