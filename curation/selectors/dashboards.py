"""Read queries behind the data-quality dashboards; every figure is a table that also downloads as CSV.

A figure is computed for one campaign or, when ``campaign`` is None, for all of them. Counting is
done by the database (grouped queries); only the annotator table reads annotations row by row,
streamed, because a rating's preferred side depends on its campaign's rating schema.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from django.db import connection
from django.db.models import Case, Count, F, IntegerField, Max, Q, Value, When
from django.db.models.functions import TruncDate

from annotation.catalogue.models import Campaign, Pair
from annotation.catalogue.records import ANONYMOUS_RATER_PREFIX
from annotation.workqueue.models import Annotation, AssignmentEvent
from curation import quality
from curation.agreement.annotators import leave_one_out_majority
from curation.models import AgreementReport, ConsensusRecord, JudgeVerdict

AGREEMENT_HISTORY_LIMIT = 500


@dataclass(frozen=True)
class Figure:
    """One dashboard figure; ``note`` says what it leaves out and why (empty when nothing)."""

    name: str
    title: str
    columns: tuple[str, ...]
    rows: list[dict]
    note: str = ""


def left_out_of_per_annotator(*, campaign: Campaign | None) -> str:
    """What the per-annotator figures (Concord accounts only) leave out: imported ratings, by kind of rater."""
    counts = (
        Annotation.objects.filter(_scope(campaign, "pair__campaign"), annotator__isnull=True)
        .exclude(source=Annotation.Source.ADJUDICATION)
        .aggregate(anonymous=Count("id", filter=Q(rater_label__startswith=ANONYMOUS_RATER_PREFIX)),
                   labelled=Count("id", filter=~Q(rater_label__startswith=ANONYMOUS_RATER_PREFIX)))
    )
    parts = []
    if counts["anonymous"]:
        parts.append(f"{counts['anonymous']:,} ratings of anonymous slots (imported without a stable rater identity: "
                     "each is one rating of one pair, not a person)")
    if counts["labelled"]:
        parts.append(f"{counts['labelled']:,} ratings of imported raters with a stable label "
                     "(their per-rater figures are in the agreement report)")
    return ("Concord accounts only; left out: " + "; ".join(parts) + ".") if parts else ""


def _scope(campaign: Campaign | None, path: str) -> Q:
    return Q(**{path: campaign}) if campaign is not None else Q()


def annotations_per_day(*, campaign: Campaign | None) -> Figure:
    """Ratings made in Concord (imported ones carry no real date) per calendar day, UTC."""
    rows = (
        Annotation.objects.filter(_scope(campaign, "pair__campaign"))
        .exclude(source=Annotation.Source.IMPORTED)
        .annotate(day=TruncDate("created_at"))
        .values("day")
        .annotate(annotations=Count("id"))
        .order_by("day")
    )
    return Figure(
        "annotations-per-day", "Annotations per day", ("day", "annotations"),
        [{"day": r["day"].isoformat(), "annotations": r["annotations"]} for r in rows],
    )


WORK_EVENTS = {
    AssignmentEvent.Kind.CLAIM: "claimed", AssignmentEvent.Kind.SUBMIT: "submitted",
    AssignmentEvent.Kind.SKIP: "skipped", AssignmentEvent.Kind.EXPIRE: "expired",
}


def work_per_day(*, campaign: Campaign | None) -> Figure:
    """The work queue's throughput per calendar day (UTC), from the assignment engine's events:
    pairs claimed, submitted, skipped and leases that expired."""
    grouped = (
        AssignmentEvent.objects.filter(_scope(campaign, "campaign"), kind__in=list(WORK_EVENTS))
        .annotate(day=TruncDate("at"))
        .values("day", "kind")
        .annotate(n=Count("id"))
        .order_by("day")
    )
    days: dict[str, dict] = {}
    for row in grouped:
        day = row["day"].isoformat()
        days.setdefault(day, {"day": day, **{column: 0 for column in WORK_EVENTS.values()}})[WORK_EVENTS[row["kind"]]] = row["n"]
    return Figure("work-per-day", "Work queue per day", ("day", *WORK_EVENTS.values()), list(days.values()))


def annotations_per_annotator(*, campaign: Campaign | None) -> Figure:
    rows = (
        Annotation.objects.filter(_scope(campaign, "pair__campaign"), annotator__isnull=False)
        .values("annotator_id", "annotator__username")
        .annotate(annotations=Count("id"))
        .order_by("-annotations", "annotator__username")
    )
    return Figure(
        "annotations-per-annotator", "Annotations per annotator", ("annotator_id", "annotator", "annotations"),
        [{"annotator_id": r["annotator_id"], "annotator": r["annotator__username"], "annotations": r["annotations"]}
         for r in rows],
        note=left_out_of_per_annotator(campaign=campaign),
    )


def agreement_over_time(*, campaign: Campaign | None) -> Figure:
    """The headline agreement of every whole-campaign AgreementReport, oldest first, with its interval."""
    reports = (
        AgreementReport.objects.filter(_scope(campaign, "campaign"), slice_key="")
        .select_related("campaign")
        .order_by("-computed_at")[:AGREEMENT_HISTORY_LIMIT]
    )
    rows = []
    for report in reversed(list(reports)):
        for metric, point in quality.agreement_points(report.report).items():
            rows.append(
                {"computed_at": report.computed_at.isoformat(), "campaign": report.campaign.slug, "metric": metric,
                 "measured": None, **point}
            )
    return Figure(
        "agreement-over-time", "Agreement over time",
        ("computed_at", "campaign", "metric", "measured", "value", "low", "high"), rows
    )


# The answers leave-one-out agreement compares: a side or a tie (an answer that says nothing is left out).
LOO_CATEGORIES = ("A", "B", "tie")
ANNOTATOR_COLUMNS = (
    "annotator_id", "annotator", "annotations", "agreement_with_others", "agreement_low", "agreement_high", "agreement_n",
    "agreement_chance",
    "gold_accuracy", "gold_n", "left_share", "position_bias", "position_left", "position_n", "median_seconds", "fast_share",
    "flagged", "flags",
)


def annotator_quality(*, campaign: Campaign | None) -> Figure:
    """Per annotator: volume, agreement with the other raters, gold accuracy, position bias, median time, flags.

    Agreement with the other raters is leave-one-out: each answer (A, B or tie) against the answer the pair's
    *other* raters gave strictly most often, own vote excluded, over every pair where such a majority exists
    (whatever consensus later decided); ``agreement_chance`` is what answers independent of the others' would
    reach. Gold accuracy counts every answer on a gold pair (a tie is wrong); position bias is the share of
    A/B answers that picked the response shown on the left, minus one half. The flags (guessing, position,
    speed) are the rules of ``curation.quality``, the same the agreement report applies.
    """
    campaigns = Campaign.objects.filter(pk=campaign.pk) if campaign is not None else Campaign.objects.all()
    definitions = dict(campaigns.values_list("pk", "rating_schema__definition"))
    annotations = (
        Annotation.objects.filter(_scope(campaign, "pair__campaign"), annotator__isnull=False)
        .values_list(
            "annotator_id", "annotator__username", "pair__campaign_id", "pair_id", "values", "shown_swapped",
            "time_on_item_ms", "pair__is_gold", "pair__gold_answer",
        )
        .order_by()
    )
    stats: dict[int, dict] = defaultdict(
        lambda: {"name": "", "n": 0, "gold": 0, "gold_n": 0, "left": 0, "left_n": 0, "times": []}
    )
    everyone_times = []
    answers: list[tuple[int, int, int]] = []  # (annotator, pair, category) of every answer that took a position
    for annotator_id, name, campaign_id, pair_id, values, swapped, ms, is_gold, gold in annotations.iterator(
        chunk_size=5000
    ):
        s = stats[annotator_id]
        s["name"] = name
        s["n"] += 1
        side = quality.preference_side(definitions.get(campaign_id, {}), values)
        if side in LOO_CATEGORIES:
            answers.append((annotator_id, pair_id, LOO_CATEGORIES.index(side)))
        gold_side = (gold or {}).get("side") if is_gold and isinstance(gold, dict) else None
        if gold_side in quality.SIDES and side is not None:
            s["gold_n"] += 1
            s["gold"] += side == gold_side
        left = quality.shown_left(side, swapped)
        if left is not None:
            s["left_n"] += 1
            s["left"] += left
        if ms is not None:
            s["times"].append(ms / 1000)
            everyone_times.append(ms / 1000)
    _, unit = np.unique(np.asarray([a[1] for a in answers], dtype=np.int64), return_inverse=True)
    majority = leave_one_out_majority(unit.reshape(-1), np.asarray([a[2] for a in answers], dtype=np.int64),
                                      n_units=int(unit.max()) + 1 if len(unit) else 0,
                                      n_categories=len(LOO_CATEGORIES)).tolist()
    compared: dict[int, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    for (annotator_id, _, category), others in zip(answers, majority, strict=True):
        if others >= 0:
            compared[annotator_id][0].append(category)
            compared[annotator_id][1].append(others)
    agreement_of = {a: quality.rate(sum(x == y for x, y in zip(*pairs, strict=True)), len(pairs[0]))
                    for a, pairs in compared.items()}
    panel = quality.median([r["rate"] for r in agreement_of.values() if r["n"] >= quality.MIN_ITEMS_FOR_GUESSING])
    everyone_median = quality.median(everyone_times)
    rows = []
    for annotator_id, s in sorted(stats.items(), key=lambda item: (-item[1]["n"], item[1]["name"])):
        agreement = agreement_of.get(annotator_id) or quality.rate(0, 0)
        chance = quality.chance_agreement(*compared[annotator_id], len(LOO_CATEGORIES)) if annotator_id in compared else None
        gold = quality.rate(s["gold"], s["gold_n"])
        left = quality.rate(s["left"], s["left_n"])
        fast = quality.fast_work(s["times"], everyone_median=everyone_median)
        bias = round(left["rate"] - 0.5, 4) if left["rate"] is not None else None
        flags = [flag for flag in (quality.guessing_flag(agreement["successes"], agreement["n"], chance=chance,
                                                         panel=panel),
                                   quality.position_flag(left["successes"], left["n"])) if flag]
        flags += fast.reasons
        median_seconds = quality.median(s["times"])
        rows.append(
            {
                "annotator_id": annotator_id,
                "annotator": s["name"],
                "annotations": s["n"],
                "agreement_with_others": agreement["rate"],
                "agreement_low": agreement["low"],
                "agreement_high": agreement["high"],
                "agreement_n": agreement["n"],
                "agreement_chance": round(chance, 4) if chance is not None else None,
                "gold_accuracy": gold["rate"],
                "gold_n": gold["n"],
                "left_share": left["rate"],
                "position_bias": bias,
                "position_left": left["successes"],
                "position_n": left["n"],
                "median_seconds": round(median_seconds, 1) if median_seconds is not None else None,
                "fast_share": fast.fast_share,
                "flagged": bool(flags),
                "flags": "; ".join(flags),
            }
        )
    return Figure("annotators", "Annotators", ANNOTATOR_COLUMNS, rows, note=left_out_of_per_annotator(campaign=campaign))


def human_position_bias(*, campaign: Campaign | None, annotators: Figure | None = None) -> Figure:
    """Share of each annotator's A/B answers that picked the left response, with its 95% interval.

    ``annotators`` is the annotator table of the same campaign when the caller already has it.
    """
    rows = []
    annotators = annotators or annotator_quality(campaign=campaign)
    for row in annotators.rows:
        if row["position_n"]:
            rows.append({"annotator": row["annotator"], **quality.rate(row["position_left"], row["position_n"])})
    return Figure("human-position-bias", "Position bias of annotators (share picking left)",
                  ("annotator", "n", "successes", "rate", "low", "high"), rows, note=annotators.note)


def judge_tallies(*, campaign: Campaign | None) -> dict[tuple[str, str], quality.JudgeTally]:
    """Per (judge, task): the counts ``quality.judge_figures`` turns into judge–human agreement and swap
    consistency, in one grouped query (each judge's pair with its verdict in either order, then summed)."""
    valid = Q(verdict__in=quality.JUDGE_VERDICTS)
    no_verdict = ~valid
    failed = no_verdict & ~Q(error="")
    abstained = no_verdict & Q(error="", verdict=JudgeVerdict.Verdict.ABSTAIN)
    invalid = no_verdict & Q(error="") & ~Q(verdict=JudgeVerdict.Verdict.ABSTAIN)
    kept = Q(pair__consensus__decision=ConsensusRecord.Decision.KEPT)
    first = Q(order=JudgeVerdict.Order.FORWARD, verdict="A") | Q(order=JudgeVerdict.Order.SWAPPED, verdict="B")
    per_pair = (
        JudgeVerdict.objects.filter(_scope(campaign, "pair__campaign"))
        .annotate(judge_name=F("judge__name"), task=F("pair__campaign__kind"))
        .values("pair", "judge_name", "task")
        .annotate(
            calls=Count("id"),
            verdicts=Count("id", filter=kept & valid),
            agree=Count("id", filter=kept & valid & Q(verdict=F("pair__consensus__chosen"))),
            failed=Count("id", filter=kept & failed),
            invalid=Count("id", filter=kept & invalid),
            abstained=Count("id", filter=kept & abstained),
            sides=Count("id", filter=Q(verdict__in=quality.SIDES)),
            first=Count("id", filter=first),
            forward=Max("verdict", filter=valid & Q(order=JudgeVerdict.Order.FORWARD)),
            swapped=Max("verdict", filter=valid & Q(order=JudgeVerdict.Order.SWAPPED)),
        )
        .order_by()
    )
    inner, params = per_pair.query.sql_with_params()
    both = "t.forward IS NOT NULL AND t.swapped IS NOT NULL"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.judge_name, t.task, SUM(t.verdicts), SUM(t.agree), SUM(t.failed), SUM(t.invalid), SUM(t.sides),"
            f" SUM(t.first), SUM(CASE WHEN {both} THEN 1 ELSE 0 END),"
            f" SUM(CASE WHEN {both} AND t.forward = t.swapped THEN 1 ELSE 0 END),"
            f" SUM(CASE WHEN t.calls = 2 AND NOT ({both}) THEN 1 ELSE 0 END), SUM(t.abstained)"
            f" FROM ({inner}) AS t GROUP BY t.judge_name, t.task ORDER BY t.judge_name, t.task",
            params,
        )
        return {
            (name, task): quality.JudgeTally(*(int(x or 0) for x in counts))
            for name, task, *counts in cursor.fetchall()
        }


