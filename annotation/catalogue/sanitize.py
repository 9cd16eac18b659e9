"""Video, audio and 3D files with their metadata neutralised in place, for annotators. Plain Python, no Django.

Images are re-encoded from their pixels (``annotation.catalogue.renditions``); these containers cannot be re-encoded here
(no ffmpeg), so every element that can carry a name (tags, comments, encoder and writing-application fields,
handler names, C2PA ``uuid`` boxes, glTF ``asset.generator``, ``extras``, names and XMP, the text and EXIF of a
GLB's textures) is overwritten where it lies: turned into padding its container defines (RIFF ``JUNK``, FLAC
``PADDING``, ISO-BMFF ``free``, EBML ``Void``, an unknown PNG chunk) or its text into spaces. Nothing moves, so
sample tables, cue points and chunk offsets stay valid.
A file whose structure cannot be walked raises SanitizeError: it is not served rather than served as it is.
"""

from __future__ import annotations

import base64
import bisect
import json
import struct
import zlib

# Raised when a cleaner removes more than before: clean files stored under an older version are made again
# (``services.renditions.rendition_name``). 2: a GLB's XMP and its textures' metadata; STL.
VERSION = 2


class SanitizeError(ValueError):
    """A file whose structure cannot be walked; the message says where."""


def clean(data: bytes, mime_type: str) -> bytes:
    """``data`` with every metadata element neutralised; the same length except for MP3 (tags cut off)."""
    cleaner = CLEANERS.get(mime_type)
    if cleaner is None:
        raise SanitizeError(f"no metadata cleaner for {mime_type}")
    try:
        return cleaner(data)
    except (struct.error, IndexError, ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, SanitizeError):
            raise
        raise SanitizeError(f"the {mime_type} file cannot be walked ({exc})") from exc


def _wav(data: bytes) -> bytes:
    out = bytearray(data)
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise SanitizeError("not a RIFF/WAVE file")
    at = 12
    while at + 8 <= len(data):
        kind, size = data[at:at + 4], struct.unpack("<I", data[at + 4:at + 8])[0]
        if kind not in (b"fmt ", b"data", b"fact"):
            out[at:at + 4] = b"JUNK"
            out[at + 8:at + 8 + size] = bytes(min(size, len(data) - at - 8))
        at += 8 + size + (size & 1)
    return bytes(out)


def _mp3(data: bytes) -> bytes:
    start, end = 0, len(data)
    while data[start:start + 3] == b"ID3":  # ID3v2, possibly more than one
        size = 0
        for byte in data[start + 6:start + 10]:
            size = (size << 7) | (byte & 0x7F)
        start += 10 + size + (10 if data[start + 5] & 0x10 else 0)
    if end - start >= 128 and data[end - 128:end - 125] == b"TAG":
        end -= 128
    if end - start >= 32 and data[end - 32:end - 24] == b"APETAGEX":
        end -= struct.unpack("<I", data[end - 20:end - 16])[0] + (32 if data[end - 9] & 0x80 else 0)
    if start >= end:
        raise SanitizeError("no audio frames after the tags")
    return data[start:end]


def _flac(data: bytes) -> bytes:
    out = bytearray(data)
    if data[:4] != b"fLaC":
        raise SanitizeError("not a FLAC file")
    at, last = 4, False
    while not last:
        header = data[at]
        last, kind = bool(header & 0x80), header & 0x7F
        size = int.from_bytes(data[at + 1:at + 4], "big")
        if kind not in (0, 1, 3):  # STREAMINFO, PADDING, SEEKTABLE stay; comments, pictures, cue sheets go
            out[at] = (header & 0x80) | 1
            out[at + 4:at + 4 + size] = bytes(size)
        at += 4 + size
    return bytes(out)


_BMFF_CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"edts", b"dinf", b"stbl", b"mvex", b"moof", b"traf"}
_BMFF_NAMED = {b"udta", b"meta", b"uuid", b"ilst", b"XMP_", b"iprp"}


def _bmff(data: bytes) -> bytes:
    out = bytearray(data)
    _bmff_walk(data, out, 0, len(data), depth=0)
    return bytes(out)


def _bmff_walk(data: bytes, out: bytearray, at: int, end: int, *, depth: int) -> None:
    if depth > 8:
        raise SanitizeError("boxes nested too deep")
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", data[at + 8:at + 16])[0], 16
        elif size == 0:
            size = end - at
        if size < header or at + size > end:
            raise SanitizeError(f"box {kind!r} at {at} runs past its container")
        if kind in _BMFF_NAMED:
            out[at + 4:at + 8] = b"free"
            out[at + header:at + size] = bytes(size - header)
        elif kind == b"hdlr" and size > header + 24:
            out[at + header + 24:at + size] = bytes(size - header - 24)  # the handler's name
        elif kind in _BMFF_CONTAINERS:
            _bmff_walk(data, out, at + header, at + size, depth=depth + 1)
        at += size


