"""What a judge wrote → a verdict. Pure functions over strings: no Django, no I/O.

Labels are in the order the judge saw the responses ("A" = the one shown first) until
``to_canonical`` maps them back to the pair's own A/B. Scores are normalised preferences for the
first response shown, in [-1, 1] (+1: first significantly better, -1: second significantly better).
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass

A, B, TIE, INVALID = "A", "B", "tie", "invalid"
# A judge that declines to choose (the built-in heuristic judges, when no fault tells the responses apart) gives
# no verdict, as an unreadable answer gives none, but it is its own outcome: nothing went wrong.
ABSTAIN = "abstain"
VALID_LABELS = (A, B, TIE)
SCALE_MIN, SCALE_MAX = 1, 6
SCALE_MID = (SCALE_MIN + SCALE_MAX) / 2

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_BRACKET = re.compile(r"\[\[\s*([ABC])\s*\]\]", re.IGNORECASE)
_LABEL_WORDS = {
    "A": A, "RESPONSE A": A, "RESPONSE_A": A, "[[A]]": A, "OUTPUT A": A, "IMAGE A": A,
    "B": B, "RESPONSE B": B, "RESPONSE_B": B, "[[B]]": B, "OUTPUT B": B, "IMAGE B": B,
    "TIE": TIE, "EQUAL": TIE, "SAME": TIE, "C": TIE, "[[C]]": TIE, "NEITHER": TIE, "BOTH": TIE,
}
_KEYS = ("score", "better_response")


@dataclass(frozen=True)
class ParsedAnswer:
    """One parsed answer; ``problem`` says why an answer is invalid."""

    label: str
    score: float | None = None
    confidence: float | None = None
    problem: str = ""

    @property
    def valid(self) -> bool:
        return self.label in VALID_LABELS


def invalid(problem: str) -> ParsedAnswer:
    return ParsedAnswer(INVALID, problem=problem)


def strip_reasoning(text: str) -> str:
    """The answer without ``<think>…</think>`` sections, where reasoning models muse about both labels."""
    return _THINK.sub(" ", text)


def parse_bracket_verdict(text: str) -> ParsedAnswer:
    """Omni-style ``[[A]]`` / ``[[B]]`` / ``[[C]]`` (tie); none, or more than one distinct label, is invalid."""
    found = {m.group(1).upper() for m in _BRACKET.finditer(strip_reasoning(text or ""))}
    if not found:
        return invalid("no [[A]], [[B]] or [[C]] verdict in the answer")
    if len(found) > 1:
        return invalid(f"conflicting verdicts in the answer: {', '.join(f'[[{x}]]' for x in sorted(found))}")
    label = {"A": A, "B": B, "C": TIE}[found.pop()]
    return ParsedAnswer(label, score={A: 1.0, B: -1.0, TIE: 0.0}[label])


def parse_scored_json(text: str) -> ParsedAnswer:
    """MMRB2-style JSON ``{"score": 1..6, "better_response": "A"|"B", "confidence": 0..1}``.

    The object may sit in a fenced block or among other text. Several objects must agree; a score
    that contradicts ``better_response`` (6..4 lean to A, 3..1 to B) makes the answer invalid.
    """
    body = strip_reasoning(text or "").strip()
    if not body:
        return invalid("empty answer")
    objects = [obj for obj in _json_objects(body) if any(key in obj for key in _KEYS)]
    if not objects:
        return invalid("no JSON object with score or better_response in the answer")
    answers = [_interpret(obj) for obj in objects]
    bad = next((a for a in answers if not a.valid), None)
    if bad is not None:
        return bad
    labels = {a.label for a in answers}
    if len(labels) > 1:
        return invalid(f"conflicting JSON answers: {', '.join(sorted(labels))}")
    return answers[-1]


def _json_objects(text: str) -> list[dict]:
    """Every top-level JSON (or Python-literal) object embedded in ``text``, in order."""
    decoder = json.JSONDecoder()
    found: list[dict] = []
    i = text.find("{")
    while i != -1:
        obj, end = _decode_at(decoder, text, i)
        if isinstance(obj, dict):
            found.append(obj)
            i = text.find("{", end)
        else:
            i = text.find("{", i + 1)
    return found


def _decode_at(decoder: json.JSONDecoder, text: str, start: int):
    try:
        return decoder.raw_decode(text, start)
    except ValueError:
        pass
    close = _matching_brace(text, start)
    if close is None:
        return None, start + 1
    try:
        value = ast.literal_eval(text[start : close + 1])
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None, start + 1
    return value, close + 1


def _matching_brace(text: str, start: int) -> int | None:
    depth = 0
    for j in range(start, min(len(text), start + 20_000)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return None


def _number(value) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip().rstrip("%"))
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _confidence(value) -> float | None:
    number = _number(value)
    if number is None or number < 0:
        return None
    if number <= 1:
        return number
    if number <= 100:
        return number / 100
    return None


def _interpret(obj: dict) -> ParsedAnswer:
    label = None
    if "better_response" in obj:
        raw = obj["better_response"]
        key = re.sub(r"[\s\-.:!]+", " ", str(raw)).strip().upper() if isinstance(raw, (str, int)) else ""
        label = _LABEL_WORDS.get(key)
        if label is None:
            return invalid(f"better_response must be A or B, got {str(raw)[:40]!r}")
    score = None
    if "score" in obj:
        score = _number(obj["score"])
        if score is None or not SCALE_MIN <= score <= SCALE_MAX:
            return invalid(f"score must be a number from {SCALE_MIN} to {SCALE_MAX}, got {str(obj['score'])[:40]!r}")
    if score is not None:
        leaning = A if score >= SCALE_MID + 0.5 else B if score <= SCALE_MID - 0.5 else TIE
        if label is None:
            label = leaning
        elif label != leaning and not (label == TIE and SCALE_MID - 0.5 <= score <= SCALE_MID + 0.5):
            return invalid(f"score {obj['score']} contradicts better_response {obj['better_response']!r}")
    normalised = None if score is None else (score - SCALE_MID) / (SCALE_MAX - SCALE_MID)
    return ParsedAnswer(label, score=normalised, confidence=_confidence(obj.get("confidence")))


def to_canonical(label: str, *, swapped: bool) -> str:
    """The label in the pair's own orientation; the judge saw B first when ``swapped``."""
    if swapped and label in (A, B):
        return B if label == A else A
    return label


def score_to_canonical(score: float | None, *, swapped: bool) -> float | None:
    if score is None:
        return None
    return -score if swapped else score
