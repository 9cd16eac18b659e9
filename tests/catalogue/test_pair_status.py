"""A pair's status follows its counts: no queued pair holds all its ratings (the database refuses one), and a
campaign's new overlap, applied to its pairs, moves their statuses with their counts."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from annotation.catalogue.models import Pair
from annotation.catalogue.selectors import campaign_overlap_change
from annotation.catalogue.services.campaigns import campaign_update
from annotation.catalogue.services.pair_status import ADJUDICATED, pair_status_refresh, pairs_overlap_apply
from annotation.workqueue.models import Annotation
from annotation.workqueue.services.assignments import assignment_claim
from tests.factories import AnnotationFactory, CampaignFactory, PairFactory, UserFactory

pytestmark = pytest.mark.django_db


def rated(campaign, done: int, *, status=Pair.Status.COMPLETE, **fields) -> Pair:
    """A pair of ``campaign`` holding ``done`` imported ratings."""
    pair = PairFactory(campaign=campaign, status=Pair.Status.EXCLUDED, **fields)
    for _ in range(done):
        AnnotationFactory(pair=pair)
    Pair.objects.filter(pk=pair.pk).update(annotations_done=done, status=status)
    pair.refresh_from_db()
    return pair


def counts(pair: Pair) -> tuple[str, int, int]:
    return Pair.objects.filter(pk=pair.pk).values_list("status", "required_annotations", "annotations_done").get()


def test_the_database_refuses_a_queued_pair_that_holds_all_its_ratings():
    campaign = CampaignFactory(overlap=2)
    pair = rated(campaign, 2)
    with pytest.raises(IntegrityError), transaction.atomic():
        Pair.objects.filter(pk=pair.pk).update(status=Pair.Status.QUEUED)
    with pytest.raises(IntegrityError), transaction.atomic():
        Pair.objects.filter(pk=pair.pk).update(status=Pair.Status.QUEUED, required_annotations=1)
    Pair.objects.filter(pk=pair.pk).update(status=Pair.Status.QUEUED, required_annotations=3)
    assert counts(pair) == ("queued", 3, 2), "a queued pair missing a rating is fine"
    with pytest.raises(IntegrityError), transaction.atomic():
        Pair.objects.filter(pk=pair.pk).update(annotations_done=3)


def test_refreshing_moves_queued_and_complete_pairs_with_their_counts_and_no_other_status():
    campaign = CampaignFactory(overlap=3)
    short = rated(campaign, 2)
    adjudicated = rated(campaign, 1, status_reason=ADJUDICATED)
    others = [rated(campaign, 1, status=status) for status in
              (Pair.Status.EXCLUDED, Pair.Status.ADJUDICATION, Pair.Status.PENDING, Pair.Status.DROPPED_EASY)]
    assert pair_status_refresh(pair_ids=[short.pk, adjudicated.pk, *(p.pk for p in others)]) == 1
    assert counts(short) == ("queued", 3, 2)
    assert counts(adjudicated)[0] == "complete", "a curator's adjudication is final"
    assert [counts(p)[0] for p in others] == ["excluded", "adjudication", "pending", "dropped_easy"]


def test_a_raised_overlap_applied_to_the_existing_pairs_requeues_the_complete_ones():
    """Eight pairs rated 3 times make 24 / 24; overlap 4 applied asks for 32 and every pair can be claimed."""
    campaign = CampaignFactory(overlap=3)
    pairs = [rated(campaign, 3) for _ in range(8)]
    kept = [rated(campaign, 3, status=Pair.Status.EXCLUDED), rated(campaign, 3, status=Pair.Status.ADJUDICATION),
            rated(campaign, 3, status_reason=ADJUDICATED)]
    assert campaign_overlap_change(campaign=campaign, overlap=4) == {"pairs": 8, "requeued": 8, "completed": 0}
    campaign_update(campaign=campaign, overlap=4, apply_to_existing=True)
    assert {counts(p) for p in pairs} == {("queued", 4, 3)}
    assert [counts(p) for p in kept] == [("excluded", 3, 3), ("adjudication", 3, 3), ("complete", 3, 3)]
    rater = UserFactory()
    campaign.members.add(rater)
    assert assignment_claim(campaign=campaign, annotator=rater).pair_id in {p.pk for p in pairs}


def test_a_new_overlap_not_applied_changes_no_pair():
    campaign = CampaignFactory(overlap=3)
    pair = rated(campaign, 3)
    campaign_update(campaign=campaign, overlap=4)
    assert counts(pair) == ("complete", 3, 3)


def test_a_lowered_overlap_completes_queued_pairs_that_hold_it_and_keeps_curators_extensions_and_leases():
    campaign = CampaignFactory(overlap=3, max_overlap=6)
    holds_two = rated(campaign, 2, status=Pair.Status.QUEUED)
    holds_one = rated(campaign, 1, status=Pair.Status.QUEUED)
    extended = rated(campaign, 2, status=Pair.Status.QUEUED, required_annotations=5)
    pending = rated(campaign, 2, status=Pair.Status.PENDING)
    leased = rated(campaign, 1, status=Pair.Status.QUEUED)
    rater = UserFactory()
    campaign.members.add(rater)
    Pair.objects.exclude(pk=leased.pk).filter(campaign=campaign).update(priority=-1)
    assert assignment_claim(campaign=campaign, annotator=rater).pair_id == leased.pk
    assert campaign_overlap_change(campaign=campaign, overlap=1) == {"pairs": 4, "requeued": 0, "completed": 2}
    assert pairs_overlap_apply(campaign=campaign, before=3, after=1) == 4
    assert counts(holds_two) == ("complete", 1, 2)
    assert counts(holds_one) == ("complete", 1, 1)
    assert counts(extended) == ("queued", 5, 2), "a curator's extension above the old overlap stays"
    assert counts(pending) == ("pending", 1, 2), "the pre-filter still decides it; its count follows"
    assert counts(leased) == ("queued", 2, 1), "the lease taken keeps its slot"


@pytest.mark.django_db(transaction=True)
def test_the_migration_completes_the_pairs_left_queued_with_all_their_ratings():
    campaign = CampaignFactory(overlap=2)
    stranded, waiting = rated(campaign, 3), rated(campaign, 1)
    Pair.objects.filter(pk=waiting.pk).update(status=Pair.Status.QUEUED)
    executor = MigrationExecutor(connection)
    # Every app's latest migration: going back in annotation also unapplies what other apps built on it since
    # (curation's tables with a foreign key to a pair), which the rest of the run needs back.
    after = executor.loader.graph.leaf_nodes()
    ours = executor.loader.get_migration("annotation", "0005_pair_status_follows_counts")
    executor.migrate([dep for dep in ours.dependencies if dep[0] == "annotation"])
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {Pair._meta.db_table} SET status = 'queued', required_annotations = 3 WHERE id = %s",
                       [stranded.pk])
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)
    assert counts(stranded) == ("complete", 3, 3)
    assert counts(waiting) == ("queued", 2, 1)
    assert Annotation.objects.filter(pair=stranded).count() == 3
