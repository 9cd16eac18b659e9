"""Training exports from the release page and the API: a job writes the export beside the release, finished exports
are listed and download as one zip, an export asked for again is reused, bad options and hostile folders refused."""

import io
import json
import zipfile

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.jobs.models import Job
from curation.models import Release
from tests.curation.releases.test_training_export import export, published  # noqa: F401  (the fixture)
from tests.factories import CuratorFactory

pytestmark = pytest.mark.django_db
API = "/api/v1/releases/fox-bench/1.0.0/training-exports/"


@pytest.fixture
def curator():
    client = APIClient()
    client.force_authenticate(CuratorFactory())
    return client


def _start(curator, capture, **body):
    with capture(execute=True):
        answer = curator.post(API, body, format="json")
    assert answer.status_code == 202, answer.content
    return Job.objects.get(pk=answer.json()["id"])


def test_an_export_over_the_api_equals_the_commands_and_downloads_as_one_zip(
        published, releases_root, curator, django_capture_on_commit_callbacks, tmp_path):  # noqa: F811
    job = _start(curator, django_capture_on_commit_callbacks, format="trl", ties="margin")
    assert job.status == "succeeded" and job.progress_done == job.progress_total == 4
    assert job.result["folder"] == "trl-ties-margin" and job.result["reused"] is False
    (listed,) = curator.get(API).json()
    assert (listed["folder"], listed["pairs"], listed["left_out"]) == ("trl-ties-margin", 4, {"tie": 1})
    assert listed["columns"] == ["prompt", "chosen", "rejected", "images", "margin"]

    body = b"".join(curator.get(listed["download"]).streaming_content)
    with zipfile.ZipFile(io.BytesIO(body)) as zipped:
        names = zipped.namelist()
        lines = zipped.read("fox-bench-1.0.0-trl-ties-margin/train.jsonl").decode().splitlines()
    assert "fox-bench-1.0.0-trl-ties-margin/manifest.json" in names
    assert any(n.startswith("fox-bench-1.0.0-trl-ties-margin/media/") for n in names)
    command = export("--release", "fox-bench@1.0.0", "--format", "trl", "--ties", "margin", "--out", str(tmp_path / "cmd"))
    assert command["pairs"] == 4
    assert lines == (tmp_path / "cmd" / "train.jsonl").read_text().splitlines()

    again = _start(curator, django_capture_on_commit_callbacks, format="trl", ties="margin")
    assert again.status == "succeeded" and again.result["reused"] is True


def test_bad_options_and_folders_are_refused_and_nothing_is_written(published, releases_root, curator):  # noqa: F811
    assert curator.post(API, {"format": "alpaca"}, format="json").status_code == 400
    assert curator.post(API, {"format": "trl", "min_agreement": 1.5}, format="json").status_code == 400
    for folder in ("..", "trl%2F..%2F..", "nope"):
        assert curator.get(f"{API}{folder}/archive/").status_code == 404
    assert not (releases_root / "fox-bench" / "1.0.0-training").exists()
    assert Job.objects.filter(kind="training_export").count() == 0
    Release.objects.filter(name="fox-bench", version="1.0.0").update(storage=Release.Storage.S3)
    refused = curator.post(API, {"format": "trl"}, format="json")
    assert refused.status_code == 409 and "export_training --folder" in refused.json()["message"]


def test_the_page_starts_an_export_shows_it_and_downloads_it(
        published, releases_root, client, django_capture_on_commit_callbacks):  # noqa: F811
    client.force_login(CuratorFactory())
    page = reverse("release-training", args=["fox-bench", "1.0.0"])
    assert 'href="' + page + '"' in client.get(reverse("release-leaderboard", args=["fox-bench", "1.0.0"])).content.decode()
    wrong = client.post(page, {"format": "trl", "ties": "drop", "min_agreement": "lots"})
    assert wrong.status_code == 400
    assert "minimum agreement is a share between 0 and 1, not &#x27;lots&#x27;" in wrong.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        started = client.post(page, {"format": "openrlhf", "ties": "drop", "min_agreement": "0.5"})
    assert started.status_code == 302
    html = client.get(page).content.decode()
    assert 'data-export="openrlhf-min-0.5"' in html
    download = client.get(reverse("release-training-archive", args=["fox-bench", "1.0.0", "openrlhf-min-0.5"]))
    with zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content))) as zipped:
        manifest = json.loads(zipped.read("fox-bench-1.0.0-openrlhf-min-0.5/manifest.json"))
    assert manifest["format"] == "openrlhf" and manifest["min_agreement"] == 0.5
