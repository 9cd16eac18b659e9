"""A leaderboard request reads the same ratings' comparisons from the cache (issue 36 item 7).

A request used to stream every rating of its scope into the web process to find the board's digest (about 1.7 s for
12,000 ratings under load), on every request. Now one aggregate query per campaign digests exactly what that read
depends on (``comparisons_fingerprint``); the same digest serves the comparisons read before, and any change a
board must see (a rating, a correction, an exclusion, a model's name, the schema) gives another digest."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.catalogue.models import Pair, Response
from annotation.workqueue.models import Annotation
from curation.selectors.leaderboard import comparisons_fingerprint, leaderboard_scope, model_comparisons
from tests.curation.leaderboard.world import make_leaderboard_world
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("postgres_only")]


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def _streamed(queries) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith("COPY")]


def test_the_same_ratings_are_read_once_and_then_digested_in_one_aggregate_query():
    campaign = make_leaderboard_world()
    with CaptureQueriesContext(connection) as first:
        scope = leaderboard_scope(campaigns=[campaign])
    assert len(_streamed(first.captured_queries)) == 1, "the first request streams the ratings"
    with CaptureQueriesContext(connection) as again:
        cached = leaderboard_scope(campaigns=[campaign])
    assert _streamed(again.captured_queries) == [], "the second reads no rating row"
    assert len(again.captured_queries) == 1 and "MD5" in again.captured_queries[0]["sql"].upper()
    fresh = model_comparisons(campaigns=[campaign]).comparisons
    for name in ("model_a", "model_b", "outcome", "left", "pair"):
        assert sorted(getattr(cached.comparisons, name).tolist()) == sorted(getattr(fresh, name).tolist()), name
    assert cached.comparisons.models == scope.comparisons.models == ["alpha", "beta", "gamma"]


@pytest.mark.parametrize("change", ["rating", "correction", "exclusion", "readmission", "model name", "adjudication",
                                    "schema"])
def test_every_change_a_board_must_see_changes_the_digest(change):
    campaign = make_leaderboard_world()
    before = comparisons_fingerprint([campaign])
    assert comparisons_fingerprint([campaign]) == before, "stable while nothing changes"
    leaderboard_scope(campaigns=[campaign])  # cached under ``before``
    first = campaign.pairs.order_by("id").first()
    if change == "rating":
        Annotation.objects.create(pair=first, annotator=UserFactory(), values={"overall": 1}, shown_swapped=True)
    elif change == "correction":
        Annotation.objects.filter(pair=first).update(values={"overall": 1})
    elif change == "exclusion":
        Pair.objects.filter(pk=first.pk).update(status=Pair.Status.EXCLUDED)
    elif change == "readmission":
        Pair.objects.filter(campaign=campaign, status=Pair.Status.EXCLUDED).update(status=Pair.Status.COMPLETE)
    elif change == "model name":
        Response.objects.filter(model_name="gamma").update(model_name="delta")
    elif change == "adjudication":
        Annotation.objects.filter(pair=first).update(source=Annotation.Source.ADJUDICATION)
    else:
        campaign.consensus_params = {"threshold": 0.9}
        campaign.save(update_fields=["consensus_params"])
    assert comparisons_fingerprint([campaign]) != before
    fresh = model_comparisons(campaigns=[campaign]).comparisons
    served = leaderboard_scope(campaigns=[campaign]).comparisons
    assert (len(served), served.models) == (len(fresh), fresh.models), "the change is in the comparisons served"


def test_a_release_scope_of_chosen_pairs_is_never_served_from_the_cache():
    campaign = make_leaderboard_world()
    leaderboard_scope(campaigns=[campaign])
    some = campaign.pairs.filter(prompt__source="wise").values_list("id", flat=True)
    with CaptureQueriesContext(connection) as queries:
        scope = leaderboard_scope(campaigns=[campaign], pair_ids=some)
    assert len(_streamed(queries.captured_queries)) == 1 and len(scope.comparisons) == 3
