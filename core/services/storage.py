"""The object stores behind media and releases: make sure they are ready before the first file is written."""

from __future__ import annotations

from django.conf import settings
from django.core.files.storage import default_storage


def storage_buckets_ensure() -> list[str]:
    """Create each configured S3 bucket that is missing: media (``S3_BUCKET``) and releases (``RELEASES_S3_BUCKET``).

    Idempotent. Returns the names of the buckets now ready, empty when everything lives on the local
    disk. Precondition: the S3 endpoints answer and the credentials may create buckets; otherwise
    botocore's error propagates with the endpoint's message.
    """
    ready: list[str] = []
    media_bucket = getattr(default_storage, "bucket_name", None)
    if media_bucket:
        _bucket_ensure(default_storage.connection.meta.client, media_bucket, getattr(default_storage, "region_name", None))
        ready.append(media_bucket)
    releases = settings.CONCORD_RELEASES_S3
    if releases.get("bucket") and releases["bucket"] not in ready:
        import boto3

        client = boto3.client("s3", endpoint_url=releases.get("endpoint_url"), aws_access_key_id=releases.get("access_key"),
                              aws_secret_access_key=releases.get("secret_key"), region_name=releases.get("region"))
        _bucket_ensure(client, releases["bucket"], releases.get("region"))
        ready.append(releases["bucket"])
    return ready


def _bucket_ensure(client, bucket: str, region: str | None) -> None:
    from botocore.exceptions import ClientError

    try:
        client.head_bucket(Bucket=bucket)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") not in ("404", "NoSuchBucket", "NotFound"):
            raise
        options = {}
        if region and region != "us-east-1":
            options["CreateBucketConfiguration"] = {"LocationConstraint": region}
        client.create_bucket(Bucket=bucket, **options)
