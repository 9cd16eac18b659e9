"""Where release files live: local disk by default, an S3-compatible bucket when configured.

Both backends share one contract: a file appears under its final name only once it is complete and
its checksum matched (local: written aside, then renamed; S3: a single checksummed PUT, or a
multipart upload with a checksum on every part, completed at the end). ``stored`` tells whether a
key already holds exactly these bytes, which lets a retry skip what an earlier attempt uploaded.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import io
import os
import shutil
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.core import signing
from django.urls import reverse

from core.errors import ApplicationError

CHUNK = 1024 * 1024
DOWNLOAD_SALT = "concord.release-download"
READ_ONLY = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH
FICLONE = 0x40049409


class ReleaseStorageError(ApplicationError):
    """The release store cannot be reached or refused a file; the message names the file and the cause."""

    status_code = 503


def file_sha256(path: Path) -> tuple[str, int]:
    """The sha256 hex digest and size of a local file, read in chunks."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


class LocalReleaseStorage:
    """Release files under a folder on local disk (``CONCORD_RELEASES_ROOT``)."""

    kind = "local"

    def __init__(self, root: Path):
        self.root = Path(root).resolve()

    def _path(self, key: str) -> Path:
        path = (self.root / key).resolve()
        if self.root not in path.parents:
            raise ReleaseStorageError(f"{key}: the key leaves the release root", code="release_bad_key")
        return path

    def location(self, prefix: str) -> str:
        return self._path(prefix).as_uri() + "/"

    def stored(self, key: str, *, sha256: str, size: int) -> bool:
        """True when ``key`` already holds exactly these bytes."""
        path = self._path(key)
        return path.is_file() and path.stat().st_size == size and file_sha256(path) == (sha256, size)

    def put_file(self, key: str, source: Path, *, sha256: str, size: int, content_type: str = "", move: bool = False) -> None:
        """Store ``source`` at ``key``, read-only; ``move`` renames it (a staged file), else it is copied and checked.

        A copy is its own inode (a reflink where the filesystem has them), never a hard link: changing a byte of
        the live media store must not change a published release, nor the other way round.
        """
        final = self._path(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        partial = final.with_name(f".{final.name}.partial-{uuid.uuid4().hex}")
        try:
            if move:
                shutil.move(str(source), partial)
            else:
                _copy(Path(source), partial)
                actual, actual_size = file_sha256(partial)
                if (actual, actual_size) != (sha256, size):
                    raise ReleaseStorageError(
                        f"{key}: the source has sha256 {actual} ({actual_size} bytes), expected {sha256} ({size} bytes)",
                        code="release_checksum_mismatch",
                    )
            os.chmod(partial, READ_ONLY)
            os.replace(partial, final)
        finally:
            partial.unlink(missing_ok=True)

    def put_bytes(self, key: str, data: bytes, *, content_type: str = "") -> None:
        final = self._path(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        partial = final.with_name(f".{final.name}.partial-{uuid.uuid4().hex}")
        try:
            partial.write_bytes(data)
            os.chmod(partial, READ_ONLY)
            os.replace(partial, final)
        finally:
            partial.unlink(missing_ok=True)

    def keys(self, prefix: str) -> Iterator[str]:
        """Every file under ``prefix``, as keys relative to it (partial uploads included: they are extra files)."""
        folder = self._path(prefix)
        if folder.is_dir():
            for path in folder.rglob("*"):
                if path.is_file() or path.is_symlink():
                    yield path.relative_to(folder).as_posix()

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def delete(self, key: str) -> None:
        """Remove ``key`` (a discarded attempt's file); nothing when it is not there."""
        self._path(key).unlink(missing_ok=True)

    def read_chunks(self, key: str) -> Iterator[bytes]:
        """The bytes at ``key`` in chunks; FileNotFoundError when absent."""
        with open(self._path(key), "rb") as handle:
            while chunk := handle.read(CHUNK):
                yield chunk

    def read_bytes(self, key: str) -> bytes:
        return self._path(key).read_bytes()

    def local_path(self, key: str) -> Path:
        return self._path(key)

    def url(self, key: str, *, expires: int) -> str:
        """A link Concord serves itself, signed and timestamped; it expires after ``expires`` seconds."""
        token = signing.dumps({"key": key, "max_age": expires}, salt=DOWNLOAD_SALT, compress=True)
        return reverse("release-download", kwargs={"token": token})


def _copy(source: Path, target: Path) -> None:
    """A reflink (copy-on-write clone) where the filesystem has them, else a plain byte copy."""
    with open(source, "rb") as reader, open(target, "wb") as writer:
        try:
            fcntl.ioctl(writer.fileno(), FICLONE, reader.fileno())
            return
        except OSError:
            pass
    shutil.copyfile(source, target)


def unsign_download(token: str) -> str:
    """The key a local download link names; BadSignature (or SignatureExpired) when forged or stale."""
    payload = signing.loads(token, salt=DOWNLOAD_SALT, max_age=None)
    signing.loads(token, salt=DOWNLOAD_SALT, max_age=payload["max_age"])
    return payload["key"]


class S3ReleaseStorage:
    """Release files in an S3-compatible bucket, uploaded with ContentMD5 and ChecksumSHA256."""

    kind = "s3"

    def __init__(self, *, bucket: str, prefix: str = "", endpoint_url: str | None = None, access_key: str | None = None,
                 secret_key: str | None = None, region: str = "us-east-1", multipart_threshold: int = 64 * 1024 * 1024,
                 part_size: int = 16 * 1024 * 1024):
        import boto3
        from botocore.config import Config

        self.bucket = bucket
        self.prefix = prefix
        self.multipart_threshold = multipart_threshold
        self.part_size = max(part_size, 5 * 1024 * 1024)
        self.client = boto3.client(
            "s3",
            endpoint_url=endpoint_url,
            aws_access_key_id=access_key,
            aws_secret_access_key=secret_key,
            region_name=region,
            config=Config(
                retries={"max_attempts": 3, "mode": "standard"},
                connect_timeout=5,
                read_timeout=60,
                max_pool_connections=16,
                signature_version="s3v4",
                request_checksum_calculation="when_required",
                response_checksum_validation="when_required",
            ),
        )

    def _key(self, key: str) -> str:
        return f"{self.prefix}{key}"

    def location(self, prefix: str) -> str:
        return f"s3://{self.bucket}/{self._key(prefix)}/"

    def _fail(self, key: str, exc: Exception) -> ReleaseStorageError:
        return ReleaseStorageError(f"{key}: object storage failed: {exc}", code="release_storage_failed")

    def stored(self, key: str, *, sha256: str, size: int) -> bool:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            head = self.client.head_object(Bucket=self.bucket, Key=self._key(key))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                return False
            raise self._fail(key, exc) from exc
        except BotoCoreError as exc:
            raise self._fail(key, exc) from exc
        return head["ContentLength"] == size and head.get("Metadata", {}).get("sha256") == sha256

    def put_file(self, key: str, source: Path, *, sha256: str, size: int, content_type: str = "", move: bool = False) -> None:
        """Upload ``source``; parts beyond the multipart threshold each carry their own MD5 and SHA-256."""
        from botocore.exceptions import BotoCoreError, ClientError

        extra = {"Metadata": {"sha256": sha256}, "ContentType": content_type or "application/octet-stream"}
        try:
            if size <= self.multipart_threshold:
                data = Path(source).read_bytes()
                self._check(key, data, sha256, size)
                self.client.put_object(Bucket=self.bucket, Key=self._key(key), Body=data, ContentMD5=_b64_md5(data),
                                       ChecksumSHA256=_b64_sha256(data), **extra)
            else:
                self._multipart(key, Path(source), sha256=sha256, size=size, extra=extra)
        except (BotoCoreError, ClientError) as exc:
            raise self._fail(key, exc) from exc

    def _check(self, key: str, data: bytes, sha256: str, size: int) -> None:
        actual = hashlib.sha256(data).hexdigest()
        if actual != sha256 or len(data) != size:
            raise ReleaseStorageError(
                f"{key}: the source has sha256 {actual} ({len(data)} bytes), expected {sha256} ({size} bytes)",
                code="release_checksum_mismatch",
            )

    def _multipart(self, key: str, source: Path, *, sha256: str, size: int, extra: dict) -> None:
        upload = self.client.create_multipart_upload(
            Bucket=self.bucket, Key=self._key(key), ChecksumAlgorithm="SHA256", **extra
        )
        upload_id = upload["UploadId"]
        try:
            parts = []
            whole = hashlib.sha256()
            total = 0
            with open(source, "rb") as handle:
                number = 1
                while chunk := handle.read(self.part_size):
                    whole.update(chunk)
                    total += len(chunk)
                    answer = self.client.upload_part(
                        Bucket=self.bucket, Key=self._key(key), UploadId=upload_id, PartNumber=number, Body=chunk,
                        ContentMD5=_b64_md5(chunk), ChecksumAlgorithm="SHA256", ChecksumSHA256=_b64_sha256(chunk),
                    )
                    parts.append({"ETag": answer["ETag"], "PartNumber": number, "ChecksumSHA256": _b64_sha256(chunk)})
                    number += 1
            if whole.hexdigest() != sha256 or total != size:
                raise ReleaseStorageError(
                    f"{key}: the source has sha256 {whole.hexdigest()} ({total} bytes), expected {sha256} ({size} bytes)",
                    code="release_checksum_mismatch",
                )
            self.client.complete_multipart_upload(
                Bucket=self.bucket, Key=self._key(key), UploadId=upload_id, MultipartUpload={"Parts": parts}
            )
        except BaseException:
            self._abort(key, upload_id)
            raise

    def _abort(self, key: str, upload_id: str) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self.client.abort_multipart_upload(Bucket=self.bucket, Key=self._key(key), UploadId=upload_id)
        except (BotoCoreError, ClientError):
            # The store is already failing; lifecycle rules reap unfinished uploads, and nothing is visible.
            return

    def put_bytes(self, key: str, data: bytes, *, content_type: str = "") -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self.client.put_object(
                Bucket=self.bucket, Key=self._key(key), Body=data, ContentMD5=_b64_md5(data),
                ChecksumSHA256=_b64_sha256(data), Metadata={"sha256": hashlib.sha256(data).hexdigest()},
                ContentType=content_type or "application/octet-stream",
            )
        except (BotoCoreError, ClientError) as exc:
            raise self._fail(key, exc) from exc

    def exists(self, key: str) -> bool:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self.client.head_object(Bucket=self.bucket, Key=self._key(key))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                return False
            raise self._fail(key, exc) from exc
        except BotoCoreError as exc:
            raise self._fail(key, exc) from exc
        return True

    def read_chunks(self, key: str) -> Iterator[bytes]:
        """The bytes at ``key`` in chunks; FileNotFoundError when absent."""
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            answer = self.client.get_object(Bucket=self.bucket, Key=self._key(key))
            yield from answer["Body"].iter_chunks(CHUNK)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                raise FileNotFoundError(key) from exc
            raise self._fail(key, exc) from exc
        except BotoCoreError as exc:
            raise self._fail(key, exc) from exc

    def read_bytes(self, key: str) -> bytes:
        return b"".join(self.read_chunks(key))

    def delete(self, key: str) -> None:
        """Remove ``key`` (a discarded attempt's object); nothing when it is not there."""
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self.client.delete_object(Bucket=self.bucket, Key=self._key(key))
        except (BotoCoreError, ClientError) as exc:
            raise self._fail(key, exc) from exc

    def keys(self, prefix: str) -> Iterator[str]:
        """Every object under ``prefix``, as keys relative to it."""
        from botocore.exceptions import BotoCoreError, ClientError

        base = self._key(prefix).rstrip("/") + "/"
        try:
            for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=base):
                for entry in page.get("Contents", []):
                    yield entry["Key"][len(base):]
        except (BotoCoreError, ClientError) as exc:
            raise self._fail(prefix, exc) from exc

    def local_path(self, key: str) -> None:
        return None

    def open_ranged(self, key: str) -> RangedObject:
        """A seekable, read-only file over the object that fetches only the byte ranges read (a Parquet footer and
        the column chunks asked for, not a shard of embedded images)."""
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            size = self.client.head_object(Bucket=self.bucket, Key=self._key(key))["ContentLength"]
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                raise FileNotFoundError(key) from exc
            raise self._fail(key, exc) from exc
        except BotoCoreError as exc:
            raise self._fail(key, exc) from exc
        return RangedObject(self, key, size)

    def url(self, key: str, *, expires: int) -> str:
        return self.client.generate_presigned_url(
            "get_object", Params={"Bucket": self.bucket, "Key": self._key(key)}, ExpiresIn=expires
        )


class RangedObject(io.RawIOBase):
    """An S3 object read with ranged GETs; what ``pyarrow.parquet.read_table`` needs (seek, tell, read)."""

    def __init__(self, store: S3ReleaseStorage, key: str, size: int):
        self.store, self.key, self.size, self.position = store, key, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.size}[whence]
        self.position = max(0, base + offset)
        return self.position

    def read(self, size: int = -1) -> bytes:
        from botocore.exceptions import BotoCoreError, ClientError

        end = self.size if size is None or size < 0 else min(self.size, self.position + size)
        if end <= self.position:
            return b""
        try:
            answer = self.store.client.get_object(Bucket=self.store.bucket, Key=self.store._key(self.key),
                                                  Range=f"bytes={self.position}-{end - 1}")
            data = answer["Body"].read()
        except (BotoCoreError, ClientError) as exc:
            raise self.store._fail(self.key, exc) from exc
        self.position += len(data)
        return data

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _b64_md5(data: bytes) -> str:
    return base64.b64encode(hashlib.md5(data).digest()).decode()  # noqa: S324 (ContentMD5 is MD5 by definition)


def _b64_sha256(data: bytes) -> str:
    return base64.b64encode(hashlib.sha256(data).digest()).decode()


def default_storage_kind() -> str:
    """``s3`` when a releases bucket is configured, else ``local``."""
    return "s3" if settings.CONCORD_RELEASES_S3.get("bucket") else "local"


def release_storage(kind: str):
    """The backend for ``kind``; ReleaseStorageError when it is S3 and no bucket is configured."""
    if kind == "local":
        return LocalReleaseStorage(Path(settings.CONCORD_RELEASES_ROOT))
    config = settings.CONCORD_RELEASES_S3
    if not config.get("bucket"):
        raise ReleaseStorageError(
            "this release lives on S3 but RELEASES_S3_BUCKET is not configured", code="release_storage_unconfigured"
        )
    return S3ReleaseStorage(
        bucket=config["bucket"], prefix=config.get("prefix", ""), endpoint_url=config.get("endpoint_url"),
        access_key=config.get("access_key"), secret_key=config.get("secret_key"), region=config.get("region", "us-east-1"),
        multipart_threshold=config.get("multipart_threshold", 64 * 1024 * 1024),
        part_size=config.get("part_size", 16 * 1024 * 1024),
    )
