"""The three unbounded costs of issue 32, timed: ``load_csv`` on a 200 x 200 table, a
classifier with 100,000 classes, AdHistOfTree on a wide table of 300 users.

Each row prints the median of ``--repeats`` runs in seconds. To compare two versions of the
package in one session (the machine is shared: ratios are only meaningful measured side by
side), run this script alternately under each, e.g.::

    PYTHONPATH=/path/to/old/src python benchmarks/bench_inputs.py --tag old
    python benchmarks/bench_inputs.py --tag new

Targets: ``load_csv`` well under 2 s for any 200 x 200 table (one-hot encoding included); the
classifier and AdHistOfTree bounded (checked by the resource budget before the work starts, or
cheap enough that the budget's few seconds hold).

Measured 2026-11-28 on the 2-core machine shared with other jobs (load 6 to 11 during the run),
old = main at eddeb7a (before issue 32's input changes), new = after, alternated case by case:

=================================  ========  ========
case                                 old (s)   new (s)
=================================  ========  ========
load_csv 200x200 numbers               1.97      0.78
load_csv 200x200 text, ordinal         6.08      2.81
load_csv 200x200 text, one-hot        68.02      2.66
HistClassifier 100,000 classes         6.44      1.35
AdHistOfTree n=300 d=500 max-edge      3.17      1.97
AdHistOfTree n=300 d=500 cart         38.10      3.98
AdHistOfTree n=300 d=2000 max-edge    10.59      6.45
AdHistOfTree n=300 d=2000 cart       143.35     21.64
=================================  ========  ========

Beyond these sizes the budget refuses before the work starts: AdHistOfTree's depth search is
checked with its trees counted (20,000 features: refused, naming depth_search='rule'), and so
are the (d + 1)^2 tables of its selection.

``--calibrate`` prints the time per entry the resource budget counts (``max_report_entries``,
documented as about 10 ns each) for tree growths of several shapes, the cell reports alone and
whole fits, all in one run, with the load average. Once the growth's tables per (tree axis,
node) were counted (``ldpviz._config.growth_entries``), measured 2026-11-28 (load 2.3):

=====================================================  ==========  =========  ==========
case                                                    ns/entry    (before)   seconds
=====================================================  ==========  =========  ==========
grow max-edge, 300 users x 2,000 axes, depth 9             6.3        54.2       0.88
grow max-edge, 100 users x 3,000 axes, depth 7             3.6        29.8       0.19
grow max-edge, 20,000 users x 30 axes, depth 15            3.1        16.5       0.45
grow max-edge, 1,000,000 users x 3 axes, depth 20          6.0        18.6       3.34
grow CART, 2,000 users x 100 axes, depth 11                6.8        14.8       0.39
grow CART, 200,000 users x 3 axes, depth 18                8.0        13.1       1.70
cell reports (binary RR), 262,144 users x 1,024 cells      3.3                   0.88
HistOfTreeClassifier, 2,000 x 50, depth 8, 100 classes     2.6                   0.48
AdHistOfTree max-edge, 300 users x 2,000 features          3.6                   1.63
AdHistOfTree CART, 300 users x 500 features                2.7                   1.22
=====================================================  ==========  =========  ==========

All 13 growths: 2.1 to 8.1 ns per entry (0.6 to 2.5 times a cell report's entry); counted by
users alone they ran at 2.3 to 54 ns. At load 5 the same run gave 10 to 37 ns against 7.9 for
the reports; another run at load 2.4 gave 4.1 to 13.3 ns against 4.6 (0.9 to 2.9 times).
A fit at the whole budget (2^29 entries) thus takes about 1 to 4 s at load 2.3
(5 to 20 s at load 5). AdHistOfTree CART on 300 users x 2,000 features (22 s at load 6-11)
and max-edge on 10,000 features are now refused before round 1, naming depth_search='rule';
the refusal itself costs the selection's (d + 1)^2 tables: 1.3 s at 10,000 features (6.7 s
at load 5). At the budget's edge (2^29 entries, load 2.8, one run): HistOfTree depth 9 on 300
users x 7,722 public features took 3.5 s (max-edge; 6.5 ns per entry) and on 300 x 3,046
2.7 s (CART; 5.0 ns), the cell reports 4.3 ns per entry. HistClassifier on 300 users and
100,000 to 1,000,000 classes: 7.3 to 11.5 ns per entry (0.24 to 3.8 s; 1,398,100 classes
fit max_bytes: about 5 s).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd


def _tables(folder):
    """200 x 200 CSVs: numbers, text with 20 levels per column (ordinal and one-hot)."""
    rng = np.random.default_rng(0)
    names = [f"c{i}" for i in range(200)]
    numbers = pd.DataFrame(rng.uniform(0, 10, (200, 200)), columns=names)
    text = pd.DataFrame(rng.choice([f"level{i}" for i in range(20)], (200, 200)), columns=names)
    text["c0"] = rng.random(200)
    paths = {"numbers": Path(folder) / "numbers.csv", "text": Path(folder) / "text.csv"}
    numbers.to_csv(paths["numbers"], index=False)
    text.to_csv(paths["text"], index=False)
    return paths


def _cases(folder):
    from ldpviz import AdHistOfTree
    from ldpviz.classification import HistClassifier
    from ldpviz.datasets import load_csv

    paths = _tables(folder)
    rng = np.random.default_rng(0)
    X = rng.random((300, 5))
    labels = (X[:, 0] > 0.5).astype(int)
    cases = {
        "load_csv 200x200 numbers": lambda: load_csv(paths["numbers"], "c0"),
        "load_csv 200x200 text, ordinal": lambda: load_csv(paths["text"], "c0"),
        "load_csv 200x200 text, one-hot": lambda: load_csv(paths["text"], "c0",
                                                           categorical="onehot"),
        "HistClassifier 100,000 classes": lambda: HistClassifier(
            classes=list(range(100_000)), random_state=0).fit(X, labels),
    }
    for d in (500, 2000):
        Xw = rng.random((300, d))
        yw = Xw[:, :3].sum(axis=1)
        W = np.zeros(Xw.shape, dtype=bool)
        for rule in ("max-edge", "cart"):
            cases[f"AdHistOfTree n=300 d={d} {rule}"] = (
                lambda Xw=Xw, yw=yw, W=W, rule=rule: AdHistOfTree(
                    epsilon=8, y_bound=3, rule=rule, random_state=0).fit(Xw, yw, W))
    return cases


# Shapes of the calibration (--calibrate): users, tree axes, depth, rule. Wide tables of few
# users, deep trees, many users on few axes; each a second or two on an idle core.
GROWTHS = [(300, 2000, 9, "max-edge"), (300, 2000, 4, "max-edge"), (100, 3000, 7, "max-edge"),
           (2000, 300, 11, "max-edge"), (2000, 300, 5, "max-edge"), (20000, 30, 15, "max-edge"),
           (200000, 5, 18, "max-edge"), (200000, 5, 6, "max-edge"), (1000000, 3, 20, "max-edge"),
           (300, 500, 9, "cart"), (2000, 100, 11, "cart"), (20000, 10, 15, "cart"),
           (200000, 3, 18, "cart")]


def _growth_rows():
    """(name, seconds, entries counted by the budget, entries of the old count): one growth
    of the public tree per shape of GROWTHS."""
    from ldpviz._config import growth_entries
    from ldpviz.partition import grow_tree

    rng = np.random.default_rng(0)
    for n, k, depth, rule in GROWTHS:
        X = rng.random((n, k))
        y = X[:, :3].sum(axis=1) + rng.normal(size=n)
        W = np.zeros((n, k), dtype=bool)
        start = time.perf_counter()
        tree = grow_tree(X, y, W, range(k), depth, rule)
        seconds = time.perf_counter() - start
        old = depth * 3 * n * k * (4 if rule == "cart" else 1)  # before the node term
        yield (f"grow {rule} n={n} k={k} depth={depth} ({len(tree.feature)} nodes)", seconds,
               growth_entries(n, depth, k, len(tree.feature), rule), old)


def _fit_rows():
    """(name, seconds, entries the budget counts for the fit, None): whole fits, the cell
    reports alone (no tree) and AdHistOfTree on wide tables (its depth search included)."""
    from ldpviz import AdHistOfTree, HistOfTree
    from ldpviz._config import partition_plan
    from ldpviz.adhistoftree import SEARCH_GROWTHS
    from ldpviz.classification import HistClassifier, HistOfTreeClassifier

    rng = np.random.default_rng(1)
    for n, t, mechanism in ((1 << 18, 32, "rr"), (1 << 19, 32, "grr")):
        X = rng.random((n, 2))
        y = X.sum(axis=1)
        W = np.ones((n, 2), dtype=bool)
        model = HistOfTree(epsilon=2, s=2, t=t, depth=0, mechanism=mechanism, y_bound=2,
                           random_state=0)
        start = time.perf_counter()
        model.fit(X, y, W)
        seconds = time.perf_counter() - start
        plan = partition_plan(n, n, t, 2, 0, 0, mechanism=mechanism)
        yield f"HistOfTree reports {mechanism} n={n} t^2={t * t}", seconds, \
            plan.report_entries, None
    # the classifier: one label column per class in the growth and the reports
    n, k, classes = 2000, 50, 100
    X = rng.random((n, k))
    labels = rng.integers(0, classes, n)
    W = np.zeros((n, k), dtype=bool)
    model = HistOfTreeClassifier(epsilon=4, s=0, depth=8, classes=list(range(classes)),
                                 random_state=0)
    start = time.perf_counter()
    model.fit(X, labels, W)
    seconds = time.perf_counter() - start
    plan = partition_plan(n, n, 2, 0, 8, k, n_outputs=classes)
    yield f"HistOfTreeClassifier n={n} k={k} depth=8 {classes} classes", seconds, \
        plan.report_entries, None
    # the histogram classifier: one label column per class over the t^d grid (aggregate noise)
    X = rng.random((300, 5))
    classes = 1_000_000
    start = time.perf_counter()
    HistClassifier(classes=list(range(classes)), random_state=0).fit(X, X[:, 0] > 0.5)
    seconds = time.perf_counter() - start
    yield f"HistClassifier n=300 d=5 t=2 {classes:,} classes", seconds, \
        (300 + 2**5) * (classes + 1), None
    # the widest table of 300 users the budget lets a depth-9 tree grow on, per rule
    from ldpviz._config import _largest_fitting, exceeds_budget

    n = 300
    for rule in ("max-edge", "cart"):
        k = _largest_fitting(lambda k, rule=rule: exceeds_budget(
            partition_plan(n, n, 2, 0, 9, k, rule), n) is None, 1 << 16)
        X = rng.random((n, k))
        model = HistOfTree(epsilon=4, s=0, depth=9, rule=rule, y_bound=3, random_state=0)
        start = time.perf_counter()
        model.fit(X, X[:, :3].sum(axis=1), np.zeros((n, k), dtype=bool))
        seconds = time.perf_counter() - start
        yield f"HistOfTree {rule} n={n} k={k} depth=9 (the budget's edge)", seconds, \
            partition_plan(n, n, 2, 0, 9, k, rule).report_entries, None
    for n, d, rule in ((300, 2000, "max-edge"), (300, 10000, "max-edge"),
                       (300, 500, "cart"), (300, 2000, "cart")):
        X = rng.random((n, d))
        y = X[:, :3].sum(axis=1)
        W = np.zeros((n, d), dtype=bool)
        model = AdHistOfTree(epsilon=8, y_bound=3, rule=rule, random_state=0)
        name = f"AdHistOfTree {rule} n={n} d={d}"
        start = time.perf_counter()
        try:
            model.fit(X, y, W)
        except ValueError as error:
            print(f"{name:58s} refused in {time.perf_counter() - start:.2f} s: "
                  f"{str(error)[:150]}...", flush=True)
            continue
        seconds = time.perf_counter() - start
        growths = SEARCH_GROWTHS if model.depth_scores_ is not None else 1
        plan = partition_plan(n, n, model.t_, model.s_, max(model.depth_scores_["depth"])
                              if growths > 1 else model.depth_, d - model.s_, rule,
                              growths=growths)
        yield f"{name} (depth {model.depth_})", seconds, plan.report_entries, None


def calibrate():
    """Print seconds per entry the budget counts (``max_report_entries``: about 10 ns each)."""
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"{'case':58s} {'s':>7s} {'entries':>13s} {'ns/entry':>9s} {'old count':>10s}")
    for rows in (_growth_rows(), _fit_rows()):
        for name, seconds, entries, old in rows:
            before = f"{seconds / old * 1e9:10.1f}" if old else ""
            print(f"{name:58s} {seconds:7.2f} {entries:13,} {seconds / entries * 1e9:9.1f}"
                  f" {before}", flush=True)
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tag", default="")
    parser.add_argument("--only", default="", help="run the cases whose name contains this")
    parser.add_argument("--calibrate", action="store_true",
                        help="print ns per entry the resource budget counts (tree growth, cell "
                             "reports, whole fits) instead")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    if args.calibrate:
        calibrate()
        return
    with tempfile.TemporaryDirectory() as folder:
        for name, case in _cases(folder).items():
            if args.only not in name:
                continue
            times = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                try:
                    case()
                except ValueError as error:  # the resource budget refused it
                    print(f"{args.tag:6s} {name:34s} refused in "
                          f"{time.perf_counter() - start:.2f} s: {error}", flush=True)
                    break
                times.append(time.perf_counter() - start)
            if times:
                print(f"{args.tag:6s} {name:34s} {statistics.median(times):8.2f} s", flush=True)


if __name__ == "__main__":
    main()
