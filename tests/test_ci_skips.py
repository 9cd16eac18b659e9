"""In CI a skipped test is a failure, except a PostgreSQL-only test on a database DATABASE_URL chose (the SQLite leg)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

INNER_CONFTEST = "from tests.conftest import postgres_only, pytest_runtest_makereport  # noqa: F401\n"
INNER_TESTS = """
import pytest


def test_needs_postgresql(postgres_only):
    pass


def test_needs_a_missing_service():
    pytest.skip("MISSING SERVICE: a judge endpoint")
"""


def run_inner(tmp_path: Path, **env: str) -> str:
    (tmp_path / "conftest.py").write_text(INNER_CONFTEST)
    (tmp_path / "test_inner.py").write_text(INNER_TESTS)
    environment = {k: v for k, v in os.environ.items() if k not in ("CI", "DATABASE_URL", "PYTEST_ADDOPTS")}
    environment.update(PYTHONPATH=str(ROOT), DJANGO_SETTINGS_MODULE="config.settings.test", **env)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", str(tmp_path)],
        cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=120,
    )
    return done.stdout


def test_on_the_sqlite_leg_in_ci_a_postgresql_only_test_is_skipped_and_any_other_skip_fails(tmp_path):
    out = run_inner(tmp_path, CI="true", DATABASE_URL=f"sqlite:///{tmp_path / 'leg.sqlite3'}")
    assert "SKIPPED [1] " in out and "PostgreSQL only, and DATABASE_URL chose sqlite" in out
    assert "FAILED test_inner.py::test_needs_a_missing_service" in out
    assert "1 failed, 1 skipped" in out


def test_outside_ci_both_are_skips(tmp_path):
    out = run_inner(tmp_path, DATABASE_URL=f"sqlite:///{tmp_path / 'leg.sqlite3'}")
    assert "2 skipped" in out and "failed" not in out
