"""An import says what happened: ``succeeded`` only when every row is in, ``partial`` (with "n of m") when some rows
are in and some failed, ``failed`` (with its first reasons) when nothing was imported. The same status is on the job,
in the API and in ``import_pairs --json`` with its exit status; a partial job is finished for everything that
follows jobs."""

import json
import os
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.catalogue.models import Pair
from annotation.importers.services import import_job_run
from annotation.jobs.models import Job
from annotation.jobs.reaper import jobs_reap
from annotation.jobs.services import job_start
from tests.catalogue.import_helpers import concord_pair, run_import_json, write_jsonl
from tests.catalogue.test_import_api import client_for, jsonl, upload
from tests.factories import CuratorFactory

pytestmark = pytest.mark.django_db

NEW_CAMPAIGN = ("--campaign", "outcomes", "--format", "concord", "--task", "text-to-image")


def _uploaded(django_capture_on_commit_callbacks, name: str, data: bytes, **fields) -> Job:
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client_for(CuratorFactory()), name, data, **fields)
    assert response.status_code == 202, response.content
    return Job.objects.get(pk=response.json()["id"])


def test_an_upload_without_its_media_fails_naming_its_first_three_rows(django_capture_on_commit_callbacks):
    """The MMRB2 case: every row names an image that is not in the upload, so nothing is imported."""
    rows = [concord_pair(i, a_file=f"images/{i}_a.png", b_file=f"images/{i}_b.png") for i in range(5)]
    job = _uploaded(django_capture_on_commit_callbacks, "pairs.jsonl", jsonl(rows))
    assert job.status == Job.Status.FAILED
    assert job.error == (
        "nothing was imported: 5 rows failed (every row failed); "
        "line 1: images/0_a.png: file not found under the media root; "
        "line 2: images/1_a.png: file not found under the media root; "
        "line 3: images/2_a.png: file not found under the media root (and 2 more)")
    assert (job.result["created"], job.result["failed_rows"], job.result["rows"]) == (0, 5, 5)
    assert [e["line"] for e in job.result["errors"]] == [1, 2, 3, 4, 5]
    assert job.result["status"] == "failed"
    assert not Pair.objects.exists()


def test_an_upload_whose_rows_partly_failed_is_partial_saying_n_of_m(django_capture_on_commit_callbacks):
    rows = [concord_pair(0), concord_pair(1), {"broken": True}, concord_pair(2, a_file="missing.png")]
    job = _uploaded(django_capture_on_commit_callbacks, "pairs.jsonl", jsonl(rows))
    assert job.status == Job.Status.PARTIAL
    assert job.error == ""
    assert job.result["summary"] == "2 of 4 rows imported (2 created, 0 already present); 2 failed"
    assert [e["line"] for e in job.result["errors"]] == [3, 4]
    assert job.finished_at is not None
    detail = client_for(CuratorFactory()).get(reverse("api-job-detail", args=[job.pk])).json()
    assert (detail["status"], detail["percent"]) == ("partial", 100.0)


def test_rows_already_present_count_as_in_so_a_second_upload_of_a_partial_file_is_partial_again(
        django_capture_on_commit_callbacks):
    rows = [concord_pair(0), {"broken": True}]
    _uploaded(django_capture_on_commit_callbacks, "pairs.jsonl", jsonl(rows))
    again = _uploaded(django_capture_on_commit_callbacks, "pairs.jsonl", jsonl(rows))
    assert again.status == Job.Status.PARTIAL
    assert again.result["summary"] == "1 of 2 rows imported (0 created, 1 already present); 1 failed"


def test_an_upload_whose_every_row_is_in_succeeds_even_when_all_were_already_present(django_capture_on_commit_callbacks):
    rows = [concord_pair(0), concord_pair(1)]
    first = _uploaded(django_capture_on_commit_callbacks, "pairs.jsonl", jsonl(rows))
    again = _uploaded(django_capture_on_commit_callbacks, "pairs.jsonl", jsonl(rows))
    assert (first.status, first.result["summary"]) == (
        Job.Status.SUCCEEDED, "2 of 2 rows imported (2 created, 0 already present)")
    assert (again.status, again.result["summary"]) == (
        Job.Status.SUCCEEDED, "2 of 2 rows imported (0 created, 2 already present)")


