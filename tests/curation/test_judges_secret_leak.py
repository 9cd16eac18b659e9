"""No secret Concord reads from its environment reaches a judge host, whatever a judge's settings name.

Needs nothing but the judges API, so it runs (and fails) on code from before the rule for judge keys.
"""

import ast
import re
import secrets
import socketserver
import threading
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from rest_framework.test import APIClient

from annotation.accounts.models import Role
from curation.models import Judge
from tests.curation import prefilter_support as support
from tests.factories import UserFactory

ROOT = Path(__file__).resolve().parent.parent.parent
SOURCES = ("config", "core", "annotation", "curation", "frontend", "demo", "manage.py")
ENV_CALLS = {"env", "os.getenv", "os.environ.get", "os.environ.setdefault"}


def _env_reads(path: Path):
    """The names of the environment variables a Python file reads by a literal name."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            named = ast.unparse(func) in ENV_CALLS or (
                isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "env")
            if named and isinstance(node.args[0].value, str):
                yield node.args[0].value
        if (isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ"
                and isinstance(node.slice, ast.Constant)):
            yield node.slice.value


def concord_variables() -> set[str]:
    """Every variable Concord's code, its settings and docker-compose.yml read."""
    names = set()
    for source in SOURCES:
        path = ROOT / source
        for file in [path] if path.is_file() else sorted(path.rglob("*.py")):
            names.update(_env_reads(file))
    compose = (ROOT / "docker-compose.yml").read_text()
    names.update(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", compose))
    names.update(re.findall(r"^\s+([A-Z][A-Z0-9_]*):", compose, flags=re.MULTILINE))
    return names


class RawListener:
    """A tiny HTTP server on 127.0.0.1 keeping the raw bytes of every request; it answers a valid verdict to both
    judge formats (chat completions and reward scores), so every request a judge would make is made."""

    REPLY = b'{"choices": [{"message": {"content": "[[A]]"}}], "scores": [1.0, 0.0]}'

    def __init__(self):
        self.captured: list[bytes] = []
        listener = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = self.request.recv(65536)
                    if not chunk:
                        break
                    head += chunk
                headers, _, body = head.partition(b"\r\n\r\n")
                length = re.search(rb"(?im)^content-length:\s*(\d+)", headers)
                while length and len(body) < int(length.group(1)):
                    chunk = self.request.recv(65536)
                    if not chunk:
                        break
                    body += chunk
                listener.captured.append(headers + b"\r\n\r\n" + body)
                self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                                 b"Content-Length: %d\r\n\r\n%s" % (len(RawListener.REPLY), RawListener.REPLY))

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def everything(self) -> bytes:
        return b"\n".join(self.captured)


def references(name: str) -> list[str]:
    """Ways a setting might name a variable, were anything to expand it."""
    return [name, f"${name}", f"${{{name}}}", f"%{name}%", f"env:{name}", f"{{{name}}}", f"%({name})s"]


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.django_db
def test_no_secret_concord_reads_reaches_a_judge_host_through_any_judge_setting(settings, monkeypatch):
    """Every variable Concord reads is set to a fresh value and named through every setting of both HTTP backends
    (the key variable; the URL, model and extra request fields as references), by an admin over the API and in
    judges stored before the rule; the test endpoint is called on each, and no value appears in any byte the
    judge host received. A judge with a judge-key variable does deliver its key: the capture sees what is sent."""
    settings.CONCORD_JUDGE_ALLOWED_HOSTS = ["127.0.0.1"]
    names = sorted(concord_variables() - {"DJANGO_SETTINGS_MODULE"})
    values = {name: f"leak-{name}-{secrets.token_hex(8)}" for name in names}
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    loaded = [django_settings.SECRET_KEY, django_settings.CONCORD_RATER_ID_SECRET,
              django_settings.DATABASES["default"].get("PASSWORD") or "no-database-password-set"]
    monkeypatch.setenv("CONCORD_JUDGE_KEY_CONTROL", control := f"control-{secrets.token_hex(8)}")
    admin = client_for(UserFactory(role=Role.ADMIN))
    pair = support.marked_pair(support.campaign(), "p")
    quick = {"max_retries": 0, "timeout_s": 5, "concurrency": 1}
    answers = []
    with RawListener() as host:
        candidates = []
        for name in names:
            refs = references(name)
            candidates += [
                ("openai-chat", {"base_url": f"{host.url}/v1", "model": "m", "api_key_env": name}),
                ("reward-model", {"url": f"{host.url}/score", "api_key_env": name}),
                ("openai-chat", {"base_url": f"{host.url}/v1/{refs[1]}", "model": " ".join(refs),
                                 "extra_body": {f"x{i}": ref for i, ref in enumerate(refs)}}),
                ("reward-model", {"url": f"{host.url}/score?key={refs[2]}", "model": " ".join(refs)}),
            ]
        candidates.append(("openai-chat", {"base_url": f"{host.url}/v1", "model": "m",
                                           "api_key_env": "CONCORD_JUDGE_KEY_CONTROL"}))
        for number, (backend, judge_settings) in enumerate(candidates):
            created = admin.post("/api/v1/judges/create/", {"name": f"api-{number}", "backend": backend,
                                                            "settings": {**quick, **judge_settings}}, format="json")
            answers.append(created.content)
            if created.status_code == 201:
                answers.append(admin.post(f"/api/v1/judges/api-{number}/test/", {"pair": pair.pk}, format="json").content)
            if "api_key_env" in judge_settings:
                Judge.objects.create(name=f"old-{number}", backend=backend, settings={**quick, **judge_settings})
                tried = admin.post(f"/api/v1/judges/old-{number}/test/", {"pair": pair.pk}, format="json")
                assert tried.status_code in (200, 400), tried.content
                answers.append(tried.content)
        received = host.everything()
    assert len(host.captured) >= 2 * len(names) and f"Bearer {control}".encode() in received
    for secret in [*values.values(), *loaded]:
        assert secret.encode() not in received, f"{secret.split('-')[1]} reached the judge host"
        assert all(secret.encode() not in answer for answer in answers)
