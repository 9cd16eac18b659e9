"""The object store behind media: make sure it is ready before the first file is written."""

from __future__ import annotations

from django.core.files.storage import default_storage


def storage_bucket_ensure() -> str | None:
    """Create the configured S3 bucket when it is missing; idempotent.

    Returns the bucket name for S3 storage (created or already there) and None for local-disk
    storage, which needs nothing. Precondition: the S3 endpoint answers and the credentials may
    create buckets; otherwise botocore's error propagates with the endpoint's message.
    """
    bucket_name = getattr(default_storage, "bucket_name", None)
    if not bucket_name:
        return None
    from botocore.exceptions import ClientError

    client = default_storage.connection.meta.client
    try:
        client.head_bucket(Bucket=bucket_name)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") not in ("404", "NoSuchBucket", "NotFound"):
            raise
        region = getattr(default_storage, "region_name", None)
        options = {}
        if region and region != "us-east-1":
            options["CreateBucketConfiguration"] = {"LocationConstraint": region}
        client.create_bucket(Bucket=bucket_name, **options)
    return bucket_name
