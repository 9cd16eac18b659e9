"""Hostile text is refused with a 400 that says what and where, before the database sees it: every route, every
method, NUL characters and lone surrogates in the path, the query, a form, a JSON body, JSON nested 1,000 deep, and
numbers that are not finite (1e999, NaN, Infinity)."""

from __future__ import annotations

import json

import pytest
from django.db import transaction
from django.test import Client
from django.urls import get_resolver

from annotation.importers.streams import CountingReader, iter_jsonl
from core.text_checks import HostileInput, check_json_depth
from tests.frontend import test_role_walk as role_walk
from tests.frontend.test_role_walk import ADMIN_PREFIX, fill, methods_of, walk

pytestmark = pytest.mark.django_db
scene = role_walk.scene  # the role walk's objects: campaign Y, bob's lease, a release, a job

DEEP = "[" * 1000 + "]" * 1000
# JSON text as a client sends it: the escapes reach the parser, which turns them into the hostile characters.
JSON_BODIES = {
    "NUL in a value": '{"values": {"rationale": "a\\u0000b"}, "reason": "x\\u0000", "name": "\\u0000"}',
    "lone surrogate in a value": '{"values": {"rationale": "\\ud800"}, "reason": "\\udfff", "name": "\\ud800"}',
    "NUL in a key": '{"\\u0000": 1, "values": {"\\u0000": 1}}',
    "nested 1,000 deep": '{"values": ' + DEEP + ', "settings": ' + DEEP + "}",
    # Python's json reads these as float('inf') and float('nan'), which jsonb refuses.
    "a number that is not finite": '{"values": {"overall": 1e999}, "reason": NaN, "name": -Infinity, "settings": Infinity}',
}
EXPECTED_MESSAGE = {
    "NUL in a value": "contains a NUL character (U+0000), which is not accepted.",
    "lone surrogate in a value": "contains a lone surrogate (U+D800–U+DFFF), which is not accepted.",
    "NUL in a key": "a key in the JSON body contains a NUL character (U+0000), which is not accepted.",
    "nested 1,000 deep": "JSON nested more than 32 levels deep is not accepted.",
    "a number that is not finite": "is not a finite number (",
}


def client_for(scene, route):
    client = Client()
    # bob holds the lease the assignment routes name; the admin may use every other route.
    client.force_login(scene["people"]["bob" if route.startswith("api/v1/assignments/") else "admin"])
    return client


def routes(scene):
    for route, view in walk(get_resolver().url_patterns):
        if route.startswith(ADMIN_PREFIX) or route == "logout/":
            continue
        prefix = next((p for p in scene["by_prefix"] if route.startswith(p)), None)
        yield route, view, fill(route, {**scene["params"], **scene["by_prefix"].get(prefix, {})})


def send(client, method, url, **kwargs):
    with transaction.atomic():
        response = getattr(client, method.lower())(url, **kwargs)
        transaction.set_rollback(True)
    return response


def message_of(response) -> str:
    if response["Content-Type"].startswith("application/json"):
        return response.json().get("message", "")
    return response.content.decode()


def test_every_route_refuses_nul_in_its_path_query_and_form_with_a_400_naming_the_place(scene):
    failures, checked = [], 0
    for route, view, url in routes(scene):
        client = client_for(scene, route)
        for method in methods_of(view):
            attempts = {
                "path": (url.rstrip("/") + "%00/" if url.endswith("/") else url + "%00", {}, "The path contains a NUL"),
                "query": (url + "?campaign=%00&q=x", {}, "The query parameter campaign contains a NUL"),
                "query name": (url + "?a%00b=1", {}, "A query parameter's name contains a NUL"),
            }
            if method == "POST":
                attempts["form"] = (url, {"data": {"reason": "ok", "note": "x\x00y"}}, "The form field note contains a NUL")
            elif method in ("PUT", "PATCH") and route.startswith("api/"):
                attempts["form"] = (url, {"data": "reason=ok&note=x%00y", "content_type": "application/x-www-form-urlencoded"},
                                    "The form field note contains a NUL")
            for where, (target, kwargs, expected) in attempts.items():
                response = send(client, method, target, **kwargs)
                checked += 1
                if response.status_code != 400 or expected not in message_of(response):
                    failures.append(f"{method} {target} ({where}): {response.status_code} {message_of(response)[:120]!r}")
    assert checked > 150
    assert not failures, "\n".join(failures)


def test_every_json_body_with_hostile_text_or_depth_gets_a_400_or_is_never_read(scene):
    """An API view that reads its body answers 400 with the message; one that takes no body (and every page, which
    reads forms only) answers as usual; none answers 5xx."""
    failures, refused = [], 0
    for route, view, url in routes(scene):
        client = client_for(scene, route)
        for method in methods_of(view):
            if method == "GET":
                continue
            for name, body in JSON_BODIES.items():
                response = send(client, method, url, data=body, content_type="application/json",
                                HTTP_IDEMPOTENCY_KEY=f"hostile-{name}")
                if response.status_code >= 500:
                    failures.append(f"{method} {url} ({name}): {response.status_code}")
                elif response.status_code == 400 and route.startswith("api/"):
                    refused += 1
                    if EXPECTED_MESSAGE[name] not in message_of(response):
                        failures.append(f"{method} {url} ({name}): 400 {message_of(response)[:160]!r}")
    assert not failures, "\n".join(failures)
    assert refused >= 40


