"""The demo catalogue: which campaigns exist, how many pairs each has, and writing them all to disk."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from demo.bundle import MediaFolder, write_jsonl
from demo.generation import image_editing_rows, text_to_image_rows
from demo.meshes import text_to_3d_rows
from demo.omni import text_to_audio_rows, text_to_text_rows
from demo.stories import interleaved_rows
from demo.traces import reasoning_rows

TEXT_TO_IMAGE_INSTRUCTIONS = """\
Rate each response on the rubrics (0 = poor … 3 = excellent), then give your overall preference.

- **Faithfulness** first: does the picture contain what the prompt asks for (objects, colours, counts,
  style, exact lettering)?
- **Quality**: look for blur, noise, blocky or smeared patches, colour casts and ghosting.
- **Text rendering**: rate it only when the prompt asks for drawn text; otherwise leave it blank.
- Use the middle of the preference scale only when the two are truly equivalent.
- Write one or two sentences of rationale naming the deciding difference.
"""
IMAGE_EDITING_INSTRUCTIONS = """\
Each prompt shows one or more input pictures and an edit instruction. Rate each edited picture on the
rubrics (0 = poor … 3 = excellent), then give your overall preference.

- **Faithful to the instruction**: is the requested change made, all of it and nothing more?
- **Faithful to the input image(s)**: does what the instruction leaves alone stay as it was (subject,
  framing, colours, background)? Compare with the inputs side by side.
- **Quality**: look for seams, blur, smeared patches or colour casts where the edit was made.
- Use the middle of the preference scale only when the two are truly equivalent.
- Write one or two sentences of rationale naming the deciding difference.
"""
INTERLEAVED_INSTRUCTIONS = """\
Read each illustrated answer top to bottom.

- Does every picture show what its paragraph describes, in the right order?
- Do the pictures look like one set (same colour style, same subject) as the prompt asks?
- Are all requested steps present, and is the text complete, correct and free of typos?
"""
REASONING_INSTRUCTIONS = """\
Judge each trace on its own. The expected answer is checkable from the image: verify it yourself.

1. Correct, no major errors · 2. Correct, minor improvements possible · 3. Correct answer but major
reasoning errors · 4. Correct, no reasoning given · 5. Incorrect or cannot verify.

Look at the crops and intermediate images: did the agent zoom where it claims, and does the evidence
support the final answer?
"""
TEXT_TO_AUDIO_INSTRUCTIONS = """\
Listen to both sounds in full before deciding: a wrong note, a click or a cut-off ending can come late.

For each criterion listed with the pair, say whether A is better, B is better, or they are equivalent.
Use headphones if you can, at a moderate volume, and replay either sound as often as you need.
"""
TEXT_TO_3D_INSTRUCTIONS = """\
Each response is a 3D model, drawn in its pane. Turn both before deciding: a wrong colour or shape can hide on
the far side or underneath.

Drag either model to turn both together (or Tab to one and use the arrow keys), use the wheel or + and - to
zoom, and z to return to the starting view. For each criterion listed with the pair, say whether A is better,
B is better, or they are equivalent.
"""
TEXT_TO_TEXT_INSTRUCTIONS = """\
Read the request and both answers in full.

For each criterion listed with the pair, say whether A is better, B is better, or they are equivalent.
Check facts, code and translations yourself rather than trusting a confident tone, and hold each answer
to the form the request asks for (a number of sentences, one word, a list, a haiku).
"""


# These two show the pre-filter: their pairs wait for the built-in heuristic judges, which drop the ones with a
# plainly broken side (a blurred or noisy picture; an empty, cut-off or refusing answer).
PREFILTERED = ("demo-text-to-image", "demo-text-to-text")


@dataclass(frozen=True)
class DemoCampaign:
    slug: str
    name: str
    kind: str
    preset: str
    instructions: str
    jsonl: Path
    pairs: int
    prefilter: bool = False


def build_demo(out_dir: Path) -> tuple[list[DemoCampaign], Path]:
    """Write every demo campaign under ``out_dir`` (JSONL files plus ``media/``); deterministic, so re-running
    rewrites the same bytes. Returns the campaigns and the media root their files are relative to."""
    media = MediaFolder(out_dir / "media")
    plan = (
        ("demo-text-to-image", "Demo · Text to image", "text-to-image", "mmrb2-generation", TEXT_TO_IMAGE_INSTRUCTIONS,
         text_to_image_rows(media, count=30)),
        ("demo-image-editing", "Demo · Image editing", "image-editing", "mmrb2-generation", IMAGE_EDITING_INSTRUCTIONS,
         image_editing_rows(media, count=30)),
        ("demo-interleaved", "Demo · Interleaved stories", "interleaved", "mmrb2-generation", INTERLEAVED_INSTRUCTIONS,
         interleaved_rows(media, count=24)),
        ("demo-reasoning", "Demo · Thinking with images", "reasoning", "mmrb2-reasoning", REASONING_INSTRUCTIONS,
         reasoning_rows(media, count=25)),
        ("demo-text-to-audio", "Demo · Text to audio (Omni)", "text-to-audio", "omni-criteria", TEXT_TO_AUDIO_INSTRUCTIONS,
         text_to_audio_rows(media)),
        ("demo-text-to-text", "Demo · Text to text (Omni)", "text-to-text", "omni-criteria", TEXT_TO_TEXT_INSTRUCTIONS,
         text_to_text_rows()),
        ("demo-text-to-3d", "Demo · Text to 3D (Omni)", "text-to-3d", "omni-criteria", TEXT_TO_3D_INSTRUCTIONS,
         text_to_3d_rows(media)),
    )
    campaigns = []
    for slug, name, kind, preset, instructions, rows in plan:
        path = out_dir / f"{slug}.jsonl"
        count = write_jsonl(path, rows, seed=slug)
        campaigns.append(DemoCampaign(slug, name, kind, preset, instructions, path, count, slug in PREFILTERED))
    return campaigns, media.root
