"""The embedded default: with no environment at all Concord migrates and serves on SQLite."""

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
CODE = ("manage.py", "config", "core", "annotation", "demo", "curation", "frontend")


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the code alone, so the default var/ database is made fresh and the real one stays untouched."""
    target = tmp_path_factory.mktemp("concord-checkout")
    for name in CODE:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target / name)
    return target


def bare_env(home: Path) -> dict:
    """No Django, database, Redis, Celery or S3 variable: only what a shell needs to run Python."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1"}


def run(checkout: Path, *args: str, code: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "manage.py", *args] if code is None else [sys.executable, "-c", code]
    result = subprocess.run(command, cwd=checkout, env=bare_env(checkout), capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_local_default_uses_sqlite_local_media_and_eager_tasks(checkout):
    """config.settings.local with no environment: SQLite under var/, media on disk, Celery eager, debug on."""
    shown = run(
        checkout,
        code=(
            "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings.local'; django.setup();"
            "from django.conf import settings as s;"
            "print(s.DATABASES['default']['ENGINE'], s.DATABASES['default']['NAME'],"
            " s.STORAGES['default']['BACKEND'], s.CELERY_TASK_ALWAYS_EAGER, s.CELERY_BROKER_URL, s.DEBUG)"
        ),
    ).stdout.split()
    assert shown == [
        "django.db.backends.sqlite3",
        str(checkout / "var" / "concord.sqlite3"),
        "django.core.files.storage.FileSystemStorage",
        "True",
        "memory://",
        "True",
    ]


def test_local_default_migrates_and_serves_the_home_page(checkout):
    """manage.py migrate then runserver with no environment: the login page and, signed in, the home page answer."""
    run(checkout, "migrate", "--noinput")
    assert (checkout / "var" / "concord.sqlite3").is_file()
    run(checkout, "shell", "-c",
        "from annotation.accounts.services.accounts import user_create; user_create(username='first', password='first-pass-123')")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=checkout, env=bare_env(checkout), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, timeout=10) as client:
            deadline = time.monotonic() + 60
            while True:
                try:
                    login_page = client.get("/login/")
                    break
                except httpx.TransportError:
                    assert server.poll() is None, server.stdout.read()
                    assert time.monotonic() < deadline, "runserver did not answer within 60 s"
                    time.sleep(0.3)
            assert login_page.status_code == 200
            assert client.get("/").status_code == 302, "the home page asks for a login first"
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login_page.text).group(1)
            signed_in = client.post("/login/", data={"username": "first", "password": "first-pass-123",
                                                     "csrfmiddlewaretoken": token}, follow_redirects=True)
            assert signed_in.status_code == 200
            assert str(signed_in.url) == f"{base}/"
            assert "<h1>Campaigns</h1>" in signed_in.text
            assert "first · annotator" in signed_in.text
            assert client.get("/static/frontend/concord.css").status_code == 200
    finally:
        server.terminate()
        server.wait(timeout=10)
