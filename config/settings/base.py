"""Settings shared by every environment; every knob is an environment variable."""

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()

SECRET_KEY = env("DJANGO_SECRET_KEY", default="concord-local-insecure-key-change-me")
# True only in config.settings.production: seed_demo refuses to run there without --allow-production.
CONCORD_PRODUCTION = False
DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "storages",
    "core",
    "annotation",
    "curation",
    "frontend",
    "demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # A view's lost database connection answers 503 with Retry-After, every header below still set on it.
    "core.db_faults.DatabaseFaultMiddleware",
    # With DEBUG on, a 404 is still Concord's page, not Django's debug page listing every URL (CONCORD_DEBUG_404).
    "core.web.errors.StyledNotFoundMiddleware",
    "core.web.csp.ContentSecurityPolicyMiddleware",
    "core.web.uploads.UploadSizeLimitMiddleware",
    "core.web.hostile_input.HostileInputMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "annotation.accounts.sessions.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
AUTH_USER_MODEL = "annotation.User"
AUTHENTICATION_BACKENDS = ["annotation.accounts.backends.UserBackend"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def postgresql_options() -> dict:
    """Server-side binding, and statements run five times on a connection are prepared: PostgreSQL then
    parses and plans the work queue's statements once per connection, not on every request (half of its CPU
    per claim + submit). A transaction-mode pooler older than PgBouncer 1.21 needs
    DATABASE_PREPARED_STATEMENTS=false."""
    if not env.bool("DATABASE_PREPARED_STATEMENTS", default=True):
        return {}
    return {"server_side_binding": True, "prepare_threshold": 5}


# SQLite is the embedded default; DATABASE_URL switches to PostgreSQL with no code change.
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'concord.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE transactions take SQLite's write lock at BEGIN, which serializes claims.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 30, "init_command": "PRAGMA journal_mode=WAL;"}
    )
else:
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("DATABASE_CONN_MAX_AGE", default=60))
    DATABASES["default"].setdefault("OPTIONS", {}).update(postgresql_options())
# Before a request's first query a persistent connection is checked and, if PostgreSQL dropped it meanwhile (a
# restart, a failover, pg_terminate_backend), replaced: a connection lost between requests costs no request.
# One lost during a request answers 503 with Retry-After (core.db_faults).
DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool("DATABASE_CONN_HEALTH_CHECKS", default=True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Argon2id at OWASP's cost first; PBKDF2 still reads the hashes stored before it (rewritten at the next sign-in).
# Why this hasher and this cost: docs/decisions/password-hasher.md (bench/password_hashers.py measures them).
PASSWORD_HASHERS = [
    "annotation.accounts.hashers.ConcordArgon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env.path("DJANGO_STATIC_ROOT", default=str(BASE_DIR / "staticfiles"))
MEDIA_URL = "/media/"
MEDIA_ROOT = env.path("DJANGO_MEDIA_ROOT", default=str(VAR_DIR / "media"))

# Object storage: local disk by default, S3 (any S3-compatible endpoint) when a bucket is set.
AWS_STORAGE_BUCKET_NAME = env("S3_BUCKET", default="")
_media_storage = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
if AWS_STORAGE_BUCKET_NAME:
    _media_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": AWS_STORAGE_BUCKET_NAME,
            "endpoint_url": env("S3_ENDPOINT_URL", default=None),
            "access_key": env("S3_ACCESS_KEY_ID", default=None),
            "secret_key": env("S3_SECRET_ACCESS_KEY", default=None),
            "region_name": env("S3_REGION", default="us-east-1"),
            "file_overwrite": False,
            "querystring_auth": True,
            "querystring_expire": env.int("S3_PRESIGN_SECONDS", default=3600),
        },
    }
