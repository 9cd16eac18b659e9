"""A database populated at main before the one-app move (b0b1389) migrates to the squashed history with every row.

The fixtures are that commit's schema with the demo and a row in every other table, dumped for SQLite and for
PostgreSQL by ``fixtures/make_main_fixture.sh b0b1389``. Each is loaded into a database of its own, migrated by
``manage.py migrate`` in a subprocess (as an operator would), and compared with what it held before.
"""

import gzip
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import psycopg

from tests.conftest import port_open, require

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
COMMIT = "b0b1389"
# Tables renamed by the squashed history: every other table keeps its name.
RENAMED = {"concord_cache": "core_cacheentry"}
# Written by migrate itself: the record of applied migrations and the content types it creates.
BOOKKEEPING = {"django_migrations", "django_content_type", "auth_permission"}
READ_BACK = """
import json
from annotation.models import Annotation, Campaign, Job, Pair, User
from curation.models import AgreementReport, ConsensusRecord, Release
from django.contrib.contenttypes.models import ContentType
print(json.dumps({
    "pairs": Pair.objects.count(), "annotations": Annotation.objects.count(), "users": User.objects.count(),
    "campaign_members": sum(c.members.count() for c in Campaign.objects.all()), "jobs": Job.objects.count(),
    "reports": AgreementReport.objects.filter(job__isnull=False).count(),
    "consensus": ConsensusRecord.objects.count(), "releases": Release.objects.count(),
    "rationales": sorted(Annotation.objects.values_list("rationale", flat=True))[:3],
    "content_type_labels": sorted(set(ContentType.objects.values_list("app_label", flat=True))),
}))
"""


def _manage(database_url: str, *args: str) -> str:
    env = {**os.environ, "DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": "config.settings.local"}
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _check(database_url: str, before: dict[str, int], after: dict[str, int]) -> None:
    moved = {RENAMED.get(table, table): rows for table, rows in before.items() if table not in BOOKKEEPING}
    assert {table: after.get(table) for table in moved} == moved
    plan = _manage(database_url, "showmigrations", "--plan")
    assert "[ ]" not in plan, plan
    read = json.loads(_manage(database_url, "shell", "-c", READ_BACK).strip().splitlines()[-1])
    assert read["pairs"] == before["annotation_pair"] and read["annotations"] == before["annotation_annotation"]
    assert read["users"] == before["annotation_user"] and read["jobs"] == before["annotation_job"]
    assert read["campaign_members"] == before["annotation_campaign_members"]
    assert read["reports"] == before["curation_agreementreport"] and read["releases"] == before["curation_release"]
    assert read["consensus"] == before["curation_consensusrecord"] > 0
    assert all(text.startswith("fixture rationale") for text in read["rationales"])
    # Permissions and the admin's log point at content types: those of the moved models follow them home.
    assert not {"catalogue", "workqueue"} & set(read["content_type_labels"])


def test_a_sqlite_database_of_main_migrates_to_the_squashed_history_with_every_row(tmp_path):
    """SQLite, the embedded default: every table keeps its rows, the cache table is renamed, the models read them."""
    path = tmp_path / "main.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(gzip.decompress((FIXTURES / f"main-{COMMIT}.sqlite.sql.gz").read_bytes()).decode())

    def counts() -> dict[str, int]:
        with sqlite3.connect(path) as db:
            tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                                    "AND name NOT LIKE 'sqlite_%'")]
            return {table: db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] for table in tables}

    before = counts()
    assert before["annotation_annotation"] > 0 and before["concord_cache"] == 1
    _manage(f"sqlite:///{path}", "migrate", "--noinput")
    _check(f"sqlite:///{path}", before, counts())


def test_a_postgresql_database_of_main_migrates_to_the_squashed_history_with_every_row_and_a_fresh_schema():
    """PostgreSQL: every row kept, and the migrated database has the indexes, constraints and search column of a
    database made new by the squashed history (the names compared, as the planner and the SQL files use them)."""
    require(port_open("127.0.0.1", 5432), "PostgreSQL on 127.0.0.1:5432")
    admin = "postgresql://postgres@127.0.0.1:5432/postgres"
    names = {"old": f"concord_from_main_{os.getpid()}", "new": f"concord_fresh_{os.getpid()}"}
    with psycopg.connect(admin, autocommit=True) as db:
        for name in names.values():
            db.execute(f'DROP DATABASE IF EXISTS "{name}"')
            db.execute(f'CREATE DATABASE "{name}"')
    urls = {key: f"postgresql://postgres@127.0.0.1:5432/{name}" for key, name in names.items()}
    try:
        # psql, as an operator restores a dump (the data are COPY blocks).
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", urls["old"]], check=True, capture_output=True,
                       input=gzip.decompress((FIXTURES / f"main-{COMMIT}.postgresql.sql.gz").read_bytes()))

        def counts(url: str) -> dict[str, int]:
            with psycopg.connect(url) as db:
                tables = [row[0] for row in db.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
                return {table: db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] for table in tables}

        def schema(url: str) -> set[tuple]:
            with psycopg.connect(url) as db:
                return {
                    *db.execute("SELECT tablename, indexname FROM pg_indexes WHERE schemaname = 'public'"),
                    *db.execute("SELECT conrelid::regclass::text, conname, contype FROM pg_constraint "
                                "WHERE connamespace = 'public'::regnamespace AND contype <> 'f'"),
                    *db.execute("SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns "
                                "WHERE table_schema = 'public'"),
                    *db.execute("SELECT proname, '' FROM pg_proc WHERE pronamespace = 'public'::regnamespace"),
                }

        before = counts(urls["old"])
        assert before["annotation_annotation"] > 0
        _manage(urls["old"], "migrate", "--noinput")
        _check(urls["old"], before, counts(urls["old"]))
        _manage(urls["new"], "migrate", "--noinput")
        assert schema(urls["old"]) == schema(urls["new"])
    finally:
        with psycopg.connect(admin, autocommit=True) as db:
            for name in names.values():
                db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
