"""Storing an import's media files (local disk, or any other storage): once, whole, under their digest."""

import hashlib
import stat

import pytest
from django.core.files.storage import default_storage

from annotation.catalogue.models import Media
from annotation.importers.reader import FileInfo
from annotation.importers.services import _write_local
from tests.catalogue.import_helpers import concord_pair, png_bytes, run_import_json, write_jsonl
from tests.factories import CampaignFactory


def info_for(path, data: bytes) -> FileInfo:
    path.write_bytes(data)
    return FileInfo(hashlib.sha256(data).hexdigest(), "image", "image/png", "png", len(data), 8, 6, str(path))


def test_a_new_file_is_written_with_its_folder_and_the_configured_modes(tmp_path):
    info = info_for(tmp_path / "source.png", png_bytes(1))
    target = tmp_path / "store" / "media" / info.digest[:2] / f"{info.digest}.png"
    _write_local(info, target, 0o640, 0o750)
    assert target.read_bytes() == png_bytes(1)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_whole_file_already_there_is_kept_and_a_half_written_one_is_written_again(tmp_path):
    info = info_for(tmp_path / "source.png", png_bytes(2))
    target = tmp_path / "store" / f"{info.digest}.png"
    target.parent.mkdir()
    target.write_bytes(png_bytes(2))
    before = target.stat().st_mtime_ns
    _write_local(info, target, None, None)
    assert target.stat().st_mtime_ns == before  # not rewritten

    target.write_bytes(png_bytes(2)[:10])  # what a crash mid-copy leaves
    _write_local(info, target, None, None)
    assert target.read_bytes() == png_bytes(2)


@pytest.mark.django_db
def test_with_another_storage_the_files_go_through_the_storage_api_once(settings, tmp_path):
    """Object storage (S3 in production) gets each file under its digest name, however often it is named."""
    settings.STORAGES = {**settings.STORAGES, "default": {"BACKEND": "django.core.files.storage.InMemoryStorage"}}
    (tmp_path / "a.png").write_bytes(png_bytes(4))
    CampaignFactory(slug="in-memory", kind="text-to-image")
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(i, a_file="a.png") for i in range(3)])
    for _ in range(2):
        code, _ = run_import_json(path, "--campaign", "in-memory", "--format", "concord")
        assert code == 0
    media = Media.objects.get()
    assert type(default_storage._wrapped).__name__ == "InMemoryStorage"
    assert default_storage.open(media.file.name).read() == png_bytes(4)
    assert default_storage.listdir(f"media/{media.sha256[:2]}")[1] == [f"{media.sha256}.png"]