STORAGES = {
    "default": _media_storage,
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Releases: local disk under var/ by default; an S3-compatible bucket when RELEASES_S3_BUCKET is set.
CONCORD_RELEASES_ROOT = env.path("CONCORD_RELEASES_ROOT", default=str(VAR_DIR / "releases"))
CONCORD_RELEASES_S3 = {
    "bucket": env("RELEASES_S3_BUCKET", default=""),
    "prefix": env("RELEASES_S3_PREFIX", default="releases/"),
    "endpoint_url": env("RELEASES_S3_ENDPOINT_URL", default=env("S3_ENDPOINT_URL", default="")) or None,
    "access_key": env("RELEASES_S3_ACCESS_KEY_ID", default=env("S3_ACCESS_KEY_ID", default="")) or None,
    "secret_key": env("RELEASES_S3_SECRET_ACCESS_KEY", default=env("S3_SECRET_ACCESS_KEY", default="")) or None,
    "region": env("RELEASES_S3_REGION", default=env("S3_REGION", default="us-east-1")),
    "multipart_threshold": env.int("RELEASES_S3_MULTIPART_BYTES", default=64 * 1024 * 1024),
    "part_size": env.int("RELEASES_S3_PART_BYTES", default=16 * 1024 * 1024),
}
CONCORD_RELEASES_PRESIGN_SECONDS = env.int("CONCORD_RELEASES_PRESIGN_SECONDS", default=3600)
# Where people reach Concord, for links printed outside a request (invitations made on the command line).
CONCORD_BASE_URL = env("CONCORD_BASE_URL", default="http://127.0.0.1:8000")
CONCORD_RELEASES_LICENSE = env("CONCORD_RELEASES_LICENSE", default="cc-by-4.0")
# Origins the Content-Security-Policy (core.web.csp) also allows media from, beyond Concord and its S3 endpoints.
CONCORD_CSP_EXTRA_ORIGINS = env.list("CONCORD_CSP_EXTRA_ORIGINS", default=[])
# With DEBUG on, a 404 is Concord's page (core.web.errors); true shows Django's debug page, with every URL pattern.
CONCORD_DEBUG_404 = env.bool("CONCORD_DEBUG_404", default=False)
# Pseudonymous rater ids in releases are an HMAC of the user id under this secret, the same in every release.
CONCORD_RATER_ID_SECRET = env("CONCORD_RATER_ID_SECRET", default=SECRET_KEY)
CONCORD_MAX_PREDICTIONS_BYTES = env.int("CONCORD_MAX_PREDICTIONS_BYTES", default=200 * 1024 * 1024)

# Pillow's limits: anything bigger is refused on import as a likely decompression bomb.
CONCORD_MAX_IMAGE_PIXELS = env.int("CONCORD_MAX_IMAGE_PIXELS", default=40_000_000)
CONCORD_MAX_MEDIA_BYTES = env.int("CONCORD_MAX_MEDIA_BYTES", default=200 * 1024 * 1024)
# Request JSON nested deeper than this is refused before it is parsed (core.web.hostile_input).
CONCORD_MAX_JSON_DEPTH = env.int("CONCORD_MAX_JSON_DEPTH", default=32)
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DJANGO_DATA_UPLOAD_MAX_MEMORY_SIZE", default=10 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
CONCORD_MAX_UPLOAD_BYTES = env.int("CONCORD_MAX_UPLOAD_BYTES", default=2 * 1024 * 1024 * 1024)
# The first handler counts the bytes of every uploaded file and stops a body past the limit.
FILE_UPLOAD_HANDLERS = [
    "core.web.uploads.SizeLimitedUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]

# Failed log-ins (page and HTTP Basic) are counted in the cache: Redis once REDIS_URL is set, so
# every web process shares the counts; the embedded default keeps them in process memory.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
if env("CACHE_URL", default="") or env("REDIS_URL", default=""):
    # Short timeouts: while Redis is down the cache serves from the database (core.cache) at once. Redis answers in
    # about a millisecond; a request pays these once per RETRY_REDIS_SECONDS when it does not (1 s and 2 s made a
    # job start's refusal with a hung Redis take 7 s: bench/broker_refusal.py).
    CACHES = {"default": {"BACKEND": "core.cache.RedisCache",
                          "LOCATION": env("CACHE_URL", default="") or env("REDIS_URL"),
                          "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.3}}}
# Sessions in the database, each read together with its user's row in one statement (annotation.accounts.sessions).
SESSION_ENGINE = "annotation.accounts.sessions"
# Flash messages in the session, not Django's default cookie-then-session fallback: building that fallback's two
# storages cost every request (the API's claim and submit included, which never use them) about 44 Python calls;
# the session storage is built in a few and touches the session only when a message is added or read.
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"
# Failed log-ins per window: an account from one address, an account from anywhere (that account's failures
# only, so it never blocks another account), any account from one address (far higher: behind a proxy or a NAT
# many people share one address).
CONCORD_LOGIN_FAILURES = env.int("CONCORD_LOGIN_FAILURES", default=5)
CONCORD_LOGIN_FAILURES_PER_ACCOUNT = env.int("CONCORD_LOGIN_FAILURES_PER_ACCOUNT", default=5)
CONCORD_LOGIN_FAILURES_PER_ADDRESS = env.int("CONCORD_LOGIN_FAILURES_PER_ADDRESS", default=300)
CONCORD_LOGIN_WINDOW_SECONDS = env.int("CONCORD_LOGIN_WINDOW_SECONDS", default=15 * 60)
# Reverse proxies (addresses or networks) whose X-Forwarded-For names the client (core.web.proxies); empty: none.
CONCORD_TRUSTED_PROXIES = env.list("CONCORD_TRUSTED_PROXIES", default=[])
# API rate limits per user (per address when signed out) and route family (core.api.throttling): "N/period", the
# period s, m, h or d with an optional count ("100/10s"); "off" lifts one. Far above what a person does (claims a
# few a minute, the page reads the statistics every few seconds) and above the soak's machine raters (about 5
# claims and 5 submits a second each); they stop a client that loops on an endpoint. CONCORD_API_RATES overrides
# some: CONCORD_API_RATES="claim=300/10s,leaderboard=off".
CONCORD_API_RATES = {
    "rater-read": "120/m",  # me/stats, me/work, next-preview, an assignment's display, the campaign list
    "claim": "100/10s",
    "submit": "100/10s",
    "rater-write": "60/10s",  # drafts (saved 0.7 s after a change), skips, reviews, corrections, answer checks
    "curator-read": "300/m",  # every other GET
    "curator-write": "120/m",  # every other POST, PUT, DELETE
    "leaderboard": "30/m",  # each one reads every rating
    **env.dict("CONCORD_API_RATES", default={}),
}

# Celery: eager in the embedded default, real workers once a broker is configured. With CONCORD_EMBEDDED_WORKER
# (set by `make demo`, which starts a worker beside the web server: `manage.py serve`) and no broker configured,
# tasks go through kombu's filesystem transport under var/celery/ and results to files there: real background
# jobs with no Redis.
REDIS_URL = env("REDIS_URL", default="")
CONCORD_EMBEDDED_WORKER = env.bool("CONCORD_EMBEDDED_WORKER", default=False)
CONCORD_CELERY_DIR = Path(env("CONCORD_CELERY_DIR", default=str(VAR_DIR / "celery")))
_broker = env("CELERY_BROKER_URL", default="")
if CONCORD_EMBEDDED_WORKER and not (REDIS_URL or _broker):
    CELERY_BROKER_URL = "filesystem://"
    # kombu's own transport lets a worker read a message before it is written (core/kombu_filesystem.py).
    CELERY_BROKER_TRANSPORT = "core.kombu_filesystem:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CONCORD_CELERY_DIR / "queue"),
        "data_folder_out": str(CONCORD_CELERY_DIR / "queue"),
        "control_folder": str(CONCORD_CELERY_DIR / "control"),
        "store_processed": False,
        "polling_interval": 0.2,
    }
    # The pre-filter's chord needs a result backend; a folder of files is the embedded one.
    CELERY_RESULT_BACKEND = f"file://{CONCORD_CELERY_DIR / 'results'}"
    CELERY_TASK_ALWAYS_EAGER = False
else:
    CELERY_BROKER_URL = _broker or REDIS_URL or "memory://"
    CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default=REDIS_URL or None)
    CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=not (REDIS_URL or _broker))
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# On a lost broker connection the worker cancels its running acks_late tasks (they go back to the queue, or the
# reaper resumes their job) instead of letting them finish and acknowledge on a channel that is gone: every task is
# idempotent. Celery 6 makes this the default (docs/decisions/worker-broker-restarts.md).
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# acks_late: a message is acknowledged when its task ends, so one whose worker died is delivered again once
# Redis's visibility timeout passes. The timeout must outlast the longest task (an import: 6 h plus the
# 5-minute grace of its hard time limit), or a task still running would be delivered a second time; the
# reaper (below) resumes an abandoned job long before that.
if CELERY_BROKER_URL != "filesystem://":  # the embedded transport keeps its folders (above) instead
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=7 * 3600),
        # The worker's: a broker that stalls for a moment is waited for, not taken for lost (which would cancel the
        # running tasks). A job start's publish has its own, shorter ones (CONCORD_BROKER_PUBLISH_TIMEOUTS).
        "socket_connect_timeout": 2,
        "socket_timeout": 5,
    }
