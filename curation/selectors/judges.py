"""Read queries for judges, their verdicts and pre-filter runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.shortcuts import get_object_or_404

from annotation.catalogue.models import Pair
from annotation.jobs.models import Job
from curation.models import Judge, JudgeVerdict
from curation.prefilter import JOB_KIND

if TYPE_CHECKING:
    from django.db.models import QuerySet


def judges_list() -> QuerySet[Judge]:
    return Judge.objects.order_by("name")


def judge_get(*, name: str) -> Judge:
    return get_object_or_404(Judge, name=name)


def pair_verdicts(*, pair: Pair) -> QuerySet[JudgeVerdict]:
    """Every verdict on ``pair``, grouped by judge name then order, with the judge loaded."""
    return JudgeVerdict.objects.filter(pair=pair).select_related("judge").order_by("judge__name", "order")


def prefilter_run_get(*, job_id: int) -> Job:
    return get_object_or_404(Job.objects.select_related("campaign"), pk=job_id, kind=JOB_KIND)
