"""The error pages (``handler400``, ``handler403``, ``handler404``, ``handler500`` in config/urls.py): Concord's page
with its navigation, or under /api/ the API's one error shape.

The 403 and 404 pages are rendered with the request, so the navigation is the signed-in person's. The 400 and 500
pages are rendered without it: a 400 may come from a request Django refused to trust (a host it does not serve),
and a 500 must not need the session, the user or the database, any of which may be what failed. A lost database
raised outside a view reaches ``server_error`` too, and is answered as the fault it is (``core.db_faults``: 503).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader

from core import db_faults

PAGES = {
    400: ("Bad request", "Concord could not read this request. Go back and try again."),
    403: ("Not allowed", "Your account may not open this page."),
    404: ("Page not found", "There is no page at this address. It may have moved, or the link may be wrong."),
    500: ("Something went wrong", "Concord could not answer this request; it has been logged. Nothing you saved "
                                  "before is lost. Try again in a moment."),
}
API_ERRORS = {
    400: ("bad_request", "The request could not be read."),
    403: ("permission_denied", "You do not have permission to perform this action."),
    404: ("not_found", "No such resource."),
    500: ("server_error", "The server could not answer this request; it has been logged."),
}


def _is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith("/api/")


def _api_error(status: int) -> JsonResponse:
    code, message = API_ERRORS[status]
    return JsonResponse({"code": code, "message": message}, status=status)


def error_page(request: HttpRequest | None, status: int, template: str = "frontend/errors/error.html") -> HttpResponse:
    """The page for ``status``; with ``request`` None it is rendered without the request's context (no session, no
    user, no database)."""
    heading, explanation = PAGES[status]
    body = loader.get_template(template).render(
        {"status": status, "heading": heading, "explanation": explanation}, request
    )
    return HttpResponse(body, status=status, content_type="text/html; charset=utf-8")


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _api_error(400) if _is_api(request) else error_page(None, 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _api_error(403) if _is_api(request) else error_page(request, 403, "frontend/errors/403.html")


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Under /api/ a URL no route matches (an id that is not a number, say) answers in the API's error shape, as
    the schema documents."""
    return _api_error(404) if _is_api(request) else error_page(request, 404)


def server_error(request: HttpRequest) -> HttpResponse:
    """A database fault (raised by a middleware: the session and its user) is the 503 of ``core.db_faults``; any
    other error is the 500, rendered without the database."""
    return db_faults.server_error(request, otherwise=_server_error)


def _server_error(request: HttpRequest) -> HttpResponse:
    return _api_error(500) if _is_api(request) else error_page(None, 500)
