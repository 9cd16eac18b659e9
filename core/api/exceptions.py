"""One exception handler: ApplicationError and Django's errors become clean 4xx responses, a lost database a 503
(core.db_faults)."""

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.db_faults import api_fault_response
from core.errors import ApplicationError

# An error echoes what it found wrong, never the whole request: messages, strings, lists and objects are cut.
MAX_MESSAGE_CHARS = 1_000
MAX_ECHO_CHARS = 300
MAX_ECHO_ITEMS = 20
MAX_ECHO_DEPTH = 4


def bounded(value, depth: int = 0):
    """``value`` (an error's details) cut to at most MAX_ECHO_ITEMS entries per list or object, MAX_ECHO_CHARS per
    string and MAX_ECHO_DEPTH levels, saying how much was left out."""
    if isinstance(value, str):
        return value if len(value) <= MAX_ECHO_CHARS else f"{value[:MAX_ECHO_CHARS]}… ({len(value):,} characters)"
    if depth >= MAX_ECHO_DEPTH and isinstance(value, (list, dict)):
        return "…"
    if isinstance(value, dict):
        out = {bounded(str(key)): bounded(item, depth + 1) for key, item in list(value.items())[:MAX_ECHO_ITEMS]}
        if len(value) > MAX_ECHO_ITEMS:
            out["…"] = f"{len(value) - MAX_ECHO_ITEMS:,} more"
        return out
    if isinstance(value, (list, tuple)):
        out = [bounded(item, depth + 1) for item in value[:MAX_ECHO_ITEMS]]
        if len(value) > MAX_ECHO_ITEMS:
            out.append(f"… {len(value) - MAX_ECHO_ITEMS:,} more")
        return out
    return value


def _message(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE_CHARS else f"{text[:MAX_MESSAGE_CHARS]}… ({len(text):,} characters)"


def application_error_body(exc: ApplicationError) -> dict:
    body = {"code": exc.code, "message": _message(exc.message)}
    if exc.extra:
        body["extra"] = bounded(exc.extra)
    return body


def exception_handler(exc, context):
    fault = api_fault_response(exc)
    if fault is not None:
        return fault
    if isinstance(exc, ApplicationError):
        return Response(application_error_body(exc), status=exc.status_code, headers=exc.headers or None)
    if isinstance(exc, ValidationError):
        exc = exceptions.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(exc, exceptions.APIException):
        detail = response.data
        message = detail.get("detail", "Invalid input.") if isinstance(detail, dict) else "Invalid input."
        response.data = {"code": getattr(exc, "default_code", "error"), "message": _message(str(message))}
        if isinstance(exc, exceptions.ValidationError):
            response.data["extra"] = {"fields": bounded(detail)}
    return response