@pytest.mark.parametrize(("name", "fmt", "reason"), [
    ("noise.jsonl", "concord", "line 1: invalid UTF-8 at byte 1 of the line"),
    ("noise.json", "mmrb2", "line 1: invalid UTF-8 near byte 1 of the file"),
])
def test_a_file_of_random_bytes_fails_with_the_reason(django_capture_on_commit_callbacks, name, fmt, reason):
    noise = b"\xff\xfe" + os.urandom(4000)
    job = _uploaded(django_capture_on_commit_callbacks, name, noise, format=fmt)
    assert job.status == Job.Status.FAILED
    assert job.error.startswith("nothing was imported: ")
    assert reason in job.error


def test_a_broken_json_file_fails_with_its_parse_error(django_capture_on_commit_callbacks):
    job = _uploaded(django_capture_on_commit_callbacks, "release.json", b'{"pairs": [{"id": 1', format="mmrb2")
    assert job.status == Job.Status.FAILED
    assert "line 1: invalid JSON at line 1: " in job.error and "the rest of the file was not read" in job.error


def test_an_empty_file_imports_nothing_and_fails(django_capture_on_commit_callbacks):
    job = _uploaded(django_capture_on_commit_callbacks, "empty.jsonl", b"\n\n")
    assert (job.status, job.error) == (Job.Status.FAILED, "nothing was imported: the file holds no rows")


def test_a_partial_job_is_finished_for_a_redelivered_task_and_for_job_start(django_capture_on_commit_callbacks):
    job = _uploaded(django_capture_on_commit_callbacks, "pairs.jsonl", jsonl([concord_pair(0), {"broken": True}]))
    assert job.status == Job.Status.PARTIAL
    import_job_run(job_id=job.pk)  # a redelivery after the end
    assert job_start(job_id=job.pk).status == Job.Status.PARTIAL
    job.refresh_from_db()
    assert job.status == Job.Status.PARTIAL and job.result["created"] == 1
    assert Pair.objects.count() == 1


def test_the_reaper_never_sends_a_partial_job_again(settings):
    settings.CONCORD_JOB_QUEUED_SECONDS = 0
    settings.CONCORD_JOB_STALL_SECONDS = 0
    long_ago = timezone.now() - timedelta(hours=2)
    job = Job.objects.create(kind="import", status=Job.Status.PARTIAL, task_name="annotation.importers.import_pairs",
                             task_args=[1], dispatches=1, dispatched_at=long_ago, heartbeat_at=long_ago,
                             started_at=long_ago, finished_at=long_ago)
    reaped = jobs_reap()
    assert job.pk not in reaped.resumed and job.pk not in reaped.failed
    job.refresh_from_db()
    assert (job.status, job.dispatches) == (Job.Status.PARTIAL, 1)


def test_the_command_says_partial_in_its_json_and_exits_2(tmp_path):
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0), {"broken": 1}])
    code, summary = run_import_json(path, *NEW_CAMPAIGN)
    assert (code, summary["status"]) == (2, "partial")
    assert summary["summary"] == "1 of 2 rows imported (1 created, 0 already present); 1 failed"


def test_the_command_says_failed_and_exits_1_when_nothing_was_imported(tmp_path):
    path = write_jsonl(tmp_path / "pairs.jsonl", [{"broken": 1}, {"broken": 2}])
    code, summary = run_import_json(path, *NEW_CAMPAIGN)
    assert (code, summary["status"], summary["created"], summary["failed_rows"]) == (1, "failed", 0, 2)
    assert summary["summary"].startswith("nothing was imported: 2 rows failed (every row failed); line 1: ")
    noise = tmp_path / "noise.jsonl"
    noise.write_bytes(b"\xff" + os.urandom(500))
    code, summary = run_import_json(noise, *NEW_CAMPAIGN)
    assert (code, summary["status"]) == (1, "failed")