_EBML_SEGMENT, _EBML_INFO, _EBML_TRACKS, _EBML_TRACK = 0x18538067, 0x1549A966, 0x1654AE6B, 0xAE
_EBML_VOID_WHOLE = {0x1254C367, 0x1941A469}  # Tags, Attachments
_EBML_TEXT = {0x7BA9, 0x4D80, 0x5741, 0x536E}  # Title, MuxingApp, WritingApp, a track's Name
_EBML_INTO = {_EBML_SEGMENT, _EBML_INFO, _EBML_TRACKS, _EBML_TRACK}


def _vint(data: bytes, at: int, *, keep_marker: bool) -> tuple[int, int]:
    first = data[at]
    length = 1
    while length <= 8 and not first & (0x80 >> (length - 1)):
        length += 1
    if length > 8:
        raise SanitizeError(f"bad EBML number at {at}")
    value = first if keep_marker else first & (0xFF >> length)
    for byte in data[at + 1:at + length]:
        value = (value << 8) | byte
    return value, length


def _webm(data: bytes) -> bytes:
    out = bytearray(data)
    if data[:4] != b"\x1a\x45\xdf\xa3":
        raise SanitizeError("not an EBML file")
    _ebml_walk(data, out, 0, len(data), depth=0)
    return bytes(out)


def _ebml_walk(data: bytes, out: bytearray, at: int, end: int, *, depth: int) -> None:
    if depth > 6:
        raise SanitizeError("elements nested too deep")
    while at < end:
        element, id_length = _vint(data, at, keep_marker=True)
        size, size_length = _vint(data, at + id_length, keep_marker=False)
        body = at + id_length + size_length
        unknown = size == (1 << (7 * size_length)) - 1
        stop = end if unknown else body + size
        if stop > end:
            raise SanitizeError(f"element {element:#x} at {at} runs past its container")
        if element in _EBML_VOID_WHOLE and not unknown:
            # A Void element over exactly the same bytes: its id (1 byte), then a size field as long as the rest needs.
            length = stop - at
            out[at] = 0xEC
            width = id_length + size_length - 1
            out[at + 1:at + 1 + width] = ((1 << (7 * width)) | (length - 1 - width)).to_bytes(width, "big")
            out[at + 1 + width:stop] = bytes(length - 1 - width)
        elif element in _EBML_TEXT and not unknown:
            out[body:stop] = b" " * (stop - body)
        elif element in _EBML_INTO:
            _ebml_walk(data, out, body, stop, depth=depth + 1)
        if unknown and element not in _EBML_INTO:
            return  # a live stream's cluster of unknown size: nothing after it can be found
        at = stop


# glTF extensions that carry nothing but metadata: dropped wherever they are used.
_GLTF_METADATA_EXTENSIONS = {"KHR_xmp_json_ld", "KHR_xmp"}


def _strip_names(value):
    if isinstance(value, dict):
        kept = {}
        for key, item in value.items():
            if key in ("extras", "name", "generator", "copyright"):
                continue
            if key == "extensions" and isinstance(item, dict):
                item = {k: v for k, v in item.items() if k not in _GLTF_METADATA_EXTENSIONS}
                if not item:
                    continue
            if key in ("extensionsUsed", "extensionsRequired") and isinstance(item, list):
                item = [name for name in item if name not in _GLTF_METADATA_EXTENSIONS]
                if not item:
                    continue
            kept[key] = _strip_names(item)
        return kept
    if isinstance(value, list):
        return [_strip_names(v) for v in value]
    return value


def _glb(data: bytes) -> bytes:
    """The JSON chunk without names, extras, generator, copyright or XMP; each embedded texture's metadata (PNG
    text chunks, JPEG APP segments and comments) neutralised where it lies in the BIN chunk."""
    if data[:4] != b"glTF":
        raise SanitizeError("not a binary glTF file")
    size, kind = struct.unpack("<I4s", data[12:20])
    if kind != b"JSON":
        raise SanitizeError("the first glTF chunk is not JSON")
    document = json.loads(data[20:20 + size])
    out = bytearray(data)
    binary = 20 + size + 8  # the BIN chunk's first byte, when there is one
    for buffer in document.get("buffers", []):
        if "uri" in buffer:
            raise SanitizeError("a buffer refers to a file outside the GLB")
    views = document.get("bufferViews", [])
    for number, image in enumerate(document.get("images", [])):
        if "uri" in image:
            image["uri"] = _data_uri_cleaned(image["uri"], number)
            continue
        view = views[image["bufferView"]]
        start = binary + view.get("byteOffset", 0)
        end = start + view["byteLength"]
        if view.get("buffer", 0) != 0 or end > len(data):
            raise SanitizeError(f"image {number}'s bytes lie outside the GLB's binary chunk")
        out[start:end] = _image_cleaned(bytes(data[start:end]), number)
    text = json.dumps(_strip_names(document), separators=(",", ":"), ensure_ascii=False).encode()
    if len(text) > size:
        raise SanitizeError("the cleaned glTF JSON does not fit its chunk")
    return bytes(out[:20]) + text + b" " * (size - len(text)) + bytes(out[20 + size:])