JUDGE_AGREEMENT_COLUMNS = ("judge", "task", "n", "successes", "rate", "low", "high", "failed", "abstained", "invalid")


def judge_human_agreement(*, campaign: Campaign | None, tallies: dict | None = None) -> Figure:
    """Per judge and task, by MMRB2's rule: verdicts (both orders) equal to the consensus of kept pairs over
    the verdicts made. A tie is a verdict and wrong against a side; a failed call or an unreadable answer
    is no verdict: it leaves the denominator and is counted in ``failed`` / ``invalid``; so is an abstention (a
    judge that declined to choose), counted in ``abstained``. A judge that made
    no verdict there has no rate (None, shown as "no verdicts"). Pairs without a kept consensus are left out.

    ``tallies``: ``judge_tallies`` of the same campaign when the caller already has them.
    """
    tallies = judge_tallies(campaign=campaign) if tallies is None else tallies
    rows = []
    for (judge, task), tally in tallies.items():
        if tally.verdicts + tally.failed + tally.invalid + tally.abstained == 0:
            continue
        figures = quality.judge_figures(tally)
        rows.append({"judge": judge, "task": task, **{k: figures[k] for k in JUDGE_AGREEMENT_COLUMNS[2:]},
                     "no_verdicts": figures["no_verdicts"]})
    return Figure("judge-human-agreement", "Judge–human agreement per judge and task", JUDGE_AGREEMENT_COLUMNS, rows,
                  note="Failed calls, abstentions and unreadable answers are no verdict: counted beside the rate, not "
                       "in it (as MMRB2 scores a missing judgement). A tie counts as wrong.")


