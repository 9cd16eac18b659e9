"""The Content-Security-Policy every response carries: scripts only from Concord's own static files, no inline
script or event handler anywhere, nothing framed, forms posted only to Concord.

Media may come from the object store (presigned S3 URLs), so its origins join img-src, media-src and
connect-src, plus CONCORD_CSP_EXTRA_ORIGINS. The API documentation pages (Swagger UI, ReDoc) style themselves
with inline styles, so there alone style-src also takes 'unsafe-inline'; their scripts stay strict. Elsewhere
style-src also takes a nonce made for the response (``request.csp_nonce``): a page passes it to a library that
writes its own <style> element (wavesurfer.js, inside its shadow root), never to markup from a template.
"""

import secrets
from urllib.parse import urlsplit

from django.conf import settings

HEADER = "Content-Security-Policy"
INLINE_STYLE_PATHS = ("/api/docs/", "/api/redoc/")


def _origin(url: str | None) -> str | None:
    if not url:
        return None
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else None


def media_origins() -> list[str]:
    """Where the browser fetches media and release files from besides Concord itself."""
    origins = []
    options = settings.STORAGES.get("default", {}).get("OPTIONS", {})
    if "bucket_name" in options:
        origins.append(_origin(options.get("endpoint_url")) or "https://*.amazonaws.com")
    releases = getattr(settings, "CONCORD_RELEASES_S3", {}) or {}
    if releases.get("bucket"):
        origins.append(_origin(releases.get("endpoint_url")) or "https://*.amazonaws.com")
    origins.extend(getattr(settings, "CONCORD_CSP_EXTRA_ORIGINS", []))
    return list(dict.fromkeys(o for o in origins if o))


def policy(path: str, *, nonce: str | None = None) -> str:
    media = " ".join(["'self'", "data:", "blob:", *media_origins()])
    if path.startswith(INLINE_STYLE_PATHS):
        styles = "'self' 'unsafe-inline'"  # a nonce beside 'unsafe-inline' would make browsers ignore it
    else:
        styles = f"'self' 'nonce-{nonce}'" if nonce else "'self'"
    directives = {
        "default-src": "'self'",
        "script-src": "'self'",
        "style-src": styles,
        "img-src": media,
        "media-src": media,
        "connect-src": " ".join(["'self'", *media_origins()]),
        "font-src": "'self' data:",
        "worker-src": "'self' blob:",
        "object-src": "'none'",
        "base-uri": "'self'",
        "form-action": "'self'",
        "frame-ancestors": "'none'",
    }
    return "; ".join(f"{name} {value}" for name, value in directives.items())


class ContentSecurityPolicyMiddleware:
    """Adds the policy to every response that does not set its own."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.csp_nonce = secrets.token_urlsafe(16)
        response = self.get_response(request)
        if HEADER not in response:
            response[HEADER] = policy(request.path_info, nonce=request.csp_nonce)
        return response
