"""annotation.rows: model instances from hand-written rows behave as the ORM's own."""

import pytest
from django.db import connection
from django.db.models import signals
from django.db.models.fields.files import FieldFile
from django.test.utils import CaptureQueriesContext

from annotation import rows
from annotation.models import Assignment, Campaign, Media, Pair, Prompt, RatingSchema, Response, User
from annotation.services.assignments import assignment_claim
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


def _whole_row(model, pk):
    part = rows.part("t", model)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {rows.select_list([part])} FROM {model._meta.db_table} t WHERE t.id = %s", [pk])
        return part, cursor.fetchone()


def _fields(instance) -> dict:
    return {name: value for name, value in instance.__dict__.items() if name != "_state"}


@pytest.mark.parametrize("model", [Assignment, Campaign, Pair, Prompt, RatingSchema, Response, User])
def test_instances_equal_what_from_db_builds_on_every_model_of_the_work_queue(model):
    campaign, (annotator, *_), (pair, *_) = ab_tie_campaign(pairs=1)
    Prompt.objects.filter(pk=pair.prompt_id).update(content=[{"type": "text", "text": "é ✓"}, {"n": 2**70}])
    assignment = assignment_claim(campaign=campaign, annotator=annotator)
    pk = {Assignment: assignment.pk, Campaign: campaign.pk, Pair: pair.pk, Prompt: pair.prompt_id,
          RatingSchema: campaign.rating_schema_id, Response: pair.response_a_id, User: annotator.pk}[model]
    part, row = _whole_row(model, pk)
    assert part.plan is not None  # the direct path, not from_db
    built = rows.instances(row, [part])["t"]
    converted = [rows._convert(f, value) for f, value in zip(part.fields, row, strict=True)]
    expected = model.from_db(connection.alias, [f.attname for f in part.fields], converted)
    assert type(built) is model and _fields(built) == _fields(expected) == _fields(model.objects.get(pk=pk))
    assert (built._state.adding, built._state.db) == (False, connection.alias)
    if model is Prompt:  # orjson refuses integers beyond 64 bits: Django's own decoder reads them
        assert built.content[1] == {"n": 2**70}


def test_a_model_whose_descriptor_works_on_assignment_goes_through_from_db():
    media = Media.objects.create(sha256="a" * 64, kind="image", mime_type="image/png", size=3, file="media/aa.png")
    part, row = _whole_row(Media, media.pk)
    assert part.plan is None  # FileField's descriptor
    built = rows.instances(row, [part])["t"]
    assert isinstance(built.file, FieldFile) and built.file.name == "media/aa.png"


def test_receivers_of_init_signals_still_hear_every_instance():
    campaign, _, (pair, *_) = ab_tie_campaign(pairs=1)
    heard = []

    def receiver(sender, instance, **kwargs):
        heard.append(instance)

    signals.post_init.connect(receiver, sender=Pair)
    try:
        built = rows.instances(_row(pair), [CAMPAIGN, PAIR])
    finally:
        signals.post_init.disconnect(receiver, sender=Pair)
    assert heard == [built["p"]] and built["c"] == campaign
