"""The next pair shown ahead: its blind display and media before the claim, without a lease."""

import pytest
from django.core.cache import cache
from django.test import Client

from annotation.catalogue.models import Media, Pair
from annotation.workqueue.models import Assignment
from annotation.workqueue.services.assignments import annotation_submit
from tests.factories import UserFactory
from tests.frontend.workspace_pairs import SECRET, add_pair, make_pair

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
