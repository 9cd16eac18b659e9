"""Import benchmark: concord JSONL into PostgreSQL, pairs per second and peak memory.

    python bench/import_bench.py [--pairs 100000] [--images 20000] [--sizes 20000,100000]

For each size it generates a campaign with bench/datagen.py, creates a fresh PostgreSQL database,
runs ``manage.py import_pairs --json`` as a child process and reports the wall time, pairs/s and
the child's peak resident memory (ru_maxrss), then imports the file again (all duplicates).
Targets: >= 5,000 pairs/s and < 500 MB peak, whatever the file size.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.datagen import generate  # noqa: E402

SERVER = "postgres://postgres@127.0.0.1:5432"


def psql(sql: str, server: str) -> None:
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(sql)


def run_size(pairs: int, images: int, *, server: str, workdir: Path, batch_size: int) -> dict:
    data = generate(workdir / f"data-{pairs}", pairs=pairs, images=images)
    database = f"concord_bench_importers_{pairs}"
    psql(f"DROP DATABASE IF EXISTS {database}", server)
    psql(f"CREATE DATABASE {database}", server)
    env = {**os.environ, "DATABASE_URL": f"{server}/{database}", "DJANGO_SETTINGS_MODULE": "config.settings.production",
           "DJANGO_SECRET_KEY": "bench-only-secret-key-bench-only-secret-key-bench-only",
           "CONCORD_RATER_ID_SECRET": "bench-only-rater-secret",
           "DJANGO_MEDIA_ROOT": str(workdir / f"store-{pairs}"), "DJANGO_ALLOWED_HOSTS": "127.0.0.1"}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    args = ["import_pairs", str(data.jsonl), "--campaign", "bench", "--format", "concord", "--task", "text-to-image",
            "--media-root", str(data.media_root), "--json", "--batch-size", str(batch_size)]
    first = rusage_child(args, env, database, server)
    summary = json.loads(first.stdout)
    again = rusage_child(args, env, database, server)
    psql(f"DROP DATABASE IF EXISTS {database}", server)
    return {"pairs": pairs, "images": images, "file_mb": data.jsonl.stat().st_size / 2**20, "datagen_s": data.seconds,
            "created": summary["created"], "errors": len(summary["errors"]), "first": first,
            "duplicates": json.loads(again.stdout)["duplicates"], "again": again}


@dataclass
class Measured:
    seconds: float
    peak_mb: float  # the import process and its reader child together
    client_cpu: float
    server_cpu: float
    stdout: str


class ServerCpu(threading.Thread):
    """Samples the CPU time of the PostgreSQL backends serving ``database`` (from /proc) while a child runs."""

    def __init__(self, database: str, server: str):
        super().__init__(daemon=True)
        self.database, self.server = database, server
        self.ticks: dict[int, int] = {}
        self.done = threading.Event()

    def run(self) -> None:
        import psycopg

        with psycopg.connect(f"{self.server}/postgres", autocommit=True) as conn:
            while not self.done.is_set():
                pids = [r[0] for r in conn.execute(
                    "SELECT pid FROM pg_stat_activity WHERE datname = %s", [self.database]).fetchall()]
                for pid in pids:
                    try:
                        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                    except OSError:
                        continue
                    self.ticks[pid] = int(fields[11]) + int(fields[12])
                time.sleep(0.1)

    def seconds(self) -> float:
        self.done.set()
        self.join()
        return sum(self.ticks.values()) / os.sysconf("SC_CLK_TCK")


class TreeMemory(threading.Thread):
    """Samples the memory of a process and its descendants together (the import forks a reader): the sum of their PSS."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak = pid, 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.peak = max(self.peak, sum(_rss(pid) for pid in _tree(self.pid)))
            time.sleep(0.05)

    def peak_mb(self) -> float:
        self.done.set()
        self.join()
        return self.peak / 2**20


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return out


def _rss(pid: int) -> int:
    """The process's proportional share of resident memory (pages shared with its parent counted once in the sum)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def rusage_child(args: list[str], env: dict, database: str, server: str) -> Measured:
    """Run ``manage.py ARGS`` and measure that one child: wall time, peak RSS, its CPU and the server's."""
    sampler = ServerCpu(database, server)
    sampler.start()
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "manage.py", *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    memory = TreeMemory(process.pid)
    memory.start()
    out = process.stdout.read()
    err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    server_cpu = sampler.seconds()
    tree_peak = memory.peak_mb()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 2):
        raise SystemExit(f"manage.py {' '.join(args[:2])} exited {code}:\n{err.decode()[-3000:]}")
    # ru_maxrss is the largest single process; the import's reader child adds its own, so report the larger
    # of that and the sampled sum of both processes' PSS
    return Measured(seconds, max(usage.ru_maxrss / 1024, tree_peak), usage.ru_utime + usage.ru_stime, server_cpu,
                    out.decode())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--images", type=int, default=20_000)
    parser.add_argument("--sizes", default="", help="Comma-separated pair counts to compare memory across (images scale).")
    parser.add_argument("--server", default=os.environ.get("BENCH_POSTGRES", SERVER))
    parser.add_argument("--batch-size", type=int, default=2000)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s] or [args.pairs]
    workdir = Path(tempfile.mkdtemp(prefix="concord-import-bench-"))
    try:
        load = os.getloadavg()[0]
        print(f"machine: {os.cpu_count()} CPUs, load average {load:.1f} at start; python {sys.version.split()[0]}")
        print(f"{'pairs':>8} {'images':>7} {'file MB':>7} {'wall s':>7} {'pairs/s':>8} {'peak MB':>7} "
              f"{'client CPU s':>12} {'server CPU s':>12} {'pairs/CPU-s':>11} | {'re-import s':>11} {'peak MB':>7}")
        for pairs in sizes:
            images = max(1, args.images * pairs // args.pairs)
            r = run_size(pairs, images, server=args.server, workdir=workdir, batch_size=args.batch_size)
            assert r["errors"] == 0 and r["created"] == pairs and r["duplicates"] == pairs, r
            first, again = r["first"], r["again"]
            cpu = first.client_cpu + first.server_cpu
            print(f"{pairs:>8,} {images:>7,} {r['file_mb']:>7.1f} {first.seconds:>7.1f} {pairs / first.seconds:>8,.0f} "
                  f"{first.peak_mb:>7.0f} {first.client_cpu:>12.1f} {first.server_cpu:>12.1f} {pairs / cpu:>11,.0f} | "
                  f"{again.seconds:>11.1f} {again.peak_mb:>7.0f}", flush=True)
        print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
