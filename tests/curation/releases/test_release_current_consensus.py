"""Curator decisions win: a change to a pair's state invalidates its consensus record at once, and a release
takes only pairs whose current state and current consensus agree, saying how many it left out and why."""

import pytest
from django.core.management import call_command
from django.db.models import F

from annotation.catalogue.models import Pair
from annotation.workqueue.models import Annotation
from core.errors import ApplicationError
from curation.models import ConsensusRecord
from curation.services import curator_actions
from curation.services.consensus import consensus_apply, pair_adjudicate
from curation.services.releases import release_gold, release_publish
from tests.curation.agreement.conftest import add_pairs, make_campaign
from tests.factories import CuratorFactory

pytestmark = pytest.mark.django_db

# Five pairs all kept by mmrb2-generation: A, B, A, B, A.
RATINGS = [[6, 5, 6], [1, 2, 1], [6, 6, 5], [2, 1, 1], [5, 6, 6]]


@pytest.fixture
def decided(releases_root):
    campaign = make_campaign(consensus_policy="mmrb2-generation", slug="edit-wave", max_overlap=5)
    pairs = add_pairs(campaign, RATINGS)
    assert consensus_apply(campaign=campaign)["kept"] == 5
    return campaign, pairs


def published_ids(campaign, version: str):
    release = release_publish(name="decisions", version=version, campaign_slugs=[campaign.slug])
    return release, {g.id for g in release_gold(release=release)}


def test_an_excluded_pair_is_never_published_even_after_consensus_runs_again(decided, client):
    campaign, pairs = decided
    curator_actions.pair_exclude(pair_id=pairs[0].pk, reason="the prompt leaks the answer", actor=CuratorFactory())
    assert ConsensusRecord.objects.get(pair=pairs[0]).stale_reason == "excluded"
    client.force_login(CuratorFactory())
    page = client.get(f"/console/pairs/{pairs[0].pk}/").content.decode()
    assert "out of date (excluded): releases leave this pair out until consensus runs again" in page
    consensus_apply(campaign=campaign)
    release, ids = published_ids(campaign, "1.0.0")
    assert pairs[0].external_id not in ids and len(ids) == 4 == release.pairs_count
    assert release.summary["counts"]["left_out"] == {"excluded": 1}


def test_a_restored_pair_waits_for_consensus_then_ships_again(decided):
    campaign, pairs = decided
    curator = CuratorFactory()
    curator_actions.pair_exclude(pair_id=pairs[1].pk, reason="check the image", actor=curator)
    curator_actions.pair_restore(pair_id=pairs[1].pk, actor=curator, note="image is fine")
    assert ConsensusRecord.objects.get(pair=pairs[1]).stale_reason == "restored"
    release, ids = published_ids(campaign, "1.0.0")
    assert pairs[1].external_id not in ids and release.summary["counts"]["left_out"] == {"restored": 1}
    consensus_apply(campaign=campaign)
    release, ids = published_ids(campaign, "1.1.0")
    assert pairs[1].external_id in ids and release.summary["counts"]["left_out"] == {}


def test_a_pair_whose_overlap_was_extended_is_left_out_until_its_new_rating_is_decided(decided):
    campaign, pairs = decided
    curator_actions.pair_extend_overlap(pair_id=pairs[2].pk, by=1, actor=CuratorFactory(), note="one more view")
    consensus_apply(campaign=campaign)  # three ratings of four: not ready, the stale record stays stale
    release, ids = published_ids(campaign, "1.0.0")
    assert pairs[2].external_id not in ids and release.summary["counts"]["left_out"] == {"overlap_extended": 1}
    Annotation.objects.create(pair=pairs[2], source=Annotation.Source.IMPORTED, rater_label="late", values={"overall": 6})
    Pair.objects.filter(pk=pairs[2].pk).update(annotations_done=4, status=Pair.Status.COMPLETE)
    consensus_apply(campaign=campaign)
    record = ConsensusRecord.objects.get(pair=pairs[2])
    assert (record.stale_reason, record.basis_annotations, record.chosen) == ("", 4, "A")
    assert pairs[2].external_id in published_ids(campaign, "1.1.0")[1]


