"""core.rows: model instances from hand-written rows (through Model.from_db) are the ORM's own."""

from contextlib import contextmanager

import pytest
from django.db import connection
from django.db.models import signals
from django.db.models.fields.files import FieldFile
from django.test.utils import CaptureQueriesContext

from annotation.accounts.models import User
from annotation.catalogue.models import Campaign, Media, Pair, Prompt, RatingSchema, Response
from annotation.workqueue.models import Annotation, Assignment
from annotation.workqueue.services.assignments import assignment_claim
from core import rows
from tests.workqueue.assignment_helpers import ab_tie_campaign

pytestmark = pytest.mark.django_db

CAMPAIGN = rows.part("c", Campaign, ("id", "slug", "rating_schema_id"))
PAIR = rows.part("p", Pair, ("id", "criteria", "campaign_id"))


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
    built = rows.instances(row, [part])["t"]
    expected = model.objects.only(*part.attnames).get(pk=pk)  # the ORM's own read of the same columns
    assert type(built) is model and _fields(built) == _fields(expected) == _fields(model.objects.get(pk=pk))
    assert [type(value) for value in _fields(built).values()] == [type(value) for value in _fields(expected).values()]
    assert (built._state.adding, built._state.db) == (False, connection.alias)
    if model is Prompt:  # orjson refuses integers beyond 64 bits: Django's own decoder reads them
        assert built.content[1] == {"n": 2**70}


@pytest.mark.parametrize("model", [Assignment, Campaign, Pair, Prompt, RatingSchema, Response])
def test_values_are_the_orms_values_of_the_same_columns(model):
    """What the claim's display and the submission's checks read (no instance): on SQLite too, aware datetimes,
    booleans and decoded JSON, as ``values_list`` gives them."""
    campaign, (annotator, *_), (pair, *_) = ab_tie_campaign(pairs=1)
    Prompt.objects.filter(pk=pair.prompt_id).update(content=[{"type": "text", "text": "é ✓"}, {"n": 2**70}])
    assignment = assignment_claim(campaign=campaign, annotator=annotator)
    pk = {Assignment: assignment.pk, Campaign: campaign.pk, Pair: pair.pk, Prompt: pair.prompt_id,
          RatingSchema: campaign.rating_schema_id, Response: pair.response_a_id}[model]
    part, row = _whole_row(model, pk)
    read = rows.values(row, [part])["t"]
    expected = dict(zip(part.attnames, model.objects.values_list(*part.attnames).get(pk=pk), strict=True))
    assert read == expected
    assert [type(value) for value in read.values()] == [type(value) for value in expected.values()]


def test_a_model_whose_descriptor_works_on_assignment_gets_its_descriptor():
    media = Media.objects.create(sha256="a" * 64, kind="image", mime_type="image/png", size=3, file="media/aa.png")
    part, row = _whole_row(Media, media.pk)
    built = rows.instances(row, [part])["t"]
    assert isinstance(built.file, FieldFile) and built.file.name == "media/aa.png"


@contextmanager
def _post_init_heard(sender):
    """The instances of ``sender`` a post_init receiver hears while the block runs."""
    heard = []

    def receiver(sender, instance, **kwargs):
        heard.append(instance)

    signals.post_init.connect(receiver, sender=sender)
    try:
        yield heard
    finally:
        signals.post_init.disconnect(receiver, sender=sender)


def test_receivers_of_init_signals_still_hear_every_instance():
    campaign, _, (pair, *_) = ab_tie_campaign(pairs=1)
    with _post_init_heard(Pair) as heard:
        built = rows.instances(_row(pair), [CAMPAIGN, PAIR])
    assert heard == [built["p"]] and built["c"] == campaign


def test_loaded_is_what_the_constructor_builds_for_the_fields_given_with_the_rest_deferred():
    campaign, (annotator, *_), (pair, *_) = ab_tie_campaign(pairs=1)
    assignment = assignment_claim(campaign=campaign, annotator=annotator)
    given = {"id": assignment.pk, "pair_id": pair.pk, "status": "active", "swapped": assignment.swapped,
             "claimed_at": assignment.claimed_at, "expires_at": assignment.expires_at, "draft": {}}
    built = rows.loaded(Assignment, campaign=campaign, annotator=annotator, **given)
    expected = Assignment(campaign=campaign, annotator=annotator, **given)
    assert _fields(built) == {name: getattr(expected, name) for name in _fields(built)}
    assert (built._state.adding, built._state.db) == (False, connection.alias)
    assert built.get_deferred_fields() == {"finished_at", "skip_reason", "draft_saved_at"}
    with CaptureQueriesContext(connection) as queries:
        assert built.campaign is campaign and built.annotator is annotator  # cached as select_related leaves them
    assert len(queries) == 0
    with CaptureQueriesContext(connection) as queries:
        assert built.skip_reason == ""  # a deferred field loads on access
    assert len(queries) == 1
    assert rows.loaded(Assignment, pk=assignment.pk).get_deferred_fields() == set(given) - {"id"} | {
        "campaign_id", "annotator_id", "finished_at", "skip_reason", "draft_saved_at"
    }


def test_loaded_sets_both_sides_of_a_one_to_one_and_refuses_what_the_constructor_refuses():
    campaign, (annotator, *_), (pair, *_) = ab_tie_campaign(pairs=1)
    assignment = assignment_claim(campaign=campaign, annotator=annotator)
    annotation = rows.loaded(Annotation, id=1, assignment=assignment, annotator=None, pair=pair)
    assert annotation.assignment is assignment and assignment.annotation is annotation  # as Django's descriptor does
    assert (annotation.assignment_id, annotation.annotator_id, annotation.pair_id) == (assignment.pk, None, pair.pk)
    with pytest.raises(ValueError, match="must be a \"Pair\" instance"):
        rows.loaded(Annotation, pair=campaign)
    with pytest.raises(TypeError, match="has no field 'colour'"):
        rows.loaded(Annotation, colour="red")


def test_loaded_goes_through_the_descriptors_when_a_receiver_listens():
    campaign, _, (pair, *_) = ab_tie_campaign(pairs=1)
    with _post_init_heard(Pair) as heard:
        built = rows.loaded(Pair, external_id="x-1", campaign=campaign, id=pair.pk)  # not in the fields' order
    assert heard == [built] and built.campaign is campaign and built.campaign_id == campaign.pk
    assert (built.pk, built.external_id, built._state.adding) == (pair.pk, "x-1", False)
