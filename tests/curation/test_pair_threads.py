"""A disputed pair's discussion: curators post, invite the pair's raters, who see it masked and under pseudonyms;
the thread never reaches a release."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.workqueue.models import Assignment
from annotation.workqueue.services.assignments import assignment_claim
from curation.models import PairComment
from tests.factories import CuratorFactory, ResponseFactory
from tests.workqueue.assignment_helpers import ab_tie_campaign, submit

pytestmark = pytest.mark.django_db


def _api(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


@pytest.fixture
def rated():
    """One pair rated by two raters; response A is by "clearwriter-70b", shown swapped to the first rater."""
    campaign, (first, second, _), (pair,) = ab_tie_campaign(overlap=2, pairs=1)
    pair.response_a = ResponseFactory(prompt=pair.prompt, model_name="clearwriter-70b")
    pair.save(update_fields=["response_a"])
    assignments = []
    for rater, swapped, answer in ((first, True, "A"), (second, False, "B")):
        assignment = assignment_claim(campaign=campaign, annotator=rater)
        Assignment.objects.filter(pk=assignment.pk).update(swapped=swapped)
        assignment.refresh_from_db()
        submit(assignment, {"preference": answer})
        assignments.append(assignment)
    return pair, (first, second), assignments, CuratorFactory(username="cora")


def test_a_rater_sees_the_thread_only_once_invited_masked_and_under_pseudonyms(rated):
    pair, (first, second), (a1, a2), curator = rated
    posted = _api(curator).post(f"/api/v1/console/pairs/{pair.pk}/thread/",
                                {"body": "Is clearwriter-70b's answer\nreally better?"}, format="json")
    assert posted.status_code == 201 and posted.json()["messages"][0]["author"] == "Curator · cora"
    assert _api(first).get(f"/api/v1/assignments/{a1.pk}/thread/").status_code == 404

    invited = _api(curator).post(f"/api/v1/console/pairs/{pair.pk}/thread/invite/")
    assert invited.json() == {"invited": 2, "already_invited": 0, "raters": 2}
    seen = _api(first).get(f"/api/v1/assignments/{a1.pk}/thread/").json()
    assert seen["you"] == "Rater 1" and seen["a_shown_on"] == "right"
    (message,) = seen["messages"]
    assert message["author"] == "Curator" and "clearwriter" not in message["body"].lower()
    assert message["body"].endswith("answer\nreally better?"), "the line break is kept"

    reply = _api(first).post(f"/api/v1/assignments/{a1.pk}/thread/", {"body": "B's colours are off."}, format="json")
    assert reply.status_code == 201
    as_second = _api(second).get(f"/api/v1/assignments/{a2.pk}/thread/").json()
    assert [m["author"] for m in as_second["messages"]] == ["Curator", "Rater 1"]
    assert first.username not in str(as_second) and second.username not in str(as_second)
    as_curator = _api(curator).get(f"/api/v1/console/pairs/{pair.pk}/thread/").json()
    assert as_curator["messages"][1]["author"] == f"Rater 1 · {first.username}"
    assert as_curator["invited"] == [f"Rater 1 · {first.username}", f"Rater 2 · {second.username}"]
    again = _api(curator).post(f"/api/v1/console/pairs/{pair.pk}/thread/invite/").json()
    assert again == {"invited": 0, "already_invited": 2, "raters": 2}


def test_empty_long_and_unauthorised_messages_are_refused_and_nothing_is_stored(rated):
    pair, (first, _), (a1, _), curator = rated
    empty = _api(curator).post(f"/api/v1/console/pairs/{pair.pk}/thread/", {"body": "   "}, format="json")
    assert empty.status_code == 400
    long = _api(curator).post(f"/api/v1/console/pairs/{pair.pk}/thread/", {"body": "x" * 4001}, format="json")
    assert long.status_code == 400 and "4000" in str(long.json()).replace(",", "")
    assert _api(first).post(f"/api/v1/console/pairs/{pair.pk}/thread/", {"body": "hi"}, format="json").status_code == 403
    assert _api(first).post(f"/api/v1/assignments/{a1.pk}/thread/", {"body": "hi"}, format="json").status_code == 404
    assert _api(curator).get("/api/v1/console/pairs/999999/thread/").status_code == 404
    assert PairComment.objects.count() == 0


def test_the_console_and_the_review_page_show_the_thread_and_my_work_links_it(rated, client):
    pair, (first, _), (a1, _), curator = rated
    client.force_login(curator)
    page = reverse("console-pair", args=[pair.pk])
    client.post(reverse("console-pair-action", args=[pair.pk, "comment"]), {"body": "Why B?"})
    client.post(reverse("console-pair-action", args=[pair.pk, "invite-raters"]))
    html = client.get(page).content.decode()
    assert 'id="discussion"' in html and "Why B?" in html and f"Rater 1 · {first.username}" in html
    client.force_login(first)
    me = client.get(reverse("workspace-me")).content.decode()
    assert f'href="{reverse("workspace-review", args=[a1.pk])}#discussion" data-discussion>Discussion (1)' in me
    answer = client.post(reverse("workspace-thread", args=[a1.pk]), {"body": "The left one is sharper."})
    assert answer.status_code == 302 and answer["Location"].endswith("#discussion")
    review = client.get(reverse("workspace-review", args=[a1.pk])).content.decode()
    assert "You are Rater 1" in review and "The left one is sharper." in review and "Why B?" in review
    assert '"A" is the response you saw on the right' in review
