"""Data-quality arithmetic for the dashboards: plain Python over plain values, no Django.

The ORM feeds these functions rows; they decide which side a rating prefers, how sure a rate is
(Wilson interval), whether an annotator works suspiciously fast, and which position a rater favours.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SIDES = ("A", "B")
Z95 = 1.959963984540054

# An annotator is flagged when their median time is below this share of everyone's median, or when
# more than FAST_ITEM_SHARE of their items took under FAST_ITEM_SECONDS: the two ways a rater can
# skim (always fast, or in bursts). Flags need MIN_ITEMS_FOR_FLAGS items to avoid judging noise.
FAST_MEDIAN_FRACTION = 1 / 3
FAST_ITEM_SECONDS = 5.0
FAST_ITEM_SHARE = 0.2
MIN_ITEMS_FOR_FLAGS = 5
# One rule for position bias, shared by the agreement report and the dashboards: a rater (or judge) is flagged
# when a two-sided binomial test rejects an even left/right split at this p-value, over at least
# MIN_ITEMS_FOR_FLAGS answers that took a side.
POSITION_BIAS_P_VALUE = 0.01
# A rater is flagged as guessing when their leave-one-out agreement (their answer against the majority of the
# *other* raters of the pair, own vote excluded) is below the panel's median and its 95% interval reaches down to
# chance, or when the whole interval lies below the panel's median, over at least this many compared answers.
# (Where every rater gives the same answer, chance is 1: agreeing then proves nothing, so a rater at or above
# the panel's median is never called a guesser.)
MIN_ITEMS_FOR_GUESSING = 20


def preference_side(definition: dict, values: dict) -> str | None:
    """The side an answer set prefers in canonical orientation: "A", "B", "tie", or None when it says nothing.

    Precondition: ``values`` are canonical (stored Annotation.values). The preference comes from the
    schema's first pair-level oriented scale or choice; a scale's middle (3 and 4 on MMRB2's 1..6) is a
    tie. Without such a question, per-response ``correctness`` (1 best) or per-criterion labels decide.
    """
    if not isinstance(values, dict):
        return None
    for q in definition.get("questions", []):
        value = values.get(q["id"])
        if value is None:
            continue
        if q.get("oriented") and q.get("scope", "pair") == "pair" and q["type"] == "scale":
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                return None
            middle = (q["min"] + q["max"]) / 2
            if value > middle + 0.5:
                return "A"
            if value < middle - 0.5:
                return "B"
            return "tie"
        if q.get("oriented") and q.get("scope", "pair") == "pair" and q["type"] == "choice":
            return value if value in SIDES else "tie"
        if q["type"] == "criteria" and isinstance(value, list):
            labels = [item.get("label") for item in value if isinstance(item, dict)]
            a, b = labels.count("A"), labels.count("B")
            if not labels:
                return None
            return "A" if a > b else "B" if b > a else "tie"
        if q.get("scope") == "response" and q["id"] == "correctness" and isinstance(value, dict):
            a, b = value.get("A"), value.get("B")
            if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
                return None
            return "A" if a < b else "B" if b < a else "tie"
    return None


def shown_left(side: str | None, shown_swapped: bool | None) -> bool | None:
    """Whether a canonical ``side`` was the response on the left of the screen (None when unknown or a tie)."""
    if side not in SIDES or shown_swapped is None:
        return None
    return (side == "A") != bool(shown_swapped)


def judge_first_position(order: str, verdict: str) -> bool | None:
    """Whether a judge picked the response it was shown first; verdicts are stored canonical.

    Forward order shows A first; swapped order shows B first, so a canonical "B" there is the first.
    """
    if verdict not in SIDES:
        return None
    return (verdict == "A") if order == "forward" else (verdict == "B")


def position_flag(left: int, n: int) -> str | None:
    """The position-bias flag of an answerer who took the left (first) position ``left`` times of ``n``, or None."""
    from curation.agreement.annotators import binomial_two_sided_half

    if n < MIN_ITEMS_FOR_FLAGS:
        return None
    p_value = float(binomial_two_sided_half(left, n))
    if p_value >= POSITION_BIAS_P_VALUE:
        return None
    favoured, share = ("left", left / n) if 2 * left > n else ("right", 1 - left / n)
    return f"picks the {favoured} response {share:.0%} of the time (binomial p = {p_value:.2g} over {n})"


def chance_agreement(own: Sequence[int], others: Sequence[int], n_categories: int) -> float | None:
    """The agreement a rater whose answers were independent of the others' would reach: the sum over categories
    of the rater's share of that answer times the others' majority's share of it, over the compared answers."""
    if not own:
        return None
    own_share = [0.0] * n_categories
    other_share = [0.0] * n_categories
    for mine, theirs in zip(own, others, strict=True):
        own_share[mine] += 1 / len(own)
        other_share[theirs] += 1 / len(own)
    return sum(a * b for a, b in zip(own_share, other_share, strict=True))


def guessing_flag(agree: int, n: int, *, chance: float | None, panel: float | None) -> str | None:
    """The flag of a rater whose leave-one-out agreement is below the panel's median and indistinguishable from
    chance, or whose interval lies below the panel's median; None when neither (or with fewer than
    MIN_ITEMS_FOR_GUESSING compared answers)."""
    if n < MIN_ITEMS_FOR_GUESSING:
        return None
    low, high = wilson_interval(agree, n)
    figure = f"agrees with the other raters {agree / n:.0%} ({low:.0%}–{high:.0%}) over {n} pairs"
    below_panel = panel is None or agree / n < panel
    if chance is not None and low <= chance and below_panel:
        return f"{figure}: no better than chance ({chance:.0%})"
    if panel is not None and high < panel:
        return f"{figure}: below the panel's median {panel:.0%}"
    return None


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float | None, float | None]:
    """The Wilson score interval for a binomial rate; (None, None) when there are no trials."""
    if n <= 0:
        return None, None
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(successes: int, n: int) -> dict:
    """A rate with its 95% Wilson interval, rounded for display and CSV."""
    low, high = wilson_interval(successes, n)
    return {
        "n": n,
        "successes": successes,
        "rate": round(successes / n, 4) if n else None,
        "low": round(low, 4) if low is not None else None,
        "high": round(high, 4) if high is not None else None,
    }


