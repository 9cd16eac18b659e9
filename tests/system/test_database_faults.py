"""PostgreSQL terminates the app's backends (``pg_terminate_backend``, from a connection of the test's own): a request
whose backend is terminated while it works answers 503 with Retry-After, never a 500, and the next one is served; a
persistent connection terminated between requests is replaced by the health check before the next request uses it.

The request is held at a known point by a table lock the test takes (ACCESS EXCLUSIVE on the table the request
reads next), so its backend is terminated while the request is inside its statement, every time.
"""

import io
import threading
import time
from contextlib import contextmanager

import httpx
import psycopg
import pytest
from django.db import connection, connections

from annotation.accounts.models import User
from annotation.workqueue.models import Annotation, Assignment
from core import db_faults
from tests.workqueue.assignment_helpers import AB_TIE_ANSWER, ab_tie_campaign

pytestmark = pytest.mark.django_db(transaction=True)


def dsn() -> str:
    info = connection.settings_dict
    return psycopg.conninfo.make_conninfo(dbname=info["NAME"], user=info["USER"], password=info["PASSWORD"] or None,
                                          host=info["HOST"], port=info["PORT"] or None)


@contextmanager
def table_locked(table: str):
    """ACCESS EXCLUSIVE on ``table`` from a connection of the test's own, held until the block ends."""
    with psycopg.connect(dsn()) as lock:
        lock.execute(f'LOCK TABLE "{table}" IN ACCESS EXCLUSIVE MODE')
        try:
            yield lock.info.backend_pid
        finally:
            lock.rollback()


def terminate_the_backend_waiting_on_a_lock(own_pid: int, timeout: float = 20.0) -> int:
    """Terminate the backend of this database that waits on a lock (the request's), from a second connection."""
    with psycopg.connect(dsn(), autocommit=True) as admin:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            row = admin.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' "
                "AND pid NOT IN (pg_backend_pid(), %s) LIMIT 1", [own_pid]).fetchone()
            if row:
                assert admin.execute("SELECT pg_terminate_backend(%s)", [row[0]]).fetchone()[0]
                return row[0]
            time.sleep(0.02)
    raise AssertionError("no request waited on the lock")


def in_thread(call):
    """Run ``call()`` in a thread; returns a function that joins it and gives its result."""
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("value", call()), daemon=True)
    thread.start()

    def join():
        thread.join(timeout=30)
        assert "value" in result, "the request did not finish"
        return result["value"]

    return join


def signed_in(base: str, username: str) -> httpx.Client:
    """A browser's session: the sign-in page's CSRF cookie, then the form posted."""
    client = httpx.Client(base_url=base, timeout=30)
    client.get("/login/")
    token = client.cookies["csrftoken"]
    answer = client.post("/login/", data={"username": username, "password": "pw", "csrfmiddlewaretoken": token})
    assert answer.status_code == 302, answer.text
    client.headers["X-CSRFToken"] = client.cookies["csrftoken"]  # signing in rotated the token
    return client


def assert_fault(answer: httpx.Response, *, api: bool) -> None:
    assert answer.status_code == 503, answer.text
    assert answer.headers["Retry-After"] == str(db_faults.RETRY_AFTER_SECONDS)
    if api:
        assert answer.json()["code"] == "database_unavailable"
    else:
        assert "Reconnecting" in answer.text and "Traceback" not in answer.text


def test_claim_and_submit_whose_backend_is_terminated_answer_503_and_the_next_ones_are_served(
        postgres_only, live_server):
    campaign, (rater, *_), _pairs = ab_tie_campaign(pairs=2)
    client = signed_in(live_server.url, rater.username)
    claim = f"/api/v1/campaigns/{campaign.slug}/claim/"

    with table_locked(Assignment._meta.db_table) as own:
        waiting = in_thread(lambda: client.post(claim))
        terminate_the_backend_waiting_on_a_lock(own)
        assert_fault(waiting(), api=True)
    claimed = client.post(claim)
    assert claimed.status_code == 200, claimed.text
    submit = f"/api/v1/assignments/{claimed.json()['assignment']}/submit/"

    with table_locked(Assignment._meta.db_table) as own:
        waiting = in_thread(lambda: client.post(submit, json={"values": AB_TIE_ANSWER},
                                                headers={"Idempotency-Key": "once"}))
        terminate_the_backend_waiting_on_a_lock(own)
        assert_fault(waiting(), api=True)
    submitted = client.post(submit, json={"values": AB_TIE_ANSWER}, headers={"Idempotency-Key": "once"})
    assert submitted.status_code == 200, submitted.text
    assert Annotation.objects.filter(assignment_id=claimed.json()["assignment"]).count() == 1


