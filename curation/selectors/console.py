"""Read queries behind the curator console: the campaign funnel, the pair browser and the pair detail."""

from __future__ import annotations

import base64
import binascii
import json
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import PurePosixPath

from django.db.models import Count, F, Field, FloatField, Func, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import Cast, Greatest, Least, NullIf
from django.utils import timezone

from annotation.catalogue.models import Campaign, Media, Pair, Prompt
from annotation.catalogue.selectors import media_url
from annotation.jobs.models import Job
from annotation.workqueue.models import Annotation, Assignment, AssignmentEvent
from annotation.workqueue.playback import played_label
from core.errors import ApplicationError
from core.planner import serial_plan
from curation import quality
from curation.models import ConsensusRecord, JudgeVerdict, Release
from curation.selectors.pair_columns import first_media, prompt_preview, prompt_search, with_prompt_document

PAGE_SIZE = 50
MAX_SEARCH = 200
MAX_PAGE_SIZE = 200
ANNOTATION_STATUSES = (Pair.Status.QUEUED, Pair.Status.COMPLETE, Pair.Status.ADJUDICATION)


def campaign_funnel(*, campaign: Campaign) -> dict:
    """Every stage of a campaign's pipeline in four grouped queries (none of them per pair).

    Pre-filter "kept" counts pairs that left the pre-filter stage for annotation; pairs a curator
    excluded are reported on their own so the stages still add up to "imported".
    """
    # A pair's ratings beyond its required count make up for no other pair's missing ones.
    by_status = {
        row["status"]: row
        for row in Pair.objects.filter(campaign=campaign)
        .values("status")
        .annotate(pairs=Count("id"), required=Sum("required_annotations"),
                  done=Sum(Least("annotations_done", "required_annotations")),
                  below_overlap=Count("id", filter=Q(required_annotations__lt=campaign.overlap)))
        .order_by()
    }

    def pairs(*statuses):
        return sum(by_status.get(s, {}).get("pairs", 0) for s in statuses)

    imported = pairs(*Pair.Status.values)
    required = sum(by_status.get(s, {}).get("required") or 0 for s in ANNOTATION_STATUSES)
    done = sum(by_status.get(s, {}).get("done") or 0 for s in ANNOTATION_STATUSES)
    consensus_rows = list(
        ConsensusRecord.objects.filter(pair__campaign=campaign).values("decision", "reason").annotate(n=Count("id")).order_by()
    )
    consensus = {decision: 0 for decision in ConsensusRecord.Decision.values}
    dropped_by_reason: dict[str, int] = {}
    for row in consensus_rows:
        consensus[row["decision"]] += row["n"]
        if row["decision"] == ConsensusRecord.Decision.DROPPED:
            key = row["reason"] or "unspecified"
            dropped_by_reason[key] = dropped_by_reason.get(key, 0) + row["n"]
    releases = list(
        Release.objects.filter(campaigns=campaign, status=Release.Status.PUBLISHED)
        .order_by("-published_at")
        .values("name", "version", "pairs_count", "published_at")
    )
    jobs = list(Job.objects.filter(campaign=campaign).select_related("created_by").order_by("-created_at")[:10])
    return {
        "imported": imported,
        "prefilter": {
            "required": campaign.requires_prefilter,
            "pending": pairs(Pair.Status.PENDING),
            "dropped_easy": pairs(Pair.Status.DROPPED_EASY),
            "kept": pairs(*ANNOTATION_STATUSES),
        },
        "annotation": {
            "pairs": pairs(*ANNOTATION_STATUSES),
            "complete": pairs(Pair.Status.COMPLETE, Pair.Status.ADJUDICATION),
            "annotations_done": done,
            "annotations_required": required,
            "percent": round(100 * done / required, 1) if required else None,
            "overlap": campaign.overlap,
            # Pairs left asking for fewer by an overlap raised without applying it to them.
            "below_overlap": sum(by_status.get(s, {}).get("below_overlap", 0) for s in (Pair.Status.QUEUED,
                                                                                         Pair.Status.COMPLETE)),
        },
        "consensus": {**consensus, "dropped_by_reason": dict(sorted(dropped_by_reason.items()))},
        "excluded": pairs(Pair.Status.EXCLUDED),
        "adjudication": pairs(Pair.Status.ADJUDICATION),
        "released": {"releases": releases, "pairs": releases[0]["pairs_count"] if releases else 0},
        "jobs": jobs,
        "last_runs": last_runs(campaign=campaign),
        "work": work_queue(campaign=campaign),
    }


