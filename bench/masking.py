"""Masking model names for annotators, and the self-identification scan: µs per response (no database).

    python bench/masking.py [--rounds 7] [--repeat 200] [--before cf135f9]

Times, for a response of typical size (~1.8 KB) in English, Russian and Chinese, what each string of an
annotator's display costs: the mask of a display whose pair names two models and two external ids, with one
self-identification found at import, on a text that names none of them (nearly every response) and on one that
names a model once; and the scan that runs at import. ``--before REV`` also times the code as it was at that
commit (its masking class and scan, read with ``git show``), in the same process. Prints the best of
``--rounds`` rounds of ``--repeat`` calls each.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from annotation.catalogue import masking, self_identification  # noqa: E402

MODELS = ["acme-chat-7b-2024-05", "other-bot-2"]
SECRETS = [*MODELS, "pair-000123", "prompt-7"]
WORDS = ["Gemini"]

ENGLISH = ("The fox is a small omnivorous mammal of the family Canidae. It has a narrow snout, a bushy tail and "
           "large ears; it hunts at dusk and at night, alone or in pairs, and eats rodents, birds, insects and fruit. "
           "Foxes live on every continent but Antarctica. ")
RUSSIAN = ("Лиса — небольшое всеядное млекопитающее семейства псовых. У неё узкая морда, пушистый хвост и большие уши; "
           "она охотится в сумерках и ночью, одна или парами, и ест грызунов, птиц, насекомых и плоды. Лисы живут на "
           "всех континентах, кроме Антарктиды. ")
CHINESE = ("狐狸是犬科的一种小型杂食性哺乳动物。它有狭长的口鼻、蓬松的尾巴和大耳朵；它在黄昏和夜间单独或成对捕猎，"
           "吃啮齿动物、鸟类、昆虫和水果。除南极洲外，各大洲都有狐狸。")


def typical(paragraph: str, size: int = 1800) -> str:
    """About ``size`` characters of ``paragraph``, in paragraphs."""
    out = ""
    while len(out) < size:
        out += paragraph + "\n\n"
    return out[:size]


def best_us(rounds: int, repeat: int, run) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            run()
        times.append((time.perf_counter() - start) / repeat)
    return min(times) * 1e6


def before(rev: str):
    """The masking class (``selectors._Hidden``) and the scan module of commit ``rev``."""
    selectors = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:annotation/workqueue/selectors.py"],
                               check=True, capture_output=True, text=True).stdout
    block = selectors[selectors.index('REDACTED = "[hidden]"'):selectors.index("def _blind_patterns")]
    namespace: dict = {"re": re}
    exec(block, namespace)  # the class alone: the module needs Django
    scan_source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:annotation/catalogue/self_identification.py"],
                                 check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "self_identification_before.py"
    path.write_text(scan_source)
    spec = importlib.util.spec_from_file_location("self_identification_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    hidden = namespace["_Hidden"]
    return (lambda secrets, words: hidden(sorted(secrets, key=len, reverse=True), words)), module


def measure(label: str, make_mask, scanner, texts: dict[str, str], rounds: int, repeat: int) -> None:
    for kind, text in texts.items():
        named = text[:900] + " I am Acme\u2011Chat. " + text[900:]
        figures = []
        for sample in (text, named):
            mask = make_mask(SECRETS, WORDS)  # one per display, as pair_display makes it
            figures.append(best_us(rounds, repeat, lambda mask=mask, sample=sample: mask.redact(sample)))
        scan_us = best_us(rounds, max(1, repeat // 4),
                          lambda text=text: scanner.scan(sides={"A": text}, model_names=MODELS))
        print(f"{label:7} {kind:8} {len(text):5} chars   mask, no name {figures[0]:8.1f} µs   "
              f"mask, one name {figures[1]:8.1f} µs   scan {scan_us:8.1f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--before", help="a commit to time as well, e.g. cf135f9 (the commit before this masking)")
    args = parser.parse_args()
    texts = {"English": typical(ENGLISH), "Russian": typical(RUSSIAN), "Chinese": typical(CHINESE, 600)}
    if args.before:
        make_mask, scanner = before(args.before)
        measure("before", make_mask, scanner, texts, args.rounds, args.repeat)
    measure("after", masking.Mask, self_identification, texts, args.rounds, args.repeat)


if __name__ == "__main__":
    main()
