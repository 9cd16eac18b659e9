"""The work queue as a specification: who gets which pair, for how long, and what a submission stores."""

import json
import random
import re
from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from annotation.catalogue import schemas
from annotation.catalogue.models import Campaign, Pair
from annotation.catalogue.services.media import media_store
from annotation.workqueue.models import Annotation, Assignment, AssignmentEvent
from annotation.workqueue.rules import gold_matches, orientation_swapped
from annotation.workqueue.selectors import annotator_stats, assignment_for_annotator, pair_display, pair_key
from annotation.workqueue.services import assignments
from annotation.workqueue.services.assignments import (
    annotation_submit,
    assignment_claim,
    assignment_save_draft,
    assignment_skip,
    assignments_expire,
)
from annotation.workqueue.store import postgresql as postgresql_store
from core.errors import ApplicationError
from tests.catalogue.test_media import png_bytes
from tests.factories import CampaignFactory, PairFactory, PromptFactory, ResponseFactory, UserFactory
from tests.workqueue.assignment_helpers import AB_TIE_ANSWER, ab_tie_campaign, plan_nodes, submit

pytestmark = pytest.mark.django_db


def test_a_claim_is_a_lease_recorded_with_its_time():
    campaign, (rater, *_), pairs = ab_tie_campaign(lease_minutes=45)
    now = timezone.now()
    assignment = assignment_claim(campaign=campaign, annotator=rater, now=now)
    assert assignment.status == Assignment.Status.ACTIVE
    assert assignment.pair == pairs[0]
    assert assignment.expires_at == now + timedelta(minutes=45)
    assert Pair.objects.get(pk=pairs[0].pk).active_claims == 1
    event = AssignmentEvent.objects.get(assignment=assignment)
    assert (event.kind, event.at, event.annotator, event.campaign) == ("claim", now, rater, campaign)


def test_a_second_claim_resumes_the_open_lease():
    campaign, (rater, *_), _ = ab_tie_campaign()
    first = assignment_claim(campaign=campaign, annotator=rater)
    assert assignment_claim(campaign=campaign, annotator=rater) == first
    assert Assignment.objects.count() == 1


def test_an_annotator_never_gets_the_same_pair_twice_and_then_gets_nothing():
    campaign, (rater, *_), pairs = ab_tie_campaign(pairs=4)
    seen = []
    while (assignment := assignment_claim(campaign=campaign, annotator=rater)) is not None:
        seen.append(assignment.pair_id)
        submit(assignment)
    assert sorted(seen) == sorted(p.pk for p in pairs)
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(
            pair=pairs[0], campaign=campaign, annotator=rater, status="skipped", swapped=False,
            claimed_at=timezone.now(), expires_at=timezone.now(),
        )


def test_a_pair_never_has_more_live_claims_and_annotations_than_its_overlap():
    campaign, raters, (pair,) = ab_tie_campaign(overlap=2, pairs=1, members=4)
    first = assignment_claim(campaign=campaign, annotator=raters[0])
    submit(first)
    assert assignment_claim(campaign=campaign, annotator=raters[1]).pair == pair
    assert assignment_claim(campaign=campaign, annotator=raters[2]) is None
    pair.refresh_from_db()
    assert (pair.annotations_done, pair.active_claims, pair.status) == (1, 1, Pair.Status.QUEUED)
    with pytest.raises(IntegrityError), transaction.atomic():
        Pair.objects.filter(pk=pair.pk).update(active_claims=F("active_claims") + 1)


def test_the_last_annotation_completes_the_pair():
    campaign, raters, (pair,) = ab_tie_campaign(overlap=2, pairs=1)
    for rater in raters[:2]:
        submit(assignment_claim(campaign=campaign, annotator=rater))
    pair.refresh_from_db()
    assert (pair.annotations_done, pair.active_claims, pair.status) == (2, 0, Pair.Status.COMPLETE)


