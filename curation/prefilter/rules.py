"""Which pairs are easy: the ensemble's vote rules. Pure functions over votes; no Django.

``majority`` (MMRB2): a pair is easy when its majority label holds at least ``threshold`` of the
valid votes (17 of 18 at 0.9), given at least ``min_votes`` valid votes; invalid votes are left
out. ``score-margin`` (BaseReward's lesson): average the judges' normalised scores (+1: A far
better, -1: B far better) and call the pair easy when the mean's magnitude exceeds ``threshold``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction

VALID_LABELS = ("A", "B", "tie")
MAJORITY, SCORE_MARGIN = "majority", "score-margin"
RULES = (MAJORITY, SCORE_MARGIN)
DEFAULTS = {MAJORITY: {"threshold": 0.9, "min_votes": 2}, SCORE_MARGIN: {"threshold": 0.5, "min_votes": 2}}
REASON_LIMIT = 200


class RuleError(ValueError):
    """A pre-filter rule that cannot be applied; the message names the field."""


@dataclass(frozen=True)
class Vote:
    """One judge's verdict on a pair in one order, already in the pair's own orientation."""

    judge: str
    order: str
    label: str
    score: float | None = None


@dataclass(frozen=True)
class Rule:
    name: str
    threshold: float
    min_votes: int

    def as_config(self) -> dict:
        return {"rule": self.name, "threshold": self.threshold, "min_votes": self.min_votes}


@dataclass(frozen=True)
class Decision:
    """Whether a pair is easy, with the figures behind it and a reason a curator can read."""

    easy: bool
    label: str | None
    valid: int
    invalid: int
    support: int
    share: float | None
    margin: float | None
    reason: str

    def as_dict(self) -> dict:
        return asdict(self)


def rule_from_config(config, *, threshold: float | None = None) -> Rule:
    """The rule a campaign's ``prefilter_rule`` JSON describes, with an optional threshold override."""
    if config in (None, ""):
        config = {}
    if not isinstance(config, dict):
        raise RuleError("prefilter_rule: expected an object such as {\"rule\": \"majority\", \"threshold\": 0.9}")
    name = config.get("rule", MAJORITY)
    if name not in RULES:
        raise RuleError(f"prefilter_rule.rule: unknown rule {name!r}; choose {' or '.join(RULES)}")
    unknown = set(config) - {"rule", "threshold", "min_votes"}
    if unknown:
        raise RuleError(f"prefilter_rule.{sorted(unknown)[0]}: unknown field; known: rule, threshold, min_votes")
    values = {**DEFAULTS[name], **{k: v for k, v in config.items() if k != "rule"}}
    if threshold is not None:
        values["threshold"] = threshold
    value = values["threshold"]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RuleError("prefilter_rule.threshold: expected a number")
    if name == MAJORITY and not 0.5 < value <= 1:
        raise RuleError("prefilter_rule.threshold: the majority share must be above 0.5 and at most 1")
    if name == SCORE_MARGIN and not 0 <= value < 1:
        raise RuleError("prefilter_rule.threshold: the score margin must be from 0 up to (not including) 1")
    min_votes = values["min_votes"]
    if isinstance(min_votes, bool) or not isinstance(min_votes, int) or min_votes < 1:
        raise RuleError("prefilter_rule.min_votes: expected a whole number of at least 1")
    return Rule(name=name, threshold=float(value), min_votes=min_votes)


def _percent(share: float) -> str:
    return f"{100 * share:.0f}%"


def decide(rule: Rule, votes: Sequence[Vote]) -> Decision:
    """Apply ``rule`` to one pair's votes."""
    valid = [v for v in votes if v.label in VALID_LABELS]
    invalid = len(votes) - len(valid)
    if rule.name == SCORE_MARGIN:
        return _decide_margin(rule, valid, invalid)
    counts = Counter(v.label for v in valid).most_common()
    if len(valid) < rule.min_votes or not counts:
        return Decision(False, None, len(valid), invalid, 0, None, None,
                        _reason(f"kept — {len(valid)} valid vote(s), fewer than the minimum {rule.min_votes}"))
    label, support = counts[0]
    if len(counts) > 1 and counts[1][1] == support:
        label = None
    share = support / len(valid)
    # Exact arithmetic, so 17/18 against 0.9 is never decided by a rounding error.
    easy = label is not None and Fraction(support, len(valid)) >= Fraction(str(rule.threshold))
    held = f"{label or 'no label'} holds {support}/{len(valid)} valid votes ({_percent(share)})"
    if easy:
        reason = f"easy — {held} ≥ {_percent(rule.threshold)}"
    else:
        reason = f"kept — {held} < {_percent(rule.threshold)}"
    if invalid:
        reason += f"; {invalid} invalid excluded"
    return Decision(easy, label, len(valid), invalid, support, share, None, _reason(reason))


def _decide_margin(rule: Rule, valid: list[Vote], invalid: int) -> Decision:
    scored = [v.score for v in valid if v.score is not None]
    unscored = invalid + len(valid) - len(scored)
    if len(scored) < rule.min_votes:
        return Decision(False, None, len(scored), unscored, 0, None, None,
                        _reason(f"kept — {len(scored)} scored vote(s), fewer than the minimum {rule.min_votes}"))
    margin = sum(scored) / len(scored)
    label = "A" if margin > 0 else "B" if margin < 0 else None
    easy = label is not None and abs(margin) > rule.threshold
    word = "easy" if easy else "kept"
    sign = ">" if easy else "≤"
    reason = f"{word} — mean score margin {margin:+.2f} over {len(scored)} votes, |margin| {sign} {rule.threshold:.2f}"
    support = sum(1 for s in scored if (s > 0) == (margin > 0) and s != 0)
    return Decision(easy, label, len(scored), unscored, support, None, margin, _reason(reason))


def _reason(text: str) -> str:
    text = f"prefilter: {text}"
    return text if len(text) <= REASON_LIMIT else text[: REASON_LIMIT - 1] + "…"
