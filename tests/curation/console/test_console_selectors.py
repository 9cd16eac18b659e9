"""The console's read side: the funnel adds up, the pair browser filters and pages by keyset in one query."""

import pytest

from annotation.catalogue.models import Campaign, Pair
from core.errors import ApplicationError
from curation.selectors.console import PairFilters, annotator_recent_work, campaign_funnel, pair_browse, pair_detail
from tests.curation.console.world import make_pair, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return make_world()


def fresh(campaign):
    return Campaign.objects.select_related("rating_schema").get(pk=campaign.pk)


def test_the_funnel_counts_every_stage_of_the_campaign(world):
    funnel = campaign_funnel(campaign=world.campaign)
    assert funnel["imported"] == 8
    assert funnel["prefilter"] == {"required": True, "pending": 1, "dropped_easy": 1, "kept": 5}
    assert funnel["annotation"] == {
        "pairs": 5, "complete": 2, "annotations_done": 9, "annotations_required": 15, "percent": 60.0, "overlap": 3,
        "below_overlap": 0,
    }
    assert funnel["consensus"] == {"kept": 1, "dropped": 0, "disputed": 1, "dropped_by_reason": {}}
    assert funnel["excluded"] == 1
    assert funnel["released"] == {"releases": [], "pairs": 0}


def test_the_funnel_never_counts_more_done_annotations_than_the_overlap_asks_for(world):
    Pair.objects.filter(pk=world.pairs["kept"].pk).update(annotations_done=3, required_annotations=2)
    funnel = campaign_funnel(campaign=world.campaign)
    assert funnel["annotation"]["annotations_done"] == 8
    assert funnel["annotation"]["annotations_required"] == 14


def test_one_pairs_extra_ratings_do_not_hide_another_pairs_missing_ones(world):
    """Two pairs awaiting adjudication, one rated 5 times for 3, one once: 4 of 6 count, not 6 of 6."""
    extra, short = (make_pair(world.campaign, key, status=Pair.Status.ADJUDICATION, annotations_done=done,
                              required_annotations=3) for key, done in (("extra", 5), ("short", 1)))
    before = campaign_funnel(campaign=world.campaign)["annotation"]
    Pair.objects.filter(pk__in=[extra.pk, short.pk]).update(status=Pair.Status.EXCLUDED)
    without = campaign_funnel(campaign=world.campaign)["annotation"]
    assert before["annotations_required"] - without["annotations_required"] == 6
    assert before["annotations_done"] - without["annotations_done"] == 4


def ids(page):
    return [row["external_id"].removeprefix("console-t2i-") for row in page.rows]


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (PairFilters(status="complete"), ["kept", "split"]),
        (PairFilters(source="wise"), ["split", "dropped"]),
        (PairFilters(disputed=True), ["split"]),
        (PairFilters(gold=True), ["queued"]),
        (PairFilters(gold=False, status="queued"), ["extra1", "extra2"]),
        (PairFilters(judge_agreement_max=0.6), ["split"]),
        (PairFilters(judge_agreement_min=1.0), ["kept", "dropped"]),
        (PairFilters(human_agreement_max=0.5), ["split"]),
        (PairFilters(human_agreement_min=1.0, status="complete"), ["kept"]),
    ],
)
def test_the_pair_browser_filters_by_what_curators_ask(world, filters, expected):
    assert ids(pair_browse(campaign=fresh(world.campaign), filters=filters)) == expected


def test_each_row_carries_judge_and_human_agreement_and_consensus(world):
    rows = {r["external_id"]: r for r in pair_browse(campaign=fresh(world.campaign), filters=PairFilters()).rows}
    split = rows["console-t2i-split"]
    assert (split["judge_agreement"], split["human_agreement"], split["consensus"]) == (0.5, 0.3333, "disputed")
    kept = rows["console-t2i-kept"]
    assert (kept["judge_agreement"], kept["human_agreement"], kept["consensus"], kept["chosen"]) == (1.0, 1.0, "kept", "A")
    assert rows["console-t2i-pending"]["judge_agreement"] is None
    assert rows["console-t2i-pending"]["human_agreement"] is None


