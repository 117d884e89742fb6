"""The full Figure 2 (four panels, 50 replications, Appendix C.1's full grids as set in
ldpviz.reproduce.paper) against 5 minutes.

Target (design.md, issue 14): under 5 minutes on a 2-core machine. Runs each panel with
``n_jobs=2`` and no cache, prints each panel's time and number of fits, the total and its ratio
to the budget, then the panels' mean MSEs (best over the grid) so one run also gives the
reproduction's numbers.

Usage: ``python benchmarks/bench_figure2.py [--reps 50] [--n-jobs 2] [--out DIR]``; with
``--out`` the CSVs and PNGs are written there too.
"""

import argparse
import time
from pathlib import Path

import pandas as pd

from ldpviz.reproduce import paper

BUDGET_SECONDS = 5 * 60


def main(reps=50, n_jobs=2, out=None):
    total = 0.0
    tables = {}
    for name in paper.FIGURES:
        start = time.perf_counter()
        results, best = paper.figure2(name, reps=reps, n_jobs=n_jobs, progress=False)
        seconds = time.perf_counter() - start
        total += seconds
        fits = len(results)
        print(f"{name}: {seconds:6.1f} s  ({fits:,} fits, {len(results['arm'].unique())} arms)")
        x = paper.FIGURES[name][1]
        tables[name] = best.pivot_table(index="series", columns=x, values="mse", aggfunc="mean")
        if out is not None:
            paper.write_outputs(out, name, {"": best, "_grid": results},
                                figure=paper.plot_figure2(name, best))
    ratio = total / BUDGET_SECONDS
    print(f"total {total:.1f} s = {total / 60:.1f} min for {reps} replications, n_jobs={n_jobs}; "
          f"ratio to the 5-minute budget {ratio:.2f} ({'ok' if ratio <= 1 else 'OVER BUDGET'})")
    with pd.option_context("display.width", 160, "display.precision", 4):
        for name, frame in tables.items():
            print(f"\n{name}: mean MSE against f*, best over the grid\n{frame}")
    return total


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    main(args.reps, args.n_jobs, args.out)
