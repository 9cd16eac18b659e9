"""Importing pairs from files: stream, validate, resolve media, insert in batches; and the upload job.

Rows are read one at a time and written in batches (``pairs_create_many``), so memory stays flat
whatever the file size. Reading and checking happen in a forked child (``import_reader``) while
this process writes the batch before, so the two overlap on two cores. Each row is all-or-nothing:
a bad row is reported with its line and skipped, and its media are stored only when the whole row
is good.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import uuid
import zipfile
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.files import File
from django.core.files.storage import FileSystemStorage, default_storage
from django.db import transaction

from annotation.catalogue import content
from annotation.catalogue import records as rows
from annotation.catalogue.models import Campaign, Media, Pair, Prompt
from annotation.catalogue.records import SourceInfo
from annotation.catalogue.services import bulk
from annotation.catalogue.services.campaigns import campaign_get_or_create
from annotation.catalogue.services.media import storage_name, storage_put
from annotation.catalogue.services.sources import source_dataset_link
from annotation.importers import FORMATS
from annotation.importers.pairs import BatchOutcome, pairs_create_many
from annotation.importers.reader import (
    CACHE_ENTRIES,
    HASH_CHUNK,
    FileInfo,
    Lru,
    PreparedBatch,
    ReaderFailed,
    fewer_collections,
    in_child,
    pool,
    prepared_batches,
)
from annotation.importers.streams import CountingReader
from annotation.jobs import services as jobs
from annotation.jobs.models import JOB_FINISHED, Job
from core.errors import ApplicationError
from core.text_checks import shortened

if TYPE_CHECKING:
    from typing import BinaryIO

    from django.core.files.uploadedfile import UploadedFile

    from annotation.accounts.models import User

BATCH_SIZE = 2000
SAVE_CHUNK = 50  # files per task of the saving threads: few enough tasks, enough of them to run side by side
MAX_LISTED_ERRORS = 1000
# One row's error as stored and shown: longer messages (a row may quote its own hostile values) are cut here.
MAX_ERROR_CHARS = 500
# A reader's failure as the job stores it: its beginning, which says what failed.
MAX_JOB_ERROR_CHARS = 4_000
UPLOAD_SUFFIXES = (".jsonl", ".json", ".zip")
IMPORT_JOB = "import"


SUCCEEDED, PARTIAL, FAILED = Job.Status.SUCCEEDED, Job.Status.PARTIAL, Job.Status.FAILED
FIRST_REASONS = 3  # row errors a failed import's own error names


def _s(count: int) -> str:
    return "" if count == 1 else "s"


@dataclass(frozen=True)
class Outcome:
    """An import's ending: a job status (succeeded, partial or failed) and the sentence that explains it."""

    status: str
    summary: str


class ImportCancelled(Exception):
    """The job was cancelled between two batches; what was committed so far stays."""


