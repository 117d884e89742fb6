"""Wall time of the what-if command on two generated tables, measured in one run.

1. A 58-feature, 200-row table (mixed scales, a constant and a duplicated column), 20 splits,
   epsilon in {1, 2, 4}, ``--n-jobs 2``: with three protected columns, and without
   ``--private`` (the per-column cost table). Target (issue 13): under 3 minutes on 2 cores.
2. A 1,000,000-row, 10-feature table with two protected columns at epsilon = 2 (``--reps 1``
   by default: one split of a million rows takes minutes; the command's own estimate for its
   default plan, 20 splits and three epsilons, is printed too).

Each case runs ``python -m ldpviz realdata`` in-process (``ldpviz.__main__.main``) without the
cache and prints its wall time next to the estimate the command printed before starting. The
machine's load average is printed first: on a shared machine absolute times are noisy.

Usage: ``python benchmarks/bench_whatif.py [--n-jobs 2] [--big-reps 1] [--skip-big]``
"""

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _whatif_tables import TARGET, Y_RANGE, make_table

from ldpviz.__main__ import main as ldpviz_main

BUDGET_SECONDS = 3 * 60


def _run(argv):
    """Run the command; return (wall seconds, its plan line or its error, exit code)."""
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = ldpviz_main(argv)
    seconds = time.perf_counter() - start
    lines = [line for line in out.getvalue().splitlines() if line.startswith("plan:")]
    lines += [line for line in err.getvalue().splitlines() if line.startswith("ldpviz: error")]
    return seconds, " ".join(lines), code


def main(n_jobs=2, big_reps=1, skip_big=False):
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    y_range = [str(v) for v in Y_RANGE]
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        frame, _ = make_table(200, 58, seed=0)
        frame.to_csv(folder / "wide.csv", index=False)
        common = [str(folder / "wide.csv"), "--target", TARGET, "--y-range", *y_range,
                  "--epsilon", "1", "2", "4", "--reps", "20", "--n-jobs", str(n_jobs),
                  "--no-cache", "--no-progress", "--out", str(folder / "out")]
        for label, extra in (("58 features, 200 rows, 3 protected", ["--private", "signal",
                                                                     "noise3", "noise4"]),
                             ("58 features, 200 rows, per-column costs", [])):
            seconds, plan, code = _run(["realdata", *common, *extra])
            verdict = "ok" if code == 0 and seconds <= BUDGET_SECONDS else "OVER BUDGET"
            print(f"{label}: {seconds:6.1f} s (exit {code}; ratio to 3 min "
                  f"{seconds / BUDGET_SECONDS:.2f}, {verdict}); {plan}")
        if skip_big:
            return
        frame, _ = make_table(1_000_000, 10, seed=0)
        frame.to_csv(folder / "big.csv", index=False)
        big = [str(folder / "big.csv"), "--target", TARGET, "--y-range", *y_range,
               "--private", "signal", "noise3", "--n-jobs", str(n_jobs), "--no-cache",
               "--no-progress", "--out", str(folder / "big_out")]
        _, plan, _ = _run(["realdata", *big, "--max-minutes", "1e-9"])  # the estimate only
        print(f"1,000,000 rows, 10 features, default plan (20 splits, 3 epsilons): {plan}")
        seconds, plan, code = _run(["realdata", *big, "--epsilon", "2", "--reps",
                                    str(big_reps), "--max-minutes", "600"])
        print(f"1,000,000 rows, 10 features, epsilon 2, {big_reps} split(s): {seconds:6.1f} s "
              f"(exit {code}); {plan}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--big-reps", type=int, default=1)
    parser.add_argument("--skip-big", action="store_true")
    args = parser.parse_args()
    main(args.n_jobs, args.big_reps, args.skip_big)
