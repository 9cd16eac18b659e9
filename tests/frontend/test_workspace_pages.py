"""The workspace pages over HTTP with the real assignment engine: blind rendering of every kind, access, flow."""

import json
import re

import pytest
from django.urls import reverse

from annotation.catalogue import content
from annotation.catalogue.models import Media
from annotation.workqueue.models import Assignment
from annotation.workqueue.selectors import pair_display
from annotation.workqueue.services.assignments import annotation_submit, assignment_claim, assignment_save_draft
from frontend.templatetags.workspace import IMAGE_SIZES
from tests.factories import UserFactory
from tests.frontend.workspace_pairs import KIND_PRESETS, SECRET, make_pair

pytestmark = pytest.mark.django_db


def config_of(html: str) -> dict:
    return json.loads(re.search(r'<script id="workspace-config" type="application/json">(.*?)</script>', html, re.S).group(1))


def open_next(client, campaign):
    """Claim through the page, as the Start button does, and return the annotation page's HTML: the claim answers
    with the page itself (no redirect), naming its own address for the address bar."""
    response = client.post(reverse("workspace-next", args=[campaign.slug]))
    assert response.status_code == 200
    html = response.content.decode()
    assignment = Assignment.objects.get(campaign=campaign, annotator=response.wsgi_request.user, status=Assignment.Status.ACTIVE)
    assert config_of(html)["urls"]["page"] == reverse("workspace-annotate", args=[assignment.pk])
    return html


@pytest.mark.parametrize("kind", list(KIND_PRESETS))
def test_each_kind_renders_blind_with_every_medium_by_digest(client, kind):
    annotator = UserFactory()
    pair = make_pair(kind, annotators=[annotator])
    client.force_login(annotator)
    html = open_next(client, pair.campaign)
    assert SECRET not in html.lower()
    blocks = pair.prompt.content + pair.response_a.content + pair.response_b.content
    for media in Media.objects.filter(sha256__in=content.media_digests(blocks)):
        assert f"/media/{media.sha256}.{media.file.name.rsplit('.', 1)[1]}" in html
    assert html.count('class="side"') == 2
    if kind == "reasoning":
        assert '<span class="kn">from</span>' in html and '<span class="n">count_peaks</span>' in html
        assert html.count("data-final-answer") == 2 and "Step 3" in html
    if kind == "image-editing":
        assert html.count("data-compare-input") == 2
    if kind == "text-to-image":
        assert html.count("data-zoom-frame") == 2
    if kind == "interleaved":
        assert "data-sync-scroll-toggle" in html
    if kind == "audio-to-text":
        assert "<audio controls" in html and 'data-criterion="Answers in one sentence"' in html


def test_the_page_and_its_config_point_at_the_annotators_own_assignment(client):
    annotator = UserFactory()
    pair = make_pair("text-to-image", annotators=[annotator])
    client.force_login(annotator)
    config = config_of(open_next(client, pair.campaign))
    assignment = Assignment.objects.get(pair=pair, annotator=annotator)
    assert config["assignment"] == assignment.pk
    slug = pair.campaign.slug
    assert config["urls"] == {
        "draft": f"/api/v1/assignments/{assignment.pk}/draft/",
        "submit": f"/api/v1/assignments/{assignment.pk}/submit/",
        "skip": f"/api/v1/assignments/{assignment.pk}/skip/",
        "renewal": f"/api/v1/assignments/{assignment.pk}/renewal/",
        "report": f"/api/v1/assignments/{assignment.pk}/report/",
        "check": f"/api/v1/assignments/{assignment.pk}/check/",
        "page": f"/work/assignments/{assignment.pk}/",
        "claim": f"/api/v1/campaigns/{slug}/claim/",
        "next": f"/work/campaigns/{slug}/next/",
        "queue": f"/work/campaigns/{slug}/",
        "stats": f"/api/v1/me/stats/?campaign={slug}",
    }
    assert config["assignment_urls"]["submit"] == "/api/v1/assignments/{assignment}/submit/"
    assert config["consistency_check"] is True, "the generation rubrics can contradict the overall preference"
    assert config["pair_key"] == pair_display(assignment=assignment)["pair_key"]


