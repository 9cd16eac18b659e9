"""Which pairs are easy: the ensemble's vote rules. Pure functions over votes; no Django.

``majority`` (MMRB2, as published): a pair is easy when one side, A or B, holds at least
``threshold`` of the *planned* votes (the run's judges × 2 orders): 17 of 18 at 0.9. Invalid answers
and failed calls are planned votes that did not agree, and a tie majority never makes a pair easy
(nobody found a winner). ``majority-of-valid`` is the older variant, kept only by that name: the
share is taken of the valid votes, given at least ``min_votes`` of them. ``score-margin``
(BaseReward's lesson): average the judges' normalised scores (+1: A far better, -1: B far better)
and call the pair easy when the mean's magnitude exceeds ``threshold``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from fractions import Fraction

VALID_LABELS = ("A", "B", "tie")
ABSTAIN = "abstain"  # a judge that declined to choose: no vote for any side, not an error
SIDES = ("A", "B")
MAJORITY, MAJORITY_OF_VALID, SCORE_MARGIN = "majority", "majority-of-valid", "score-margin"
RULES = (MAJORITY, MAJORITY_OF_VALID, SCORE_MARGIN)
DEFAULTS = {
    MAJORITY: {"threshold": 0.9},
    MAJORITY_OF_VALID: {"threshold": 0.9, "min_votes": 2},
    SCORE_MARGIN: {"threshold": 0.5, "min_votes": 2},
}
REASON_LIMIT = 200


class RuleError(ValueError):
    """A pre-filter rule that cannot be applied; the message names the field."""


@dataclass(frozen=True)
class Vote:
    """One judge's verdict on a pair in one order, already in the pair's own orientation.

    ``failed`` marks a call that got no answer (an HTTP error, a timeout); its label is ``invalid``.
    """

    judge: str
    order: str
    label: str
    score: float | None = None
    failed: bool = False


@dataclass(frozen=True)
class Rule:
    name: str
    threshold: float
    min_votes: int | None = None

    def as_config(self) -> dict:
        config = {"rule": self.name, "threshold": self.threshold}
        if self.min_votes is not None:
            config["min_votes"] = self.min_votes
        return config


@dataclass(frozen=True)
class Decision:
    """Whether a pair is easy, with the figures behind it and a reason a curator can read.

    ``planned`` is the votes the run planned for the pair; ``invalid`` counts unparseable answers,
    ``abstained`` the judges that declined to choose, and ``failed`` the calls that got no answer.
    """

    easy: bool
    label: str | None
    planned: int
    valid: int
    invalid: int
    failed: int
    support: int
    share: float | None
    margin: float | None
    reason: str
    abstained: int = 0

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
        raise RuleError(f"prefilter_rule.rule: unknown rule {name!r}; choose {', '.join(RULES)}")
    known = {"rule", *DEFAULTS[name]}
    if name == MAJORITY and "min_votes" in config:
        raise RuleError(
            "prefilter_rule.min_votes: the majority rule counts planned votes and takes no min_votes; "
            f"name {MAJORITY_OF_VALID!r} to count valid votes only"
        )
    unknown = set(config) - known
    if unknown:
        raise RuleError(f"prefilter_rule.{sorted(unknown)[0]}: unknown field; known: {', '.join(sorted(known))}")
    values = {**DEFAULTS[name], **{k: v for k, v in config.items() if k != "rule"}}
    if threshold is not None:
        values["threshold"] = threshold
    value = values["threshold"]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RuleError("prefilter_rule.threshold: expected a number")
    if name != SCORE_MARGIN and not 0.5 < value <= 1:
        raise RuleError("prefilter_rule.threshold: the majority share must be above 0.5 and at most 1")
    if name == SCORE_MARGIN and not 0 <= value < 1:
        raise RuleError("prefilter_rule.threshold: the score margin must be from 0 up to (not including) 1")
    min_votes = values.get("min_votes")
    if name != MAJORITY and (isinstance(min_votes, bool) or not isinstance(min_votes, int) or min_votes < 1):
        raise RuleError("prefilter_rule.min_votes: expected a whole number of at least 1")
    return Rule(name=name, threshold=float(value), min_votes=min_votes)


def _percent(share: float) -> str:
    return f"{100 * share:.0f}%"


def _without_side(invalid: int, failed: int, abstained: int) -> list[str]:
    parts = [f"{abstained} abstained"] if abstained else []
    parts += [f"{invalid} invalid"] if invalid else []
    return parts + ([f"{failed} failed"] if failed else [])


def _not_agreeing(invalid: int, failed: int, abstained: int = 0) -> str:
    parts = _without_side(invalid, failed, abstained)
    return f" ({', '.join(parts)})" if parts else ""


def decide(rule: Rule, votes: Sequence[Vote], *, planned: int | None = None) -> Decision:
    """Apply ``rule`` to one pair's votes; ``planned`` defaults to the votes given.

    More votes than planned (a judge answered twice, or votes of a judge outside the plan) are all counted: the
    base is the votes given, and the reason says how many beyond the plan there were (it printed "17 of 18
    planned (-2 invalid)" for 20 votes). An abstention is a planned vote for no side, counted apart from
    invalid answers and failed calls.
    """
    planned = len(votes) if planned is None else planned
    abstained = sum(1 for v in votes if v.label == ABSTAIN and not v.failed)
    if len(votes) > planned:
        decision = _decide(rule, votes, planned=len(votes), abstained=abstained)
        counted = decision.reason.removeprefix("prefilter: ").replace(" planned votes", " votes")
        return replace(decision, abstained=abstained, reason=_reason(
            f"{counted} — {len(votes)} votes where {planned} were planned, all {len(votes)} counted"))
    return replace(_decide(rule, votes, planned=planned, abstained=abstained), abstained=abstained)


def _decide(rule: Rule, votes: Sequence[Vote], *, planned: int, abstained: int) -> Decision:
    valid = [v for v in votes if v.label in VALID_LABELS and not v.failed]
    failed = sum(1 for v in votes if v.failed)
    # Votes planned but never stored count as failed calls: they did not agree either.
    failed += max(planned - len(votes), 0)
    invalid = planned - len(valid) - failed - abstained
    if rule.name == SCORE_MARGIN:
        return _decide_margin(rule, valid, planned, invalid, failed)
    counts = Counter(v.label for v in valid).most_common()
    if rule.name == MAJORITY_OF_VALID and len(valid) < rule.min_votes:
        return Decision(False, None, planned, len(valid), invalid, failed, 0, None, None, _reason(
            f"kept — {len(valid)} valid vote(s), fewer than the minimum {rule.min_votes} (majority of valid votes)"))
    if not counts:
        return Decision(False, None, planned, 0, invalid, failed, 0, None, None, _reason(
            f"kept — no valid vote of {planned} planned{_not_agreeing(invalid, failed, abstained)}"))
    label, support = counts[0]
    if len(counts) > 1 and counts[1][1] == support:
        label = None
    base, what = (len(valid), "valid votes") if rule.name == MAJORITY_OF_VALID else (planned, "planned votes")
    share = support / base
    # Exact arithmetic, so 17/18 against 0.9 is never decided by a rounding error.
    reached = Fraction(support, base) >= Fraction(str(rule.threshold))
    easy = label in SIDES and reached
    held = f"{label or 'no label'} holds {support} of {base} {what}"
    if rule.name == MAJORITY:
        held += _not_agreeing(invalid, failed, abstained)
    if easy:
        reason = f"easy — {held} ≥ {_percent(rule.threshold)}"
    elif label == "tie" and reached:
        reason = f"kept — {held}; a tie majority never makes a pair easy"
    else:
        reason = f"kept — {held} < {_percent(rule.threshold)}"
    if rule.name == MAJORITY_OF_VALID:
        left_out = ", ".join(_without_side(invalid, failed, abstained)) or "nothing"
        reason += f" ({MAJORITY_OF_VALID}; left out: {left_out})"
    return Decision(easy, label, planned, len(valid), invalid, failed, support, share, None, _reason(reason))


def _decide_margin(rule: Rule, valid: list[Vote], planned: int, invalid: int, failed: int) -> Decision:
    scored = [v.score for v in valid if v.score is not None]
    if len(scored) < rule.min_votes:
        return Decision(False, None, planned, len(scored), invalid, failed, 0, None, None,
                        _reason(f"kept — {len(scored)} scored vote(s), fewer than the minimum {rule.min_votes}"))
    margin = sum(scored) / len(scored)
    label = "A" if margin > 0 else "B" if margin < 0 else None
    easy = label is not None and abs(margin) > rule.threshold
    word = "easy" if easy else "kept"
    sign = ">" if easy else "≤"
    reason = f"{word} — mean score margin {margin:+.2f} over {len(scored)} votes, |margin| {sign} {rule.threshold:.2f}"
    support = sum(1 for s in scored if (s > 0) == (margin > 0) and s != 0)
    return Decision(easy, label, planned, len(scored), invalid, failed, support, None, margin, _reason(reason))


def _reason(text: str) -> str:
    text = f"prefilter: {text}"
    return text if len(text) <= REASON_LIMIT else text[: REASON_LIMIT - 1] + "…"
