"""Images whose every metadata container names the model that made them, as generated images often do."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image, PngImagePlugin

MODEL = "secretgen-9000"


def _xmp(name: str) -> bytes:
    return (
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        f'<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreatorTool="{name}"/></rdf:RDF></x:xmpmeta>'
    ).encode()


def _exif(name: str) -> Image.Exif:
    exif = Image.Exif()
    exif[0x0131] = name  # Software
    exif[0x010F] = name  # Make
    exif[0x013B] = name  # Artist
    return exif


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def _gradient(size=(64, 48), mode="RGB") -> Image.Image:
    image = Image.new(mode, size)
    image.putdata([((x * 4) % 256, (y * 5) % 256, 90, 255)[: len(mode)] for y in range(size[1]) for x in range(size[0])])
    return image


def tagged_png(name: str = MODEL, size=(64, 48)) -> bytes:
    """A PNG naming ``name`` in tEXt, zTXt, iTXt (XMP), eXIf, a C2PA caBX (JUMBF) chunk, after the pixel data too."""
    info = PngImagePlugin.PngInfo()
    info.add_text("parameters", f"a red fox, Steps: 30, Model: {name}")
    info.add_text("Software", name, zip=True)
    info.add_itxt("XML:com.adobe.xmp", _xmp(name).decode())
    out = io.BytesIO()
    _gradient(size, "RGBA").save(out, "PNG", pnginfo=info, exif=_exif(name))
    data = out.getvalue()
    jumbf = _chunk(b"caBX", b"\x00\x00\x00\x20jumb\x00\x00\x00\x18jumdc2pa" + f"c2pa.claim generator={name}".encode())
    end = data.rindex(b"IEND") - 4
    return data[:end] + jumbf + _chunk(b"tEXt", b"Comment\x00made by " + name.encode()) + data[end:]


def tagged_jpeg(name: str = MODEL, size=(64, 48)) -> bytes:
    """A JPEG naming ``name`` in EXIF, XMP (APP1), IPTC (APP13), a C2PA JUMBF box (APP11) and a comment."""
    out = io.BytesIO()
    _gradient(size).save(out, "JPEG", quality=90, exif=_exif(name), comment=f"made by {name}".encode())
    data = out.getvalue()

    def segment(marker: int, payload: bytes) -> bytes:
        return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload

    extra = (
        segment(0xE1, b"http://ns.adobe.com/xap/1.0/\x00" + _xmp(name))
        + segment(0xED, b"Photoshop 3.0\x008BIM\x04\x04\x00\x00" + struct.pack(">I", len(name) + 5) + b"\x1c\x02\x50"
                  + struct.pack(">H", len(name)) + name.encode())
        + segment(0xEB, b"JP\x00\x00\x00\x00\x00\x01" + b"jumb" + f"c2pa {name}".encode())
    )
    return data[:2] + extra + data[2:]


def corrupt_png(size=(32, 32)) -> bytes:
    """A PNG whose chunks all carry valid CRCs (it passes Pillow's verify) but whose pixel data is not zlib."""
    out = io.BytesIO()
    _gradient(size).save(out, "PNG")
    data = out.getvalue()
    start = data.index(b"IDAT") - 4
    length = struct.unpack(">I", data[start:start + 4])[0]
    garbage = bytes((i * 37 + 11) % 256 for i in range(length))
    return data[:start] + _chunk(b"IDAT", garbage) + data[start + 12 + length:]
