"""Settings for the test suite: PostgreSQL when it answers, fast hashing, media in a temporary folder."""

import os
import sys
import tempfile

from .base import *  # noqa: F403
from .base import env


def _local_postgres_url() -> str | None:
    """The machine's PostgreSQL when it answers on 127.0.0.1:5432, else None."""
    import psycopg

    url = "postgres://postgres@127.0.0.1:5432/postgres"
    try:
        psycopg.connect(url, connect_timeout=2).close()
    except psycopg.Error:
        return None
    return "postgres://postgres@127.0.0.1:5432/" + env("CONCORD_TEST_DB", default="concord")


if not env("DATABASE_URL", default=""):
    _url = _local_postgres_url()
    if _url:
        DATABASES = {"default": {**env.db_url_config(_url), "CONN_MAX_AGE": 0, "OPTIONS": postgresql_options()}}  # noqa: F405
    elif env.bool("CI", default=False):
        raise RuntimeError("CI=true but PostgreSQL does not answer on 127.0.0.1:5432")
    else:
        print(
            "\n*** WARNING: PostgreSQL is not answering on 127.0.0.1:5432; the tests run on SQLite. ***\n",
            file=sys.stderr,
        )
        DATABASES = {
            "default": {
                "ENGINE": "django.db.backends.sqlite3",
                "NAME": os.path.join(tempfile.gettempdir(), "concord-test.sqlite3"),
                "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 30},
            }
        }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # A file, not Django's shared-cache in-memory database: there concurrent writers fail at once ("database table
    # is locked"), while a file's wait for the write lock, so the live server's threads claim as in production.
    # With DATABASE_URL=sqlite:///DIR/NAME (the SQLite leg, `make test-sqlite`) the test database is DIR/test-NAME.
    _name = str(DATABASES["default"]["NAME"])  # noqa: F405
    DATABASES["default"].setdefault("TEST", {}).setdefault(  # noqa: F405
        "NAME",
        os.path.join(os.path.dirname(_name), "test-" + os.path.basename(_name))
        if env("DATABASE_URL", default="")
        else os.path.join(tempfile.gettempdir(), "concord-test-db.sqlite3"),
    )

# As in base.py, for the test database chosen here.
DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", True)  # noqa: F405
DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
MEDIA_ROOT = env.path("DJANGO_MEDIA_ROOT", default=tempfile.mkdtemp(prefix="concord-test-media-"))
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=True)
# The suite's judge servers listen on 127.0.0.1; tests of the refusal set their own list.
CONCORD_JUDGE_ALLOWED_HOSTS = env.list("CONCORD_JUDGE_ALLOWED_HOSTS", default=["*", "127.0.0.1", "localhost"])
# Rate limits far above anything the suite sends (the code still counts every request); the tests of the limits
# set their own.
CONCORD_API_RATES = {family: "100000/m" for family in CONCORD_API_RATES}  # noqa: F405
# The live server's requests are counted, so a browser test's database is flushed only once they are done
# (tests/live_requests.py).
MIDDLEWARE = ["tests.live_requests.InFlightMiddleware", *MIDDLEWARE]  # noqa: F405