def test_pairs_in_progress_are_finished_before_fresh_ones_are_opened():
    campaign, raters, pairs = ab_tie_campaign(overlap=3, pairs=3)
    submit(assignment_claim(campaign=campaign, annotator=raters[0]))
    assert assignment_claim(campaign=campaign, annotator=raters[1]).pair == pairs[0]
    assert assignment_claim(campaign=campaign, annotator=raters[2]).pair == pairs[0]


def test_a_higher_priority_pair_comes_first_even_before_pairs_in_progress():
    campaign, raters, pairs = ab_tie_campaign(overlap=3, pairs=3)
    submit(assignment_claim(campaign=campaign, annotator=raters[0]))
    Pair.objects.filter(pk=pairs[2].pk).update(priority=5)
    assert assignment_claim(campaign=campaign, annotator=raters[1]).pair == pairs[2]
    assert assignment_claim(campaign=campaign, annotator=raters[2]).pair == pairs[2]


def _annotate_alone(campaign, rater, count):
    done = []
    for _ in range(count):
        assignment = assignment_claim(campaign=campaign, annotator=rater)
        done.append(assignment.pair_id)
        submit(assignment)
    return done


def _claim_expecting(campaign, rater, pair):
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    assert assignment.pair == pair
    return assignment


def test_an_annotator_far_ahead_of_the_others_gets_every_pair_once_then_nothing(monkeypatch):
    # Their own pairs, waiting for the others, fill the head of the claim's walk many times over.
    monkeypatch.setattr(postgresql_store, "CLAIM_HEAD", 2)
    campaign, (rater, other, _), pairs = ab_tie_campaign(overlap=3, pairs=7)
    assert _annotate_alone(campaign, rater, 7) == [p.pk for p in pairs]
    assert assignment_claim(campaign=campaign, annotator=rater) is None
    assert assignment_claim(campaign=campaign, annotator=other).pair == pairs[0]


def test_a_fresh_pair_the_annotator_skipped_is_not_offered_to_them_again(monkeypatch):
    monkeypatch.setattr(postgresql_store, "CLAIM_HEAD", 2)
    campaign, (rater, *_), pairs = ab_tie_campaign(overlap=3, pairs=5)
    _annotate_alone(campaign, rater, 2)
    skipped = _claim_expecting(campaign, rater, pairs[2])
    assignment_skip(assignment=skipped, annotator=rater, reason="unreadable")
    assert Pair.objects.get(pk=pairs[2].pk).active_claims == 0  # fresh again, but not for them
    assert assignment_claim(campaign=campaign, annotator=rater).pair == pairs[3]


def test_beyond_a_full_head_a_pair_in_progress_of_higher_priority_still_comes_first(monkeypatch):
    monkeypatch.setattr(postgresql_store, "CLAIM_HEAD", 2)
    campaign, (ahead, other, _), pairs = ab_tie_campaign(overlap=3, pairs=6)
    Pair.objects.filter(pk__in=[p.pk for p in pairs[:4]]).update(priority=5)
    assert _annotate_alone(campaign, ahead, 2) == [pairs[0].pk, pairs[1].pk]
    for pair in pairs[:4]:  # another annotator follows, then opens the rest of priority 5
        submit(_claim_expecting(campaign, other, pair))
    # The head (pairs 0 and 1) is all theirs, no fresh pair of priority 5 is left: the walk goes on
    # past the head to pair 2, in progress, rather than opening a fresh pair of priority 0.
    assert assignment_claim(campaign=campaign, annotator=ahead).pair == pairs[2]


def test_an_annotator_whose_backlog_fills_the_head_opens_a_fresh_pair_of_the_same_priority(postgres_only, monkeypatch):
    # The one way the PostgreSQL claim differs from the plain walk (documented at claim_sql): a pair in
    # progress beyond a head full of the annotator's own pairs is left to the others.
    monkeypatch.setattr(postgresql_store, "CLAIM_HEAD", 2)
    campaign, (ahead, other, _), pairs = ab_tie_campaign(overlap=3, pairs=5)
    _annotate_alone(campaign, ahead, 2)
    submit(_claim_expecting(campaign, other, pairs[0]))
    submit(_claim_expecting(campaign, other, pairs[1]))
    submit(_claim_expecting(campaign, other, pairs[2]))
    assert assignment_claim(campaign=campaign, annotator=ahead).pair == pairs[3]


