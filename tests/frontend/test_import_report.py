"""Each import keeps its report: the page says how it ended (succeeded, partial, failed) and pages through its row
errors; the errors download whole, with their lines, as CSV and JSON Lines; every row of Recent imports links to its
import's report."""

import csv
import io
import json

import pytest
from django.test import Client
from django.urls import reverse

from annotation.jobs.models import Job
from tests.catalogue.import_helpers import concord_pair
from tests.catalogue.test_import_api import client_for, jsonl, upload
from tests.factories import CuratorFactory, UserFactory

pytestmark = pytest.mark.django_db


def _imported(django_capture_on_commit_callbacks, rows) -> Job:
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client_for(CuratorFactory()), "pairs.jsonl", jsonl(rows))
    return Job.objects.get(pk=response.json()["id"])


@pytest.fixture
def curator_client():
    client = Client()
    client.force_login(CuratorFactory())
    return client


def test_the_report_of_a_failed_import_says_failed_and_why(django_capture_on_commit_callbacks, curator_client):
    job = _imported(django_capture_on_commit_callbacks, [concord_pair(i, a_file=f"img/{i}.png") for i in range(2)])
    page = curator_client.get(reverse("imports-report", args=[job.pk])).content.decode()
    assert 'data-status="failed">failed</span>' in page
    assert "nothing was imported: 2 rows failed (every row failed); line 1: img/0.png: file not found" in page
    assert "<td>2</td><td>img/1.png: file not found under the media root</td>" in page


def test_the_report_pages_through_the_errors_fifty_at_a_time(django_capture_on_commit_callbacks, curator_client):
    job = _imported(django_capture_on_commit_callbacks, [concord_pair(0)] + [{"broken": i} for i in range(120)])
    url = reverse("imports-report", args=[job.pk])
    first = curator_client.get(url).content.decode()
    assert 'data-status="partial">partial</span>' in first
    assert "1 of 121 rows imported (1 created, 0 already present); 120 failed" in first
    assert first.count("<td>unknown field(s): broken</td>") == 50
    assert "Errors 1–50 of 120." in first and 'href="?page=2" rel="next">Next 50' in first
    assert f'href="{reverse("imports-errors", args=[job.pk, "csv"])}"' in first
    last = curator_client.get(url, {"page": 3}).content.decode()
    assert last.count("<td>unknown field(s): broken</td>") == 20
    assert "<td>121</td>" in last and 'rel="next"' not in last


def test_the_errors_download_as_csv_and_json_lines_with_their_lines(django_capture_on_commit_callbacks, curator_client):
    job = _imported(django_capture_on_commit_callbacks, [concord_pair(0), {"broken": 1}, {"also": 2}, concord_pair(1)])
    as_csv = curator_client.get(reverse("imports-errors", args=[job.pk, "csv"]))
    assert as_csv["Content-Type"] == "text/csv; charset=utf-8"
    assert as_csv["Content-Disposition"] == f'attachment; filename="import-{job.pk}-errors.csv"'
    rows = list(csv.reader(io.StringIO(as_csv.content.decode())))
    assert rows[0] == ["line", "message"]
    assert [row[0] for row in rows[1:]] == ["2", "3"]
    assert rows[1][1] == "unknown field(s): broken"
    as_jsonl = curator_client.get(reverse("imports-errors", args=[job.pk, "jsonl"]))
    assert as_jsonl["Content-Disposition"] == f'attachment; filename="import-{job.pk}-errors.jsonl"'
    lines = [json.loads(line) for line in as_jsonl.content.decode().splitlines()]
    assert [entry["line"] for entry in lines] == [2, 3]
    assert lines[0] == {"line": 2, "message": "unknown field(s): broken"}
    assert curator_client.get(reverse("imports-errors", args=[job.pk, "xlsx"])).status_code == 404


def test_a_cell_that_a_spreadsheet_would_run_is_defused_in_the_csv(django_capture_on_commit_callbacks, curator_client):
    job = _imported(django_capture_on_commit_callbacks, [concord_pair(0), {"=HYPERLINK(1)": 1}])
    rows = list(csv.reader(io.StringIO(curator_client.get(reverse("imports-errors", args=[job.pk, "csv"]))
                                       .content.decode())))
    assert rows[1] == ["2", "unknown field(s): =HYPERLINK(1)"]
    job.result["errors"][0]["message"] = "=cmd|' /C calc'!A0"
    job.save(update_fields=["result"])
    rows = list(csv.reader(io.StringIO(curator_client.get(reverse("imports-errors", args=[job.pk, "csv"]))
                                       .content.decode())))
    assert rows[1] == ["2", "'=cmd|' /C calc'!A0"]


def test_a_file_that_failed_before_its_rows_has_its_reason_as_the_one_error(curator_client):
    job = Job.objects.create(kind="import", status=Job.Status.FAILED, error="the archive cannot be read: bad zip",
                             params={"filename": "broken.zip", "format": "concord"})
    lines = curator_client.get(reverse("imports-errors", args=[job.pk, "jsonl"])).content.decode().splitlines()
    assert [json.loads(line) for line in lines] == [{"line": 0, "message": "the archive cannot be read: bad zip"}]


def test_every_row_of_recent_imports_links_to_its_report(django_capture_on_commit_callbacks, curator_client):
    jobs = [_imported(django_capture_on_commit_callbacks, rows)
            for rows in ([concord_pair(0)], [concord_pair(1), {"broken": 1}], [{"broken": 2}])]
    page = curator_client.get(reverse("imports-upload")).content.decode()
    for job in jobs:
        assert f'<tr data-import="{job.pk}">\n      <td><a href="/imports/{job.pk}/">#{job.pk} report</a></td>' in page
    statuses = [f'status-{job.status}">{job.status}</span>' for job in jobs]
    assert [job.status for job in jobs] == ["succeeded", "partial", "failed"]
    assert all(status in page for status in statuses)


def test_only_curators_see_reports_and_only_of_imports(curator_client):
    other = Job.objects.create(kind="agreement", status=Job.Status.SUCCEEDED)
    assert curator_client.get(reverse("imports-report", args=[other.pk])).status_code == 404
    assert curator_client.get(reverse("imports-errors", args=[other.pk, "csv"])).status_code == 404
    job = Job.objects.create(kind="import", status=Job.Status.SUCCEEDED, params={"filename": "x.jsonl"})
    annotator = Client()
    annotator.force_login(UserFactory())
    assert annotator.get(reverse("imports-report", args=[job.pk])).status_code == 403
    assert annotator.get(reverse("imports-errors", args=[job.pk, "csv"])).status_code == 403
