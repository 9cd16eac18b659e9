"""Large, realistic campaigns in the concord JSONL format, made quickly; reused by every benchmark.

    python bench/datagen.py OUT --pairs 100000 --images 20000 [--kind text-to-image] [--raters 3]

writes ``OUT/pairs.jsonl`` and a pool of distinct small PNG images under ``OUT/images/``, each
referenced by many responses as real campaigns do. Nothing here needs Django.
"""

from __future__ import annotations

import argparse
import json
import random
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

MODELS = ["imagen-4", "gpt-image-1", "flux-1.1-pro", "flux-kontext", "sd-3.5-large", "seedream-3", "hidream-i1",
          "recraft-v3", "ideogram-3", "bagel", "janus-pro", "lumina-2", "omnigen-2", "step1x-edit", "qwen-image",
          "gemini-2.5-flash-image", "kolors-2", "playground-3", "sana-1.5", "cogview-4", "hunyuan-image-2",
          "show-o2", "blip3o"]
SUBJECTS = ["a red fox", "an old lighthouse", "a bowl of ramen", "two cyclists", "a glass teapot", "a snowy village",
            "a robot gardener", "a jazz trio", "a paper crane", "a desert canyon", "a street market", "a koi pond"]
STYLES = ["at golden hour", "as a watercolour", "in isometric pixel art", "shot on 35mm film", "as a pencil sketch",
          "under neon rain", "in the style of a botanical plate", "with a shallow depth of field"]
TEXTS = ["with the words 'OPEN 24H' on a sign", "", "", "with a caption reading 'Day 1'", ""]
SOURCES = ["oneigbench", "evalmuse", "r2ibench", "wise", "genai-bench"]


@dataclass(frozen=True)
class Generated:
    jsonl: Path
    media_root: Path
    pairs: int
    images: int
    seconds: float


def write_images(root: Path, count: int, *, seed: int = 0, size: int = 16) -> list[str]:
    """``count`` distinct PNG files (random pixels, so none deduplicates); their paths relative to ``root``."""
    rng = np.random.default_rng(seed)
    names = []
    for i in range(count):
        name = f"images/{i // 1000:03d}/{i:07d}.png"
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.frombytes("RGB", (size, size), rng.integers(0, 256, size * size * 3, dtype=np.uint8).tobytes()).save(
            path, "PNG", compress_level=1)
        names.append(name)
    return names


def prompt_text(rng: random.Random) -> str:
    return f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(STYLES)} {rng.choice(TEXTS)}".strip()


def generate(out: Path, *, pairs: int, images: int, kind: str = "text-to-image", pairs_per_prompt: int = 4,
             raters: int = 0, rater_pool: int = 40, seed: int = 0) -> Generated:
    """Write a campaign of ``pairs`` pairs over ``images`` distinct images (0 raters: no ratings)."""
    started = time.perf_counter()
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    names = write_images(out, images, seed=seed)
    jsonl = out / "pairs.jsonl"
    image_cursor = 0

    def next_image() -> str:
        nonlocal image_cursor
        name = names[image_cursor % len(names)]
        image_cursor += 1
        return name

    with jsonl.open("w", encoding="utf-8") as handle:
        written = 0
        prompt_number = 0
        while written < pairs:
            prompt_number += 1
            source = rng.choice(SOURCES)
            prompt = {"id": f"{source}-{prompt_number:07d}", "source": source, "task": kind,
                      "metadata": {"category": rng.choice(["General_Object", "Text_Rendering", "Portrait", "Anime"]),
                                   "seed": zlib.crc32(str(prompt_number).encode())},
                      "content": _prompt_content(kind, rng, next_image)}
            responses = [_response(kind, rng, next_image, model) for model in rng.sample(MODELS, 4)]
            # one model answers twice, so some pairs are same-model pairs as in MMRB2
            responses.append(_response(kind, rng, next_image, responses[0]["model"]))
            combos = [(a, b) for a in range(len(responses)) for b in range(a + 1, len(responses))]
            for a, b in rng.sample(combos, min(pairs_per_prompt, pairs - written)):
                record = {"id": f"{prompt['id']}-{a}-{b}", "prompt": prompt, "response_a": responses[a],
                          "response_b": responses[b], "priority": rng.choice([0, 0, 0, 1])}
                if raters:
                    record["annotations"] = _annotations(kind, rng, raters, rater_pool)
                handle.write(json.dumps(record, separators=(",", ":")) + "\n")
                written += 1
    return Generated(jsonl, out, pairs, images, time.perf_counter() - started)


def _prompt_content(kind: str, rng: random.Random, next_image) -> list[dict]:
    blocks = [{"type": "text", "text": prompt_text(rng), "format": "plain"}]
    if kind in ("image-editing", "reasoning"):
        blocks.append({"type": "image", "file": next_image()})
    return blocks


def _response(kind: str, rng: random.Random, next_image, model: str) -> dict:
    if kind == "interleaved":
        content = []
        for step in range(rng.randint(2, 4)):
            content.append({"type": "text", "text": f"Step {step + 1}: {prompt_text(rng)}."})
            content.append({"type": "image", "file": next_image()})
    elif kind == "reasoning":
        content = [
            {"type": "reasoning", "blocks": [{"type": "text", "text": "Crop the top-left quadrant to read the label."}]},
            {"type": "tool_call", "name": "python", "arguments": {"code": "crop(img, 0, 0, 256, 256)"},
             "result": [{"type": "image", "file": next_image()}]},
            {"type": "final_answer", "text": rng.choice(["A", "B", "C", "D"])},
        ]
    else:
        content = [{"type": "image", "file": next_image()}]
    return {"model": model, "content": content}


def _annotations(kind: str, rng: random.Random, raters: int, pool: int) -> list[dict]:
    out = []
    for rater in rng.sample(range(pool), raters):
        if kind == "reasoning":
            values = {"correctness": {"A": rng.randint(1, 5), "B": rng.randint(1, 5)}}
        else:
            values = {"overall": rng.randint(1, 6)}
        out.append({"rater": f"rater-{rater:03d}", "values": values, "rationale": "generated"})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--images", type=int, default=20_000)
    parser.add_argument("--kind", default="text-to-image",
                        choices=["text-to-image", "image-editing", "interleaved", "reasoning"])
    parser.add_argument("--raters", type=int, default=0, help="Ratings per pair (0: none).")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    made = generate(args.out, pairs=args.pairs, images=args.images, kind=args.kind, raters=args.raters, seed=args.seed)
    print(f"{made.pairs:,} pairs over {made.images:,} images in {made.seconds:.1f}s: {made.jsonl}")


if __name__ == "__main__":
    main()
