"""Training exports of a published release from the page and the API: a background job writes the export folder
beside the release (``curation.releases.training``, the same code as ``manage.py export_training``), and the
finished exports are listed and downloaded as one zip each.

An export of one release with the same format, ties and minimum agreement is written once: asking again reuses the
finished folder. Exports of a release on S3 are made with the command from a downloaded copy (``--folder``).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.files.storage import default_storage

from annotation.catalogue.models import Media
from annotation.jobs.models import Job
from annotation.jobs.services import job_create, job_dispatch, job_fail, job_progress, job_start, job_succeed
from core.errors import ApplicationError
from curation.models import Release
from curation.releases import archive, training

if TYPE_CHECKING:
    from annotation.accounts.models import User

JOB_KIND = "training_export"
FOLDER = re.compile(r"^[a-z]+(-ties-margin)?(-min-[0-9.]+)?$")
READ_CHUNK = 1 << 20


def export_folder_name(*, format: str, ties: str, min_agreement: float | None) -> str:
    """``trl``, ``trl-ties-margin``, ``trl-min-0.8``…: one folder per distinct request."""
    return format + ("-ties-margin" if ties == "margin" else "") + ("" if min_agreement is None else f"-min-{min_agreement:g}")


def exports_root(release: Release) -> Path:
    """``<releases root>/<name>/<version>-training/``, beside the release folder (never inside it)."""
    return training.default_folder(Path(settings.CONCORD_RELEASES_ROOT) / release.name / release.version, "x").parent


def _local_published(release: Release) -> Path:
    if release.status != Release.Status.PUBLISHED:
        raise ApplicationError(f"{release} is {release.status}; only a published release can be exported",
                               code="release_not_published", status_code=409)
    if release.storage != Release.Storage.LOCAL:
        raise ApplicationError(
            f"{release} is stored on S3: download it (the release page's script) and run manage.py export_training "
            "--folder DOWNLOADED_FOLDER --format …", code="release_on_s3", status_code=409)
    return Path(settings.CONCORD_RELEASES_ROOT) / release.name / release.version


@contextmanager
def stored_media_source(scratch: Path) -> Iterator[training.MediaSource]:
    """A pointer release's media from Concord's own store, by sha256: the stored file where the storage is a local
    disk, else a copy downloaded under ``scratch`` (removed afterwards). The export checks each file's hash."""
    downloads = scratch / ".media-downloads"

    def source(entry: dict) -> Path | None:
        media = Media.objects.filter(sha256=entry["sha256"]).only("file").first()
        if media is None or not media.file.name:
            return None
        try:
            return Path(default_storage.path(media.file.name))
        except NotImplementedError:
            pass
        downloads.mkdir(parents=True, exist_ok=True)
        target = downloads / entry["sha256"]
        with default_storage.open(media.file.name, "rb") as stored, open(target, "wb") as copy:
            shutil.copyfileobj(stored, copy, READ_CHUNK)
        return target

    try:
        yield source
    finally:
        shutil.rmtree(downloads, ignore_errors=True)


def training_export_start(*, release: Release, format: str, ties: str = "drop", min_agreement: float | None = None,
                          created_by: User | None = None) -> Job:
    """A queued job writing the export; refused at once (400) for an unknown format, ties or agreement."""
    from curation.tasks import training_export_task

    _local_published(release)
    try:
        training.check_options(format=format, ties=ties, min_agreement=min_agreement)
    except training.TrainingExportError as exc:
        raise ApplicationError(str(exc).replace("--", ""), code="invalid_export_options") from exc
    folder = export_folder_name(format=format, ties=ties, min_agreement=min_agreement)
    job = job_create(kind=JOB_KIND, created_by=created_by,
                     params={"release": str(release), "name": release.name, "version": release.version, "format": format,
                             "ties": ties, "min_agreement": min_agreement, "folder": folder})
    job_dispatch(job=job, task=training_export_task, args=[job.pk])
    return job


def training_export_job_run(*, job_id: int) -> None:
    """Write (or find already written) the export a queued job asks for; its result is the export's summary."""
    job = job_start(job_id=job_id)
    if job.status != Job.Status.RUNNING:
        return
    params = job.params
    try:
        release = Release.objects.get(name=params["name"], version=params["version"])
        source = _local_published(release)
        out = exports_root(release) / params["folder"]
        if (out / training.MANIFEST).is_file():
            job_succeed(job_id=job_id, result={**_summary(out), "reused": True})
            return
        if out.exists():  # an earlier run stopped before its manifest: what it wrote is incomplete
            shutil.rmtree(out)
        with stored_media_source(out.parent) as media_source:
            result = training.export_training(
                release_folder=source, format=params["format"], out=out, ties=params["ties"],
                min_agreement=params["min_agreement"], media_source=media_source,
                progress=lambda done, total: job_progress(job_id=job_id, done=done, total=total))
    except (ApplicationError, training.TrainingExportError) as exc:
        job_fail(job_id=job_id, error=getattr(exc, "message", None) or str(exc))
        return
    except Exception as exc:
        job_fail(job_id=job_id, error=f"{type(exc).__name__}: {exc}")
        raise
    job_succeed(job_id=job_id, result={**_summary(result.folder), "reused": False})


def _summary(folder: Path) -> dict:
    manifest = json.loads((folder / training.MANIFEST).read_text())
    return {"folder": folder.name, "format": manifest["format"], "ties": manifest["ties"],
            "min_agreement": manifest["min_agreement"], "columns": manifest["columns"],
            "pairs": manifest["counts"]["pairs"], "per_task": manifest["counts"]["per_task"],
            "left_out": manifest["counts"]["left_out"], "files": len(manifest["files"]) + 1}


def training_exports(*, release: Release) -> list[dict]:
    """The finished exports of a local published release, by folder name."""
    if release.storage != Release.Storage.LOCAL:
        return []
    root = exports_root(release)
    if not root.is_dir():
        return []
    return [_summary(p) for p in sorted(root.iterdir()) if FOLDER.match(p.name) and (p / training.MANIFEST).is_file()]


@dataclass(frozen=True)
class ExportArchive:
    name: str
    chunks: Iterator[bytes]


def training_export_archive(*, release: Release, folder: str) -> ExportArchive:
    """A finished export as one streamed zip under ``NAME-VERSION-FOLDER/``; 404 for a folder that is not one."""
    _local_published(release)
    path = exports_root(release) / folder
    if not FOLDER.match(folder) or not (path / training.MANIFEST).is_file():
        raise ApplicationError(f"{release} has no finished training export {folder!r}", code="not_found",
                               status_code=404)
    entries = [archive.Entry(p.relative_to(path).as_posix(), p.stat().st_size)
               for p in path.rglob("*") if p.is_file()]

    def read_chunks(relative: str):
        with open(path / relative, "rb") as handle:
            while chunk := handle.read(READ_CHUNK):
                yield chunk

    root = f"{release.name}-{release.version}-{folder}"
    return ExportArchive(name=f"{root}.zip", chunks=archive.archive_chunks(root=root, entries=entries,
                                                                          read_chunks=read_chunks))
