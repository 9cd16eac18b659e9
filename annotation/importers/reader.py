"""Reading an import file into checked rows: parse, validate, inspect media. No database.

``prepared_batches`` is the whole reading side of an import as one generator; ``in_child`` runs
such a generator in a forked child process and hands its batches to the caller as they arrive, so
that parsing and checking the next batch overlaps the caller writing the last one to the database
(and the database doing its part) on another core. The child never touches the database: the
caller keeps every query, and so its transaction, to itself.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import multiprocessing
import os
import signal
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from django.conf import settings
from django.db import connections

from annotation.catalogue import content, schemas
from annotation.catalogue import records as rows
from annotation.catalogue.services.bulk import Json
from annotation.catalogue.services.media import SHOWN_PATH_CHARS, MediaError, resolve_under, sniff, sniff_by_head
from annotation.importers.streams import CountingReader
from core.text_checks import shortened

if TYPE_CHECKING:
    from types import ModuleType

CACHE_ENTRIES = 100_000
HASH_CHUNK = 1024 * 1024


class FileInfo(NamedTuple):
    """What a media file is; a named tuple, which crosses the pipe from the reader child cheaply."""

    digest: str
    kind: str
    mime_type: str
    extension: str
    size: int
    width: int | None
    height: int | None
    path: str


@dataclass
class Checked:
    """One row that parsed; ``error`` is the first problem its media or ratings have.

    The writer reports the error only when the row is not a duplicate: a row already imported is
    a duplicate even when its media have since gone.
    """

    row: rows.PairRow | rows.ResponseOnlyRow
    files: dict[str, FileInfo] = field(default_factory=dict)
    error: str | None = None

    def __reduce__(self):
        # A checked row crosses the pipe as one tuple of strings and numbers, which pickle handles in
        # C: as dataclasses (five objects, six JSON texts) the batch cost the reader 40 ms to pickle
        # and the writer 24 ms to unpickle, against 20 ms and 9 ms this way.
        if self.error is None and isinstance(self.row, rows.PairRow):
            return _unpack_pair, (_pack_pair(self.row), tuple(self.files.items()))
        return Checked, (self.row, self.files, self.error)


def _pack_pair(row: rows.PairRow) -> tuple:
    p, a, b = row.prompt, row.response_a, row.response_b
    return (row.line, row.external_id, p.external_id, p.source, p.source_task, str(p.metadata), str(p.content),
            p.digest, a.model_name, str(a.content), a.digest, b.model_name, str(b.content), b.digest, str(row.criteria),
            row.priority, str(row.metadata), tuple((n.rater_label, str(n.values), n.rationale) for n in row.annotations),
            tuple(row.digests), str(row.self_identified if isinstance(row.self_identified, Json)
                                    else Json.of(row.self_identification())))


def _unpack_pair(packed: tuple, files: tuple) -> Checked:
    (line, external_id, prompt_id, source, task, prompt_metadata, prompt_content, prompt_digest, a_model, a_content,
     a_digest, b_model, b_content, b_digest, criteria, priority, metadata, annotations, digests, self_identified) = packed
    row = rows.PairRow(
        line=line, external_id=external_id,
        prompt=rows.PromptRow(prompt_id, source, task, Json(prompt_metadata), Json(prompt_content), prompt_digest),
        response_a=rows.ResponseRow(a_model, Json(a_content), a_digest),
        response_b=rows.ResponseRow(b_model, Json(b_content), b_digest),
        criteria=Json(criteria), priority=priority, metadata=Json(metadata),
        annotations=[rows.AnnotationRow(rater, Json(values), rationale) for rater, values, rationale in annotations],
        digests=list(digests), self_identified=Json(self_identified),
    )
    return Checked(row, dict(files))


@dataclass
class PreparedBatch:
    """The rows read since the last batch, in file order, and the records that did not parse."""

    checked: list[Checked]
    parse_errors: list[tuple[int, str]]
    bytes_read: int


class Lru(OrderedDict):
    """A bounded cache, so a file with millions of distinct media does not grow memory without end."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit

    def put(self, key, value) -> None:
        self[key] = value
        if len(self) > self.limit:
            self.popitem(last=False)


