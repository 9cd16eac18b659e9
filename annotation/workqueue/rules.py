"""Pure rules of the work queue, without Django: which side is shown left, and whether a gold answer matched."""

from __future__ import annotations

import hashlib
import statistics


def orientation_swapped(seed: str, pair_id: int, annotator_id: int) -> bool:
    """Whether response B is shown on the left for this pair and annotator; fixed by the campaign's seed.

    PostgreSQL computes the same bit as ``get_byte(sha256(convert_to(seed:pair:annotator, 'UTF8')), 0) & 1``.
    """
    digest = hashlib.sha256(f"{seed}:{pair_id}:{annotator_id}".encode()).digest()
    return bool(digest[0] & 1)


def _side(value: int, q: dict) -> str:
    middle = (q["min"] + q["max"]) / 2
    return "A" if value > middle else "B" if value < middle else "tie"


def gold_matches(definition: dict, gold_answer: dict | None, values: dict) -> bool | None:
    """Whether canonical ``values`` agree with a gold pair's expected answer; None when there is nothing to compare.

    Each key of ``gold_answer`` is a question id. An oriented scale (the 6-point overall preference)
    matches when it prefers the same side; criteria match label by label for the criteria the gold
    answer names; a per-response answer matches on the sides the gold answer gives; anything else
    must be equal.
    """
    if not gold_answer or not isinstance(gold_answer, dict):
        return None
    by_id = {q["id"]: q for q in definition.get("questions", [])}
    for qid, expected in gold_answer.items():
        q = by_id.get(qid)
        actual = values.get(qid)
        if q is None or actual is None:
            return False
        if q.get("oriented") and q["type"] == "scale":
            if not isinstance(expected, int) or _side(actual, q) != _side(expected, q):
                return False
        elif q["type"] == "criteria":
            given = {item.get("criterion"): item.get("label") for item in actual if isinstance(item, dict)}
            wanted = {item.get("criterion"): item.get("label") for item in expected if isinstance(item, dict)}
            if any(given.get(criterion) != label for criterion, label in wanted.items()):
                return False
        elif q.get("scope") == "response" and isinstance(expected, dict):
            if not isinstance(actual, dict) or any(actual.get(side) != v for side, v in expected.items()):
                return False
        elif actual != expected:
            return False
    return True


def median_or_none(values: list[int]) -> float | None:
    return float(statistics.median(values)) if values else None