def test_the_claim_reads_a_bounded_part_of_the_queue_whatever_the_annotators_backlog(postgres_only, monkeypatch):
    monkeypatch.setattr(postgresql_store, "CLAIM_HEAD", 4)
    campaign, (rater, *_), _ = ab_tie_campaign(overlap=3, pairs=40)
    _annotate_alone(campaign, rater, 30)
    params = postgresql_store.claim_params(campaign=campaign.pk, annotator=rater, gold=False, now=timezone.now())
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("ANALYZE annotation_pair, annotation_assignment")
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + postgresql_store.claim_sql(), params)
        plan = cursor.fetchone()[0]
        transaction.set_rollback(True)
    picked = next(node for node in plan_nodes(plan[0]["Plan"]) if node.get("Subplan Name") == "CTE picked")
    head, fresh, walk = picked["Plans"]  # the three arms of the COALESCE, in order
    heads = [node for node in plan_nodes(head) if node["Node Type"] == "Subquery Scan"]
    # The head's entries were read (all the annotator's own), the fresh pair was taken, and the walk
    # over the 30 pairs of their backlog never ran.
    assert [node["Actual Rows"] for node in heads] == [postgresql_store.CLAIM_HEAD]
    assert (head["Actual Rows"], fresh["Actual Rows"], walk["Actual Loops"]) == (0, 1, 0)


def test_gold_pairs_are_mixed_in_at_the_campaign_rate():
    campaign, (rater, *_), regular = ab_tie_campaign(overlap=1, pairs=40, members=1, gold_rate=0.25)
    gold = [PairFactory(campaign=campaign, is_gold=True, gold_answer={"preference": "A"}) for _ in range(40)]
    draws = random.Random(7)
    expected = [draws.random() < 0.25 for _ in range(30)]
    rng = random.Random(7)
    got = []
    for _ in range(30):
        assignment = assignment_claim(campaign=campaign, annotator=rater, rng=rng)
        got.append(assignment.pair.is_gold)
        submit(assignment)
    assert got == expected
    assert 0 < sum(got) < 30
    assert {p.pk for p in gold} & set(Assignment.objects.values_list("pair_id", flat=True))
    assert {p.pk for p in regular} & set(Assignment.objects.values_list("pair_id", flat=True))


def test_a_campaign_without_gold_rate_never_serves_its_gold_pairs():
    campaign, (rater, *_), _ = ab_tie_campaign(overlap=1, pairs=2, members=1, gold_rate=0.0)
    PairFactory(campaign=campaign, is_gold=True, gold_answer={"preference": "A"}, priority=9)
    served = []
    while (assignment := assignment_claim(campaign=campaign, annotator=rater)) is not None:
        served.append(assignment.pair.is_gold)
        submit(assignment)
    assert served == [False, False]


def test_a_claim_that_draws_gold_when_none_is_left_gets_a_regular_pair_and_then_nothing():
    # The claim statement looks for the kind drawn (gold, at a rate of 1); the service then looks for the other.
    campaign, (rater, *_), (pair,) = ab_tie_campaign(overlap=1, pairs=1, members=1, gold_rate=1.0)
    gold = PairFactory(campaign=campaign, is_gold=True, gold_answer={"preference": "A"})
    served = []
    while (assignment := assignment_claim(campaign=campaign, annotator=rater, rng=random.Random(3))) is not None:
        served.append(assignment.pair)
        submit(assignment)
    assert served == [gold, pair]


