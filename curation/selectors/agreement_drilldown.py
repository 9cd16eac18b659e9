"""Agreement you can drill into: the latest stored report of a campaign or one of its slices, as tables.

Every table is a list of flat rows (the page and its CSV share them): per question, per answer,
the most disputed pairs and per annotator. Each figure carries its 95% interval: Krippendorff's
alpha its bootstrap interval from the report; shares of ratings (answers, leave-one-out agreement,
gold accuracy, left-side share) a Wilson interval over the ratings counted, which treats ratings as
independent (the page says so).
"""

from __future__ import annotations

from annotation.accounts.models import User
from annotation.catalogue.models import Campaign, Pair
from curation.agreement.variables import LEVELS
from curation.quality import wilson_interval
from curation.selectors.agreement import agreement_report_latest, agreement_slice_keys

SECTIONS = ("questions", "answers", "disputed", "annotators")
WILSON_NOTE = "Wilson 95% intervals over ratings (treated as independent)"


def _round(value, digits: int = 4):
    return None if value is None else round(float(value), digits)


def _wilson(successes: float | None, n: int | None) -> tuple[float | None, float | None]:
    if successes is None or not n:
        return None, None
    low, high = wilson_interval(int(round(successes)), int(n))
    return _round(low), _round(high)


def question_rows(report: dict) -> list[dict]:
    """One row per question and alpha level it allows, with the question's other agreement figures."""
    rows = []
    for qid, figures in report.get("per_dimension", {}).items():
        for level in LEVELS:
            if figures["alpha"].get(level) is None and figures["alpha_ci95"].get(level) is None:
                continue
            interval = figures["alpha_ci95"].get(level) or [None, None]
            rows.append({
                "question": qid, "level": level, "alpha": _round(figures["alpha"][level]),
                "alpha_low": _round(interval[0]), "alpha_high": _round(interval[1]),
                "percent_agreement": _round(figures.get("percent_agreement"), 2),
                "fleiss_kappa": _round(figures.get("fleiss_kappa")),
                "pairwise_agreement_excluding_ties": _round(figures.get("pairwise_agreement_excluding_ties"), 2),
                "units": figures["units"], "ratings": figures["ratings"],
            })
    return rows


def answer_rows(report: dict) -> list[dict]:
    """Per question, how often each answer was given, its share of the question's ratings and an interval."""
    rows = []
    for qid, figures in report.get("per_dimension", {}).items():
        distribution = figures.get("distribution") or []
        total = sum(entry["ratings"] for entry in distribution)
        for entry in distribution:
            low, high = _wilson(entry["ratings"], total)
            rows.append({"question": qid, "answer": entry["value"], "ratings": entry["ratings"],
                         "share": _round(entry["ratings"] / total) if total else None, "share_low": low, "share_high": high})
    return rows


def disputed_rows(report: dict) -> list[dict]:
    """The most disputed pairs of the primary question (highest answer entropy first) with their current status."""
    entries = report.get("items_summary", {}).get("most_disputed", [])
    pairs = {p["id"]: p for p in Pair.objects.filter(pk__in=[e["pair_id"] for e in entries])
             .values("id", "external_id", "status")}
    rows = []
    for entry in entries:
        pair = pairs.get(entry["pair_id"])
        if pair is None:
            continue
        rows.append({"pair_id": entry["pair_id"], "external_id": pair["external_id"], "status": pair["status"],
                     "response": entry.get("response", ""), "ratings": entry["ratings"], "majority": entry["majority"],
                     "majority_share": _round(entry["share"]), "entropy_bits": _round(entry["entropy_bits"]),
                     "mean": _round(entry["mean"], 3), "spread": entry["spread"]})
    return rows


def annotator_rows(report: dict) -> list[dict]:
    """Per annotator: leave-one-out agreement with the others on the same pairs, gold accuracy and left share, each
    with an interval; accounts by username (curators see them), imported raters by their label."""
    entries = report.get("annotators", [])
    ids = [int(e["rater"].split(":", 1)[1]) for e in entries if e["rater"].startswith("user:")]
    names = dict(User.objects.filter(pk__in=ids).values_list("id", "username"))
    rows = []
    for entry in entries:
        kind, _, key = entry["rater"].partition(":")
        who = names.get(int(key), entry["rater"]) if kind == "user" else f"{key} (imported)"
        loo_low, loo_high = _wilson(_times(entry["loo_agreement"], entry["loo_compared"]), entry["loo_compared"])
        gold_low, gold_high = _wilson(_times(entry["gold_accuracy"], entry["gold_ratings"]), entry["gold_ratings"])
        left_low, left_high = _wilson(_times(entry["left_share"], entry["position_choices"]), entry["position_choices"])
        rows.append({
            "annotator": who, "user_id": int(key) if kind == "user" else None, "ratings": entry["ratings"],
            "loo_compared": entry["loo_compared"], "loo_agreement": _round(entry["loo_agreement"]),
            "loo_low": loo_low, "loo_high": loo_high,
            "gold_ratings": entry["gold_ratings"], "gold_accuracy": _round(entry["gold_accuracy"]),
            "gold_low": gold_low, "gold_high": gold_high,
            "position_choices": entry["position_choices"], "left_share": _round(entry["left_share"]),
            "left_low": left_low, "left_high": left_high, "position_biased": entry["position_biased"],
            "median_time_ms": entry["median_time_ms"], "fast": entry["fast"],
        })
    return rows


def _times(rate, n):
    return None if rate is None or not n else rate * n


def agreement_drilldown(*, campaign: Campaign, slice_key: str = "") -> dict:
    """The latest report of the campaign (or slice) as tables, the slices available, and when it was computed."""
    report = agreement_report_latest(campaign=campaign, slice_key=slice_key)
    slices = agreement_slice_keys(campaign=campaign)
    if report is None:
        return {"report": None, "slices": slices, "slice": slice_key}
    data = report.report
    return {
        "report": report,
        "slices": slices,
        "slice": slice_key,
        "primary_question": data.get("primary_question"),
        "headline": {"items": data.get("items"), "annotations": data.get("annotations"), "raters": data.get("raters"),
                     "bootstrap": data.get("bootstrap")},
        "questions": question_rows(data),
        "answers": answer_rows(data),
        "disputed": disputed_rows(data),
        "annotators": annotator_rows(data),
        "has_distributions": all("distribution" in f for f in data.get("per_dimension", {}).values()),
    }
