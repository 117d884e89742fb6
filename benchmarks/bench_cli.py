"""A command line that answers at once: ``python -m ldpviz --help`` and one-line usage errors.

Each command runs in a fresh interpreter, as a user types it, several times; the benchmark
prints the median and the slowest wall time of each, next to a bare interpreter (``python -c
pass``) and to importing the numerical stack the commands leave alone (``import
ldpviz.estimators``: numpy, scipy, pandas, scikit-learn; what ``--help`` paid before the
imports became lazy). Target: every line under 1 s on the two-core machine with one other
process keeping a core busy: the benchmark starts one (``BUSY``, default 1) and prints the load
average first.

Usage: ``python benchmarks/bench_cli.py [REPEATS [BUSY]]`` (default 5 and 1).
"""

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _timing import busy_cores

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 1.0
COMMANDS = [
    ("python -c pass (the interpreter alone)", ["-c", "pass"], None),
    ("import ldpviz.estimators (the stack, for scale)", ["-c", "import ldpviz.estimators"], None),
    ("ldpviz --help", ["-m", "ldpviz", "--help"], 0),
    ("ldpviz reproduce --help", ["-m", "ldpviz", "reproduce", "--help"], 0),
    ("ldpviz (no command)", ["-m", "ldpviz"], 2),
    ("ldpviz reproduce (no name)", ["-m", "ldpviz", "reproduce"], 2),
    ("ldpviz reproduce fig9", ["-m", "ldpviz", "reproduce", "fig9"], 2),
    ("ldpviz reproduce fig2a --n-jobs 64", ["-m", "ldpviz", "reproduce", "fig2a", "--n-jobs",
                                            "64"], 2),
    ("ldpviz reproduce table1 --quick", ["-m", "ldpviz", "reproduce", "table1", "--quick"], 2),
    ("ldpviz realdata missing.csv --target y", ["-m", "ldpviz", "realdata", "missing.csv",
                                                "--target", "y"], 2),
    ("ldpviz realdata README.md --target y --epsilon 0",
     ["-m", "ldpviz", "realdata", "README.md", "--target", "y", "--epsilon", "0"], 2),
    ("ldpviz realdata README.md --target y --methods hot-me",
     ["-m", "ldpviz", "realdata", "README.md", "--target", "y", "--methods", "hot-me"], 2),
]


def _time(argv, code):
    start = time.perf_counter()
    out = subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=ROOT,
                         timeout=300)
    seconds = time.perf_counter() - start
    if code is not None and out.returncode != code:
        raise SystemExit(f"bench_cli: {' '.join(argv)} exited {out.returncode}, not {code}:\n"
                         f"{out.stderr[-2000:]}")
    return seconds


def main(repeats=5, busy=1):
    with busy_cores(busy):
        _run(repeats, busy)


def _run(repeats, busy):
    print(f"bench_cli: load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on "
          f"{os.cpu_count()} cores, {busy} kept busy; {repeats} runs each, fresh interpreters")
    print(f"{'command':58s} {'median':>8s} {'slowest':>8s}")
    worst = 0.0
    for name, argv, code in COMMANDS:
        _time(argv, code)  # warm the file cache
        times = [_time(argv, code) for _ in range(repeats)]
        print(f"{name:58s} {statistics.median(times):7.2f}s {max(times):7.2f}s", flush=True)
        if code is not None:
            worst = max(worst, max(times))
    print(f"slowest ldpviz command: {worst:.2f} s (target < {TARGET_S:g} s): "
          f"{'met' if worst < TARGET_S else 'NOT met'}")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:3]))
