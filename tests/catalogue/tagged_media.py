"""Video, audio and 3D files whose metadata names the model that made them (see tagged_images for images)."""

from __future__ import annotations

import io
import json
import struct
import wave

from annotation.catalogue.sanitize import _ogg_crc
from tests.catalogue.tagged_images import MODEL

NAME = MODEL.encode()


def tagged_wav() -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"".join(struct.pack("<h", (i * 37) % 2000) for i in range(800)))
    data = out.getvalue()
    info = b"INFO" + b"ISFT" + struct.pack("<I", len(NAME)) + NAME
    listed = b"LIST" + struct.pack("<I", len(info)) + info
    body = data[12:] + listed
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WAVE" + body


def _syncsafe(n: int) -> bytes:
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])


def tagged_mp3() -> bytes:
    frame = b"TSSE" + struct.pack(">I", len(NAME) + 1) + b"\x00\x00\x00" + NAME
    id3 = b"ID3\x04\x00\x00" + _syncsafe(len(frame)) + frame
    audio = (b"\xff\xfb\x90\x64" + bytes(413)) * 3
    v1 = b"TAG" + NAME.ljust(125, b"\x00")
    return id3 + audio + v1


def tagged_flac() -> bytes:
    streaminfo = bytes([0x00]) + (34).to_bytes(3, "big") + bytes(10) + b"\x0a\xc4\x40\xf0" + bytes(20)
    vendor = b"reference " + NAME
    comment = b"ENCODER=" + NAME
    vorbis = struct.pack("<I", len(vendor)) + vendor + struct.pack("<I", 1) + struct.pack("<I", len(comment)) + comment
    block = bytes([0x84]) + len(vorbis).to_bytes(3, "big") + vorbis
    return b"fLaC" + streaminfo + block + b"\xff\xf8" + bytes(30)


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def tagged_mp4() -> bytes:
    ftyp = _box(b"ftyp", b"isom\x00\x00\x02\x00isomiso2mp41")
    hdlr = _box(b"hdlr", bytes(8) + b"vide" + bytes(12) + NAME + b"\x00")
    trak = _box(b"trak", _box(b"mdia", hdlr) + _box(b"udta", _box(b"\xa9nam", NAME)))
    moov = _box(b"moov", _box(b"mvhd", bytes(100)) + trak + _box(b"udta", _box(b"meta", bytes(4) + _box(b"ilst", NAME))))
    c2pa = _box(b"uuid", bytes(16) + b"jumb c2pa claim_generator=" + NAME)
    return ftyp + moov + c2pa + _box(b"mdat", bytes(64))


def _ebml(element_id: int, payload: bytes) -> bytes:
    identifier = element_id.to_bytes((element_id.bit_length() + 7) // 8, "big")
    return identifier + (0x10000000 | len(payload)).to_bytes(4, "big") + payload


def tagged_webm() -> bytes:
    header = _ebml(0x1A45DFA3, _ebml(0x4282, b"webm"))
    info = _ebml(0x1549A966, _ebml(0x2AD7B1, b"\x0f\x42\x40") + _ebml(0x7BA9, NAME) + _ebml(0x4D80, b"Lavf " + NAME)
                 + _ebml(0x5741, NAME))
    tracks = _ebml(0x1654AE6B, _ebml(0xAE, _ebml(0xD7, b"\x01") + _ebml(0x536E, NAME)))
    tags = _ebml(0x1254C367, _ebml(0x7373, _ebml(0x67C8, _ebml(0x45A3, b"ENCODER") + _ebml(0x4487, NAME))))
    cluster = _ebml(0x1F43B675, _ebml(0xE7, b"\x00") + _ebml(0xA3, bytes(40)))
    segment = b"\x18\x53\x80\x67" + b"\x01\xff\xff\xff\xff\xff\xff\xff" + info + tracks + tags + cluster
    return header + segment


def tagged_glb() -> bytes:
    document = {"asset": {"version": "2.0", "generator": MODEL, "copyright": MODEL}, "scene": 0,
                "scenes": [{"nodes": [0], "name": MODEL}], "nodes": [{"mesh": 0, "name": f"{MODEL}-mesh",
                                                                      "extras": {"by": MODEL}}],
                "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}]}
    text = json.dumps(document).encode()
    text += b" " * (-len(text) % 4)
    binary = bytes(36)
    body = struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(binary), b"BIN\x00") + binary
    return b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body


def tagged_ply() -> bytes:
    return (b"ply\nformat ascii 1.0\ncomment made by " + NAME + b"\nobj_info " + NAME
            + b"\nelement vertex 1\nproperty float x\nend_header\n0.5\n")


def tagged_obj() -> bytes:
    """A Wavefront OBJ triangle whose comment, object, group, material library and material name the model."""
    return (b"# exported by " + NAME + b"\r\nmtllib " + NAME + b".mtl\no " + NAME + b"\ng " + NAME + b" part\n"
            + b"v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl " + NAME + b"-paint\n  # indented, " + NAME + b"\nf 1 2 3\n")


def _ogg_page(serial: int, sequence: int, packet: bytes, flags: int) -> bytes:
    lacing = bytes([255] * (len(packet) // 255) + [len(packet) % 255])
    header = b"OggS\x00" + bytes([flags]) + bytes(8) + struct.pack("<III", serial, sequence, 0) + bytes([len(lacing)])
    page = bytearray(header + lacing + packet)
    page[22:26] = struct.pack("<I", _ogg_crc(bytes(page)))
    return bytes(page)


def tagged_ogg() -> bytes:
    ident = b"OpusHead\x01\x01\x38\x01\x80\xbb\x00\x00\x00\x00\x00"
    vendor = b"libopus via " + NAME
    comment = b"ENCODER=" + NAME
    tags = b"OpusTags" + struct.pack("<I", len(vendor)) + vendor + struct.pack("<II", 1, len(comment)) + comment
    return (_ogg_page(7, 0, ident, 2) + _ogg_page(7, 1, tags, 0) + _ogg_page(7, 2, b"\xfc" + bytes(60), 4))


def _stl_facets() -> list[tuple]:
    """Two triangles of a unit square, each (normal, three corners)."""
    return [((0, 0, 1), (0, 0, 0), (1, 0, 0), (1, 1, 0)), ((0, 0, 1), (0, 0, 0), (1, 1, 0), (0, 1, 0))]


def tagged_stl() -> bytes:
    """A binary STL whose 80-byte header, free text, names the model (exporters write themselves there)."""
    header = (b"solid exported by " + NAME).ljust(80, b" ")
    body = b"".join(struct.pack("<12fH", *(c for v in facet for c in v), 0) for facet in _stl_facets())
    return header + struct.pack("<I", len(_stl_facets())) + body


def tagged_ascii_stl() -> bytes:
    facets = "".join(f"  facet normal {' '.join(map(str, n))}\n    outer loop\n"
                     + "".join(f"      vertex {' '.join(map(str, v))}\n" for v in corners)
                     + "    endloop\n  endfacet\n" for n, *corners in _stl_facets())
    return b"solid " + NAME + b"\r\n" + facets.encode() + b"endsolid " + NAME + b"\n"