WORK_WINDOW = timedelta(hours=24)


def work_queue(*, campaign: Campaign, now: datetime | None = None) -> dict:
    """The work queue right now: open leases, and the assignment engine's events of the last 24 hours
    (pairs claimed, submitted, skipped, leases expired). Two indexed queries."""
    since = (now or timezone.now()) - WORK_WINDOW
    events = dict(
        AssignmentEvent.objects.filter(campaign=campaign, at__gte=since)
        .values("kind").annotate(n=Count("id")).order_by().values_list("kind", "n")
    )
    return {
        "open_leases": Assignment.objects.filter(campaign=campaign, status=Assignment.Status.ACTIVE).count(),
        "last_24h": {label: events.get(kind, 0) for kind, label in (
            (AssignmentEvent.Kind.CLAIM, "claimed"), (AssignmentEvent.Kind.SUBMIT, "submitted"),
            (AssignmentEvent.Kind.SKIP, "skipped"), (AssignmentEvent.Kind.EXPIRE, "expired"),
        )},
    }


PIPELINE_JOB_KINDS = ("prefilter", "agreement", "consensus")


def last_runs(*, campaign: Campaign) -> dict[str, Job]:
    """The newest job of each pipeline kind (pre-filter, agreement, consensus) of ``campaign``, by kind."""
    newest = (
        Job.objects.filter(campaign=campaign, kind=OuterRef("kind")).order_by("-created_at", "-pk").values("pk")[:1]
    )
    jobs = Job.objects.filter(campaign=campaign, kind__in=PIPELINE_JOB_KINDS, pk=Subquery(newest))
    return {job.kind: job for job in jobs}


# ---------------------------------------------------------------------------------------------
# Pair browser: filters, sorts and keyset pagination (the cursor is the last row's sort key + id).

SORTS = {
    "id": ("id", False),
    "-id": ("id", True),
    "priority": ("priority", False),
    "-priority": ("priority", True),
    "annotations_done": ("annotations_done", False),
    "-annotations_done": ("annotations_done", True),
}


@dataclass(frozen=True)
class PairFilters:
    status: str = ""
    source: str = ""
    judge_agreement_min: float | None = None
    judge_agreement_max: float | None = None
    human_agreement_min: float | None = None
    human_agreement_max: float | None = None
    disputed: bool | None = None
    gold: bool | None = None
    sort: str = "id"
    q: str = ""

    def __post_init__(self):
        if len(self.q) > MAX_SEARCH:
            raise ApplicationError(f"the search text is {len(self.q)} characters; keep it under {MAX_SEARCH}",
                                   code="invalid_filter")
        if self.status and self.status not in Pair.Status.values:
            raise ApplicationError(
                f"unknown status {self.status!r}; choose one of {', '.join(Pair.Status.values)}", code="invalid_filter"
            )
        if self.sort not in SORTS:
            raise ApplicationError(f"unknown sort {self.sort!r}; choose one of {', '.join(SORTS)}", code="invalid_filter")
        for name in ("judge_agreement_min", "judge_agreement_max", "human_agreement_min", "human_agreement_max"):
            value = getattr(self, name)
            if value is not None and not 0 <= value <= 1:
                raise ApplicationError(f"{name} must lie between 0 and 1, got {value}", code="invalid_filter")


@dataclass
class PairPage:
    rows: list[dict]
    next_cursor: str | None
    filters: PairFilters


def encode_cursor(*, sort: str, value: object, pk: int) -> str:
    raw = json.dumps({"s": sort, "v": value, "id": pk}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, *, sort: str) -> tuple[int, int]:
    """The (sort value, id) a cursor stands for; a cursor from another sort or a forged one is refused."""
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        value, pk, cursor_sort = data["v"], data["id"], data["s"]
    except (binascii.Error, ValueError, TypeError, KeyError, UnicodeDecodeError) as exc:
        raise ApplicationError("the page cursor is malformed; start again from the first page", code="invalid_cursor") from exc
    if cursor_sort != sort:
        raise ApplicationError("the page cursor belongs to another sort order", code="invalid_cursor")
    if not all(isinstance(x, int) and not isinstance(x, bool) and -(2**63) <= x < 2**63 for x in (value, pk)):
        raise ApplicationError("the page cursor is malformed; start again from the first page", code="invalid_cursor")
    return value, pk


