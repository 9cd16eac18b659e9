"""Renditions and the self-identification scan: what making them costs, per image and per pair (no database).

    python bench/renditions_bench.py [--size 2048] [--rounds 3]

Makes a photo-like PNG (smooth gradients with grain, as generated outputs are) with its maker in a text chunk,
then times each rendition an annotator's page asks for (the full one for 1:1, WebP at 640/1280/1920) and a
JPEG original's full rendition; and the scan of two 1.7 KB responses. Prints the best of ``--rounds``.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image, PngImagePlugin  # noqa: E402

from annotation.catalogue import renditions, self_identification  # noqa: E402


def photo_like(size: int) -> Image.Image:
    rng = random.Random(7)
    small = Image.new("RGB", (64, 64))
    small.putdata([(x * 4, y * 4, (x + y) * 2) for y in range(64) for x in range(64)])
    image = small.resize((size, size), Image.Resampling.BICUBIC)
    grain = Image.effect_noise((size, size), 18).convert("RGB")
    rng.random()
    return Image.blend(image, grain, 0.12)


def best(rounds: int, run) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2048)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    image = photo_like(args.size)
    info = PngImagePlugin.PngInfo()
    info.add_text("parameters", "a fox, Steps: 30, Model: some-generator-v2")
    png = io.BytesIO()
    image.save(png, "PNG", pnginfo=info)
    jpeg = io.BytesIO()
    image.save(jpeg, "JPEG", quality=92)
    limit = 10**9
    print(f"original PNG {args.size}x{args.size}: {len(png.getvalue()) / 1e6:.2f} MB; JPEG {len(jpeg.getvalue()) / 1e6:.2f} MB")
    rows = [("full (PNG → PNG)", lambda: renditions.full(png.getvalue(), max_pixels=limit)),
            ("full (JPEG → JPEG, own tables)", lambda: renditions.full(jpeg.getvalue(), max_pixels=limit))]
    rows += [(f"w{w}.webp", lambda w=w: renditions.sized(png.getvalue(), width=w, extension="webp", max_pixels=limit))
             for w in renditions.widths_for(args.size)]
    for label, run in rows:
        seconds = best(args.rounds, run)
        print(f"{label:32s} {seconds * 1000:8.1f} ms  {len(run().data) / 1e3:9.1f} kB")
    text = {"A": "The quick brown fox jumps over the lazy dog. " * 40, "B": "Lorem ipsum dolor sit amet, consectetur. " * 40}
    names = ["acme-chat-7b-2024-05", "other/thing-7b-instruct"]
    pairs = 2000
    seconds = best(args.rounds, lambda: [self_identification.scan(sides=text, model_names=names) for _ in range(pairs)])
    print(f"self-identification scan: {seconds / pairs * 1e6:.0f} µs per pair (2 × {len(text['A']):,} characters)")


if __name__ == "__main__":
    main()