def test_the_next_pair_is_prepared_as_its_page_without_a_lease(client):
    """GET next/ is the page of the pair the next claim most likely gives: the same sides and pair key as the claim
    will show, no assignment, no lease, no instructions popping up; 204 when nothing is left."""
    annotator = UserFactory()
    pair = make_pair("text-to-image", annotators=[annotator])
    client.force_login(annotator)
    prepared = client.get(reverse("workspace-next", args=[pair.campaign.slug]))
    assert prepared.status_code == 200 and not Assignment.objects.exists()
    html = prepared.content.decode()
    assert SECRET not in html.lower()
    config = config_of(html)
    assert (config["assignment"], config["show_instructions"]) == (None, False)
    assert "draft" not in config["urls"] and "Yours until" not in html
    claimed = client.post(f"/api/v1/campaigns/{pair.campaign.slug}/claim/").json()
    assert claimed["pair_key"] == config["pair_key"]
    assert client.get(reverse("workspace-next", args=[pair.campaign.slug])).status_code == 204, "nothing left"


def test_images_ask_for_the_rendition_that_fits_their_box_and_the_prefetch_asks_the_same(client):
    """A response image is at most a side pane wide, a prompt image at most 40vw: ``sizes`` says so (the 640 px
    rendition at 1440 px), and the config hands the same to prefetch.js, so the next page finds them cached."""
    annotator = UserFactory()
    pair = make_pair("image-editing", annotators=[annotator])
    client.force_login(annotator)
    html = open_next(client, pair.campaign)
    assert config_of(html)["image_sizes"] == IMAGE_SIZES
    assert f'sizes="{IMAGE_SIZES["response"]}"' in html and f'sizes="{IMAGE_SIZES["prompt"]}"' in html
    assert "50vw, 100vw" not in html


def test_instructions_open_on_the_first_visit_only(client):
    annotator = UserFactory()
    pair = make_pair("text-to-image", annotators=[annotator])
    client.force_login(annotator)
    queue = client.get(reverse("workspace-queue", args=[pair.campaign.slug])).content.decode()
    assert re.search(r"data-instructions\s+open", queue) and "<strong>blind</strong>" in queue
    first = open_next(client, pair.campaign)
    assert config_of(first)["show_instructions"] is True
    again = client.get(reverse("workspace-annotate", args=[config_of(first)["assignment"]])).content.decode()
    assert config_of(again)["show_instructions"] is False
    assert 'id="instructions"' in again  # still one keystroke away
    queue = client.get(reverse("workspace-queue", args=[pair.campaign.slug])).content.decode()
    assert not re.search(r"data-instructions\s+open", queue)


def test_the_draft_comes_back_on_reload_in_the_orientation_shown(client):
    annotator = UserFactory()
    pair = make_pair("text-to-image", annotators=[annotator])
    assignment = assignment_claim(campaign=pair.campaign, annotator=annotator)
    assignment_save_draft(assignment=assignment, annotator=annotator, values={"overall": 6, "image_quality": {"B": 0}})
    client.force_login(annotator)
    html = client.get(reverse("workspace-annotate", args=[assignment.pk])).content.decode()
    assert re.search(r'name="overall" value="6" data-key="1" checked', html)  # 1: the left response, much better
    assert re.search(r'name="image_quality.B" value="0" data-key="0" checked', html)
    assert 'data-state="saved"' in html


