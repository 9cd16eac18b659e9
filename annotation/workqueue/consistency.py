"""A soft check of one set of answers: do the rubric scores contradict the overall preference? Plain Python.

A rater who prefers A overall but scored B higher on the rubrics, and A higher on none, has probably slipped
(a digit pressed for the wrong side, a swapped reading). The check warns; it never refuses an answer. The
answers may be in either orientation: the warning names the sides as the answers do.
"""

from __future__ import annotations

from annotation.catalogue.schemas import SIDES

# Per-response scales on which a lower score is better (MMRB2's reasoning correctness: 1 is best).
LOWER_IS_BETTER = {"correctness"}


def _preference(definition: dict, values: dict) -> tuple[str, str] | None:
    """(side preferred, the question's label) from the first pair-level oriented scale or choice, if it names one."""
    for q in definition.get("questions", []):
        if not (q.get("oriented") and q.get("scope", "pair") == "pair" and q["type"] in ("scale", "choice")):
            continue
        value = values.get(q["id"])
        if q["type"] == "choice":
            return (value, q.get("label", q["id"])) if value in SIDES else None
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        middle = (q["min"] + q["max"]) / 2
        if value > middle + 0.5:
            return "A", q.get("label", q["id"])
        if value < middle - 0.5:
            return "B", q.get("label", q["id"])
        return None
    return None


def rubric_contradictions(definition: dict, values: dict) -> list[str]:
    """Warnings (empty when consistent): the overall preference names a side that no rubric scored higher while
    at least one scored the other side higher."""
    if not isinstance(values, dict):
        return []
    preferred = _preference(definition, values)
    if preferred is None:
        return []
    side, label = preferred
    favour: dict[str, list[str]] = {"A": [], "B": []}
    for q in definition.get("questions", []):
        answer = values.get(q["id"])
        if q.get("scope") != "response" or q["type"] != "scale" or not isinstance(answer, dict):
            continue
        a, b = answer.get("A"), answer.get("B")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (a, b)) or a == b:
            continue
        better = ("A" if a < b else "B") if q["id"] in LOWER_IS_BETTER else ("A" if a > b else "B")
        favour[better].append(f"{q.get('label', q['id'])}: A {a}, B {b}")
    other = "B" if side == "A" else "A"
    if favour[side] or not favour[other]:
        return []
    return [
        f"{label} prefers {side}, but your scores favour {other} ({'; '.join(favour[other])}) and none favours "
        f"{side}. Check before you go on; this is only a warning."
    ]