# A job start (annotation.jobs.services.job_publish) publishes on a connection of its own with these timeouts, far
# shorter than the worker's above: Redis takes a message in about a millisecond, so one that is unreachable or
# takes the connection and never answers is refused within a second (503, the job failed with the reason); with
# the worker's 2 s and 5 s (and the cache's, above, at 1 s and 2 s) such a refusal took 3 to 7 s (bench/broker_refusal.py).
CONCORD_BROKER_PUBLISH_TIMEOUTS = {
    "socket_connect_timeout": env.float("CONCORD_BROKER_PUBLISH_CONNECT_TIMEOUT", default=0.25),
    "socket_timeout": env.float("CONCORD_BROKER_PUBLISH_TIMEOUT", default=0.4),
}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 2
CELERY_REDIS_SOCKET_TIMEOUT = 5
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"

# Judges connect only where an admin allows (curation.judges.egress): listed hosts, wildcards (*.example.org),
# addresses or networks, and "*" for any public address. Private, loopback and link-local addresses (a vLLM
# server on the compose network, say) are reached only when listed. Empty by default: no judge host until an
# admin names one (the built-in python judges connect nowhere).
CONCORD_JUDGE_ALLOWED_HOSTS = env.list("CONCORD_JUDGE_ALLOWED_HOSTS", default=[])
# The variables a judge may send as its API key (curation.judges.keys): a shell-style pattern; a variable
# Concord itself reads (DJANGO_SECRET_KEY, DATABASE_URL, S3_*, ...) is refused whatever the pattern.
CONCORD_JUDGE_API_KEY_ENV_PATTERN = env("CONCORD_JUDGE_API_KEY_ENV_PATTERN", default="CONCORD_JUDGE_KEY_*")
# The reaper: a queued job whose message is not in the broker this long after it was sent, or a running job
# with no process holding its lease and no progress this long, is sent again, at most this many times.
CONCORD_JOB_QUEUED_SECONDS = env.int("CONCORD_JOB_QUEUED_SECONDS", default=300)
CONCORD_JOB_STALL_SECONDS = env.int("CONCORD_JOB_STALL_SECONDS", default=300)
CONCORD_JOB_MAX_DISPATCHES = env.int("CONCORD_JOB_MAX_DISPATCHES", default=3)