def test_an_expired_lease_returns_its_slot_to_the_next_claim_without_beat():
    campaign, raters, (pair,) = ab_tie_campaign(overlap=1, pairs=1, lease_minutes=30)
    now = timezone.now()
    first = assignment_claim(campaign=campaign, annotator=raters[0], now=now)
    assert assignment_claim(campaign=campaign, annotator=raters[1], now=now + timedelta(minutes=29)) is None
    second = assignment_claim(campaign=campaign, annotator=raters[1], now=now + timedelta(minutes=31))
    assert second.pair == pair
    first.refresh_from_db()
    assert first.status == Assignment.Status.EXPIRED
    assert AssignmentEvent.objects.filter(assignment=first, kind="expire").count() == 1
    pair.refresh_from_db()
    assert pair.active_claims == 1


def test_the_expiry_task_returns_every_overdue_slot_once():
    from annotation.workqueue.tasks import assignments_expire_task

    campaign, raters, pairs = ab_tie_campaign(overlap=1, pairs=3, lease_minutes=30)
    past = timezone.now() - timedelta(hours=1)
    assignment_claim(campaign=campaign, annotator=raters[2])
    for rater in raters[:2]:
        assignment_claim(campaign=campaign, annotator=rater, now=past)
    assert assignments_expire_task.delay().get() == 2
    assert assignments_expire() == 0
    assert Pair.objects.filter(active_claims=1).count() == 1
    assert AssignmentEvent.objects.filter(kind="expire").count() == 2


def test_an_annotator_whose_own_lease_expired_moves_on_to_another_pair():
    campaign, (rater, *_), pairs = ab_tie_campaign(overlap=1, pairs=2)
    now = timezone.now()
    first = assignment_claim(campaign=campaign, annotator=rater, now=now)
    second = assignment_claim(campaign=campaign, annotator=rater, now=now + timedelta(hours=1))
    assert second.pair != first.pair
    assert Pair.objects.get(pk=first.pair_id).active_claims == 0


def test_an_annotators_own_stale_lease_is_expired_even_beyond_the_lazy_batch(monkeypatch):

    monkeypatch.setattr(assignments, "LAZY_EXPIRY_BATCH", 1)
    campaign, raters, _ = ab_tie_campaign(overlap=1, pairs=3)
    long_ago = timezone.now() - timedelta(hours=3)
    assignment_claim(campaign=campaign, annotator=raters[1], now=long_ago)
    own = assignment_claim(campaign=campaign, annotator=raters[0], now=long_ago + timedelta(minutes=1))
    fresh = assignment_claim(campaign=campaign, annotator=raters[0])
    assert fresh.pair != own.pair
    assert set(Assignment.objects.filter(status="expired").values_list("annotator", flat=True)) == {raters[0].pk, raters[1].pk}


def test_an_expired_lease_may_still_be_submitted_while_its_slot_is_free():
    campaign, (rater, *_), (pair,) = ab_tie_campaign(overlap=1, pairs=1)
    assignment = assignment_claim(campaign=campaign, annotator=rater, now=timezone.now() - timedelta(hours=1))
    assert assignments_expire() == 1
    annotation = submit(assignment)
    pair.refresh_from_db()
    assert (pair.annotations_done, pair.active_claims, pair.status) == (1, 0, Pair.Status.COMPLETE)
    assert AssignmentEvent.objects.get(kind="submit").detail["after_expiry"] is True
    assert annotation.assignment == assignment


def test_an_expired_lease_whose_slot_was_retaken_is_refused_and_stores_nothing():
    campaign, raters, (pair,) = ab_tie_campaign(overlap=1, pairs=1)
    stale = assignment_claim(campaign=campaign, annotator=raters[0], now=timezone.now() - timedelta(hours=1))
    assert assignment_claim(campaign=campaign, annotator=raters[1]).pair == pair
    with pytest.raises(ApplicationError) as refused:
        submit(stale)
    assert (refused.value.code, refused.value.status_code) == ("lease_expired", 409)
    assert Annotation.objects.count() == 0
    pair.refresh_from_db()
    assert (pair.annotations_done, pair.active_claims) == (0, 1)