def test_sign_in_whose_backend_is_terminated_answers_the_503_page_and_the_next_one_signs_in(
        postgres_only, live_server):
    _campaign, (rater, *_), _pairs = ab_tie_campaign(pairs=1)
    client = httpx.Client(base_url=live_server.url, timeout=30)
    client.get("/login/")
    form = {"username": rater.username, "password": "pw", "csrfmiddlewaretoken": client.cookies["csrftoken"]}
    with table_locked(User._meta.db_table) as own:
        waiting = in_thread(lambda: client.post("/login/", data=form))
        terminate_the_backend_waiting_on_a_lock(own)
        assert_fault(waiting(), api=False)
    assert client.post("/login/", data=form).status_code == 302


@pytest.fixture
def persistent_connections():
    """Connections kept between requests, as production keeps them (CONN_MAX_AGE), health checks as configured."""
    settings_dict = connections.settings["default"]
    saved = settings_dict["CONN_MAX_AGE"]
    settings_dict["CONN_MAX_AGE"] = 600
    yield settings_dict
    settings_dict["CONN_MAX_AGE"] = saved


def session_cookie(user) -> str:
    from django.test import Client

    browser = Client()
    browser.force_login(user)
    return f"sessionid={browser.cookies['sessionid'].value}"


def wsgi_get(path: str, cookie: str) -> int:
    """GET ``path`` through Django's own WSGI handler with the request signals (the connection is kept, checked or
    closed at their boundaries, as under gunicorn); the status code."""
    from django.core.handlers.wsgi import WSGIHandler

    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "SERVER_NAME": "testserver", "SERVER_PORT": "80",
               "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(b""), "HTTP_COOKIE": cookie,
               "REMOTE_ADDR": "127.0.0.1"}
    statuses = []
    body = WSGIHandler()(environ, lambda status, headers: statuses.append(int(status.split()[0])))
    b"".join(body)
    body.close()
    return statuses[0]


def terminate(pid: int) -> None:
    with psycopg.connect(dsn(), autocommit=True) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone()[0]


def test_a_connection_terminated_between_requests_is_replaced_before_the_next_request_uses_it(
        postgres_only, persistent_connections):
    assert persistent_connections["CONN_HEALTH_CHECKS"] is True
    _campaign, (rater, *_), _pairs = ab_tie_campaign(pairs=1)
    cookie = session_cookie(rater)
    assert wsgi_get("/api/v1/me/stats/", cookie) == 200
    kept = connection.connection
    assert kept is not None and not kept.closed
    terminate(kept.info.backend_pid)
    assert wsgi_get("/api/v1/me/stats/", cookie) == 200
    assert connection.connection is not kept


def test_without_health_checks_that_request_answers_503_not_500_and_the_next_is_served(
        postgres_only, persistent_connections):
    _campaign, (rater, *_), _pairs = ab_tie_campaign(pairs=1)
    cookie = session_cookie(rater)
    persistent_connections["CONN_HEALTH_CHECKS"] = False
    connection.health_check_enabled = False
    try:
        assert wsgi_get("/api/v1/me/stats/", cookie) == 200
        terminate(connection.connection.info.backend_pid)
        assert wsgi_get("/api/v1/me/stats/", cookie) == 503
        assert wsgi_get("/api/v1/me/stats/", cookie) == 200
    finally:
        persistent_connections["CONN_HEALTH_CHECKS"] = True
        connection.health_check_enabled = True