def _data_uri_cleaned(uri: str, number: int) -> str:
    head, comma, payload = uri.partition(",")
    if not uri.startswith("data:") or not comma or not head.endswith(";base64"):
        raise SanitizeError(f"image {number} refers to a file outside the GLB")
    cleaned = _image_cleaned(base64.b64decode(payload, validate=True), number)
    return f"{head},{base64.b64encode(cleaned).decode()}"


# PNG chunks that say how to draw the pixels; every other ancillary chunk (text, EXIF, time, ICC profile and its
# name, private chunks) becomes an unknown private ancillary chunk of zeros, which every decoder skips.
_PNG_KEPT = {b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"bKGD", b"pHYs", b"sBIT",
             b"acTL", b"fcTL", b"fdAT", b"cICP"}
_PNG_SKIPPED = b"jxNk"


def _image_cleaned(image: bytes, number: int) -> bytes:
    """An embedded PNG or JPEG texture with its metadata neutralised in place, its pixels untouched."""
    out = bytearray(image)
    if image[:8] == b"\x89PNG\r\n\x1a\n":
        at = 8
        while at + 12 <= len(image):
            length, kind = struct.unpack(">I4s", image[at:at + 8])
            if at + 12 + length > len(image):
                raise SanitizeError(f"image {number}: PNG chunk {kind!r} runs past the image")
            if kind not in _PNG_KEPT:
                out[at + 4:at + 8] = _PNG_SKIPPED
                out[at + 8:at + 8 + length] = bytes(length)
                out[at + 8 + length:at + 12 + length] = struct.pack(">I", zlib.crc32(_PNG_SKIPPED + bytes(length)))
            at += 12 + length
        return bytes(out)
    if image[:2] == b"\xff\xd8":
        at = 2
        while at + 4 <= len(image):
            if image[at] != 0xFF:
                raise SanitizeError(f"image {number}: no JPEG marker at {at}")
            marker = image[at + 1]
            if marker == 0xFF:  # fill byte
                at += 1
                continue
            if marker == 0xDA or marker == 0xD9:  # the scan: no metadata segment comes after it
                break
            length = struct.unpack(">H", image[at + 2:at + 4])[0]
            body = image[at + 4:at + 2 + length]
            # APP1–APP15 (EXIF, XMP, ICC, IPTC, …) and comments; APP0 (JFIF) and Adobe's APP14 say how to decode.
            if (0xE1 <= marker <= 0xEF or marker == 0xFE) and not (marker == 0xEE and body.startswith(b"Adobe")):
                out[at + 4:at + 2 + length] = bytes(length - 2)
            at += 2 + length
        return bytes(out)
    raise SanitizeError(f"image {number} is neither PNG nor JPEG")


def _ply(data: bytes) -> bytes:
    end = data.find(b"end_header")
    if not data.startswith(b"ply") or end < 0:
        raise SanitizeError("not a PLY file")
    lines = data[:end].split(b"\n")
    kept = [line[:len(word)] + b" " * (len(line) - len(word)) if (word := _ply_word(line)) else line for line in lines]
    return b"\n".join(kept) + data[end:]


def _stl(data: bytes) -> bytes:
    """A binary STL's 80-byte header (free text: exporters name themselves there) becomes zeros; an ASCII STL's
    ``solid NAME`` and ``endsolid NAME`` keep their keyword, the name becomes spaces."""
    if len(data) >= 84 and 84 + 50 * struct.unpack("<I", data[80:84])[0] == len(data):
        return bytes(80) + data[80:]
    if data[:5].lower() != b"solid":
        raise SanitizeError("not an STL file")
    lines = data.split(b"\n")
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        for word in (b"solid", b"endsolid"):
            if stripped[:len(word)].lower() == word and stripped[len(word):len(word) + 1] in (b" ", b"\t"):
                start = len(line) - len(stripped) + len(word)
                end = len(line) - 1 if line.endswith(b"\r") else len(line)
                lines[i] = line[:start] + b" " * (end - start) + line[end:]
    return b"\n".join(lines)