@dataclass
class ImportResult:
    created: int = 0
    duplicates: int = 0
    annotations_imported: int = 0
    errors: list[dict] = field(default_factory=list)
    failed_rows: int = 0

    def add_error(self, line: int, message: str) -> None:
        self.failed_rows += 1
        if len(self.errors) < MAX_LISTED_ERRORS:
            self.errors.append({"line": line, "message": shortened(message, MAX_ERROR_CHARS)})
            return
        if len(self.errors) == MAX_LISTED_ERRORS:
            self.errors.append({"line": line})
        unlisted = self.failed_rows - MAX_LISTED_ERRORS
        self.errors[-1]["message"] = (f"{unlisted:,} more row{'s' if unlisted > 1 else ''} failed from this line on; "
                                      "they are not listed")

    @property
    def rows(self) -> int:
        """The rows the file held: created, already present or failed."""
        return self.created + self.duplicates + self.failed_rows

    def outcome(self, *, strict: bool) -> Outcome:
        """How the import ended: ``succeeded`` when every row is in (created or already present), ``partial`` when
        some are in and some failed, ``failed`` when nothing is in (every row failed, a ``strict`` import had a bad
        row, or the file held no rows)."""
        rows, present = self.rows, self.created + self.duplicates
        if not self.failed_rows:
            if not rows:
                return Outcome(FAILED, "nothing was imported: the file holds no rows")
            return Outcome(SUCCEEDED, f"{rows:,} of {rows:,} row{_s(rows)} imported ({self._counts()})")
        if present and not strict:
            return Outcome(PARTIAL, f"{present:,} of {rows:,} row{_s(rows)} imported ({self._counts()}); "
                                    f"{self.failed_rows:,} failed")
        why = "--strict imports a file only when every row is good" if strict else "every row failed"
        return Outcome(FAILED, f"nothing was imported: {self.failed_rows:,} row{_s(self.failed_rows)} failed ({why}); "
                               + self.first_reasons())

    def first_reasons(self, count: int = FIRST_REASONS) -> str:
        """The first ``count`` row errors, each with its line, and how many more there are."""
        listed = self.errors_by_line()[:min(count, MAX_LISTED_ERRORS)]
        text = "; ".join(f"line {e['line']}: {e['message']}" for e in listed)
        more = self.failed_rows - len(listed)
        return text + (f" (and {more:,} more)" if more > 0 else "")

    def errors_by_line(self) -> list[dict]:
        """The listed errors in file order (they are found batch by batch, parse errors first), then the entry saying
        how many more failed unlisted, if any."""
        return sorted(self.errors[:MAX_LISTED_ERRORS], key=lambda e: e["line"]) + self.errors[MAX_LISTED_ERRORS:]

    def _counts(self) -> str:
        return f"{self.created:,} created, {self.duplicates:,} already present"

    def add_batch(self, outcome: BatchOutcome) -> None:
        self.created += outcome.created
        self.duplicates += outcome.duplicates
        self.annotations_imported += outcome.annotations
        for line, message in outcome.errors:
            self.add_error(line, message)

    def as_dict(self, *, strict: bool = False) -> dict:
        """The documented summary: created, duplicates, annotations_imported, errors (at most MAX_LISTED_ERRORS, each
        with its line), failed_rows, rows, and the outcome's status and summary ("800 of 1,000 rows imported …")."""
        outcome = self.outcome(strict=strict)
        return {"created": self.created, "duplicates": self.duplicates,
                "annotations_imported": self.annotations_imported, "errors": self.errors_by_line(),
                "failed_rows": self.failed_rows, "rows": self.rows, "status": outcome.status,
                "summary": outcome.summary}


class MediaStore:
    """Stores the files a batch's rows name, each once under its digest, and knows the ids of stored media."""

    def __init__(self, source_dataset: str = ""):
        self.media_ids = Lru(CACHE_ENTRIES)
        self.source_dataset = source_dataset  # recorded with each file as imported (what pointer releases name)

    def stored_ids(self, digests: set[str]) -> dict[str, int]:
        """Ids of media already stored, among ``digests``."""
        out = {d: self.media_ids[d] for d in digests if d in self.media_ids}
        missing = digests - out.keys()
        if missing:
            for digest, pk in Media.objects.filter(sha256__any=missing).values_list("sha256", "id"):
                out[digest] = pk
                self.media_ids.put(digest, pk)
        return out

    def store(self, files: Iterable[tuple[str, FileInfo]]) -> tuple[dict[str, int], list[Future]]:
        """Media ids for ``files`` (``(path as the row names it, info)``); each file not stored yet gets its row now,
        with that path and the import's source dataset, and starts saving (once, under its digest). A file stored
        earlier without a recorded source (uploaded, or imported before sources were recorded) gets this one.

        Precondition: inside a transaction, which the caller commits only after every returned
        future has finished: the files save in threads while the caller writes its rows.
        """
        by_digest, paths = {}, {}
        for relative, info in files:
            by_digest[info.digest] = info
            paths.setdefault(info.digest, relative)
        ids = self.stored_ids(set(by_digest))
        # in digest order, so two imports inserting the same files lock them in the same order (no deadlock)
        new = sorted((info for digest, info in by_digest.items() if digest not in ids), key=lambda info: info.digest)
        saving = [pool().submit(_save_files, new[i:i + SAVE_CHUNK]) for i in range(0, len(new), SAVE_CHUNK)]
        if new:
            bulk.insert_ignoring_conflicts(
                Media, ["sha256", "kind", "mime_type", "size", "width", "height", "file", "source_dataset", "source_path"],
                [(i.digest, i.kind, i.mime_type, i.size, i.width, i.height, storage_name(i.digest, i.extension),
                  self.source_dataset, paths[i.digest]) for i in new],
            )
            ids.update(self.stored_ids({info.digest for info in new}))
        known = sorted(set(by_digest) - {info.digest for info in new})
        if known:
            _record_sources(self.source_dataset, {digest: paths[digest] for digest in known})
        return ids, saving


