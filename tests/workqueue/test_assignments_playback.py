"""The fraction heard or watched, stored with the annotation, and a campaign that requires it in full.

In the SQLite leg too (``make test-sqlite``): the submission has a hand-written statement on PostgreSQL and a
portable twin, and both store and refuse alike.
"""

import pytest

from annotation.catalogue.models import Campaign, Pair
from annotation.workqueue.models import Annotation, Assignment
from annotation.workqueue.playback import media_played_canonical, playback_shortfall
from annotation.workqueue.services.assignments import assignment_claim, assignment_skip
from core.errors import ApplicationError
from tests.workqueue.assignment_helpers import ab_tie_campaign, submit

pytestmark = pytest.mark.django_db


def _audio_campaign(**fields):
    campaign, raters, pairs = ab_tie_campaign(pairs=20, **fields)
    Campaign.objects.filter(pk=campaign.pk).update(kind="text-to-audio")
    campaign.refresh_from_db()
    return campaign, raters, pairs


def _claim_shown(campaign, rater, *, swapped: bool) -> Assignment:
    """The first assignment this rater is shown with the given orientation (skipping the others)."""
    while True:
        assignment = assignment_claim(campaign=campaign, annotator=rater)
        if assignment.swapped == swapped:
            return assignment
        assignment_skip(assignment=assignment, annotator=rater, reason="looking for an orientation")


def test_the_share_played_is_stored_as_shown_when_a_is_on_the_left():
    campaign, (rater, *_), _ = _audio_campaign()
    annotation = submit(_claim_shown(campaign, rater, swapped=False), media_played={"A": 1.0, "B": 0.4})
    assert Annotation.objects.get(pk=annotation.pk).media_played == {"A": 1.0, "B": 0.4}


def test_the_share_played_is_stored_in_canonical_orientation_when_b_was_shown_left():
    campaign, (rater, *_), _ = _audio_campaign()
    annotation = submit(_claim_shown(campaign, rater, swapped=True), media_played={"A": 1.0, "B": 0.4})
    stored = Annotation.objects.get(pk=annotation.pk)
    assert stored.shown_swapped is True
    assert stored.media_played == {"A": 0.4, "B": 1.0}


def test_a_pair_without_audio_or_video_stores_no_share_played():
    campaign, (rater, *_), _ = ab_tie_campaign()
    annotation = submit(assignment_claim(campaign=campaign, annotator=rater), media_played={})
    assert Annotation.objects.get(pk=annotation.pk).media_played is None


def test_a_campaign_requiring_full_playback_refuses_a_short_side_naming_it_as_shown_and_stores_nothing():
    campaign, (rater, *_), _ = _audio_campaign(requires_full_playback=True)
    assignment = _claim_shown(campaign, rater, swapped=True)
    with pytest.raises(ApplicationError) as refused:
        submit(assignment, media_played={"A": 1.0, "B": 0.5})
    assert refused.value.code == "media_not_played"
    assert refused.value.status_code == 400
    assert refused.value.extra == {"sides": ["B"]}
    assert "play response B to the end (at least 98%)" in refused.value.message
    assert not Annotation.objects.exists()
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.ACTIVE
    assert Pair.objects.get(pk=assignment.pair_id).annotations_done == 0


def test_a_campaign_requiring_full_playback_refuses_a_submission_that_reports_nothing_played():
    campaign, (rater, *_), _ = _audio_campaign(requires_full_playback=True)
    with pytest.raises(ApplicationError, match="play response A and response B to the end"):
        submit(assignment_claim(campaign=campaign, annotator=rater))
    assert not Annotation.objects.exists()


def test_a_campaign_requiring_full_playback_takes_a_player_that_stops_within_the_tolerance():
    campaign, (rater, *_), _ = _audio_campaign(requires_full_playback=True)
    annotation = submit(_claim_shown(campaign, rater, swapped=False), media_played={"A": 0.98, "B": 1.0})
    assert Annotation.objects.get(pk=annotation.pk).media_played == {"A": 0.98, "B": 1.0}


def test_a_campaign_without_the_requirement_takes_a_partly_played_pair():
    campaign, (rater, *_), _ = _audio_campaign()
    assert submit(assignment_claim(campaign=campaign, annotator=rater), media_played={"A": 0.1, "B": 0.0}).pk


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        ({"C": 1.0}, "Unknown side(s) in media_played: C"),
        ({"A": 1.5}, "The share played must be a number from 0 to 1 (side A)."),
        ({"A": "all"}, "The share played must be a number from 0 to 1 (side A)."),
        ([1.0, 1.0], 'media_played is an object of "A", "B" or "prompt"'),
    ],
)
def test_a_malformed_share_played_is_refused_with_a_precise_message_and_nothing_stored(sent, message):
    campaign, (rater, *_), _ = _audio_campaign()
    with pytest.raises(ApplicationError, match=message.replace("(", r"\(").replace(")", r"\)")) as refused:
        submit(assignment_claim(campaign=campaign, annotator=rater), media_played=sent)
    assert refused.value.code == "invalid_media_played"
    assert not Annotation.objects.exists()


def test_the_rules_of_playback_without_a_database():
    assert media_played_canonical({"prompt": 0.5}, swapped=True) == {"prompt": 0.5}
    assert playback_shortfall({"prompt": 0.97}, kind="audio-to-text") == ["prompt"]
    assert playback_shortfall(None, kind="text-to-image") == []
