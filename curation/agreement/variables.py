"""How a rating-schema question is measured: its ordered values, the alpha levels it allows, its sides.

A *variable* is one question of a rating schema seen as data. Its units are pairs (``scope`` pair),
responses (``scope`` response: one unit per pair and side) or criteria (one unit per pair and criterion).
A rating of a variable is stored as a *code*: the index of its value in ``domain``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SIDE_A, SIDE_B, SIDE_NONE = 0, 1, -1
LEVELS = ("nominal", "ordinal", "interval")


@dataclass(frozen=True)
class Variable:
    """One measurable question; ``categories`` are what nominal statistics count (sides for an oriented scale)."""

    qid: str
    scope: str
    domain: tuple
    levels: tuple[str, ...]
    oriented: bool
    numeric: bool
    categories: tuple[str, ...]
    category_of_code: tuple[int, ...]
    side_of_code: tuple[int, ...]

    @property
    def values(self) -> np.ndarray:
        """The domain as floats (scales) or as code positions (everything else)."""
        if self.numeric:
            return np.asarray(self.domain, dtype=float)
        return np.arange(len(self.domain), dtype=float)

    def category_matrix(self) -> np.ndarray:
        """(codes × categories) 0/1 matrix: ``counts @ matrix`` collapses value counts to category counts."""
        m = np.zeros((len(self.domain), len(self.categories)), dtype=np.int64)
        m[np.arange(len(self.domain)), list(self.category_of_code)] = 1
        return m

    def side_matrix(self) -> np.ndarray:
        """(codes × 2) 0/1 matrix: ``counts @ matrix`` gives the ratings that chose A and B; ties count nowhere."""
        m = np.zeros((len(self.domain), 2), dtype=np.int64)
        for code, side in enumerate(self.side_of_code):
            if side != SIDE_NONE:
                m[code, side] = 1
        return m

    def values_text(self) -> str:
        """The values a rating takes: ``1..6`` for a scale, ``A/B/tie`` for a choice."""
        if self.numeric and len(self.domain) > 2:
            return f"{self.domain[0]}..{self.domain[-1]}"
        return "/".join(str(v).lower() if isinstance(v, bool) else str(v) for v in self.domain)

    def measured(self, level: str) -> str:
        """What a statistic at ``level`` measures, e.g. ``overall: ordinal on 1..6`` or
        ``overall: nominal on A/B/tie`` (nominal statistics count ``categories``, an oriented scale's sides)."""
        boolean = isinstance(self.domain[0], bool)
        on = "/".join(self.categories) if level == "nominal" and not boolean else self.values_text()
        where = " per response" if self.scope == "response" else " per criterion" if self.scope == "criteria" else ""
        return f"{self.qid}{where}: {level} on {on}"

    def measured_sides(self) -> str:
        """What MMRB2's pairwise agreement measures: the side each rating names, ties left out."""
        return f"{self.qid}: nominal on A/B (ties excluded)"

    def code_of(self, value) -> int:
        """The code of a raw answer, or -1 when the answer is missing or outside the domain."""
        if value is None or isinstance(value, bool) != isinstance(self.domain[0], bool):
            return -1
        try:
            return self.domain.index(value)
        except ValueError:
            return -1


def scale_side(value: float, *, lo: int, hi: int) -> int:
    """The side an oriented scale value names: A above the middle, B below, none within one step of it.

    On MMRB2's 1..6 scale 5–6 are A, 1–2 are B and 3–4 are ties; on 1..5, 3 alone is the tie.
    """
    mid = (lo + hi) / 2
    if value - mid >= 1:
        return SIDE_A
    if mid - value >= 1:
        return SIDE_B
    return SIDE_NONE


def _label_side(value) -> int:
    return {"A": SIDE_A, "B": SIDE_B}.get(value, SIDE_NONE)


def variable_from_question(question: dict) -> Variable | None:
    """The variable a schema question measures; None for free text, which has no agreement statistics."""
    qtype = question["type"]
    declared = question.get("level")
    oriented = bool(question.get("oriented"))
    scope = "criteria" if qtype == "criteria" else question.get("scope", "pair")
    if qtype == "text" or declared is None:
        return None
    if qtype == "scale":
        lo, hi = question["min"], question["max"]
        domain = tuple(range(lo, hi + 1))
        levels = LEVELS if declared in ("ordinal", "interval") else ("nominal",)
        sides = tuple(scale_side(v, lo=lo, hi=hi) for v in domain) if oriented else (SIDE_NONE,) * len(domain)
        if oriented:
            categories = ("A", "B", "tie")
            category_of = tuple({SIDE_A: 0, SIDE_B: 1, SIDE_NONE: 2}[s] for s in sides)
        else:
            categories = tuple(str(v) for v in domain)
            category_of = tuple(range(len(domain)))
        return Variable(question["id"], scope, domain, levels, oriented, True, categories, category_of, sides)
    if qtype == "boolean":
        domain = (False, True)
    else:
        domain = tuple(o["value"] for o in question["options"])
    sides = tuple(_label_side(v) for v in domain) if oriented else (SIDE_NONE,) * len(domain)
    categories = tuple(str(v) for v in domain)
    return Variable(question["id"], scope, domain, ("nominal",), oriented, False, categories,
                    tuple(range(len(domain))), sides)


def variables_of_schema(definition: dict) -> dict[str, Variable]:
    """Every measurable question of a schema definition, keyed by question id, in schema order."""
    out = {}
    for question in definition["questions"]:
        variable = variable_from_question(question)
        if variable is not None:
            out[variable.qid] = variable
    return out


def primary_variable(variables: dict[str, Variable]) -> Variable | None:
    """The question a report leads with: the oriented preference, else the first per-response scale."""
    for variable in variables.values():
        if variable.oriented:
            return variable
    for variable in variables.values():
        if variable.numeric and variable.scope == "response":
            return variable
    return next(iter(variables.values()), None)