JUDGE_POSITION_COLUMNS = ("judge", "n", "first_position_share", "low", "high", "position_bias", "consistent_after_swap",
                          "swap_pairs", "swap_left_out")


def judge_position_bias(*, campaign: Campaign | None, tallies: dict | None = None) -> Figure:
    """Per judge: how often it picks the response shown first (over its A/B verdicts), and how often its
    verdict survives the swap, over the pairs with a verdict in both orders (``swap_pairs``); pairs where a
    call failed or gave an unreadable answer are left out of it and counted in ``swap_left_out``."""
    tallies = judge_tallies(campaign=campaign) if tallies is None else tallies
    per_judge: dict[str, quality.JudgeTally] = {}
    for (judge, _task), tally in tallies.items():
        per_judge[judge] = per_judge.get(judge, quality.JudgeTally()) + tally
    rows = []
    for judge, tally in per_judge.items():
        if not tally.sides and not tally.swap_pairs and not tally.swap_left_out:
            continue
        figures = quality.judge_figures(tally)
        rows.append({
            "judge": judge,
            "n": figures["first_position_n"],
            "first_position_share": figures["first_position_share"],
            "low": figures["first_position_low"],
            "high": figures["first_position_high"],
            "position_bias": figures["position_bias"],
            "consistent_after_swap": figures["consistent_after_swap"],
            "swap_pairs": figures["swap_pairs"],
            "swap_left_out": figures["swap_left_out"],
        })
    return Figure("judge-position-bias", "Position bias of judges (forward vs swapped)", JUDGE_POSITION_COLUMNS, rows,
                  note="Swap consistency is over pairs with a verdict (A, B or tie) in both orders; pairs where a call "
                       "failed or could not be read are left out (swap_left_out).")


