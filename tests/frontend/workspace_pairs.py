"""Pairs of every task kind for the workspace tests, with model names and ids that must never leak; and, for the
browser tests that rate them, one Chromium per module and the keys of a whole answer.

Every model name, external id and original file name contains ``SECRET`` so one search over a page,
a response body or a URL proves the annotator saw none of them.
"""

from __future__ import annotations

import io
import math
import struct
import wave

import pytest
from PIL import Image, ImageDraw

from annotation.catalogue import content, schemas
from annotation.catalogue.models import Campaign
from annotation.catalogue.services.media import media_store
from tests.browser import chromium
from tests.catalogue import glb
from tests.factories import CampaignFactory, PairFactory, PromptFactory, RatingSchemaFactory, ResponseFactory

SECRET = "secretmodel"
KIND_PRESETS = {
    "text-to-image": "mmrb2-generation",
    "image-editing": "mmrb2-generation",
    "interleaved": "mmrb2-generation",
    "reasoning": "mmrb2-reasoning",
    "audio-to-text": "omni-criteria",
    "text-to-audio": "omni-criteria",
    "text-to-3d": "omni-criteria",
}
INSTRUCTIONS = "Compare the two responses **blind**.\n\n1. Rate each response.\n2. Give your overall preference."


def picture(seed: int, size=(768, 768), *, label: str = "") -> bytes:
    """A distinct, picture-like PNG: a sky, a sun and hills whose colours follow ``seed``."""
    width, height = size
    hue = (seed * 47) % 255
    image = Image.new("RGB", size)
    draw = ImageDraw.Draw(image)
    for y in range(height):
        t = y / height
        colour = (int(40 + 120 * t + hue / 4) % 255, int(90 + 100 * t) % 255, int(200 - 60 * t + hue / 3) % 255)
        draw.line([(0, y), (width, y)], fill=colour)
    r = width // 9 + seed % 30
    cx, cy = width * (0.25 + 0.5 * ((seed * 13) % 10) / 10), height * 0.3
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(255, 210 - seed % 60, 90))
    points = [(0, height)] + [(x, height * 0.62 + 60 * math.sin(x / (70 + seed % 40) + seed)) for x in range(0, width + 1, 16)]
    draw.polygon(points + [(width, height)], fill=((hue + 60) % 255, 140, 80))
    if label:
        draw.rectangle([16, height - 70, 16 + 26 * len(label), height - 20], fill=(255, 255, 255))
        draw.text((28, height - 60), label, fill=(20, 20, 20), font_size=36)
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def tone(seconds: float = 0.6, freq: int = 440) -> bytes:
    """A short sine tone as WAV bytes."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        samples = (int(8000 * math.sin(2 * math.pi * freq * i / 8000)) for i in range(int(8000 * seconds)))
        frames = b"".join(struct.pack("<h", sample) for sample in samples)
        out.writeframes(frames)
    return buffer.getvalue()


def _image(seed: int, *, label: str = "", alt: str = "") -> tuple[dict, object]:
    media = media_store(data=picture(seed, label=label), name=f"{SECRET}-x-{seed}.png")
    return {"type": "image", "media": media.sha256, "alt": alt}, media


def _text(text: str) -> dict:
    return {"type": "text", "text": text, "format": "markdown"}


def build_content(kind: str, seed: int) -> tuple[list, list, list, list]:
    """(prompt, response A, response B, media) for ``kind``; alt texts name the model, as careless imports do."""
    media = []

    def img(n: int, label: str = "", alt: str = "") -> dict:
        block, stored = _image(seed * 100 + n, label=label, alt=alt)
        media.append(stored)
        return block

    if kind == "text-to-image":
        prompt = [_text("A **sunset** over rolling hills, painted in warm colours, with the sun on the left.")]
        a = [img(1, alt=f"output of {SECRET}-x-alpha-{seed}")]
        b = [img(2)]
    elif kind == "image-editing":
        prompt = [_text("Put the sun from the first image into the sky of the second image."), img(1, "in 1"), img(2, "in 2")]
        a, b = [img(3, "edit")], [img(4, "edit")]
    elif kind == "interleaved":
        prompt = [_text("Write a three-part illustrated story about a hill at different times of day."), img(1, "ref")]
        a = [_text("## Morning\nThe hill wakes up slowly."), img(2, "1"), _text("## Noon\nThe sun stands high. " * 12),
             img(3, "2"), _text("## Evening\nEverything turns orange. " * 12), img(4, "3")]
        b = [_text("Dawn breaks over the ridge. " * 8), img(5, "1"), _text("Midday heat. " * 20), img(6, "2"),
             _text("Night falls. " * 15), img(7, "3")]
    elif kind == "reasoning":
        prompt = [_text("How many hills are in the picture? Answer with a number."), img(1)]
        a = [
            {"type": "reasoning", "blocks": [_text("I will crop the lower half, where the hills are.")]},
            {"type": "reasoning", "blocks": [
                {"type": "tool_call", "name": "python",
                 "arguments": {"code": "from PIL import Image\nimg = Image.open('input.png')\n"
                                       "crop = img.crop((0, 384, 768, 768))\ncrop.show()"},
                 "result": [img(2, "crop")]},
            ]},
            {"type": "reasoning", "blocks": [
                _text("The crop shows one continuous ridge line."),
                {"type": "code", "language": "python", "code": "peaks = count_peaks(ridge)\nassert peaks == 1"},
            ]},
            {"type": "final_answer", "text": "1"},
        ]
        b = [{"type": "reasoning", "blocks": [_text("Counting the bumps by eye, I see three.")]},
             {"type": "final_answer", "text": "3"}]
    elif kind == "audio-to-text":
        audio = media_store(data=tone(freq=330 + seed), name=f"{SECRET}-x-{seed}.wav")
        media.append(audio)
        prompt = [_text("What do you hear in this recording? Describe it in one sentence."),
                  {"type": "audio", "media": audio.sha256, "alt": ""}]
        a = [_text("A steady, pure tone at a single pitch, like a tuning fork.")]
        b = [_text("Somebody speaking quickly in a noisy room.")]
    elif kind == "text-to-audio":
        tones = [media_store(data=tone(seconds=1.2, freq=freq), name=f"{SECRET}-x-{seed}-{freq}.wav") for freq in (440, 660)]
        media.extend(tones)
        prompt = [_text("A single clear tone, about a second long.")]
        a = [{"type": "audio", "media": tones[0].sha256, "alt": ""}]
        b = [{"type": "audio", "media": tones[1].sha256, "alt": ""}]
    elif kind == "text-to-3d":
        # The cube is textured (its PNG's text naming the model too): the page decodes an embedded image.
        texture = glb.texture_png((235, 235, 255), text=f"{SECRET} texture baker")
        meshes = [media_store(data=glb.glb(shape, colour, name=f"{SECRET}-x-{shape}-{seed}", texture=texture),
                              name=f"{SECRET}-x-{seed}.glb")
                  for shape, colour, texture in (("cube", (0.15, 0.35, 0.85), texture), ("pyramid", (0.85, 0.4, 0.1), None))]
        media.extend(meshes)
        prompt = [_text("A plain geometric solid, evenly coloured.")]
        a = [{"type": "model3d", "media": meshes[0].sha256, "alt": ""}]
        b = [{"type": "model3d", "media": meshes[1].sha256, "alt": ""}]
    else:
        raise ValueError(f"no test content for {kind}")
    return prompt, a, b, media


def make_campaign(kind: str, *, annotators=(), seed: int = 1) -> Campaign:
    """An active campaign of ``kind`` (overlap 1) with the preset schema its kind uses, and ``annotators`` in it."""
    preset = KIND_PRESETS[kind]
    schema = RatingSchemaFactory(slug=f"ws-{kind}-{seed}", preset=preset, definition=schemas.preset(preset, kind))
    campaign = CampaignFactory(slug=f"ws-{kind}-{seed}", name=f"Workspace {kind}", kind=kind, rating_schema=schema,
                               overlap=1, max_overlap=1, instructions=INSTRUCTIONS, status=Campaign.Status.ACTIVE)
    campaign.members.add(*annotators)
    return campaign


def add_pair(campaign: Campaign, *, seed: int, criteria=None, priority: int = 0):
    """A queued pair of the campaign's kind whose model names and ids all contain SECRET."""
    kind = campaign.kind
    prompt_blocks, a_blocks, b_blocks, media = build_content(kind, seed)
    prompt = PromptFactory(campaign=campaign, external_id=f"{SECRET}-x-prompt-{kind}-{seed}", content=prompt_blocks)
    response_a = ResponseFactory(prompt=prompt, model_name=f"{SECRET}-x-alpha-{seed}", content=a_blocks,
                                 content_sha256=content.digest(a_blocks))
    response_b = ResponseFactory(prompt=prompt, model_name=f"{SECRET}-x-beta-{seed}", content=b_blocks,
                                 content_sha256=content.digest(b_blocks))
    if criteria is None and kind == "text-to-3d":
        criteria = ["Is a plain geometric solid", "Is evenly coloured"]
    elif criteria is None and KIND_PRESETS[kind] == "omni-criteria":
        criteria = ["Describes the sound accurately", "Answers in one sentence"]
    pair = PairFactory(campaign=campaign, prompt=prompt, response_a=response_a, response_b=response_b,
                       external_id=f"{SECRET}-x-pair-{kind}-{seed}", criteria=criteria or [], priority=priority)
    pair.media.set(media)
    return pair


def make_pair(kind: str, *, annotators=(), seed: int = 1, criteria=None):
    """A new campaign of ``kind`` holding one pair."""
    return add_pair(make_campaign(kind, annotators=annotators, seed=seed), seed=seed, criteria=criteria)


# A whole answer to the text-to-image preset by keys, as shown: both rubrics of each side, the overall preference,
# the rationale typed, then "the prompt is valid" (Ctrl+Enter moves on from the rubrics, Escape leaves the text).
ANSWER = ["3", "2", "2", "1", "Control+Enter", "2", "Enter", "text:A follows the prompt.", "Escape", "j", "y"]


def press(page, keys) -> None:
    """Press ``keys`` in order; a ``text:…`` entry is typed."""
    for key in keys:
        if key.startswith("text:"):
            page.keyboard.type(key[5:])
        else:
            page.keyboard.press(key)


def submit_by_keys(page, keys=ANSWER) -> None:
    """Answer the pair on ``page`` by ``keys``, submit it with Ctrl+Enter and wait for the page to say it is done."""
    press(page, keys)
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-done]:not([hidden])")


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the module; a test module takes it as ``browser = workspace_pairs.browser``."""
    with chromium() as launched:
        yield launched