def test_a_skip_needs_a_reason_releases_the_slot_and_is_recorded():
    campaign, raters, (pair,) = ab_tie_campaign(overlap=1, pairs=1)
    assignment = assignment_claim(campaign=campaign, annotator=raters[0])
    with pytest.raises(ApplicationError, match="Say why"):
        assignment_skip(assignment=assignment, annotator=raters[0], reason="   ")
    skipped = assignment_skip(assignment=assignment, annotator=raters[0], reason="image does not load")
    assert (skipped.status, skipped.skip_reason) == ("skipped", "image does not load")
    assert AssignmentEvent.objects.get(kind="skip").detail["reason"] == "image does not load"
    assert assignment_skip(assignment=assignment, annotator=raters[0], reason="again").skip_reason == "image does not load"
    assert Pair.objects.get(pk=pair.pk).active_claims == 0
    assert assignment_claim(campaign=campaign, annotator=raters[0]) is None
    assert assignment_claim(campaign=campaign, annotator=raters[1]).pair == pair
    with pytest.raises(ApplicationError) as refused:
        submit(skipped)
    assert refused.value.code == "assignment_skipped"


def test_only_members_get_work_and_only_from_active_campaigns():
    campaign, (rater, *_), _ = ab_tie_campaign()
    outsider = UserFactory()
    with pytest.raises(ApplicationError) as refused:
        assignment_claim(campaign=campaign, annotator=outsider)
    assert (refused.value.status_code, refused.value.code) == (403, "not_a_member")
    Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.PAUSED)
    campaign.refresh_from_db()
    assert assignment_claim(campaign=campaign, annotator=rater) is None
    assert Assignment.objects.count() == 0


def test_sides_are_fixed_per_pair_and_annotator_by_the_campaign_seed():
    campaign, raters, pairs = ab_tie_campaign(overlap=3, pairs=12, members=3)
    orientations = []
    for rater in raters:
        while (assignment := assignment_claim(campaign=campaign, annotator=rater)) is not None:
            assert assignment.swapped == orientation_swapped(campaign.orientation_seed, assignment.pair_id, rater.pk)
            orientations.append(assignment.swapped)
            submit(assignment)
    assert len(orientations) == 36
    assert 0 < sum(orientations) < 36
    assert orientation_swapped("seed", 1, 2) == orientation_swapped("seed", 1, 2)


def _swapped_assignment(campaign, rater):
    """The first assignment this rater is shown with B on the left (skipping the others)."""
    while True:
        assignment = assignment_claim(campaign=campaign, annotator=rater)
        if assignment.swapped:
            return assignment
        assignment_skip(assignment=assignment, annotator=rater, reason="looking for a swapped one")


def test_answers_given_as_shown_are_stored_in_canonical_orientation_with_the_orientation_shown():
    schema = schemas.preset("mmrb2-generation", "text-to-image")
    campaign = CampaignFactory(rating_schema__definition=schema)
    rater = UserFactory()
    campaign.members.add(rater)
    for _ in range(20):
        PairFactory(campaign=campaign)
    assignment = _swapped_assignment(campaign, rater)
    shown = {
        "text_faithfulness": {"A": 3, "B": 1},
        "image_quality": {"A": 2, "B": 0},
        "overall": 6,
        "rationale": "left is much better",
        "prompt_valid": True,
    }
    annotation = submit(assignment, values=shown)
    assert annotation.shown_swapped is True
    assert annotation.values["overall"] == 1
    assert annotation.values["text_faithfulness"] == {"A": 1, "B": 3}
    assert annotation.rationale == "left is much better"
    assert schemas.reorient(schema, annotation.values, swapped=True) == shown


