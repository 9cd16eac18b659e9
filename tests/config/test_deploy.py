"""Deployment: production settings refuse to run insecurely, and the container stack is coherent."""

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from core.queues import Queue

ROOT = Path(__file__).resolve().parents[2]
APP_SERVICES = ("migrate", "web", "worker", "beat")
BACKING_SERVICES = ("postgres", "redis", "minio")


def production_env(**overrides) -> dict:
    """The process environment for production settings with nothing inherited from this shell's Django knobs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "S3_", "REDIS_", "CELERY_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(64),
        CONCORD_RATER_ID_SECRET=secrets.token_urlsafe(64),
        DJANGO_ALLOWED_HOSTS="concord.example.org",
    )
    env.update(overrides)
    return {k: v for k, v in env.items() if v is not None}


def manage(*args: str, env: dict, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_check_deploy_is_clean_with_production_settings():
    """`manage.py check --deploy` reports no issue at all (warnings fail it) under production settings."""
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=production_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_keeps_debug_off_even_when_asked():
    """DJANGO_DEBUG=true does not turn debug on in production: the deploy check stays clean."""
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=production_env(DJANGO_DEBUG="true"))
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("secret", "reason"),
    [(None, "Set the DJANGO_SECRET_KEY environment variable"), ("", "at least 50 characters"),
     ("short-key", "at least 50 characters"), ("a" * 80, "at least 50 characters")],
    ids=["missing", "empty", "short", "one-character-repeated"],
)
def test_production_refuses_to_start_without_a_real_secret_key(secret, reason):
    """Production settings stop at start-up, naming DJANGO_SECRET_KEY, when the secret is absent or weak."""
    result = manage("check", env=production_env(DJANGO_SECRET_KEY=secret))
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert reason in result.stderr


def test_production_refuses_to_start_without_the_rater_id_secret():
    """Release pseudonyms need their own secret in production; without it start-up stops and names it."""
    result = manage("check", env=production_env(CONCORD_RATER_ID_SECRET=None))
    assert result.returncode != 0
    assert "Set the CONCORD_RATER_ID_SECRET environment variable" in result.stderr


def test_collectstatic_runs_under_production_settings_as_the_image_build_does(tmp_path):
    """The Dockerfile's collectstatic step works with production settings and compresses the assets."""
    result = manage("collectstatic", "--noinput", env=production_env(DJANGO_STATIC_ROOT=str(tmp_path)))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "frontend" / "concord.css").is_file()
    assert (tmp_path / "frontend" / "concord.css.gz").is_file()
    assert list((tmp_path / "drf_spectacular_sidecar").rglob("swagger-ui-bundle.js")), "API docs assets are served locally"