# A judge's verdict: what MMRB2's judge evaluation scores. A tie is a verdict (wrong against an A/B
# consensus); a failed call (an HTTP error, a timeout: no answer) or an answer Concord could not read as
# A, B or tie (what MMRB2's parser leaves empty) is no verdict: it leaves the denominator.
JUDGE_VERDICTS = ("A", "B", "tie")


@dataclass(frozen=True)
class JudgeTally:
    """One judge's calls, counted (by the database) over the pairs of a scope.

    Over pairs whose consensus kept a side: ``verdicts`` (A, B or tie), ``agree`` (of those, equal to
    the kept side), ``failed`` and ``invalid`` (calls that gave no verdict). Over every pair judged:
    ``sides`` (verdicts A or B) and ``first`` (of those, the response shown first); ``swap_pairs``
    (pairs with a verdict in both orders), ``swap_same`` (of those, the same canonical verdict) and
    ``swap_left_out`` (pairs judged in both orders where one call or both gave no verdict).
    """

    verdicts: int = 0
    agree: int = 0
    failed: int = 0
    invalid: int = 0
    sides: int = 0
    first: int = 0
    swap_pairs: int = 0
    swap_same: int = 0
    swap_left_out: int = 0
    abstained: int = 0

    def __add__(self, other: JudgeTally) -> JudgeTally:
        return JudgeTally(**{name: getattr(self, name) + getattr(other, name) for name in self.__dataclass_fields__})


def judge_figures(tally: JudgeTally) -> dict:
    """Judge–human agreement and swap consistency by MMRB2's rule, for every page that shows them.

    Agreement (both orders) = verdicts equal to the kept side / verdicts, with its 95% Wilson interval;
    ``failed`` and ``invalid`` calls are counted beside it, never in it; ``rate`` is None ("no verdicts")
    when the judge gave none. Swap consistency = pairs with the same canonical verdict both ways / pairs
    with a verdict in both orders (``swap_pairs``), None when there are none. First-position share is over
    the A/B verdicts.
    """
    agreement = rate(tally.agree, tally.verdicts)
    first = rate(tally.first, tally.sides)
    return {
        **agreement,
        "failed": tally.failed,
        "abstained": tally.abstained,
        "invalid": tally.invalid,
        "no_verdicts": tally.verdicts == 0,
        "first_position_n": first["n"],
        "first_position_share": first["rate"],
        "first_position_low": first["low"],
        "first_position_high": first["high"],
        "position_bias": round(first["rate"] - 0.5, 4) if first["rate"] is not None else None,
        "consistent_after_swap": round(tally.swap_same / tally.swap_pairs, 4) if tally.swap_pairs else None,
        "swap_pairs": tally.swap_pairs,
        "swap_left_out": tally.swap_left_out,
    }