def test_a_double_submit_creates_exactly_one_annotation():
    campaign, (rater, *_), (pair,) = ab_tie_campaign(pairs=1)
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    first = submit(assignment, key="click-1")
    assert submit(assignment, key="click-1") == first
    assert submit(assignment, key="retry-after-timeout") == first
    assert Annotation.objects.count() == 1
    assert Pair.objects.get(pk=pair.pk).annotations_done == 1
    assert AssignmentEvent.objects.filter(kind="submit").count() == 1


def test_an_idempotency_key_names_one_assignment_so_reusing_it_for_another_stores_that_one_too():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=2, overlap=1)
    first = submit(assignment_claim(campaign=campaign, annotator=rater), key="same")
    second = assignment_claim(campaign=campaign, annotator=rater)
    stored = submit(second, key="same")
    assert stored != first and stored.assignment_id == second.pk
    assert Assignment.objects.get(pk=second.pk).status == "submitted"
    assert Annotation.objects.count() == 2


def test_two_raters_may_use_the_same_idempotency_key():
    campaign, raters, (pair,) = ab_tie_campaign(pairs=1)
    for rater in raters[:2]:
        submit(assignment_claim(campaign=campaign, annotator=rater), key="1")
    assert Annotation.objects.filter(pair=pair).count() == 2


@pytest.mark.parametrize(
    ("values", "field"),
    [({}, "preference"), ({"preference": "C"}, "preference"), ({"preference": "A", "model": "x"}, "model")],
)
def test_invalid_answers_are_refused_per_field_and_nothing_changes(values, field):
    campaign, (rater, *_), (pair,) = ab_tie_campaign(pairs=1)
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    with pytest.raises(ApplicationError) as refused:
        annotation_submit(assignment=assignment, annotator=rater, values=values, time_on_item_ms=5, idempotency_key="k")
    assert refused.value.code == "invalid_answers"
    assert field in refused.value.extra["fields"]
    assert Annotation.objects.count() == 0
    assert Assignment.objects.get(pk=assignment.pk).status == "active"
    assert Pair.objects.get(pk=pair.pk).active_claims == 1


@pytest.mark.parametrize("bad", [-1, 10**12, True, "12"])
def test_a_nonsensical_time_on_item_is_refused(bad):
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    with pytest.raises(ApplicationError, match="time_on_item_ms"):
        submit(assignment, time_on_item_ms=bad)


def test_someone_elses_assignment_cannot_be_submitted_skipped_or_drafted():
    campaign, (owner, intruder, _), _ = ab_tie_campaign(pairs=1)
    assignment = assignment_claim(campaign=campaign, annotator=owner)
    for call in (
        lambda: annotation_submit(assignment=assignment, annotator=intruder, values=AB_TIE_ANSWER,
                                  time_on_item_ms=1, idempotency_key="k"),
        lambda: assignment_skip(assignment=assignment, annotator=intruder, reason="mine now"),
        lambda: assignment_save_draft(assignment=assignment, annotator=intruder, values={}),
        lambda: assignment_for_annotator(assignment_id=assignment.pk, annotator=intruder),
    ):
        with pytest.raises(ApplicationError) as refused:
            call()
        assert refused.value.status_code == 404
    assert Assignment.objects.get(pk=assignment.pk).status == "active"


def test_gold_outcomes_are_recorded_for_quality():
    campaign, raters, _ = ab_tie_campaign(pairs=0, overlap=3)
    gold = PairFactory(campaign=campaign, is_gold=True, gold_answer={"preference": "A"})
    Campaign.objects.filter(pk=campaign.pk).update(gold_rate=1.0)
    campaign.refresh_from_db()
    outcomes = {}
    for rater, canonical in zip(raters, ["A", "B", "tie"], strict=True):
        assignment = assignment_claim(campaign=campaign, annotator=rater)
        assert assignment.pair == gold
        shown = schemas.reorient(campaign.rating_schema.definition, {"preference": canonical}, swapped=assignment.swapped)
        outcomes[canonical] = submit(assignment, values=shown).gold_correct
    assert outcomes == {"A": True, "B": False, "tie": False}
    assert sorted(AssignmentEvent.objects.filter(kind="submit").values_list("detail__gold_correct", flat=True)) == [
        False, False, True,
    ]