@pytest.mark.parametrize("path", ["/api/v1/assignments/{lease}/draft/", "/api/v1/assignments/{lease}/submit/"])
@pytest.mark.parametrize("name", list(JSON_BODIES))
def test_the_work_queue_refuses_hostile_answers_and_keeps_the_lease_as_it_was(scene, path, name):
    """The work queue's own door (session, CSRF-exempt test client) passes hostile bodies to DRF's 400."""
    lease = scene["lease"]
    client = client_for(scene, "api/v1/assignments/")
    method = "put" if path.endswith("draft/") else "post"
    response = getattr(client, method)(path.format(lease=lease.pk), data=JSON_BODIES[name],
                                       content_type="application/json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert response.status_code == 400
    assert response.json() == {"code": "parse_error", "message": response.json()["message"]}
    assert EXPECTED_MESSAGE[name] in response.json()["message"]
    lease.refresh_from_db()
    assert (lease.status, lease.draft) == ("active", {})


def test_the_media_route_and_stats_query_from_the_report_answer_400():
    client = Client()
    assert client.get("/media/%00").status_code == 400
    assert "The path contains a NUL character" in client.get("/media/%00").content.decode()
    response = client.get("/api/v1/me/stats/?campaign=%00")
    assert response.status_code == 400
    assert response.json() == {"code": "invalid_text", "message": "The query parameter campaign contains a NUL character "
                                                                  "(U+0000), which is not accepted."}


def test_an_upload_with_nul_in_a_text_field_is_refused_and_an_import_line_with_nul_is_an_error_of_that_line(client):
    """The text fields sent with a file are refused like any form's (Django itself drops a NUL from the file's
    name); inside an imported file each line is checked, and a bad line is that line's error."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("pairs.jsonl", b"{}\n")
    response = client.post("/api/v1/imports/", {"file": upload, "campaign": "c\x00", "format": "concord"})
    assert response.status_code == 400
    assert response.json()["message"] == "The form field campaign contains a NUL character (U+0000), which is not accepted."
    lines = b'{"prompt": "ok"}\n{"prompt": "bad\\u0000"}\n{"prompt": "\\ud800"}\n' + DEEP.encode() + b"\n"
    records = list(iter_jsonl(CountingReader(__import__("io").BytesIO(lines))))
    assert [r.error for r in records] == [
        None,
        "prompt contains a NUL character (U+0000), which is not accepted.",
        "prompt contains a lone surrogate (U+D800–U+DFFF), which is not accepted.",
        "JSON nested more than 64 levels deep is not accepted.",
    ]


def test_the_depth_check_ignores_brackets_inside_strings_and_counts_levels_exactly():
    check_json_depth(b'{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "b": [[[1]]]}', limit=4)
    check_json_depth(json.dumps({"a": [[[["\\\"]["]]]]}).encode(), limit=5)
    with pytest.raises(HostileInput, match="nested more than 4 levels"):
        check_json_depth(b'{"a": [[[[1]]]]}', limit=4)


def test_a_draft_with_200000_unknown_keys_gets_a_short_error(scene):
    lease = scene["lease"]
    client = client_for(scene, "api/v1/assignments/")
    body = json.dumps({"values": {f"unknown-question-{i}": 1 for i in range(200_000)}})
    response = client.put(f"/api/v1/assignments/{lease.pk}/draft/", data=body, content_type="application/json")
    assert response.status_code == 400
    assert len(response.content) < 5_000
    assert response.json()["extra"]["unknown"] == 200_000
    assert response.json()["message"].endswith("and 199,980 more.")


def test_raw_surrogate_bytes_and_escapes_are_refused_by_every_json_reader():
    """A lone surrogate written as UTF-8 bytes is no UTF-8 (refused by the decoder); written as an escape it is
    caught by the walk, which the quick scan for such escapes never skips."""
    from core.text_checks import json_may_hold_hostile_text
    from core.web.hostile_input import json_loads_checked

    with pytest.raises(ValueError, match="surrogates not allowed|invalid continuation byte|can't decode"):
        json_loads_checked(b'{"a": "\xed\xa0\x80"}')
    with pytest.raises(HostileInput, match="a lone surrogate"):
        json_loads_checked(b'{"a": ["ok", "\\uDBFF"]}')
    assert json_loads_checked(b'{"a": "\\ud83d\\ude00 \\u00e9"}') == {"a": "\U0001f600 \u00e9"}
    assert not json_may_hold_hostile_text(b'{"a": "\\u00e9 plain"}')


def test_an_error_never_echoes_more_than_it_must():
    """Whatever a service puts in an error, the answer is cut: 20 entries per list or object, 300 characters per
    string, 1,000 per message, four levels."""
    from core.api.exceptions import application_error_body
    from core.errors import ApplicationError

    body = application_error_body(ApplicationError(
        "x" * 5_000, code="invalid", extra={"fields": {f"k{i}": "v" * 10_000 for i in range(1_000)},
                                            "deep": [[[[["bottom"]]]]]}))
    assert len(json.dumps(body)) < 10_000
    assert body["message"].endswith("… (5,000 characters)")
    assert body["extra"]["fields"]["…"] == "980 more" and body["extra"]["fields"]["k0"].endswith("(10,000 characters)")
    assert body["extra"]["deep"] == [[["…"]]]


def test_judge_settings_typed_into_the_admin_are_checked_too():
    """The admin's JSON field turns the text \\u0000 into a NUL after the request checks; the judges' validation
    (behind both the API and the admin) refuses it with the setting's name."""
    from curation.judges import registry
    from curation.judges.base import JudgeConfigError

    with pytest.raises(JudgeConfigError, match=r"^settings\.model contains a NUL character \(U\+0000\)"):
        registry.validate("openai-chat", {"base_url": "https://api.openai.com/v1", "model": "m\x00"})
    with pytest.raises(JudgeConfigError, match=r"^settings\.extra_body\.x contains a lone surrogate"):
        registry.validate("openai-chat", {"base_url": "https://api.openai.com/v1", "model": "m", "extra_body": {"x": "\ud800"}})
