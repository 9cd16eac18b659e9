"""A database that is gone answers 503 with Retry-After, in the API's error shape or as a small page, never a 500:
every statement here raises psycopg's OperationalError, wrapped by Django as a lost connection's is."""

from contextlib import contextmanager
from unittest import mock

import psycopg
import pytest
from django.db import DatabaseError
from django.db.backends.utils import CursorWrapper
from django.db.utils import OperationalError
from django.test import Client
from django.urls import reverse

from core import db_faults
from tests.factories import UserFactory
from tests.workqueue.assignment_helpers import AB_TIE_ANSWER, ab_tie_campaign

pytestmark = pytest.mark.django_db

TERMINATED = "terminating connection due to administrator command"


@contextmanager
def database_gone():
    """Every statement fails as one on a connection PostgreSQL terminated, through Django's own error wrapping."""

    def execute(self, *args, **kwargs):
        with self.db.wrap_database_errors:
            raise psycopg.OperationalError(TERMINATED)

    with mock.patch.object(CursorWrapper, "_execute", execute), \
            mock.patch.object(CursorWrapper, "_executemany", execute):
        yield


def assert_api_fault(answer):
    assert answer.status_code == 503, answer.content
    assert answer["Retry-After"] == str(db_faults.RETRY_AFTER_SECONDS)
    assert answer["Content-Type"] == "application/json"
    assert answer.json() == {"code": "database_unavailable", "message": db_faults.MESSAGE,
                             "extra": {"retry_after": db_faults.RETRY_AFTER_SECONDS}}


def assert_page_fault(answer):
    assert answer.status_code == 503, answer.content
    assert answer["Retry-After"] == str(db_faults.RETRY_AFTER_SECONDS)
    assert answer["Content-Type"].startswith("text/html")
    page = answer.content.decode()
    assert "Reconnecting" in page and "frontend/concord.css" in page
    assert "Traceback" not in page and TERMINATED not in page


def test_the_fault_is_django_s_operational_error_as_a_lost_connection_raises_it():
    with database_gone(), pytest.raises(OperationalError) as raised:
        UserFactory()
    assert isinstance(raised.value.__cause__, psycopg.OperationalError) and db_faults.is_database_fault(raised.value)


def test_a_drf_endpoint_answers_503_in_the_api_error_shape(client):
    client.force_login(UserFactory())
    with database_gone():
        assert_api_fault(client.get(reverse("api-my-stats")))


def test_http_basic_auth_answers_503_not_500_when_the_user_cannot_be_read(client):
    import base64

    token = base64.b64encode(b"carol:pw").decode()
    with database_gone():
        assert_api_fault(client.get(reverse("api-my-stats"), HTTP_AUTHORIZATION=f"Basic {token}"))


def test_claim_and_submit_through_the_work_queue_door_answer_503(client):
    campaign, (rater, *_), _pairs = ab_tie_campaign(pairs=1)
    client = Client(enforce_csrf_checks=False)
    client.force_login(rater)
    claimed = client.post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert claimed.status_code == 200
    assignment = claimed.json()["assignment"]
    with database_gone():
        assert_api_fault(client.post(f"/api/v1/campaigns/{campaign.slug}/claim/"))
        assert_api_fault(client.post(f"/api/v1/assignments/{assignment}/submit/", {"values": AB_TIE_ANSWER},
                                     content_type="application/json", HTTP_IDEMPOTENCY_KEY="k1"))
    submitted = client.post(f"/api/v1/assignments/{assignment}/submit/", {"values": AB_TIE_ANSWER},
                            content_type="application/json", HTTP_IDEMPOTENCY_KEY="k1")
    assert submitted.status_code == 200, submitted.content


def test_a_page_answers_a_503_page_rendered_without_the_database(client):
    client.force_login(UserFactory())
    with database_gone():
        answer = client.get(reverse("home"))
    assert_page_fault(answer)
    assert 'http-equiv="refresh"' in answer.content.decode()


def test_sign_in_answers_the_503_page(client):
    UserFactory(username="carol")
    with database_gone():
        answer = client.post(reverse("login"), {"username": "carol", "password": "pw"})
    assert_page_fault(answer)
    assert 'http-equiv="refresh"' not in answer.content.decode()  # a form is never sent again unasked


class FailingMiddleware:
    """A middleware whose own database access fails (as the session's save after sign-in can)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with database_gone():
            from annotation.accounts.models import User

            User.objects.exists()
        return self.get_response(request)


@pytest.mark.parametrize("path", ["/api/v1/me/stats/", "/"], ids=["api", "page"])
def test_a_fault_raised_in_a_middleware_answers_503_through_handler500(path, settings):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "tests.core.test_db_faults.FailingMiddleware"]
    answer = Client(raise_request_exception=False).get(path)
    (assert_api_fault if path.startswith("/api/") else assert_page_fault)(answer)


def test_any_other_error_is_still_a_500(settings):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "tests.core.test_db_faults.FailingWithAnotherError"]
    answer = Client(raise_request_exception=False).get("/")
    assert answer.status_code == 500


class FailingWithAnotherError:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        raise DatabaseError("not a connection's fault")


def test_an_agreement_job_whose_database_went_away_is_retried_and_succeeds():
    """The task's autoretry (core.db_faults.DATABASE_FAULT_RETRY): the first try loses the database, the retry runs
    the job to the end (eager here, so the retry runs at once instead of after its backoff)."""
    from annotation.jobs.models import Job
    from curation.services import agreement as agreement_services
    from curation.services.agreement import agreement_job_create
    from curation.tasks import agreement_compute
    from tests.curation.agreement.conftest import add_pairs, make_campaign

    campaign = make_campaign(consensus_policy="mmrb2-generation", slug="retried")
    add_pairs(campaign, [[6, 5, 6], [1, 2, 1]])
    with mock.patch("curation.tasks.agreement_compute.apply_async"):  # created, not yet run
        job = agreement_job_create(campaign=campaign, bootstrap=10)
    real = agreement_services.agreement_compute
    tries = []

    def flaky(**kwargs):
        tries.append(1)
        if len(tries) == 1:
            with database_gone():
                Job.objects.exists()
        return real(**kwargs)

    with mock.patch.object(agreement_services, "agreement_compute", flaky):
        agreement_compute.apply(args=[job.pk], throw=False)  # a retry is not an error to raise here
    job.refresh_from_db()
    assert len(tries) == 2
    assert job.status == Job.Status.SUCCEEDED and job.error == "", job.error
