"""What an annotator's browser receives instead of an imported image: pixels only, never the file's metadata.

Generated images routinely carry their maker in metadata (PNG text chunks with the generation parameters,
EXIF Software/Make/Artist, XMP, IPTC, ICC profile descriptions, C2PA/JUMBF manifests). A rendition is
decoded to pixels and encoded afresh from them, so nothing of the original container survives:

- ``full``: the whole image at its own size for 1:1 inspection; a JPEG stays a JPEG with its own
  quantization tables (``quality="keep"``), anything else becomes a PNG (exact pixels);
- ``w<width>``: a WebP or JPEG scaled to ``width`` for the screen (never larger than the image).

EXIF orientation is applied before it is dropped, and an embedded colour profile is converted to sRGB,
so a rendition looks as the original does in a browser. Plain Python and Pillow; no Django.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

from PIL import Image, ImageCms, ImageOps

# Bump when the encoding changes: cached renditions are stored under it, so old ones are never served.
VERSION = 1
WIDTHS = (640, 1280, 1920)
SIZED_FORMATS = {"webp": ("WEBP", "image/webp"), "jpg": ("JPEG", "image/jpeg")}
TYPES = {"jpg": "image/jpeg", "png": "image/png", "webp": "image/webp"}
WEBP_QUALITY = 82
JPEG_QUALITY = 85
_SRGB = None


class RenditionError(ValueError):
    """An image that cannot be decoded to pixels; the message says what failed."""


@dataclass(frozen=True)
class Rendition:
    data: bytes
    mime_type: str
    extension: str


def full_extension(mime_type: str) -> str:
    """The extension of an image's ``full`` rendition, known from the original's type alone."""
    return "jpg" if mime_type == "image/jpeg" else "png"


def widths_for(width: int | None) -> list[int]:
    """The sized renditions offered for an image ``width`` pixels wide: only those smaller than the image."""
    return [w for w in WIDTHS if width and w < width]


@dataclass(frozen=True)
class Decoded:
    """An image's pixels, upright and in sRGB, with nothing of its container; decoded once for all its renditions."""

    image: Image.Image
    was_jpeg: bool


def decode(data: bytes, *, max_pixels: int) -> Decoded:
    """The pixels of ``data``; RenditionError when they cannot be decoded or are too many."""
    return Decoded(*_pixels(data, max_pixels=max_pixels))


def render(decoded: Decoded, *, variant: str, extension: str) -> Rendition:
    """The rendition ``variant`` ("full", or "w<width>" as ``extension``) of decoded pixels."""
    if variant == "full":
        return _full(decoded)
    return _sized(decoded, width=int(variant[1:]), extension=extension)


def full(data: bytes, *, max_pixels: int) -> Rendition:
    """The image at its own size, re-encoded from its pixels with no metadata."""
    return _full(decode(data, max_pixels=max_pixels))


def sized(data: bytes, *, width: int, extension: str, max_pixels: int) -> Rendition:
    """The image scaled to ``width`` pixels wide (never up), as WebP (``webp``) or JPEG (``jpg``)."""
    return _sized(decode(data, max_pixels=max_pixels), width=width, extension=extension)


def _full(decoded: Decoded) -> Rendition:
    image, out = decoded.image, io.BytesIO()
    if decoded.was_jpeg:
        try:
            image.save(out, "JPEG", quality="keep", optimize=True)
        except (ValueError, OSError):  # "keep" needs the source's tables; a transposed copy has none
            out = io.BytesIO()
            image.save(out, "JPEG", quality=95, optimize=True)
        return Rendition(out.getvalue(), "image/jpeg", "jpg")
    # zlib level 1: a 2048² photo-like PNG in a fifth of level 6's time for 11% more bytes (bench/renditions_bench.py).
    image.save(out, "PNG", optimize=False, compress_level=1)
    return Rendition(out.getvalue(), "image/png", "png")


def _sized(decoded: Decoded, *, width: int, extension: str) -> Rendition:
    if extension not in SIZED_FORMATS:
        raise RenditionError(f"no sized rendition as .{extension}; expected one of {', '.join(SIZED_FORMATS)}")
    fmt, mime = SIZED_FORMATS[extension]
    image = decoded.image
    if width < image.width:
        image = image.resize((width, max(1, round(image.height * width / image.width))), Image.Resampling.LANCZOS)
    has_alpha = image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info)
    if fmt == "JPEG" or not has_alpha:
        image = _flattened(image) if has_alpha else image.convert("RGB")
    else:
        image = image.convert("RGBA")
    out = io.BytesIO()
    if fmt == "WEBP":
        image.save(out, "WEBP", quality=WEBP_QUALITY, method=4)
    else:
        image.save(out, "JPEG", quality=JPEG_QUALITY, optimize=True, progressive=True)
    return Rendition(out.getvalue(), mime, extension)


def _flattened(image: Image.Image) -> Image.Image:
    rgba = image.convert("RGBA")
    background = Image.new("RGB", rgba.size, (255, 255, 255))
    background.paste(rgba, mask=rgba.getchannel("A"))
    return background


def _pixels(data: bytes, *, max_pixels: int) -> tuple[Image.Image, bool]:
    """The decoded first frame, upright, in sRGB, with an empty ``info`` (only transparency kept); and whether
    the source was a JPEG."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            source = Image.open(io.BytesIO(data))
            if source.width * source.height > max_pixels:
                raise RenditionError(f"{source.width}×{source.height} pixels exceeds the limit of {max_pixels:,}")
            source.load()
            was_jpeg = source.format == "JPEG"
            profile = source.info.get("icc_profile")
            image = ImageOps.exif_transpose(source) or source
            if profile:
                image = _to_srgb(image, profile)
            transparency = image.info.get("transparency")
            if image is not source or not was_jpeg:
                # A copy owns its pixels and palette but none of the container: every chunk and segment is gone.
                image = image.copy()
    except RenditionError:
        raise
    except Exception as exc:  # Pillow raises many types for truncated or corrupt pixel data
        raise RenditionError(f"the image cannot be decoded ({exc})") from exc
    # An untouched JPEG is saved from itself, for its quantization tables: its writer takes EXIF, ICC and XMP only
    # when given them, and the comment from ``info``, emptied here.
    image.info.clear()
    if transparency is not None and image.mode in ("P", "L", "RGB"):
        image.info["transparency"] = transparency
    if image.mode not in ("1", "L", "LA", "P", "RGB", "RGBA", "I;16"):
        image = image.convert("RGBA" if "A" in image.getbands() else "RGB")
    if was_jpeg and image.mode not in ("L", "RGB"):
        image = image.convert("RGB")
    return image, was_jpeg


def _to_srgb(image: Image.Image, profile: bytes) -> Image.Image:
    """``image`` converted from its embedded profile to sRGB; unchanged when the profile cannot be read."""
    global _SRGB
    if image.mode not in ("RGB", "RGBA", "CMYK", "L"):
        return image
    try:
        source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
        if _SRGB is None:
            _SRGB = ImageCms.createProfile("sRGB")
        out_mode = "RGBA" if image.mode == "RGBA" else "RGB"
        return ImageCms.profileToProfile(image, source, _SRGB, outputMode=out_mode)
    except (ImageCms.PyCMSError, OSError, ValueError):
        return image