def test_gold_matching_compares_the_preferred_side_of_a_scale():
    definition = schemas.preset("mmrb2-generation", "text-to-image")
    assert gold_matches(definition, {"overall": 6}, {"overall": 4}) is True
    assert gold_matches(definition, {"overall": 6}, {"overall": 3}) is False
    assert gold_matches(definition, {"prompt_valid": True}, {"prompt_valid": True}) is True
    assert gold_matches(definition, {"overall": 6}, {}) is False
    assert gold_matches(definition, None, {"overall": 6}) is None


def test_a_draft_keeps_partial_answers_and_renews_the_lease():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1, lease_minutes=10)
    now = timezone.now()
    assignment = assignment_claim(campaign=campaign, annotator=rater, now=now)
    later = now + timedelta(minutes=8)
    saved = assignment_save_draft(assignment=assignment, annotator=rater, values={"rationale": "half"}, now=later)
    assert (saved.draft, saved.draft_saved_at, saved.expires_at) == ({"rationale": "half"}, later, later + timedelta(minutes=10))
    assert AssignmentEvent.objects.filter(kind="draft").count() == 1
    with pytest.raises(ApplicationError) as refused:
        assignment_save_draft(assignment=assignment, annotator=rater, values={"model_name": "x"})
    assert refused.value.code == "invalid_draft"
    submit(assignment)
    with pytest.raises(ApplicationError) as refused:
        assignment_save_draft(assignment=assignment, annotator=rater, values={"rationale": "late"})
    assert refused.value.status_code == 409


def _hostile_pair(campaign):
    """A pair whose every identifier carries a model name, and whose media and text try to leak it too."""
    prompt = PromptFactory(campaign=campaign, external_id="oneig_gpt-image-1_vs_flux-pro_0042")
    image_a = media_store(data=png_bytes(color=(1, 2, 3)), name="gpt-image-1_0042.png")
    image_b = media_store(data=png_bytes(color=(3, 2, 1)), name="flux-pro_0042.png")
    response_a = ResponseFactory(
        prompt=prompt,
        model_name="gpt-image-1",
        content=[{"type": "image", "media": image_a.sha256, "alt": "gpt-image-1_0042.png"},
                 {"type": "text", "text": "Made by GPT-IMAGE-1.", "format": "plain"}],
    )
    response_b = ResponseFactory(
        prompt=prompt,
        model_name="flux-pro",
        content=[{"type": "image", "media": image_b.sha256, "alt": "a red square"},
                 {"type": "tool_call", "name": "crop", "arguments": {"path": "out/flux-pro/1.png"}, "result": []},
                 {"type": "text", "text": "As Claude, I made it.", "format": "plain"}],
    )
    pair = PairFactory(
        campaign=campaign, prompt=prompt, response_a=response_a, response_b=response_b,
        external_id="gpt-image-1__vs__flux-pro__0042", criteria=["Which follows flux-pro style rules better?"],
        self_identification=[{"term": "Claude", "response": "b", "text": "As Claude, I made it."}],
    )
    pair.media.add(image_a, image_b)
    return pair, image_a, image_b


