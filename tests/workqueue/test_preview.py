"""The next pair shown ahead: its blind display and media before the claim, without a lease."""

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from annotation.catalogue.models import CalibrationItem, Media, Pair
from annotation.workqueue.models import Assignment, RaterPause
from annotation.workqueue.profile import DEFAULT_QUESTIONS
from annotation.workqueue.rules import orientation_swapped
from annotation.workqueue.services import qualification as q
from annotation.workqueue.services.assignments import annotation_submit
from annotation.workqueue.services.profile import campaign_questionnaire_set, profile_answer_save, questionnaire_create
from tests.factories import UserFactory
from tests.frontend.workspace_pairs import SECRET, add_pair, make_campaign, make_pair

pytestmark = pytest.mark.django_db

ANSWER = {"text_faithfulness": {"A": 3, "B": 2}, "image_quality": {"A": 2, "B": 1}, "overall": 5,
          "rationale": "A is closer", "prompt_valid": True}


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _media_urls(display: dict) -> list[str]:
    return [block["url"] for part in ("prompt", "left", "right") for block in display[part] if block.get("url")]


def test_the_preview_is_the_next_claim_as_it_will_be_shown_and_takes_no_lease():
    cache.clear()
    rater = UserFactory(username="preview-rater")
    first = make_pair("text-to-image", annotators=[rater], seed=11)
    second = add_pair(first.campaign, seed=12, priority=-1)
    client = _client(rater)
    current = client.post(f"/api/v1/campaigns/{first.campaign.slug}/claim/").json()
    leases = Assignment.objects.count()

    preview = client.get(f"/api/v1/campaigns/{first.campaign.slug}/next-preview/")
    assert preview.status_code == 200
    shown = preview.json()
    assert (shown["assignment"], shown["expires_at"]) == (None, None)
    assert SECRET not in preview.content.decode().lower()
    assert Assignment.objects.count() == leases and Pair.objects.get(pk=second.pk).active_claims == 0
    urls = _media_urls(shown)
    assert urls and all(client.get(url).status_code == 200 for url in urls), "its media load before the claim"

    annotation_submit(assignment=Assignment.objects.get(pk=current["assignment"]), annotator=rater, values=ANSWER,
                      time_on_item_ms=1000, idempotency_key="preview-1")
    claimed = client.post(f"/api/v1/campaigns/{first.campaign.slug}/claim/").json()
    assert Assignment.objects.get(pk=claimed["assignment"]).pair_id == second.pk
    same = ("pair_key", "prompt", "left", "right", "criteria", "schema", "kind", "campaign", "instructions")
    assert {k: shown[k] for k in same} == {k: claimed[k] for k in same}, "the same pair, the same sides"
    assert client.get(f"/api/v1/campaigns/{first.campaign.slug}/next-preview/").status_code == 204, "nothing left"


def test_media_of_a_pair_neither_held_nor_previewed_stay_404_and_non_members_get_no_preview():
    cache.clear()
    rater, outsider = UserFactory(username="preview-a"), UserFactory(username="preview-b")
    first = make_pair("text-to-image", annotators=[rater], seed=13)
    add_pair(first.campaign, seed=14, priority=-1)
    client = _client(rater)
    for media in Media.objects.all():
        assert client.get(f"/media/{media.sha256}.png").status_code == 404
    assert _client(outsider).get(f"/api/v1/campaigns/{first.campaign.slug}/next-preview/").status_code == 404
    shown = client.get(f"/api/v1/campaigns/{first.campaign.slug}/next-preview/").json()
    previewed = {url.split("/")[2].split(".")[0] for url in _media_urls(shown)}
    others = Media.objects.exclude(sha256__in=previewed)
    assert others.exists()
    for media in others:
        assert client.get(f"/media/{media.sha256}.png").status_code == 404, "only the previewed pair's media"


def _refusals(client, slug: str) -> tuple:
    """(the claim's status and code, the preview's status and code)."""
    claim = client.post(f"/api/v1/campaigns/{slug}/claim/")
    preview = client.get(f"/api/v1/campaigns/{slug}/next-preview/")
    return ((claim.status_code, claim.json().get("code")),
            (preview.status_code, preview.json().get("code") if preview.status_code != 200 else None))


def test_no_pair_is_shown_ahead_before_the_raters_profile_is_answered_the_preview_refuses_as_the_claim():
    cache.clear()
    rater = UserFactory(username="preview-unprofiled")
    first = make_pair("text-to-image", annotators=[rater], seed=15)
    questionnaire = questionnaire_create(slug="preview-about", title="About you", questions=DEFAULT_QUESTIONS)
    campaign_questionnaire_set(campaign=first.campaign, questionnaire=questionnaire)
    client = _client(rater)

    assert _refusals(client, first.campaign.slug) == ((403, "profile_required"), (403, "profile_required"))
    assert client.get(f"/work/campaigns/{first.campaign.slug}/next/").status_code == 204, "the prepared page neither"
    for media in Media.objects.all():
        assert client.get(f"/media/{media.sha256}.png").status_code == 404, "no media granted ahead"
    assert Assignment.objects.count() == 0

    profile_answer_save(user=rater, questionnaire=questionnaire,
                        raw={"expertise": ["Video"], "languages": ["English"], "years": 3})
    shown = client.get(f"/api/v1/campaigns/{first.campaign.slug}/next-preview/")
    assert shown.status_code == 200 and shown.json()["assignment"] is None


def test_no_pair_is_shown_ahead_before_admission_or_during_a_pause_the_preview_refuses_as_the_claim():
    cache.clear()
    rater = UserFactory(username="preview-unqualified")
    campaign = make_campaign("text-to-image", annotators=[rater], seed=16)
    calibration = [add_pair(campaign, seed=160 + n) for n in range(2)]
    add_pair(campaign, seed=170)
    q.calibration_items_add(campaign=campaign, rows=[
        {"pair": pair.external_id, "expected": {"overall": 6}, "explanation": "A draws every object asked for."}
        for pair in calibration])
    q.campaign_qualification_set(campaign=campaign, round_size=2, pass_mark=1.0)
    client = _client(rater)

    refused = _refusals(client, campaign.slug)
    assert refused == ((403, "qualification_required"), (403, "qualification_required"))
    preview = client.get(f"/api/v1/campaigns/{campaign.slug}/next-preview/").json()
    assert "calibration pairs" in preview["message"] and preview["extra"]["can_start_round"] is True
    assert Assignment.objects.count() == 0

    round_ = q.qualification_round_start(user=rater, campaign=campaign)
    for item_id in round_.items:
        item = CalibrationItem.objects.get(pk=item_id)
        left = not orientation_swapped(campaign.orientation_seed, item.pair_id, rater.pk)
        q.calibration_answer_submit(user=rater, round_id=round_.pk, item_id=item_id, values={
            **ANSWER, "overall": 6 if left else 1})
    assert client.get(f"/api/v1/campaigns/{campaign.slug}/next-preview/").status_code == 200, "admitted: shown ahead"

    RaterPause.objects.create(rater=rater, campaign=campaign, paused_at=timezone.now(), gold_answers=3, gold_correct=0,
                              upper=0.56, message="Paused: the last 3 gold pairs matched 0 of 3.")
    assert _refusals(client, campaign.slug) == ((403, "paused_recalibrate"), (403, "paused_recalibrate"))
