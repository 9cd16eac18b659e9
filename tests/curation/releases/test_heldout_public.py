"""The held-out results page and API are open to anyone: the results teams chose to publish, with their figures and
intervals, and nothing of a pair, a label or a rater."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from curation.models import Release, Submission
from tests.curation.releases import test_private_split as split_tests
from tests.curation.releases.test_private_split import (
    id_pattern,
    issue,
    mmrb2_predictions,
    omni_predictions,
    private_ids,
    publish,
    submit,
)
from tests.factories import CuratorFactory

pytestmark = pytest.mark.django_db

campaigns, curator, split_release = split_tests.campaigns, split_tests.curator, split_tests.split_release


@pytest.fixture
def published_results(split_release, campaigns, curator):
    """team-b published its Omni result as omni-judge; team-a's MMRB2 result stays unpublished."""
    token_a, token_b = issue(curator, split_release, "team-a"), issue(curator, split_release, "team-b")
    assert submit(split_release, token_a, mmrb2_predictions(campaigns["labels"]), "mmrb2",
                  judge="secret-judge").status_code == 201
    answer = submit(split_release, token_b, omni_predictions(), "omnireward", judge="omni-judge")
    assert answer.status_code == 201, answer.content
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_b}")
    published = client.post(f"/api/v1/releases/{split_release}/submissions/{answer.json()['id']}/publish/")
    assert published.status_code == 200
    return Submission.objects.get(pk=answer.json()["id"])


def page_of(release: Release) -> str:
    return reverse("release-heldout", kwargs={"name": release.name, "version": release.version})


def test_anyone_reads_the_published_results_with_their_figures_and_nothing_of_a_pair(split_release,
                                                                                    published_results):
    answer = Client().get(page_of(split_release))
    assert answer.status_code == 200
    html = answer.content.decode()
    scores = published_results.scores
    row = re.search(r'<tr data-judge="omni-judge">(.*?)</tr>', html, re.S).group(1)
    accuracy, low, high = (f"{100 * value:.1f}%" for value in (scores["accuracy"], *scores["ci95"]))
    assert f'<td class="accuracy">{accuracy}</td>' in row and f"{low} – {high}" in row
    assert "team-b" in row and published_results.published_at.date().isoformat() in row
    t2t = scores["per_task"]["text-to-text"]
    assert f"{100 * t2t['accuracy']:.1f}%" in row
    assert "9 items of this release" in html and "seed 7" in html
    assert "secret-judge" not in html and "team-a" not in html, "an unpublished result stays off the page"
    assert not id_pattern(private_ids(split_release)).search(html), "no private item is named"
    for rater in ("alice", "bob"):
        assert rater not in html, "no rater is named"
    assert "chosen" not in html and "criteria_preference" not in html
    assert "← " not in html, "a visitor is not sent to the curators' page"


def test_the_results_api_is_public_too_and_gives_aggregates_only(split_release, published_results):
    answer = APIClient().get(reverse("api-release-heldout", kwargs={"name": split_release.name,
                                                                    "version": split_release.version}))
    assert answer.status_code == 200
    results = answer.json()["results"]
    assert [(r["team"], r["judge"], r["accuracy"]) for r in results] == [
        ("team-b", "omni-judge", published_results.scores["accuracy"])]
    assert results[0]["published_at"] == published_results.published_at.isoformat()
    assert not id_pattern(private_ids(split_release)).search(answer.content.decode())


def test_a_release_without_a_split_says_so_and_an_unpublished_one_is_not_found(campaigns):
    plain = publish("plain-bench")
    answer = Client().get(page_of(plain))
    assert answer.status_code == 200 and "has no held-out split" in answer.content.decode()
    draft = Release.objects.create(name="draft-bench", version="1.0.0")
    assert Client().get(page_of(draft)).status_code == 404
    assert APIClient().get(reverse("api-release-heldout", kwargs={"name": "draft-bench",
                                                                  "version": "1.0.0"})).status_code == 409


def test_the_release_list_links_a_split_release_to_its_public_results(split_release, campaigns):
    plain = publish("plain-bench")
    client = Client()
    client.force_login(CuratorFactory())
    html = client.get(reverse("release-list")).content.decode()
    assert f'href="{page_of(split_release)}"' in html
    assert f'href="{page_of(plain)}"' not in html


def test_the_release_page_links_its_held_out_section_to_the_public_results_page(split_release, published_results):
    page = Client()
    page.force_login(CuratorFactory())
    html = page.get(reverse("release-leaderboard", kwargs={"name": split_release.name,
                                                           "version": split_release.version})).content.decode()
    section = re.search(r'<section class="card heldout" id="heldout">(.*?)</section>', html, re.S).group(1)
    assert f'href="{page_of(split_release)}"' in section
    assert Client().get(page_of(split_release)).status_code == 200, "the link leads to a page open to anyone"