def test_display_data_is_blind_and_follows_the_orientation_shown(client):
    campaign, (rater, other, _), _ = ab_tie_campaign(pairs=0, instructions="Judge the images.")
    pair, image_a, image_b = _hostile_pair(campaign)
    claimed = assignment_claim(campaign=campaign, annotator=rater)
    assignment = assignment_for_annotator(assignment_id=claimed.pk, annotator=rater)
    display = pair_display(assignment=assignment)
    # The claim's display comes from its own statement's row (Assignment.shown on PostgreSQL), the re-read's from
    # the ORM's instances: the two are the same display.
    assert pair_display(assignment=claimed) == display
    text = json.dumps(display, default=str).lower()
    for secret in ("gpt-image-1", "flux-pro", "oneig", "external", "model_name", "claude"):
        assert secret not in text, secret
    assert set(display) == {"assignment", "pair_key", "campaign", "kind", "instructions", "prompt", "left", "right",
                            "criteria", "schema", "draft", "status", "expires_at"}
    assert re.fullmatch(r"[0-9a-f]{20}", display["pair_key"]), "opaque: an HMAC under the site's secret"
    assert pair_key(pair.pk, other.pk) != display["pair_key"], "and each annotator's own"
    left, right = (image_b, image_a) if assignment.swapped else (image_a, image_b)
    assert display["left"][0]["url"] == f"/media/{left.sha256}.png"
    assert display["right"][0]["url"] == f"/media/{right.sha256}.png"
    assert "is_gold" not in display and "gold_answer" not in text
    assert (display["campaign"], display["instructions"]) == (campaign.slug, "Judge the images.")
    client.force_login(rater)
    assert client.get(display["left"][0]["url"]).status_code == 200
    client.force_login(other)
    assert client.get(display["left"][0]["url"]).status_code == 404


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Made by GPT-Image-1 today", "Made by [hidden] today"),
        ("plain text, nothing to hide", "plain text, nothing to hide"),
        ("Naïve gpt-image-1 über", "Naïve [hidden] über"),
        ("\u212aimi-vl said so", "[hidden] said so"),  # KELVIN SIGN: folded to "k"
        ("flux-pro-kimi-vl", "[hidden]-[hidden]"),
        ("flux-pro-vl", "[hidden]"),  # "flux-pro" and "pro-vl" overlap: hidden as one span, no tail left
    ],
)
def test_hidden_strings_match_case_insensitively(text, expected):
    from annotation.catalogue.masking import Mask

    hidden = Mask(["gpt-image-1", "flux-pro", "kimi-vl", "pro-vl"])
    assert hidden.redact(text) == expected
    assert Mask(["modèle-x"]).redact("MODÈLE-X wrote it") == "[hidden] wrote it"
    assert Mask([]).redact("anything") == "anything"


def test_my_statistics_count_today_and_overall_with_the_median_time_on_item():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=4, overlap=1)
    for ms in (1000, 3000, 8000):
        submit(assignment_claim(campaign=campaign, annotator=rater), time_on_item_ms=ms)
    assignment_skip(assignment=assignment_claim(campaign=campaign, annotator=rater), annotator=rater, reason="broken")
    Assignment.objects.filter(status="submitted", annotation__time_on_item_ms=8000).update(
        finished_at=timezone.now() - timedelta(days=2)
    )
    Annotation.objects.filter(time_on_item_ms=8000).update(created_at=timezone.now() - timedelta(days=2))
    stats = annotator_stats(annotator=rater)
    assert stats["today"] == {"submitted": 2, "skipped": 1, "median_time_on_item_ms": 2000.0}
    assert stats["overall"] == {"submitted": 3, "skipped": 1, "median_time_on_item_ms": 3000.0}
    (row,) = stats["campaigns"]
    assert (row["slug"], row["submitted"], row["skipped"], row["pairs_total"], row["pairs_complete"]) == (
        campaign.slug, 3, 1, 4, 3,
    )
    assert row["has_open_assignment"] is False


# Outside a transaction (as served), where PostgreSQL's submission starts with its unlocked read.
@pytest.mark.django_db(transaction=True)
def test_no_one_submits_an_assignment_that_is_not_theirs():
    campaign, (rater, other, *_), (pair, *_) = ab_tie_campaign(pairs=2)
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    with pytest.raises(ApplicationError) as refused:
        annotation_submit(assignment=Assignment(pk=assignment.pk), annotator=other, values=AB_TIE_ANSWER,
                          time_on_item_ms=10, idempotency_key="not-mine")
    assert (refused.value.code, refused.value.status_code) == ("not_found", 404)
    assert Annotation.objects.count() == 0
    assert Assignment.objects.get(pk=assignment.pk).status == "active"
