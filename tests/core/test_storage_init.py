"""storage_init: the media and releases buckets exist before the first upload, over real HTTP against an S3 server."""

import boto3
import httpx
import pytest
from django.core.management import call_command
from moto.server import ThreadedMotoServer

from core.services.storage import storage_buckets_ensure


@pytest.fixture
def s3_endpoint():
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{server._server.server_port}"
    # moto keeps its buckets in process-wide state: start from an empty store whatever ran before.
    httpx.post(f"{endpoint}/moto-api/reset", timeout=10).raise_for_status()
    try:
        yield endpoint
    finally:
        server.stop()


@pytest.fixture
def s3(settings, s3_endpoint):
    """Media on the S3 server, releases on the local disk; returns a client for checking the server."""
    options = {"bucket_name": "concord-media", "endpoint_url": s3_endpoint, "access_key": "test",
               "secret_key": "test-secret", "region_name": "us-east-1", "file_overwrite": False}
    settings.STORAGES = {**settings.STORAGES, "default": {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options}}
    settings.CONCORD_RELEASES_S3 = {**settings.CONCORD_RELEASES_S3, "bucket": ""}
    return boto3.client("s3", endpoint_url=s3_endpoint, aws_access_key_id="test", aws_secret_access_key="test-secret",
                        region_name="us-east-1")


def bucket_names(client) -> list[str]:
    return sorted(b["Name"] for b in client.list_buckets()["Buckets"])


def test_storage_init_creates_the_missing_media_bucket_once(s3, capsys):
    """The first run creates the bucket; a second run finds it and leaves its objects alone."""
    assert bucket_names(s3) == []
    call_command("storage_init")
    assert bucket_names(s3) == ["concord-media"]
    s3.put_object(Bucket="concord-media", Key="kept.txt", Body=b"still here")
    call_command("storage_init")
    assert bucket_names(s3) == ["concord-media"]
    assert s3.get_object(Bucket="concord-media", Key="kept.txt")["Body"].read() == b"still here"
    assert "S3 bucket 'concord-media' is ready." in capsys.readouterr().out


def test_storage_init_also_creates_the_releases_bucket_when_configured(s3, settings, s3_endpoint):
    """RELEASES_S3_BUCKET gets its own bucket on its own endpoint settings; one shared name is created once."""
    settings.CONCORD_RELEASES_S3 = {**settings.CONCORD_RELEASES_S3, "bucket": "concord-releases", "endpoint_url": s3_endpoint,
                                    "access_key": "test", "secret_key": "test-secret", "region": "us-east-1"}
    assert storage_buckets_ensure() == ["concord-media", "concord-releases"]
    assert bucket_names(s3) == ["concord-media", "concord-releases"]
    settings.CONCORD_RELEASES_S3 = {**settings.CONCORD_RELEASES_S3, "bucket": "concord-media"}
    assert storage_buckets_ensure() == ["concord-media"]


def test_storage_init_needs_nothing_for_local_disk(settings, capsys):
    """With the embedded default (files on disk) there is no bucket to make."""
    settings.STORAGES = {**settings.STORAGES, "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"}}
    settings.CONCORD_RELEASES_S3 = {**settings.CONCORD_RELEASES_S3, "bucket": ""}
    assert storage_buckets_ensure() == []
    call_command("storage_init")
    assert "local disk" in capsys.readouterr().out
