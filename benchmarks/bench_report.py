"""The reproduction report (``python -m ldpviz reproduce report``) against its budgets: the full
plan under 15 minutes and ``--quick`` under 2 minutes, on two cores.

Prints each part's wall time, the total, the CPU seconds of this process and its workers (so a
busy machine can be told apart from a slow program: on two free cores the wall time is about
half the CPU seconds), and the ratios to the budgets.

Usage: ``python benchmarks/bench_report.py [--full] [--n-jobs 2] [--out DIR]
[--data-home DIR]``: the quick plan by default (``make bench`` runs it; a minute), the full one
with ``--full`` (about 10 minutes on two free cores).
"""

import argparse
import resource
import tempfile
import time

from joblib.externals.loky import get_reusable_executor

from ldpviz.reproduce.reproduction_report import headlines, write_report

BUDGETS = {"quick": 2 * 60, "full": 15 * 60}


def _cpu_seconds():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)  # the joblib workers, once reaped
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(quick=False, n_jobs=2, out=None, data_home=None):
    out = out or tempfile.mkdtemp(prefix="ldpviz-report-")
    cpu, start = _cpu_seconds(), time.perf_counter()
    path, rep = write_report(out, quick=quick, n_jobs=n_jobs, data_home=data_home, cache=False,
                             progress=False, log=print)
    wall = time.perf_counter() - start
    get_reusable_executor().shutdown(wait=True)  # the workers exit, so their CPU is counted
    cpu = _cpu_seconds() - cpu
    budget = BUDGETS[rep.plan.name]
    print(f"{rep.plan.name} report: {wall:.0f} s wall ({wall / 60:.1f} min), {cpu:.0f} CPU-s "
          f"(this process and its joblib workers), n_jobs={n_jobs}; ratio to the "
          f"{budget // 60}-minute budget {wall / budget:.2f} "
          f"({'ok' if wall <= budget else 'OVER BUDGET'}); wrote {path}")
    for line in headlines(rep):
        print(f"  - {line}")
    return wall


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="the full plan (default: quick)")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", default=None)
    parser.add_argument("--data-home", default=None)
    args = parser.parse_args()
    main(not args.full, args.n_jobs, args.out, args.data_home)
