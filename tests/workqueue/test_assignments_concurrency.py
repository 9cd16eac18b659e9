"""Claims under real concurrency: 50 annotators on their own connections (PostgreSQL, and SQLite on the SQLite leg,
`make test-sqlite`), SQLite in processes; tests of PostgreSQL's own statements and plans are marked postgres_only."""

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from annotation.catalogue.models import Pair
from annotation.workqueue.models import Annotation, Assignment, AssignmentEvent
from annotation.workqueue.services.assignments import (
    annotation_submit,
    assignment_claim,
    assignment_claim_by_slug,
    assignments_expire,
)
from tests.workqueue.assignment_helpers import AB_TIE_ANSWER, ab_tie_campaign, submit

ROOT = Path(__file__).resolve().parents[2]
ANNOTATORS = 50
PAIRS = 40
OVERLAP = 3


def race(raters, campaign, *, now=None, abandon=frozenset()) -> tuple[dict, list]:
    """Each rater, on its own thread and connection, claims and submits until nothing is left for it."""
    claims: dict[int, list[int]] = {r.pk: [] for r in raters}
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(raters))

    def work(rater):
        try:
            barrier.wait()
            while (assignment := assignment_claim(campaign=campaign, annotator=rater, now=now)) is not None:
                claims[rater.pk].append(assignment.pair_id)
                if rater.pk in abandon:
                    return
                annotation_submit(assignment=assignment, annotator=rater, values=AB_TIE_ANSWER, time_on_item_ms=50,
                                  idempotency_key=f"k{assignment.pk}")
        except BaseException as exc:  # noqa: B036 - reported to the test thread below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(r,)) for r in raters]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    return claims, errors


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_fifty_annotators_racing_never_exceed_overlap_or_lose_a_claim():
    campaign, raters, pairs = ab_tie_campaign(overlap=OVERLAP, pairs=PAIRS, members=ANNOTATORS, lease_minutes=30)
    abandon = frozenset(r.pk for r in raters[::10])

    # The leases that will be abandoned are taken first (racing among themselves), so that every
    # abandoner surely holds one while the other 45 race over the rest of the pool.
    held, errors = race([r for r in raters if r.pk in abandon], campaign, abandon=abandon)
    assert errors == [] and all(len(leases) == 1 for leases in held.values())
    claims, errors = race([r for r in raters if r.pk not in abandon], campaign)
    claims.update(held)
    assert errors == []
    for pk, seen in claims.items():
        assert len(seen) == len(set(seen)), f"annotator {pk} saw a pair twice"
    live = Counter(Assignment.objects.filter(status="active").values_list("pair_id", flat=True))
    done = Counter(Annotation.objects.values_list("pair_id", flat=True))
    for pair in Pair.objects.all():
        assert live[pair.pk] + done[pair.pk] <= OVERLAP
        assert (pair.active_claims, pair.annotations_done) == (live[pair.pk], done[pair.pk])
    assert sum(live.values()) == len(abandon)
    assert sum(live.values()) + sum(done.values()) == PAIRS * OVERLAP, "a slot was lost"
    assert AssignmentEvent.objects.filter(kind="claim").count() == sum(map(len, claims.values())) == Assignment.objects.count()

    workers = [r for r in raters if r.pk not in abandon]
    later = timezone.now() + timedelta(minutes=31)
    more, errors = race(workers, campaign, now=later)
    assert errors == []
    assert Assignment.objects.filter(status="expired").count() == len(abandon)
    assert AssignmentEvent.objects.filter(kind="expire").count() == len(abandon)
    expired_pairs = set(Assignment.objects.filter(status="expired").values_list("pair_id", flat=True))
    assert expired_pairs <= {pair for seen in more.values() for pair in seen}, "an expired lease did not come back"
    assert not Pair.objects.exclude(status=Pair.Status.COMPLETE).exists()
    assert Annotation.objects.count() == PAIRS * OVERLAP
    assert not Annotation.objects.values("pair", "annotator").annotate(n=Count("pk")).filter(n__gt=1).exists()