def _record_sources(dataset: str, paths: dict[str, str]) -> None:
    """Give media stored without a recorded source the path (and dataset) of this import; others keep theirs."""
    unrecorded = Media.objects.filter(sha256__any=list(paths), source_path="").values_list("sha256", flat=True)
    for digest in sorted(unrecorded):
        Media.objects.filter(sha256=digest, source_path="").update(source_path=paths[digest], source_dataset=dataset)


def _save_files(infos: list[FileInfo]) -> None:
    for info in infos:
        _save_file(info)


def _save_file(info: FileInfo) -> None:
    """Store one file under its digest. Files saved here have no media row yet, so they are almost never
    in storage already: no existence check first, and the rare copy saved under another name goes."""
    name = storage_name(info.digest, info.extension)
    if isinstance(default_storage, FileSystemStorage):
        _write_local(info, Path(default_storage.path(name)), default_storage.file_permissions_mode,
                     default_storage.directory_permissions_mode)
        return
    with open(info.path, "rb") as handle:
        storage_put(name, File(handle))


def _write_local(info: FileInfo, target: Path, file_mode: int | None, directory_mode: int | None) -> None:
    """What ``FileSystemStorage.save`` does for a name derived from the content, with a third of its system calls.

    Its name checks, locking and ``makedirs`` on every call cost ~800 µs of kernel time per file on
    this kind of machine against ~240 µs here: the file is created exclusively, and its folder made
    only when missing. A file already there with the right size is the same bytes (the name is
    their digest); one of another size is what a crash left half-written, and is written again.
    """
    try:
        fd = _create(target, directory_mode)
    except FileExistsError:
        if target.stat().st_size == info.size:
            return
        fd = os.open(target, os.O_WRONLY | os.O_TRUNC)
    with open(fd, "wb") as out, open(info.path, "rb") as source:
        if file_mode is not None:
            os.fchmod(fd, file_mode)
        shutil.copyfileobj(source, out, HASH_CHUNK)


def _create(target: Path, directory_mode: int | None) -> int:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    try:
        return os.open(target, flags, 0o666)
    except FileNotFoundError:
        target.parent.mkdir(parents=True, exist_ok=True, **({"mode": directory_mode} if directory_mode else {}))
        return os.open(target, flags, 0o666)


def relaxed_schema(definition: dict) -> dict:
    """The campaign's schema with nothing required: an imported rating may answer only some questions."""
    return {**definition, "questions": [{**q, "required": False} for q in definition["questions"]]}


