"""How long the server takes to render one annotation pair, per kind (Markdown, nh3, Pygments, templates).

Renders the pair and the rating form from display data shaped like ``pair_display``'s, with
realistic sizes: a 15-step reasoning trace with code and tool calls, an interleaved story of 8
parts. No database is touched. Prints p50/p95/p99 in milliseconds per kind.

    DJANGO_SETTINGS_MODULE=config.settings.base python bench/workspace_render.py [--rounds 200] [--cold]
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

import django  # noqa: E402

django.setup()

from django.template.loader import render_to_string  # noqa: E402

from annotation.catalogue import schemas  # noqa: E402
from frontend import rating_form  # noqa: E402
from frontend.templatetags import workspace  # noqa: E402


def image(n: int) -> dict:
    digest = f"{n:064x}"
    return {"type": "image", "media": digest, "alt": "", "url": f"/media/{digest}.png"}


def text(words: int, n: int) -> dict:
    body = " ".join(f"word{n}-{i}" for i in range(words))
    return {"type": "text", "text": f"## Part {n}\n\n{body} **bold** and `code`.\n\n- one\n- two", "format": "markdown"}


CODE = (
    "import numpy as np\nfrom PIL import Image\n\nimg = Image.open('x.png')\n"
    "arr = np.asarray(img)\nprint(arr.mean(axis=(0, 1)))\n"
) * 3


def trace(steps: int, side: str) -> list:
    blocks = []
    for i in range(steps):
        inner = [text(60, i), {"type": "code", "language": "python", "code": f"# {side} step {i}\n{CODE}"}]
        if i % 3 == 0:
            arguments = {"code": f"# {side} tool {i}\n{CODE}", "timeout": 30}
            inner.append({"type": "tool_call", "name": "python", "arguments": arguments, "result": [image(1000 + i)]})
        blocks.append({"type": "reasoning", "blocks": inner})
    return [*blocks, {"type": "final_answer", "text": "**42**"}]


def story(parts: int, offset: int) -> list:
    return [block for i in range(parts) for block in (text(120, i), image(offset + i))]


CASES = {
    "text-to-image": ("mmrb2-generation", [text(30, 0)], [image(1)], [image(2)]),
    "image-editing": ("mmrb2-generation", [text(30, 0), image(3), image(4), image(5)], [image(6)], [image(7)]),
    "interleaved": ("mmrb2-generation", [text(50, 0), image(8)], story(8, 100), story(8, 200)),
    "reasoning": ("mmrb2-reasoning", [text(40, 0), image(9)], trace(15, "A"), trace(15, "B")),
}


def render(kind: str, preset: str, prompt, left, right) -> str:
    definition = schemas.preset(preset, kind)
    display = {"assignment": 1, "campaign": "bench", "kind": kind, "instructions": "", "prompt": prompt, "left": left,
               "right": right, "criteria": [], "schema": definition, "draft": {}}
    fields = rating_form.build(definition, criteria=[], draft={})
    return render_to_string("frontend/workspace/pair.html", {"display": display}) + render_to_string(
        "frontend/workspace/form.html", {"fields": fields})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--cold", action="store_true", help="clear the Markdown and highlighting caches before each render")
    args = parser.parse_args()
    print(f"{'cold' if args.cold else 'warm'} caches, {args.rounds} rounds")
    print(f"{'kind':<16}{'bytes':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
    for kind, (preset, prompt, left, right) in CASES.items():
        html = render(kind, preset, prompt, left, right)
        times = []
        for _ in range(args.rounds):
            if args.cold:
                workspace._markdown_html.cache_clear()
                workspace._highlighted.cache_clear()
            start = time.perf_counter()
            render(kind, preset, prompt, left, right)
            times.append((time.perf_counter() - start) * 1000)
        cuts = statistics.quantiles(times, n=100)
        print(f"{kind:<16}{len(html):>9,}{cuts[49]:>9.2f}{cuts[94]:>9.2f}{cuts[98]:>9.2f}")


if __name__ == "__main__":
    main()
