"""Fixtures shared by the whole suite, and the rule that a skip is a failure in CI."""

import os
import socket
from pathlib import Path

import pytest

REFERENCE_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "reference"
MMRB2_DIR = REFERENCE_DIR / "mmrb2"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# Tests skipped because the database was chosen on purpose (the SQLite leg: DATABASE_URL=sqlite:///...) and they
# exercise another engine's feature; CI counts every other skip as a failure.
_SKIPPED_FOR_THE_CHOSEN_DATABASE: set[str] = set()


def database_chosen_explicitly() -> bool:
    """True when DATABASE_URL names the test database, rather than test settings picking what answers."""
    return bool(os.environ.get("DATABASE_URL"))


def require(condition: bool, reason: str) -> None:
    """Skip loudly when a needed service or file is absent; in CI that is a failure."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"CI=true and a required service is missing: {reason}")
    pytest.skip(f"MISSING SERVICE: {reason}")


def port_open(host: str, port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex((host, port)) == 0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail") and item.nodeid not in _SKIPPED_FOR_THE_CHOSEN_DATABASE:
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, which counts as a failure: {report.longrepr}"


@pytest.fixture
def mmrb2_dir():
    require(MMRB2_DIR.is_dir(), f"the MMRB2 reference files in {MMRB2_DIR}")
    return MMRB2_DIR


def skip_unless_postgresql(node: pytest.Item, reason: str) -> None:
    """Skip a PostgreSQL-only test: allowed in CI on a database chosen by DATABASE_URL, else a missing service."""
    from django.db import connection

    if connection.vendor == "postgresql":
        return
    if database_chosen_explicitly():
        _SKIPPED_FOR_THE_CHOSEN_DATABASE.add(node.nodeid)
        pytest.skip(f"PostgreSQL only, and DATABASE_URL chose {connection.vendor}: {reason}")
    require(False, f"PostgreSQL (the test database is {connection.vendor}): {reason}")


@pytest.fixture
def postgres_only(request, settings):
    skip_unless_postgresql(request.node, "the test exercises PostgreSQL's own behaviour")


@pytest.fixture
def redis_url():
    require(port_open("127.0.0.1", 6379), "Redis on 127.0.0.1:6379")
    return os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture
def private_redis(tmp_path):
    """A redis-server of the test's own, running; the test may stop and start it."""
    from tests.redis_server import PrivateRedis

    with PrivateRedis(tmp_path) as server:
        yield server


# Under pytest-xdist (``make test`` runs two workers) a file's tests stay on one worker, so its module-scoped data
# and browser are built once; the files that share Redis databases by number (and flush them) or start real
# workers on them share one worker, one file after another.
_SHARED_REDIS = {
    "tests/catalogue/test_import_api.py", "tests/config/test_deploy.py", "tests/config/test_embedded_worker.py",
    "tests/config/test_redis_down.py", "tests/core/test_job_dispatch.py", "tests/curation/agreement/test_agreement_worker.py",
    "tests/curation/test_jobs_reaper.py", "tests/curation/test_judges_egress.py", "tests/curation/test_prefilter_worker.py",
    "tests/frontend/console/test_security.py",
}
_ROOT = Path(__file__).resolve().parent.parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = item.path.relative_to(_ROOT).as_posix()
        item.add_marker(pytest.mark.xdist_group("shared-redis" if path in _SHARED_REDIS else path))


@pytest.fixture(autouse=True)
def _live_server_settled(request):
    """After a live-server test, wait for the server's last requests (a closed page's draft) before the flush.

    An autouse fixture of this conftest is set up after pytest-django's database fixtures, so it is torn down first."""
    yield
    if "live_server" in request.fixturenames:
        from tests.live_requests import settle

        settle()
