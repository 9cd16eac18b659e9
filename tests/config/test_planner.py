"""serial_plan: one query planned without parallel workers, the setting put back after it (PostgreSQL)."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from core.planner import serial_plan
from curation.selectors.console import PairFilters, pair_browse
from tests.curation.console.world import make_world

pytestmark = pytest.mark.django_db


def workers_per_gather() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW max_parallel_workers_per_gather")
        return cursor.fetchone()[0]


def test_queries_inside_run_without_parallel_workers_and_the_setting_comes_back_after(postgres_only):
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL max_parallel_workers_per_gather = 3")
        with serial_plan():
            assert workers_per_gather() == "0"
        assert workers_per_gather() == "3", "the enclosing transaction plans as before"


def test_an_error_inside_still_puts_the_setting_back(postgres_only):
    before = workers_per_gather()
    with pytest.raises(ZeroDivisionError), serial_plan():
        1 / 0  # noqa: B018 - the error is the point
    assert workers_per_gather() == before


def test_only_the_pair_browsers_search_is_planned_serially(postgres_only):
    world = make_world("planner")
    for q, serial in (("fox", True), ("", False)):
        with CaptureQueriesContext(connection) as statements:
            pair_browse(campaign=world.campaign, filters=PairFilters(q=q))
        assert any("max_parallel_workers_per_gather" in s["sql"] for s in statements.captured_queries) is serial, q
