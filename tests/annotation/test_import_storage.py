"""Storing an import's media files on the local disk: once, whole, under their digest."""

import hashlib
import stat

from annotation.services.import_reader import FileInfo
from annotation.services.imports import _write_local
from tests.annotation.import_helpers import png_bytes


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