def prepared_batches(*, fmt: ModuleType, reader: CountingReader, options: rows.ParseOptions, media_root: Path | None,
                     schema: dict, batch_size: int) -> Iterator[PreparedBatch]:
    """Every record of the file, parsed and checked, in batches of at most ``batch_size`` rows or errors."""
    inspector = MediaInspector(root=media_root, prompt_key=options.prompt_key)
    parsed, errors = [], []
    for record in fmt.records(reader):
        if record.error:
            errors.append((record.line, record.error + ("; the rest of the file was not read" if record.fatal else "")))
            if record.fatal:
                break
        else:
            try:
                parsed.append(fmt.parse(record.value, line=record.line, options=options))
            except rows.RowError as exc:
                errors.append((record.line, str(exc)))
            except Exception as exc:  # one row's surprise is that row's error, never the whole file's
                errors.append((record.line, unforeseen(exc)))
        if len(parsed) >= batch_size or len(errors) >= batch_size:
            yield PreparedBatch(inspector.check_batch(parsed, schema), errors, reader.bytes_read)
            parsed, errors = [], []
    yield PreparedBatch(inspector.check_batch(parsed, schema), errors, reader.bytes_read)


def unforeseen(exc: Exception) -> str:
    """The row's error for an exception no check of the row foresaw (a bug to fix, or a file system's surprise)."""
    return f"the row could not be checked ({type(exc).__name__}: {exc})"


def row_blocks(row: rows.PairRow | rows.ResponseOnlyRow) -> list[tuple[str, list[dict]]]:
    if isinstance(row, rows.PairRow):
        return [("prompt.content", row.prompt.content), ("response_a.content", row.response_a.content),
                ("response_b.content", row.response_b.content)]
    return [("prompt.content", row.prompt.content), ("response.content", row.response.content)]


class MediaInspector:
    """Checks each file a row names once (path, size, what the bytes are) and resolves the row's blocks."""

    def __init__(self, *, root: Path | None, prompt_key: str = "id"):
        self.root = root.resolve() if root else None
        self.prompt_key = prompt_key
        self.files = Lru(CACHE_ENTRIES)

    def check_batch(self, batch: list, schema: dict) -> list[Checked]:
        self.prefetch(batch)
        return [self.check_row(row, schema) for row in batch]

    def check_row(self, row, schema: dict) -> Checked:
        """The row with its media blocks resolved to digests, or the first problem it has."""
        try:
            found = self.files_of(row_blocks(row))
            _resolve(row, found)
            if self.prompt_key == "content":
                rows.key_by_content(row.prompt)
            if isinstance(row, rows.PairRow):
                _check_pair(row, schema)
            _encode_for_writing(row)
        except rows.RowError as exc:
            return Checked(row, error=str(exc))
        except Exception as exc:  # one row's surprise is that row's error, never the whole file's
            return Checked(row, error=unforeseen(exc))
        return Checked(row, files=found)

    def files_of(self, blocks: Iterable[tuple[str, list[dict]]]) -> dict[str, FileInfo]:
        """Every file the blocks name, by relative path; RowError for the first one that is refused."""
        found = {}
        for where, value in blocks:
            for block in content.iter_media(value):
                if "file" not in block:
                    continue
                info = self.file_info(block["file"])
                if info.kind != block["type"]:
                    raise rows.RowError(f"{where}: {block['file']} is {info.mime_type}, not the {block['type']} "
                                        f"the block says")
                found[block["file"]] = info
        return found

    def prefetch(self, batch: list) -> None:
        """Inspect the files a batch names, several at once: the work is mostly waiting on the disk."""
        todo = list(dict.fromkeys(
            block["file"] for row in batch for _, value in row_blocks(row)
            for block in content.iter_media(value) if "file" in block and block["file"] not in self.files
        ))
        if len(todo) < 8:
            return
        for relative, found in zip(todo, pool().map(self._inspect_or_error, todo), strict=True):
            self.files.put(relative, found)

    def file_info(self, relative: str) -> FileInfo:
        cached = self.files.get(relative)
        if cached is None:
            cached = self._inspect_or_error(relative)
            self.files.put(relative, cached)
        if isinstance(cached, MediaError):
            raise rows.RowError(cached.message)
        return cached

    def _inspect_or_error(self, relative: str) -> FileInfo | MediaError:
        try:
            return self._inspect(relative)
        except MediaError as exc:
            return exc
        except OSError as exc:  # the file went, or cannot be read, between resolving and reading it
            shown = shortened(relative, SHOWN_PATH_CHARS)
            return MediaError(f"{shown}: the file cannot be read ({exc.strerror or str(exc) or type(exc).__name__})",
                              code="media_unreadable")
        except Exception as exc:
            return MediaError(f"{shortened(relative, SHOWN_PATH_CHARS)}: {unforeseen(exc)}", code="media_unreadable")

    def _inspect(self, relative: str) -> FileInfo:
        if self.root is None:
            raise MediaError(f"{relative}: media files need a media root (--media-root)", code="media_no_root")
        path = resolve_under(root=self.root, relative=relative)
        size = path.stat().st_size
        limit = settings.CONCORD_MAX_MEDIA_BYTES
        if size > limit:
            raise MediaError(f"{relative}: {size:,} bytes exceeds the limit of {limit:,}", code="media_too_large")
        with path.open("rb") as handle:
            head = handle.read(64)
            if sniff_by_head(head):
                # audio, video and 3D are known by their first bytes; hash the rest without holding it
                found = sniff(head, name=relative)
                hasher = hashlib.sha256(head)
                while chunk := handle.read(HASH_CHUNK):
                    hasher.update(chunk)
                digest = hasher.hexdigest()
            else:
                data = head + handle.read()
                found = sniff(data, name=relative)
                digest = hashlib.sha256(data).hexdigest()
        return FileInfo(digest, found.kind, found.mime_type, found.extension, size, found.width, found.height, str(path))


