"""The what-if command's run-time estimate against the measured time, and its wall time.

The command estimates, before it starts, how long the run takes on an otherwise idle machine
(``ldpviz.reproduce.runtime.estimate_seconds``: pilot fits on the CPU clock). On a shared
machine wall time depends on the load, so the estimate is checked against the CPU seconds the
run used (with one job, what it takes on an idle core: the fits are single-threaded); the goal
is a ratio estimate / measured within 0.7-1.3. The wall time and the load average are printed
next to it.

Cases (generated tables, ``tests/_whatif_tables.py``; ``python -m ldpviz realdata`` run
in-process without the cache):

1. 58 features, 200 rows, 20 splits, epsilon in {1, 2, 4}: three protected columns, and the
   per-column costs (no ``--private``). Target (issue 13): under 3 minutes on 2 cores.
2. 10 features, 2,000 rows, 10 splits, epsilon in {1, 2, 4}, two protected columns.
3. 10 features, 60,000 rows (42,000 training rows: pilots at 5,000 and 20,000 rows, and each
   grid's costliest point at 42,000), 2 splits, epsilon 2, two protected columns.
4. (unless ``--skip-big``) 1,000,000 rows, 10 features, epsilon 2, ``--big-reps`` splits
   (700,000 training rows: pilots at 5,000 and 20,000 rows, the costliest point at up to
   80,000, extrapolated as a power of n); the estimate of the default plan (20 splits, three
   epsilons) is printed too.

Each line also prints the pilot fits' own CPU seconds (the estimate's cost, paid before every
run).

Usage: ``python benchmarks/bench_whatif.py [--n-jobs 1] [--big-reps 1] [--skip-big]``
(``--n-jobs 2`` measures the parallel wall time; the CPU seconds then include the workers').
"""

import argparse
import contextlib
import io
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _whatif_tables import TARGET, Y_RANGE, make_table

from ldpviz.__main__ import main as ldpviz_main
from ldpviz.reproduce import whatif as whatif_module

BUDGET_SECONDS = 3 * 60


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(argv):
    """Run the command; return (estimate s, wall s, total wall s, CPU s, its plan line or
    error, exit code, the pilot's CPU s).
    The times run from the estimate (after the pilot fits) to the end, report written; the
    CPU seconds are this process's and, after the worker pool is shut down, its workers'."""
    from joblib.externals.loky import get_reusable_executor

    estimates, clocks, pilots = [], [], []
    estimate = whatif_module.estimate_seconds

    def recorded(*args, **kwargs):
        begin = time.process_time()
        out = estimate(*args, **kwargs)
        pilots.append(time.process_time() - begin)
        estimates.append(out[0])
        clocks.append((time.process_time(), _children_cpu(), time.perf_counter()))
        return out

    whatif_module.estimate_seconds = recorded
    out, err = io.StringIO(), io.StringIO()
    begin = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = ldpviz_main(argv)
        get_reusable_executor().shutdown(wait=True)  # its workers' CPU time is counted
    finally:
        whatif_module.estimate_seconds = estimate
    cpu, children, start = clocks[-1] if clocks else (time.process_time(), _children_cpu(),
                                                       time.perf_counter())
    wall, total = time.perf_counter() - start, time.perf_counter() - begin
    cpu = time.process_time() - cpu + _children_cpu() - children
    lines = [line for line in out.getvalue().splitlines() if line.startswith("plan:")]
    lines += [line for line in err.getvalue().splitlines() if line.startswith("ldpviz: error")]
    return (estimates[-1] if estimates else float("nan")), wall, total, cpu, " ".join(lines), \
        code, (pilots[-1] if pilots else float("nan"))


def _report(label, argv, n_jobs, budget=None):
    before = os.getloadavg()[0]
    estimate, wall, total, cpu, plan, code, pilot = _run(argv)
    after = os.getloadavg()[0]
    # The estimate is the idle wall time with n_jobs workers: compare the CPU seconds per job.
    measured = cpu / n_jobs
    verdict = "" if budget is None else (
        f"; in all {total:.0f} s, / 3 min {total / budget:.2f}"
        + (" OVER BUDGET" if total > budget else ""))
    print(f"{label}: estimate {estimate:7.1f} s, measured {measured:7.1f} CPU s per job "
          f"(ratio {estimate / measured:.2f}; pilot {pilot:.1f} CPU s); wall {wall:6.1f} s "
          f"after the estimate, at load {before:.1f}-{after:.1f}{verdict} (exit {code})")
    if code:
        print(f"    {plan}")
    return estimate / measured


def main(n_jobs=1, big_reps=1, skip_big=False):
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; n_jobs {n_jobs}")
    y_range = [str(v) for v in Y_RANGE]
    ratios = []
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)

        def table(n, d, name):
            frame, _ = make_table(n, d, seed=0)
            frame.to_csv(folder / name, index=False)
            return [str(folder / name), "--target", TARGET, "--y-range", *y_range,
                    "--n-jobs", str(n_jobs), "--no-cache", "--no-progress", "--out",
                    str(folder / "out")]

        wide = [*table(200, 58, "wide.csv"), "--epsilon", "1", "2", "4", "--reps", "20"]
        for label, extra in (("58 features, 200 rows, 3 protected, 20 splits",
                              ["--private", "signal", "noise3", "noise4"]),
                             ("58 features, 200 rows, per-column costs, 20 splits", [])):
            ratios.append(_report(label, ["realdata", *wide, *extra], n_jobs, BUDGET_SECONDS))
        mid = [*table(2000, 10, "mid.csv"), "--epsilon", "1", "2", "4", "--reps", "10",
               "--private", "signal", "noise3"]
        ratios.append(_report("10 features, 2,000 rows, 2 protected, 10 splits",
                              ["realdata", *mid], n_jobs))
        tall = [*table(60_000, 10, "tall.csv"), "--epsilon", "2", "--reps", "2",
                "--private", "signal", "noise3"]
        ratios.append(_report("10 features, 60,000 rows, 2 protected, 2 splits, ε = 2",
                              ["realdata", *tall], n_jobs))
        if not skip_big:
            big = [*table(1_000_000, 10, "big.csv"), "--private", "signal", "noise3"]
            estimate, *_ = _run(["realdata", *big, "--max-minutes", "1e-9"])
            print(f"1,000,000 rows, 10 features, default plan (20 splits, 3 epsilons): "
                  f"estimate {estimate / 60:.0f} min")
            ratios.append(_report(f"1,000,000 rows, 10 features, ε = 2, {big_reps} split(s)",
                                  ["realdata", *big, "--epsilon", "2", "--reps",
                                   str(big_reps), "--max-minutes", "600"], n_jobs))
    print(f"estimate / measured: {', '.join(f'{r:.2f}' for r in ratios)} "
          f"(goal: each within 0.70-1.30)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--big-reps", type=int, default=1)
    parser.add_argument("--skip-big", action="store_true")
    args = parser.parse_args()
    main(args.n_jobs, args.big_reps, args.skip_big)