# OBJ statements whose argument is free text a reader never needs to draw the mesh: object, group and material
# names, material and texture libraries (outside files the viewer never fetches), and ray-tracing object files.
_OBJ_NAMING = (b"o", b"g", b"mtllib", b"usemtl", b"usemap", b"maplib", b"shadow_obj", b"trace_obj")


def _obj(data: bytes) -> bytes:
    """A Wavefront OBJ's comments and names become spaces (``#`` and each keyword stay, so every line keeps its
    length and meaning): the vertices and faces are all a viewer reads."""
    lines = data.split(b"\n")
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        end = len(line) - 1 if line.endswith(b"\r") else len(line)
        if stripped.startswith(b"#"):
            start = indent + 1
        elif (keyword := stripped.split(None, 1)[0] if stripped.strip() else b"") in _OBJ_NAMING:
            start = indent + len(keyword)
        else:
            continue
        lines[i] = line[:start] + b" " * max(0, end - start) + line[end:]
    return b"\n".join(lines)


def _ply_word(line: bytes) -> bytes:
    for word in (b"comment", b"obj_info"):
        if line.startswith(word):
            return word
    return b""


def _ogg_crc_table() -> list[int]:
    table = []
    for i in range(256):
        crc = i << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else crc << 1
        table.append(crc & 0xFFFFFFFF)
    return table


_OGG_CRC = _ogg_crc_table()


def _ogg_crc(page: bytes) -> int:
    crc = 0
    for byte in page:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ _OGG_CRC[(crc >> 24) ^ byte]
    return crc


def _ogg(data: bytes) -> bytes:
    """Vorbis and Opus comment headers: the vendor string becomes spaces, each comment ``X=`` and spaces (the
    lengths, and so every page, keep their size); the pages touched get their checksum again."""
    out = bytearray(data)
    pages: list[tuple[int, int]] = []  # (start, length) of every page
    packets: dict[int, list[list[int]]] = {}  # stream serial → packets, each the file offsets of its bytes
    at = 0
    while at < len(data):
        if data[at:at + 4] != b"OggS":
            raise SanitizeError(f"no Ogg page at {at}")
        flags, serial, count = data[at + 5], struct.unpack("<I", data[at + 14:at + 18])[0], data[at + 26]
        lacing = data[at + 27:at + 27 + count]
        body = at + 27 + count
        stream = packets.setdefault(serial, [])
        if not stream or (not flags & 1 and stream[-1] is not None):
            stream.append([])
        for segment in lacing:
            if stream[-1] is None:
                stream.append([])
            stream[-1].extend(range(body, body + segment))
            body += segment
            if segment < 255:
                stream.append(None)
        if stream[-1] is None:
            stream.pop()
        pages.append((at, body - at))
        at = body
    touched = set()
    for stream in packets.values():
        for offsets in stream[1:3]:
            packet = bytes(data[i] for i in offsets)
            start = 7 if packet.startswith(b"\x03vorbis") else 8 if packet.startswith(b"OpusTags") else None
            if start is None:
                continue
            for position, byte in _ogg_comment_bytes(packet, start).items():
                out[offsets[position]] = byte
                touched.add(offsets[position])
    starts = [start for start, _ in pages]
    for index in {bisect.bisect_right(starts, i) - 1 for i in touched}:
        start, length = pages[index]
        out[start + 22:start + 26] = bytes(4)
        out[start + 22:start + 26] = struct.pack("<I", _ogg_crc(bytes(out[start:start + length])))
    return bytes(out)


def _ogg_comment_bytes(packet: bytes, at: int) -> dict[int, int]:
    """The bytes to overwrite in a comment header, by position: vendor and comments kept as long, nameless."""
    changes = {}
    vendor = struct.unpack("<I", packet[at:at + 4])[0]
    changes.update({i: 0x20 for i in range(at + 4, at + 4 + vendor)})
    at += 4 + vendor
    count = struct.unpack("<I", packet[at:at + 4])[0]
    at += 4
    for _ in range(count):
        length = struct.unpack("<I", packet[at:at + 4])[0]
        text = b"X=" + b" " * (length - 2) if length >= 2 else packet[at + 4:at + 4 + length]
        changes.update({at + 4 + i: byte for i, byte in enumerate(text)})
        at += 4 + length
    if at > len(packet):
        raise SanitizeError("the comment header is shorter than its lengths say")
    return changes


CLEANERS = {
    "audio/wav": _wav,
    "audio/mpeg": _mp3,
    "audio/flac": _flac,
    "audio/ogg": _ogg,
    "audio/mp4": _bmff,
    "video/mp4": _bmff,
    "video/webm": _webm,
    "model/gltf-binary": _glb,
    "model/ply": _ply,
    "model/stl": _stl,
    "model/obj": _obj,
}