class _Importer:
    """One run over one file; ``dry_run`` checks everything and writes nothing.

    A forked child reads, parses and checks the file (``import_reader``); this process classifies
    the rows (new, duplicate, refused) and writes them, one transaction per batch.
    """

    def __init__(self, *, campaign: Campaign, fmt, media_root: Path | None, with_annotations: bool, dry_run: bool,
                 batch_size: int, prompt_key: str = "id", source_dataset: str = ""):
        self.campaign = campaign
        self.fmt = fmt
        self.options = rows.ParseOptions(with_annotations=with_annotations, prompt_key=prompt_key)
        # (content digest, line) of each prompt key this run met; a key evicted is looked up in the
        # database again (a dry run may then miss a clash, which its writing pass still refuses)
        self.prompts = Lru(CACHE_ENTRIES)
        self.media_root = media_root
        self.media = MediaStore(source_dataset)
        self.schema = relaxed_schema(campaign.rating_schema.definition)
        self.dry_run = dry_run
        self.batch_size = batch_size
        self.result = ImportResult()

    def run(self, reader: CountingReader, progress: Callable[[int], None]) -> ImportResult:
        def read() -> Iterator[PreparedBatch]:
            return prepared_batches(fmt=self.fmt, reader=reader, options=self.options, media_root=self.media_root,
                                    schema=self.schema, batch_size=self.batch_size)

        with fewer_collections():
            try:
                for batch in in_child(read):
                    self.write(batch)
                    progress(batch.bytes_read)
            except ReaderFailed as exc:
                # The batches written before it stay (outside a strict import's transaction): the job says so.
                exc.result = None if self.dry_run else self.result
                raise
        return self.result

    def write(self, batch: PreparedBatch) -> None:
        for line, message in batch.parse_errors:
            self.result.add_error(line, message)
        if not batch.checked:
            return
        pair_ids = {c.row.external_id for c in batch.checked if isinstance(c.row, rows.PairRow)}
        existing = set(
            Pair.objects.filter(campaign=self.campaign, external_id__any=pair_ids).values_list("external_id", flat=True)
        )
        good, infos, seen = [], [], set()
        for checked in batch.checked:
            row = checked.row
            if isinstance(row, rows.PairRow):
                if row.external_id in existing or row.external_id in seen:
                    self.result.duplicates += 1
                    continue
                seen.add(row.external_id)
            if checked.error:
                self.result.add_error(row.line, checked.error)
            else:
                good.append(row)
                infos.append(checked.files)
        good, infos = self.check_stored_digests(good, infos)
        good, infos = self.check_prompt_contents(good, infos)
        if self.dry_run:
            self.result.created += len(good)
            self.result.annotations_imported += sum(len(getattr(row, "annotations", [])) for row in good)
            return
        with transaction.atomic():
            media_ids, saving = self.media.store(item for found in infos for item in found.items())
            try:
                media_ids.update(self.media.stored_ids({d for row in good for d in row.media_digests()} - media_ids.keys()))
                outcome = pairs_create_many(campaign=self.campaign, batch=good, media_ids=media_ids, checked_new=True)
            finally:
                for future in saving:  # every file is in storage before its row commits
                    future.result()
        self.result.add_batch(outcome)

    def check_prompt_contents(self, good: list, infos: list) -> tuple[list, list]:
        """Refuse a row whose prompt key is already taken by a prompt with different content."""
        unknown = {row.prompt.external_id for row in good} - self.prompts.keys()
        if unknown:
            stored = Prompt.objects.filter(campaign=self.campaign, external_id__any=unknown)
            for key, blocks in stored.values_list("external_id", "content"):
                self.prompts.put(key, (content.digest(blocks), None))
        kept_rows, kept_infos = [], []
        for row, found in zip(good, infos, strict=True):
            key, digest = row.prompt.external_id, row.prompt.content_digest()
            first = self.prompts.get(key)
            if first is None:
                self.prompts.put(key, (digest, row.line))
            elif first[0] != digest:
                where = f"at line {first[1]}" if first[1] is not None else "by an earlier import"
                self.result.add_error(row.line, (
                    f"prompt {key!r} was imported with different content {where}; its pairs would show that "
                    "prompt instead (import with --prompt-key content to keep both)"
                ))
                continue
            kept_rows.append(row)
            kept_infos.append(found)
        return kept_rows, kept_infos

    def check_stored_digests(self, good: list, infos: list) -> tuple[list, list]:
        """Drop rows whose blocks name a media digest that Concord does not hold."""
        named = {row.line: set(row.media_digests()) - {info.digest for info in found.values()}
                 for row, found in zip(good, infos, strict=True)}
        wanted = set().union(*named.values()) if named else set()
        if not wanted:
            return good, infos
        stored = self.media.stored_ids(wanted)
        kept_rows, kept_infos = [], []
        for row, found in zip(good, infos, strict=True):
            missing = sorted(named[row.line] - stored.keys())
            if missing:
                self.result.add_error(row.line, f"media {missing[0]} is not stored in Concord")
            else:
                kept_rows.append(row)
                kept_infos.append(found)
        return kept_rows, kept_infos


