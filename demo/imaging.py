"""Pillow edits the demo's models make: colour looks, styles, drawn objects, lettering and defects.

Every function takes an RGB image and returns a new one; randomness comes only from the
``random.Random`` passed in, so the same seed always gives the same pixels.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache

import numpy as np
from PIL import Image, ImageChops, ImageDraw, ImageEnhance, ImageFilter, ImageFont, ImageOps

COLOURS = {
    "red": (214, 40, 40),
    "yellow": (250, 204, 21),
    "blue": (37, 99, 235),
    "green": (22, 163, 74),
    "purple": (147, 51, 234),
    "orange": (249, 115, 22),
    "white": (245, 245, 245),
    "pink": (236, 72, 153),
}


@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's embedded scalable font, so lettering needs no system font."""
    return ImageFont.load_default(size=size)


# Colour looks ------------------------------------------------------------------------------------

def _channels(image: Image.Image, r: float, g: float, b: float) -> Image.Image:
    array = np.asarray(image, dtype=np.float32) * np.array([r, g, b], dtype=np.float32)
    return Image.fromarray(np.clip(array, 0, 255).astype(np.uint8))


def look(image: Image.Image, name: str, strength: float = 1.0) -> Image.Image:
    """A colour grade: warm, cool, noir, vintage, sunset, teal-orange or neutral; ``strength`` 0..1."""
    if name == "neutral":
        return image.copy()
    if name == "warm":
        graded = ImageEnhance.Color(_channels(image, 1.12, 1.0, 0.82)).enhance(1.15)
    elif name == "cool":
        graded = ImageEnhance.Brightness(_channels(image, 0.82, 0.95, 1.18)).enhance(0.92)
    elif name == "noir":
        graded = ImageEnhance.Contrast(ImageOps.grayscale(image).convert("RGB")).enhance(1.35)
    elif name == "vintage":
        sepia = ImageOps.colorize(ImageOps.grayscale(image), black=(40, 26, 13), white=(255, 236, 200))
        graded = ImageEnhance.Contrast(Image.blend(image, sepia, 0.7)).enhance(0.85)
    elif name == "sunset":
        array = np.asarray(image, dtype=np.float32)
        ramp = np.linspace(1.0, 0.0, image.height, dtype=np.float32)[:, None, None]
        tint = np.array([255, 120, 60], dtype=np.float32)
        graded = Image.fromarray(np.clip(array * (1 - 0.35 * ramp) + tint * 0.35 * ramp, 0, 255).astype(np.uint8))
    elif name == "teal-orange":
        gray = np.asarray(ImageOps.grayscale(image), dtype=np.float32)[..., None] / 255.0
        array = np.asarray(image, dtype=np.float32)
        shade = np.array([0, 110, 120], dtype=np.float32) * (1 - gray) + np.array([255, 160, 90], dtype=np.float32) * gray
        graded = Image.fromarray(np.clip(array * 0.7 + shade * 0.3, 0, 255).astype(np.uint8))
    else:
        raise ValueError(f"unknown look {name!r}")
    return Image.blend(image, graded, max(0.0, min(1.0, strength)))


LOOKS = ("warm", "cool", "noir", "vintage", "sunset", "teal-orange")

# Styles ------------------------------------------------------------------------------------------


