"""Read queries for agreement reports, consensus records and the adjudication queue."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet
from django.db.models.fields.json import KeyTransform

from annotation.catalogue.models import Campaign, Pair
from annotation.workqueue.models import Annotation
from curation.models import AgreementReport

HEADLINE = ("items", "annotations", "alpha", "alpha_ci95", "pairwise_agreement_excluding_ties", "percent_agreement",
            "fleiss_kappa", "measured")


def agreement_report_latest(*, campaign: Campaign, slice_key: str = "") -> AgreementReport | None:
    return (AgreementReport.objects.filter(campaign=campaign, slice_key=slice_key)
            .order_by("-computed_at", "-id").first())


def agreement_slice_keys(*, campaign: Campaign) -> list[str]:
    """Every slice that has a report, whole campaign ('') first."""
    keys = set(AgreementReport.objects.filter(campaign=campaign).values_list("slice_key", flat=True).distinct())
    return sorted(keys, key=lambda k: (k != "", k))


def agreement_report_history(*, campaign: Campaign, slice_key: str = "", limit: int = 100) -> list[dict]:
    """The headline figures of the latest ``limit`` reports, oldest first, read from the JSON in the database
    (per-annotator detail never leaves it), for trend plots."""
    annotations = {f"h_{key}": KeyTransform(key, "report") for key in HEADLINE}
    rows = (AgreementReport.objects.filter(campaign=campaign, slice_key=slice_key)
            .order_by("-computed_at", "-id")
            .annotate(**annotations)
            .values("id", "computed_at", "params", *annotations)[:limit])
    history = [{"id": row["id"], "computed_at": row["computed_at"], "params": row["params"],
                **{key: row[f"h_{key}"] for key in HEADLINE}} for row in rows]
    return history[::-1]


def adjudication_queue(*, campaign: Campaign) -> QuerySet[Pair]:
    """Pairs awaiting a curator's decision, oldest first, with their consensus record and ratings."""
    ratings = Annotation.objects.exclude(source=Annotation.Source.ADJUDICATION).select_related("annotator").order_by("id")
    return (Pair.objects.filter(campaign=campaign, status=Pair.Status.ADJUDICATION)
            .select_related("consensus", "prompt")
            .prefetch_related(Prefetch("annotations", queryset=ratings, to_attr="ratings"))
            .order_by("id"))
