"""Per-judge figures of a pre-filter run: calls, errors, abstentions, invalid answers, position consistency, latency.

Pure functions over plain rows; no Django.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

VALID_LABELS = ("A", "B", "tie")
ABSTAIN = "abstain"


@dataclass(frozen=True)
class VerdictRow:
    """One stored verdict, label in canonical orientation."""

    pair: int
    judge: str
    order: str
    label: str
    latency_ms: int | None = None
    error: bool = False


def percentile(values: list[int], q: float) -> float | None:
    """The ``q``-quantile (0..1) by linear interpolation; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def position_consistency(labels_by_pair: dict[int, dict[str, str]]) -> float | None:
    """Share of pairs, judged validly in both orders, whose canonical verdict survives the swap."""
    both = [orders for orders in labels_by_pair.values()
            if orders.get("forward") in VALID_LABELS and orders.get("swapped") in VALID_LABELS]
    if not both:
        return None
    return sum(1 for orders in both if orders["forward"] == orders["swapped"]) / len(both)


def judge_figures(rows: Iterable[VerdictRow]) -> dict[str, dict]:
    """Figures per judge name, sorted by name."""
    grouped: dict[str, list[VerdictRow]] = defaultdict(list)
    for row in rows:
        grouped[row.judge].append(row)
    out = {}
    for judge in sorted(grouped):
        judge_rows = grouped[judge]
        labels: dict[int, dict[str, str]] = defaultdict(dict)
        for row in judge_rows:
            labels[row.pair][row.order] = row.label
        abstained = sum(1 for row in judge_rows if row.label == ABSTAIN and not row.error)
        errors = sum(1 for row in judge_rows if row.error)
        # Invalid: an answer that could not be read (a failed call is an error; an abstention is neither).
        invalid = sum(1 for row in judge_rows if row.label not in VALID_LABELS and row.label != ABSTAIN
                      and not row.error)
        latencies = [row.latency_ms for row in judge_rows if row.latency_ms is not None and not row.error]
        consistency = position_consistency(labels)
        mean = sum(latencies) / len(latencies) if latencies else None
        p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
        out[judge] = {
            "calls": len(judge_rows),
            "errors": errors,
            "abstained": abstained,
            "abstained_rate": round(abstained / len(judge_rows), 4),
            "invalid": invalid,
            "invalid_rate": round(invalid / len(judge_rows), 4),
            "position_consistency": None if consistency is None else round(consistency, 4),
            "latency_ms": {
                "mean": None if mean is None else round(mean, 1),
                "p50": None if p50 is None else round(p50, 1),
                "p95": None if p95 is None else round(p95, 1),
            },
        }
    return out
