"""Benchmark: export a published release of 100,000 image pairs as reward-model training data.

Goal (issue 34): ``export_training --format trl`` of 100,000 pairs with images in at most 60 s, peak memory under
1 GB. The release is the one ``bench/release_bench.py`` publishes (100,000 text-to-image pairs, two response images
each over 20,000 distinct PNGs, three MMRB2 ratings and a consensus per pair); each export runs in a child process
so its wall time and peak resident memory are its own.

    .venv/bin/python bench/export_bench.py [--pairs 100000] [--media 20000] [--formats trl,llamafactory,...] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import release_bench  # noqa: E402  (the release is generated and published exactly as that benchmark does)

FORMATS = ("trl", "llamafactory", "openrlhf", "swift")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--media", type=int, default=20_000)
    parser.add_argument("--formats", default="trl", help=f"Comma-separated, of {', '.join(FORMATS)} (default trl).")
    parser.add_argument("--keep", action="store_true", help="Reuse the database and release of an earlier run.")
    options = parser.parse_args()
    formats = [f for f in options.formats.split(",") if f]
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown:
        raise SystemExit(f"unknown format(s): {', '.join(unknown)}; one of {', '.join(FORMATS)}")

    out = release_bench.OUT
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start", flush=True)
    store = out / "store" / "bench"
    versions = sorted(p.name for p in store.iterdir()) if options.keep and store.is_dir() else []
    if versions:
        version = versions[-1]
        print(f"reusing the published release bench@{version}", flush=True)
    else:
        shutil.rmtree(out, ignore_errors=True)
        release_bench.recreate_database()
        seconds = release_bench.generate(options.pairs, options.media, 32)
        print(f"generated {options.pairs:,} pairs over {options.media:,} images in {seconds:.1f} s", flush=True)
        version = f"1.0.{int(time.time()) % 1_000_000}"
        elapsed, _cpu, _peak, _stdout = release_bench.run_child(
            ["publish_release", "--campaign", "bench-t2i", "--name", "bench", "--version", version, "--json"])
        print(f"published bench@{version} in {elapsed:.1f} s", flush=True)

    exports = out / "exports"
    for format in formats:
        target = exports / format
        shutil.rmtree(target, ignore_errors=True)
        elapsed, cpu, peak, stdout = release_bench.run_child(
            ["export_training", "--release", f"bench@{version}", "--format", format, "--ties", "margin",
             "--out", str(target), "--json"])
        result = json.loads(stdout)
        size = (target / "train.jsonl").stat().st_size / 2**20
        print(f"export_training --format {format}: {elapsed:.1f} s wall, {cpu:.1f} s CPU, peak RSS {peak:.0f} MiB, "
              f"{result['pairs']:,} pairs, {result['files']:,} files, train.jsonl {size:.0f} MiB "
              f"(left out: {result['left_out'] or 'none'})", flush=True)


if __name__ == "__main__":
    main()