@pytest.mark.parametrize("sort", ["id", "-id", "priority", "-priority", "annotations_done", "-annotations_done"])
def test_keyset_pages_walk_every_pair_once_in_order(world, sort):
    campaign = fresh(world.campaign)
    Pair.objects.filter(pk=world.pairs["split"].pk).update(priority=5)
    everything = pair_browse(campaign=campaign, filters=PairFilters(sort=sort), limit=100).rows
    seen, cursor = [], None
    while True:
        page = pair_browse(campaign=campaign, filters=PairFilters(sort=sort), cursor=cursor, limit=3)
        seen += [r["id"] for r in page.rows]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == [r["id"] for r in everything]
    assert len(seen) == len(set(seen)) == 8


def test_a_page_is_one_query_however_large_or_deep(world, django_assert_num_queries):
    campaign = fresh(world.campaign)
    for i in range(30):
        make_pair(world.campaign, f"bulk{i}")
    first = pair_browse(campaign=campaign, filters=PairFilters(), limit=5)
    with django_assert_num_queries(1):
        pair_browse(campaign=campaign, filters=PairFilters(sort="-priority", source="oneig"), cursor=None, limit=50)
    with django_assert_num_queries(1) as captured:
        deep = pair_browse(campaign=campaign, filters=PairFilters(), cursor=first.next_cursor, limit=5)
    assert deep.rows[0]["id"] > first.rows[-1]["id"]
    sql = captured.captured_queries[0]["sql"].upper()
    assert "COUNT(*)" not in sql and " OFFSET " not in sql


@pytest.mark.parametrize(
    ("cursor", "sort", "message"),
    [("not base64!!", "id", "malformed"), ("eyJhIjogMX0", "id", "malformed"), (None, "priority", "another sort")],
)
def test_a_forged_or_foreign_cursor_is_refused(world, cursor, sort, message):
    campaign = fresh(world.campaign)
    if cursor is None:
        cursor = pair_browse(campaign=campaign, filters=PairFilters(sort="id"), limit=2).next_cursor
    with pytest.raises(ApplicationError, match=message) as caught:
        pair_browse(campaign=campaign, filters=PairFilters(sort=sort), cursor=cursor)
    assert caught.value.code == "invalid_cursor"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"status": "bogus"}, "unknown status"), ({"sort": "model_name"}, "unknown sort"),
     ({"judge_agreement_min": 1.5}, "between 0 and 1")],
)
def test_bad_filters_are_refused_precisely(kwargs, message):
    with pytest.raises(ApplicationError, match=message):
        PairFilters(**kwargs)


def test_the_pair_detail_shows_models_verdicts_and_every_annotation(world):
    detail = pair_detail(pair_id=world.pairs["split"].pk)
    assert detail.pair.response_a.model_name == "secret-model-split-a"
    assert [(v.judge.name, v.order, v.verdict) for v in detail.verdicts] == [
        ("judge-1", "forward", "A"), ("judge-1", "swapped", "B"), ("judge-2", "forward", "B"), ("judge-2", "swapped", "tie"),
    ]
    assert detail.verdict_summary == {"A": 1, "B": 2, "tie": 1, "total": 4}
    assert [(a["who"], a["side"], a["seconds"]) for a in detail.annotations] == [
        ("console-t2i-alice", "A", 2.0), ("console-t2i-bob", "B", 40.0), ("console-t2i-carol", "tie", 40.0),
    ]
    assert detail.human_summary == {"A": 1, "B": 1, "tie": 1}
    assert detail.consensus.decision == "disputed"


def test_a_missing_pair_is_a_404_error():
    with pytest.raises(ApplicationError) as caught:
        pair_detail(pair_id=987654321)
    assert caught.value.status_code == 404


def test_an_annotators_recent_work_compares_each_rating_with_consensus_and_gold(world):
    rows = annotator_recent_work(annotator_id=world.alice.pk)
    by_pair = {r["pair"].removeprefix("console-t2i-"): r for r in rows}
    assert rows[-1]["pair"] == "console-t2i-kept"
    assert by_pair["kept"]["agrees_with_consensus"] is True
    assert by_pair["queued"]["gold"] == "B" and by_pair["queued"]["gold_correct"] is True
    assert by_pair["split"]["agrees_with_consensus"] is None
    assert by_pair["split"]["consensus"] == "disputed"
