"""The leaderboard off the request path: a board fitted once is served from the cache (or from the fit job that
fitted it) until its ratings change; a board never fitted is fitted by one background ``leaderboard_fit`` job,
however many curators ask at once, and the request answers 202 with the job; a bootstrap beyond the budget is
refused by name before any job starts."""

import threading

import pytest
from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.jobs.models import Job
from annotation.workqueue.models import Annotation
from curation.selectors import leaderboard as selectors
from curation.selectors.leaderboard import FIT_JOB_KIND, leaderboard_campaigns, model_leaderboard
from tests.celery_worker import broker_at, threaded_worker, wait_for_job
from tests.conftest import port_open, require
from tests.curation.leaderboard.world import make_leaderboard_world, make_pair
from tests.factories import CuratorFactory, UserFactory
from tests.workqueue.assignment_helpers import ab_tie_campaign

# A Redis database of these tests alone: the queued fit jobs wait there with no worker, or a test's worker reads them.
REDIS_DB_URL = "redis://127.0.0.1:6379/11"


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


@pytest.fixture
def queue_without_worker():
    """Jobs are published to a Redis queue nobody reads: a fit job stays queued."""
    require(port_open("127.0.0.1", 6379), "Redis on 127.0.0.1:6379")
    import redis

    redis.Redis.from_url(REDIS_DB_URL).flushdb()
    cache.clear()
    with broker_at(REDIS_DB_URL) as app:
        yield app


def curator_api(user=None) -> APIClient:
    api = APIClient()
    api.force_authenticate(user or CuratorFactory())
    return api


def ask(api: APIClient, **params):
    return api.get(reverse("api-model-leaderboard"), {"campaign": "lb-t2i", **params})


@pytest.mark.django_db
def test_a_board_is_fitted_once_and_fitted_again_when_its_ratings_change(counted_fits):
    campaign = make_leaderboard_world()
    first = model_leaderboard(campaigns=[campaign], bootstrap=20)
    assert model_leaderboard(campaigns=[campaign], bootstrap=20) == first
    assert counted_fits == [7]
    pair = make_pair(campaign, "new", "oneig", "gamma", "alpha")
    Annotation.objects.create(pair=pair, annotator=UserFactory(), source=Annotation.Source.CONCORD,
                              values={"overall": 6}, shown_swapped=False)
    changed = model_leaderboard(campaigns=[campaign], bootstrap=20)
    assert counted_fits == [7, 8]
    assert changed["leaderboard"]["comparisons"] == 8 != first["leaderboard"]["comparisons"]
    model_leaderboard(campaigns=[campaign], bootstrap=21)  # another bootstrap is another board
    assert counted_fits == [7, 8, 8]


@pytest.mark.django_db(transaction=True)
def test_a_bootstrap_beyond_the_budget_is_refused_with_what_is_allowed_and_starts_no_job(settings):
    make_leaderboard_world()
    cache.clear()
    settings.CONCORD_LEADERBOARD_BOOTSTRAP_BUDGET = 700  # 7 pairs: at most 100 resamples
    api = curator_api()
    refused = ask(api, bootstrap=101)
    assert refused.status_code == 400
    assert refused.json()["code"] == "bootstrap_over_budget"
    assert refused.json()["extra"] == {"bootstrap_allowed": 100, "pairs": 7}
    assert not Job.objects.exists()
    assert ask(api, bootstrap=100).status_code == 200  # eager tasks: the job ran before the request looked again


