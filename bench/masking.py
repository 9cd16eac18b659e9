"""Masking cost per response text: the literal search alone (the code before issue 36's folding) against the whole
redaction (literal, then the folded search), for typical response texts.

    .venv/bin/python bench/masking.py [--repeat 2000]

Prints µs per text for each kind. Never part of ``make test``; figures go in bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

from annotation.workqueue.selectors import _Hidden  # noqa: E402

TEXTS = {
    "plain English, 1,200 chars": ("The fox jumped over the lazy dog while the sun set behind the hills. " * 18),
    "markdown English, 1,200 chars": ("**Step 1.** Crop the `image` and *compare* the two_regions; see [note]. " * 17),
    "Russian, 1,200 chars": ("Лиса прыгнула через ленивую собаку, пока солнце садилось за холмы. " * 18),
    "Chinese, 600 chars": ("狐狸跳过了懒狗，太阳在山后落下。" * 37),
    "English naming its model, 1,200 chars": ("I am secret-model-alpha and I help. " * 33),
}


def per_text(call, text: str, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        call(text)
    return (time.perf_counter() - start) / repeat * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000)
    args = parser.parse_args()
    print(f"{'text':40} {'literal µs':>11} {'folded too µs':>14}")
    for name, text in TEXTS.items():
        # A fresh _Hidden per round, as each display builds its own (names differ per pair).
        literal = per_text(lambda t: _Hidden(["secret-model-alpha", "other-bot-2"], ["Acme"])._redact_literal(t), text,
                           args.repeat)
        whole = per_text(lambda t: _Hidden(["secret-model-alpha", "other-bot-2"], ["Acme"]).redact(t), text, args.repeat)
        print(f"{name:40} {literal:11.1f} {whole:14.1f}")


if __name__ == "__main__":
    main()
