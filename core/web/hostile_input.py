"""Text a request carries is refused before anything reads it when PostgreSQL could not store it or a parser
could not survive it: NUL characters, lone surrogates, numbers that are not finite (``1e999``, ``NaN``), JSON nested
deeper than CONCORD_MAX_JSON_DEPTH.

``HostileInputMiddleware`` checks the path, the query string and POSTed form fields (names, values, uploaded
files' names); DRF's parsers (``Strict*Parser``, every API view's) check PUT and PATCH forms and JSON bodies, and
``json_loads_checked`` JSON elsewhere (uploaded predictions), the depth before the parser runs. A refusal is a 400
saying what and where. (The work queue's own door parses with orjson, which refuses what is not finite itself.)
"""

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from rest_framework.exceptions import ParseError
from rest_framework.parsers import DataAndFiles, FormParser, JSONParser, MultiPartParser

from core import text_checks
from core.text_checks import HostileInput, check_json_value, check_text, json_loads, json_may_hold_hostile_text


def check_json_depth(body: bytes) -> None:
    """``text_checks.check_json_depth`` under CONCORD_MAX_JSON_DEPTH."""
    text_checks.check_json_depth(body, limit=int(getattr(settings, "CONCORD_MAX_JSON_DEPTH", 32)))


def json_loads_checked(body: bytes):
    """``body`` parsed as JSON after the depth check, then checked for refused text; HostileInput or ValueError."""
    check_json_depth(body)
    # Decoded strictly: json.loads(bytes) would let UTF-8-encoded surrogates through (it decodes with surrogatepass).
    value = json_loads(body.decode("utf-8"))
    if json_may_hold_hostile_text(body):
        check_json_value(value)
    return value


class StrictJSONParser(JSONParser):
    """DRF's JSON parser behind the depth check, refusing NUL characters, lone surrogates and numbers not finite."""

    def parse(self, stream, media_type=None, parser_context=None):
        body = stream.read() if stream is not None else b""
        try:
            check_json_depth(body)
            value = json_loads(body.decode((parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET))
            if json_may_hold_hostile_text(body):
                check_json_value(value)
        except HostileInput as exc:
            raise ParseError(str(exc)) from exc
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {str(exc)[:200]}") from exc
        return value


def check_form(data, files) -> None:
    """HostileInput for the first form field name or value, or uploaded file name, that is refused."""
    for key, values in data.lists():
        check_text(key, where="A form field's name")
        for value in values:
            check_text(value, where=f"The form field {key}")
    for key, uploads in files.lists():
        for uploaded in uploads:
            check_text(uploaded.name or "", where=f"The name of the file in {key}")


class StrictFormParser(FormParser):
    """DRF's form parser (PUT and PATCH bodies, which Django leaves unparsed) refusing what ``check_form`` refuses."""

    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        try:
            check_form(data, type(data)())
        except HostileInput as exc:
            raise ParseError(str(exc)) from exc
        return data


class StrictMultiPartParser(MultiPartParser):
    """DRF's multipart parser refusing what ``check_form`` refuses."""

    def parse(self, stream, media_type=None, parser_context=None):
        parsed: DataAndFiles = super().parse(stream, media_type, parser_context)
        try:
            check_form(parsed.data, parsed.files)
        except HostileInput as exc:
            raise ParseError(str(exc)) from exc
        return parsed


def _request_problem(request) -> str | None:
    try:
        check_text(request.path_info, where="The path")
        for key, values in request.GET.lists():
            check_text(key, where="A query parameter's name")
            for value in values:
                check_text(value, where=f"The query parameter {key}")
        if request.method == "POST" and request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            check_form(request.POST, request.FILES)
    except HostileInput as exc:
        return str(exc)
    return None


class HostileInputMiddleware:
    """A 400 for a path, query or form that carries text ``text_problem`` refuses, before any view reads it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        message = _request_problem(request)
        if message is None:
            return self.get_response(request)
        if request.path_info.startswith("/api/"):
            return JsonResponse({"code": "invalid_text", "message": message}, status=400)
        return HttpResponse(f"Bad request: {message}\n", status=400, content_type="text/plain; charset=utf-8")