@pytest.mark.django_db(transaction=True)
def test_six_requests_at_once_on_a_miss_start_one_fit_job_and_answer_202_then_the_board(queue_without_worker,
                                                                                       counted_fits):
    """Six curators ask for a board never fitted, at the same moment: one job is started and every answer is 202
    with that job (none fits in the web process); once the job has run, the same request answers the board, and a
    rater's claim is answered meanwhile."""
    make_leaderboard_world()
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=2)
    curator = CuratorFactory()
    answers: dict[int, object] = {}
    start = threading.Barrier(6)

    def request(i: int) -> None:
        from django.db import connection

        api = curator_api(curator)
        start.wait(10)
        answers[i] = ask(api, bootstrap=10)
        connection.close()

    threads = [threading.Thread(target=request, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    job = Job.objects.get()
    assert job.kind == FIT_JOB_KIND and job.status == Job.Status.QUEUED and job.progress_total == 11
    assert job.params["campaigns"] == ["lb-t2i"] and job.params["bootstrap"] == 10
    assert [answers[i].status_code for i in range(6)] == [202] * 6
    assert {answers[i].json()["job_id"] for i in range(6)} == {job.pk}
    first = answers[0]
    assert first["Location"] == first.json()["job_url"] == reverse("api-job-detail", args=[job.pk])
    assert first.json()["job"]["unit"] == "resamples" and first["Retry-After"] == "2"
    assert counted_fits == []
    rater_api = APIClient()
    rater_api.force_authenticate(rater)
    assert rater_api.post(f"/api/v1/campaigns/{campaign.slug}/claim/").status_code == 200

    from curation.tasks import leaderboard_fit_task

    leaderboard_fit_task.apply(args=[job.pk])  # what a worker does with the queued message
    job.refresh_from_db()
    assert (job.status, job.progress_done, job.progress_total) == (Job.Status.SUCCEEDED, 11, 11)
    board = ask(curator_api(curator), bootstrap=10)
    assert board.status_code == 200 and board.json()["leaderboard"]["comparisons"] == 7
    assert board.json()["leaderboard"] == job.result["board"]
    assert counted_fits == [7] and Job.objects.count() == 1
    cache.clear()  # a web process whose cache never saw the worker's board reads the job's result instead
    assert ask(curator_api(curator), bootstrap=10).json()["leaderboard"] == job.result["board"]
    assert counted_fits == [7] and Job.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_worker_fits_the_board_a_request_asked_for_reporting_each_resample(counted_fits):
    make_leaderboard_world()
    api = curator_api()
    from core.queues import Queue

    with threaded_worker(redis_url=REDIS_DB_URL, queue=Queue.ANALYTICS):
        cache.clear()
        started = ask(api, bootstrap=30)
        assert started.status_code == 202
        detail = wait_for_job(api, started.json()["job_id"])
    assert detail["status"] == Job.Status.SUCCEEDED, detail
    assert (detail["progress_done"], detail["progress_total"], detail["percent"]) == (31, 31, 100.0)
    answered = ask(api, bootstrap=30)
    assert answered.status_code == 200
    assert [m["model"] for m in answered.json()["leaderboard"]["models"]] == ["alpha", "beta", "gamma"]
    assert answered.json() == model_leaderboard(campaigns=leaderboard_campaigns(slugs=["lb-t2i"]), bootstrap=30)
    assert counted_fits == [7]


@pytest.mark.django_db(transaction=True)
def test_the_csv_of_a_board_being_fitted_answers_202_with_its_job(queue_without_worker):
    make_leaderboard_world()
    answer = curator_api().get(reverse("api-model-leaderboard-csv"), {"campaign": "lb-t2i"})
    assert answer.status_code == 202 and answer.json()["job_id"] == Job.objects.get().pk


@pytest.mark.django_db(transaction=True)
def test_a_board_of_fewer_than_two_models_starts_no_job():
    make_leaderboard_world()
    answer = curator_api().get(reverse("api-model-leaderboard"), {"campaign": "lb-t2i", "kind": "image-editing"})
    assert answer.status_code == 200 and answer.json()["leaderboard"] is None
    assert not Job.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_release_build_fits_without_the_request_budget(settings, counted_fits):
    campaign = make_leaderboard_world()
    settings.CONCORD_LEADERBOARD_BOOTSTRAP_BUDGET = 1
    board = model_leaderboard(campaigns=leaderboard_campaigns(slugs=[campaign.slug]), bootstrap=20)
    assert board["leaderboard"]["bootstrap"] == 20 and counted_fits == [7]
    assert not Job.objects.exists()  # fitted inline, by the worker that builds the release


@pytest.mark.django_db(transaction=True)
def test_the_page_of_a_board_never_fitted_shows_the_fit_jobs_progress_bar_then_the_board(client, queue_without_worker):
    """The console page on a miss: no board and no CSV link, but the fit job's progress bar, which reloads the page
    when the job has succeeded; a second view follows the same job; once it has run, the page shows the board."""
    make_leaderboard_world()
    client.force_login(CuratorFactory())
    page = client.get(reverse("console-leaderboard"), {"campaign": "lb-t2i"}).content.decode()
    job = Job.objects.get()
    assert f'data-job-progress="{job.pk}" data-job-done="reload"' in page
    assert 'id="leaderboard-fitting"' in page
    assert "the point fit and 200 bootstrap resamples over 7 comparisons from human ratings" in page
    assert "frontend/jobs.js" in page and 'id="model-leaderboard"' not in page
    assert reverse("console-leaderboard-csv") not in page
    again = client.get(reverse("console-leaderboard"), {"campaign": "lb-t2i"}).content.decode()
    assert f'data-job-progress="{job.pk}"' in again and Job.objects.count() == 1
    csv_answer = client.get(reverse("console-leaderboard-csv"), {"campaign": "lb-t2i"})
    assert (csv_answer.status_code, csv_answer["Retry-After"]) == (503, "5")
    assert f"job {job.pk}" in csv_answer.content.decode()
    assert client.get(reverse("api-job-detail", args=[job.pk])).json()["status"] == Job.Status.QUEUED

    from curation.tasks import leaderboard_fit_task

    leaderboard_fit_task.apply(args=[job.pk])
    polled = client.get(reverse("api-job-detail", args=[job.pk])).json()
    assert (polled["status"], polled["percent"], polled["unit"]) == (Job.Status.SUCCEEDED, 100.0, "resamples")
    page = client.get(reverse("console-leaderboard"), {"campaign": "lb-t2i"}).content.decode()
    assert page.index('data-model="alpha"') < page.index('data-model="beta"') < page.index('data-model="gamma"')
    assert "data-job-progress" not in page and reverse("console-leaderboard-csv") in page


@pytest.mark.django_db(transaction=True)
def test_with_eager_tasks_the_page_renders_the_board_at_once(client, counted_fits):
    """The embedded default (no Redis: tasks run eagerly) fits in the job the request started and shows the board."""
    make_leaderboard_world()
    client.force_login(CuratorFactory())
    page = client.get(reverse("console-leaderboard"), {"campaign": "lb-t2i"}).content.decode()
    assert 'id="model-leaderboard"' in page and "data-job-progress" not in page
    assert Job.objects.get().status == Job.Status.SUCCEEDED and counted_fits == [7]
    client.get(reverse("console-leaderboard"), {"campaign": "lb-t2i"})
    assert Job.objects.count() == 1 and counted_fits == [7]


def test_the_openapi_schema_documents_the_202_with_the_fit_job():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path in ("/api/v1/leaderboard/models/", "/api/v1/leaderboard/models/csv/"):
        responses = schema["paths"][path]["get"]["responses"]
        assert responses["202"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/LeaderboardFitting"}
        assert "503" in responses
    fitting = schema["components"]["schemas"]["LeaderboardFitting"]
    assert set(fitting["properties"]) == {"job_id", "status", "job_url", "job"}
