"""Production: secrets are required, transport is secure."""

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import env

# No default: production refuses to start without a real secret rather than sign sessions with a known one.
SECRET_KEY = env("DJANGO_SECRET_KEY")
if len(SECRET_KEY.strip()) < 50 or len(set(SECRET_KEY)) < 5:
    raise ImproperlyConfigured(
        "DJANGO_SECRET_KEY must be a random value of at least 50 characters "
        "(for example: python -c 'import secrets; print(secrets.token_urlsafe(64))')"
    )
# Release rater pseudonyms must survive a SECRET_KEY rotation, so they have their own secret.
CONCORD_RATER_ID_SECRET = env("CONCORD_RATER_ID_SECRET")
DEBUG = False
# Commands that must not run here as they do locally (seed_demo) read this.
CONCORD_PRODUCTION = True
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SECURE = True
X_FRAME_OPTIONS = "DENY"

# Sessions and CSRF: secure-only cookies, the __Host- prefix (secure, whole site, no Domain) so a
# sibling subdomain cannot plant or read them, SameSite=Lax against cross-site posts, and sessions
# that end CONCORD_SESSION_HOURS after log-in.
SESSION_COOKIE_NAME = "__Host-sessionid"
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_AGE = env.int("CONCORD_SESSION_HOURS", default=12) * 3600
CSRF_COOKIE_SAMESITE = "Lax"
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
