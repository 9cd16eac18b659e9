#!/usr/bin/env python3
"""Fill the media of a Concord pointer release from your own copy of its sources, checking every sha256.

A pointer release ships, instead of its media, ``pointers.json``: each media file's path in the release, its sha256
and size, and where it came from (source dataset, path inside it, the dataset's address). This script, shipped in the
release as ``rebuild.py`` (Python 3.9+ standard library only: no Django, no pyarrow), finds each file under
``--media-root``, checks its sha256, writes it to ``media/`` and embeds images and audio in the Parquet files, so
the folder loads in ``datasets`` exactly as a full release does::

    python3 rebuild.py --media-root /path/to/your/copy        # the release folder is the script's own

Nothing is written unless every file is found and matches: one missing or altered file and the release folder is
left as it was, with each such file named with both hashes. Running it again on a rebuilt folder changes nothing.

How a file is looked for under DIR, first match wins: ``DIR/<source path>``, ``DIR/<dataset>/<source path>``,
``DIR/<file name>``, ``DIR/<release name>`` (``media/<sha256>.<ext>``), then any file under DIR of the right size
whose sha256 matches.

The Parquet files of a pointer release hold, where a full release embeds an image's (or a recording's) bytes, the
placeholder ``concord-pointer:sha256:<hex>``, in uncompressed, PLAIN-encoded, statistics-free column chunks
(data page v1), so the bytes can be put in place without a Parquet library: each page of those columns is rewritten
with the file's bytes, and the offsets and sizes of the footer (Thrift compact protocol) are moved by as much.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import struct
import sys
import uuid
from pathlib import Path

POINTERS = "pointers.json"
FORMAT = "concord-pointers/1"
PLACEHOLDER = b"concord-pointer:sha256:"
CHUNK = 1024 * 1024
MAGIC = b"PAR1"
SHOWN = 20  # problems named in one refusal
FILLED_KEY = b"concord.media_filled"  # in a filled file's key-value metadata: a second run leaves it as it is


class RebuildError(Exception):
    """The release cannot be rebuilt from this media root; the message names every file at fault (up to SHOWN)."""


def placeholder(digest: str) -> bytes:
    """What a pointer release's Parquet files hold where the full release embeds the bytes of ``digest``."""
    return PLACEHOLDER + digest.encode("ascii")


# --- Thrift compact protocol (the Parquet footer and page headers), kept field by field ------------------------------

BOOL_TRUE, BOOL_FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(1, 13)


class _Reader:
    def __init__(self, data: bytes, pos: int = 0):
        self.data, self.pos = data, pos

    def byte(self) -> int:
        value = self.data[self.pos]
        self.pos += 1
        return value

    def varint(self) -> int:
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, kind: int):
        if kind in (BOOL_TRUE, BOOL_FALSE):  # inside a container: one byte
            return self.byte() == BOOL_TRUE
        if kind == BYTE:
            return struct.unpack("b", bytes([self.byte()]))[0]
        if kind in (I16, I32, I64):
            return self.zigzag()
        if kind == DOUBLE:
            self.pos += 8
            return struct.unpack("<d", self.data[self.pos - 8:self.pos])[0]
        if kind == BINARY:
            n = self.varint()
            self.pos += n
            return self.data[self.pos - n:self.pos]
        if kind in (LIST, SET):
            head = self.byte()
            size, element = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            return (element, [self.value(element) for _ in range(size)])
        if kind == MAP:
            size = self.varint()
            if not size:
                return (0, 0, [])
            types = self.byte()
            key, val = types >> 4, types & 0x0F
            return (key, val, [(self.value(key), self.value(val)) for _ in range(size)])
        if kind == STRUCT:
            return self.fields()
        raise RebuildError(f"unreadable Parquet metadata (Thrift type {kind})")

    def fields(self) -> dict:
        """A struct as ``{field id: [type, value]}``, in the order read (booleans carry their value in the type)."""
        out, last = {}, 0
        while True:
            head = self.byte()
            if head == 0:
                return out
            kind, delta = head & 0x0F, head >> 4
            fid = last + delta if delta else self.zigzag()
            last = fid
            out[fid] = [kind, kind == BOOL_TRUE] if kind in (BOOL_TRUE, BOOL_FALSE) else [kind, self.value(kind)]


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        if n < 0x80:
            out.append(n)
            return bytes(out)
        out.append((n & 0x7F) | 0x80)
        n >>= 7


