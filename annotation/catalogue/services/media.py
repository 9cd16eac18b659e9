"""Content-addressed media: sniff what the bytes really are, store each file once."""

from __future__ import annotations

import hashlib
import io
import warnings
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from PIL import Image, UnidentifiedImageError

from annotation.catalogue.models import Media
from core.errors import ApplicationError
from core.text_checks import shortened

if TYPE_CHECKING:
    from django.core.files import File


class MediaError(ApplicationError):
    """A media file that cannot be accepted; the message says why."""


@dataclass(frozen=True)
class Sniffed:
    kind: str
    mime_type: str
    extension: str
    width: int | None = None
    height: int | None = None


IMAGE_FORMATS = {"JPEG": ("image/jpeg", "jpg"), "PNG": ("image/png", "png"), "WEBP": ("image/webp", "webp"),
                 "GIF": ("image/gif", "gif"), "BMP": ("image/bmp", "bmp"), "TIFF": ("image/tiff", "tif")}
EXTENSION_KIND = {
    **dict.fromkeys(("jpg", "jpeg", "png", "webp", "gif", "bmp", "tif", "tiff"), "image"),
    **dict.fromkeys(("mp4", "m4v", "mov", "webm", "mkv"), "video"),
    **dict.fromkeys(("wav", "mp3", "flac", "ogg", "oga", "m4a"), "audio"),
    **dict.fromkeys(("glb", "gltf", "obj", "ply", "stl"), "model3d"),
}


# A media path is relative to its import's media root; a longer one is refused before the file system sees it.
MAX_MEDIA_PATH_CHARS = 1_024
# The longest name of one folder or file most file systems take (ext4, XFS, APFS, NTFS: 255).
MAX_MEDIA_NAME_BYTES = 255
# How much of a refused path an error shows.
SHOWN_PATH_CHARS = 80


def sniff(data: bytes, *, name: str = "") -> Sniffed:
    """What ``data`` is, judged by its bytes; MediaError when unknown, unsafe or not what ``name`` says."""
    label = shortened(name, SHOWN_PATH_CHARS) if name else "media"
    if not data:
        raise MediaError(f"{label}: the file is empty", code="media_empty")
    found = sniff_by_head(data[:64]) or _sniff_stl(data) or _sniff_obj(data) or _sniff_image(data, label)
    claimed = EXTENSION_KIND.get(PurePosixPath(name).suffix.lower().lstrip("."))
    if name and claimed and claimed != found.kind:
        raise MediaError(
            f"{label}: the name says {claimed} but the bytes are {found.mime_type}", code="media_type_mismatch"
        )
    return found


