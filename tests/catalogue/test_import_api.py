"""The upload API: curators upload a file, a Celery worker imports it, the job reports progress to 100%."""

import io
import json
import zipfile

import pytest
from django.core.files.storage import default_storage
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.catalogue.models import Media, Pair
from annotation.jobs.models import Job
from tests.catalogue.import_helpers import concord_pair, png_bytes
from tests.celery_worker import threaded_worker, wait_for_job
from tests.factories import CuratorFactory, UserFactory

REDIS_DB_URL = "redis://127.0.0.1:6379/1"


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def upload(client, name: str, data: bytes, **fields):
    body = {"campaign": "uploaded", "format": "concord", "task": "text-to-image", **fields,
            "file": io.BytesIO(data)}
    body["file"].name = name
    return client.post(reverse("api-import-create"), body, format="multipart")


def jsonl(records) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


@pytest.fixture
def celery_worker():
    """A real Celery worker (in a thread) consuming the imports queue from Redis db 1."""
    from core.queues import Queue

    with threaded_worker(redis_url=REDIS_DB_URL, queue=Queue.IMPORTS) as app:
        yield app


@pytest.mark.django_db(transaction=True)
def test_a_curator_upload_is_imported_by_a_worker_with_progress_to_100_percent(celery_worker):
    curator = CuratorFactory()
    data = jsonl([concord_pair(i) for i in range(30)] + [{"broken": True}])
    response = upload(client_for(curator), "batch.jsonl", data)
    assert response.status_code == 202, response.content
    job_id = response.json()["id"]
    assert response.json()["status"] == Job.Status.QUEUED
    detail = wait_for_job(client_for(curator), job_id)
    assert detail["status"] == Job.Status.PARTIAL, detail
    assert detail["percent"] == 100.0
    assert detail["progress_done"] == detail["progress_total"] == len(data)
    assert detail["result"] == {"created": 30, "duplicates": 0, "annotations_imported": 0,
                                "errors": [{"line": 31, "message": "unknown field(s): broken"}],
                                "failed_rows": 1, "rows": 31, "status": "partial",
                                "summary": "30 of 31 rows imported (30 created, 0 already present); 1 failed"}
    assert Pair.objects.filter(campaign__slug="uploaded").count() == 30
    job = Job.objects.get(pk=job_id)
    assert (job.kind, job.created_by, job.campaign.slug, job.params["filename"]) == ("import", curator, "uploaded",
                                                                                        "batch.jsonl")


@pytest.mark.django_db
@pytest.mark.parametrize("role_user", [UserFactory, None], ids=["annotator", "anonymous"])
def test_only_curators_may_upload(role_user):
    client = client_for(role_user()) if role_user else APIClient()
    response = upload(client, "batch.jsonl", jsonl([concord_pair(0)]))
    assert response.status_code == 403
    assert not Job.objects.exists()


@pytest.mark.django_db
def test_a_zip_upload_brings_its_media(tmp_path, django_capture_on_commit_callbacks):
    bundle = io.BytesIO()
    with zipfile.ZipFile(bundle, "w") as archive:
        archive.writestr("pairs.jsonl", jsonl([concord_pair(0, a_file="media/a.png", b_file="media/b.png")]))
        archive.writestr("media/a.png", png_bytes(1))
        archive.writestr("media/b.png", png_bytes(2))
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client_for(CuratorFactory()), "bundle.zip", bundle.getvalue())
    assert response.status_code == 202
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.result["created"] == 1
    assert Pair.objects.get().media.count() == 2
    assert Media.objects.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"pairs.jsonl": b"", "../evil.png": b"x"}, "archive entry '../evil.png' leaves the archive"),
        ({"a.jsonl": b"", "b.jsonl": b""}, "exactly one .jsonl or .json file at its top level, found 2"),
        ({"media/x.png": b""}, "found 0"),
    ],
)
def test_a_hostile_archive_fails_the_job_with_a_reason(entries, message, django_capture_on_commit_callbacks):
    bundle = io.BytesIO()
    with zipfile.ZipFile(bundle, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client_for(CuratorFactory()), "bundle.zip", bundle.getvalue())
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == Job.Status.FAILED
    assert message in job.error
    assert not Pair.objects.exists()
    assert not default_storage.exists(job.params["upload"]), "a failed import's upload stays under media/imports/"


