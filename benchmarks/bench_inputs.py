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
"""

from __future__ import annotations

import argparse
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tag", default="")
    parser.add_argument("--only", default="", help="run the cases whose name contains this")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as folder:
        for name, case in _cases(folder).items():
            if args.only not in name:
                continue
            times = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                case()
                times.append(time.perf_counter() - start)
            print(f"{args.tag:6s} {name:34s} {statistics.median(times):8.2f} s", flush=True)


if __name__ == "__main__":
    main()
