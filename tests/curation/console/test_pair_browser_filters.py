"""The pair browser's disputed filter and keyset pages select exactly the pairs a plain reading of their rules does."""

import pytest

from annotation.catalogue.models import Campaign, Pair
from curation.models import ConsensusRecord
from curation.selectors.console import PairFilters, pair_browse
from tests.curation.console.world import make_pair, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    """The console world, plus pairs in adjudication with and without a record, and priorities that tie."""
    world = make_world()
    adjudication = make_pair(world.campaign, "adjudication", status=Pair.Status.ADJUDICATION, priority=2)
    make_pair(world.campaign, "adjudication-bare", status=Pair.Status.ADJUDICATION)
    ConsensusRecord.objects.create(pair=adjudication, policy="p", decision="disputed", reason="spread")
    ConsensusRecord.objects.create(pair=world.pairs["extra1"], policy="p", decision="disputed", reason="spread")
    ConsensusRecord.objects.create(pair=world.pairs["pending"], policy="p", decision="dropped", reason="spread")
    for key, priority in (("split", 2), ("queued", 2), ("extra2", -1), ("excluded", 1)):
        Pair.objects.filter(pk=world.pairs[key].pk).update(priority=priority)
    return Campaign.objects.select_related("rating_schema").get(pk=world.campaign.pk)


def walk(campaign, filters: PairFilters, limit: int) -> list[int]:
    seen, cursor = [], None
    while True:
        page = pair_browse(campaign=campaign, filters=filters, cursor=cursor, limit=limit)
        seen += [row["id"] for row in page.rows]
        cursor = page.next_cursor
        if cursor is None:
            return seen


@pytest.mark.parametrize("status", ["", *Pair.Status.values])
@pytest.mark.parametrize("disputed", [True, False])
def test_disputed_means_awaiting_adjudication_or_a_disputed_record_whatever_the_status(campaign, status, disputed):
    """Disputed pairs are those in adjudication or with a disputed consensus record, with or without a status filter."""
    pairs = Pair.objects.filter(campaign=campaign).select_related("consensus")

    def is_disputed(pair):
        record = getattr(pair, "consensus", None)
        return pair.status == Pair.Status.ADJUDICATION or (record is not None and record.decision == "disputed")

    expected = sorted(p.pk for p in pairs if (not status or p.status == status) and is_disputed(p) == disputed)
    assert walk(campaign, PairFilters(status=status, disputed=disputed), limit=2) == expected
    assert any(walk(campaign, PairFilters(disputed=True), limit=50))


@pytest.mark.parametrize("sort", ["priority", "-priority", "annotations_done", "-annotations_done"])
@pytest.mark.parametrize("limit", [1, 2, 3])
def test_keyset_pages_by_a_column_with_ties_follow_the_column_then_the_id(campaign, sort, limit):
    """Pages of any size walk the pairs in (column, id) order, descending for "-", each pair once."""
    field, descending = sort.lstrip("-"), sort.startswith("-")
    expected = [pk for _, pk in sorted(Pair.objects.filter(campaign=campaign).values_list(field, "pk"), reverse=descending)]
    assert walk(campaign, PairFilters(sort=sort), limit=limit) == expected


def test_a_keyset_page_by_priority_starts_at_its_cursor_with_a_row_comparison(campaign, django_assert_num_queries):
    """The cursor is one row comparison, ``ROW(priority, id)``: an index condition, not an OR of two."""
    first = pair_browse(campaign=campaign, filters=PairFilters(sort="-priority"), limit=2)
    with django_assert_num_queries(1) as captured:
        pair_browse(campaign=campaign, filters=PairFilters(sort="-priority"), cursor=first.next_cursor, limit=2)
    assert 'ROW("annotation_pair"."priority", "annotation_pair"."id") <' in captured.captured_queries[0]["sql"]
