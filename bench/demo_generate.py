"""Time the demo generator: ``python bench/demo_generate.py`` prints pairs, files, bytes and seconds.

Runs without Django or a database: only the generator that ``manage.py seed_demo`` calls first.
"""

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from demo.build import build_demo  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        wall, cpu = time.perf_counter(), time.process_time()
        campaigns, media_root = build_demo(Path(tmp))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        files = [p for p in media_root.rglob("*") if p.is_file()]
        for c in campaigns:
            print(f"{c.slug:<22} {c.kind:<15} {c.pairs:>4} pairs")
        print(f"pairs: {sum(c.pairs for c in campaigns)}  media files: {len(files)}  "
              f"media bytes: {sum(p.stat().st_size for p in files) / 1e6:.1f} MB")
        print(f"generation: {wall:.1f} s wall, {cpu:.1f} s CPU")


if __name__ == "__main__":
    main()