def sniff_by_head(head: bytes) -> Sniffed | None:
    """Video, audio and 3D files, known by their first 64 bytes alone; None for anything else (images)."""
    if head[4:8] == b"ftyp":
        return Sniffed("video", "video/mp4", "mp4") if b"M4A" not in head[8:12] else Sniffed("audio", "audio/mp4", "m4a")
    if head.startswith(b"\x1a\x45\xdf\xa3"):
        return Sniffed("video", "video/webm", "webm")
    if head.startswith(b"RIFF") and head[8:12] == b"WAVE":
        return Sniffed("audio", "audio/wav", "wav")
    if head.startswith(b"fLaC"):
        return Sniffed("audio", "audio/flac", "flac")
    if head.startswith(b"OggS"):
        return Sniffed("audio", "audio/ogg", "ogg")
    if head.startswith(b"ID3") or head[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"):
        return Sniffed("audio", "audio/mpeg", "mp3")
    if head.startswith(b"glTF"):
        return Sniffed("model3d", "model/gltf-binary", "glb")
    if head.startswith(b"ply\n") or head.startswith(b"ply\r\n"):
        return Sniffed("model3d", "model/ply", "ply")
    return None


def _sniff_stl(data: bytes) -> Sniffed | None:
    """An STL mesh, known by the whole file (its first bytes are free text): binary when its facet count says
    exactly how long it is, ASCII when it reads ``solid … facet … endsolid``."""
    if len(data) >= 84 and 84 + 50 * int.from_bytes(data[80:84], "little") == len(data):
        return Sniffed("model3d", "model/stl", "stl")
    if (data[:5].lower() == b"solid" and data[5:6] in (b" ", b"\t", b"\r", b"\n") and b"facet normal" in data[:4096]
            and b"endsolid" in data[-512:]):
        return Sniffed("model3d", "model/stl", "stl")
    return None


# The statements of Wavefront OBJ (geometry, grouping, materials, free-form curves and surfaces, display).
OBJ_KEYWORDS = frozenset(
    b"v vt vn vp f l p o g s mg mtllib usemtl usemap maplib cstype deg bmat step curv curv2 surf parm trim hole scrv "
    b"sp end con bevel c_interp d_interp lod shadow_obj trace_obj ctech stech".split()
)
# How much of a file the OBJ test reads: enough lines to tell a mesh from other text.
OBJ_SNIFF_BYTES = 64 * 1024


def _sniff_obj(data: bytes) -> Sniffed | None:
    """A Wavefront OBJ mesh, which has no magic bytes: text whose every statement (in its first 64 KiB) is an OBJ
    keyword or a ``#`` comment, with at least one vertex and one face."""
    head = data[:OBJ_SNIFF_BYTES]
    lines = head.split(b"\n")
    if len(data) > OBJ_SNIFF_BYTES:
        lines = lines[:-1]  # the last line may be cut
    seen = set()
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith(b"#"):
            continue
        keyword = stripped.split(None, 1)[0]
        if keyword not in OBJ_KEYWORDS:
            return None
        seen.add(keyword)
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not just a character cut at the end of the head
            return None
    return Sniffed("model3d", "model/obj", "obj") if {b"v", b"f"} <= seen else None


def _sniff_image(data: bytes, label: str) -> Sniffed:
    max_pixels = settings.CONCORD_MAX_IMAGE_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                fmt = image.format
                if width * height > max_pixels:
                    raise MediaError(
                        f"{label}: {width}×{height} pixels exceeds the limit of {max_pixels:,}",
                        code="media_too_large",
                    )
                image.verify()
    except MediaError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise MediaError(f"{label}: refused as a possible decompression bomb ({exc})", code="media_too_large") from exc
    except UnidentifiedImageError as exc:
        raise MediaError(f"{label}: not a recognised image, video, audio or 3D file", code="media_unknown_type") from exc
    except Exception as exc:  # Pillow raises many types for truncated or corrupt files
        raise MediaError(f"{label}: the image is corrupt ({exc})", code="media_corrupt") from exc
    if fmt not in IMAGE_FORMATS:
        raise MediaError(f"{label}: image format {fmt} is not accepted", code="media_unknown_type")
    mime, ext = IMAGE_FORMATS[fmt]
    return Sniffed("image", mime, ext, width, height)


def storage_name(digest: str, extension: str) -> str:
    """Where a file lives in storage: derived from its digest only, never from its origin."""
    return f"media/{digest[:2]}/{digest}.{extension}"


def storage_put(name: str, content: File) -> None:
    """Save ``content`` under ``name``, a content-derived name: when the name is taken (a concurrent writer,
    an earlier attempt) the storage saves under another name, and that copy is deleted, keeping one."""
    saved = default_storage.save(name, content)
    if saved != name:
        default_storage.delete(saved)


def media_store(*, data: bytes, name: str = "") -> Media:
    """The Media for ``data``, stored once; a second call with the same bytes returns the same row."""
    limit = settings.CONCORD_MAX_MEDIA_BYTES
    if len(data) > limit:
        raise MediaError(f"{name or 'media'}: {len(data):,} bytes exceeds the limit of {limit:,}", code="media_too_large")
    digest = hashlib.sha256(data).hexdigest()
    existing = Media.objects.filter(sha256=digest).first()
    if existing is not None:
        return existing
    found = sniff(data, name=name)
    path = storage_name(digest, found.extension)
    if not default_storage.exists(path):
        storage_put(path, ContentFile(data))
    try:
        with transaction.atomic():
            return Media.objects.create(
                sha256=digest,
                kind=found.kind,
                mime_type=found.mime_type,
                size=len(data),
                width=found.width,
                height=found.height,
                file=path,
            )
    except IntegrityError:
        return Media.objects.get(sha256=digest)


def media_store_path(*, root: Path, relative: str) -> Media:
    """Store the file at ``relative`` under ``root``; refuse anything that would leave ``root``."""
    resolved = resolve_under(root=root, relative=relative)
    return media_store(data=resolved.read_bytes(), name=relative)


def resolve_under(*, root: Path, relative: str) -> Path:
    """The real path of ``relative`` inside ``root``; MediaError for absolute, escaping, overlong, unreadable or
    missing paths (never OSError: an import reports it as the row's error)."""
    if not relative or "\x00" in relative:
        raise MediaError("empty or invalid media path", code="media_bad_path")
    shown = shortened(relative, SHOWN_PATH_CHARS)
    if len(relative) > MAX_MEDIA_PATH_CHARS:
        raise MediaError(f"{shown}: the media path is {len(relative):,} characters; "
                         f"the limit is {MAX_MEDIA_PATH_CHARS:,}", code="media_bad_path")
    candidate = PurePosixPath(relative.replace("\\", "/"))
    if candidate.is_absolute() or relative.startswith(("/", "\\")) or (len(relative) > 1 and relative[1] == ":"):
        raise MediaError(f"{shown}: absolute paths are not allowed", code="media_bad_path")
    if ".." in candidate.parts:
        raise MediaError(f"{shown}: paths may not contain '..'", code="media_bad_path")
    for name in candidate.parts:
        size = len(name.encode("utf-8", "surrogatepass"))
        if size > MAX_MEDIA_NAME_BYTES:
            raise MediaError(f"{shown}: a folder or file name in the path is {size:,} bytes; the limit is "
                             f"{MAX_MEDIA_NAME_BYTES}", code="media_bad_path")
    try:
        root = root.resolve()
        path = root.joinpath(*candidate.parts)
        real = path.resolve()
        if path.is_symlink() or (real != root and root not in real.parents):
            raise MediaError(f"{shown}: the path leaves the media root (symlink)", code="media_bad_path")
        if not real.is_file():
            raise MediaError(f"{shown}: file not found under the media root", code="media_missing")
    except RuntimeError as exc:  # what Python 3.11's resolve() raises for a loop of links
        raise MediaError(f"{shown}: the path is a loop of symbolic links", code="media_bad_path") from exc
    except OSError as exc:  # a path too long once joined to the root, a folder that cannot be read, ...
        raise MediaError(f"{shown}: the path cannot be followed ({exc.strerror or type(exc).__name__})",
                         code="media_bad_path") from exc
    return real
