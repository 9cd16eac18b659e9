"""A soft check of one set of answers: do they contradict each other? Plain Python.

Two contradictions are looked for:

- **Rubrics against the overall preference**: the overall preference names a side that no rubric scored higher,
  while at least one rubric scored the other side higher (a digit pressed for the wrong side, a swapped reading).
- **An invalid prompt with a strong preference**: the rater answered "no" to the schema's validity question (is the
  prompt valid and answerable?) and still gave the strongest preference the scale has ("A significantly better")
  or, on a choice, picked a side.

The check warns; it never refuses an answer. The rating page asks it before a submit (``POST
/api/v1/assignments/<id>/check/``) and the review page as the answer changes, so both say the same. The answers may be
in either orientation: the warning names the sides as the answers do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeGuard

from annotation.catalogue.schemas import SIDES

# Per-response scales on which a lower score is better (MMRB2's reasoning correctness: 1 is best).
LOWER_IS_BETTER = {"correctness"}
# Pair-level yes/no questions that ask whether the pair can be judged at all (the MMRB2 presets' PROMPT_VALID).
VALIDITY_QUESTIONS = {"prompt_valid"}
ONLY_A_WARNING = "Check before you go on; this is only a warning."


@dataclass(frozen=True)
class Contradiction:
    """One warning: what it says, and the questions to look at again (the preference first)."""

    message: str
    questions: tuple[str, ...]


@dataclass(frozen=True)
class _Preference:
    side: str
    strong: bool
    question: dict
    shown: str  # the answer as the form labels it ("B significantly better")

    @property
    def label(self) -> str:
        return self.question.get("label", self.question["id"])


def _is_int(value) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _option_label(question: dict, value) -> str:
    return next((o.get("label", str(value)) for o in question.get("options", []) if o.get("value") == value), str(value))


def _preference(definition: dict, values: dict) -> _Preference | None:
    """The side the first pair-level oriented scale or choice prefers, if its answer names one."""
    for q in definition.get("questions", []):
        if not (q.get("oriented") and q.get("scope", "pair") == "pair" and q["type"] in ("scale", "choice")):
            continue
        value = values.get(q["id"])
        if q["type"] == "choice":
            # A choice has no weaker degree: a side picked is as strong as the question allows.
            return _Preference(value, True, q, _option_label(q, value)) if value in SIDES else None
        if not _is_int(value):
            return None
        middle = (q["min"] + q["max"]) / 2
        strong = value in (q["min"], q["max"])
        if value > middle + 0.5:
            return _Preference("A", strong, q, _option_label(q, value))
        if value < middle - 0.5:
            return _Preference("B", strong, q, _option_label(q, value))
        return None
    return None


def _rubrics_against(definition: dict, values: dict, preferred: _Preference) -> Contradiction | None:
    favour: dict[str, list[str]] = {"A": [], "B": []}
    named: dict[str, list[str]] = {"A": [], "B": []}
    for q in definition.get("questions", []):
        answer = values.get(q["id"])
        if q.get("scope") != "response" or q["type"] != "scale" or not isinstance(answer, dict):
            continue
        a, b = answer.get("A"), answer.get("B")
        if not (_is_int(a) and _is_int(b)) or a == b:
            continue
        better = ("A" if a < b else "B") if q["id"] in LOWER_IS_BETTER else ("A" if a > b else "B")
        favour[better].append(f"{q.get('label', q['id'])}: A {a}, B {b}")
        named[better].append(q["id"])
    side = preferred.side
    other = "B" if side == "A" else "A"
    if favour[side] or not favour[other]:
        return None
    return Contradiction(
        f"{preferred.label} prefers {side}, but your scores favour {other} ({'; '.join(favour[other])}) and none "
        f"favours {side}. {ONLY_A_WARNING}",
        (preferred.question["id"], *named[other]),
    )


def _invalid_but_strong(definition: dict, values: dict, preferred: _Preference) -> Contradiction | None:
    if not preferred.strong:
        return None
    for q in definition.get("questions", []):
        if q["id"] in VALIDITY_QUESTIONS and q["type"] == "boolean" and q.get("scope", "pair") == "pair":
            if values.get(q["id"]) is False:
                return Contradiction(
                    f"You answered no to “{q.get('label', q['id'])}”, yet {preferred.label} is “{preferred.shown}”: "
                    f"a prompt that cannot be answered rarely makes one response much better. {ONLY_A_WARNING}",
                    (preferred.question["id"], q["id"]),
                )
    return None


def contradictions(definition: dict, values: dict) -> list[Contradiction]:
    """The contradictions in ``values`` (answers keyed by question id), empty when they are consistent."""
    if not isinstance(values, dict):
        return []
    preferred = _preference(definition, values)
    if preferred is None:
        return []
    found = (_rubrics_against(definition, values, preferred), _invalid_but_strong(definition, values, preferred))
    return [c for c in found if c is not None]


def warnings(definition: dict, values: dict) -> list[str]:
    """The contradictions' messages (empty when consistent)."""
    return [c.message for c in contradictions(definition, values)]


def can_contradict(definition: dict) -> bool:
    """Whether some answers to the schema could contradict each other: it has a preference and either a
    per-response scale or a validity question. A page need not ask about the answers to any other schema."""
    questions = definition.get("questions", [])
    has_preference = any(
        q.get("oriented") and q.get("scope", "pair") == "pair" and q["type"] in ("scale", "choice") for q in questions
    )
    has_other_side = any(
        (q.get("scope") == "response" and q["type"] == "scale")
        or (q["id"] in VALIDITY_QUESTIONS and q["type"] == "boolean")
        for q in questions
    )
    return has_preference and has_other_side
