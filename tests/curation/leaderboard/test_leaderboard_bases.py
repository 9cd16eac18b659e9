"""Omni-criteria and MMRB2 reasoning campaigns count on the leaderboard, and every campaign says what it counts."""

import pytest
from django.urls import reverse

from annotation.catalogue.models import Campaign
from annotation.catalogue.services.campaigns import rating_schema_for_preset
from annotation.workqueue.models import Annotation
from curation.selectors.leaderboard import leaderboard_basis, model_comparisons, model_leaderboard
from tests.curation.leaderboard.world import make_leaderboard_world, make_pair
from tests.factories import CuratorFactory, UserFactory

pytestmark = pytest.mark.django_db


def _campaign(slug: str, preset: str, kind: str, **fields) -> Campaign:
    return Campaign.objects.create(slug=slug, name=slug, kind=kind,
                                   rating_schema=rating_schema_for_preset(preset=preset, kind=kind), **fields)


def _criteria_world():
    """Two pairs, alpha (A) vs beta (B): the first with criteria A, A, tie (and one unknown label, left out), the
    second with B; shown swapped on the second."""
    campaign = _campaign("lb-omni", "omni-criteria", "text-to-text")
    rater = UserFactory(username="omni-rater")
    first, second = (make_pair(campaign, f"c{i}", "omni", "alpha", "beta") for i in range(2))
    Annotation.objects.create(pair=first, annotator=rater, source=Annotation.Source.CONCORD, shown_swapped=False,
                              values={"criteria": [{"criterion": "Follows 5-7-5", "label": "A"},
                                                   {"criterion": "Imagery", "label": "A"},
                                                   {"criterion": "Tone", "label": "tie"},
                                                   {"criterion": "Rhyme", "label": "maybe"}]})
    Annotation.objects.create(pair=second, annotator=rater, source=Annotation.Source.CONCORD, shown_swapped=True,
                              values={"criteria": [{"criterion": "Follows 5-7-5", "label": "B"}]})
    return campaign, first, second


def test_each_criterion_answered_a_b_or_tie_is_one_comparison():
    campaign, first, second = _criteria_world()
    data = model_comparisons(campaigns=[campaign])
    c = data.comparisons
    rows = sorted(zip(c.pair.tolist(), c.outcome.tolist(), c.left.tolist(), strict=True))
    assert rows == [(first.pk, 0.5, 1.0), (first.pk, 1.0, 1.0), (first.pk, 1.0, 1.0), (second.pk, 0.0, -1.0)]
    assert data.without_preference == []
    assert "one comparison per criterion" in data.basis["lb-omni"]


def test_reasoning_grades_make_the_better_graded_response_win_and_equal_grades_tie():
    campaign = _campaign("lb-reason", "mmrb2-reasoning", "reasoning", consensus_policy="mmrb2-reasoning")
    rater = UserFactory(username="reason-rater")
    grades = [(1, 4), (5, 2), (2, 2), (3, None)]  # A better, B better, a tie, one grade missing (left out)
    pairs = []
    for i, (a, b) in enumerate(grades):
        pair = make_pair(campaign, f"r{i}", "mmrb2", "alpha", "beta")
        pairs.append(pair)
        values = {"correctness": {"A": a, **({"B": b} if b is not None else {})}}
        Annotation.objects.create(pair=pair, annotator=rater, source=Annotation.Source.CONCORD, values=values,
                                  shown_swapped=False)
    data = model_comparisons(campaigns=[campaign])
    got = sorted(zip(data.comparisons.pair.tolist(), data.comparisons.outcome.tolist(), strict=True))
    assert got == [(pairs[0].pk, 1.0), (pairs[1].pk, 0.0), (pairs[2].pk, 0.5)]
    assert "lower is better" in leaderboard_basis(campaign).text


def test_a_reasoning_schema_without_the_reasoning_policy_is_not_counted_and_says_why():
    campaign = _campaign("lb-grades", "mmrb2-reasoning", "reasoning")
    basis = leaderboard_basis(campaign)
    assert basis.how is None and basis.text.startswith("not counted:")


def test_the_report_and_page_say_what_each_campaign_counts(client):
    make_leaderboard_world()
    _criteria_world()
    report = model_leaderboard(campaigns=list(Campaign.objects.filter(slug__in=["lb-t2i", "lb-nopref", "lb-omni"])
                                              .select_related("rating_schema").order_by("slug")),
                               kind="text-to-text", bootstrap=0)
    assert report["campaigns_without_preference"] == ["lb-nopref"]
    assert report["counted"]["lb-t2i"].startswith("overall (1..6): one comparison per rating")
    assert report["counted"]["lb-nopref"].startswith("not counted:")
    assert sorted(m["model"] for m in report["leaderboard"]["models"]) == ["alpha", "beta"]
    assert report["leaderboard"]["comparisons"] == 4
    client.force_login(CuratorFactory())
    page = client.get(reverse("console-leaderboard"), {"kind": "text-to-text"}).content.decode()
    assert 'id="counted-campaigns"' in page and "lb-omni</strong>: criteria: one comparison per criterion" in page
    assert "lb-nopref</strong>: not counted:" in page