# The model leaderboard a curator asks for (API, page): the most bootstrap pair draws (resamples × pairs) one request
# may have a fit job compute; fitted boards are cached by the data they fitted, and fitted by a job, never in the
# web process.
CONCORD_LEADERBOARD_BOOTSTRAP_BUDGET = env.int("CONCORD_LEADERBOARD_BOOTSTRAP_BUDGET", default=20_000_000)
# Pre-filter: pairs per Celery batch task (each task judges its pairs × judges × 2 orders concurrently).
CONCORD_PREFILTER_BATCH_PAIRS = env.int("CONCORD_PREFILTER_BATCH_PAIRS", default=50)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "annotation.accounts.api.authentication.ThrottledBasicAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "core.api.schema.ConcordAutoSchema",
    "EXCEPTION_HANDLER": "core.api.exceptions.exception_handler",
    # Per user and route family, rates in CONCORD_API_RATES; 429 rate_limited with Retry-After.
    "DEFAULT_THROTTLE_CLASSES": ["core.api.throttling.RouteFamilyThrottle"],
    # JSON is checked for depth before it is parsed, and for NUL characters and lone surrogates after.
    "DEFAULT_PARSER_CLASSES": [
        "core.web.hostile_input.StrictJSONParser",
        "core.web.hostile_input.StrictFormParser",
        "core.web.hostile_input.StrictMultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.CursorPagination",
    "PAGE_SIZE": 50,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Concord API",
    "DESCRIPTION": "Human preferences on multimodal model outputs, curated into reward-model benchmarks.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Swagger UI's validator badge is an image from validator.swagger.io: off, nothing leaves Concord.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    # The schema and its docs describe every endpoint; only signed-in users may read them.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    # Several models have a "status" field; each choice set gets its own component name.
    # One schema name per shared choice set: the pair's status, and the side ("A" or "B") several endpoints take.
    "ENUM_NAME_OVERRIDES": {"PairStatusEnum": "annotation.catalogue.models.Pair.Status",
                            "JobStatusEnum": "annotation.jobs.models.Job.Status", "SideEnum": ["A", "B"],
                            "JudgeFormatEnum": "curation.models.JudgeEvaluation.Format",
                            "ReleaseMediaEnum": "curation.releases.pointers.MODES"},
    # Every operation documents the error codes it can answer, in the one error shape (core.api.schema).
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "core.api.schema.error_responses"],
}

