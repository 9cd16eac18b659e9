"""Video, audio and 3D files with their metadata neutralised in place, for annotators. Plain Python, no Django.

Images are re-encoded from their pixels (``annotation.catalogue.renditions``); these containers cannot be re-encoded here
(no ffmpeg), so every element that can carry a name (tags, comments, encoder and writing-application fields,
handler names, C2PA ``uuid`` boxes, glTF ``asset.generator``, ``extras`` and names) is overwritten where it
lies: turned into padding its container defines (RIFF ``JUNK``, FLAC ``PADDING``, ISO-BMFF ``free``, EBML
``Void``) or its text into spaces. Nothing moves, so sample tables, cue points and chunk offsets stay valid.
A file whose structure cannot be walked raises SanitizeError: it is not served rather than served as it is.
"""

from __future__ import annotations

import bisect
import json
import struct


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


def _strip_names(value):
    if isinstance(value, dict):
        return {k: _strip_names(v) for k, v in value.items() if k not in ("extras", "name", "generator", "copyright")}
    if isinstance(value, list):
        return [_strip_names(v) for v in value]
    return value


def _glb(data: bytes) -> bytes:
    if data[:4] != b"glTF":
        raise SanitizeError("not a binary glTF file")
    size, kind = struct.unpack("<I4s", data[12:20])
    if kind != b"JSON":
        raise SanitizeError("the first glTF chunk is not JSON")
    document = _strip_names(json.loads(data[20:20 + size]))
    text = json.dumps(document, separators=(",", ":")).encode()
    return data[:20] + text + b" " * (size - len(text)) + data[20 + size:]


def _ply(data: bytes) -> bytes:
    end = data.find(b"end_header")
    if not data.startswith(b"ply") or end < 0:
        raise SanitizeError("not a PLY file")
    lines = data[:end].split(b"\n")
    kept = [line[:len(word)] + b" " * (len(line) - len(word)) if (word := _ply_word(line)) else line for line in lines]
    return b"\n".join(kept) + data[end:]


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
}
