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
database, as annotate_load measures it); then each server against the baseline (``--baseline``, by default the
server named ``before``, else the first): the ratio of the mean cycles/s, and the mean of the rounds' own ratios
(each round's two phases run seconds apart, so they share the machine's drift) with its 95% confidence interval.
Never part of ``make test``.
"""

from __future__ import annotations

import argparse
import json
import statistics
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


# Student's t at 97.5% for 1 to 30 degrees of freedom (a two-sided 95% interval); beyond, the normal's 1.96.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def against(rates: list[float], baseline: list[float]) -> dict:
    """``rates`` against ``baseline``, round by round: the ratio of the means, and the mean of the rounds' ratios
    with its 95% confidence interval (t), in percent."""
    ratios = [100 * rate / base for rate, base in zip(rates, baseline, strict=True)]
    mean = statistics.fmean(ratios)
    degrees = len(ratios) - 1
    t = _T975[degrees - 1] if degrees <= len(_T975) else 1.96
    half = t * statistics.stdev(ratios) / len(ratios) ** 0.5 if degrees else float("nan")
    return {"of_means_pct": round(100 * statistics.fmean(rates) / statistics.fmean(baseline), 1),
            "rounds_mean_pct": round(mean, 1), "ci95_pct": [round(mean - half, 1), round(mean + half, 1)],
            "rounds": len(ratios), "rounds_below_90": sum(r < 90 for r in ratios)}


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
    parser.add_argument("--baseline", help="the server the others are compared with (default: before, else the first)")
    args = parser.parse_args()
    if len(args.server) < 2:
        parser.error("give at least two --server")
    names = [name for name, *_ in args.server]
    baseline = args.baseline or ("before" if "before" in names else names[0])
    if baseline not in names:
        parser.error(f"--baseline {baseline!r} names no --server")

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
    base_rates = [p["cycles_per_s"] for p in results[baseline]]
    for name, phases in results.items():
        if name != baseline:
            summary[name]["against_" + baseline] = ratio = against([p["cycles_per_s"] for p in phases], base_rates)
            print(f"{name} against {baseline}: {ratio['of_means_pct']}% of its mean cycles/s; the rounds' own ratios "
                  f"{ratio['rounds_mean_pct']}% (95% CI {ratio['ci95_pct'][0]}–{ratio['ci95_pct'][1]}%, "
                  f"{ratio['rounds']} rounds, {ratio['rounds_below_90']} below 90%)")
    print(json.dumps({"config": vars(args) | {"server": [f"{n}={t}:{w}x{th}:{c}" for n, t, w, th, c in args.server]},
                      "rounds": results, "summary": summary}, default=str))


if __name__ == "__main__":
    main()
