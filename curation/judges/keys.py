"""Which environment variables a judge may send as its API key: only the admin's judge-key variables, never Concord's.

Rules (``refusal``): a judge's ``api_key_env`` must match the admin's pattern (``CONCORD_JUDGE_API_KEY_ENV_PATTERN``,
a shell-style glob, ``CONCORD_JUDGE_KEY_*`` by default; an empty pattern allows none), and it must never name a
variable Concord, its settings or its libraries read (``CONCORD_VARIABLES``, and every name in a
``RESERVED_PREFIXES`` family but the ``CONCORD_JUDGE_KEY_`` one), whatever the pattern says: a pattern of ``*``
cannot send ``DJANGO_SECRET_KEY`` to a judge host. The rule is applied when a judge is saved and again just
before its key is read, so a judge stored before the rule (or the pattern) changed is refused at call time
without its key being sent. No Django here but ``configured_pattern``.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

SETTING = "CONCORD_JUDGE_API_KEY_ENV_PATTERN"
DEFAULT_PATTERN = "CONCORD_JUDGE_KEY_*"
JUDGE_KEY_FAMILY = "CONCORD_JUDGE_KEY_"

# Every variable Concord's code, settings and docker-compose.yml read (tests/curation/test_judges_secrets.py fails
# when a read is added in config/, core/, annotation/, curation/, frontend/, demo/ or the compose file and is not
# listed here).
CONCORD_VARIABLES = frozenset({
    "CACHE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CELERY_TASK_ALWAYS_EAGER",
    "CELERY_VISIBILITY_TIMEOUT", "CI", "CONCORD_API_RATES", "CONCORD_BASE_URL", "CONCORD_CELERY_DIR", "CONCORD_CSP_EXTRA_ORIGINS",
    "CONCORD_BROKER_PUBLISH_CONNECT_TIMEOUT", "CONCORD_BROKER_PUBLISH_TIMEOUT", "DATABASE_CONN_HEALTH_CHECKS",
    "CONCORD_DEBUG_404", "CONCORD_EMBEDDED_WORKER", "CONCORD_JOB_MAX_DISPATCHES", "CONCORD_JOB_QUEUED_SECONDS",
    "CONCORD_JOB_STALL_SECONDS", "CONCORD_JUDGE_ALLOWED_HOSTS", "CONCORD_JUDGE_API_KEY_ENV_PATTERN",
    "CONCORD_LEADERBOARD_BOOTSTRAP_BUDGET",
    "CONCORD_LOGIN_FAILURES", "CONCORD_LOGIN_FAILURES_PER_ACCOUNT", "CONCORD_LOGIN_FAILURES_PER_ADDRESS",
    "CONCORD_LOGIN_WINDOW_SECONDS", "CONCORD_MAX_IMAGE_PIXELS", "CONCORD_MAX_JSON_DEPTH", "CONCORD_MAX_MEDIA_BYTES",
    "CONCORD_MAX_PREDICTIONS_BYTES", "CONCORD_MAX_UPLOAD_BYTES", "CONCORD_PREFILTER_BATCH_PAIRS",
    "CONCORD_RATER_ID_SECRET", "CONCORD_RELEASES_LICENSE", "CONCORD_RELEASES_PRESIGN_SECONDS",
    "CONCORD_RELEASES_ROOT", "CONCORD_SESSION_HOURS", "CONCORD_TAG", "CONCORD_TEST_DB", "CONCORD_TRUSTED_PROXIES",
    "DATABASE_CONN_MAX_AGE", "DATABASE_PREPARED_STATEMENTS", "DATABASE_URL", "DJANGO_ALLOWED_HOSTS",
    "DJANGO_CSRF_TRUSTED_ORIGINS", "DJANGO_DATA_UPLOAD_MAX_MEMORY_SIZE", "DJANGO_DEBUG", "DJANGO_LOG_LEVEL",
    "DJANGO_MEDIA_ROOT", "DJANGO_SECRET_KEY", "DJANGO_SECURE_HSTS_SECONDS", "DJANGO_SECURE_SSL_REDIRECT",
    "DJANGO_SETTINGS_MODULE", "DJANGO_STATIC_ROOT", "MINIO_ROOT_PASSWORD", "MINIO_ROOT_USER", "POSTGRES_DB",
    "POSTGRES_PASSWORD", "POSTGRES_USER", "REDIS_URL", "RELEASES_S3_ACCESS_KEY_ID", "RELEASES_S3_BUCKET",
    "RELEASES_S3_ENDPOINT_URL", "RELEASES_S3_MULTIPART_BYTES", "RELEASES_S3_PART_BYTES", "RELEASES_S3_PREFIX",
    "RELEASES_S3_REGION", "RELEASES_S3_SECRET_ACCESS_KEY", "RUN_MAIN", "S3_ACCESS_KEY_ID", "S3_BUCKET",
    "S3_ENDPOINT_URL", "S3_PRESIGN_SECONDS", "S3_REGION", "S3_SECRET_ACCESS_KEY",
})
# Families of the same, and of the libraries and services Concord runs with (Django, libpq's PG*, boto's AWS_* and
# BOTO_*, Celery, Redis, the compose file's PostgreSQL and MinIO): a variable added to one later is refused too.
RESERVED_PREFIXES = (
    "DJANGO_", "DATABASE_", "S3_", "RELEASES_S3_", "AWS_", "BOTO_", "CELERY_", "REDIS_", "CACHE_", "PG", "POSTGRES_",
    "MINIO_", "CONCORD_",
)


def reserved(name: str) -> bool:
    """True when ``name`` is a variable Concord itself reads, or one of a family it does."""
    if name in CONCORD_VARIABLES:
        return True
    return any(name.startswith(prefix) for prefix in RESERVED_PREFIXES) and not name.startswith(JUDGE_KEY_FAMILY)


def refusal(name: str, pattern: str) -> str | None:
    """Why ``name`` may not hold a judge's key under ``pattern``, or None when it may."""
    if reserved(name):
        return (f"{name} is a variable Concord itself reads; a judge's key must be in a variable of its own, "
                f"named like {pattern or DEFAULT_PATTERN}")
    if not pattern:
        return f"no variable may hold a judge's key: an admin has set {SETTING} to nothing"
    if not fnmatchcase(name, pattern):
        return f"{name} does not match {pattern}, the pattern an admin set for judge keys ({SETTING})"
    return None


def configured_pattern() -> str:
    """The pattern from Django's settings, read at call time; the default without Django."""
    from django.conf import settings

    if not settings.configured:
        return DEFAULT_PATTERN
    return str(getattr(settings, SETTING, DEFAULT_PATTERN)).strip()
