"""When a rater qualifies for a campaign's real queue, and when their gold answers during work say to pause them.

Plain Python with no Django import: the work queue feeds it counts and outcomes. Both rules read a score with its
Wilson score interval, so a figure always comes with how sure it is:

- a calibration round is passed when at least ``min_items`` calibration pairs were answered and the share of them
  that matched the expected overall preference reaches the pass mark;
- during work, a rater is paused only when their last ``window`` gold answers hold at least ``min_gold`` outcomes
  and the *upper* end of the interval is below the pass mark: the whole interval below the mark, not one unlucky
  miss (``bench/qualification_sim.py`` measures how quickly that catches a random rater and how rarely it pauses a
  good one).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist


@dataclass(frozen=True)
class Score:
    """``correct`` of ``n`` answers matched; ``share`` with its Wilson interval at ``confidence``."""

    n: int
    correct: int
    share: float | None
    lower: float
    upper: float
    confidence: float


@dataclass(frozen=True)
class Decision:
    """``verdict``: ``passed`` / ``failed`` / ``incomplete`` for a round, ``paused`` / ``working`` during work."""

    verdict: str
    score: Score
    pass_mark: float
    message: str


def _check(*, pass_mark: float, confidence: float) -> None:
    if isinstance(pass_mark, bool) or not isinstance(pass_mark, int | float) or not 0 < pass_mark <= 1:
        raise ValueError(f"the pass mark is a share above 0 and at most 1, not {pass_mark!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 < confidence < 1:
        raise ValueError(f"the confidence is a share between 0 and 1, not {confidence!r}")


def score(*, correct: int, n: int, confidence: float = 0.95) -> Score:
    """The share matched and its Wilson score interval (0 to 1 when there is nothing to measure)."""
    if not 0 <= correct <= n:
        raise ValueError(f"{correct} correct of {n} answers is not a count")
    if n == 0:
        return Score(0, 0, None, 0.0, 1.0, confidence)
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p = correct / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Score(n, correct, p, max(0.0, centre - half), min(1.0, centre + half), confidence)


def _figures(s: Score) -> str:
    if s.share is None:
        return "no answers yet"
    return f"{s.correct} of {s.n} ({s.share:.0%}, {s.confidence:.0%} interval {s.lower:.0%}–{s.upper:.0%})"


def qualification_decision(*, correct: int, answered: int, pass_mark: float, min_items: int,
                           confidence: float = 0.95) -> Decision:
    """The outcome of a calibration round: ``correct`` of ``answered`` calibration pairs matched the expected overall
    preference; ``incomplete`` until ``min_items`` were answered."""
    _check(pass_mark=pass_mark, confidence=confidence)
    if isinstance(min_items, bool) or not isinstance(min_items, int) or min_items < 1:
        raise ValueError(f"a round needs at least one calibration pair, not {min_items!r}")
    s = score(correct=correct, n=answered, confidence=confidence)
    if answered < min_items:
        return Decision("incomplete", s, pass_mark, f"{answered} of {min_items} calibration pairs answered so far.")
    if s.share is not None and s.share >= pass_mark:
        return Decision("passed", s, pass_mark, f"Passed: {_figures(s)} matched; the pass mark is {pass_mark:.0%}.")
    return Decision("failed", s, pass_mark, f"Not passed: {_figures(s)} matched; the pass mark is {pass_mark:.0%}.")


def pause_decision(*, outcomes: Sequence[bool], pass_mark: float, window: int, min_gold: int,
                   confidence: float = 0.95) -> Decision:
    """Whether a rater's gold answers during work (oldest first) say to pause them: over the last ``window``
    outcomes, at least ``min_gold`` of them and the whole interval below ``pass_mark``."""
    _check(pass_mark=pass_mark, confidence=confidence)
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ValueError(f"the window is a number of gold answers of at least 1, not {window!r}")
    if isinstance(min_gold, bool) or not isinstance(min_gold, int) or not 1 <= min_gold <= window:
        raise ValueError(f"the gold needed to pause is 1 to the window ({window}), not {min_gold!r}")
    recent = list(outcomes)[-window:]
    s = score(correct=sum(1 for o in recent if o), n=len(recent), confidence=confidence)
    if len(recent) < min_gold:
        return Decision("working", s, pass_mark,
                        f"{len(recent)} gold answers so far; at least {min_gold} are needed to judge.")
    if s.upper < pass_mark:
        return Decision("paused", s, pass_mark,
                        f"Paused: the last {len(recent)} gold pairs matched {_figures(s)}, below the pass mark of "
                        f"{pass_mark:.0%} with the whole interval; recalibrate to continue.")
    return Decision("working", s, pass_mark, f"Gold so far: {_figures(s)}.")


@dataclass(frozen=True)
class Difference:
    """One question of a calibration answer against the expected one (both as shown: "A" is the left response)."""

    question: str
    label: str
    expected: object
    given: object
    same: bool
    distance: float | None


@dataclass(frozen=True)
class Comparison:
    """A calibration answer against the expected one: whether the overall preference matched, the mean distance of
    the rubric scales (0 the same, 1 the whole scale apart; None without rubric values to compare), per question."""

    matched: bool
    rubric_distance: float | None
    differences: list[Difference]


def _preference_side(q: dict, value) -> str | None:
    if value is None:
        return None
    if q["type"] == "scale":
        middle = (q["min"] + q["max"]) / 2
        return "A" if value > middle else "B" if value < middle else "tie"
    return str(value)


def answer_comparison(definition: dict, expected: dict, given: dict) -> Comparison:
    """Compare ``given`` with ``expected`` on the questions ``expected`` names (text questions aside), both in the
    same orientation. The overall preference (the schema's oriented pair-level scale or choice) matches on the side it
    prefers; a per-response scale is a rubric, its distance the mean over the sides of |given − expected| over the
    scale's span; criteria match label by label; anything else must be equal."""
    preference = next((q for q in definition.get("questions", [])
                       if q.get("oriented") and q["type"] in ("scale", "choice") and q.get("scope") != "response"), None)
    matched = False
    distances: list[float] = []
    differences: list[Difference] = []
    for q in definition.get("questions", []):
        qid = q["id"]
        if qid not in expected or q["type"] == "text":
            continue
        want, got = expected[qid], given.get(qid)
        distance = None
        if preference is not None and qid == preference["id"]:
            same = _preference_side(q, want) == _preference_side(q, got)
            matched = same
        elif q["type"] == "scale" and q.get("scope") == "response" and isinstance(want, dict):
            span = (q["max"] - q["min"]) or 1
            got_sides = got if isinstance(got, dict) else {}
            gaps = [abs(got_sides[side] - value) / span if isinstance(got_sides.get(side), int | float) else 1.0
                    for side, value in want.items() if isinstance(value, int | float)]
            distance = sum(gaps) / len(gaps) if gaps else None
            if distance is not None:
                distances.append(distance)
            same = all(got_sides.get(side) == value for side, value in want.items())
        elif q["type"] == "criteria":
            given_labels = {i.get("criterion"): i.get("label") for i in got or [] if isinstance(i, dict)}
            same = all(given_labels.get(i.get("criterion")) == i.get("label") for i in want if isinstance(i, dict))
        else:
            same = want == got
        differences.append(Difference(qid, q.get("label", qid), want, got, same, distance))
    return Comparison(matched, sum(distances) / len(distances) if distances else None, differences)