@pytest.mark.django_db(transaction=True)
def test_a_claim_waits_for_leases_another_transaction_is_expiring_instead_of_answering_nothing_left():
    """The last slot is held by a due lease that another transaction has locked and is expiring: bob gets it."""
    campaign, (alice, bob), (pair,) = ab_tie_campaign(overlap=1, pairs=1, members=2, lease_minutes=30)
    assert assignment_claim(campaign=campaign, annotator=alice).pair_id == pair.pk
    later = timezone.now() + timedelta(minutes=31)
    expiring, release = threading.Event(), threading.Event()

    def expire_slowly():
        try:
            with transaction.atomic():
                assert assignments_expire(now=later) == 1
                expiring.set()
                release.wait(timeout=10)
        finally:
            connection.close()

    expirer = threading.Thread(target=expire_slowly)
    expirer.start()
    assert expiring.wait(timeout=10)
    threading.Timer(0.3, release.set).start()
    claimed = assignment_claim(campaign=campaign, annotator=bob, now=later)
    expirer.join(timeout=10)
    assert claimed is not None and claimed.pair_id == pair.pk
    assert Assignment.objects.get(annotator=alice).status == Assignment.Status.EXPIRED


@pytest.mark.slow
def test_concurrent_claims_on_sqlite_are_serialized_by_the_write_lock(tmp_path):
    env = {**os.environ, "DJANGO_MEDIA_ROOT": str(tmp_path / "media")}
    env.pop("DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "tests.workqueue.assignment_sqlite_race", str(tmp_path / "race.sqlite3"), "8"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["transaction_mode"] == "IMMEDIATE"
    assert summary["repeats"] == 0
    assert summary["annotations_per_pair"] == [3] * 10
    assert summary["counters"] == [[3, 0, "complete"]] * 10
    assert sum(summary["claims_per_rater"]) == 30


# A submission outside a transaction (the API's) reads without a lock and writes in one statement guarded by the
# status it read; if that status moved in between, it writes nothing and runs again holding the row lock.


def _wrap_the_read(monkeypatch, meanwhile):
    """Runs ``meanwhile(assignment)`` on another connection right after the submission's unlocked read."""
    from annotation.workqueue.store import store

    original = store().submission_read

    def read_then_interfere(assignment, annotator, *, lock):
        found = original(assignment, annotator, lock=lock)
        if not lock:
            worker = threading.Thread(target=lambda: (meanwhile(assignment), connection.close()))
            worker.start()
            worker.join(timeout=10)
        return found

    monkeypatch.setattr(store(), "submission_read", read_then_interfere)


@pytest.mark.django_db(transaction=True)
def test_a_submission_outside_a_transaction_is_two_statements(postgres_only):
    from django.test.utils import CaptureQueriesContext

    campaign, (rater, *_), (pair,) = ab_tie_campaign(pairs=1)
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    with CaptureQueriesContext(connection) as queries:
        annotation = annotation_submit(assignment=assignment, annotator=rater, values=AB_TIE_ANSWER, time_on_item_ms=10,
                                       idempotency_key="two")
    assert len(queries) == 2, [q["sql"][:80] for q in queries]
    assert "FOR UPDATE OF a" not in queries[0]["sql"]
    pair.refresh_from_db()
    assert (pair.active_claims, pair.annotations_done) == (0, 1)
    assert Assignment.objects.get(pk=assignment.pk).status == "submitted"
    assert AssignmentEvent.objects.get(kind="submit").detail["annotation"] == annotation.pk


def _sequential_scans(tables: list[str]) -> dict[str, int]:
    """Sequential scans of ``tables`` so far, this connection's included (its pending counts flushed first)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")  # flushed when the statement ends
        cursor.execute("SELECT relname, seq_scan FROM pg_stat_user_tables WHERE relname = ANY(%s)", [tables])
        return dict(cursor.fetchall())


@pytest.mark.django_db(transaction=True)
def test_submissions_never_scan_the_annotation_table_even_with_plans_made_while_it_was_empty(postgres_only):
    # The statements of the loop become prepared statements on a connection that runs them often, and PostgreSQL may
    # keep a plan made while a table was nearly empty. The submission's read used to look for an earlier annotation
    # with a plan made then (a sequential scan), and so read every annotation stored on every submit, on that
    # connection, for as long as it lived. (On tables this small a scan is the right plan: the point is that a
    # submission that does not need to read the annotation table does not.)
    campaign, raters, _ = ab_tie_campaign(pairs=8)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE annotation_annotation")  # known to be empty, as after a bulk load
    before = _sequential_scans(["annotation_annotation"])
    submitted = 0
    for rater in raters:
        while (assignment := assignment_claim(campaign=campaign, annotator=rater)) is not None:
            submit(assignment)
            submitted += 1
    assert submitted == 24  # more often than psycopg's prepare threshold (5), on this one connection
    assert _sequential_scans(["annotation_annotation"]) == before


@pytest.mark.django_db(transaction=True)
def test_the_claim_statement_is_planned_once_per_connection_not_on_every_claim(postgres_only):
    # psycopg prepares a statement run five times on a connection; PostgreSQL then plans it anew on every run
    # unless its generic plan looks no costlier than one made for the values at hand. A parameter in the
    # claim's LIMIT and OFFSET made it look costlier, and planning cost more than running it.
    campaign, (rater, *_), (pair,) = ab_tie_campaign(pairs=1)
    with connection.cursor() as cursor:  # a pool of 60,000 pairs, as the planner sees it
        cursor.execute(
            "INSERT INTO annotation_pair (campaign_id, prompt_id, response_a_id, response_b_id, external_id, criteria,"
            " metadata, status, status_reason, priority, required_annotations, active_claims, annotations_done, is_gold,"
            " created_at) SELECT campaign_id, prompt_id, response_a_id, response_b_id, 'copy-' || n, criteria, metadata,"
            " status, status_reason, priority, required_annotations, 0, 0, is_gold, created_at"
            " FROM annotation_pair, generate_series(1, 60000) n WHERE id = %s",
            [pair.pk],
        )
        cursor.execute("ANALYZE annotation_pair")
    for _ in range(20):
        submit(assignment_claim(campaign=campaign, annotator=rater))
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")
        plans = {statement: (generic, custom) for statement, generic, custom in cursor.fetchall()}
    (generic, custom), = [counts for statement, counts in plans.items() if "floor AS" in statement]
    # 20 claims: the first ones before psycopg prepared the statement, then 5 planned for their values while
    # PostgreSQL compared, then the generic plan, made once, for the rest.
    unprepared = connection.connection.prepare_threshold
    assert (custom, generic) == (5, 20 - unprepared - 5)


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_a_repeat_returns_the_annotation_and_a_reused_key_stores_the_other_assignment():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=2, overlap=1)
    first = assignment_claim(campaign=campaign, annotator=rater)
    stored = submit(first, key="same")
    assert submit(first, key="same") == stored and submit(first, key="another") == stored  # the locked read answers repeats
    second = assignment_claim(campaign=campaign, annotator=rater)
    assert submit(second, key="same").assignment_id == second.pk  # the key is scoped to its assignment
    assert Pair.objects.filter(pk=second.pair_id).values_list("active_claims", "annotations_done").get() == (0, 1)
    assert Annotation.objects.count() == 2
    assert AssignmentEvent.objects.filter(kind="submit").count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_claim_with_nothing_due_is_one_statement_and_the_lease_is_what_was_written(postgres_only):
    from django.test.utils import CaptureQueriesContext

    campaign, (rater, *_), pairs = ab_tie_campaign(pairs=2)
    with CaptureQueriesContext(connection) as queries:
        assignment = assignment_claim_by_slug(slug=campaign.slug, annotator=rater)
    # The membership read, the entry gate (profile, crowd entry) and the claim in one statement; no BEGIN/COMMIT.
    assert len(queries) == 1, [q["sql"][:80] for q in queries]
    assert "annotation_campaignquestionnaire" in queries[0]["sql"] and "INSERT INTO annotation_assignment" in queries[0]["sql"]
    assert assignment.pair == pairs[0] and assignment.campaign == campaign
    assert assignment.expires_at == assignment.claimed_at + timedelta(minutes=campaign.lease_minutes)
    stored = Assignment.objects.get(pk=assignment.pk)
    assert (stored.expires_at, stored.swapped, stored.status) == (assignment.expires_at, assignment.swapped, "active")
    assert Pair.objects.get(pk=pairs[0].pk).active_claims == 1
    assert AssignmentEvent.objects.filter(assignment=stored, kind="claim").count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_tabs_claiming_at_once_get_the_same_lease(postgres_only, monkeypatch):
    # The second claim reads no open lease (the first tab's is not committed yet), then waits on the one-lease
    # index until the first commits, fails on it, and answers with that lease.
    from annotation.workqueue.services import assignments

    campaign, (rater, *_), _ = ab_tie_campaign(pairs=3)
    first_claimed, release, first = threading.Event(), threading.Event(), {}

    def first_tab():
        with transaction.atomic():
            first["lease"] = assignment_claim_by_slug(slug=campaign.slug, annotator=rater)
            first_claimed.set()
            release.wait(10)
        connection.close()

    tab = threading.Thread(target=first_tab)
    tab.start()
    assert first_claimed.wait(10)
    conflicts = []
    own = assignments._own
    monkeypatch.setattr(assignments, "_own", lambda *args: conflicts.append(args) or own(*args))  # after the failure

    def release_once_the_second_waits():
        with connection.cursor() as cursor:
            for _ in range(200):
                cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                               " AND datname = current_database()")
                if cursor.fetchone()[0]:
                    break
                time.sleep(0.05)
        release.set()
        connection.close()

    threading.Thread(target=release_once_the_second_waits).start()
    second = assignment_claim_by_slug(slug=campaign.slug, annotator=rater)
    tab.join(10)
    assert second.pk == first["lease"].pk and len(conflicts) == 1
    assert Assignment.objects.filter(annotator=rater).count() == 1
    assert sorted(Pair.objects.values_list("active_claims", flat=True)) == [0, 0, 1]


@pytest.mark.django_db(transaction=True)
def test_a_lease_expired_between_the_read_and_the_write_is_counted_once(postgres_only, monkeypatch):
    campaign, (rater, *_), (pair,) = ab_tie_campaign(pairs=1, lease_minutes=30)
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    _wrap_the_read(monkeypatch, lambda a: assignments_expire(now=timezone.now() + timedelta(minutes=31)))
    annotation = annotation_submit(assignment=assignment, annotator=rater, values=AB_TIE_ANSWER, time_on_item_ms=10,
                                   idempotency_key="late")
    pair.refresh_from_db()
    # The expiry gave the slot back; the submission (after expiry, the pair having room) takes one: not two.
    assert (pair.active_claims, pair.annotations_done) == (0, 1)
    assert Annotation.objects.get().pk == annotation.pk
    assert AssignmentEvent.objects.get(kind="submit").detail["after_expiry"] is True


@pytest.mark.django_db(transaction=True)
def test_a_skip_between_the_read_and_the_write_wins_and_nothing_is_stored(postgres_only, monkeypatch):
    from annotation.workqueue.services.assignments import assignment_skip
    from core.errors import ApplicationError

    campaign, (rater, *_), (pair,) = ab_tie_campaign(pairs=1)
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    _wrap_the_read(monkeypatch, lambda a: assignment_skip(assignment=a, annotator=rater, reason="other tab"))
    with pytest.raises(ApplicationError) as refused:
        annotation_submit(assignment=assignment, annotator=rater, values=AB_TIE_ANSWER, time_on_item_ms=10,
                          idempotency_key="k")
    assert refused.value.code == "assignment_skipped"
    pair.refresh_from_db()
    assert (pair.active_claims, pair.annotations_done, Annotation.objects.count()) == (0, 0, 0)


@pytest.mark.django_db(transaction=True)
def test_eight_simultaneous_submits_of_one_assignment_store_one_annotation():
    campaign, (rater, *_), (pair,) = ab_tie_campaign(pairs=1)
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    barrier, answers, errors = threading.Barrier(8), [], []

    def submit(n):
        try:
            barrier.wait()
            # Half retry with the same key, half come from another tab with a key of their own.
            key = "same" if n % 2 else f"tab-{n}"
            answers.append(annotation_submit(assignment=Assignment(pk=assignment.pk), annotator=rater,
                                             values=AB_TIE_ANSWER, time_on_item_ms=10, idempotency_key=key).pk)
        except BaseException as exc:  # noqa: B036 - reported to the test thread below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert len(answers) == 8 and len(set(answers)) == 1
    pair.refresh_from_db()
    assert (pair.active_claims, pair.annotations_done, Annotation.objects.count()) == (0, 1, 1)
    assert AssignmentEvent.objects.filter(kind="submit").count() == 1