def _zigzag(n: int) -> bytes:
    return _varint((n << 1) ^ (n >> 63))


def _value(kind: int, value) -> bytes:
    if kind in (BOOL_TRUE, BOOL_FALSE):
        return bytes([BOOL_TRUE if value else BOOL_FALSE])
    if kind == BYTE:
        return struct.pack("b", value)
    if kind in (I16, I32, I64):
        return _zigzag(value)
    if kind == DOUBLE:
        return struct.pack("<d", value)
    if kind == BINARY:
        return _varint(len(value)) + bytes(value)
    if kind in (LIST, SET):
        element, items = value
        head = bytes([(len(items) << 4) | element]) if len(items) < 15 else bytes([0xF0 | element]) + _varint(len(items))
        return head + b"".join(_value(element, item) for item in items)
    if kind == MAP:
        key, val, items = value
        if not items:
            return b"\x00"
        return _varint(len(items)) + bytes([(key << 4) | val]) + b"".join(
            _value(key, k) + _value(val, v) for k, v in items)
    if kind == STRUCT:
        return _struct(value)
    raise RebuildError(f"cannot write Thrift type {kind}")


def _struct(fields: dict) -> bytes:
    out, last = bytearray(), 0
    for fid in sorted(fields):
        kind, value = fields[fid]
        if kind in (BOOL_TRUE, BOOL_FALSE):
            kind, body = (BOOL_TRUE if value else BOOL_FALSE), b""
        else:
            body = _value(kind, value)
        delta = fid - last
        out += bytes([(delta << 4) | kind]) if 0 < delta <= 15 else bytes([kind]) + _zigzag(fid)
        out += body
        last = fid
    out.append(0)
    return bytes(out)


# --- Parquet ---------------------------------------------------------------------------------------------------------

# FileMetaData 2 schema, 4 row_groups; SchemaElement 1 type, 3 repetition_type, 4 name, 5 num_children;
# RowGroup 1 columns, 2 total_byte_size, 5 file_offset, 6 total_compressed_size; ColumnChunk 2 file_offset,
# 3 meta_data, 4/6 offset/column index offsets; ColumnMetaData 1 type, 3 path_in_schema, 4 codec,
# 6/7 total uncompressed/compressed size, 9 data_page_offset, 10 index_page_offset, 11 dictionary_page_offset,
# 12 statistics, 14 bloom_filter_offset, 16 size_statistics; PageHeader 1 type, 2/3 uncompressed/compressed size,
# 4 crc, 5 data_page_header (5: statistics).
BYTE_ARRAY, REPEATED, REQUIRED, UNCOMPRESSED, DATA_PAGE = 6, 2, 0, 0, 0


def _levels(schema: list[dict]) -> dict[tuple, tuple[int, int]]:
    """``{leaf path: (max repetition level, max definition level)}``."""
    out = {}
    position = 1

    def walk(prefix: tuple, rep: int, dfn: int, children: int) -> None:
        nonlocal position
        for _ in range(children):
            element = schema[position]
            position += 1
            name = element[4][1].decode("utf-8")
            repetition = element.get(3, [I32, REQUIRED])[1]
            r, d = rep + (repetition == REPEATED), dfn + (repetition != REQUIRED)
            count = element.get(5, [I32, 0])[1]
            if count:
                walk((*prefix, name), r, d, count)
            else:
                out[(*prefix, name)] = (r, d)

    walk((), 0, 0, schema[0].get(5, [I32, 0])[1])
    return out


def media_column(path: tuple) -> bool:
    """An embedded image's or recording's bytes (``*_images`` / ``*_audio`` lists of ``{bytes, path}``)."""
    return len(path) >= 2 and path[0].endswith(("_images", "_audio")) and path[-1] == "bytes"


def _rewrite_pages(data: bytes, start: int, length: int, levels: tuple[int, int], fill, where: str):
    """The pages of the column chunk at ``start``, one at a time, each placeholder value replaced by ``fill(value)``
    (so memory holds one page, never a whole file of media)."""
    pos, end = start, start + length
    while pos < end:
        reader = _Reader(data, pos)
        header = reader.fields()
        body_start = reader.pos
        size = header[3][1]
        if header[1][1] != DATA_PAGE:
            raise RebuildError(f"{where}: a page of type {header[1][1]} (expected uncompressed v1 data pages only): "
                               "this file is not a pointer release's")
        body = data[body_start:body_start + size]
        cursor, new = 0, bytearray()
        for present in (levels[0] > 0, levels[1] > 0):
            if present:
                (n,) = struct.unpack_from("<I", body, cursor)
                new += body[cursor:cursor + 4 + n]
                cursor += 4 + n
        while cursor < len(body):
            (n,) = struct.unpack_from("<I", body, cursor)
            value = body[cursor + 4:cursor + 4 + n]
            cursor += 4 + n
            filled = fill(value)
            new += struct.pack("<I", len(filled)) + filled
        header[2][1] = header[3][1] = len(new)
        header.pop(4, None)  # crc: of the old bytes
        if 5 in header:
            header[5][1].pop(5, None)  # the page's statistics: of the placeholders
        yield _struct(header) + bytes(new)
        pos = body_start + size