def style(image: Image.Image, name: str) -> Image.Image:
    """A painterly rendition: photo, pencil-sketch, poster, oil-painting, pixel-art or watercolour."""
    if name == "photo":
        return image.copy()
    if name == "pencil-sketch":
        gray = ImageOps.grayscale(image)
        inverted = ImageOps.invert(gray).filter(ImageFilter.GaussianBlur(6))
        dodge = np.asarray(gray, dtype=np.float32) * 255.0 / np.maximum(255.0 - np.asarray(inverted, dtype=np.float32), 1)
        sketch = Image.fromarray(np.clip(dodge, 0, 255).astype(np.uint8))
        return ImageEnhance.Contrast(sketch).enhance(1.4).convert("RGB")
    if name == "poster":
        poster = ImageOps.posterize(ImageEnhance.Color(image).enhance(1.8), 2)
        edges = ImageOps.invert(image.filter(ImageFilter.FIND_EDGES).convert("L")).point(lambda v: 0 if v < 200 else 255)
        return ImageChops.multiply(poster, edges.convert("RGB"))
    if name == "oil-painting":
        # Filtering at half size gives broader strokes for a quarter of the work.
        half = image.resize((image.width // 2, image.height // 2), Image.Resampling.BILINEAR)
        strokes = ImageOps.posterize(half.filter(ImageFilter.MedianFilter(5)), 4).filter(ImageFilter.ModeFilter(3))
        strokes = strokes.resize(image.size, Image.Resampling.BICUBIC)
        return ImageEnhance.Color(strokes.filter(ImageFilter.EDGE_ENHANCE_MORE)).enhance(1.5)
    if name == "pixel-art":
        small = image.resize((max(1, image.width // 10), max(1, image.height // 10)), Image.Resampling.BILINEAR)
        return ImageOps.posterize(small, 3).resize(image.size, Image.Resampling.NEAREST)
    if name == "watercolour":
        small = image.resize((image.width // 4, image.height // 4), Image.Resampling.BILINEAR)
        washes = ImageOps.posterize(small.filter(ImageFilter.MedianFilter(5)), 3).resize(image.size, Image.Resampling.BICUBIC)
        muted = ImageEnhance.Color(washes.filter(ImageFilter.GaussianBlur(2))).enhance(0.75)
        paper = ImageEnhance.Brightness(muted).enhance(1.25)
        ink = ImageOps.grayscale(style(image, "pencil-sketch")).point(lambda v: 255 if v > 200 else 120 + v // 2)
        return ImageChops.multiply(paper, ink.convert("RGB"))
    raise ValueError(f"unknown style {name!r}")


STYLES = ("pencil-sketch", "poster", "oil-painting", "pixel-art", "watercolour")

# Drawn objects -----------------------------------------------------------------------------------


def balloon(image: Image.Image, centre: tuple[int, int], radius: int, colour: tuple[int, int, int]) -> Image.Image:
    """A shiny balloon with a knot and a curling string."""
    out = image.copy()
    draw = ImageDraw.Draw(out)
    x, y = centre
    draw.ellipse((x - radius, y - round(radius * 1.2), x + radius, y + round(radius * 1.2)), fill=colour,
                 outline=tuple(max(0, c - 60) for c in colour), width=2)
    draw.ellipse((x - radius // 2, y - radius // 1.3, x - radius // 5, y - radius // 3), fill=(255, 255, 255))
    knot_y = y + round(radius * 1.2)
    draw.polygon([(x - 5, knot_y + 7), (x + 5, knot_y + 7), (x, knot_y - 1)], fill=colour)
    points = [(x + round(6 * math.sin(t / 6)), knot_y + 7 + t) for t in range(0, radius * 3, 3)]
    draw.line(points, fill=(60, 60, 60), width=2)
    return out


def sun(image: Image.Image, centre: tuple[int, int], radius: int, colour=(250, 204, 21)) -> Image.Image:
    out = image.copy()
    draw = ImageDraw.Draw(out)
    x, y = centre
    for k in range(12):
        angle = k * math.pi / 6
        draw.line((x + math.cos(angle) * radius * 1.3, y + math.sin(angle) * radius * 1.3,
                   x + math.cos(angle) * radius * 1.8, y + math.sin(angle) * radius * 1.8), fill=colour, width=4)
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=colour, outline=(234, 88, 12), width=3)
    return out


def star(image: Image.Image, centre: tuple[int, int], radius: int, colour: tuple[int, int, int]) -> Image.Image:
    out = image.copy()
    draw = ImageDraw.Draw(out)
    x, y = centre
    points = []
    for k in range(10):
        r = radius if k % 2 == 0 else radius * 0.45
        angle = -math.pi / 2 + k * math.pi / 5
        points.append((x + r * math.cos(angle), y + r * math.sin(angle)))
    draw.polygon(points, fill=colour, outline=(30, 30, 30))
    return out


def party_hat(image: Image.Image, base_centre: tuple[int, int], width: int, colour: tuple[int, int, int]) -> Image.Image:
    """A striped cone hat with a pompom, its brim centred on ``base_centre``."""
    out = image.copy()
    draw = ImageDraw.Draw(out)
    x, y = base_centre
    height = max(20, min(round(width * 1.3), y - 6))
    draw.polygon([(x - width // 2, y), (x + width // 2, y), (x, y - height)], fill=colour, outline=(30, 30, 30))
    for k in range(1, 4):
        yy = y - height * k // 4
        half = width * (4 - k) // 8
        draw.line((x - half, yy, x + half, yy), fill=(255, 255, 255), width=4)
    draw.ellipse((x - 9, y - height - 9, x + 9, y - height + 9), fill=(255, 255, 255), outline=(30, 30, 30))
    return out


def sign(image: Image.Image, box: tuple[int, int, int, int], text: str, *, board=(120, 78, 40),
         ink=(255, 250, 235), post: bool = True) -> Image.Image:
    """A wooden sign with ``text`` fitted inside ``box``, optionally on a post."""
    out = image.copy()
    draw = ImageDraw.Draw(out)
    x0, y0, x1, y1 = box
    if post:
        mid = (x0 + x1) // 2
        draw.rectangle((mid - 5, y1, mid + 5, min(out.height, y1 + (y1 - y0))), fill=(90, 60, 30))
    draw.rounded_rectangle(box, radius=6, fill=board, outline=(60, 35, 15), width=3)
    lettering(draw, box, text, ink)
    return out


def lettering(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], text: str, ink) -> None:
    """``text`` centred in ``box`` at the largest size that fits."""
    x0, y0, x1, y1 = box
    size = max(8, (y1 - y0) * 2 // 3)
    while size > 8:
        left, top, right, bottom = font(size).getbbox(text)
        if right - left <= (x1 - x0) - 12 and bottom - top <= (y1 - y0) - 6:
            break
        size -= 2
    left, top, right, bottom = font(size).getbbox(text)
    draw.text(((x0 + x1 - (right - left)) / 2 - left, (y0 + y1 - (bottom - top)) / 2 - top), text, font=font(size), fill=ink)


def caption(image: Image.Image, text: str, *, colour=(255, 255, 255), band: bool = True) -> Image.Image:
    """``text`` across the bottom, on a translucent band."""
    out = image.convert("RGBA")
    layer = Image.new("RGBA", out.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    h = max(28, out.height // 9)
    if band:
        draw.rectangle((0, out.height - h, out.width, out.height), fill=(0, 0, 0, 140))
    lettering(draw, (8, out.height - h, out.width - 8, out.height), text, colour)
    return Image.alpha_composite(out, layer).convert("RGB")


def snow(image: Image.Image, rng: random.Random, flakes: int = 260) -> Image.Image:
    out = ImageEnhance.Brightness(look(image, "cool", 0.8)).enhance(1.08)
    draw = ImageDraw.Draw(out)
    for _ in range(flakes):
        x, y, r = rng.randrange(out.width), rng.randrange(out.height), rng.choice((1, 1, 2, 2, 3))
        draw.ellipse((x - r, y - r, x + r, y + r), fill=(255, 255, 255))
    return out


def arrow(draw: ImageDraw.ImageDraw, start: tuple[int, int], end: tuple[int, int], colour, width: int = 4) -> None:
    draw.line((start, end), fill=colour, width=width)
    angle = math.atan2(end[1] - start[1], end[0] - start[0])
    head = [end, (end[0] - 14 * math.cos(angle - 0.45), end[1] - 14 * math.sin(angle - 0.45)),
            (end[0] - 14 * math.cos(angle + 0.45), end[1] - 14 * math.sin(angle + 0.45))]
    draw.polygon(head, fill=colour)


def numbered_badge(image: Image.Image, number: int, corner: str = "top-left", colour=(37, 99, 235)) -> Image.Image:
    out = image.copy()
    draw = ImageDraw.Draw(out)
    x = 14 if "left" in corner else out.width - 58
    y = 14 if "top" in corner else out.height - 58
    draw.ellipse((x, y, x + 44, y + 44), fill=colour, outline=(255, 255, 255), width=3)
    lettering(draw, (x, y, x + 44, y + 44), str(number), (255, 255, 255))
    return out


def circle_region(image: Image.Image, box: tuple[int, int, int, int], colour=(250, 204, 21), label: str = "") -> Image.Image:
    out = image.copy()
    draw = ImageDraw.Draw(out)
    draw.ellipse(box, outline=colour, width=4)
    if label:
        x0, y0, x1, _ = box
        draw.rectangle((x0, max(0, y0 - 26), x0 + 12 + 11 * len(label), max(0, y0 - 26) + 24), fill=(0, 0, 0))
        draw.text((x0 + 6, max(0, y0 - 26) + 3), label, font=font(18), fill=colour)
    return out


def analogue_clock(image: Image.Image, centre: tuple[int, int], radius: int, hour: int, minute: int) -> Image.Image:
    """A wall clock showing ``hour:minute``."""
    out = image.copy()
    draw = ImageDraw.Draw(out)
    x, y = centre
    draw.ellipse((x - radius - 5, y - radius - 5, x + radius + 5, y + radius + 5), fill=(40, 40, 40))
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=(250, 248, 240))
    for k in range(12):
        angle = k * math.pi / 6
        inner = radius * (0.78 if k % 3 else 0.7)
        draw.line((x + inner * math.sin(angle), y - inner * math.cos(angle),
                   x + radius * 0.92 * math.sin(angle), y - radius * 0.92 * math.cos(angle)), fill=(20, 20, 20), width=3)
    minute_angle = minute / 60 * 2 * math.pi
    hour_angle = ((hour % 12) + minute / 60) / 12 * 2 * math.pi
    draw.line((x, y, x + radius * 0.5 * math.sin(hour_angle), y - radius * 0.5 * math.cos(hour_angle)),
              fill=(10, 10, 10), width=7)
    draw.line((x, y, x + radius * 0.8 * math.sin(minute_angle), y - radius * 0.8 * math.cos(minute_angle)),
              fill=(10, 10, 10), width=4)
    draw.ellipse((x - 6, y - 6, x + 6, y + 6), fill=(200, 30, 30))
    return out


# Compositing -------------------------------------------------------------------------------------


def cutout(source: Image.Image, box: tuple[int, int, int, int], size: tuple[int, int], *, feather: int = 12,
           hard: bool = False) -> tuple[Image.Image, Image.Image]:
    """The region ``box`` of ``source`` resized to ``size`` with an elliptical (or rectangular) mask."""
    piece = source.crop(box).resize(size, Image.Resampling.LANCZOS)
    mask = Image.new("L", size, 0)
    if hard:
        mask.paste(255, (0, 0, *size))
    else:
        ImageDraw.Draw(mask).ellipse((feather, feather, size[0] - feather, size[1] - feather), fill=255)
        mask = mask.filter(ImageFilter.GaussianBlur(feather / 2))
    return piece, mask


def paste(base: Image.Image, piece: Image.Image, mask: Image.Image, at: tuple[int, int]) -> Image.Image:
    out = base.copy()
    out.paste(piece, at, mask)
    return out


def colour_transfer(image: Image.Image, reference: Image.Image, strength: float = 1.0) -> Image.Image:
    """Match the mean and spread of each channel of ``image`` to ``reference`` (Reinhard-style, in RGB)."""
    src = np.asarray(image, dtype=np.float32)
    ref = np.asarray(reference, dtype=np.float32)
    moved = (src - src.mean((0, 1))) / (src.std((0, 1)) + 1e-6) * ref.std((0, 1)) + ref.mean((0, 1))
    mixed = src * (1 - strength) + moved * strength
    return Image.fromarray(np.clip(mixed, 0, 255).astype(np.uint8))


def colour_splash(image: Image.Image, keep: str = "red") -> Image.Image:
    """Grey everywhere except the pixels whose hue is ``keep``."""
    hsv = np.asarray(image.convert("HSV"), dtype=np.int16)
    hue, sat = hsv[..., 0], hsv[..., 1]
    centres = {"red": 0, "orange": 18, "yellow": 40, "green": 85, "blue": 160}
    distance = np.minimum(np.abs(hue - centres[keep]), 256 - np.abs(hue - centres[keep]))
    mask = Image.fromarray(((distance < 14) & (sat > 90)).astype(np.uint8) * 255).filter(ImageFilter.GaussianBlur(1.5))
    gray = ImageOps.grayscale(image).convert("RGB")
    return Image.composite(image, gray, mask)


# Defects: what weaker models get wrong ----------------------------------------------------------


def defect(image: Image.Image, name: str, rng: random.Random) -> Image.Image:
    """One visible generation fault: blur, noise, blocky, oversaturated, ghosting, smear, colour-cast, banding."""
    if name == "blur":
        return image.filter(ImageFilter.GaussianBlur(2.6))
    if name == "noise":
        array = np.asarray(image, dtype=np.int16)
        noise = np.random.default_rng(rng.randrange(2**32)).normal(0, 22, array.shape)
        return Image.fromarray(np.clip(array + noise, 0, 255).astype(np.uint8))
    if name == "blocky":
        small = image.resize((image.width // 5, image.height // 5), Image.Resampling.BILINEAR)
        return small.resize(image.size, Image.Resampling.NEAREST)
    if name == "oversaturated":
        return ImageEnhance.Contrast(ImageEnhance.Color(image).enhance(2.6)).enhance(1.3)
    if name == "ghosting":
        shifted = ImageChops.offset(image, rng.choice((-18, 18)), rng.choice((-8, 8)))
        return Image.blend(image, shifted, 0.38)
    if name == "smear":
        out = image.copy()
        w, h = out.size
        x, y = rng.randrange(w // 5, w * 3 // 5), rng.randrange(h // 5, h * 3 // 5)
        box = (x, y, x + w // 3, y + h // 3)
        out.paste(out.crop(box).filter(ImageFilter.GaussianBlur(9)).filter(ImageFilter.ModeFilter(9)), box[:2])
        return out
    if name == "colour-cast":
        return _channels(image, 0.75, 1.2, 0.8)
    if name == "banding":
        return ImageOps.posterize(image, 3)
    raise ValueError(f"unknown defect {name!r}")


def sample_jitter(image: Image.Image, rng: random.Random) -> Image.Image:
    """The small brightness, contrast and colour differences between two samples of one model."""
    out = ImageEnhance.Brightness(image).enhance(1 + rng.uniform(-0.05, 0.05))
    out = ImageEnhance.Contrast(out).enhance(1 + rng.uniform(-0.05, 0.05))
    return ImageEnhance.Color(out).enhance(1 + rng.uniform(-0.07, 0.07))


DEFECTS = ("blur", "noise", "blocky", "oversaturated", "ghosting", "smear", "colour-cast", "banding")


def misspell(text: str, rng: random.Random) -> str:
    """The kind of lettering mistake image models make: a swapped, doubled, dropped or wrong letter."""
    letters = list(text)
    positions = [i for i, c in enumerate(letters) if c.isalpha()]
    if len(positions) < 2:
        return text + text[-1:]
    i = rng.choice(positions[:-1])
    fault = rng.choice(("swap", "double", "drop", "wrong"))
    if fault == "swap" and letters[i + 1].isalpha() and letters[i] != letters[i + 1]:
        letters[i], letters[i + 1] = letters[i + 1], letters[i]
    elif fault == "double":
        letters.insert(i, letters[i])
    elif fault == "drop":
        del letters[i]
    else:
        lookalike = {"O": "Q", "E": "F", "C": "G", "A": "R", "N": "M", "S": "5", "I": "L", "R": "P", "T": "I", "L": "I"}
        letters[i] = lookalike.get(letters[i].upper(), "X")
    wrong = "".join(letters)
    return wrong if wrong != text else text[:-1]


def jpeg_bytes(image: Image.Image, quality: int = 88) -> bytes:
    """Baseline JPEG bytes; deterministic for a given image."""
    import io

    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="JPEG", quality=quality, optimize=True)
    return buffer.getvalue()


def png_bytes(image: Image.Image) -> bytes:
    import io

    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()