@pytest.mark.django_db
def test_a_zip_bomb_is_refused_by_the_bytes_it_really_unpacks_to(settings, django_capture_on_commit_callbacks):
    settings.CONCORD_MAX_UPLOAD_BYTES = 1_000_000
    bundle = io.BytesIO()
    with zipfile.ZipFile(bundle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("pairs.jsonl", b"")
        archive.writestr("media/zeros.png", b"\0" * 5_000_000)
    assert len(bundle.getvalue()) < 50_000
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client_for(CuratorFactory()), "bundle.zip", bundle.getvalue())
    job = Job.objects.get(pk=response.json()["id"])
    assert (job.status, job.error) == (Job.Status.FAILED, "the archive unpacks to more than 1,000,000 bytes")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "name", "status", "code"),
    [
        ({"task": "text-to-smell"}, "a.jsonl", 400, "invalid"),
        ({"format": "csv"}, "a.jsonl", 400, "invalid"),
        ({}, "a.csv", 400, "unsupported_upload"),
        ({"campaign": "missing", "task": ""}, "a.jsonl", 404, "campaign_not_found"),
    ],
)
def test_bad_upload_requests_are_refused_before_any_job(fields, name, status, code):
    before = stored_uploads()
    response = upload(client_for(CuratorFactory()), name, jsonl([concord_pair(0)]), **fields)
    assert (response.status_code, response.json()["code"]) == (status, code)
    assert not Job.objects.exists()
    assert stored_uploads() == before


def stored_uploads() -> set[str]:
    return set(default_storage.listdir("imports")[1]) if default_storage.exists("imports") else set()


@pytest.mark.django_db
def test_an_import_cancelled_while_queued_or_dying_with_its_reader_leaves_no_upload(monkeypatch,
                                                                                      django_capture_on_commit_callbacks):
    from annotation.importers import services as imports
    from annotation.jobs.services import job_cancel

    before = stored_uploads()
    queued = upload(client_for(CuratorFactory()), "pairs.jsonl", jsonl([concord_pair(0)]))
    assert len(stored_uploads() - before) == 1
    job_cancel(job_id=queued.json()["id"])
    imports.import_job_run(job_id=queued.json()["id"])
    assert stored_uploads() == before

    def broken_reader(**kwargs):
        raise OSError("disk read error")
        yield  # a generator, as the real reader

    monkeypatch.setattr(imports, "prepared_batches", broken_reader)
    with django_capture_on_commit_callbacks(execute=True):
        dying = upload(client_for(CuratorFactory()), "pairs.jsonl", jsonl([concord_pair(1)]))
    assert Job.objects.get(pk=dying.json()["id"]).status == Job.Status.FAILED
    assert stored_uploads() == before


@pytest.mark.django_db
def test_the_upload_page_is_for_curators(client):
    client.force_login(UserFactory())
    assert client.get(reverse("imports-upload")).status_code == 403
    client.force_login(CuratorFactory())
    page = client.get(reverse("imports-upload"))
    assert page.status_code == 200
    assert b'id="import-form"' in page.content and b"frontend/imports/upload.js" in page.content


@pytest.mark.django_db
def test_a_reader_that_dies_fails_the_job_with_its_reason(monkeypatch, django_capture_on_commit_callbacks):
    from annotation.importers import services as imports

    def broken_reader(**kwargs):
        raise OSError("disk read error at byte 4096")
        yield  # a generator, as the real reader

    monkeypatch.setattr(imports, "prepared_batches", broken_reader)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client_for(CuratorFactory()), "pairs.jsonl", jsonl([concord_pair(0)]))
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == Job.Status.FAILED
    assert "the import's reader failed" in job.error and "OSError: disk read error at byte 4096" in job.error


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("prompt_key", "created", "errors"), [("id", 1, 1), ("content", 2, 0)])
def test_an_upload_says_how_rows_on_one_prompt_key_with_other_content_are_handled(
        prompt_key, created, errors, django_capture_on_commit_callbacks):
    second = concord_pair(1)
    second["prompt"] = {**second["prompt"], "content": [{"type": "text", "text": "Draw something else"}]}
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client_for(CuratorFactory()), "pairs.jsonl", jsonl([concord_pair(0), second]),
                          prompt_key=prompt_key)
    job = Job.objects.get(pk=response.json()["id"])
    assert job.params["prompt_key"] == prompt_key
    assert (job.result["created"], len(job.result["errors"])) == (created, errors)
