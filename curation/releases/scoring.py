"""Score a judge's predictions against a release exactly as the benchmarks' own scripts do.

MMRB2 (``evaluate/compute_scores/compute_accuracy.py``): every pair is judged forward and with A/B
swapped. Only the **first** entry of each ``forward`` / ``reverse`` list counts; an empty or missing
judgement is skipped (it leaves the denominator); a reverse judgement is flipped A↔B before it is
compared with ``chosen``; any other judgement that differs from ``chosen`` ("tie", "C", "a") is wrong.
Accuracy is correct judgements over judgements made; a pair absent from the predictions is *missing*
and counts nowhere. Concord adds per-source figures, intervals and position consistency, and says
how many entries beyond the first it ignored. Where MMRB2's script prints 0.00 % for a file with no
usable judgement, Concord reports no accuracy (``None``): nothing was measured.

Omni-RewardBench: one label per pair, ``response1`` / ``response2`` / ``tie``, compared with the
reference label as the benchmark's script does (``predicted == criteria_preference``). *With ties*
scores every pair of the release over the three labels; *without ties* leaves out the pairs whose
reference is a tie. A pair without a label (absent, or null as Omni's parser returns for a verdict it
cannot read) is wrong, as in Omni's script, and is also reported as missing.

Intervals are 95% percentile bootstraps that resample pairs (a pair's two verdicts stay together).
Pure Python and numpy, no Django.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

SIDES = ("A", "B")
FLIP = {"A": "B", "B": "A"}
ORDERS = ("forward", "reverse")
OMNI_LABELS = ("response1", "response2", "tie")
OMNI_FROM_SIDE = {"A": "response1", "B": "response2", "tie": "tie"}
# A prediction is read only from these keys. A results record of Omni-RewardBench also carries the reference
# answer (criteria_preference) and the pair's own fields: those are never a prediction.
OMNI_PREDICTION_KEYS = ("predicted", "prediction")
REFERENCE_KEYS = ("criteria_preference", "chosen", "rejected")
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


@dataclass(frozen=True)
class Mmrb2Prediction:
    """What MMRB2 reads of one pair's entry: the first judgement of each order (None when it skips the
    order) and how many further entries it ignores."""

    forward: object
    reverse: object
    ignored: int = 0


def _first_judgement(pair_id, order: str, items) -> tuple[object, int]:
    """The judgement MMRB2 reads from one order's list: its first entry's, or None (skipped) when empty."""
    if items is None:
        return None, 0
    if not isinstance(items, list):
        raise PredictionsError(f"{pair_id}.{order}: expected a list of {{\"judgement\": ...}}")
    if not items:
        return None, 0
    first = items[0]
    if isinstance(first, dict):
        judgement = first.get("judgement")
    elif first is None or isinstance(first, str):
        judgement = first
    else:
        raise PredictionsError(f"{pair_id}.{order}[0]: expected {{\"judgement\": \"A\"|\"B\"}}")
    # MMRB2 tests the judgement's truth: None, "" (and any other falsy value) is not a judgement.
    return (judgement if judgement else None), len(items) - 1


def parse_mmrb2(data) -> dict[str, Mmrb2Prediction]:
    """``{pair_id: {"forward": [{"judgement": "A"}, ...], "reverse": [...]}}`` → what MMRB2's script reads.

    Keys other than forward and reverse are ignored, as MMRB2 ignores them; a bare string entry is
    taken as the judgement itself (MMRB2 would stop on it).
    """
    if not isinstance(data, dict):
        raise PredictionsError(f"MMRB2 predictions are an object keyed by pair id, got {type(data).__name__}")
    parsed = {}
    for pair_id, entry in data.items():
        if not isinstance(entry, dict):
            raise PredictionsError(f"{pair_id}: expected {{\"forward\": [...], \"reverse\": [...]}}, "
                                   f"got {type(entry).__name__}")
        forward, extra_forward = _first_judgement(pair_id, "forward", entry.get("forward"))
        reverse, extra_reverse = _first_judgement(pair_id, "reverse", entry.get("reverse"))
        parsed[str(pair_id)] = Mmrb2Prediction(forward, reverse, extra_forward + extra_reverse)
    return parsed


def _omni_prediction(where: str, record: dict):
    """The label a predictions record carries under ``predicted`` or ``prediction``; refused when it has none."""
    for key in OMNI_PREDICTION_KEYS:
        if key in record:
            return record[key]
    reference = [key for key in REFERENCE_KEYS if key in record]
    if reference:
        raise PredictionsError(
            f"{where}: no prediction. {' and '.join(reference)} is the reference answer, never a prediction; "
            "a predictions record carries the judge's label under predicted (Omni-RewardBench's results) or prediction")
    keys = ", ".join(sorted(map(str, record))[:8]) or "none"
    raise PredictionsError(f"{where}: no prediction (expected predicted or prediction; the record's keys: {keys})")


def parse_omnireward(data) -> dict[str, object]:
    """Omni-Reward labels: ``{pair_id: label}``, ``{pair_id: {"prediction": label}}``, or a list of records
    with an ``id`` and a label under ``predicted`` (Omni-RewardBench's own results) or ``prediction``; a null
    label is missing. A record without either is refused (its ``criteria_preference`` is the reference)."""
    if isinstance(data, list):
        labels = {}
        for i, item in enumerate(data):
            if not isinstance(item, dict) or "id" not in item:
                raise PredictionsError(f"[{i}]: expected an object with an id and a prediction")
            labels[str(item["id"])] = _omni_prediction(f"[{i}] ({item['id']})", item)
        return labels
    if not isinstance(data, dict):
        raise PredictionsError(f"Omni-Reward predictions are an object or a list, got {type(data).__name__}")
    labels = {}
    for pair_id, value in data.items():
        labels[str(pair_id)] = _omni_prediction(str(pair_id), value) if isinstance(value, dict) else value
    return labels


@dataclass
class _Tally:
    """Per pair of a group: judgements right, judgements made, and whether the predictions name the pair."""

    correct: list = field(default_factory=list)
    made: list = field(default_factory=list)
    present: list = field(default_factory=list)

    def add(self, correct: int, made: int, present: bool = True) -> None:
        self.correct.append(correct)
        self.made.append(made)
        self.present.append(present)

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
    """Accuracy with its interval; ``evaluated`` / ``missing`` are the pairs the predictions name / leave out."""
    present = sum(tally.present)
    return {
        "accuracy": tally.accuracy(),
        "ci95": bootstrap_ci(tally.correct, tally.made, samples=samples, seed=seed),
        "verdicts": int(sum(tally.made)),
        "correct": int(sum(tally.correct)),
        "pairs": len(tally.made),
        "evaluated": present,
        "missing": len(tally.made) - present,
    }


def _unknown(gold: list[GoldPair], predictions: dict) -> dict:
    known = {g.id for g in gold}
    unknown = sorted(pid for pid in predictions if pid not in known)
    return {"unknown_ids": len(unknown), "unknown_examples": unknown[:EXAMPLES]}


def macro_average(tallies: dict[str, _Tally], *, samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> dict:
    """The unweighted mean of the groups' accuracies (each source benchmark counts once, whatever its size),
    with a 95% stratified bootstrap interval: each resample draws every group's pairs from that group."""
    groups = [(np.asarray(t.correct, dtype=np.float64), np.asarray(t.made, dtype=np.float64))
              for _, t in sorted(tallies.items())]
    groups = [(c[m > 0], m[m > 0]) for c, m in groups]
    groups = [(c, m) for c, m in groups if len(m)]
    if not groups:
        return {"accuracy": None, "ci95": None, "groups": 0}
    accuracy = float(np.mean([c.sum() / m.sum() for c, m in groups]))
    rng = np.random.default_rng(seed)
    estimates = np.zeros(samples)
    for correct, made in groups:
        n = len(made)
        per_chunk = max(1, 2_000_000 // n)
        for start in range(0, samples, per_chunk):
            stop = min(samples, start + per_chunk)
            index = rng.integers(0, n, size=(stop - start, n))
            estimates[start:stop] += correct[index].sum(axis=1) / made[index].sum(axis=1)
    low, high = np.percentile(estimates / len(groups), [2.5, 97.5])
    return {"accuracy": accuracy, "ci95": [round(float(low), 6), round(float(high), 6)], "groups": len(groups)}


def score_mmrb2(gold: list[GoldPair], predictions: dict[str, Mmrb2Prediction], *, samples: int = BOOTSTRAP_SAMPLES,
                seed: int = 0) -> dict:
    """MMRB2's accuracy overall and per task, as ``compute_accuracy.py`` gives it, plus Concord's additions:
    per source, intervals, position consistency, and what was skipped, ignored or unknown.

    Pairs whose humans chose a tie are left out (MMRB2's ``chosen`` is A or B; the MMRB2 export holds none).
    """
    overall = _Tally()
    groups = {"per_task": defaultdict(_Tally), "per_source": defaultdict(_Tally)}
    invalid = skipped = ignored = without_verdict = consistent = both_valid = ties = 0
    for pair in gold:
        if pair.chosen not in SIDES:
            ties += 1
            continue
        entry = predictions.get(pair.id)
        correct = made = 0
        if entry is not None:
            ignored += entry.ignored
            for order, judgement in zip(ORDERS, (entry.forward, entry.reverse), strict=True):
                if judgement is None:
                    skipped += 1
                    continue
                made += 1
                invalid += judgement not in SIDES
                side = FLIP.get(judgement, judgement) if order == "reverse" and isinstance(judgement, str) else judgement
                correct += side == pair.chosen
            if entry.forward in SIDES and entry.reverse in SIDES:
                both_valid += 1
                consistent += entry.forward == FLIP[entry.reverse]
            without_verdict += made == 0
        for tally in (overall, groups["per_task"][pair.task], groups["per_source"][pair.source]):
            tally.add(correct, made, entry is not None)
    result = _summary(overall, samples=samples, seed=seed)
    result.update({
        "format": "mmrb2",
        "pairs_without_verdict": without_verdict,
        "missing_verdicts": skipped,
        "ignored_entries": ignored,
        "invalid": invalid,
        "tie_pairs_left_out": ties,
        "position_consistency": (consistent / both_valid) if both_valid else None,
        "position_consistency_pairs": both_valid,
        "with_ties": None,
        "without_ties": None,
        **_unknown(gold, predictions),
    })
    for name, tallies in groups.items():
        result[name] = {key: _summary(t, samples=samples, seed=seed) for key, t in sorted(tallies.items())}
    result["macro_by_source"] = macro_average(groups["per_source"], samples=samples, seed=seed)
    return result


def score_omnireward(gold: list[GoldPair], labels: dict[str, object], *, no_tie_labels: dict[str, object] | None = None,
                     samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> dict:
    """Omni-RewardBench's accuracy with ties (every pair) and without ties (tie pairs left out), overall,
    per task and per source, with intervals; a pair without a label is wrong.

    Omni-RewardBench runs the judge twice (``run_exp.py``): with the tie prompt on every pair, and with the
    no-tie prompt on the non-tie pairs only. ``no_tie_labels`` are that second run's labels: the figure
    without ties is read from them. Without it, the figure without ties is the with-tie run's labels on the
    non-tie pairs, and ``without_ties_from`` says so.
    """
    def new():
        return {"with": _Tally(), "without": _Tally()}

    overall = new()
    groups = {"per_task": defaultdict(new), "per_source": defaultdict(new)}
    runs = {"with": labels, "without": labels if no_tie_labels is None else no_tie_labels}
    allowed = {"with": OMNI_LABELS, "without": OMNI_LABELS if no_tie_labels is None else OMNI_LABELS[:2]}
    invalid = {"with": 0, "without": 0}
    missing = {"with": 0, "without": 0}
    for pair in gold:
        reference = OMNI_FROM_SIDE.get(pair.chosen, pair.chosen)
        for run in ("with", "without"):
            if run == "without" and reference == "tie":
                continue
            label = runs[run].get(pair.id)
            missing[run] += label is None
            invalid[run] += label is not None and label not in allowed[run]
            right = int(label is not None and label == reference)
            for tallies in (overall, groups["per_task"][pair.task], groups["per_source"][pair.source]):
                tallies[run].add(right, 1, label is not None)

    def describe(tallies) -> dict:
        summary = _summary(tallies["with"], samples=samples, seed=seed)
        summary.update({
            "with_ties": tallies["with"].accuracy(),
            "without_ties": tallies["without"].accuracy(),
            "without_ties_ci95": bootstrap_ci(tallies["without"].correct, tallies["without"].made, samples=samples,
                                              seed=seed),
            "tie_pairs": len(tallies["with"].made) - len(tallies["without"].made),
        })
        return summary

    result = describe(overall)
    result.update({
        "format": "omnireward",
        "with_ties_from": "with-tie run",
        "without_ties_from": "with-tie run, tie pairs left out" if no_tie_labels is None else "no-tie run",
        "missing_verdicts": missing["with"],
        "invalid": invalid["with"],
        "without_ties_missing": missing["without"],
        "without_ties_invalid": invalid["without"],
        "position_consistency": None,
        "position_consistency_pairs": 0,
        **_unknown(gold, labels),
    })
    if no_tie_labels is not None:
        unknown = _unknown(gold, no_tie_labels)
        tie_ids = {g.id for g in gold if OMNI_FROM_SIDE.get(g.chosen) == "tie"}
        result.update({"without_ties_unknown_ids": unknown["unknown_ids"],
                       "without_ties_unknown_examples": unknown["unknown_examples"],
                       "without_ties_tie_pairs_ignored": sum(pid in tie_ids for pid in no_tie_labels)})
    for name, tallies in groups.items():
        result[name] = {key: describe(t) for key, t in sorted(tallies.items())}
    result["macro_by_source"] = macro_average({key: t["with"] for key, t in groups["per_source"].items()},
                                              samples=samples, seed=seed)
    result["macro_by_source_without_ties"] = macro_average(
        {key: t["without"] for key, t in groups["per_source"].items()}, samples=samples, seed=seed)
    return result


# Reward-model scores: one number per response. A pair's record is {"score_a": x, "score_b": y}, [x, y], or (in a
# list of records with an ``id``) either of those keys or "scores": [x, y].
SCORE_PAIR_KEYS = (("score_a", "score_b"), ("score_A", "score_B"))


def _score_pair(where: str, value) -> tuple[float, float] | None:
    """Two finite numbers, or None (a pair the model was not run on); PredictionsError for anything else."""
    if value is None:
        return None
    if isinstance(value, dict):
        if "scores" in value:
            value = value["scores"]
        else:
            for a, b in SCORE_PAIR_KEYS:
                if a in value or b in value:
                    value = [value.get(a), value.get(b)]
                    break
            else:
                reference = [key for key in REFERENCE_KEYS if key in value]
                if reference:
                    raise PredictionsError(f"{where}: no scores. {' and '.join(reference)} is the reference answer, "
                                           "never a prediction; a scores record carries score_a and score_b")
                raise PredictionsError(f"{where}: expected score_a and score_b (or scores: [a, b])")
    if not isinstance(value, list) or len(value) != 2:
        raise PredictionsError(f"{where}: expected two scores, one per response (A then B)")
    if value[0] is None and value[1] is None:
        return None
    for side, score in zip(SIDES, value, strict=True):
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not np.isfinite(score):
            raise PredictionsError(f"{where}: the score of response {side} is {score!r}, not a finite number")
    return float(value[0]), float(value[1])


def parse_scores(data) -> dict[str, tuple[float, float] | None]:
    """Reward-model scores by pair id: ``{pair_id: {"score_a": x, "score_b": y}}`` (or ``[x, y]``), or a list of
    records with an ``id`` and ``score_a``/``score_b`` or ``scores``. Both scores null: the pair was not scored."""
    if isinstance(data, list):
        scores = {}
        for i, item in enumerate(data):
            if not isinstance(item, dict) or "id" not in item:
                raise PredictionsError(f"[{i}]: expected an object with an id and score_a, score_b")
            record = {key: value for key, value in item.items() if key != "id"}
            scores[str(item["id"])] = _score_pair(f"[{i}] ({item['id']})", record)
        return scores
    if not isinstance(data, dict):
        raise PredictionsError(f"scores are an object keyed by pair id or a list of records, got {type(data).__name__}")
    return {str(pid): _score_pair(str(pid), value) for pid, value in data.items()}


def tie_calibration(delta: np.ndarray, reference: np.ndarray) -> tuple[float | None, float | None]:
    """Tie-calibrated pairwise accuracy (Deutsch, Foster and Freitag, 2023, "Ties Matter"): a pair is predicted a
    tie when ``|delta| <= epsilon`` and A or B by the sign of ``delta`` otherwise; ``epsilon`` is the threshold
    (0, or one of the ``|delta|``) that maximises agreement with ``reference`` (+1 A, -1 B, 0 tie) over every pair.
    A NaN delta (no scores) is never right. Returns (accuracy, epsilon); (None, None) without pairs.

    Sorted by ``|delta|``, the pairs at or below a candidate are right when their reference is a tie, the others
    when the sign matches: two cumulative sums give every candidate's accuracy at once."""
    n = len(delta)
    if n == 0:
        return None, None
    scored = ~np.isnan(delta)
    magnitude = np.where(scored, np.abs(delta), np.inf)
    order = np.argsort(magnitude, kind="stable")
    magnitude, sign, ref, scored = magnitude[order], np.sign(np.nan_to_num(delta[order])), reference[order], scored[order]
    tie_right = np.concatenate([[0], np.cumsum(scored & (ref == 0))])  # right as ties among the first k
    sign_right = scored & (sign == ref) & (ref != 0)
    above_right = np.concatenate([np.cumsum(sign_right[::-1])[::-1], [0]])  # right by sign among those after k
    # Candidate k: the first k pairs are ties (k = 0 when no pair is); only where the next magnitude is larger,
    # so pairs of equal |delta| are cut together, and never past the scored ones.
    finite = int(scored.sum())
    ks = [k for k in range(finite + 1) if k == 0 or k == finite or magnitude[k - 1] < magnitude[k]]
    ks = [k for k in ks if k == 0 or np.isfinite(magnitude[k - 1])]
    # No pair with delta exactly 0 can be called A or B: k = 0 is allowed only where no magnitude is 0.
    zero = int(np.count_nonzero(magnitude[:finite] == 0))
    ks = [k for k in ks if k >= zero]
    right = [int(tie_right[k] + above_right[k]) for k in ks]
    best = int(np.argmax(right))
    k = ks[best]
    epsilon = 0.0 if k == 0 else float(magnitude[k - 1])
    return right[best] / n, epsilon


def score_scores(gold: list[GoldPair], scores: dict[str, tuple[float, float] | None], *,
                 samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> dict:
    """A reward model's scores (one per response) against the humans' choice, as the field reports them:

    - ``accuracy``: on the pairs humans did not call a tie, right when the chosen response scored higher
      (equal scores and unscored pairs are wrong: RewardBench's rule), with its interval;
    - ``tie_calibrated_accuracy``: on every pair, ties included, with the tie threshold ``tie_epsilon`` fitted to
      the release (``tie_calibration``, as VideoGen-RewardBench reports it); per task and source at the same
      threshold, so the groups are read with one rule. Its interval resamples pairs at that threshold (the
      threshold is not refitted per resample, so the interval is narrower than a refitted one);
    - per task, per source, and both macro averages over sources.
    """
    ids = [g.id for g in gold]
    reference = np.asarray([1 if g.chosen == "A" else -1 if g.chosen == "B" else 0 for g in gold], dtype=np.int64)
    delta = np.asarray([np.nan if scores.get(pid) is None else scores[pid][0] - scores[pid][1] for pid in ids])
    accuracy, epsilon = tie_calibration(delta, reference)
    called = np.where(np.isnan(delta), 99, np.where(np.abs(np.nan_to_num(delta)) <= (epsilon or 0.0), 0,
                                                     np.sign(np.nan_to_num(delta))))

    def new():
        return {"strict": _Tally(), "calibrated": _Tally()}

    overall = new()
    groups = {"per_task": defaultdict(new), "per_source": defaultdict(new)}
    for i, pair in enumerate(gold):
        present = not np.isnan(delta[i])
        strict = int(present and reference[i] != 0 and np.sign(delta[i]) == reference[i])
        calibrated = int(present and called[i] == reference[i])
        for tallies in (overall, groups["per_task"][pair.task], groups["per_source"][pair.source]):
            if reference[i] != 0:
                tallies["strict"].add(strict, 1, present)
            tallies["calibrated"].add(calibrated, 1, present)

    def describe(tallies) -> dict:
        summary = _summary(tallies["strict"], samples=samples, seed=seed)
        summary.update({
            "tie_calibrated_accuracy": tallies["calibrated"].accuracy(),
            "tie_calibrated_ci95": bootstrap_ci(tallies["calibrated"].correct, tallies["calibrated"].made,
                                                samples=samples, seed=seed),
            "tie_pairs": len(tallies["calibrated"].made) - len(tallies["strict"].made),
        })
        return summary

    result = describe(overall)
    assert accuracy is None or abs(accuracy - (result["tie_calibrated_accuracy"] or 0)) < 1e-12
    unscored = int(np.isnan(delta).sum())
    result.update({
        "format": "scores",
        "tie_epsilon": epsilon,
        "missing_verdicts": unscored,
        "invalid": 0,
        "with_ties": None,
        "without_ties": None,
        "position_consistency": None,
        "position_consistency_pairs": 0,
        **_unknown(gold, scores),
    })
    for name, tallies in groups.items():
        result[name] = {key: describe(t) for key, t in sorted(tallies.items())}
    result["macro_by_source"] = macro_average({k: t["strict"] for k, t in groups["per_source"].items()},
                                              samples=samples, seed=seed)
    result["macro_by_source_tie_calibrated"] = macro_average(
        {k: t["calibrated"] for k, t in groups["per_source"].items()}, samples=samples, seed=seed)
    return result
