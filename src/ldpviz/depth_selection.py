"""The tree depth chosen after round 1, by cross-validation on the released labels.

AdHistOfTree's public rule (:mod:`ldpviz.adaptive_rule`) fixes (s, p, t) before any release, so
it cannot know how rough the regression function is: it assumes the calibrated smoothness and
stays shallow where a rough function wants a deep tree. Round 1 releases every user's label
Y~ = y + Laplace noise, unbiased for y, and the tree is grown on Y~ and the published
coordinates anyway. For any predictor g built from other users, ``E (Y~_i - g(x_i))^2 =
E (y_i - g(x_i))^2 + Var(noise_i)``: held-out squared error on Y~ ranks depths as the error on
y would, up to noise. Choosing p this way is post-processing of released messages: it costs no
privacy. It happens before round 2, so the cell reports are drawn for the chosen partition.

The comparison is paired (the same held-out users for every depth) and *gated*: the rule's depth
is kept unless another depth's held-out error is lower by ``z`` standard errors of the per-user
difference, so at small epsilon, where Y~ is mostly noise, nothing moves. Held-out users are
those whose leaf is known from what they publish (every tree axis); folds are every ``folds``-th
user (no randomness consumed). Cross-validation sees the tree's fit, not the cell reports: where
some users hide tree axes, a deeper tree gives their reports more potential cells. There the
depth may only fall (AdHistOfTree offers no deeper candidate), and AdHistOfTree adds to each
depth's held-out error the risk proxy's histogram term (``penalty``,
:func:`ldpviz.adaptive_rule.histogram_risk`), which carries that cost. Where every user
publishes every tree axis it adds nothing: there the stable estimate's hierarchy absorbs the
extra cells, and the term only made the tree too shallow (rough function, aligned s* = 3,
epsilon 4: 0.96 -> 1.24 times the best).

Measured (``benchmarks/bench_adaptive.py``, n = 10,000, 10 replications, 66 settings x
functions): within 10% of the best fixed partition in 34 of 66 (the rule's depth: 27),
geometric-mean ratio 1.22 (1.29), no cell worse by more than 0.01; the gains are on rough
functions at epsilon 4 and 8 (aligned s* = 3, epsilon 8: 2.16 -> 1.37 times the best; s* = 4,
epsilon 8: 1.79 -> 1.00) and under W_gamma (Section 5.1, gamma = 0.5: 1.62 -> 1.32). n = 100,000
(3 replications): 21 of 44 (18), 1.18 (1.23); the ramp under W_gamma moved by at most 0.04
either way (noise at 3 runs). Cost: one tree of the deepest candidate depth per fold, 25 ms at
n = 10,000 and 0.1 s at 100,000 (the fit without it: 6 and 45 ms); at most ``MAX_USERS`` users
(every k-th) take part.
"""

from __future__ import annotations

import numpy as np

from .cell_estimates import TOLERANCE, node_parents, shrink_tree, tree_units
from .partition import grow_tree

#: Folds of the cross-validation and the gate in standard errors.
FOLDS = 5
GATE_Z = 2.0
#: At most this many users take part (every k-th): bounded time and memory at any n.
MAX_USERS = 200_000


def cross_validated_depth(X, y_tilde, W, axes, depths, rule_depth, rule, scale, label_noise,
                          penalty=None, min_samples_leaf=0, folds=FOLDS, z=GATE_Z):
    """The depth of ``depths`` to use (module docstring) and the held-out comparison.

    Parameters
    ----------
    X, W : (n, d) coordinates in [0, 1] and the bool mask; only published tree coordinates are
        read.
    y_tilde : (n,) the round-1 labels Y~.
    axes : the tree axes.
    depths : candidate depths, ``rule_depth`` among them.
    rule : {"max-edge", "cart"}, how the tree grows.
    scale : M^2 (the stable node estimate's cap; :func:`ldpviz.cell_estimates.shrink_tree`).
    label_noise : mean variance of one user's label noise (public: from the budget).
    penalty : (len(depths),) or None, a cost added to each depth's held-out error (AdHistOfTree:
        the proxy's histogram term, which round-1 labels cannot measure).
    min_samples_leaf : as in :func:`ldpviz.partition.grow_tree` (the estimator's).

    Returns
    -------
    depth : int
    scores : dict with "depth" (the candidates compared), "difference" (mean held-out squared
        error minus the rule depth's) and "std_error" (of each difference).
    """
    depths = [int(p) for p in depths]
    penalty = np.zeros(len(depths)) if penalty is None else np.asarray(penalty, dtype=float)
    axes = list(axes)
    if len(y_tilde) > MAX_USERS:
        every = slice(None, None, -(-len(y_tilde) // MAX_USERS))
        X, y_tilde, W = X[every], y_tilde[every], W[every]
    n = len(y_tilde)
    known = ~W[:, axes].any(axis=1) if axes else np.ones(n, dtype=bool)
    fold = np.arange(n) % folds
    errors = []
    for k in range(folds):
        train, test = fold != k, (fold == k) & known
        if test.any():
            tree = grow_tree(X[train], y_tilde[train], W[train], axes, max(depths), rule,
                             min_samples_leaf)
            by_depth = _values_by_depth(tree, X[test], max(depths), scale, label_noise, rule)
            errors.append((y_tilde[test] - by_depth[depths]) ** 2)
    if not errors:
        return rule_depth, {"depth": depths, "difference": np.zeros(len(depths)),
                            "std_error": np.zeros(len(depths))}
    error = np.concatenate(errors, axis=1)  # (depths, held-out users)
    mean, se = _paired(error, depths.index(rule_depth), penalty)
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(se))):
        # labels near the float limits (|y| ~ 1e90): squares of squared errors overflow; the
        # gate compares ratios, the same on errors in units of M^2
        mean, se = (v * scale for v in _paired(error / scale, depths.index(rule_depth),
                                                 penalty / scale))
    best = int(np.argmin(mean))
    chosen = depths[best] if mean[best] < -z * se[best] else rule_depth
    return chosen, {"depth": depths, "difference": mean, "std_error": se}


def _paired(error, rule, penalty):
    """Mean and standard error of each depth's held-out squared error minus the rule depth's
    (``error``: depths x users), the penalty added to the mean; inf where they overflow."""
    with np.errstate(over="ignore", invalid="ignore"):
        diff = error - error[rule]
        mean = diff.mean(axis=1) + penalty - penalty[rule]
        se = diff.std(axis=1) / np.sqrt(diff.shape[1])
    return mean, se


def _values_by_depth(tree, X, max_depth, scale, label_noise, rule):
    """(max_depth + 1, len(X)): the round-1 estimate at X of the tree cut at each depth q (a
    CART node that could not split stays a leaf).

    The stable node estimate shrinks each level by that level's contrasts only, top-down, so
    the tree cut at depth q has the same node values as the full tree down to q: one growth
    and one shrinkage serve every depth (a tree grows the same first q levels whatever its
    final depth).
    """
    count = tree.leaf_count
    leaf_sum = np.nan_to_num(tree.leaf_label_mean) * count
    nodes = tree_units(tree, count, leaf_sum, label_noise * count)
    values = shrink_tree(tree, nodes, scale, TOLERANCE * scale, rule)[0][:, 0]
    parent, depth = node_parents(tree)
    node = tree.node_of_leaf[tree.apply(X)]
    out = np.empty((max_depth + 1, len(X)))
    for q in range(max_depth, -1, -1):
        node = np.where(depth[node] > q, parent[node], node)
        out[q] = values[node]
    return out
