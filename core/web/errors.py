"""Error responses as a person reads them, and as the server log records them.

``StyledNotFoundMiddleware``: with ``DEBUG`` on (the demo, ``make serve``) Django answers a 404 with its debug page,
which lists every URL pattern and, under the Content-Security-Policy, shows unstyled. This middleware answers it
with the root URLconf's ``handler404`` instead, as production does. ``CONCORD_DEBUG_404=true`` brings the debug
page back; with ``DEBUG`` off the middleware is not used at all.

``ClientErrorsOnOneLine``: Django logs a refused request (403, 400) with the exception's traceback, which says
nothing a log reader needs; this filter keeps the one line (with the exception's message) and leaves a 500's
traceback as it is.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.http import Http404
from django.urls import get_resolver


def _not_found(request, exception: Exception):
    callback = get_resolver(getattr(request, "urlconf", None)).resolve_error_handler(404)
    return callback(request, exception=exception)


class StyledNotFoundMiddleware:
    """With DEBUG on: a 404, from a URL no route matches or from a view raising Http404, is ``handler404``'s."""

    def __init__(self, get_response):
        if not settings.DEBUG or getattr(settings, "CONCORD_DEBUG_404", False):
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # No route matched: Django has already written its debug page (the resolver's error never reaches
        # process_exception); a view's own 404 has a resolver_match and is left alone.
        if response.status_code == 404 and getattr(request, "resolver_match", None) is None:
            return _not_found(request, Http404(request.path))
        return response

    def process_exception(self, request, exception):
        return _not_found(request, exception) if isinstance(exception, Http404) else None


class ClientErrorsOnOneLine(logging.Filter):
    """A record of a response below 500 (``django.request``, ``django.security``) loses its traceback; the
    exception's message joins the line."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if record.exc_info and status is not None and status < 500:
            exc = record.exc_info[1]
            line = record.getMessage()
            if exc is not None and str(exc):
                line = f"{line} ({type(exc).__name__}: {exc})"
            record.msg, record.args = line, ()
            record.exc_info = record.exc_text = None
        return True
