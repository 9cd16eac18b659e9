"""annotation.rows: model instances from hand-written rows behave as the ORM's own."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation import rows
from annotation.models import Campaign, Pair
from tests.annotation.assignment_helpers import ab_tie_campaign

pytestmark = pytest.mark.django_db

CAMPAIGN = rows.part("c", Campaign, ["id", "slug", "rating_schema_id"])
PAIR = rows.part("p", Pair, ["id", "criteria", "campaign_id"])


def _row(pair: Pair):
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {rows.select_list([CAMPAIGN, PAIR])} FROM annotation_pair p "
            "JOIN annotation_campaign c ON c.id = p.campaign_id WHERE p.id = %s",
            [pair.pk],
        )
        return cursor.fetchone()


def test_instances_are_what_the_orm_loads_with_the_columns_not_read_deferred():
    campaign, _, (pair, *_) = ab_tie_campaign(pairs=1)
    Pair.objects.filter(pk=pair.pk).update(criteria=["faithful to the prompt"])
    built = rows.instances(_row(pair), [CAMPAIGN, PAIR])
    loaded = Pair.objects.only("id", "criteria", "campaign_id").get(pk=pair.pk)
    assert built["p"].criteria == loaded.criteria == ["faithful to the prompt"]  # the JSON column decoded
    assert built["p"].get_deferred_fields() == loaded.get_deferred_fields()
    assert (built["p"]._state.adding, built["p"]._state.db) == (False, connection.alias)
    assert built["c"] == campaign and built["c"].slug == campaign.slug
    with CaptureQueriesContext(connection) as queries:
        assert built["p"].external_id == pair.external_id  # a deferred field loads on access, as with only()
    assert len(queries) == 1
    built["p"].save(update_fields=["criteria"])  # and the instance saves as an update of its row
    assert Pair.objects.count() == 1