def _share_expression(labels: dict[str, Q]):
    """The share of the grouped rows that carry the most common of ``labels``."""
    counts = [Count("id", filter=condition) for condition in labels.values()]
    total = Count("id", filter=_any(labels.values()))
    return Cast(Greatest(*counts), FloatField()) / Cast(NullIf(total, 0), FloatField())


def _majority_share(queryset, labels: dict[str, Q]):
    """A correlated subquery: the majority share among one pair's rows (for the 51 rows a page shows)."""
    return Subquery(
        queryset.values("pair").annotate(share=_share_expression(labels)).values("share")[:1], output_field=FloatField()
    )


def _pairs_with_share(queryset, labels: dict[str, Q], low: float | None, high: float | None):
    """The pairs whose majority share lies in [low, high], found by one grouped pass over ``queryset``.

    A filter on a per-pair aggregate is evaluated for the whole campaign at once (a hash aggregate),
    so a selective filter costs one pass instead of one subquery per pair scanned.
    """
    grouped = queryset.values("pair").annotate(share=_share_expression(labels))
    if low is not None:
        grouped = grouped.filter(share__gte=low)
    if high is not None:
        grouped = grouped.filter(share__lte=high)
    return grouped.values("pair")


def _any(conditions) -> Q:
    combined = Q()
    for condition in conditions:
        combined |= condition
    return combined


JUDGE_LABELS = {label: Q(verdict=label) for label in ("A", "B", "tie")}


def judge_agreement_expression() -> Subquery:
    """Share of a pair's valid judge votes (A, B or tie; both orders) that the majority label holds."""
    return _majority_share(JudgeVerdict.objects.filter(pair=OuterRef("pk")).order_by(), JUDGE_LABELS)


def _human_side_conditions(definition: dict) -> dict[str, Q] | None:
    """Conditions on Annotation.values for preferring A, B or neither, from the schema's pair-level preference.

    A scale's middle (3 and 4 on MMRB2's 1..6) is a tie; a choice other than A or B is a tie. The
    comparisons are on JSON numbers, so they stay cheap to build and to run. Returns None when the
    schema has no such question (the reasoning and criteria presets): those campaigns cannot be
    filtered on human agreement in SQL.
    """
    for q in definition.get("questions", []):
        if not (q.get("oriented") and q.get("scope", "pair") == "pair" and q["type"] in ("scale", "choice")):
            continue
        key = f"values__{q['id']}"
        if q["type"] == "choice":
            return {
                "A": Q(**{key: "A"}),
                "B": Q(**{key: "B"}),
                "tie": Q(**{f"{key}__isnull": False}) & ~Q(**{f"{key}__in": ["A", "B"]}),
            }
        middle = (q["min"] + q["max"]) / 2
        return {
            "A": Q(**{f"{key}__gt": middle + 0.5}),
            "B": Q(**{f"{key}__lt": middle - 0.5}),
            "tie": Q(**{f"{key}__gte": middle - 0.5, f"{key}__lte": middle + 0.5}),
        }
    return None


def human_agreement_expression(definition: dict) -> Subquery | None:
    """Share of a pair's annotations whose preferred side is the most common one (None without annotations)."""
    conditions = _human_side_conditions(definition)
    if conditions is None:
        return None
    return _majority_share(Annotation.objects.filter(pair=OuterRef("pk")).order_by(), conditions)