def pairs_import(
    *,
    campaign: Campaign,
    stream: BinaryIO,
    fmt: str,
    media_root: Path | None = None,
    with_annotations: bool = False,
    strict: bool = False,
    reopen: Callable[[], object] | None = None,
    size: int | None = None,
    progress: Callable[[int], None] | None = None,
    batch_size: int = BATCH_SIZE,
    prompt_key: str = "id",
    source: SourceInfo | None = None,
) -> ImportResult:
    """Import the pairs in ``stream`` (a binary file) into ``campaign``; importing it again creates nothing.

    ``prompt_key`` (``rows.PROMPT_KEYS``): ``id`` refuses a row whose prompt key names a prompt
    with other content; ``content`` keys prompts by key and content, so both are kept. The campaign records
    where the pairs come from: ``source``, else the format's own (MMRB2 and Omni-RewardBench know theirs),
    with its licence and citation.

    ``strict`` reads the file twice (``reopen`` returns it afresh): a first pass checks every row
    and writes nothing; only when no row failed does the second pass write, in one transaction.
    ``progress(done)`` is called after each batch with the bytes processed out of ``size``
    (in strict mode each pass is half of it); it may raise ImportCancelled to stop between batches.
    """
    if fmt not in FORMATS:
        raise ApplicationError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}", code="unknown_format")
    if prompt_key not in rows.PROMPT_KEYS:
        raise ApplicationError(f"unknown prompt key {prompt_key!r}; expected one of {', '.join(rows.PROMPT_KEYS)}",
                               code="unknown_prompt_key")
    report = progress or (lambda done: None)

    source = source or FORMATS[fmt].SOURCE

    def importer(dry_run: bool) -> _Importer:
        return _Importer(campaign=campaign, fmt=FORMATS[fmt], media_root=media_root, with_annotations=with_annotations,
                         dry_run=dry_run, batch_size=batch_size, prompt_key=prompt_key,
                         source_dataset=source.name if source is not None else "")
    if not strict:
        if source is not None:
            source_dataset_link(campaign=campaign, source=source)
        return importer(False).run(CountingReader(stream), report)
    if reopen is None:
        raise ApplicationError("a strict import needs a file it can read twice", code="strict_needs_file")
    checked = importer(True).run(CountingReader(stream), lambda done: report(done // 2))
    if checked.failed_rows:
        return ImportResult(duplicates=checked.duplicates, errors=checked.errors, failed_rows=checked.failed_rows)
    first_half = (size or 0) // 2
    with transaction.atomic():
        if source is not None:
            source_dataset_link(campaign=campaign, source=source)
        with reopen() as again:
            result = importer(False).run(CountingReader(again), lambda done: report(first_half + done // 2))
        if result.failed_rows:
            transaction.set_rollback(True)
            return ImportResult(duplicates=result.duplicates, errors=result.errors, failed_rows=result.failed_rows)
    return result


def import_job_create(
    *,
    user: User,
    upload: UploadedFile,
    campaign_slug: str,
    fmt: str,
    task: str | None = None,
    schema: str | None = None,
    with_annotations: bool = False,
    strict: bool = False,
    prompt_key: str = "id",
    source: SourceInfo | None = None,
) -> Job:
    """Store an uploaded file and queue its import; the campaign is checked (or created) now, not later.

    ``upload`` is a .jsonl or .json file, or a .zip holding one such file plus the media it names.
    """
    if fmt not in FORMATS:
        raise ApplicationError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}", code="unknown_format")
    suffix = PurePosixPath(upload.name or "").suffix.lower()
    if suffix not in UPLOAD_SUFFIXES:
        raise ApplicationError(f"upload a {', '.join(UPLOAD_SUFFIXES)} file, not {suffix or 'a file without extension'}",
                               code="unsupported_upload")
    limit = settings.CONCORD_MAX_UPLOAD_BYTES
    if upload.size > limit:
        raise ApplicationError(f"the upload is {upload.size:,} bytes; the limit is {limit:,}", code="upload_too_large")
    from annotation.importers.tasks import import_pairs_task

    stored = ""
    try:
        with transaction.atomic():
            campaign, _ = campaign_get_or_create(slug=campaign_slug, kind=task or None, preset=schema or None)
            stored = default_storage.save(f"imports/{uuid.uuid4().hex}{suffix}", upload)
            job = jobs.job_create(
                kind=IMPORT_JOB,
                campaign=campaign,
                created_by=user,
                params={"upload": stored, "filename": PurePosixPath(upload.name).name[:200], "format": fmt,
                        "with_annotations": with_annotations, "strict": strict, "prompt_key": prompt_key,
                        "source": asdict(source) if source is not None else None},
            )
            jobs.job_dispatch(job=job, task=import_pairs_task, args=[job.pk])
    except BaseException:
        # No job will ever read the upload: the campaign was refused, the broker did not take the job (which is
        # then failed with the reason), or anything else went wrong.
        if stored:
            default_storage.delete(stored)
        raise
    return job


def _upload_discard(params: dict) -> None:
    """Remove a job's uploaded file once no run of the job can need it; a file already gone is fine."""
    if params.get("upload"):
        default_storage.delete(params["upload"])


def import_job_run(*, job_id: int) -> None:
    """Run an upload's import, reporting progress on the job; a finished or cancelled job is left alone."""
    job = Job.objects.select_related("campaign__rating_schema").get(pk=job_id)
    if job.status in JOB_FINISHED:
        _upload_discard(job.params)  # cancelled while queued, or a redelivery after the end
        return
    params = job.params
    workdir = Path(tempfile.mkdtemp(prefix="concord-import-"))
    try:
        data, media_root = _materialise(params["upload"], workdir)
        size = data.stat().st_size
        jobs.job_start(job_id=job_id, total=size)

        def report(done: int) -> None:
            jobs.job_progress(job_id=job_id, done=done)
            if jobs.job_is_cancelled(job_id=job_id):
                raise ImportCancelled

        with data.open("rb") as stream:
            result = pairs_import(
                campaign=job.campaign, stream=stream, fmt=params["format"], media_root=media_root,
                with_annotations=params["with_annotations"], strict=params["strict"],
                prompt_key=params.get("prompt_key", "id"), reopen=lambda: data.open("rb"), size=size, progress=report,
                source=SourceInfo(**params["source"]) if params.get("source") else None,
            )
    except ImportCancelled:
        _upload_discard(params)
        return
    except ApplicationError as exc:
        jobs.job_fail(job_id=job_id, error=exc.message)
        _upload_discard(params)
        return
    except ReaderFailed as exc:  # what was committed stays; uploading the file again completes it
        error = shortened(str(exc), MAX_JOB_ERROR_CHARS)
        written = exc.result
        if written is not None and written.created and not params["strict"]:
            jobs.job_partial(job_id=job_id, result=written.as_dict(), error=error)
        else:
            jobs.job_fail(job_id=job_id, error=error)
        _upload_discard(params)
        return
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    jobs.job_progress(job_id=job_id, done=size)
    outcome = result.outcome(strict=params["strict"])
    summary = result.as_dict(strict=params["strict"])
    _upload_discard(params)
    if outcome.status == FAILED:  # the job says failed with the first reasons; its result still lists each row's error
        jobs.job_fail(job_id=job_id, error=outcome.summary, result=summary)
        return
    if outcome.status == PARTIAL:
        jobs.job_partial(job_id=job_id, result=summary)
    else:
        jobs.job_succeed(job_id=job_id, result=summary)
    from annotation.catalogue.tasks import media_renditions_prepare_task

    # The imported media's renditions, made before a rater opens the first pair (and broken files flagged by then).
    transaction.on_commit(lambda: media_renditions_prepare_task.delay(job.campaign_id))


def _materialise(stored: str, workdir: Path) -> tuple[Path, Path]:
    """The uploaded data file on local disk, and the folder its media paths are relative to."""
    if not default_storage.exists(stored):
        raise ApplicationError("the uploaded file is no longer in storage", code="upload_missing")
    local = workdir / ("upload" + PurePosixPath(stored).suffix)
    with default_storage.open(stored, "rb") as source, local.open("wb") as target:
        shutil.copyfileobj(source, target, HASH_CHUNK)
    if local.suffix != ".zip":
        return local, workdir / "media"
    return archive_extract(archive=local, into=workdir / "archive")


def archive_extract(*, archive: Path, into: Path) -> tuple[Path, Path]:
    """Unpack an upload archive safely: (its one top-level .jsonl/.json file, the folder holding it).

    Refuses links, absolute or escaping member names, and archives that unpack to more than the
    upload limit or to more entries than a campaign could use.
    """
    limit = settings.CONCORD_MAX_UPLOAD_BYTES
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = bundle.infolist()
            if len(members) > 1_000_000:
                raise ApplicationError("the archive holds more than 1,000,000 entries", code="archive_refused")
            if sum(m.file_size for m in members) > limit:
                raise ApplicationError(f"the archive unpacks to more than {limit:,} bytes", code="archive_refused")
            data_files = []
            for member in members:
                name = PurePosixPath(member.filename)
                if name.is_absolute() or ".." in name.parts or "\\" in member.filename or ":" in member.filename:
                    raise ApplicationError(f"archive entry {member.filename!r} leaves the archive", code="archive_refused")
                if stat.S_ISLNK(member.external_attr >> 16):
                    raise ApplicationError(f"archive entry {member.filename!r} is a link", code="archive_refused")
                if not member.is_dir() and len(name.parts) == 1 and name.suffix.lower() in (".jsonl", ".json"):
                    data_files.append(name.name)
            if len(data_files) != 1:
                raise ApplicationError(
                    f"the archive needs exactly one .jsonl or .json file at its top level, found {len(data_files)}",
                    code="archive_refused")
            into.mkdir(parents=True)
            written = 0
            for member in members:
                target = into.joinpath(*PurePosixPath(member.filename).parts)
                if member.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with bundle.open(member) as source, target.open("wb") as out:
                    while chunk := source.read(HASH_CHUNK):
                        written += len(chunk)
                        if written > limit:  # sizes in the directory can lie; count what really comes out
                            raise ApplicationError(f"the archive unpacks to more than {limit:,} bytes",
                                                   code="archive_refused")
                        out.write(chunk)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError) as exc:
        raise ApplicationError(f"the archive cannot be read: {exc}", code="archive_refused") from exc
    return into / data_files[0], into
