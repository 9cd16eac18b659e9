"""Photographs that ship inside the scikit-image wheel (no download), with where things are in them."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from PIL import Image

WIDTH = 512


@dataclass(frozen=True)
class Photo:
    """A bundled photograph and the regions the demo's prompts talk about, as fractions of its size."""

    name: str
    description: str
    subject: str
    subject_box: tuple[float, float, float, float]
    top_anchor: tuple[float, float]
    free_spot: tuple[float, float]


PHOTOS = {
    p.name: p
    for p in (
        Photo("astronaut", "an astronaut in an orange flight suit posing beside a flag and a shuttle model",
              "astronaut", (0.08, 0.02, 0.66, 1.0), (0.34, 0.13), (0.83, 0.62)),
        Photo("coffee", "a cup of espresso on a red saucer on a wooden table", "coffee cup",
              (0.12, 0.0, 0.78, 1.0), (0.48, 0.08), (0.88, 0.45)),
        Photo("chelsea", "a tabby cat with green eyes", "cat",
              (0.18, 0.0, 0.92, 1.0), (0.6, 0.33), (0.1, 0.2)),
        Photo("rocket", "a rocket on its launch pad at dusk between lightning towers", "rocket",
              (0.42, 0.18, 0.58, 1.0), (0.5, 0.12), (0.25, 0.22)),
        Photo("motorcycle", "a red motorcycle parked in a workshop", "motorcycle",
              (0.06, 0.28, 0.96, 0.99), (0.55, 0.3), (0.2, 0.12)),
        Photo("hubble_deep_field", "a Hubble deep-field view full of distant galaxies", "galaxy field",
              (0.0, 0.0, 1.0, 1.0), (0.5, 0.1), (0.5, 0.5)),
        Photo("immunohistochemistry", "a stained tissue section under the microscope", "tissue",
              (0.0, 0.0, 1.0, 1.0), (0.5, 0.1), (0.8, 0.5)),
        Photo("camera", "a photographer behind a camera on a tripod in a park", "photographer",
              (0.15, 0.05, 0.8, 1.0), (0.45, 0.1), (0.85, 0.3)),
        Photo("coins", "rows of ancient coins on a dark cloth", "coins", (0.0, 0.0, 1.0, 1.0), (0.5, 0.05), (0.5, 0.5)),
        Photo("moon", "the cratered grey surface of the moon", "moon surface", (0.0, 0.0, 1.0, 1.0), (0.5, 0.1), (0.5, 0.5)),
        Photo("retina", "a colour fundus photograph of a retina", "retina", (0.05, 0.05, 0.95, 0.95), (0.5, 0.1), (0.5, 0.5)),
    )
}
COLOUR_PHOTOS = ("astronaut", "coffee", "chelsea", "rocket", "motorcycle")


def _array(name: str) -> np.ndarray:
    from skimage import data

    if name == "motorcycle":
        return data.stereo_motorcycle()[0]
    return getattr(data, name)()


@cache
def _load(name: str) -> Image.Image:
    image = Image.fromarray(_array(name)).convert("RGB")
    height = round(image.height * WIDTH / image.width)
    return image.resize((WIDTH, height), Image.Resampling.LANCZOS)


def photo(name: str) -> Image.Image:
    """A fresh RGB copy of the bundled photograph ``name``, 512 pixels wide."""
    return _load(name).copy()


def box_px(image: Image.Image, box: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
    """A fractional box in pixels of ``image``."""
    w, h = image.size
    return round(box[0] * w), round(box[1] * h), round(box[2] * w), round(box[3] * h)


def point_px(image: Image.Image, point: tuple[float, float]) -> tuple[int, int]:
    w, h = image.size
    return round(point[0] * w), round(point[1] * h)