def pair_browse(*, campaign: Campaign, filters: PairFilters, cursor: str | None = None, limit: int = PAGE_SIZE) -> PairPage:
    """One page of a campaign's pairs in a single query, however deep the page: a keyset, never OFFSET or COUNT."""
    limit = max(1, min(limit, MAX_PAGE_SIZE))
    sort_field, descending = SORTS[filters.sort]
    qs = (
        Pair.objects.filter(campaign=campaign)
        .select_related("prompt", "response_a", "response_b")
        .only(
            "id", "external_id", "status", "status_reason", "priority", "annotations_done", "required_annotations",
            "is_gold", "created_at", "campaign_id", "prompt__source", "prompt__source_task", "prompt__external_id",
            "response_a__model_name", "response_b__model_name",
        )
        .annotate(judge_agreement=judge_agreement_expression(), prompt_text=prompt_preview(),
                  media_a=first_media("response_a__content"), media_b=first_media("response_b__content"),
                  **_consensus_columns())
    )
    human_conditions = _human_side_conditions(campaign.rating_schema.definition)
    human = human_agreement_expression(campaign.rating_schema.definition)
    if human is not None:
        qs = qs.annotate(human_agreement=human)
    elif filters.human_agreement_min is not None or filters.human_agreement_max is not None:
        raise ApplicationError(
            "this campaign's rating schema has no pair-level preference question, so human agreement cannot be filtered",
            code="invalid_filter",
        )
    if filters.q.strip():
        qs = with_prompt_document(qs).filter(prompt_search(filters.q.strip()))
    if filters.status:
        qs = qs.filter(status=filters.status)
    if filters.source:
        qs = qs.filter(prompt__source=filters.source)
    if filters.gold is not None:
        qs = qs.filter(is_gold=filters.gold)
    if filters.disputed is not None:
        qs = qs.filter(_disputed(filters.status)) if filters.disputed else qs.exclude(_disputed(filters.status))
    if filters.judge_agreement_min is not None or filters.judge_agreement_max is not None:
        verdicts = JudgeVerdict.objects.filter(pair__campaign=campaign).order_by()
        qs = qs.filter(pk__in=_pairs_with_share(verdicts, JUDGE_LABELS, filters.judge_agreement_min, filters.judge_agreement_max))
    if filters.human_agreement_min is not None or filters.human_agreement_max is not None:
        annotations = Annotation.objects.filter(pair__campaign=campaign).order_by()
        qs = qs.filter(pk__in=_pairs_with_share(
            annotations, human_conditions, filters.human_agreement_min, filters.human_agreement_max
        ))
    if cursor:
        value, pk = decode_cursor(cursor, sort=filters.sort)
        if sort_field == "id":
            qs = qs.filter(id__lt=pk) if descending else qs.filter(id__gt=pk)
        else:
            qs = qs.alias(sort_key=_row(F(sort_field), F("id")))
            after = _row(Value(value), Value(pk))
            qs = qs.filter(sort_key__lt=after) if descending else qs.filter(sort_key__gt=after)
    order = [F(sort_field).desc(), F("id").desc()] if descending else [F(sort_field).asc(), F("id").asc()]
    if sort_field == "id":
        order = order[:1]
    # A rare word's page is found in ~20 ms through the search index; starting parallel workers for it cost as
    # much again (docs/decisions/serial-plan-for-prompt-search.md).
    with serial_plan() if filters.q.strip() else nullcontext():
        pairs = list(qs.order_by(*order)[: limit + 1])
    more = len(pairs) > limit
    pairs = pairs[:limit]
    thumbnails = _media_urls({digest for pair in pairs for digest in (pair.media_a, pair.media_b) if digest})
    rows = [_browse_row(pair, has_human=human is not None, thumbnails=thumbnails) for pair in pairs]
    next_cursor = None
    if more and pairs:
        last = pairs[-1]
        next_cursor = encode_cursor(sort=filters.sort, value=getattr(last, sort_field), pk=last.pk)
    return PairPage(rows=rows, next_cursor=next_cursor, filters=filters)


def _row(*expressions) -> Func:
    """A row value, ``ROW(a, b)``: compared as a whole, PostgreSQL starts an index scan at the cursor.

    The same comparison spelt ``a < x OR (a = x AND b < y)`` is not an index condition: a page mid-way
    through 1,000,000 pairs by priority sorted a third of them (240 ms). The browser's sort columns are
    NOT NULL, so both spellings select the same rows.
    """
    return Func(*expressions, function="ROW", output_field=Field())


def _disputed(status: str) -> Q:
    """Pairs awaiting adjudication or with a disputed consensus record, given the status filter beside it.

    With a status chosen, its first half is settled already; left in, the OR across two tables made
    PostgreSQL join every pair of that status to its record (450 ms at 1,000,000 pairs) instead of starting
    from the few disputed records (consensus_disputed_idx).
    """
    in_adjudication = Q(status=Pair.Status.ADJUDICATION)
    has_disputed_record = Q(pk__in=ConsensusRecord.objects.filter(decision=ConsensusRecord.Decision.DISPUTED)
                            .values("pair"))
    if not status:
        return in_adjudication | has_disputed_record
    return in_adjudication if status == Pair.Status.ADJUDICATION else has_disputed_record


def _media_urls(digests: set[str]) -> dict[str, str]:
    """Concord's media URL of each stored digest (one query for the page's thumbnails)."""
    if not digests:
        return {}
    return {sha256: media_url(sha256, PurePosixPath(name).suffix.lstrip(".") or "bin")
            for sha256, name in Media.objects.filter(sha256__in=digests).values_list("sha256", "file")}


