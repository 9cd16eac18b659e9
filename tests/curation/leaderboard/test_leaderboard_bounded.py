"""The leaderboard off the rater's way: a board fitted once is served from the cache until its ratings change, a
request path fits one board per process at a time (the rest answer 503 with Retry-After at once instead of holding
threads), and a bootstrap beyond the budget is refused by name."""

import threading

import pytest
from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.workqueue.models import Annotation
from curation.selectors import leaderboard as selectors
from curation.selectors.leaderboard import leaderboard_campaigns, model_leaderboard
from tests.curation.leaderboard.world import make_leaderboard_world, make_pair
from tests.factories import CuratorFactory, UserFactory
from tests.workqueue.assignment_helpers import ab_tie_campaign


@pytest.fixture
def counted_fits(monkeypatch):
    """Counts the Bradley–Terry fits the selectors run."""
    fits = []
    real = selectors.leaderboard

    def counting(c, **kwargs):
        fits.append(len(c))
        return real(c, **kwargs)

    monkeypatch.setattr(selectors, "leaderboard", counting)
    cache.clear()
    return fits


@pytest.mark.django_db
def test_a_board_is_fitted_once_and_fitted_again_when_its_ratings_change(counted_fits):
    campaign = make_leaderboard_world()
    first = model_leaderboard(campaigns=[campaign], bootstrap=20, bounded=True)
    assert model_leaderboard(campaigns=[campaign], bootstrap=20, bounded=True) == first
    assert counted_fits == [7]
    pair = make_pair(campaign, "new", "oneig", "gamma", "alpha")
    Annotation.objects.create(pair=pair, annotator=UserFactory(), source=Annotation.Source.CONCORD,
                              values={"overall": 6}, shown_swapped=False)
    changed = model_leaderboard(campaigns=[campaign], bootstrap=20, bounded=True)
    assert counted_fits == [7, 8]
    assert changed["leaderboard"]["comparisons"] == 8 != first["leaderboard"]["comparisons"]
    model_leaderboard(campaigns=[campaign], bootstrap=21, bounded=True)  # another bootstrap is another board
    assert counted_fits == [7, 8, 8]


@pytest.mark.django_db
def test_a_bootstrap_beyond_the_budget_is_refused_with_what_is_allowed(client, settings):
    make_leaderboard_world()
    settings.CONCORD_LEADERBOARD_BOOTSTRAP_BUDGET = 700  # 7 pairs: at most 100 resamples
    client.force_login(CuratorFactory())
    refused = client.get(reverse("api-model-leaderboard"), {"campaign": "lb-t2i", "bootstrap": 101})
    assert refused.status_code == 400
    assert refused.json()["code"] == "bootstrap_over_budget"
    assert refused.json()["extra"] == {"bootstrap_allowed": 100, "pairs": 7}
    assert client.get(reverse("api-model-leaderboard"), {"campaign": "lb-t2i", "bootstrap": 100}).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_six_leaderboard_requests_take_one_fit_and_a_claim_beside_them_is_answered(monkeypatch):
    """Six curators ask at once while the first fit is still running: one fits, five get 503 leaderboard_busy with
    Retry-After at once, and a rater's claim sent meanwhile is answered (on a server whose threads are few, as
    gunicorn's are, the five would otherwise hold them all)."""
    make_leaderboard_world()
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=2)
    cache.clear()
    started, release = threading.Event(), threading.Event()
    real = selectors.leaderboard

    def slow(c, **kwargs):
        started.set()
        assert release.wait(30)
        return real(c, **kwargs)

    monkeypatch.setattr(selectors, "leaderboard", slow)
    curator = CuratorFactory()
    answers: dict[int, object] = {}

    def ask(i: int) -> None:
        from django.db import connection

        api = APIClient()
        api.force_authenticate(curator)
        answers[i] = api.get(reverse("api-model-leaderboard"), {"campaign": "lb-t2i", "bootstrap": 10})
        connection.close()

    first = threading.Thread(target=ask, args=(0,))
    first.start()
    assert started.wait(30)
    others = [threading.Thread(target=ask, args=(i,)) for i in range(1, 6)]
    for thread in others:
        thread.start()
    for thread in others:
        thread.join(30)
    busy = [answers[i] for i in range(1, 6)]
    assert [(r.status_code, r.json()["code"], r["Retry-After"]) for r in busy] == [(503, "leaderboard_busy", "5")] * 5
    rater_api = APIClient()
    rater_api.force_authenticate(rater)
    assert rater_api.post(f"/api/v1/campaigns/{campaign.slug}/claim/").status_code == 200  # the fit still holds
    release.set()
    first.join(30)
    assert answers[0].status_code == 200 and answers[0].json()["leaderboard"]["comparisons"] == 7
    curators_page = APIClient()
    curators_page.force_authenticate(curator)
    again = curators_page.get(reverse("api-model-leaderboard"), {"campaign": "lb-t2i", "bootstrap": 10})
    assert again.status_code == 200 and again.json() == answers[0].json()  # from the cache, no fit needed


@pytest.mark.django_db
def test_a_release_build_fits_without_the_request_bounds(settings, counted_fits):
    campaign = make_leaderboard_world()
    settings.CONCORD_LEADERBOARD_BOOTSTRAP_BUDGET = 1
    board = model_leaderboard(campaigns=leaderboard_campaigns(slugs=[campaign.slug]), bootstrap=20)
    assert board["leaderboard"]["bootstrap"] == 20 and counted_fits == [7]
