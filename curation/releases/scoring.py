"""Score a judge's predictions against a release exactly as the benchmarks' papers do.

MMRB2: every pair is judged forward and with A/B swapped, and both count. A forward verdict is
right when it equals ``chosen``; a swapped ("reverse") verdict is flipped back first (A↔B). Accuracy
is right verdicts over verdicts made: a missing verdict leaves the denominator, and any verdict other
than the exact strings ``"A"``/``"B"`` is wrong.

Omni-Reward: one label per pair, ``response1``/``response2``/``tie``. *With ties* scores every labelled
pair over the three labels; *without ties* drops pairs whose reference label is a tie. A missing label
leaves the denominator; anything but the three labels is wrong.

Intervals are 95% percentile bootstraps that resample pairs (a pair's two verdicts stay together).
Pure Python and numpy, no Django.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

SIDES = ("A", "B")
FLIP = {"A": "B", "B": "A"}
OMNI_LABELS = ("response1", "response2", "tie")
OMNI_FROM_SIDE = {"A": "response1", "B": "response2", "tie": "tie"}
BOOTSTRAP_SAMPLES = 1_000
EXAMPLES = 5


class PredictionsError(ValueError):
    """Predictions that are not in the declared format; the message names the first offending entry."""


@dataclass(frozen=True)
class GoldPair:
    """One pair of the release: its id, task, source benchmark and the side humans chose (A, B or tie)."""

    id: str
    task: str
    source: str
    chosen: str


def parse_mmrb2(data) -> dict[str, dict[str, list]]:
    """``{pair_id: {"forward": [{"judgement": "A"}, ...], "reverse": [...]}}`` → raw judgements (None = missing)."""
    if not isinstance(data, dict):
        raise PredictionsError(f"MMRB2 predictions are an object keyed by pair id, got {type(data).__name__}")
    parsed = {}
    for pair_id, entry in data.items():
        if not isinstance(entry, dict):
            raise PredictionsError(f"{pair_id}: expected {{\"forward\": [...], \"reverse\": [...]}}, got {type(entry).__name__}")
        unknown = set(entry) - {"forward", "reverse"}
        if unknown:
            names = ", ".join(sorted(map(str, unknown)))
            raise PredictionsError(f"{pair_id}: unknown key(s) {names}; expected forward and reverse")
        orders = {}
        for order in ("forward", "reverse"):
            items = entry.get(order)
            if items is None:
                orders[order] = [None]
                continue
            if not isinstance(items, list):
                raise PredictionsError(f"{pair_id}.{order}: expected a list of {{\"judgement\": ...}}")
            verdicts = []
            for i, item in enumerate(items):
                if isinstance(item, dict):
                    verdicts.append(item.get("judgement"))
                elif item is None or isinstance(item, str):
                    verdicts.append(item)
                else:
                    raise PredictionsError(f"{pair_id}.{order}[{i}]: expected {{\"judgement\": \"A\"|\"B\"}}")
            orders[order] = verdicts or [None]
        parsed[str(pair_id)] = orders
    return parsed


def parse_omnireward(data) -> dict[str, object]:
    """Omni-Reward labels: ``{pair_id: label}``, ``{pair_id: {"prediction": label}}`` or a list of
    ``{"id": ..., "prediction" | "criteria_preference": label}``; a null label is missing."""
    if isinstance(data, list):
        labels = {}
        for i, item in enumerate(data):
            if not isinstance(item, dict) or "id" not in item:
                raise PredictionsError(f"[{i}]: expected an object with an id and a prediction")
            keys = [k for k in ("prediction", "criteria_preference") if k in item]
            if not keys:
                raise PredictionsError(f"[{i}] ({item['id']}): no prediction or criteria_preference")
            labels[str(item["id"])] = item[keys[0]]
        return labels
    if not isinstance(data, dict):
        raise PredictionsError(f"Omni-Reward predictions are an object or a list, got {type(data).__name__}")
    labels = {}
    for pair_id, value in data.items():
        if isinstance(value, dict):
            if "prediction" not in value:
                raise PredictionsError(f"{pair_id}: expected {{\"prediction\": label}}")
            value = value["prediction"]
        labels[str(pair_id)] = value
    return labels


@dataclass
class _Tally:
    correct: list
    made: list

    def accuracy(self) -> float | None:
        total = sum(self.made)
        return sum(self.correct) / total if total else None


def bootstrap_ci(correct, made, *, samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> list[float] | None:
    """95% percentile interval of sum(correct)/sum(made), resampling pairs with replacement."""
    correct = np.asarray(correct, dtype=np.float64)
    made = np.asarray(made, dtype=np.float64)
    keep = made > 0
    correct, made = correct[keep], made[keep]
    n = len(made)
    if n == 0:
        return None
    rng = np.random.default_rng(seed)
    estimates = np.empty(samples)
    per_chunk = max(1, 2_000_000 // n)
    for start in range(0, samples, per_chunk):
        stop = min(samples, start + per_chunk)
        index = rng.integers(0, n, size=(stop - start, n))
        estimates[start:stop] = correct[index].sum(axis=1) / made[index].sum(axis=1)
    low, high = np.percentile(estimates, [2.5, 97.5])
    return [round(float(low), 6), round(float(high), 6)]


def _summary(tally: _Tally, *, samples: int, seed: int) -> dict:
    return {
        "accuracy": tally.accuracy(),
        "ci95": bootstrap_ci(tally.correct, tally.made, samples=samples, seed=seed),
        "verdicts": int(sum(tally.made)),
        "correct": int(sum(tally.correct)),
        "evaluated": sum(1 for m in tally.made if m),
    }


def _unknown(gold: list[GoldPair], predictions: dict) -> dict:
    known = {g.id for g in gold}
    unknown = sorted(pid for pid in predictions if pid not in known)
    return {"unknown_ids": len(unknown), "unknown_examples": unknown[:EXAMPLES]}


def score_mmrb2(gold: list[GoldPair], predictions: dict[str, dict[str, list]], *, samples: int = BOOTSTRAP_SAMPLES,
                seed: int = 0) -> dict:
    """MMRB2 accuracy overall, per task and per source, with intervals and position consistency."""
    overall = _Tally([], [])
    groups = {"per_task": defaultdict(lambda: _Tally([], [])), "per_source": defaultdict(lambda: _Tally([], []))}
    invalid = missing_verdicts = missing_pairs = consistent = both_valid = 0
    for pair in gold:
        entry = predictions.get(pair.id, {"forward": [None], "reverse": [None]})
        correct = made = 0
        for order in ("forward", "reverse"):
            for verdict in entry[order]:
                if verdict is None:
                    missing_verdicts += 1
                    continue
                made += 1
                if verdict not in SIDES:
                    invalid += 1
                    continue
                side = verdict if order == "forward" else FLIP[verdict]
                correct += side == pair.chosen
        forward, reverse = entry["forward"][0], entry["reverse"][0]
        if forward in SIDES and reverse in SIDES:
            both_valid += 1
            consistent += forward == FLIP[reverse]
        if not made:
            missing_pairs += 1
        for tally in (overall, groups["per_task"][pair.task], groups["per_source"][pair.source]):
            tally.correct.append(correct)
            tally.made.append(made)
    result = _summary(overall, samples=samples, seed=seed)
    result.update({
        "format": "mmrb2",
        "pairs": len(gold),
        "missing": missing_pairs,
        "missing_verdicts": missing_verdicts,
        "invalid": invalid,
        "position_consistency": (consistent / both_valid) if both_valid else None,
        "position_consistency_pairs": both_valid,
        "with_ties": None,
        "without_ties": None,
        **_unknown(gold, predictions),
    })
    for name, tallies in groups.items():
        result[name] = {key: _summary(t, samples=samples, seed=seed) for key, t in sorted(tallies.items())}
    return result


def score_omnireward(gold: list[GoldPair], labels: dict[str, object], *, samples: int = BOOTSTRAP_SAMPLES,
                     seed: int = 0) -> dict:
    """Omni-Reward accuracy with and without ties, overall, per task and per source, with intervals."""
    def new():
        return {"with": _Tally([], []), "without": _Tally([], [])}

    overall = new()
    groups = {"per_task": defaultdict(new), "per_source": defaultdict(new)}
    invalid = missing = 0
    for pair in gold:
        reference = OMNI_FROM_SIDE.get(pair.chosen, pair.chosen)
        label = labels.get(pair.id)
        if label is None:
            missing += 1
            continue
        invalid += label not in OMNI_LABELS
        right = int(label == reference)
        for tallies in (overall, groups["per_task"][pair.task], groups["per_source"][pair.source]):
            tallies["with"].correct.append(right)
            tallies["with"].made.append(1)
            if reference != "tie":
                tallies["without"].correct.append(right)
                tallies["without"].made.append(1)

    def describe(tallies) -> dict:
        summary = _summary(tallies["with"], samples=samples, seed=seed)
        summary.update({
            "with_ties": tallies["with"].accuracy(),
            "without_ties": tallies["without"].accuracy(),
            "without_ties_ci95": bootstrap_ci(tallies["without"].correct, tallies["without"].made, samples=samples, seed=seed),
        })
        return summary

    result = describe(overall)
    result.update({
        "format": "omnireward",
        "pairs": len(gold),
        "missing": missing,
        "missing_verdicts": missing,
        "invalid": invalid,
        "position_consistency": None,
        "position_consistency_pairs": 0,
        **_unknown(gold, labels),
    })
    for name, tallies in groups.items():
        result[name] = {key: describe(t) for key, t in sorted(tallies.items())}
    return result
