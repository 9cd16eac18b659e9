"""A release as one file: a zip of every stored file at its path under ``NAME-VERSION/``, streamed.

The archive is never stored and never held whole in memory: it is written, file by file and chunk by chunk,
into a sink whose bytes are handed on as soon as they are written (``archive_chunks``). Its bytes are a
function of the release's files alone, so the sha256 computed once at publication (``archive_digest``) is
the sha256 of every later download:

- entries in path order (``manifest.json`` among them), names ``NAME-VERSION/<path>``;
- ``ZIP_STORED`` (Parquet shards are zstd-compressed and media are already compressed; storing keeps the
  archive as fast to write as to read, and any entry can be read in place);
- one timestamp for every entry (1980-01-01 00:00, zip's epoch), mode 0644, "Unix" as the creating system,
  no extra fields; ZIP64 only for an entry over 4 GiB (decided from its recorded size), so a small
  release stays a plain zip.

Zip rather than tar: every desktop opens a zip (Windows Explorer, macOS Finder) and a zip has a central
directory, so one file can be listed or extracted without reading the rest. Written to a non-seekable
stream, each entry carries its sizes and CRC in a data descriptor after its bytes.

The archive contains the manifest, so the manifest cannot contain the archive's sha256: it is recorded
beside it, in the release record (``Release.summary["archive"]``), the API and the release's page.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from django.core import signing

ARCHIVE_SALT = "concord.release-archive"
FORMAT = "zip-stored/1"
EPOCH = (1980, 1, 1, 0, 0, 0)
MODE = 0o100644


@dataclass(frozen=True)
class Entry:
    """One file of the release: its path inside the release and its size (which decides ZIP64)."""

    path: str
    size: int


def archive_name(name: str, version: str) -> str:
    return f"{name}-{version}.zip"


class _Sink(io.RawIOBase):
    """A write-only, non-seekable stream that keeps what was written until ``drain`` takes it."""

    def __init__(self):
        self._chunks: list[bytes] = []
        self._position = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self._chunks.append(bytes(data))
        self._position += len(data)
        return len(data)

    def tell(self) -> int:
        return self._position

    def drain(self) -> Iterator[bytes]:
        chunks, self._chunks = self._chunks, []
        joined = b"".join(chunks)
        if joined:
            yield joined


def _info(root: str, entry: Entry) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(f"{root}/{entry.path}", date_time=EPOCH)
    info.compress_type = zipfile.ZIP_STORED
    info.create_system = 3
    info.create_version = info.extract_version = 20
    info.external_attr = MODE << 16
    info.file_size = entry.size
    return info


def archive_chunks(*, root: str, entries: Iterable[Entry], read_chunks) -> Iterator[bytes]:
    """The archive's bytes, in chunks of at most about one stored chunk; ``read_chunks(path)`` yields a file's
    bytes. Memory stays at one chunk whatever the release's size."""
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for entry in sorted(entries, key=lambda e: e.path):
            with archive.open(_info(root, entry), "w") as target:
                for chunk in read_chunks(entry.path):
                    target.write(chunk)
                    yield from sink.drain()
            yield from sink.drain()
    yield from sink.drain()


def archive_digest(chunks: Iterable[bytes]) -> tuple[str, int]:
    """The sha256 and size of an archive, consumed chunk by chunk (a hashing sink: nothing is kept)."""
    digest, size = hashlib.sha256(), 0
    for chunk in chunks:
        digest.update(chunk)
        size += len(chunk)
    return digest.hexdigest(), size


def sign_archive(*, name: str, version: str, expires: int) -> str:
    """A token naming the archive of NAME@VERSION, valid for ``expires`` seconds."""
    return signing.dumps({"name": name, "version": version, "max_age": expires}, salt=ARCHIVE_SALT, compress=True)


def unsign_archive(token: str) -> tuple[str, str]:
    """``(name, version)`` of an archive token; BadSignature (or SignatureExpired) when forged or stale."""
    payload = signing.loads(token, salt=ARCHIVE_SALT, max_age=None)
    signing.loads(token, salt=ARCHIVE_SALT, max_age=payload["max_age"])
    return payload["name"], payload["version"]


def streaming_response(*, name: str, sha256: str, size: int | None, chunks: Iterator[bytes]):
    """A download of the archive as it is written: Content-Length and the recorded sha256 (``Repr-Digest``, RFC
    9530, and ``X-Archive-SHA256``) when publication recorded them."""
    import base64

    from django.http import StreamingHttpResponse

    response = StreamingHttpResponse(chunks, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["X-Content-Type-Options"] = "nosniff"
    if size is not None:
        response["Content-Length"] = str(size)
    if sha256:
        response["X-Archive-SHA256"] = sha256
        response["Repr-Digest"] = f"sha-256=:{base64.b64encode(bytes.fromhex(sha256)).decode()}:"
    return response
