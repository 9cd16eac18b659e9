"""The API's documentation pages, Swagger UI and ReDoc, served entirely from Concord.

A browser that is not signed in is sent to the sign-in page and back (``?next=``), not shown a bare 403; the
schema itself (``/api/schema/``) still answers an API client in the API's way. ReDoc's bundle (from
drf-spectacular-sidecar) shows its maker's logo from their CDN in the sidebar, with no option to turn it off: the
bundle is served here with that address replaced by a small mark among Concord's static files.
"""

from __future__ import annotations

import functools
import hashlib

from django.contrib.auth.views import redirect_to_login
from django.contrib.staticfiles import finders
from django.http import HttpResponse
from django.templatetags.static import static
from django.urls import reverse
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView
from rest_framework.exceptions import NotAuthenticated

REDOC_BUNDLE = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
REDOC_LOGO_CDN = "https://cdn.redoc.ly/redoc/logo-mini.svg"
REDOC_LOGO = "frontend/api-docs/docs-mark.svg"


class SignInFirst:
    """Mixed in before a docs view: a request without credentials is redirected to the sign-in page."""

    def handle_exception(self, exc):
        if isinstance(exc, NotAuthenticated):
            return redirect_to_login(self.request.get_full_path())
        return super().handle_exception(exc)


class SwaggerView(SignInFirst, SpectacularSwaggerSplitView):
    pass


class RedocView(SignInFirst, SpectacularRedocView):
    template_name = "frontend/redoc.html"

    @staticmethod
    def _redoc_standalone():
        return reverse("api-redoc-bundle")


@functools.cache
def _redoc_bundle() -> tuple[bytes, str]:
    """The bundle with the logo's address pointing home, and its ETag; read once per process."""
    with open(finders.find(REDOC_BUNDLE), "rb") as bundle:
        text = bundle.read().replace(REDOC_LOGO_CDN.encode(), static(REDOC_LOGO).encode())
    return text, f'"{hashlib.sha256(text).hexdigest()[:32]}"'


def redoc_bundle(request):
    """ReDoc's script, self-hosted to the last image (see the module's docstring)."""
    body, etag = _redoc_bundle()
    if request.headers.get("If-None-Match") == etag:
        return HttpResponse(status=304, headers={"ETag": etag})
    return HttpResponse(body, content_type="text/javascript; charset=utf-8",
                        headers={"ETag": etag, "Cache-Control": "public, max-age=3600"})