def _consensus_columns() -> dict:
    """The consensus decision, chosen side and reason of each row, looked up per row shown.

    Subqueries rather than a join: joined, PostgreSQL merges the pairs (in id order) with the consensus
    records from the first one, so a page at 90% depth of 1,000,000 pairs read 300,000 records (130 ms).
    """
    record = ConsensusRecord.objects.filter(pair=OuterRef("pk"))
    return {f"consensus_{name}": Subquery(record.values(name)[:1]) for name in ("decision", "chosen", "reason")}


def _browse_row(pair: Pair, *, has_human: bool, thumbnails: dict[str, str]) -> dict:
    return {
        "id": pair.pk,
        "external_id": pair.external_id,
        "prompt_text": pair.prompt_text or "",
        "model_a": pair.response_a.model_name,
        "model_b": pair.response_b.model_name,
        "thumbnail_a": thumbnails.get(pair.media_a),
        "thumbnail_b": thumbnails.get(pair.media_b),
        "status": pair.status,
        "status_reason": pair.status_reason,
        "source": pair.prompt.source,
        "source_task": pair.prompt.source_task,
        "priority": pair.priority,
        "annotations_done": pair.annotations_done,
        "required_annotations": pair.required_annotations,
        "is_gold": pair.is_gold,
        "judge_agreement": round(pair.judge_agreement, 4) if pair.judge_agreement is not None else None,
        "human_agreement": round(pair.human_agreement, 4) if has_human and pair.human_agreement is not None else None,
        "consensus": pair.consensus_decision,
        "chosen": pair.consensus_chosen or "",
        "consensus_reason": pair.consensus_reason or "",
        "created_at": pair.created_at,
    }


def _has_consensus(pair: Pair) -> bool:
    try:
        return pair.consensus is not None
    except ConsensusRecord.DoesNotExist:
        return False


def campaign_sources(*, campaign: Campaign) -> list[str]:
    """The source benchmarks a campaign's prompts come from, for the browser's filter."""
    return list(
        Prompt.objects.filter(campaign=campaign).exclude(source="").values_list("source", flat=True).distinct().order_by("source")
    )


# ---------------------------------------------------------------------------------------------
# Pair detail: everything a curator may see, including what annotators never see.


@dataclass
class PairDetail:
    pair: Pair
    verdicts: list[JudgeVerdict]
    verdict_summary: dict
    annotations: list[dict]
    assignments: list[Assignment]
    consensus: ConsensusRecord | None
    human_summary: dict
    answer_table: list[dict]


def pair_detail(*, pair_id: int) -> PairDetail:
    """A pair with its prompt, both responses and model names, judge verdicts, annotations and consensus."""
    try:
        pair = Pair.objects.select_related("campaign__rating_schema", "prompt", "response_a", "response_b").get(pk=pair_id)
    except Pair.DoesNotExist as exc:
        raise ApplicationError("no such pair", code="not_found", status_code=404) from exc
    verdicts = list(JudgeVerdict.objects.filter(pair=pair).select_related("judge").order_by("judge__name", "order"))
    definition = pair.campaign.rating_schema.definition
    annotations = []
    for annotation in Annotation.objects.filter(pair=pair).select_related("annotator").order_by("created_at", "id"):
        annotations.append(
            {
                "annotation": annotation,
                "who": annotation.annotator.username if annotation.annotator else annotation.rater_label or "imported",
                "side": quality.preference_side(definition, annotation.values),
                "seconds": round(annotation.time_on_item_ms / 1000, 1) if annotation.time_on_item_ms is not None else None,
                "played": played_label(annotation.media_played),
            }
        )
    for entry in annotations:
        entry["orientation"] = rationale_orientation(entry["annotation"].shown_swapped)
    questions = [q for q in definition.get("questions", []) if q.get("type") != "text"]
    answer_table = [
        {"id": q["id"], "label": q.get("label", q["id"]),
         "cells": [format_answer(q, entry["annotation"].values.get(q["id"])) for entry in annotations]}
        for q in questions
    ]
    assignments = list(Assignment.objects.filter(pair=pair).select_related("annotator").order_by("claimed_at"))
    consensus = ConsensusRecord.objects.filter(pair=pair).first()
    votes = [v.verdict for v in verdicts if v.verdict != JudgeVerdict.Verdict.INVALID]
    sides = [a["side"] for a in annotations if a["side"]]
    return PairDetail(
        pair=pair,
        verdicts=verdicts,
        verdict_summary={label: votes.count(label) for label in ("A", "B", "tie")} | {"total": len(verdicts)},
        annotations=annotations,
        assignments=assignments,
        consensus=consensus,
        human_summary={label: sides.count(label) for label in ("A", "B", "tie")},
        answer_table=answer_table,
    )


