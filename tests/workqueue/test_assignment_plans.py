"""The claim's lookups of the assignment table stay bounded whatever plan PostgreSQL keeps for them.

psycopg prepares a statement that a connection runs five times, and PostgreSQL keeps the plan it makes then for
as long as the connection lives, or until the table's statistics change. Made while the table was small and had
no statistics yet (autovacuum not having run), any index that can answer a lookup may look as good as the right
one. So every index a lookup could use must be one that reads a bounded number of rows: never all of an
annotator's or a campaign's assignments. (Statistics taken while the table was empty make a sequential scan
the cheapest plan whatever the indexes; autovacuum's first analyze replaces them.)
"""

import re

import pytest
from django.db import connection
from django.utils import timezone
from psycopg import sql as psql

from annotation.workqueue import sql
from annotation.workqueue.models import Assignment
from annotation.workqueue.services import assignments as service
from annotation.workqueue.store import postgresql as pg
from tests.workqueue.assignment_helpers import ab_tie_campaign, plan_nodes, submit

HISTORY = 150


def _generic_plan(sql: str, params: dict) -> dict:
    """EXPLAIN ANALYZE of the plan PostgreSQL keeps for ``sql`` prepared (its generic plan), rolled back."""
    names: list[str] = []

    def placeholder(name: str) -> str:
        if name not in names:
            names.append(name)
        return f"${names.index(name) + 1}"

    text = re.sub(r"%\((\w+)\)s", lambda match: placeholder(match.group(1)), sql).replace("%%", "%")
    with connection.cursor() as cursor:
        raw = cursor.connection.cursor()  # psycopg's own: SQL-level PREPARE, not Django's parameter handling
        raw.execute("PREPARE concord_probe AS " + text, prepare=False)
        try:
            raw.execute("BEGIN", prepare=False)
            raw.execute("SET LOCAL plan_cache_mode = force_generic_plan", prepare=False)
            arguments = psql.SQL(", ").join(psql.Literal(params[name]) for name in names)
            raw.execute(psql.SQL("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE concord_probe ({})").format(arguments), prepare=False)
            (plan,) = raw.fetchone()
        finally:
            raw.execute("ROLLBACK", prepare=False)
            # psycopg sees it and forgets its own prepared statements too; none of these is prepared itself (psycopg
            # would, from the sixth probe on: prepare_threshold)
            raw.execute("DEALLOCATE ALL", prepare=False)
    return plan[0]["Plan"]


def _assignment_reads(plan: dict) -> list:
    """(how the node reads the assignment table, rows it read per loop) for every node of the plan that reads it."""
    return [
        (node["Node Type"], node.get("Index Name"), node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0))
        for node in plan_nodes(plan)
        if node.get("Relation Name") == Assignment._meta.db_table
    ]


@pytest.mark.django_db(transaction=True)
def test_claim_lookups_read_a_bounded_number_of_assignments_whatever_plan_is_kept(postgres_only):
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=HISTORY + 20)
    for _ in range(HISTORY):  # the annotator's history: each pair waits for two more annotators
        submit(service.assignment_claim(campaign=campaign, annotator=rater))
    with connection.cursor() as cursor:  # as PostgreSQL sees a table no ANALYZE has reached yet
        cursor.execute(
            "UPDATE pg_class SET reltuples = -1, relpages = 0 WHERE oid = %s::regclass", [Assignment._meta.db_table]
        )
        cursor.execute("DELETE FROM pg_statistic WHERE starelid = %s::regclass", [Assignment._meta.db_table])
    now = timezone.now()
    latest = Assignment.objects.filter(annotator=rater).latest("pk").pk
    by_id = {"assignment": latest, "annotator": rater.pk}
    statements = {  # every hand-written statement of annotation/workqueue/sql that reads the assignment table
        "claim": (pg.claim_sql(), pg.claim_params(campaign=campaign.pk, annotator=rater, gold=False, now=now)),
        "claim by slug": (pg.claim_sql("slug"), pg.claim_params(campaign=campaign.slug, annotator=rater, now=now)),
        "submission read": (sql.statement("submit_read"), {"assignment": latest}),
        "locked submission read": (sql.statement("submit_locked"), by_id),
        "display": (sql.statement("display"), by_id),
        "locked": (sql.statement("locked"), by_id),
    }
    for name, (text, params) in statements.items():
        reads = _assignment_reads(_generic_plan(text, params))
        assert reads, name
        # Through (pair_id, annotator_id) or an active-lease index: a row or none. Through a plain index on
        # annotator_id (dropped in migration 0008) the claim read the annotator's whole history per candidate.
        assert all(read <= 3 for _, _, read in reads), (name, reads)