# A refused request (403, 400) is one line in the log, without the traceback Django attaches; a 500 keeps its
# traceback. The filter sits on the loggers (what every handler, a test's caplog included, then sees) and on the
# handler (for django.security's per-error child loggers, which a parent's filter does not reach).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"client_errors_on_one_line": {"()": "core.web.errors.ClientErrorsOnOneLine"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["client_errors_on_one_line"]}},
    # "django" without Django's own console handler (DEBUG only), which printed every line a second time.
    "loggers": {"django": {"handlers": [], "level": env("DJANGO_LOG_LEVEL", default="WARNING")},
                "django.request": {"filters": ["client_errors_on_one_line"]},
                "django.security": {"filters": ["client_errors_on_one_line"]}},
    "root": {"handlers": ["console"], "level": env("DJANGO_LOG_LEVEL", default="WARNING")},
}

# The one schedule for periodic work; each entry says why it runs and when a missed run expires.
CELERY_BEAT_SCHEDULE: dict = {}

# Agreement reports go stale as ratings arrive: once an hour, every active campaign rated since its last
# report gets a fresh one (a campaign with a job still running is skipped). A missed run is not worth
# catching up, so it expires before the next one is due.
CELERY_BEAT_SCHEDULE["curation.agreement_schedule"] = {
    "task": "curation.agreement_schedule",
    "schedule": 3600.0,
    "options": {"expires": 3000},
}

# Jobs of every kind whose task was lost on the way to a worker, or whose worker died, would stay queued or
# running for ever (and the agreement schedule would skip their campaign): they are sent again (a worker
# resumes what the job left) or, after CONCORD_JOB_MAX_DISPATCHES sends, failed with the reason; a release
# whose builder died is failed with a retry hint. A missed run is covered by the next one.
CELERY_BEAT_SCHEDULE["jobs-reap"] = {
    "task": "annotation.jobs.reap",
    "schedule": 120.0,
    "options": {"expires": 100},
}
# Expired leases give their slot back; claims also do this lazily, so this only keeps counters fresh
# for dashboards when nobody is claiming. A missed run is worthless once the next one is due.
CELERY_BEAT_SCHEDULE["assignments-expire"] = {
    "task": "annotation.workqueue.assignments_expire",
    "schedule": 60.0,
    "options": {"expires": 55},
}
