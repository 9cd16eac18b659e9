"""The built-in heuristic judges: each fault they look for, and abstaining when none tells the sides apart."""

import io
import json

import numpy as np
import pytest
from PIL import Image, ImageFilter

from curation.judges.base import JudgeRequest, MediaFile, MediaStore
from curation.judges.heuristics import image_sanity, text_sanity
from curation.judges.python_callable import interpret


def photo(seed: int = 0, size=(160, 120)) -> Image.Image:
    """A detailed, low-noise picture: smooth gradients with sharp-edged shapes."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0 : size[1], 0 : size[0]]
    base = np.stack([x * 255 / size[0], y * 255 / size[1], (x + y) * 128 / sum(size)], axis=-1)
    for _ in range(12):
        cx, cy, r = rng.integers(0, size[0]), rng.integers(0, size[1]), rng.integers(5, 25)
        base[(x - cx) ** 2 + (y - cy) ** 2 < r * r] = rng.integers(0, 255, 3)
    return Image.fromarray(base.astype(np.uint8))


def encoded(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def image_pair(first: bytes, second: bytes):
    store = MediaStore({"a" * 64: MediaFile("image/png", first), "b" * 64: MediaFile("image/png", second)})
    request = JudgeRequest(kind="text-to-image", prompt=[{"type": "text", "text": "a red balloon"}],
                           first=[{"type": "image", "media": "a" * 64}], second=[{"type": "image", "media": "b" * 64}])
    return request, store


def judged(judge, request, store) -> tuple[dict, dict]:
    answer = judge(request, media=store, options={})
    return answer, json.loads(answer["raw"])


def noisy(image: Image.Image) -> Image.Image:
    array = np.asarray(image, dtype=np.int16) + np.random.default_rng(1).normal(0, 22, (image.height, image.width, 3))
    return Image.fromarray(np.clip(array, 0, 255).astype(np.uint8))


@pytest.mark.parametrize(("broken", "fault"), [
    (lambda: encoded(Image.new("RGB", (160, 120), (200, 200, 200))), "blank"),
    (lambda: b"\x89PNG\r\n\x1a\n not really a png", "corrupt"),
    (lambda: encoded(photo().filter(ImageFilter.GaussianBlur(2.6))), "blur"),
    (lambda: encoded(noisy(photo())), "noise"),
    (lambda: encoded(photo(size=(40, 30))), "size"),
])
def test_image_sanity_prefers_the_sound_image_in_either_order(broken, fault):
    good, bad = encoded(photo()), broken()
    answer, raw = judged(image_sanity, *image_pair(good, bad))
    assert answer["verdict"] == "A" and answer["score"] > 0
    assert raw["B"][0].startswith(fault) and raw["A"] == []
    answer, raw = judged(image_sanity, *image_pair(bad, good))
    assert answer["verdict"] == "B" and answer["score"] < 0 and raw["A"][0].startswith(fault)


def test_image_sanity_abstains_on_two_sound_images_and_the_abstention_is_its_own_outcome():
    """An abstention was stored and shown as "invalid" (the run report said "Invalid 67 % / 100 %"): it is
    "abstain", a vote for no side that is neither an error nor an unreadable answer."""
    answer, raw = judged(image_sanity, *image_pair(encoded(photo(1)), encoded(photo(2))))
    assert answer["verdict"] == "abstain" and raw["why"] == "no fault tells the two apart"
    assert interpret(answer).label == "abstain"


def test_image_sanity_abstains_without_images():
    request = JudgeRequest(kind="text-to-text", prompt=[], first=[{"type": "text", "text": "x"}],
                           second=[{"type": "text", "text": "y"}])
    assert image_sanity(request, media=MediaStore(), options={})["verdict"] == "abstain"


def text_request(first: str, second: str, prompt: str = "Explain how tides follow the moon's gravity.") -> JudgeRequest:
    return JudgeRequest(kind="text-to-text", prompt=[{"type": "text", "text": prompt}],
                        first=[{"type": "text", "text": first}], second=[{"type": "text", "text": second}])


GOOD = "Tides follow the moon: its gravity pulls the oceans into two bulges, and the earth turns beneath them."


@pytest.mark.parametrize(("bad", "fault"), [
    ("   ", "empty"),
    ("I'm sorry, but I can't help with that request.", "refusal"),
    ("Tides follow the moon because its gravity pulls the oceans into two bulges and the earth", "truncated"),
    ("```python\nprint('tides')\n", "truncated"),
    ("Water goes up and down at the beach every day, twice or so.", "coverage"),
])
def test_text_sanity_prefers_the_sound_answer(bad, fault):
    answer, raw = judged(text_sanity, text_request(GOOD, bad), MediaStore())
    assert answer["verdict"] == "A" and raw["B"][0].startswith(fault) and raw["A"] == []
    answer, _raw = judged(text_sanity, text_request(bad, GOOD), MediaStore())
    assert answer["verdict"] == "B"


def test_text_sanity_abstains_when_both_answers_are_sound():
    other = "The moon's gravity raises two ocean bulges; as the earth spins, each coast passes through them: tides."
    answer, raw = judged(text_sanity, text_request(GOOD, other), MediaStore())
    assert answer["verdict"] == "abstain" and raw["coverage"]["A"] > 0.5
