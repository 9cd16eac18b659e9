"""A small campaign whose model leaderboard is known by hand.

Campaign ``lb-t2i`` (MMRB2 generation schema, ``overall`` 1..6: 5–6 A, 1–2 B, 3–4 tie), models
``alpha``, ``beta``, ``gamma``:

- source ``oneig``: alpha (A) vs beta (B) on four pairs: alpha wins three (6, 5, 6), beta one (2).
- source ``wise``: beta (A) vs gamma (B) on three pairs: beta wins two (6, 5), one tie (3).
- an excluded pair where gamma beats alpha: not counted.
Every rating was shown with B on the left (swapped) except the first. Campaign ``lb-nopref`` has a
schema without a preference question.
"""

from __future__ import annotations

from annotation.catalogue.models import Campaign, Pair, RatingSchema
from annotation.catalogue.services.campaigns import rating_schema_for_preset
from annotation.workqueue.models import Annotation
from tests.factories import PairFactory, PromptFactory, ResponseFactory, UserFactory

RATINGS = [
    ("oneig", "alpha", "beta", 6), ("oneig", "alpha", "beta", 5), ("oneig", "alpha", "beta", 6),
    ("oneig", "alpha", "beta", 2),
    ("wise", "beta", "gamma", 6), ("wise", "beta", "gamma", 5), ("wise", "beta", "gamma", 3),
]


def make_pair(campaign: Campaign, key: str, source: str, model_a: str, model_b: str, **fields) -> Pair:
    prompt = PromptFactory(campaign=campaign, external_id=f"{campaign.slug}-{key}", source=source, source_task="t2i")
    return PairFactory(campaign=campaign, prompt=prompt, external_id=f"{campaign.slug}-{key}",
                       response_a=ResponseFactory(prompt=prompt, model_name=model_a),
                       response_b=ResponseFactory(prompt=prompt, model_name=model_b), **fields)


def make_leaderboard_world() -> Campaign:
    schema = rating_schema_for_preset(preset="mmrb2-generation", kind="text-to-image")
    campaign = Campaign.objects.create(slug="lb-t2i", name="Leaderboard", kind="text-to-image", rating_schema=schema)
    rater = UserFactory(username="lb-rater")
    for i, (source, a, b, overall) in enumerate(RATINGS):
        pair = make_pair(campaign, f"p{i}", source, a, b)
        Annotation.objects.create(pair=pair, annotator=rater, source=Annotation.Source.CONCORD,
                                  values={"overall": overall}, shown_swapped=i > 0)
    excluded = make_pair(campaign, "excluded", "oneig", "gamma", "alpha", status=Pair.Status.EXCLUDED)
    Annotation.objects.create(pair=excluded, annotator=rater, source=Annotation.Source.CONCORD, values={"overall": 6},
                              shown_swapped=False)
    plain = RatingSchema.objects.create(slug="lb-plain", definition={"questions": [
        {"id": "ok", "label": "OK?", "type": "boolean", "scope": "pair", "level": "nominal", "required": True}]})
    other = Campaign.objects.create(slug="lb-nopref", name="No preference", kind="image-editing", rating_schema=plain)
    pair = make_pair(other, "q0", "oneig", "alpha", "gamma")
    Annotation.objects.create(pair=pair, annotator=rater, source=Annotation.Source.CONCORD, values={"ok": True})
    return campaign
