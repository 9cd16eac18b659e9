"""``field__any``: the same rows as ``field__in``, whatever the values, on PostgreSQL and SQLite alike."""

import pytest

from annotation.catalogue.models import Pair, Prompt
from tests.conftest import skip_unless_postgresql
from tests.factories import CampaignFactory, PairFactory

pytestmark = pytest.mark.django_db


def test_any_matches_what_in_matches_for_strings_integers_and_foreign_keys():
    campaign = CampaignFactory()
    pairs = [PairFactory(campaign=campaign, external_id=f"p-{i}'\"\\,{{}}") for i in range(5)]
    wanted = {pairs[0].external_id, pairs[3].external_id, "absent", "é ünïcode"}
    by_any = set(Pair.objects.filter(campaign=campaign, external_id__any=wanted).values_list("id", flat=True))
    by_in = set(Pair.objects.filter(campaign=campaign, external_id__in=wanted).values_list("id", flat=True))
    assert by_any == by_in == {pairs[0].id, pairs[3].id}
    prompt_ids = {pairs[1].prompt_id, pairs[2].prompt_id, 10**12}
    assert set(Pair.objects.filter(prompt_id__any=prompt_ids).values_list("id", flat=True)) == {pairs[1].id, pairs[2].id}
    assert set(Pair.objects.filter(prompt__any=prompt_ids).values_list("id", flat=True)) == {pairs[1].id, pairs[2].id}
    assert Prompt.objects.filter(id__any=[p.prompt_id for p in pairs]).count() == 5


def test_any_of_nothing_matches_nothing():
    PairFactory()
    assert not Pair.objects.filter(external_id__any=set()).exists()


def test_on_postgresql_the_list_travels_as_one_parameter(request):
    skip_unless_postgresql(request.node, "the single-parameter form is PostgreSQL's")
    sql, params = Pair.objects.filter(external_id__any={str(i) for i in range(3000)}).query.sql_with_params()
    assert "jsonb_array_elements_text" in sql
    assert len(params) == 1