def test_the_command_says_succeeded_and_exits_0_when_every_row_is_in(tmp_path):
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0)])
    code, summary = run_import_json(path, *NEW_CAMPAIGN)
    assert (code, summary["status"], summary["rows"], summary["failed_rows"]) == (0, "succeeded", 1, 0)


def test_the_human_summary_of_the_command_leads_with_the_outcome(tmp_path):
    from tests.catalogue.import_helpers import run_import

    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0), {"broken": 1}])
    code, out = run_import(path, *NEW_CAMPAIGN)
    assert code == 2
    assert out.splitlines()[0] == "PARTIAL: 1 of 2 rows imported (1 created, 0 already present); 1 failed"


def test_the_job_api_and_its_schema_name_the_partial_status():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    assert schema["components"]["schemas"]["JobStatusEnum"]["enum"] == [
        "queued", "running", "succeeded", "partial", "failed", "cancelled"]
    for component in ("JobOutput", "ImportErrorsPage"):
        status = schema["components"]["schemas"][component]["properties"]["status"]
        assert status == {"$ref": "#/components/schemas/JobStatusEnum"}, component


def test_the_errors_api_pages_through_an_imports_row_errors_with_their_lines(django_capture_on_commit_callbacks):
    rows = [concord_pair(0)] + [{"broken": i} for i in range(7)]
    job = _uploaded(django_capture_on_commit_callbacks, "pairs.jsonl", jsonl(rows))
    client = client_for(CuratorFactory())
    page = client.get(reverse("api-import-errors", args=[job.pk]), {"offset": 2, "limit": 3}).json()
    assert (page["job"], page["status"], page["count"], page["offset"]) == (job.pk, "partial", 7, 2)
    assert page["errors"] == [{"line": n, "message": "unknown field(s): broken"} for n in (4, 5, 6)]
    assert page["summary"] == "1 of 8 rows imported (1 created, 0 already present); 7 failed"
    assert client.get(reverse("api-import-errors", args=[job.pk + 1000])).status_code == 404


def test_a_missing_campaign_is_refused_on_the_api_in_its_fields_and_on_the_command_line_in_its_options(tmp_path):
    response = upload(client_for(CuratorFactory()), "pairs.jsonl", jsonl([concord_pair(0)]), campaign="nowhere", task="")
    body = response.json()
    assert response.status_code == 404
    assert body["extra"] == {"field": "task"}
    assert "--" not in body["message"]
    assert body["message"] == "campaign 'nowhere' does not exist; give a task kind (and a rating schema) to create it"
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0)])
    code, summary = run_import_json(path, "--campaign", "nowhere", "--format", "concord")
    assert (code, summary["status"]) == (1, "failed")
    assert summary["errors"][0]["message"].endswith(" to create it (pass --task KIND and optionally --schema PRESET)")
    assert json.dumps(summary)


def test_a_reader_that_fails_after_rows_were_written_leaves_a_partial_job_saying_why(
        monkeypatch, django_capture_on_commit_callbacks):
    """What was committed before the reader failed stays, so the job is partial (not failed) and keeps the reason."""
    from annotation.importers import services as imports

    real = imports.prepared_batches

    def fails_after_the_first_batch(**kwargs):
        yield next(iter(real(**kwargs)))
        raise OSError("the disk went away")

    monkeypatch.setattr(imports, "prepared_batches", fails_after_the_first_batch)
    job = _uploaded(django_capture_on_commit_callbacks, "pairs.jsonl", jsonl([concord_pair(i) for i in range(5)]))
    assert job.status == Job.Status.PARTIAL
    assert job.error.startswith("the import's reader failed: OSError: the disk went away")
    assert job.result["created"] == Pair.objects.count() == 5, "the first batch (the whole file) was written"
