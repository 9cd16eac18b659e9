"""storage_init: the media bucket exists before the first upload, over real HTTP against an S3 server."""

import boto3
import pytest
from django.core.management import call_command
from moto.server import ThreadedMotoServer

from annotation.services.storage import storage_bucket_ensure


@pytest.fixture
def s3_endpoint():
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{server._server.server_port}"
    finally:
        server.stop()


@pytest.fixture
def s3_storage(settings, s3_endpoint):
    options = {"bucket_name": "concord-media", "endpoint_url": s3_endpoint, "access_key": "test",
               "secret_key": "test-secret", "region_name": "us-east-1", "file_overwrite": False}
    settings.STORAGES = {**settings.STORAGES, "default": {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options}}
    client = boto3.client("s3", endpoint_url=s3_endpoint, aws_access_key_id="test", aws_secret_access_key="test-secret",
                          region_name="us-east-1")
    return client


def bucket_names(client) -> list[str]:
    return [b["Name"] for b in client.list_buckets()["Buckets"]]


def test_storage_init_creates_the_missing_bucket_once(s3_storage, capsys):
    """The first run creates the bucket; a second run finds it and changes nothing."""
    assert bucket_names(s3_storage) == []
    call_command("storage_init")
    assert bucket_names(s3_storage) == ["concord-media"]
    s3_storage.put_object(Bucket="concord-media", Key="kept.txt", Body=b"still here")
    call_command("storage_init")
    assert bucket_names(s3_storage) == ["concord-media"]
    assert s3_storage.get_object(Bucket="concord-media", Key="kept.txt")["Body"].read() == b"still here"
    assert "S3 bucket 'concord-media' is ready." in capsys.readouterr().out


def test_storage_init_needs_nothing_for_local_disk(settings, capsys):
    """With the embedded default (files on disk) there is no bucket to make."""
    settings.STORAGES = {**settings.STORAGES, "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"}}
    assert storage_bucket_ensure() is None
    call_command("storage_init")
    assert "local disk" in capsys.readouterr().out