def test_someone_elses_assignment_and_a_campaign_one_is_not_in_are_not_found(client):
    owner, other = UserFactory(), UserFactory()
    pair = make_pair("text-to-image", annotators=[owner])
    assignment = assignment_claim(campaign=pair.campaign, annotator=owner)
    client.force_login(other)
    assert client.get(reverse("workspace-annotate", args=[assignment.pk])).status_code == 404
    assert client.get(reverse("workspace-queue", args=[pair.campaign.slug])).status_code == 404
    assert client.post(reverse("workspace-next", args=[pair.campaign.slug])).status_code == 404
    assert not Assignment.objects.filter(annotator=other).exists()


def test_pages_need_a_login(client):
    response = client.get(reverse("workspace-campaigns"))
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_a_submitted_pair_opens_its_review_and_a_queue_with_nothing_left_offers_no_start(client):
    annotator = UserFactory()
    pair = make_pair("reasoning", annotators=[annotator])
    assignment = assignment_claim(campaign=pair.campaign, annotator=annotator)
    annotation_submit(assignment=assignment, annotator=annotator, idempotency_key="k-1", time_on_item_ms=30_000,
                      values={"correctness": {"A": 1, "B": 5}, "rationale": "B is wrong", "prompt_valid": True})
    client.force_login(annotator)
    response = client.get(reverse("workspace-annotate", args=[assignment.pk]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("workspace-review", args=[assignment.pk])
    assert "Submitted; you can still change it." in response.content.decode()
    queue = client.get(reverse("workspace-queue", args=[pair.campaign.slug])).content.decode()
    assert "Nothing is left for you to rate in this campaign" in queue and "data-start" not in queue
    response = client.post(reverse("workspace-next", args=[pair.campaign.slug]), follow=True)
    assert "Nothing is left for you in this campaign" in response.content.decode()


def test_the_campaign_list_and_my_page_show_what_the_annotator_did(client):
    annotator = UserFactory()
    pair = make_pair("reasoning", annotators=[annotator])
    make_pair("text-to-image", annotators=[UserFactory()], seed=2)  # not a member: not listed
    assignment = assignment_claim(campaign=pair.campaign, annotator=annotator)
    annotation_submit(assignment=assignment, annotator=annotator, idempotency_key="k-2", time_on_item_ms=48_000,
                      values={"correctness": {"A": 2, "B": 2}, "rationale": "both fine", "prompt_valid": True})
    client.force_login(annotator)
    listing = client.get(reverse("workspace-campaigns")).content.decode()
    assert "Workspace reasoning" in listing and "Workspace text-to-image" not in listing
    assert "1 / 1 pairs complete" in listing
    mine = client.get(reverse("workspace-me")).content.decode()
    today = mine.split('data-period="today"')[1].split('data-period="overall"')[0]
    assert "<b>1</b>pairs rated" in today and "<b>48 s</b>" in today
    assert SECRET not in (listing + mine).lower()


def test_hostile_content_is_shown_as_text_never_run(client):
    """Scripts, handlers and javascript: links in a response, a criterion or a tool name stay inert."""
    annotator = UserFactory()
    pair = make_pair("audio-to-text", annotators=[annotator])
    hostile = '<script>alert("x")</script><img src=x onerror="alert(1)">[click](javascript:alert(2))'
    pair.response_a.content = [
        {"type": "text", "text": hostile, "format": "markdown"},
        {"type": "tool_call", "name": "<script>bad()</script>", "arguments": {"q": "</script><script>alert(3)</script>"},
         "result": []},
        {"type": "final_answer", "text": hostile},
    ]
    pair.response_a.save()
    pair.criteria = ['"><script>alert(4)</script>']
    pair.save()
    client.force_login(annotator)
    html = open_next(client, pair.campaign)
    assert "<script>alert" not in html and "<script>bad" not in html
    assert "onerror" not in html and "javascript:" not in html
    assert html.count("<script") == 2  # the page's own: its config (JSON) and its module
    assert 'data-criterion="&quot;&gt;&lt;script&gt;alert(4)&lt;/script&gt;"' in html  # shown, as text