def test_compose_runs_every_application_process_from_one_image(compose):
    """migrate, web, worker and beat share one image and one build; backing services are PostgreSQL, Redis, MinIO."""
    services = compose["services"]
    assert set(services) == set(APP_SERVICES) | set(BACKING_SERVICES)
    images = {services[name]["image"] for name in APP_SERVICES}
    builds = {services[name]["build"] for name in APP_SERVICES}
    assert len(images) == 1 and images.pop().startswith("concord:")
    assert builds == {"."}
    assert services["postgres"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")
    assert services["minio"]["image"].startswith("minio/minio")
    for name in BACKING_SERVICES:
        assert "healthcheck" in services[name], f"{name} needs a healthcheck for depends_on: service_healthy"


def test_compose_configures_the_application_through_the_settings_variables(compose):
    """Every app service gets the variables config/settings reads, production settings and a required secret."""
    for name in APP_SERVICES:
        env = compose["services"][name]["environment"]
        assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
        assert env["DATABASE_URL"].startswith("postgres://") and "@postgres:5432/" in env["DATABASE_URL"]
        assert env["REDIS_URL"].startswith("redis://redis:6379/")
        assert env["S3_ENDPOINT_URL"].endswith("minio:9000}")
        for key in ("S3_BUCKET", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY", "DJANGO_ALLOWED_HOSTS"):
            assert env[key], key
        # ${VAR:?message} makes compose refuse to start without a secret instead of inventing one.
        assert env["DJANGO_SECRET_KEY"].startswith("${DJANGO_SECRET_KEY:?")
        assert env["CONCORD_RATER_ID_SECRET"].startswith("${CONCORD_RATER_ID_SECRET:?")
        assert env["RELEASES_S3_BUCKET"], "web and worker are separate containers, so releases must live in the store"
    read_by_settings = set(re.findall(r'env(?:\.\w+)?\("([A-Z0-9_]+)"', (ROOT / "config/settings/base.py").read_text()))
    passed = set(compose["services"]["web"]["environment"])
    assert {"DATABASE_URL", "REDIS_URL", "S3_BUCKET", "S3_ENDPOINT_URL", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY",
            "DJANGO_ALLOWED_HOSTS", "DJANGO_SECRET_KEY", "CONCORD_RATER_ID_SECRET"} <= passed
    assert passed - {"DJANGO_SETTINGS_MODULE"} <= read_by_settings | {"DJANGO_SECRET_KEY", "DJANGO_SECURE_SSL_REDIRECT"}, (
        "compose passes a variable that no setting reads"
    )


def test_compose_interpolations_are_well_formed(compose):
    """Every ${...} in the file is a plain name, a :- default or a :? required-with-message."""
    text = (ROOT / "docker-compose.yml").read_text()
    for expression in re.findall(r"\$\{([^}]*)\}", text):
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*(:[-?].*)?", expression), expression


def test_compose_processes_wait_for_migrations_and_serve_the_real_entry_points(compose):
    """web/worker/beat start after the one-shot migrate; the commands name modules that exist."""
    services = compose["services"]
    for name in ("web", "worker", "beat"):
        depends = services[name]["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully"
        assert all(depends[b]["condition"] == "service_healthy" for b in BACKING_SERVICES)
    assert "migrate --noinput" in " ".join(services["migrate"]["command"])
    assert "storage_init" in " ".join(services["migrate"]["command"])
    assert services["web"]["command"][:2] == ["gunicorn", "config.wsgi:application"]
    worker = services["worker"]["command"]
    queues = set(worker[worker.index("--queues") + 1].split(","))
    declared = {value for key, value in vars(Queue).items() if key.isupper()}
    assert queues == declared, "the worker must consume every queue tasks are routed to"
    assert services["beat"]["command"][:4] == ["celery", "-A", "config", "beat"]
    assert {"--without-gossip", "--without-mingle"} <= set(worker), "docs/decisions/worker-broker-restarts.md"


def test_every_long_running_process_is_restarted_if_it_exits(compose):
    """A worker that dies (its broker gone, out of memory) comes back; the reaper resumes its job."""
    services = compose["services"]
    for name in ("web", "worker", "beat"):
        assert services[name]["restart"] == "unless-stopped", name


def test_dockerfile_builds_the_one_image_from_requirements():
    """python:3.11-slim, pinned requirements, collectstatic, a non-root user and gunicorn by default."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim$", dockerfile, re.M)
    assert "pip install -r requirements.txt" in dockerfile
    assert "collectstatic --noinput" in dockerfile
    assert re.search(r"^USER concord$", dockerfile, re.M)
    assert "DJANGO_SETTINGS_MODULE=config.settings.production" in dockerfile
    assert '"gunicorn", "config.wsgi:application"' in dockerfile
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", "var"} <= set(ignored)


def interpolate(value: str, given: dict) -> str:
    """Compose's ${VAR}, ${VAR:-default} and ${VAR:?message}, with ``given`` as the shell environment."""

    def one(match):
        name, op, rest = match.group(1), match.group(2), match.group(3)
        if given.get(name):
            return given[name]
        if op == ":?":
            raise KeyError(f"{name} is required: {rest}")
        return rest if op == ":-" else ""

    return re.sub(r"\$\{([A-Z0-9_]+)(?:(:[-?])([^}]*))?\}", one, value)


def test_compose_environment_as_written_passes_the_deploy_check(compose):
    """The web service's variables, defaults filled in as compose would, give a clean check --deploy."""
    secret = secrets.token_urlsafe(64)
    given = {"DJANGO_SECRET_KEY": secret, "CONCORD_RATER_ID_SECRET": secrets.token_urlsafe(64)}
    environment = {k: interpolate(str(v), given) for k, v in compose["services"]["web"]["environment"].items()}
    with pytest.raises(KeyError, match="DJANGO_SECRET_KEY is required"):
        interpolate(compose["services"]["web"]["environment"]["DJANGO_SECRET_KEY"], {})
    assert environment["S3_ENDPOINT_URL"] == "http://minio:9000"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DJANGO_", "DATABASE_", "S3_", "REDIS_", "CELERY_"))} | environment
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    shown = manage("shell", "-v", "0", "-c",
                   "from django.conf import settings as s; from django.core.files.storage import storages; "
                   "print(s.DATABASES['default']['ENGINE'], type(storages['default']).__name__, "
                   "s.CELERY_TASK_ALWAYS_EAGER, s.CELERY_BROKER_URL, s.CONCORD_RELEASES_S3['bucket'], "
                   "s.CONCORD_RELEASES_S3['endpoint_url'])", env=env)
    assert shown.stdout.split() == ["django.db.backends.postgresql", "S3Storage", "False", "redis://redis:6379/0",
                                    "concord-releases", "http://minio:9000"]
