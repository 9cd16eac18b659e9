"""Dashboard figures, checked against the hand-computed world in world.py."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.workqueue.models import AssignmentEvent
from annotation.workqueue.services.assignments import annotation_submit, assignment_claim, assignment_skip
from curation.selectors.dashboards import FIGURES, dashboard_figure
from tests.curation.console.world import make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return make_world()


def rows(name, campaign):
    return dashboard_figure(name=name, campaign=campaign).rows


def test_annotations_per_day_count_concord_ratings_by_utc_day(world):
    today = timezone.now().date()
    assert rows("annotations-per-day", world.campaign) == [
        {"day": (today - timedelta(days=1)).isoformat(), "annotations": 1},
        {"day": today.isoformat(), "annotations": 8},
    ]


def test_annotations_per_annotator_are_sorted_by_volume(world):
    got = [(r["annotator"], r["annotations"]) for r in rows("annotations-per-annotator", world.campaign)]
    assert got == [("console-t2i-alice", 5), ("console-t2i-bob", 2), ("console-t2i-carol", 2)]


def test_the_annotator_table_scores_agreement_gold_bias_time_and_flags_fast_work(world):
    table = {r["annotator"]: r for r in rows("annotators", world.campaign)}
    alice = table["console-t2i-alice"]
    # Leave-one-out: on p_kept the others (bob, carol) say A as alice does; on p_split they split B / tie, no majority.
    assert (alice["annotations"], alice["agreement_with_others"], alice["agreement_n"]) == (5, 1.0, 1)
    assert (alice["gold_accuracy"], alice["gold_n"]) == (1.0, 1)
    assert (alice["left_share"], alice["position_bias"], alice["position_n"]) == (0.2, -0.3, 5)
    assert alice["median_seconds"] == 2.0 and alice["fast_share"] == 1.0
    assert alice["flagged"] is True
    assert "100% of items under 5s" in alice["flags"]
    assert "picks the right" not in alice["flags"], "4 of 5 is no evidence of bias (binomial p = 0.38): one rule, p < 0.01"
    bob = table["console-t2i-bob"]
    assert (bob["agreement_with_others"], bob["left_share"], bob["median_seconds"], bob["flagged"]) == (1.0, 0.5, 40.0, False)
    assert 0 < alice["agreement_low"] < 1.0 == alice["agreement_high"]


def test_judge_human_agreement_counts_both_orders_on_kept_pairs(world):
    got = [(r["judge"], r["task"], r["n"], r["rate"]) for r in rows("judge-human-agreement", world.campaign)]
    assert got == [("judge-1", "text-to-image", 2, 1.0), ("judge-2", "text-to-image", 2, 1.0)]


def test_judge_position_bias_counts_first_position_picks_and_swap_consistency(world):
    got = {r["judge"]: r for r in rows("judge-position-bias", world.campaign)}
    assert (got["judge-1"]["n"], got["judge-1"]["first_position_share"], got["judge-1"]["consistent_after_swap"]) == (
        6, 0.6667, 0.6667,
    )
    assert (got["judge-2"]["n"], got["judge-2"]["first_position_share"], got["judge-2"]["position_bias"]) == (5, 0.4, -0.1)
    assert (got["judge-2"]["swap_pairs"], got["judge-2"]["swap_left_out"]) == (3, 0)


def test_human_position_bias_matches_the_annotator_table(world):
    got = {r["annotator"]: (r["n"], r["successes"], r["rate"]) for r in rows("human-position-bias", world.campaign)}
    assert got["console-t2i-alice"] == (5, 1, 0.2)
    assert got["console-t2i-bob"] == (2, 1, 0.5)


def test_time_on_item_is_bucketed(world):
    counts = {r["bucket"]: r["annotations"] for r in rows("time-on-item", world.campaign)}
    assert counts["<5s"] == 5 and counts["30–60s"] == 4 and sum(counts.values()) == 9


def test_prefilter_drop_rate_is_per_source_benchmark(world):
    got = [(r["source"], r["n"], r["successes"], r["rate"]) for r in rows("prefilter-drop-rate", world.campaign)]
    assert got == [("oneig", 1, 0, 0.0), ("wise", 2, 1, 0.5)]


def test_agreement_over_time_reads_report_history_with_its_interval(world):
    got = [(r["metric"], r["value"], r["low"], r["high"]) for r in rows("agreement-over-time", world.campaign)]
    assert got == [
        ("pairwise_agreement", 0.8, None, None), ("krippendorff_alpha_ordinal", 0.62, 0.5, 0.74),
        ("pairwise_agreement", 0.85, None, None), ("krippendorff_alpha_ordinal", 0.7, 0.6, 0.8),
    ]


def test_figures_for_all_campaigns_include_every_campaign(world):
    other = make_world("console-other")
    per_annotator = rows("annotations-per-annotator", None)
    assert {r["annotator"] for r in per_annotator} >= {"console-t2i-alice", "console-other-alice"}
    assert len(rows("agreement-over-time", None)) == 8
    assert len(rows("agreement-over-time", other.campaign)) == 4


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_every_figure_is_empty_not_broken_for_a_campaign_without_data(name):
    from annotation.catalogue.services.campaigns import campaign_create

    campaign = campaign_create(slug="console-empty", kind="text-to-image")
    figure = dashboard_figure(name=name, campaign=campaign)
    assert figure.columns
    assert all(row["annotations"] == 0 for row in figure.rows) if name == "time-on-item" else figure.rows == []


def test_an_unknown_figure_is_none():
    assert dashboard_figure(name="nope", campaign=None) is None


def test_work_per_day_counts_the_queue_events_by_day(world):
    """Claims, submissions and skips come from the assignment engine; an expiry yesterday is its own day."""
    bob_lease = assignment_claim(campaign=world.campaign, annotator=world.bob)
    answers = {"text_faithfulness": {"A": 3, "B": 1}, "image_quality": {"A": 2, "B": 2}, "overall": 4,
               "rationale": "left follows the prompt", "prompt_valid": True}
    annotation_submit(assignment=bob_lease, annotator=world.bob, values=answers, time_on_item_ms=9000, idempotency_key="bob-1")
    carol_lease = assignment_claim(campaign=world.campaign, annotator=world.carol)
    assignment_skip(assignment=carol_lease, annotator=world.carol, reason="cannot see the image")
    AssignmentEvent.objects.create(assignment=carol_lease, campaign=world.campaign, annotator=world.carol,
                                   kind=AssignmentEvent.Kind.EXPIRE, at=timezone.now() - timedelta(days=1))
    today, yesterday = timezone.now().date(), timezone.now().date() - timedelta(days=1)
    assert rows("work-per-day", world.campaign) == [
        {"day": yesterday.isoformat(), "claimed": 0, "submitted": 0, "skipped": 0, "expired": 1},
        {"day": today.isoformat(), "claimed": 2, "submitted": 1, "skipped": 1, "expired": 0},
    ]
    assert rows("work-per-day", make_world("console-quiet").campaign) == []


def test_the_dashboard_flags_a_rater_who_answers_at_random_and_no_good_rater(world):
    """Leave-one-out against the other raters' majority (own vote excluded), with chance beside it: the random
    rater's agreement is indistinguishable from chance; with their own vote in, good raters showed 0.92-0.98."""
    import numpy as np

    from tests.curation.console.world import make_pair, rate
    from tests.factories import UserFactory

    rng = np.random.default_rng(4)
    good = [UserFactory(username=f"good-{i}") for i in range(4)]
    guesser = UserFactory(username="guesser")
    value = {"A": 6, "B": 1, "tie": 3}
    for p in range(40):
        pair = make_pair(world.campaign, f"sim-{p}", status="complete")
        truth = str(rng.choice(["A", "B"]))
        for user in good:
            answer = truth if rng.random() < 0.85 else str(rng.choice(["A", "B", "tie"]))
            rate(pair, user, value[answer], swapped=bool(rng.random() < 0.5), seconds=30)
        rate(pair, guesser, value[str(rng.choice(["A", "B", "tie"]))], swapped=bool(rng.random() < 0.5), seconds=30)
    table = {r["annotator"]: r for r in rows("annotators", world.campaign)}
    flagged = table["guesser"]
    assert flagged["flagged"] and "no better than chance" in flagged["flags"]
    assert flagged["agreement_low"] <= flagged["agreement_chance"]
    for user in good:
        assert not table[user.username]["flagged"], table[user.username]["flags"]
