"""A curator's adjudication settles single pairs on top of the campaign's consensus policy: the campaign
can still be released, and the release says how many pairs were adjudicated."""

import pytest

from curation.models import ConsensusRecord
from curation.services.consensus import pair_adjudicate
from curation.services.curator_actions import pair_send_to_adjudication
from curation.services.releases import release_publish
from tests.curation.console.world import make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def releases_root(settings, tmp_path):
    settings.CONCORD_RELEASES_ROOT = tmp_path / "releases"
    settings.CONCORD_RELEASES_S3 = {**settings.CONCORD_RELEASES_S3, "bucket": ""}


def test_a_campaign_with_an_adjudicated_pair_publishes_under_its_policy(releases_root):
    world = make_world()
    split = world.pairs["split"]
    pair_send_to_adjudication(pair_id=split.pk, actor=world.curator, note="raters split three ways")
    pair_adjudicate(pair_id=split.pk, curator=world.curator, chosen="B", note="B draws both objects")
    assert ConsensusRecord.objects.get(pair=split).policy == "adjudication"
    release = release_publish(name="adjudicated-bench", version="1.0.0", campaign_slugs=[world.campaign.slug])
    assert release.status == "published" and release.pairs_count == 2
    assert release.params["policies"][world.campaign.slug] == {"policy": "mmrb2-generation", "params": {}, "adjudicated": 1}


def test_a_campaign_settled_only_by_adjudication_publishes_under_adjudication(releases_root):
    world = make_world()
    ConsensusRecord.objects.filter(pair__campaign=world.campaign).delete()
    split = world.pairs["split"]
    pair_send_to_adjudication(pair_id=split.pk, actor=world.curator)
    pair_adjudicate(pair_id=split.pk, curator=world.curator, chosen="A", note="A is right on inspection")
    release = release_publish(name="hand-bench", version="1.0.0", campaign_slugs=[world.campaign.slug])
    assert release.pairs_count == 1
    assert release.params["policies"][world.campaign.slug] == {"policy": "adjudication", "params": {}, "adjudicated": 1}