def _resolve(row, found: dict[str, FileInfo]) -> None:
    def digest_of(kind: str, file: str) -> str:
        return found[file].digest

    row.prompt.content = content.resolve_files(row.prompt.content, digest_of)
    if isinstance(row, rows.ResponseOnlyRow):
        row.response.content = content.resolve_files(row.response.content, digest_of)
        return
    row.response_a.content = content.resolve_files(row.response_a.content, digest_of)
    row.response_b.content = content.resolve_files(row.response_b.content, digest_of)


def _encode_for_writing(row) -> None:
    """Do the writer's per-row work here, on the reader's core: digests, and JSON fields encoded as text.

    The digests are taken first, from the content itself; afterwards the JSON fields hold
    ``bulk.Json`` text, which the writer streams to the database as it is (and which crosses the
    pipe as one string instead of a tree of objects).
    """
    row.media_digests()
    row.prompt.content_digest()
    if isinstance(row, rows.PairRow):
        row.self_identified = Json.of(row.self_identification())
    row.prompt.content, row.prompt.metadata = Json.of(row.prompt.content), Json.of(row.prompt.metadata)
    if isinstance(row, rows.ResponseOnlyRow):
        row.response.content_digest()
        row.response.content = Json.of(row.response.content)
        return
    for response in (row.response_a, row.response_b):
        response.content_digest()
        response.content = Json.of(response.content)
    row.criteria, row.metadata = Json.of(row.criteria), Json.of(row.metadata)
    for annotation in row.annotations:
        annotation.values = Json.of(annotation.values)


def _check_pair(row: rows.PairRow, schema: dict) -> None:
    if (row.response_a.model_name, row.response_a.content_digest()) == (
        row.response_b.model_name, row.response_b.content_digest()
    ):
        raise rows.RowError("response_a and response_b are the same response (same model and content)")
    labels = set()
    for i, annotation in enumerate(row.annotations):
        if annotation.rater_label in labels:
            raise rows.RowError(f"annotations[{i}]: rater {annotation.rater_label!r} appears twice")
        labels.add(annotation.rater_label)
        problems = schemas.validate_answers(schema, annotation.values, criteria=row.criteria)
        if problems:
            detail = "; ".join(f"{qid}: {message}" for qid, message in problems.items())
            raise rows.RowError(f"annotations[{i}] ({annotation.rater_label}): {detail}")


@functools.cache
def pool() -> ThreadPoolExecutor:
    """Threads for file work (reading, sniffing, storing); never for the database."""
    return ThreadPoolExecutor(max_workers=min(8, (os.cpu_count() or 2) * 2), thread_name_prefix="concord-media")


