"""Two or more versions of Concord (or server settings) compared on this drifting machine: interleaved, not in turn.

    /work/main/.venv/bin/python bench/annotate_interleaved.py --server before=/tmp/concord-before \
        --server after=. --rounds 10 --phase 6

This machine's speed drifts by more than the effects sought (the same closed loop gave 158 to 410 cycles/s
minutes apart), so two runs of ``annotate_load.py`` one after the other compare the drift, not the code.
Here every server runs at once against one database (an idle gunicorn costs nothing), and short closed-loop
phases go to each in turn, the order reversed every round, so the drift falls on all alike. Each
``--server NAME=TREE[:WORKERSxTHREADS[:CLASS]]`` is a checkout (``git worktree add /tmp/concord-before <rev>``;
its ``.venv`` may be a link to this one) served by gunicorn, ``gthread`` 3 × 2 unless given (``:6x1:sync``: six
``sync`` workers, which close every connection). All of them share the
campaign: the pool they claim from shrinks the same way for each.

Prints each round's cycles/s, then per server the mean, range, rounds won, and CPU per cycle (server and
database, as annotate_load measures it). Never part of ``make test``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import annotate_load  # noqa: E402


def parse_server(text: str) -> tuple[str, Path, int, int, str]:
    name, _, rest = text.partition("=")
    tree, _, shape = rest.partition(":")
    shape, _, worker_class = shape.partition(":")
    workers, _, threads = (shape or "3x2").partition("x")
    path = Path(tree or ".").resolve()
    threads = threads or "1"
    if not name or not (path / "manage.py").is_file() or not (workers.isdigit() and threads.isdigit()):
        raise argparse.ArgumentTypeError(
            f"--server NAME=TREE[:WORKERSxTHREADS[:CLASS]], TREE a Concord checkout: {text!r}")
    return name, path, int(workers), int(threads), worker_class or "gthread"


def backend_of(tree: Path, db: str) -> str:
    """The first authentication backend of the Concord checkout at ``tree``, as its own settings name it."""
    script = "import django; django.setup(); from django.conf import settings; print(settings.AUTHENTICATION_BACKENDS[0])"
    return subprocess.run([sys.executable, "-c", script], cwd=tree, env=annotate_load._env(db), check=True,
                          capture_output=True, text=True).stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", action="append", type=parse_server, required=True,
                        help="NAME=TREE[:WORKERSxTHREADS[:CLASS]]; give two or more")
    parser.add_argument("--pairs", type=int, default=60_000)
    parser.add_argument("--annotators", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--phase", type=float, default=6.0, help="seconds of closed loop per server per round")
    parser.add_argument("--db", default="concord_interleaved")
    args = parser.parse_args()
    if len(args.server) < 2:
        parser.error("give at least two --server")

    annotate_load.setup_django(args.db)
    annotate_load.make_annotators(args.annotators)
    annotate_load.copy_campaign("interleaved", args.pairs)
    servers = []
    try:
        for name, tree, workers, threads, worker_class in args.server:
            process, url = annotate_load.start_gunicorn(args.db, tree=tree, workers=workers, threads=threads,
                                                        worker_class=worker_class)
            # The same raters, signed in to each version as it names its backend (the apps were split once).
            sessions = annotate_load.make_sessions(backend_of(tree, args.db))
            servers.append((name, url, process, sessions))
            annotate_load.run_phase(url, "interleaved", sessions, 3.0)  # warm the workers
        results = {name: [] for name, *_ in servers}
        for round_ in range(args.rounds):
            for name, url, process, sessions in servers if round_ % 2 == 0 else servers[::-1]:
                phase = annotate_load._measured_phase(process.pid, url, "interleaved", sessions, args.phase, args.pairs)
                results[name].append(annotate_load._strip(phase))
            print(f"round {round_ + 1}: " + "  ".join(f"{n} {r[-1]['cycles_per_s']}" for n, r in results.items()),
                  flush=True)
    finally:
        for _, _, process, _ in servers:
            annotate_load.stop_gunicorn(process)
    summary = {}
    for name, phases in results.items():
        rates = [p["cycles_per_s"] for p in phases]
        won = sum(rate == max(results[other][i]["cycles_per_s"] for other in results) for i, rate in enumerate(rates))
        summary[name] = {
            "cycles_per_s_mean": round(sum(rates) / len(rates), 1), "min": min(rates), "max": max(rates),
            "rounds_won": won, "failures": [p["failures"] for p in phases if p["failures"]],
            **{key: round(sum(p[key] for p in phases) / len(phases), 2)
               for key in ("server_cpu_ms_per_cycle", "db_cpu_ms_per_cycle")},
        }
        print(f"{name}: {summary[name]['cycles_per_s_mean']} cycles/s mean ({min(rates)}–{max(rates)}), "
              f"ahead in {won} of {len(rates)} rounds; CPU per cycle server {summary[name]['server_cpu_ms_per_cycle']} "
              f"+ database {summary[name]['db_cpu_ms_per_cycle']} ms; failures {summary[name]['failures'] or 'none'}")
    print(json.dumps({"config": vars(args) | {"server": [f"{n}={t}:{w}x{th}:{c}" for n, t, w, th, c in args.server]},
                      "rounds": results, "summary": summary}, default=str))


if __name__ == "__main__":
    main()
