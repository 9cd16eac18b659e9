"""The Content-Security-Policy every response carries: scripts only from Concord's own static files, no inline
script or event handler anywhere, nothing framed, forms posted only to Concord.

Media may come from the object store (presigned S3 URLs), so its origins join img-src, media-src and
connect-src, plus CONCORD_CSP_EXTRA_ORIGINS. The API documentation pages (Swagger UI, ReDoc) style themselves
with inline styles, so there alone style-src also takes 'unsafe-inline'; their scripts stay strict. Elsewhere
style-src also takes a nonce made for the response (``request.csp_nonce``): a page passes it to a library that
writes its own <style> element (wavesurfer.js, inside its shadow root), never to markup from a template.

The policy is made once per process for each kind of path (with or without inline styles) and only the nonce
changes per response; a change to one of POLICY_SETTINGS (``override_settings`` in tests) makes it again.
"""

import functools
import secrets
from urllib.parse import urlsplit

from django.conf import settings
from django.core.signals import setting_changed

HEADER = "Content-Security-Policy"
INLINE_STYLE_PATHS = ("/api/docs/", "/api/redoc/")
# The settings the policy is made of: it is made once per process, and again when a test changes one of them.
POLICY_SETTINGS = ("STORAGES", "CONCORD_RELEASES_S3", "CONCORD_CSP_EXTRA_ORIGINS")
_NONCE = "{nonce}"  # where a response's nonce goes in the policy (a nonce is URL-safe base64: no braces)


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
    """The policy for a response to ``path``, its style-src taking ``nonce`` if given."""
    template = _policy(inline_styles=path.startswith(INLINE_STYLE_PATHS), with_nonce=bool(nonce))
    return template.replace(_NONCE, nonce) if nonce else template


@functools.cache
def _policy(*, inline_styles: bool, with_nonce: bool) -> str:
    origins = media_origins()
    media = " ".join(["'self'", "data:", "blob:", *origins])
    if inline_styles:
        styles = "'self' 'unsafe-inline'"  # a nonce beside 'unsafe-inline' would make browsers ignore it
    else:
        styles = f"'self' 'nonce-{_NONCE}'" if with_nonce else "'self'"
    directives = {
        "default-src": "'self'",
        "script-src": "'self'",
        "style-src": styles,
        "img-src": media,
        "media-src": media,
        # blob: is the page's own data: the 3D viewer's glTF loader fetches each embedded texture from a blob URL.
        "connect-src": " ".join(["'self'", "blob:", *origins]),
        "font-src": "'self' data:",
        "worker-src": "'self' blob:",
        "object-src": "'none'",
        "base-uri": "'self'",
        "form-action": "'self'",
        "frame-ancestors": "'none'",
    }
    return "; ".join(f"{name} {value}" for name, value in directives.items())


def _forget_policy(setting, **kwargs):
    if setting in POLICY_SETTINGS:
        _policy.cache_clear()


setting_changed.connect(_forget_policy)


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
