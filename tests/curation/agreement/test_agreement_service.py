"""Agreement through the database: one streamed read, stored reports per campaign and slice, jobs, the CLI."""

import json
import threading
from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.catalogue.models import Pair
from annotation.jobs.models import Job
from annotation.workqueue.models import Annotation
from core.errors import ApplicationError
from curation.agreement.report import variable_agreement
from curation.agreement.table import table_from_answers
from curation.models import AgreementReport
from curation.selectors import ratings
from curation.selectors.ratings import rating_table
from curation.services.agreement import agreement_compute, agreement_job_create, agreement_schedule_due
from tests.curation.agreement.conftest import add_pairs, make_campaign, rate
from tests.factories import CuratorFactory

pytestmark = pytest.mark.django_db

RATINGS = [[6, 5, 6], [1, 2, 1], [6, 1, 4], [3, 4, 5], [5, 5, 2]]


def test_compute_agreement_json_has_the_required_keys_and_matches_the_pure_computation():
    campaign = make_campaign()
    add_pairs(campaign, RATINGS)
    out = StringIO()
    call_command("compute_agreement", "--campaign", campaign.slug, "--bootstrap", "200", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert {"items", "annotations", "alpha", "alpha_ci95", "pairwise_agreement_excluding_ties", "per_dimension"} <= set(
        report)
    assert (report["items"], report["annotations"]) == (5, 15)
    assert set(report["alpha"]) == {"nominal", "ordinal", "interval"}
    pure = table_from_answers(variables=report_variables(campaign), pair_ids=[i for i in range(5) for _ in range(3)],
                              raters=[f"r{j}" for _ in range(5) for j in range(3)],
                              answers=[{"overall": v} for row in RATINGS for v in row])
    expected = variable_agreement(pure, pure.variables["overall"], bootstrap=200, seed=0)
    assert report["alpha"] == pytest.approx(expected["alpha"])
    assert report["alpha_ci95"]["ordinal"] == pytest.approx(expected["alpha_ci95"]["ordinal"])
    assert report["pairwise_agreement_excluding_ties"] == pytest.approx(expected["pairwise_agreement_excluding_ties"])
    assert AgreementReport.objects.get(pk=report["report_id"]).slice_key == ""


def report_variables(campaign):
    from curation.agreement.variables import variables_of_schema

    return variables_of_schema(campaign.rating_schema.definition)


def test_ratings_are_read_with_one_query_on_annotations_whatever_the_campaign_size():
    campaign = make_campaign()
    add_pairs(campaign, RATINGS * 8)
    with CaptureQueriesContext(connection) as queries:
        table = rating_table(campaign=campaign)
    on_annotations = [q["sql"] for q in queries.captured_queries if 'FROM "annotation_annotation"' in q["sql"]]
    assert len(on_annotations) == 1
    assert len(queries.captured_queries) <= 4  # pairs, gold pairs, ratings (+ the cursor's close on PostgreSQL)
    assert table.annotations == 120


def test_values_outside_the_schema_and_adjudications_are_left_out():
    """A quoted "5", a boolean, 9, 5.5 or a list where a 1..6 scale value belongs is not a rating; 5.0 is 5."""
    campaign = make_campaign()
    pairs = add_pairs(campaign, [[6, 5, 9], [1, "5", 1], [True, 2, 5.5], [[6], 5.0, None]])
    Annotation.objects.create(pair=pairs[0], source=Annotation.Source.ADJUDICATION, rater_label="curator",
                              values={"overall": 1})
    table = rating_table(campaign=campaign)
    assert table.annotations == 12
    obs = table.observations["overall"]
    assert sorted((int(table.pair_ids[obs.unit_pair[u]]), int(c) + 1) for u, c in zip(obs.unit, obs.code, strict=True)) == sorted(
        [(pairs[0].pk, 6), (pairs[0].pk, 5), (pairs[1].pk, 1), (pairs[1].pk, 1), (pairs[2].pk, 2), (pairs[3].pk, 5)])


def test_the_portable_read_path_gives_the_same_table_as_postgresql_copy(monkeypatch, raters):
    """The embedded SQLite default streams values_list rows instead of COPY; both paths agree exactly,
    hostile values and awkward rater labels included."""
    campaign = make_campaign(preset="arena", kind="text-to-text")
    pairs = add_pairs(campaign, [["A", "B", "tie"], ["both_bad", "A", "a"], [True, None, "A"]], qid="preference",
                      rater_prefix='label, "quoted"\nline')
    rate(pairs[0], raters[0], {"preference": "B", "rationale": "tab\there"}, swapped=True, time_ms=1500)
    copied = rating_table(campaign=campaign)
    monkeypatch.setattr(ratings, "copy_available", lambda: False)
    streamed = rating_table(campaign=campaign)
    assert copied.rater_keys == streamed.rater_keys
    assert copied.rater_keys[-1] == 'imported:label, "quoted"\nline-2'
    for name in ("pair", "rater", "swapped", "time_ms", "period"):
        assert np.array_equal(getattr(copied, name), getattr(streamed, name), equal_nan=True), name
    for field in ("unit", "rater", "code", "row"):
        assert np.array_equal(getattr(copied.observations["preference"], field),
                              getattr(streamed.observations["preference"], field)), field
    assert sorted(copied.observations["preference"].code.tolist()) == [0, 0, 0, 1, 1, 2, 3]  # "a", true: left out


def test_rubrics_per_response_orientation_time_and_gold_reach_the_report(raters, weeks_ago):
    campaign = make_campaign()
    pair, gold = add_pairs(campaign, [[], []])
    Pair.objects.filter(pk=gold.pk).update(is_gold=True, gold_answer={"overall": 6})
    for i, user in enumerate(raters):
        rate(pair, user, {"overall": 6 - i, "image_quality": {"A": 3, "B": i}}, swapped=bool(i % 2), time_ms=1000 * (i + 1),
             created_at=weeks_ago(2))
        rate(gold, user, {"overall": 6 if i < 2 else 1, "image_quality": {"A": 2, "B": 1}}, swapped=False,
             time_ms=1000 * (i + 1), created_at=weeks_ago(1))
    stored = agreement_compute(campaign=campaign, bootstrap=50, seed=1)
    report = stored.report
    assert report["per_dimension"]["image_quality"]["units"] == 4
    assert report["per_dimension"]["image_quality"]["ratings"] == 12
    rows = {row["rater"]: row for row in report["annotators"]}
    first = rows[f"user:{raters[0].pk}"]
    assert first["gold_accuracy"] == 1.0 and rows[f"user:{raters[2].pk}"]["gold_accuracy"] == 0.0
    assert first["median_time_ms"] == 1000.0 and first["position_choices"] == 2
    assert len(first["trend"]) == 2
    weeks = AgreementReport.objects.filter(campaign=campaign).exclude(slice_key="").values_list("slice_key", flat=True)
    assert len(weeks) == 2 and all(key.startswith("week=") for key in weeks)


def test_slices_by_source_benchmark_get_their_own_reports():
    campaign = make_campaign()
    add_pairs(campaign, RATINGS, source="oneigbench")
    add_pairs(campaign, [[6, 6, 6], [1, 1, 2]], source="genai-bench")
    agreement_compute(campaign=campaign, bootstrap=10, seed=0)
    reports = {r.slice_key: r.report for r in AgreementReport.objects.filter(campaign=campaign)}
    assert set(reports) == {"", "source=genai-bench", "source=oneigbench"}
    assert reports["source=genai-bench"]["annotations"] == 6
    assert reports["source=oneigbench"]["items"] == 5
    assert reports[""]["annotations"] == 21


def test_bad_parameters_are_refused_before_anything_is_stored():
    campaign = make_campaign()
    add_pairs(campaign, RATINGS)
    with pytest.raises(ApplicationError, match="bootstrap must be a whole number"):
        agreement_compute(campaign=campaign, bootstrap=-1)
    with pytest.raises(ApplicationError, match=r"quality parameter\(s\) speed refused: .* one set of rules"):
        agreement_compute(campaign=campaign, quality={"speed": 1})
    with pytest.raises(CommandError, match="campaign 'nope' does not exist"):
        call_command("compute_agreement", "--campaign", "nope")
    assert not AgreementReport.objects.exists()


def test_a_campaign_without_ratings_gets_an_empty_report():
    campaign = make_campaign()
    report = agreement_compute(campaign=campaign, bootstrap=10).report
    assert (report["items"], report["annotations"]) == (0, 0)
    assert report["alpha"] == {"nominal": None, "ordinal": None, "interval": None}


def test_an_agreement_job_runs_through_the_task_and_records_progress_and_result(django_capture_on_commit_callbacks):
    campaign = make_campaign()
    add_pairs(campaign, RATINGS)
    with django_capture_on_commit_callbacks(execute=True):
        job = agreement_job_create(campaign=campaign, created_by=CuratorFactory(), bootstrap=100, seed=3)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED
    assert job.progress_done == job.progress_total > 15
    report = AgreementReport.objects.get(pk=job.result["report_id"])
    assert report.job_id == job.pk and report.params["seed"] == 3
    assert job.result["alpha"] == report.report["alpha"]
    from curation.tasks import agreement_compute as task

    task.apply(args=[job.pk])  # a redelivered task changes nothing more
    assert AgreementReport.objects.filter(campaign=campaign).count() == 1


def test_the_schedule_queues_only_campaigns_rated_since_their_last_report(django_capture_on_commit_callbacks):
    rated = make_campaign()
    add_pairs(rated, RATINGS)
    make_campaign()  # no ratings: nothing to report
    paused = make_campaign(status="paused")
    add_pairs(paused, RATINGS)
    with django_capture_on_commit_callbacks(execute=True):
        jobs = agreement_schedule_due()
    assert [job.campaign_id for job in jobs] == [rated.pk]
    with django_capture_on_commit_callbacks(execute=True):
        assert agreement_schedule_due() == []


def test_a_job_cancelled_while_it_runs_stores_no_report(monkeypatch):
    """The curator cancels while ratings are being read; the job stops at its next progress write."""
    from annotation.jobs.services import job_cancel, job_create
    from curation.services import agreement as service

    campaign = make_campaign()
    add_pairs(campaign, RATINGS)
    job = job_create(kind="agreement", campaign=campaign, params={"bootstrap": 10, "seed": 0})
    real_progress = service.job_progress

    def progress_then_cancel(*, job_id, done, total=None):
        real_progress(job_id=job_id, done=done, total=total)
        job_cancel(job_id=job_id)

    monkeypatch.setattr(service, "job_progress", progress_then_cancel)
    service.agreement_job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == Job.Status.CANCELLED
    assert not AgreementReport.objects.exists()
    service.agreement_job_run(job_id=job.pk)  # a cancelled job stays cancelled
    assert not AgreementReport.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_progress_callback_that_writes_to_the_database_while_ratings_stream_does_not_hang(postgres_only, monkeypatch):
    """A job's progress is an UPDATE on the same connection; during PostgreSQL's COPY it waited for ever (a worker
    computing agreement over 60,000 ratings hung in the soak)."""
    campaign = make_campaign()
    add_pairs(campaign, [[6, 5, 6], [1, 2, 1], [4, 4, 4]])
    job = Job.objects.create(kind="agreement", campaign=campaign)
    monkeypatch.setattr(ratings, "PROGRESS_ROWS", 1, raising=False)
    seen = []

    def progress(rows: int) -> None:
        Job.objects.filter(pk=job.pk).update(progress_done=rows)
        seen.append(rows)

    frame = []
    reader = threading.Thread(target=lambda: frame.append(ratings.stream_frame(
        Annotation.objects.filter(pair__campaign=campaign), names=["id"], progress=progress)), daemon=True)
    reader.start()
    reader.join(timeout=30)
    assert not reader.is_alive(), "stream_frame hung on its own progress callback"
    assert len(frame[0]) == 9 and seen[-1] == 9
    assert Job.objects.get(pk=job.pk).progress_done == 9
