"""The Content-Security-Policy header: made once per process, with a new nonce per response, made again when a
setting it is made of changes."""

import re

from django.test import override_settings

from core.web.csp import HEADER, policy

S3 = {"BACKEND": "storages.backends.s3.S3Storage",
      "OPTIONS": {"bucket_name": "media", "endpoint_url": "http://127.0.0.1:9000/some/path"}}


def _directives(response) -> dict[str, str]:
    return dict(part.split(" ", 1) for part in response[HEADER].split("; "))


def test_each_response_gets_its_own_nonce_in_the_same_policy(client):
    first, second = client.get("/login/"), client.get("/login/")
    nonces = [re.fullmatch(r"'self' 'nonce-([\w-]+)'", _directives(r)["style-src"]).group(1) for r in (first, second)]
    assert nonces[0] != nonces[1]
    assert first[HEADER].replace(nonces[0], "") == second[HEADER].replace(nonces[1], "")
    assert _directives(first)["script-src"] == "'self'"
    assert _directives(first)["frame-ancestors"] == "'none'"
    assert _directives(first)["connect-src"] == "'self' blob:"  # the page's own blobs (a GLB's textures), nothing else


def test_the_api_documentation_alone_takes_inline_styles_and_no_nonce():
    assert "style-src 'self' 'unsafe-inline';" in policy("/api/docs/", nonce="abc")
    assert "nonce" not in policy("/api/docs/", nonce="abc")
    assert "style-src 'self' 'nonce-abc';" in policy("/login/", nonce="abc")
    assert "style-src 'self';" in policy("/login/")
    assert "style-src 'self';" in policy("/login/", nonce="")  # an empty nonce is no nonce, as before the cache


def test_a_changed_setting_changes_the_policy_and_its_end_changes_it_back(client, settings):
    before = _directives(client.get("/login/"))
    assert "http://127.0.0.1:9000" not in before["img-src"]
    with override_settings(STORAGES={**settings.STORAGES, "default": S3},
                           CONCORD_CSP_EXTRA_ORIGINS=["https://cdn.example.org"]):
        during = _directives(client.get("/login/"))
        for directive in ("img-src", "media-src", "connect-src"):
            assert "http://127.0.0.1:9000" in during[directive].split()  # the endpoint's origin, not its path
            assert "https://cdn.example.org" in during[directive].split()
    assert _directives(client.get("/login/")) | {"style-src": ""} == before | {"style-src": ""}