def median(values: Sequence[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    return float(ordered[mid]) if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


@dataclass(frozen=True)
class FastWork:
    flagged: bool
    reasons: tuple[str, ...]
    fast_share: float | None


def fast_work(times_seconds: Sequence[float], *, everyone_median: float | None) -> FastWork:
    """Flags for an annotator whose time on item says they skim (see the constants above)."""
    if len(times_seconds) < MIN_ITEMS_FOR_FLAGS:
        return FastWork(False, (), None)
    own = median(times_seconds)
    fast_share = sum(1 for t in times_seconds if t < FAST_ITEM_SECONDS) / len(times_seconds)
    reasons = []
    if everyone_median and own is not None and own < FAST_MEDIAN_FRACTION * everyone_median:
        reasons.append(f"median {own:.1f}s is under a third of everyone's {everyone_median:.1f}s")
    if fast_share > FAST_ITEM_SHARE:
        reasons.append(f"{fast_share:.0%} of items under {FAST_ITEM_SECONDS:.0f}s")
    return FastWork(bool(reasons), tuple(reasons), round(fast_share, 4))


TIME_BUCKETS_SECONDS = (5, 10, 20, 30, 60, 120, 300, 600)


def time_bucket_labels(edges: Sequence[float] = TIME_BUCKETS_SECONDS) -> list[str]:
    """Labels of the buckets [0, e1), [e1, e2), ..., [e_last, ∞) that time on item is counted in."""
    return [f"<{edges[0]}s"] + [f"{lo}–{hi}s" for lo, hi in zip(edges, edges[1:], strict=False)] + [f"≥{edges[-1]}s"]


ALPHA_LEVELS = ("ordinal", "interval", "nominal")


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def agreement_points(report: dict) -> dict[str, dict]:
    """The headline agreement figures of one AgreementReport's JSON (curation.agreement.report), as {value, low, high}.

    ``pairwise_agreement``: MMRB2's pairwise agreement excluding ties, stored in percent, given here as
    a share (0..1) with no interval (the report carries none). ``krippendorff_alpha_<level>``: alpha on
    the primary question at the first level the question allows, ordinal before interval before
    nominal, with its 95% bootstrap interval. A figure the report leaves null is left out. When the
    report names what each figure measured (``measured``), the point carries that label too.
    """
    if not isinstance(report, dict):
        return {}
    points = {}
    labels = report.get("measured") if isinstance(report.get("measured"), dict) else {}
    alpha_labels = labels.get("alpha") if isinstance(labels.get("alpha"), dict) else {}
    pairwise = _number(report.get("pairwise_agreement_excluding_ties"))
    if pairwise is not None:
        points["pairwise_agreement"] = {"value": round(pairwise / 100, 4), "low": None, "high": None}
        if labels.get("pairwise_agreement_excluding_ties"):
            points["pairwise_agreement"]["measured"] = labels["pairwise_agreement_excluding_ties"]
    alphas, intervals = report.get("alpha"), report.get("alpha_ci95")
    if isinstance(alphas, dict):
        intervals = intervals if isinstance(intervals, dict) else {}
        for level in ALPHA_LEVELS:
            value = _number(alphas.get(level))
            if value is None:
                continue
            interval = intervals.get(level)
            low, high = interval if isinstance(interval, (list, tuple)) and len(interval) == 2 else (None, None)
            points[f"krippendorff_alpha_{level}"] = {"value": round(value, 4), "low": _number(low), "high": _number(high)}
            if alpha_labels.get(level):
                points[f"krippendorff_alpha_{level}"]["measured"] = alpha_labels[level]
            break
    return points