def rationale_orientation(shown_swapped: bool | None) -> str:
    """How to read a rationale's sides: the rater saw the responses labelled by position, not canonically.

    The workspace calls the left-hand response "Response A", so with the sides swapped a rationale's
    "A" (or "left", "first") is the canonical response B.
    """
    if shown_swapped is None:
        return "orientation unknown (imported): its A and B may not be the canonical ones"
    if shown_swapped:
        return "written seeing B on the left: its “A” / left / first is canonical B, its “B” / right / second is canonical A"
    return "written seeing A on the left: its A and B are the canonical ones"


def _option_label(question: dict, value) -> str:
    for option in question.get("options", []):
        if option.get("value") == value:
            return f"{value} · {option.get('label', '')}".rstrip(" ·")
    return str(value)


def format_answer(question: dict, value: object) -> str:
    """One answer as a curator reads it, in canonical orientation: an option's label beside its value,
    per-response answers as ``A: … · B: …``, criteria as ``criterion → label``; ``—`` when not answered."""
    if value is None or value == "" or value == []:
        return "—"
    if isinstance(value, dict) and question.get("scope") == "response":
        return " · ".join(f"{side}: {_option_label(question, value.get(side))}" for side in ("A", "B") if side in value)
    if isinstance(value, list):
        return "; ".join(f"{item.get('criterion', '?')} → {item.get('label', '?')}" if isinstance(item, dict) else str(item)
                         for item in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return _option_label(question, value)


def annotator_recent_work(*, annotator_id: int, limit: int = 50) -> list[dict]:
    """An annotator's latest annotations, newest first, with how each compares with consensus and gold."""
    rows = []
    annotations = (
        Annotation.objects.filter(annotator_id=annotator_id)
        .select_related("pair__campaign__rating_schema", "pair__consensus")
        .order_by("-created_at", "-id")[:limit]
    )
    for annotation in annotations:
        pair = annotation.pair
        side = quality.preference_side(pair.campaign.rating_schema.definition, annotation.values)
        consensus = pair.consensus if _has_consensus(pair) else None
        chosen = consensus.chosen if consensus and consensus.decision == ConsensusRecord.Decision.KEPT else ""
        gold = (pair.gold_answer or {}).get("side") if pair.is_gold else None
        rows.append(
            {
                "annotation_id": annotation.pk,
                "pair_id": pair.pk,
                "pair": pair.external_id,
                "campaign": pair.campaign.slug,
                "created_at": annotation.created_at,
                "side": side,
                "consensus": chosen or (consensus.decision if consensus else ""),
                "agrees_with_consensus": (side == chosen) if chosen and side in quality.SIDES else None,
                "gold": gold or "",
                "gold_correct": (side == gold) if gold else None,
                "seconds": round(annotation.time_on_item_ms / 1000, 1) if annotation.time_on_item_ms is not None else None,
                "shown_swapped": annotation.shown_swapped,
                "rationale": annotation.rationale,
            }
        )
    return rows



def campaigns_with_progress() -> list[Campaign]:
    """Every campaign in slug order with its progress, in one grouped query.

    Each carries ``pairs_count``, ``in_annotation`` (pairs queued, complete or awaiting adjudication),
    ``complete``, ``annotations_done`` and ``annotations_required`` (over the pairs in annotation) and
    ``progress`` (done over required, 0–1, None when nothing is in annotation).
    """
    in_annotation = Q(pairs__status__in=ANNOTATION_STATUSES)
    campaigns: list[Campaign] = list(
        Campaign.objects.order_by("slug").annotate(
            pairs_count=Count("pairs"),
            in_annotation=Count("pairs", filter=in_annotation),
            complete=Count("pairs", filter=Q(pairs__status=Pair.Status.COMPLETE)),
            annotations_done=Sum(Least("pairs__annotations_done", "pairs__required_annotations"), filter=in_annotation,
                                 default=0),
            annotations_required=Sum("pairs__required_annotations", filter=in_annotation, default=0),
        )
    )
    for campaign in campaigns:
        required = campaign.annotations_required
        campaign.progress = min(campaign.annotations_done, required) / required if required else None
    return campaigns
