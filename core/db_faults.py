"""A lost or refused database connection is answered as the fault it is: 503 with ``Retry-After``, never a 500.

When PostgreSQL restarts, fails over or terminates a backend (``pg_terminate_backend``), the request that was using
the connection gets ``django.db.utils.OperationalError`` or ``InterfaceError`` (psycopg's errors, wrapped by
Django). Nothing the request wrote was committed, so trying again is the right answer; a 500 would tell a rater
that something is broken for good. Three doors lead here, one for each way such an error leaves a request:

- DRF views: ``core.api.exceptions.exception_handler`` calls ``api_fault_response`` first;
- plain views (the work queue's door, sign-in, pages): ``DatabaseFaultMiddleware.process_exception``;
- middleware (the session read with its user, the session written after sign-in): ``server_error``, which the
  ``handler500`` Django calls with the exception being handled (``frontend.views.errors.server_error``) asks first.

Celery tasks that run a job take ``DATABASE_FAULT_RETRY``: a lost database is retried, not a failed job.

Under ``/api/`` the answer is the API's one error shape, ``{"code": "database_unavailable", "message": …, "extra":
{"retry_after": N}}``; elsewhere a small page, written here without the template engine, the session or the user
(each of which could need the database that is gone). ``CONN_HEALTH_CHECKS`` (settings) makes the next request
check a persistent connection before using it and reconnect, so a connection lost between requests costs no
request at all. Why these errors and not others: docs/decisions/database-faults.md.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from html import escape

from django.db import DatabaseError
from django.db.utils import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

logger = logging.getLogger(__name__)

# The errors of a connection that is gone, refused or cut (and PostgreSQL's other "try again" errors, which psycopg
# also raises as OperationalError: a deadlock, a serialization failure, a statement cancelled).
DATABASE_FAULTS: tuple[type[DatabaseError], ...] = (OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = 3
# A Celery task's policy for the same faults (``@shared_task(..., **DATABASE_FAULT_RETRY)``): retried after 5, 10,
# 20, 40 and 60 s (with jitter), about 2 min in all, inside the reaper's stall time (CONCORD_JOB_STALL_SECONDS,
# 5 min), so a job's own retry comes first. Each try starts on a fresh connection: Celery's Django fixup closes
# the connection before and after every task.
DATABASE_FAULT_RETRY = {"autoretry_for": DATABASE_FAULTS, "retry_backoff": 5, "retry_backoff_max": 60,
                        "retry_jitter": True, "max_retries": 5}
CODE = "database_unavailable"
MESSAGE = "The database did not answer; nothing of this request was saved. Try again in a few seconds."

PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  {refresh}<title>Reconnecting · Concord</title>
  <link rel="stylesheet" href="{stylesheet}">
</head>
<body>
  <header class="topbar"><a class="brand" href="/">Concord</a></header>
  <main>
    <section class="card narrow" role="alert">
      <h1>Reconnecting…</h1>
      <p>Concord lost its connection to the database for a moment. Nothing of what you just sent was saved, and
      nothing you saved before is lost.</p>
      <p>{again}</p>
    </section>
  </main>
</body>
</html>
"""


def is_database_fault(exc: BaseException | None) -> bool:
    return isinstance(exc, DATABASE_FAULTS)


def fault_body() -> dict:
    """The API's one error shape (as ``core.api.exceptions.application_error_body`` writes it)."""
    return {"code": CODE, "message": MESSAGE, "extra": {"retry_after": RETRY_AFTER_SECONDS}}


def fault_headers() -> dict[str, str]:
    return {"Retry-After": str(RETRY_AFTER_SECONDS), "Cache-Control": "no-store"}


def fault_response(request: HttpRequest, exc: BaseException) -> HttpResponse:
    """The 503 for ``request``, whose database access raised ``exc``: JSON under /api/, a page elsewhere."""
    logger.warning("database fault on %s %s, answered 503: %s", request.method, request.path, exc)
    if request.path_info.startswith("/api/"):
        return JsonResponse(fault_body(), status=503, headers=fault_headers())
    return HttpResponse(_page(request), status=503, content_type="text/html; charset=utf-8", headers=fault_headers())


def _page(request: HttpRequest) -> str:
    from django.templatetags.static import static

    if request.method in ("GET", "HEAD"):
        # The page asks again by itself once the wait is over; a form sent by POST is not sent again unasked.
        refresh = f'<meta http-equiv="refresh" content="{RETRY_AFTER_SECONDS}">\n  '
        again = f'This page tries again in {RETRY_AFTER_SECONDS} seconds, or <a href="">now</a>.'
    else:
        refresh = ""
        again = f"Go back and send it again in {RETRY_AFTER_SECONDS} seconds."
    return PAGE.format(refresh=refresh, stylesheet=escape(static("frontend/concord.css")), again=again)


def api_fault_response(exc: BaseException):
    """For DRF's exception handler: the 503 in the API's error shape when ``exc`` is a database fault, else None."""
    if not is_database_fault(exc):
        return None
    from rest_framework.response import Response

    logger.warning("database fault in an API view, answered 503: %s", exc)
    return Response(fault_body(), status=503, headers=fault_headers())


class DatabaseFaultMiddleware:
    """Turns a database fault raised by a view into the 503 (``fault_response``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        return fault_response(request, exception) if is_database_fault(exception) else None


def server_error(request: HttpRequest, *, otherwise: Callable[[HttpRequest], HttpResponse] | None = None) -> HttpResponse:
    """handler500: the 503 when the exception being handled (raised by a middleware) is a database fault, else
    ``otherwise(request)`` (the project's 500 page: ``frontend.views.errors.server_error``) or Django's own."""
    exc = sys.exc_info()[1]
    if is_database_fault(exc):
        return fault_response(request, exc)
    if otherwise is not None:
        return otherwise(request)
    from django.views import defaults

    return defaults.server_error(request)
