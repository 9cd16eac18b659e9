"""Curator actions on one pair: each moves the pair exactly as promised, or refuses precisely and changes nothing."""

import pytest

from annotation.catalogue.models import Pair
from core.errors import ApplicationError
from curation.services.curator_actions import (
    pair_exclude,
    pair_extend_overlap,
    pair_mark_gold,
    pair_restore,
    pair_send_to_adjudication,
    pair_unmark_gold,
)
from tests.curation.console.world import make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return make_world()


def snapshot(pair):
    return Pair.objects.values("status", "status_reason", "required_annotations", "is_gold", "gold_answer").get(pk=pair.pk)


def test_extending_the_overlap_of_a_complete_pair_sends_it_back_to_the_queue(world):
    pair = pair_extend_overlap(pair_id=world.pairs["kept"].pk, by=2, actor=world.curator, note="too close to call")
    pair.refresh_from_db()
    assert (pair.required_annotations, pair.status) == (5, Pair.Status.QUEUED)
    assert pair.status_reason == "overlap raised to 5 by console-t2i-curator: too close to call"


@pytest.mark.parametrize(
    ("key", "by", "code"),
    [("kept", 3, "overlap_above_max"), ("dropped", 1, "invalid_status"), ("kept", 0, "invalid_overlap"),
     ("kept", True, "invalid_overlap")],
)
def test_extending_the_overlap_beyond_the_maximum_or_outside_annotation_is_refused(world, key, by, code):
    before = snapshot(world.pairs[key])
    with pytest.raises(ApplicationError) as caught:
        pair_extend_overlap(pair_id=world.pairs[key].pk, by=by, actor=world.curator)
    assert caught.value.code == code
    assert snapshot(world.pairs[key]) == before


def test_a_complete_pair_can_be_sent_to_adjudication_once(world):
    pair_send_to_adjudication(pair_id=world.pairs["kept"].pk, actor=world.curator, note="rationales contradict")
    assert snapshot(world.pairs["kept"])["status"] == Pair.Status.ADJUDICATION
    with pytest.raises(ApplicationError, match="only a queued or complete pair") as caught:
        pair_send_to_adjudication(pair_id=world.pairs["kept"].pk, actor=world.curator)
    assert caught.value.status_code == 409


def test_marking_gold_stores_the_expected_side_and_who_set_it(world):
    pair_mark_gold(pair_id=world.pairs["kept"].pk, side="A", actor=world.curator, note="clear case")
    stored = snapshot(world.pairs["kept"])
    assert stored["is_gold"] is True
    assert {k: stored["gold_answer"][k] for k in ("side", "note", "by")} == {
        "side": "A", "note": "clear case", "by": "console-t2i-curator",
    }
    pair_unmark_gold(pair_id=world.pairs["kept"].pk, actor=world.curator)
    assert snapshot(world.pairs["kept"])["is_gold"] is False
    assert snapshot(world.pairs["kept"])["gold_answer"] is None


@pytest.mark.parametrize(("key", "side", "code"), [("kept", "tie", "invalid_gold_answer"), ("excluded", "A", "invalid_status")])
def test_a_tie_or_an_excluded_pair_cannot_be_gold(world, key, side, code):
    before = snapshot(world.pairs[key])
    with pytest.raises(ApplicationError) as caught:
        pair_mark_gold(pair_id=world.pairs[key].pk, side=side, actor=world.curator)
    assert caught.value.code == code
    assert snapshot(world.pairs[key]) == before


def test_unmarking_a_pair_that_is_not_gold_is_refused(world):
    with pytest.raises(ApplicationError, match="not gold"):
        pair_unmark_gold(pair_id=world.pairs["kept"].pk, actor=world.curator)


def test_excluding_needs_a_reason_and_keeps_the_annotations(world):
    with pytest.raises(ApplicationError, match="say why"):
        pair_exclude(pair_id=world.pairs["kept"].pk, reason="  ", actor=world.curator)
    pair_exclude(pair_id=world.pairs["kept"].pk, reason="prompt leaks the answer", actor=world.curator)
    stored = snapshot(world.pairs["kept"])
    assert (stored["status"], stored["status_reason"]) == ("excluded", "excluded by console-t2i-curator: prompt leaks the answer")
    assert world.pairs["kept"].annotations.count() == 3
    pair_restore(pair_id=world.pairs["kept"].pk, actor=world.curator)
    assert snapshot(world.pairs["kept"])["status"] == Pair.Status.COMPLETE


def test_a_pair_the_prefilter_dropped_is_restored_to_the_queue(world):
    pair_restore(pair_id=world.pairs["dropped"].pk, actor=world.curator, note="judges are biased here")
    stored = snapshot(world.pairs["dropped"])
    assert stored["status"] == Pair.Status.QUEUED
    assert stored["status_reason"].startswith("restored after the pre-filter dropped it by console-t2i-curator")


def test_only_dropped_or_excluded_pairs_can_be_restored(world):
    with pytest.raises(ApplicationError, match="only a pair dropped by the pre-filter or excluded"):
        pair_restore(pair_id=world.pairs["queued"].pk, actor=world.curator)


def test_a_note_longer_than_the_limit_is_refused_and_nothing_changes(world):
    before = snapshot(world.pairs["queued"])
    with pytest.raises(ApplicationError, match="keep it under 150"):
        pair_send_to_adjudication(pair_id=world.pairs["queued"].pk, actor=world.curator, note="x" * 151)
    assert snapshot(world.pairs["queued"]) == before


def test_an_action_on_a_missing_pair_is_a_404():
    with pytest.raises(ApplicationError) as caught:
        pair_exclude(pair_id=999999999, reason="gone")
    assert caught.value.status_code == 404
