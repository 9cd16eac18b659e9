"""The work queue's door: claim and submit for a signed-in browser (or the load client), end to end, in one place.

Every rater's loop is claim → submit, thousands of times an hour, so those two requests do not go through DRF's
dispatch (its Request wrapper, a second session authentication and CSRF pass, negotiation, the input serializer:
a third of a cycle's CPU). What the door does, in order, for ``POST`` without an ``Authorization`` header:

1. **Authentication**: the session cookie, as Django's middleware resolved it (``annotation.accounts.sessions``: the
   session row and its user in one statement; ``request_user`` unwraps the lazy ``request.user``). An anonymous
   or inactive user is not the door's: DRF answers.
2. **CSRF**: DRF's own check (``rest_framework.authentication.CSRFCheck``), as ``SessionAuthentication`` runs it.
3. **Permission**: the view's own ``permission_classes`` (``view.get_permissions()``), the very list DRF's
   dispatch checks: a permission added to the view is enforced here too (a test holds it). A refusal goes to
   DRF's dispatch, which refuses with its own 403. Then the view's rate limit (``check_throttles``, DRF's own,
   over ``core.api.throttling``): over it, 429 ``rate_limited`` with ``Retry-After``.
4. **Input**: the claim takes none; the submission takes only a body ``InputSerializer`` would take as it is
   (``submit_input``); anything else goes to DRF, which validates and answers its 400s.
5. **Rules and SQL**: the services (``annotation.workqueue.services.assignments``), the same functions the generic DRF
   path calls, run the hand-written statements in ``annotation/workqueue/sql/*.sql``.
6. **Rows to JSON**: ``pair_display`` builds the display as plain JSON values (``DisplaySerializer`` describes
   it, and a test holds the two equal); ``json_response`` writes it with orjson as DRF's renderer would.
   An ``ApplicationError`` is written in the one error shape (``application_error_body``).

HTTP Basic, no session, a CSRF or permission failure, or a body the door does not take: DRF's dispatch,
unchanged, which gives the same answers and every error shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
from django.http import HttpResponse
from rest_framework.authentication import CSRFCheck
from rest_framework.renderers import JSONRenderer

from annotation.accounts.sessions import request_user
from annotation.workqueue.models import Assignment
from annotation.workqueue.selectors import pair_display
from annotation.workqueue.services.assignments import annotation_submit, assignment_claim_by_slug
from core import rows
from core.api.exceptions import application_error_body
from core.errors import ApplicationError
from core.text_checks import HostileInput, check_json_value, json_may_hold_hostile_text
from core.web.hostile_input import check_json_depth

if TYPE_CHECKING:
    from django.http import HttpRequest

    from annotation.accounts.models import User


def json_response(data: Any, status_code: int = 200) -> HttpResponse:
    """``data`` as DRF's JSONRenderer writes it (compact, UTF-8, UTC datetimes ending in Z), by orjson; the renderer
    itself for what orjson refuses (integers beyond 64 bits in imported content)."""
    try:
        body = orjson.dumps(data, option=orjson.OPT_UTC_Z)
    except TypeError:
        body = JSONRenderer().render(data)
    return HttpResponse(body, status=status_code, content_type="application/json")


def claim_response(user: User, slug: str) -> HttpResponse:
    """The claim's answer, for the door and DRF's view alike: the display, or 204 when nothing is left."""
    assignment = assignment_claim_by_slug(slug=slug, annotator=user)
    if assignment is None:
        no_content = HttpResponse(status=204)
        del no_content["Content-Type"]  # an empty answer has no type, as DRF writes it
        return no_content
    return json_response(pair_display(assignment=assignment))


def submit_response(user: User, assignment_id: int, values: dict, time_on_item_ms: int | None, key: str,
                    media_played: dict | None = None, confirm_warnings: bool = False) -> HttpResponse:
    """The submission's answer, for the door and DRF's view alike (OutputSerializer's three fields)."""
    # The service reads the row by id and answers 404 unless it is this annotator's: only the id is needed here.
    annotation = annotation_submit(
        assignment=rows.loaded(Assignment, pk=assignment_id),
        annotator=user,
        values=values,
        time_on_item_ms=time_on_item_ms,
        idempotency_key=key,
        media_played=media_played,
        confirm_warnings=confirm_warnings,
    )
    return json_response(
        {"annotation": annotation.pk, "assignment": annotation.assignment_id, "submitted_at": annotation.created_at}
    )


def submit_input(request: HttpRequest) -> tuple[dict, int | None, str, dict | None, bool] | None:
    """(values, time_on_item_ms, idempotency key, media_played, confirm_warnings) of a body the submit InputSerializer
    would take as it is (JSON; ``values`` an object; ``time_on_item_ms`` a non-negative int or null; a key of 1–64
    characters without surrounding blanks; ``confirm_warnings`` true or false), else None (DRF then validates and
    answers)."""
    if request.content_type != "application/json":
        return None
    try:
        check_json_depth(request.body)
        data = orjson.loads(request.body)
        if json_may_hold_hostile_text(request.body):
            check_json_value(data)
    except (orjson.JSONDecodeError, HostileInput):
        return None
    if not isinstance(data, dict) or type(data.get("values")) is not dict:
        return None
    time_on_item_ms = data.get("time_on_item_ms")
    if time_on_item_ms is not None and not (type(time_on_item_ms) is int and time_on_item_ms >= 0):
        return None
    body_key = data.get("idempotency_key", "")
    if "idempotency_key" in data and not (type(body_key) is str and 0 < len(body_key) <= 64 and body_key == body_key.strip()):
        return None
    confirm_warnings = data.get("confirm_warnings", False)
    if type(confirm_warnings) is not bool:
        return None
    # The header as request.headers reads it, without building that mapping of every header (its only use).
    key = request.META.get("HTTP_IDEMPOTENCY_KEY") or body_key
    return data["values"], time_on_item_ms, key, data.get("media_played"), confirm_warnings


class Door:
    """Mixed in before ``APIView`` by the claim and submit views: ``dispatch`` answers a signed-in session's POST
    itself (steps 1–3 and the error shape of the module's docstring) through the view's ``door(request, user,
    **url_kwargs)``, which returns the response, or None for DRF's dispatch."""

    _csrf = CSRFCheck(lambda request: None)

    def door(self, request, user, **url_kwargs) -> HttpResponse | None:
        return None

    def dispatch(self, request, *args, **kwargs):
        if request.method == "POST" and "HTTP_AUTHORIZATION" not in request.META:
            user = request_user(request)
            signed_in = user.is_authenticated and user.is_active
            if signed_in and self._csrf_accepts(request) and self._permitted(request, args, kwargs):
                try:
                    # The view's throttle_classes, as DRF's dispatch runs them; a refusal is an ApplicationError (429).
                    self.check_throttles(request)
                    response = self.door(request, user, **kwargs)
                except ApplicationError as error:
                    response = json_response(application_error_body(error), error.status_code)
                    for header, value in error.headers.items():
                        response[header] = value
                if response is not None:
                    response["Allow"] = ", ".join(self.allowed_methods)
                    return response
        return super().dispatch(request, *args, **kwargs)

    def _csrf_accepts(self, request) -> bool:
        # The same check as DRF's SessionAuthentication.enforce_csrf; the middleware has already read the cookie.
        if "CSRF_COOKIE" not in request.META:
            self._csrf.process_request(request)
        return self._csrf.process_view(request, None, (), {}) is None

    def _permitted(self, request, args, kwargs) -> bool:
        # The view's permission_classes, as DRF's check_permissions runs them (on Django's request, whose user is
        # the session's): any refusal and DRF's dispatch answers, with its 403.
        self.args, self.kwargs = args, kwargs
        return all(permission.has_permission(request, self) for permission in self.get_permissions())  # type: ignore[attr-defined]