def _footer(source: Path) -> dict:
    """The file's metadata, read from its end alone."""
    with open(source, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        if size < 12:
            raise RebuildError(f"{source.name}: not a Parquet file")
        handle.seek(size - 8)
        tail = handle.read(8)
        (footer_len,) = struct.unpack_from("<I", tail)
        if tail[4:] != MAGIC or footer_len > size - 12:
            raise RebuildError(f"{source.name}: not a Parquet file")
        handle.seek(size - 8 - footer_len)
        return _Reader(handle.read(footer_len)).fields()


def _filled(meta: dict) -> bool:
    return any(kv[1][1] == FILLED_KEY for kv in meta.get(5, [LIST, (STRUCT, [])])[1][1])


def fill_parquet(source: Path, target: Path, fill) -> int | None:
    """Write ``source`` to ``target`` with every media placeholder replaced by ``fill(placeholder)``, page by page; the
    number of column chunks rewritten, or None (nothing written) when ``source`` was filled already (its footer says
    so: ``FILLED_KEY``). RebuildError when the file is not one a pointer release writes.

    Precondition: ``source`` is small unless filled (a pointer release's Parquet file holds no media), so it is read
    whole only then.
    """
    if _filled(_footer(source)):
        return None
    data = source.read_bytes()
    where = source.name
    if len(data) < 12 or data[:4] != MAGIC or data[-4:] != MAGIC:
        raise RebuildError(f"{where}: not a Parquet file")
    (footer_len,) = struct.unpack_from("<I", data, len(data) - 8)
    footer_start = len(data) - 8 - footer_len
    meta = _Reader(data, footer_start).fields()
    levels = _levels(meta[2][1][1])
    groups = meta.get(4, [LIST, (STRUCT, [])])[1][1]
    targets = []  # (old start, old length, path, column metadata, row group)
    for group in groups:
        for column in group[1][1][1]:
            md = column[3][1]
            path = tuple(p.decode("utf-8") for p in md[3][1][1])
            if not media_column(path) or md[1][1] != BYTE_ARRAY:
                continue
            if 4 in column or 6 in column:
                raise RebuildError(f"{where}: has a page index, which a pointer release's files do not")
            if md[4][1] != UNCOMPRESSED:
                raise RebuildError(f"{where}: column {'.'.join(path)} is compressed: not a pointer release's file")
            targets.append((md[11][1] if 11 in md else md[9][1], md[7][1], path, md, group))
    targets.sort(key=lambda t: t[0])
    growths = []  # (old start, growth)
    with open(target, "wb") as out:
        pos = 0
        for start, length, path, md, group in targets:
            out.write(data[pos:start])
            written = 0
            for page in _rewrite_pages(data, start, length, levels[path], fill, f"{where} {'.'.join(path)}"):
                out.write(page)
                written += len(page)
            pos = start + length
            growth = written - length
            growths.append((start, growth))
            md[6][1] += growth
            md[7][1] += growth
            md.pop(12, None)  # min/max of the placeholders
            md.pop(16, None)  # byte counts of the placeholders
            group[2][1] += growth
            if 6 in group:
                group[6][1] += growth
        out.write(data[pos:footer_start])

        def moved(offset: int) -> int:
            return offset + sum(growth for start, growth in growths if start < offset)

        for group in groups:
            for column in group[1][1][1]:
                if 2 in column:
                    column[2][1] = moved(column[2][1])
                md = column[3][1]
                for fid in (9, 10, 11, 14):
                    if fid in md:
                        md[fid][1] = moved(md[fid][1])
            if 5 in group:
                group[5][1] = moved(group[5][1])
        meta.setdefault(5, [LIST, (STRUCT, [])])[1][1].append({1: [BINARY, FILLED_KEY], 2: [BINARY, b"sha256-checked"]})
        footer = _struct(meta)
        out.write(footer)
        out.write(struct.pack("<I", len(footer)))
        out.write(MAGIC)
    return len(targets)


# --- Finding and checking the media ----------------------------------------------------------------------------------

def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def read_pointers(folder: Path) -> dict:
    try:
        pointers = json.loads((folder / POINTERS).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RebuildError(f"{folder}: no {POINTERS}; this is not a pointer release (a full release needs no "
                           "rebuilding)") from None
    except ValueError as exc:
        raise RebuildError(f"{folder / POINTERS}: unreadable ({exc})") from None
    if pointers.get("format") != FORMAT:
        raise RebuildError(f"{folder / POINTERS}: format {pointers.get('format')!r}, expected {FORMAT}")
    for n, entry in enumerate(pointers.get("files") or []):
        path, digest = str(entry.get("path", "")), str(entry.get("sha256", ""))
        parts = path.split("/")
        if (len(parts) != 2 or parts[0] != "media" or parts[1] in ("", ".", "..") or "\\" in path
                or len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest)
                or not isinstance(entry.get("size"), int)):
            raise RebuildError(f"{folder / POINTERS}: files[{n}] is not a media entry (media/<name>, a sha256, a size)")
    return pointers


def _inside(root: Path, relative: str) -> Path | None:
    """``root/relative`` if its path stays under ``root`` (no ``..`` out of it; a symbolic link inside may lead
    elsewhere, as a Hugging Face cache's do) and is a file."""
    if not relative or relative.startswith(("/", "\\")) or "\x00" in relative:
        return None
    candidate = Path(os.path.normpath(root / relative))
    if candidate != root and root not in candidate.parents:
        return None
    return candidate if candidate.is_file() else None


def candidates(root: Path, entry: dict) -> list[Path]:
    """Where ``entry``'s file may be under ``root``, in the order tried (see the module's docstring)."""
    source = entry.get("source") or {}
    relative, dataset = source.get("path") or "", source.get("dataset") or ""
    tried = [relative, f"{dataset}/{relative}" if dataset and relative else "",
             relative.replace("\\", "/").rsplit("/", 1)[-1], entry["path"], entry["path"].rsplit("/", 1)[-1]]
    found = []
    for relative_path in tried:
        path = _inside(root, relative_path)
        if path is not None and path not in found:
            found.append(path)
    return found


def locate(root: Path, files: list[dict]) -> dict[str, Path]:
    """``{release path: file under root}`` for every entry; RebuildError naming each one missing or altered.

    A file found by name whose sha256 differs is refused (with its name and both hashes) even when a scan would find
    another: the user's copy is not what the release was built from.
    """
    found, altered, missing = {}, [], []
    for entry in files:
        paths = candidates(root, entry)
        if not paths:
            missing.append(entry)
            continue
        path = paths[0]
        actual = sha256_of(path)
        if actual != entry["sha256"]:
            altered.append((entry, path, actual))
            continue
        found[entry["path"]] = path
    if missing:
        found.update(_scan(root, missing))
        missing = [entry for entry in missing if entry["path"] not in found]
    if altered or missing:
        lines = [f"{path}: sha256 {actual}, expected {entry['sha256']} (for {entry['path']}, "
                 f"{_source_text(entry)})" for entry, path, actual in altered]
        lines += [f"{entry['path']}: not found under {root} (sha256 {entry['sha256']}, {_source_text(entry)})"
                  for entry in missing]
        shown = "\n  ".join(lines[:SHOWN]) + (f"\n  ... and {len(lines) - SHOWN} more" if len(lines) > SHOWN else "")
        raise RebuildError(f"{len(altered)} file(s) differ and {len(missing)} are missing; nothing was written:\n  "
                           f"{shown}")
    return found


def _source_text(entry: dict) -> str:
    source = entry.get("source") or {}
    text = " ".join(part for part in (source.get("dataset") or "", source.get("path") or "") if part)
    return f"from {text}" if text else "source not recorded"


def _scan(root: Path, missing: list[dict]) -> dict[str, Path]:
    """Files under ``root`` found by size and then sha256, for entries not found by name."""
    by_size: dict[int, list[dict]] = {}
    for entry in missing:
        by_size.setdefault(entry["size"], []).append(entry)
    found = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = Path(directory) / name
            try:
                size = path.stat().st_size
            except OSError:
                continue
            waiting = [entry for entry in by_size.get(size, []) if entry["path"] not in found]
            if not waiting:
                continue
            digest = sha256_of(path)
            for entry in waiting:
                if entry["sha256"] == digest:
                    found[entry["path"]] = path
    return found


# --- The rebuild -----------------------------------------------------------------------------------------------------

def _copy_checked(source: Path, target: Path, expected: str) -> None:
    """Copy ``source`` to ``target``, checking the copied bytes hash to ``expected`` (the file may change meanwhile)."""
    digest = hashlib.sha256()
    with open(source, "rb") as reader, open(target, "wb") as writer:
        while chunk := reader.read(CHUNK):
            digest.update(chunk)
            writer.write(chunk)
    if digest.hexdigest() != expected:
        raise RebuildError(f"{source}: sha256 {digest.hexdigest()}, expected {expected} (it changed while being "
                           "copied); nothing was written")


def rebuild(folder, media_root, *, log=None) -> dict:
    """Fill ``folder``'s media from ``media_root`` and embed images and audio in its Parquet files.

    Returns ``{"media_files", "copied", "parquet_files", "chunks", "already_filled"}``; RebuildError (the folder
    unchanged) when a file is missing or altered.
    """
    folder, root = Path(folder).resolve(), Path(media_root).resolve()
    say = log or (lambda message: None)
    if not root.is_dir():
        raise RebuildError(f"--media-root {media_root}: not a folder")
    pointers = read_pointers(folder)
    files = pointers["files"]
    by_digest = {entry["sha256"]: entry for entry in files}
    todo = []
    for entry in files:
        target = folder / entry["path"]
        if not (target.is_file() and target.stat().st_size == entry["size"] and sha256_of(target) == entry["sha256"]):
            todo.append(entry)
    say(f"{len(files)} media files listed, {len(files) - len(todo)} already in place; looking under {root}")
    found = locate(root, todo)
    staging = folder / f".rebuild-{uuid.uuid4().hex}"
    staging.mkdir()
    try:
        for entry in todo:
            staged = staging / entry["path"]
            staged.parent.mkdir(parents=True, exist_ok=True)
            _copy_checked(found[entry["path"]], staged, entry["sha256"])

        def media_file(digest: str) -> Path:
            entry = by_digest[digest]
            staged = staging / entry["path"]
            return staged if staged.is_file() else folder / entry["path"]

        def fill(value: bytes) -> bytes:
            if not value.startswith(PLACEHOLDER):
                return value  # already rebuilt
            digest = value[len(PLACEHOLDER):].decode("ascii", "replace")
            if digest not in by_digest:
                raise RebuildError(f"a Parquet file names media {digest}, which {POINTERS} does not list")
            data = media_file(digest).read_bytes()
            if digest not in checked:  # a file used by many pairs is hashed once
                if hashlib.sha256(data).hexdigest() != digest:
                    raise RebuildError(f"{media_file(digest)}: no longer matches sha256 {digest}; nothing was written")
                checked.add(digest)
            return data

        checked: set = set()
        shards, chunks, skipped = [], 0, 0
        for shard in sorted((folder / "data").rglob("*.parquet")):
            relative = shard.relative_to(folder)
            staged = staging / relative
            staged.parent.mkdir(parents=True, exist_ok=True)
            filled = fill_parquet(shard, staged, fill)
            if filled is None:
                skipped += 1
                continue
            chunks += filled
            shards.append(relative)
        # everything is checked and written aside: put it in place
        for entry in todo:
            target = folder / entry["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / entry["path"], target)
        for relative in shards:
            os.replace(staging / relative, folder / relative)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    say(f"{len(todo)} media files written to {folder / 'media'}; {len(shards)} Parquet files filled, {skipped} "
        "filled already")
    return {"media_files": len(files), "copied": len(todo), "parquet_files": len(shards), "chunks": chunks,
            "already_filled": skipped}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Fill a Concord pointer release's media from your own copy of its "
                                                 "sources, checking every sha256.")
    parser.add_argument("--media-root", required=True, help="The folder holding your copy of the source media.")
    parser.add_argument("folder", nargs="?", default=str(Path(__file__).resolve().parent),
                        help="The release folder (default: the folder this script is in).")
    args = parser.parse_args(argv)
    try:
        rebuild(args.folder, args.media_root, log=print)
    except RebuildError as exc:
        print(f"rebuild refused: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a disk full, a folder not writable: nothing was put in place
        print(f"rebuild failed: {exc}; the release folder was left as it was", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
