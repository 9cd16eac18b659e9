"""What one sign-in's password check costs, for each hasher Concord could use, alone and with checks in parallel.

    /work/main/.venv/bin/python bench/password_hashers.py [--checks 20] [--threads 1,6,16] [--json]

Hashes one password with each hasher, then times ``check_password`` ``--checks`` times per thread with 1, 6 (the
Dockerfile's 3 gunicorn workers × 2 threads) and 16 threads at once, and prints each hasher's median and 95th
percentile per check and its CPU seconds per check. No database, no server: this is the hashing's share of a
sign-in, the part that competes with the work queue for the cores. Target (issue 35): sign-in p95 ≤ 1 s during
the 50-rater soak, of which the hash may take a small part. Never part of ``make test``; figures go in
``bench/README.md`` and docs/decisions/password-hasher.md.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

HASHERS = {
    "pbkdf2 (Django 5.2 default, 1,000,000 iterations)": "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "argon2 (Django's cost: 100 MiB, t=2, p=8)": "django.contrib.auth.hashers.Argon2PasswordHasher",
    "argon2id (Concord: 19 MiB, t=2, p=1)": "annotation.accounts.hashers.ConcordArgon2PasswordHasher",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=20, help="checks per thread (default 20)")
    parser.add_argument("--threads", default="1,6,16", help="comma-separated thread counts (default 1,6,16)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    import django
    from django.conf import settings

    settings.configure(PASSWORD_HASHERS=list(HASHERS.values()))
    django.setup()
    from django.contrib.auth.hashers import check_password

    results = []
    for label, path in HASHERS.items():
        hasher = _hasher(path)
        encoded = hasher.encode("a rater's passphrase", hasher.salt())
        for threads in (int(n) for n in args.threads.split(",")):
            timings, cpu = _run(functools.partial(check_password, "a rater's passphrase", encoded, preferred=hasher), threads,
                                args.checks)
            ordered = sorted(timings)
            results.append({"hasher": label, "threads": threads, "checks": len(ordered),
                            "median_s": round(statistics.median(ordered), 4),
                            "p95_s": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 4),
                            "cpu_s_per_check": round(cpu / len(ordered), 4)})
            if not args.json:
                row = results[-1]
                print(f"{label:52} {threads:>3} threads  median {row['median_s']:.3f} s  p95 {row['p95_s']:.3f} s"
                      f"  cpu {row['cpu_s_per_check']:.3f} s/check", flush=True)
    if args.json:
        print(json.dumps({"cores": os.cpu_count(), "load_average": os.getloadavg(), "results": results}))
    else:
        print(f"cores {os.cpu_count()}, load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


def _hasher(path: str):
    from django.utils.module_loading import import_string

    return import_string(path)()


def _run(check, threads: int, checks: int) -> tuple[list[float], float]:
    timings: list[float] = []
    lock = threading.Lock()

    def worker():
        for _ in range(checks):
            began = time.perf_counter()
            assert check()
            took = time.perf_counter() - began
            with lock:
                timings.append(took)

    cpu_before = time.process_time()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return timings, time.process_time() - cpu_before


if __name__ == "__main__":
    main()
