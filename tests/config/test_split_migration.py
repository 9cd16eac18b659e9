"""A database populated before the apps were split keeps every row, and reads it through the new apps' models."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

# The schema as it was on main before the split: every model under the ``annotation`` label.
BEFORE_SPLIT = [
    ("annotation", "0015_merge_media_played"),
    ("curation", "0004_merge_ties_and_prefilter"),
    ("catalogue", None),
    ("workqueue", None),
    ("core", None),
]


def _migrate(targets) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor


def _populate(apps) -> dict:
    """One of everything the split moved, written through the models as they were before it."""
    now = timezone.now()
    user = apps.get_model("annotation", "User").objects.create(username="rater", role="annotator")
    schema = apps.get_model("annotation", "RatingSchema").objects.create(slug="pref", definition={"questions": []})
    source = apps.get_model("annotation", "SourceDataset").objects.create(name="mmrb2", title="MMRB2", license="other")
    campaign = apps.get_model("annotation", "Campaign").objects.create(
        slug="before", name="Before", kind="text-to-image", rating_schema=schema
    )
    campaign.members.add(user)
    campaign.sources.add(source)
    media = apps.get_model("annotation", "Media").objects.create(
        sha256="a" * 64, kind="image", mime_type="image/png", size=3, file="media/a.png"
    )
    prompt = apps.get_model("annotation", "Prompt").objects.create(campaign=campaign, external_id="p1")
    response = apps.get_model("annotation", "Response")
    a = response.objects.create(prompt=prompt, model_name="model-a", content=[], content_sha256="1" * 64)
    b = response.objects.create(prompt=prompt, model_name="model-b", content=[], content_sha256="2" * 64)
    pair = apps.get_model("annotation", "Pair").objects.create(
        campaign=campaign, prompt=prompt, response_a=a, response_b=b, external_id="pair-1", annotations_done=1
    )
    pair.media.add(media)
    assignment = apps.get_model("annotation", "Assignment").objects.create(
        pair=pair, campaign=campaign, annotator=user, status="submitted", swapped=True, claimed_at=now,
        expires_at=now, finished_at=now,
    )
    annotation = apps.get_model("annotation", "Annotation").objects.create(
        pair=pair, assignment=assignment, annotator=user, values={"overall": "A"}, rationale="sharper"
    )
    apps.get_model("annotation", "AnnotationRevision").objects.create(
        assignment=assignment, kind="submitted", values={"overall": "A"}, at=now
    )
    apps.get_model("annotation", "AssignmentEvent").objects.create(
        assignment=assignment, campaign=campaign, annotator=user, kind="submit", at=now
    )
    job = apps.get_model("annotation", "Job").objects.create(kind="agreement", campaign=campaign, created_by=user)
    apps.get_model("curation", "AgreementReport").objects.create(campaign=campaign, job=job, report={})
    content_type = apps.get_model("contenttypes", "ContentType").objects.get_or_create(app_label="annotation", model="pair")[0]
    return {"user": user.pk, "campaign": campaign.pk, "pair": pair.pk, "annotation": annotation.pk, "job": job.pk,
            "media": media.pk, "pair_content_type": content_type.pk}


@pytest.mark.django_db(transaction=True)
def test_a_database_populated_before_the_split_keeps_every_row_after_it():
    """Migrating from the pre-split schema moves no table and loses no row; the new models read the old rows, and
    the content types (what permissions point at) follow the models to their new labels."""
    executor = _migrate(BEFORE_SPLIT)
    ids = _populate(executor.loader.project_state(BEFORE_SPLIT[:2]).apps)
    tables_before = set(connection.introspection.table_names())

    _migrate(executor.loader.graph.leaf_nodes())

    from catalogue.models import Campaign, Media, Pair
    from core.models import Job
    from curation.models import AgreementReport
    from workqueue.models import Annotation, AnnotationRevision, Assignment, AssignmentEvent

    assert set(connection.introspection.table_names()) == tables_before
    pair = Pair.objects.select_related("campaign__rating_schema", "response_a", "response_b").get(pk=ids["pair"])
    assert (pair.campaign.slug, pair.response_a.model_name, pair.response_b.model_name) == ("before", "model-a", "model-b")
    assert list(pair.media.values_list("pk", flat=True)) == [ids["media"]]
    campaign = Campaign.objects.get(pk=ids["campaign"])
    assert list(campaign.members.values_list("username", flat=True)) == ["rater"]
    assert list(campaign.sources.values_list("name", flat=True)) == ["mmrb2"]
    annotation = Annotation.objects.select_related("assignment", "annotator").get(pk=ids["annotation"])
    assert (annotation.values, annotation.rationale, annotation.assignment.swapped) == ({"overall": "A"}, "sharper", True)
    assert annotation.annotator == get_user_model().objects.get(pk=ids["user"])
    assert AnnotationRevision.objects.filter(assignment=annotation.assignment).count() == 1
    assert AssignmentEvent.objects.filter(assignment=annotation.assignment, kind="submit").count() == 1
    assert Assignment.objects.filter(annotator_id=ids["user"]).count() == 1
    assert Job.objects.get(pk=ids["job"]).campaign_id == ids["campaign"]
    assert AgreementReport.objects.get(job_id=ids["job"]).campaign_id == ids["campaign"]
    assert Media.objects.count() == 1
    moved = ContentType.objects.get(pk=ids["pair_content_type"])
    assert (moved.app_label, moved.model) == ("catalogue", "pair")
    assert ContentType.objects.get_for_model(Pair).pk == ids["pair_content_type"]