def test_a_pair_sent_to_adjudication_ships_only_with_the_curators_decision(decided):
    campaign, pairs = decided
    curator = CuratorFactory()
    curator_actions.pair_send_to_adjudication(pair_id=pairs[3].pk, actor=curator, note="B looks wrong")
    assert consensus_apply(campaign=campaign)["decided"] == 4, "the curator's queue is not the policy's to settle"
    assert Pair.objects.get(pk=pairs[3].pk).status == Pair.Status.ADJUDICATION
    release, ids = published_ids(campaign, "1.0.0")
    assert pairs[3].external_id not in ids
    assert release.summary["counts"]["left_out"] == {"sent_to_adjudication": 1}
    pair_adjudicate(pair_id=pairs[3].pk, curator=curator, chosen="A", note="A follows the edit instruction")
    release, ids = published_ids(campaign, "1.1.0")
    assert pairs[3].external_id in ids
    assert {g.id: g.chosen for g in release_gold(release=release)}[pairs[3].external_id] == "A"


def test_a_new_annotation_since_consensus_leaves_the_pair_out_until_consensus_runs_again(decided):
    campaign, pairs = decided
    Annotation.objects.create(pair=pairs[4], source=Annotation.Source.IMPORTED, rater_label="late", values={"overall": 5})
    Pair.objects.filter(pk=pairs[4].pk).update(annotations_done=F("annotations_done") + 1)
    release, ids = published_ids(campaign, "1.0.0")
    assert pairs[4].external_id not in ids
    assert release.summary["counts"]["left_out"] == {"annotated_since_consensus": 1}
    consensus_apply(campaign=campaign)
    assert pairs[4].external_id in published_ids(campaign, "1.1.0")[1]


def test_stale_records_of_another_policy_never_block_publishing(decided, capsys):
    campaign, pairs = decided
    curator_actions.pair_exclude(pair_id=pairs[0].pk, reason="duplicate prompt", actor=CuratorFactory())
    consensus_apply(campaign=campaign, policy="majority", params={"k": 3})
    policies = set(ConsensusRecord.objects.filter(pair__campaign=campaign).values_list("policy", flat=True))
    assert policies == {"mmrb2-generation", "majority"}
    call_command("publish_release", "--campaign", campaign.slug, "--name", "decisions", "--version", "1.0.0")
    out = capsys.readouterr().out
    assert "published decisions@1.0.0 with 4 pairs" in out
    assert "left out 1 kept pairs whose consensus no longer describes them (excluded 1)" in out


def test_in_app_ties_ship_as_ties_and_a_rating_after_more_raters_were_asked_is_decided_before_release(releases_root):
    """Through the work queue itself: two raters say tie (kept as a tie); the curator asks for a third rater,
    whose rating arrives by the real submit path; the pair ships only once consensus has seen it."""
    from annotation.workqueue.services.assignments import assignment_claim
    from tests.workqueue.assignment_helpers import ab_tie_campaign, submit

    campaign, annotators, (pair,) = ab_tie_campaign(overlap=2, pairs=1, slug="ab-wave")
    for annotator in annotators[:2]:
        submit(assignment_claim(campaign=campaign, annotator=annotator), values={"preference": "tie"})
    assert consensus_apply(campaign=campaign)["chosen"] == {"A": 0, "B": 0, "tie": 1}
    assert {g.chosen for g in release_gold(release=published_ids(campaign, "1.0.0")[0])} == {"tie"}
    curator_actions.pair_extend_overlap(pair_id=pair.pk, by=1, actor=CuratorFactory())
    submit(assignment_claim(campaign=campaign, annotator=annotators[2]), values={"preference": "A"})
    pair.refresh_from_db()
    assert (pair.status, pair.annotations_done) == (Pair.Status.COMPLETE, 3)
    with pytest.raises(ApplicationError, match=r"'ab-wave' has no kept consensus records that are current "
                                               r"\(overlap_extended 1 left out\); run consensus before publishing"):
        published_ids(campaign, "1.1.0")
    consensus_apply(campaign=campaign)
    assert ConsensusRecord.objects.get(pair=pair).basis_annotations == 3
    assert {g.chosen for g in release_gold(release=published_ids(campaign, "1.1.0")[0])} == {"tie"}