# a forked process (the reader child, a Celery prefork worker) must not inherit a pool whose threads stayed in the parent
os.register_at_fork(after_in_child=pool.cache_clear)


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect garbage less often while a batch job runs.

    An import allocates millions of short-lived objects without cycles (reference counting frees
    them); at the default thresholds the collector keeps rescanning everything the process holds,
    which cost a third of the writer's time. The thresholds come back afterwards.
    """
    threshold = gc.get_threshold()
    gc.freeze()  # what the process held before the job is not rescanned
    gc.set_threshold(100_000, 50, 100)
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


class ReaderFailed(RuntimeError):
    """The reader child raised or died; the message carries its traceback or exit code."""

    # What the importing process had written before (an ImportResult), set on the way out; None in a dry run.
    result: Any = None


@dataclass(frozen=True)
class _Failure:
    summary: str  # the exception's type and message, cut to SUMMARY_CHARS: a message may quote a whole row
    traceback: str  # the frames, without the message again


SUMMARY_CHARS = 1_000


def in_child(produce: Callable[[], Iterator]) -> Iterator:
    """The items of ``produce()``, computed in a forked child process while the caller uses the last one.

    The pipe holds about one item ahead, so memory stays bounded. When the caller stops early (an
    error, a cancelled job) the child is stopped too. Where fork is not available it runs inline.
    A plain ``os.fork``, not ``multiprocessing.Process``: Celery's pool processes are daemonic, and
    multiprocessing refuses to start children from those.
    """
    if not hasattr(os, "fork"):
        yield from produce()
        return
    receiver, sender = multiprocessing.Pipe(duplex=False)
    pid = os.fork()
    if pid == 0:  # the child: run, then leave without the parent's exit handlers or finally blocks
        status = 1
        try:
            _child_main(produce, receiver, sender)
            status = 0
        finally:
            os._exit(status)
    sender.close()
    child = _Child(pid)
    try:
        while True:
            try:
                item = receiver.recv()
            except EOFError:
                raise ReaderFailed(f"the import's reader process ended unexpectedly ({child.wait()})") from None
            if item is None:
                return
            if isinstance(item, _Failure):
                raise ReaderFailed(f"the import's reader failed: {item.summary}\n{item.traceback}")
            yield item
    finally:
        receiver.close()  # a child blocked on sending gets a broken pipe and ends
        child.stop()


class _Child:
    """A forked child to reap: its exit status, and a stop that never leaves a zombie behind."""

    def __init__(self, pid: int):
        self.pid = pid
        self.status: str | None = None

    def wait(self, *, timeout: float | None = None) -> str:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.status is None:
            try:
                pid, status = os.waitpid(self.pid, 0 if deadline is None else os.WNOHANG)
            except ChildProcessError:  # reaped by someone else (a SIGCHLD handler)
                self.status = "exit status unknown"
                break
            if pid:
                code = os.waitstatus_to_exitcode(status)
                self.status = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
            elif time.monotonic() >= deadline:
                break
            else:
                time.sleep(0.01)
        return self.status or "still running"

    def stop(self) -> None:
        if self.wait(timeout=5) == "still running":
            os.kill(self.pid, signal.SIGKILL)
            self.wait()


_inherited = []


def _child_main(produce: Callable[[], Iterator], receiver, sender) -> None:
    receiver.close()
    # The parent's database connections live on in its process: never use them here, and never let
    # them be finalised (that would end the parent's session). Anything that did reach for the
    # database here would open a connection of its own.
    for connection in connections.all(initialized_only=True):
        _inherited.append(connection.connection)
        connection.connection = None
    try:
        for item in produce():
            sender.send(item)
        sender.send(None)
    except BrokenPipeError:
        pass  # the parent stopped reading
    except BaseException as exc:
        frames = "Traceback (most recent call last):\n" + "".join(traceback.format_tb(exc.__traceback__))
        with contextlib.suppress(OSError):
            sender.send(_Failure(f"{type(exc).__name__}: {shortened(str(exc), SUMMARY_CHARS)}", frames))
    finally:
        sender.close()
