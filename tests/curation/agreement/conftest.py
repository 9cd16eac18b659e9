"""Campaigns with ratings, made quickly with bulk inserts, for the agreement and consensus tests."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from annotation.catalogue import schemas
from annotation.catalogue.models import Pair, RatingSchema
from annotation.workqueue.models import Annotation
from tests.factories import CampaignFactory, PairFactory, PromptFactory, UserFactory


def make_campaign(*, preset="mmrb2-generation", kind="text-to-image", **fields):
    schema = RatingSchema.objects.create(slug=f"{preset}-{kind}-{RatingSchema.objects.count()}", preset=preset,
                                         definition=schemas.preset(preset, kind))
    return CampaignFactory(rating_schema=schema, kind=kind, **fields)


def add_pairs(campaign, ratings_by_pair: list[list], *, source="testbench", qid="overall", rater_prefix="rater",
              extra_values=None, status=Pair.Status.COMPLETE) -> list[Pair]:
    """One pair per entry, each rating stored as an imported annotation ``{qid: value}`` (None = not answered) and
    counted in its ``annotations_done``."""
    prompt = PromptFactory(campaign=campaign, source=source)
    pairs = [PairFactory(campaign=campaign, prompt=prompt, status=status) for _ in ratings_by_pair]
    rows = []
    for pair, ratings in zip(pairs, ratings_by_pair, strict=True):
        for j, value in enumerate(ratings):
            values = {} if value is None else {qid: value}
            if extra_values:
                values.update(extra_values(pair, j))
            rows.append(Annotation(pair=pair, source=Annotation.Source.IMPORTED, rater_label=f"{rater_prefix}-{j}",
                                   values=values))
    Annotation.objects.bulk_create(rows)
    for count in {len(ratings) for ratings in ratings_by_pair}:
        Pair.objects.filter(pk__in=[p.pk for p, r in zip(pairs, ratings_by_pair, strict=True) if len(r) == count]).update(
            annotations_done=count)
    return pairs


def rate(pair, user, values, *, swapped=None, time_ms=None, created_at: datetime | None = None) -> Annotation:
    annotation = Annotation.objects.create(pair=pair, annotator=user, values=values, shown_swapped=swapped,
                                           time_on_item_ms=time_ms)
    if created_at is not None:
        Annotation.objects.filter(pk=annotation.pk).update(created_at=created_at)
    return annotation


@pytest.fixture
def raters():
    return [UserFactory(username=f"agreement-rater-{i}") for i in range(3)]


@pytest.fixture
def weeks_ago():
    now = timezone.now()
    return lambda n: now - timedelta(weeks=n)
