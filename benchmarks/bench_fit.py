"""HistOfTree fit + predict against scikit-learn's DecisionTreeRegressor.fit, one run, with the
share of each part of the protocol.

Targets (design.md, issue 14): HistOfTree ``fit`` + ``predict`` (5,000 points) at n = 10,000,
d = 5, s = 2, t = 2, depth 4 takes at most 0.25x ``DecisionTreeRegressor(max_depth=4).fit`` on
the same data; at n = 100,000, depth 6, at most 0.5x (against ``max_depth=6``). For grr, rr and
auto, aligned and W_gamma (gamma = 1), max-edge and CART, with the 'stable' cell estimate (the
default) and the 'paper' one.

Each row prints the whole fit + predict and its parts, each as a ratio to the reference fit
measured in the same run:

* ``labels``: the round-1 label release (one Laplace draw per user);
* ``tree``: ``grow_tree`` (the public tree);
* ``sums``: ``cell_report_sums`` (every user's cell report, drawn and aggregated; with the
  second moments when the estimate is 'stable');
* ``predict``: ``HistOfTree.predict`` on 5,000 points;
* ``rest``: the whole minus the four parts above (input checks, post-processing);
* ``fixed``: the whole fit + predict on the first ``FIXED_N`` = 500 users only: the cost that
  does not grow with n (Python calls, small arrays), the floor of any ratio at this n;
* and, for information (they are inside ``sums``): ``apply``, ``PublicTree.apply`` of the
  training users, and ``cells``, ``Partition.cell_index`` of the training users.

Usage: ``python benchmarks/bench_fit.py [--sizes 10000 100000] [--repeats 7]``.

Measured (2026-11-26, 2 cores, quiet), n = 10,000: whole 0.29 to 0.61, of which ``fixed`` 0.13
to 0.27 (0.21 to 0.27 with the stable estimate): the per-call cost alone is about the whole
0.25 budget, so the target needs fewer Python-level steps per fit, not faster per-user passes.

numba (measured 2026-11-26 on a prototype of the tree growth outside the package, byte-identical
trees on 24,678 cases): the growth at n = 10,000, depth 4 takes 0.22-0.28 ms instead of
1.0-1.8 ms (3.8-8x; 2.4-5.8x at 10^5 and 10^6), for 0.15 s to import numba and 0.12 s to load
the cached code in every new process, 4.1 s to compile on first use, and 208 MB installed.
Compiling the cell sums as well (if they gained 5x) would leave the stable estimate (scipy
special functions, small arrays), the partition's set-up, the checks and predict: about 0.27x
in the worst case (the stable estimate; at most 0.2x with eq 9), still above the target, for
1-2 days of work and a second copy of the hot paths to keep byte-identical, so numba was not
adopted.
"""

import argparse
import itertools
import sys
from pathlib import Path

import numpy as np
from sklearn.tree import DecisionTreeRegressor

sys.path.insert(0, str(Path(__file__).parent))
from _timing import median_seconds, paired_medians

from ldpviz import HistOfTree
from ldpviz.cell_sums import cell_report_sums
from ldpviz.datasets import PAPER_Y_BOUND, make_paper_regression
from ldpviz.masks import aligned_mask, gamma_mask
from ldpviz.mechanisms import privatize_labels
from ldpviz.partition import grow_tree

SETTINGS = {10_000: (4, 0.25), 100_000: (6, 0.5)}  # n -> (depth, target ratio)
MECHANISMS = ("grr", "rr", "auto")
RULES = ("max-edge", "cart")
ESTIMATES = ("stable", "paper")
PARTS = ("labels", "tree", "sums", "predict")
FIXED_N = 500
INSIDE = ("apply", "cells")


def _parts(model, X, y, W, X_test, repeats):
    """Seconds of each part of one fit, called directly on the fitted model's inputs."""
    part = model.partition_
    y_tilde = model.y_tilde_
    eps_label = np.full(len(y), model.epsilon_label_)
    rng = np.random.default_rng(1)
    return {
        "labels": median_seconds(
            lambda: privatize_labels(y, eps_label, PAPER_Y_BOUND, rng), repeats),
        "tree": median_seconds(
            lambda: grow_tree(X, y_tilde, W, model.tree_axes_, model.depth, model.rule),
            repeats),
        "sums": median_seconds(
            lambda: cell_report_sums(part, X, W, y_tilde, model.epsilon_cells_,
                                     model.mechanism, rng,
                                     moments=model.cell_estimate == "stable"), repeats),
        "predict": median_seconds(lambda: model.predict(X_test), repeats),
        "apply": median_seconds(lambda: part.tree.apply(X), repeats),
        "cells": median_seconds(lambda: part.cell_index(X), repeats),
    }


def _one_size(n, repeats):
    """Print one table (every mask, rule and mechanism) at n users; return the worst ratio."""
    depth, target = SETTINGS.get(n, (6, 0.5))
    X, y = make_paper_regression(n, random_state=0)
    X_test = np.random.default_rng(1).random((5000, X.shape[1]))
    def fit_reference():
        DecisionTreeRegressor(max_depth=depth).fit(X, y)

    reference = median_seconds(fit_reference, repeats)
    print(f"\nn = {n:,}, d = 5, s = 2, t = 2, depth {depth}: "
          f"DecisionTreeRegressor(max_depth={depth}).fit median {reference * 1e3:.1f} ms; "
          f"ratios to it, timed in alternation with each whole fit (target: whole <= "
          f"{target})")
    print(f"  {'mask':8s} {'rule':8s} {'estimate':8s} {'mech':4s} {'whole':>7s} " +
          " ".join(f"{p:>7s}" for p in (*PARTS, "rest", *INSIDE, "fixed")))
    worst = 0.0
    for mask_name, make_mask in (("aligned", lambda m: aligned_mask(m, 5, 2)),
                                 ("W_gamma", lambda m: gamma_mask(m, 5, 1.0))):
        W, W_fixed = make_mask(n), make_mask(FIXED_N)
        for rule, estimate, mechanism in itertools.product(RULES, ESTIMATES, MECHANISMS):
            model = HistOfTree(epsilon=4, s=2, t=2, depth=depth, rule=rule,
                               mechanism=mechanism, y_bound=PAPER_Y_BOUND,
                               cell_estimate=estimate, random_state=0)
            whole, reference = paired_medians(
                lambda m=model, W=W: m.fit(X, y, W=W).predict(X_test), fit_reference, repeats)
            parts = _parts(model.fit(X, y, W=W), X, y, W, X_test, repeats)
            rest = whole - sum(parts[p] for p in PARTS)
            fixed = median_seconds(lambda m=model, W=W_fixed: m.fit(
                X[:FIXED_N], y[:FIXED_N], W=W).predict(X_test), repeats)
            ratio = whole / reference
            worst = max(worst, ratio)
            print(f"  {mask_name:8s} {rule:8s} {estimate:8s} {mechanism:4s} {ratio:7.3f} " +
                  " ".join(f"{parts[p] / reference:7.3f}" for p in PARTS) +
                  f" {rest / reference:7.3f} " +
                  " ".join(f"{parts[p] / reference:7.3f}" for p in INSIDE) +
                  f" {fixed / reference:7.3f}  {'ok' if ratio <= target else 'ABOVE'}")
    print(f"  worst whole ratio {worst:.3f} (target <= {target})")
    return worst


def main(sizes=(10_000, 100_000), repeats=7):
    return {n: _one_size(n, repeats) for n in sizes}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    main(tuple(args.sizes), args.repeats)
