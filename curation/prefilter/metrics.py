"""Per-judge figures of a pre-filter run: calls, errors, invalid answers, position consistency, latency.

Pure functions over plain rows; no Django.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

VALID_LABELS = ("A", "B", "tie")


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
        invalid = sum(1 for row in judge_rows if row.label not in VALID_LABELS)
        latencies = [row.latency_ms for row in judge_rows if row.latency_ms is not None and not row.error]
        consistency = position_consistency(labels)
        mean = sum(latencies) / len(latencies) if latencies else None
        p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
        out[judge] = {
            "calls": len(judge_rows),
            "errors": sum(1 for row in judge_rows if row.error),
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