def time_on_item(*, campaign: Campaign | None) -> Figure:
    """How long annotators spent per item, counted into fixed buckets by the database."""
    edges = quality.TIME_BUCKETS_SECONDS
    bucket = Case(
        *[When(time_on_item_ms__lt=int(edge * 1000), then=Value(i)) for i, edge in enumerate(edges)],
        default=Value(len(edges)),
        output_field=IntegerField(),
    )
    counts = dict(
        Annotation.objects.filter(_scope(campaign, "pair__campaign"), time_on_item_ms__isnull=False)
        .annotate(bucket=bucket)
        .values("bucket")
        .annotate(n=Count("id"))
        .order_by()
        .values_list("bucket", "n")
    )
    labels = quality.time_bucket_labels(edges)
    return Figure("time-on-item", "Time on item", ("bucket", "annotations"),
                  [{"bucket": label, "annotations": counts.get(i, 0)} for i, label in enumerate(labels)])


def prefilter_drop_rate(*, campaign: Campaign | None) -> Figure:
    """Per source benchmark: pairs the pre-filter judged, and the share it dropped as easy."""
    dropped = dict(
        Pair.objects.filter(_scope(campaign, "campaign"), status=Pair.Status.DROPPED_EASY)
        .values("prompt__source")
        .annotate(n=Count("id"))
        .order_by()
        .values_list("prompt__source", "n")
    )
    judged_kept = dict(
        JudgeVerdict.objects.filter(_scope(campaign, "pair__campaign"))
        .exclude(pair__status=Pair.Status.DROPPED_EASY)
        .values("pair__prompt__source")
        .annotate(n=Count("pair", distinct=True))
        .order_by()
        .values_list("pair__prompt__source", "n")
    )
    grouped = [
        {"prompt__source": source, "dropped": dropped.get(source, 0), "n": dropped.get(source, 0) + judged_kept.get(source, 0)}
        for source in sorted(set(dropped) | set(judged_kept))
    ]
    rows = [{"source": r["prompt__source"] or "(none)", **quality.rate(r["dropped"], r["n"])} for r in grouped]
    return Figure("prefilter-drop-rate", "Pre-filter drop rate by source benchmark",
                  ("source", "n", "successes", "rate", "low", "high"), rows)


FIGURES: dict[str, Callable[..., Figure]] = {
    "annotations-per-day": annotations_per_day,
    "annotations-per-annotator": annotations_per_annotator,
    "work-per-day": work_per_day,
    "agreement-over-time": agreement_over_time,
    "annotators": annotator_quality,
    "judge-human-agreement": judge_human_agreement,
    "judge-position-bias": judge_position_bias,
    "human-position-bias": human_position_bias,
    "time-on-item": time_on_item,
    "prefilter-drop-rate": prefilter_drop_rate,
}


def dashboard_figure(*, name: str, campaign: Campaign | None) -> Figure | None:
    """The figure called ``name``, or None when there is no such figure."""
    selector = FIGURES.get(name)
    return selector(campaign=campaign) if selector else None
