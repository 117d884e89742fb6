"""Cell values from the released sums: eq (9) as printed, and a variance-aware "stable" estimate.

Eq (9) of the HistOfTree paper estimates each cell j (histogram cell h x tree leaf) as

    f~_j = N_j / D_j,   N_j = sum_i Y~_i V~_i^j,   D_j = sum_i V~_i^j,

a ratio of two noisy sums. D_j is a debiased *count* whose noise does not shrink with the cell:
in a sparse cell it can be near 0 or negative and the ratio explodes (clipping then pins it at
+-M). The stable estimate weighs each cell by its own noise and falls back smoothly toward a
coarser estimate. It reads only the released messages (Y~, the cell reports, the published
coordinates, W) and public parameters (n, epsilon, rho, M, the mechanism), so it is
post-processing: it costs no privacy.

**Variance of a cell (delta method).** For a center g, ``N_j / D_j - g = R_j / D_j`` with
``R_j = N_j - g D_j = sum_i (Y~_i - g) V~_i^j``. Given the data, user i contributes
``A_i B_i``: ``A_i = Y~_i - g`` has mean ``a_i = y_i - g`` and label-noise variance ``nu_i``
(``2 b_i^2`` for Laplace(b_i)); ``B_i = V~_i^j`` has mean ``1{i in j}``; they are independent.
The variance that privacy adds to R_j is therefore

    Var R_j = sum_i [E(A_i^2) E(B_i^2) - a_i^2 1{i in j}]
            ~ sum_i (Y~_i - g)^2 ((V~_i^j)^2 - V~_i^j) + sum_i nu_i V~_i^j,

term by term unbiased (``E[(A^2 - nu) B] = a^2 1{i in j}``), i.e. ``E2 - 2 g E1 + g^2 E0 +
max(B, 0)`` with ``E_k = sum_i Y~_i^k ((V~_i^j)^2 - V~_i^j)`` (never negative: V~^2 >= V~ for
GRR and binary RR) and ``B = sum_i nu_i V~_i^j``, all from :class:`ldpviz.cell_sums.CellSums`.
The ratio's standard error is ``sqrt(Var R_j) / D_j``. Only the noise privacy adds is counted:
with epsilon = inf the variance is 0 and the stable estimate *is* eq (9), itself eq (3).

**Shrinkage (empirical Bayes, inverse variance).** With ``delta_j`` the cell's true deviation
from its center, spread tau^2 across the cells of one tree depth, the best linear estimate is

    f^_j = g_j + w_j R_j / D_j,   w_j = D_j^2 tau^2 / (D_j^2 tau^2 + Var R_j),

computed as ``g_j + R_j D_j tau^2 / (D_j^2 tau^2 + Var R_j)``: no division by D_j, so it never
explodes; ``D_j <= 0`` gives ``w_j = 0``. tau^2 comes from the z-scores ``z_k = R_k /
sqrt(Var R_k)`` (free of D_k) of the *other* cells: ``tau_j^2 = max(0, sum_{k != j} z_k^2 -
q) / sum_{k != j} D_k^2 / Var R_k``, capped at M^2 (a cell alone uses its own). Without signal
the sum is chi^2_{J-1}, and the margin ``q >= J - 1`` is the smallest one whose false alarms
add at most ``TOLERANCE * M^2`` to a cell's expected squared error (:func:`null_margin`): the
estimate leaves the fallback only when the cells differ by more than their noise explains, and
where the noise is small the weights are ~1 (eq 9). Leaving the cell out keeps a noise draw
from vouching for itself: with its own z^2 in the sum, one 4-sigma cell among a few quiet ones
lifted tau^2 and so its own weight, and these rare draws added 0.8-1.9 to the MSE of about 1% of
runs (measured: benchmarks/bench_cell_estimate.py --target2, 100 runs, the worst ratio MSE(t) /
MSE(t = 1) fell from 1.26 to 1.16 and every setting now holds on average; the best grid points
of --target3 moved by at most 0.011 of eq (9)'s error, and where the signal sits on the
protected features at epsilon 2, n = 10,000, from 0.639 to 0.631 of it). A cell
whose standard error exceeds ``SE_MAX * M`` (it cannot place its mean within the label range)
keeps weight 0. These defaults (``TOLERANCE = 1e-3``, ``SE_MAX = 0.5``) were chosen on the
Section 5.1 simulation (benchmarks/bench_cell_estimate.py): stricter margins lost accuracy where
the noise is moderate, looser ones let false alarms through where it is large. The count D_j is
itself noisy (``E0`` estimates its variance); where a cell report carries little budget its
relative noise is large, and a count that came out large by chance makes ``sqrt(Var R_j) / D_j``
look small. So the standard error is judged at ``D_j - COUNT_Z sqrt(E0_j)`` (``COUNT_Z`` = 2):
a cell whose count is not two standard errors above 0 keeps weight 0. Measured (the "never
worse than t = 1" grid of benchmarks/bench_cell_estimate.py --target2, 30 runs, n = 10,000):
the worst ratio MSE(t) / MSE(t = 1) at epsilon 4, depth 6 fell from 1.67 (a significant
failure, with HistOfTree's rho="auto") to 1.17, 1.08 with the root prior below; the best grid
points of --target3 at n = 10,000 moved by at most 0.03 (0.788 -> 0.811 of eq (9)'s error at
epsilon 4).

**Cells that share report noise (GRR).** A GRR user's debiased indicators over their potential
cells add up to exactly 1, so the report noise of cell j reappears, with the opposite sign, in
the user's other |V_i| - 1 cells: with t = 2 on one protected axis the two histogram cells of a
leaf see one noise draw, mirrored. Read as independent cells, a 4-sigma cell vouches for itself
through its partner (whose z^2 is its own), and the sum of z^2 spreads more than chi^2. The
partner sums of :class:`ldpviz.cell_sums.CellSums` give each unit ``kappa_j``, an estimate of
``sum_{l != j} corr(R_j, R_l)^2`` (:func:`coupling`: ``v_j^2 / (k - 1)`` when every user of the
cell has the same k potential cells, v_j the report noise's share of Var R_j; from above where
users' potential cells differ); j's expected echo ``kappa_j (z_j^2 - 1)`` is taken out of the
others' sum, the null variance of that sum becomes ``2 sum (1 + kappa)``, and the posterior
below counts J units as ``J / (1 + mean kappa)`` independent ones. Binary RR's bits are
independent across cells (kappa = 0: nothing changes). Merged cells add their leaves' partner
sums, which ignores that partners under one node merge (as their variance ignores the
covariance of the merged leaves). Measured at the one setting of the "never worse than t = 1"
grid that failed (s* = 1, GRR, epsilon 2, t = 2, depth 2, n = 10,000, 1,000 runs): MSE(t) /
MSE(t = 1) from 1.24 to 1.16, the criterion ``MSE(t) <= 1.10 MSE(t = 1) + 0.01`` from failing
(excess +0.0048 +- 0.0018) to holding (-0.0037 +- 0.0014); the whole grid at 400 runs: 191 of
192 settings hold by two standard errors (189 before), the last within two (at 4,000 runs by
five). The best grid points of --target3 move by at most 0.004 of eq (9)'s error; on a ramp
carried by the protected features (48 GRR settings, 40 runs) the error rises by at most 3.7%
(aligned s* = 2, epsilon 4, depth 4, t = 3), 0.1% on geometric mean.

Three places use the posterior mean of ``w_j`` over tau^2 instead (log-uniform prior on [1e-3, 1]
x M^2, the R_j Gaussian with variance ``D_j^2 tau^2 + Var R_j``):

* the root, when it has at most ``SMALL_ROOT`` = 4 histogram cells: with so few cells the
  chi^2 margin is as large as the private-feature effect it should detect (measured: 10% worse
  than eq (9) at epsilon 2 on a signal carried by the protected features), while the posterior
  keeps part of a consistent effect; a cell whose standard error exceeds ``SE_MAX / 2 * M``
  keeps weight 0 (a posterior weight is never exactly 0, so the bound is stricter), and the
  prior puts ``NULL_PRIOR`` = 0.3 on tau^2 = 0 as for the root split: four noisy cells, one of
  them 2.5 standard errors out, otherwise gave weights near 0.7 to pure noise (at epsilon 2,
  n = 10,000 the worst "never worse than t = 1" ratio fell from 1.45 to 1.37 with it; the
  protected-signal gain at epsilon 2 went from 0.60 to 0.64 of eq (9)'s error);
* a classifier (labels = debiased one-hot vectors, scale 1), everywhere: its loss is the error
  rate, which following a weak but unbiased vote cannot raise much where the fallback is
  undecided, while a weight of exactly 0 turns a near-tie into the fallback's guess;
* the root split of the tree (``SMALL_LEVEL`` = 1 split contrast at its depth; below).

**Hierarchy (where the centers come from).** Tree nodes are coarser cells. Top-down:

* node means (round 1, exact counts, label noise only): ``f^(c) = f^(p) + w_p (mu_c - mu_p)``
  for a child c of p, with ``w_p = tau^2 / (tau^2 + V_p)`` shrinking the contrast ``d_p = mu_l
  - mu_r`` of the split (noise variance V_p). The tree was grown on these same Y~, choosing the
  split with the largest contrast among k_p candidates, so without signal ``d_p^2 / V_p`` is the
  largest of k_p chi^2_1 variables (k_p: the node's longest edges for max-edge, about 32 per axis
  for CART): its mean and variance replace (1, 2) in the margin, or every noise-chasing split
  would look real (one tau^2 per depth, same false-alarm budget). A depth with at most
  ``SMALL_LEVEL`` = 1 contrast (the root split) instead takes the posterior mean of ``w_p``:
  prior tau^2 = 0 with probability ``NULL_PRIOR`` = 0.3, else log-uniform as above; likelihood
  of ``z^2 = d_p^2 / V_p``: the largest of k_p ``(1 + tau^2 / V_p) chi^2_1``. Measured
  (Section 5.1, n = 10,000, epsilon 1, 20 runs; best grid point t = 1, depth 1): the margin,
  fed one z^2, zeroed the split in 8 runs, MSE 0.1652 (1.068x eq (9)'s 0.1547); the posterior
  gives 0.1573 (1.017x); the other best grid points of benchmarks/bench_cell_estimate.py
  --target3 move by at most +0.7%. With the signal on protected features (a pure-noise root
  split) a likelihood ignoring the selection cost 0.4-0.6% more, and no spike (log-uniform
  alone) 0.9% more; NULL_PRIOR 0.5 gave 1.036x at epsilon 1. Depths with 2-4 contrasts keep
  the margin: the posterior there gained 1% at epsilon 8 but shrank the sampling noise of
  no-signal splits at epsilon 64 below eq (3) (notebook 03's sweep);
* merged cells (h, c), the sums of the cells of the leaves below c: the histogram effect
  ``e(h, c)`` (cell minus node) is shrunk toward the parent's ``e(h, p)`` (0 at the root),
  using the within-node contrast ``R = N - (mu_c + e(h, p)) D``.

A leaf's cell is ``f^(leaf) + e(h, leaf)``: a sparse cell falls back to its leaf's value plus the
histogram effect measured where it is measurable (down to the whole sample), and the leaf values
fall back toward their ancestors when the label noise hides their differences. The coarsest
fallback is public-side: the round-1 mean of Y~.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from scipy.special import chdtr, chdtrc

from ._unit_sums import (  # noqa: F401  (UnitSums and its constructors are public here)
    UnitSums,
    _columns,
    add_units,
    coupling,
    exact_units,
    label_noise_sums,
    report_units,
    unit_variance,
    variance_parts,
)

CELL_ESTIMATES = ("stable", "paper")
#: Expected squared error that false alarms may add per cell, as a share of M^2.
TOLERANCE = 1e-3
#: A cell (or split contrast) whose standard error exceeds SE_MAX * M keeps weight 0.
SE_MAX = 0.5
#: At the root, with at most this many histogram cells, the weights are posterior means.
SMALL_ROOT = 4
#: A unit whose debiased count is within COUNT_Z standard errors of 0 keeps weight 0, and its
#: standard error is judged at ``D - COUNT_Z sd(D)``.
COUNT_Z = 2.0
#: At a tree depth with at most this many split contrasts (the root), the weights are posterior
#: means.
SMALL_LEVEL = 1
#: Prior probability of no signal (tau^2 = 0) at such a depth.
NULL_PRIOR = 0.3
#: Under pure noise the CART search over 255 thresholds of one axis picks a contrast whose
#: squared z-score behaves like the largest of about this many chi^2_1 variables (mean ~5.6;
#: simulated: 5.1-5.2 for 100 to 10,000 users, Gaussian or Laplace noise).
CART_CANDIDATES = 32


# ----------------------------------------------------------------------------------------------
# How much signal: tau^2 with a margin against false alarms
# ----------------------------------------------------------------------------------------------
_MARGIN_STEPS = np.concatenate([np.linspace(0.0, 4.0, 41), np.linspace(4.25, 12.0, 32)])


def null_margin(J, noise, budget, null_mean=None, null_var=None):
    """Smallest margin q (at least the null mean) whose false alarms cost at most ``budget``.

    With no signal, ``Q = sum_j z_j^2`` has mean ``null_mean`` and variance ``null_var``
    (chi^2_J: J and 2J; otherwise Q is approximated by ``a chi^2_nu`` with those moments), and
    ``tau^2 = (Q - q)_+ / sum_j D_j^2 / Var R_j`` adds at most ``E[(Q - q)_+^2] noise / J^2``
    to a unit's expected squared error (``noise``: harmonic mean of the units' ``Var R_j /
    D_j^2``), where for chi^2_nu ``E[(Q - q)_+^2] = nu (nu + 2) S_{nu+4}(q) - 2 q nu
    S_{nu+2}(q) + q^2 S_nu(q)`` (S_k: the chi^2_k survival function). ``noise`` may be an
    array: one margin per value.
    """
    mean = float(J if null_mean is None else null_mean)
    var = float(2 * J if null_var is None else null_var)
    noise = np.asarray(noise, dtype=float)
    enough = noise * var <= budget * J * J  # E[(Q - mean)_+^2] <= Var Q: no margin needed
    if enough.all():
        return mean if noise.ndim == 0 else np.full(noise.shape, mean)
    q, cost = _margin_costs(J, mean, var)
    ok = cost * noise[..., None] <= budget
    step = np.where(ok.any(axis=-1), ok.argmax(axis=-1), len(q) - 1)
    margin = np.where(enough, mean, q[step])
    return float(margin) if margin.ndim == 0 else margin


@lru_cache(maxsize=256)
def _margin_costs(J, mean, var):
    """The candidate margins q of :func:`null_margin` and ``E[(Q - q)_+^2] / J^2`` for each
    (read-only; cached: a fit asks for the same few null distributions level after level)."""
    a, nu = var / (2 * mean), 2 * mean * mean / var
    q = mean + np.sqrt(var) * _MARGIN_STEPS
    x = q / a
    cost = a * a * (nu * (nu + 2) * chdtrc(nu + 4, x) - 2 * x * nu * chdtrc(nu + 2, x)
                    + x * x * chdtrc(nu, x)) / J**2
    q.flags.writeable = cost.flags.writeable = False
    return q, cost


@lru_cache(maxsize=64)
def max_chi2_moments(k):
    """Mean and variance of the largest of k independent chi^2_1 variables."""
    x = np.linspace(0.0, 40.0 + 4.0 * np.log(k), 4001)
    tail = 1.0 - chdtr(1, x) ** k
    step = x[1] - x[0]
    mean = step * (tail.sum() - 0.5 * tail[0])
    second = step * (2.0 * x * tail).sum()
    return float(mean), float(second - mean * mean)


_TAU2_GRID = np.geomspace(1e-3, 1.0, 31)


def _tau2_prior(scale, null_prior):
    """The tau^2 grid of the posterior weights and its prior: tau^2 = 0 with probability
    ``null_prior``, else log-uniform on [1e-3, 1] x scale (without a spike, equal weights 1:
    only their ratios matter)."""
    slab = scale * _TAU2_GRID
    if not null_prior:
        return slab, np.ones(len(slab))
    return (np.concatenate([[0.0], slab]),
            np.concatenate([[null_prior], np.full(len(slab), (1.0 - null_prior) / len(slab))]))


def _posterior(prior, loglik):
    """The normalised posterior over the tau^2 grid."""
    post = prior * np.exp(loglik - loglik.max())
    return post / post.sum()


def _posterior_weight(D, var, R2, scale, null_prior=0.0, kappa=None):
    """Posterior mean of ``D^2 tau^2 / (D^2 tau^2 + Var R)`` over tau^2 (prior:
    :func:`_tau2_prior`), the units' R being N(0, D^2 tau^2 + Var R); units whose noise is
    shared (``kappa``, :func:`coupling`) count as ``J / (1 + mean kappa)`` independent ones."""
    tau2, prior = _tau2_prior(scale, null_prior)
    spread = D[:, None] ** 2 * tau2[None, :] + var[:, None]
    loglik = -0.5 * (np.log(spread) + R2[:, None] / spread).sum(axis=0)
    if kappa is not None:
        loglik = loglik / (1.0 + kappa.mean())
    return (D[:, None] ** 2 * tau2[None, :] / spread) @ _posterior(prior, loglik)


def _usable(var, D, scale, se_max=SE_MAX):
    """Units with information: a positive count and a standard error at most se_max * M
    (``D``: the count, or a lower confidence bound of it)."""
    return (D > 0) & (var <= se_max**2 * scale * D * D)


def _spread_without_own(z2, precision, scale, budget, kappa=None):
    """tau^2 for each of J units, from the z-scores of the *other* units (one unit alone: its
    own): ``(sum_{k != j} z_k^2 - q_{J-1})_+ / sum_{k != j} D_k^2 / Var R_k``, capped at scale.

    Leaving the unit out keeps a noise draw from vouching for itself: with its own z^2 in the
    sum, one 4-sigma cell among a few quiet ones lifts tau^2 and so its own weight. Where units
    share noise (``kappa``, :func:`coupling`), j's draw also echoes in its partners' z^2 (by
    ``kappa_j (z_j^2 - 1)`` on average), which is taken out, and the null variance of the sum
    is ``2 sum (1 + kappa)`` instead of 2 per unit.
    """
    null = ()
    if len(z2) == 1:
        others, P, J = z2, precision, 1
    else:
        others, P, J = _sum_of_others(z2), _sum_of_others(precision), len(z2) - 1
        if kappa is not None:
            others = others - kappa * (z2 - 1.0)
            null = (J, 2.0 * ((1.0 + kappa).sum() - (1.0 + kappa).mean()))
    margin = null_margin(J, J / P, budget, *null)
    return np.minimum(np.maximum(others - margin, 0.0) / P, scale)


def _sum_of_others(x):
    """``sum(x) - x`` without cancellation (prefix plus suffix sums): one huge entry must not
    leave the others' sum at 0 or below."""
    before = np.concatenate([[0.0], np.cumsum(x[:-1])])
    after = np.concatenate([np.cumsum(x[::-1][:-1])[::-1], [0.0]])
    return before + after


def shrink(units, center, scale, budget, posterior=False, prune=None):
    """Shrink each unit's ratio N/D toward ``center`` by its own noise (module docstring).

    Returns ``(values, weight, variance)``: ``values = center + weight (N / D - center)``,
    ``weight`` in [0, 1] (1 where the unit is exact, 0 where ``D <= 0`` or, with ``prune``
    (default: unless ``posterior``), where its standard error exceeds ``SE_MAX sqrt(scale)``,
    half that with ``posterior``),
    and the estimated ``Var(N - center D)``. ``posterior``: posterior-mean weights instead of
    the thresholded tau^2.
    """
    g = _columns(center)
    R = units.numerator - g * units.denominator[:, None]
    report, var = variance_parts(units, g)
    D = np.maximum(units.denominator, 0.0)
    size = np.maximum(np.abs(units.numerator).sum(axis=1), D * np.abs(g).sum(axis=1))
    exact = (D > 0) & (var <= 1e-12 * (size * size + D * D))
    prune = (not posterior) if prune is None else prune
    se_max = SE_MAX / 2 if posterior else SE_MAX  # posterior weights never vanish: be stricter
    # judged at the low end of its count: a noisy count that came out large would understate
    # the ratio's standard error (excess0 estimates Var D)
    D_low = D - COUNT_Z * np.sqrt(np.maximum(units.excess0, 0.0))
    noisy = (_usable(var, D_low, scale, se_max) if prune else D > 0) & ~exact
    safe = np.where(noisy, var, 1.0)
    tau2 = 0.0
    J = int(noisy.sum())
    kappa = coupling(units, g, safe, report) if J else None
    kappa = None if kappa is None or not kappa[noisy].any() else kappa[noisy]
    if J and posterior:
        weight = np.zeros(len(D))
        weight[noisy] = _posterior_weight(D[noisy], safe[noisy],
                                          (R * R).sum(axis=1)[noisy], scale,
                                          NULL_PRIOR if prune else 0.0, kappa)
        weight = np.where(exact, 1.0, weight)
    else:
        if J:
            tau2 = np.zeros(len(D))
            tau2[noisy] = _spread_without_own(((R * R).sum(axis=1) / safe)[noisy],
                                              (D * D / safe)[noisy], scale, budget, kappa)
        weight = np.where(noisy, D * D * tau2 / (D * D * tau2 + safe), exact.astype(float))
    step = np.where(D > 0, weight / np.where(D > 0, D, 1.0), 0.0)
    return g + step[:, None] * R, weight, var


# ----------------------------------------------------------------------------------------------
# The tree as a hierarchy of coarser cells
# ----------------------------------------------------------------------------------------------
def tree_levels(tree):
    """The split nodes of a :class:`ldpviz.partition.PublicTree` by depth (root first)."""
    levels = []
    split = np.array([0], dtype=np.int64)
    while True:
        split = split[tree.feature[split] >= 0]
        if not len(split):
            return levels
        levels.append(split)
        split = np.concatenate([tree.left[split], tree.right[split]])


def node_parents(tree, levels=None):
    """(parent, depth) of every tree node (the root: parent -1, depth 0)."""
    levels = tree_levels(tree) if levels is None else levels
    parent = np.full(len(tree.feature), -1)
    depth = np.zeros(len(tree.feature), dtype=np.int64)
    for q, split in enumerate(levels, start=1):
        parent[tree.left[split]] = parent[tree.right[split]] = split
        depth[tree.left[split]] = depth[tree.right[split]] = q
    return parent, depth


def accumulate(tree, values, levels=None):
    """Add every node's row of ``values`` (n_nodes, ...) into all its ancestors, bottom-up."""
    out = np.array(values, dtype=float)
    for split in reversed(tree_levels(tree) if levels is None else levels):
        out[split] += out[tree.left[split]] + out[tree.right[split]]
    return out


def tree_units(tree, leaf_count, leaf_sum, leaf_noise, root=None):
    """Public-side UnitSums of every tree node from its leaves (round 1: exact counts).

    ``leaf_count``, ``leaf_sum`` (n_leaves, m) and ``leaf_noise`` describe the users who
    reached each leaf (:attr:`ldpviz.partition.PublicTree.leaf_count` and its
    ``leaf_label_mean``); a node adds up its leaves. ``root``, a (count, label sum, noise)
    triple, replaces the root's sums when more users are known to be in it (everyone is).
    """
    leaf_nodes = np.flatnonzero(tree.leaf_id >= 0)
    leaf_sum = _columns(leaf_sum)
    rows = np.zeros((len(tree.feature), 2 + leaf_sum.shape[1]))
    rows[leaf_nodes] = np.column_stack([leaf_count, leaf_sum, leaf_noise])[
        tree.leaf_id[leaf_nodes]]
    rows = accumulate(tree, rows)
    if root is not None:
        rows[0] = np.concatenate([[root[0]], np.ravel(root[1]), [root[2]]])
    return exact_units(rows[:, 0], rows[:, 1:-1], rows[:, -1])


def merge_leaves(tree, cells, n_hist, levels=None):
    """UnitSums of every merged cell (h, node), rows ``h * n_nodes + node``.

    ``cells`` holds the units of the cells ``h * n_leaves + leaf``; a node's merged cell adds
    up the cells of the leaves below it (every field is a sum over users).
    """
    leaf_nodes = np.flatnonzero(tree.leaf_id >= 0)
    n_nodes, n_leaves = len(tree.feature), len(leaf_nodes)
    widths = [1 if f.ndim == 1 else f.shape[1] for f in cells]
    flat = np.column_stack([f.reshape(n_hist, n_leaves, -1).transpose(1, 0, 2)
                            .reshape(n_leaves, -1) for f in cells])
    out = np.zeros((n_nodes, flat.shape[1]))
    out[leaf_nodes] = flat[tree.leaf_id[leaf_nodes]]
    out = accumulate(tree, out, levels)
    merged, start = [], 0
    for field, width in zip(cells, widths, strict=True):
        block = out[:, start:start + n_hist * width].reshape(n_nodes, n_hist, width)
        block = block.transpose(1, 0, 2).reshape(n_hist * n_nodes, width)
        merged.append(block[:, 0] if field.ndim == 1 else block)
        start += n_hist * width
    return UnitSums(*merged)


def split_candidates(tree, split, rule):
    """How many candidates each split was chosen among (max-edge: the node's longest edges,
    Algorithm 1; CART: ``CART_CANDIDATES`` per tree axis), shape (len(split),)."""
    if rule == "cart":
        return np.full(len(split), CART_CANDIDATES * max(len(tree.axes), 1))
    edge = tree.hi[split] - tree.lo[split]
    return np.maximum((edge >= edge.max(axis=1, keepdims=True) - 1e-12).sum(axis=1), 1)


def split_null(tree, split, rule):
    """Null mean and variance of each split's ``d_p^2 / V_p``, shape (len(split), 2).

    The split was chosen among k_p candidates by the largest contrast: under no signal its
    squared z-score is the largest of k_p chi^2_1 variables.
    """
    k = split_candidates(tree, split, rule)
    if len(k) and k.min() == k.max():  # CART always: one row
        return np.full((len(k), 2), max_chi2_moments(int(k[0])))
    return _max_chi2_table(int(k.max()) if len(k) else 1)[k]  # max-edge: k <= the tree axes


@lru_cache(maxsize=16)
def _max_chi2_table(k_max):
    """Row k: :func:`max_chi2_moments` (k) for k = 1..k_max (row 0 unused), read-only."""
    table = np.array([(np.nan, np.nan)] + [max_chi2_moments(k) for k in range(1, k_max + 1)])
    table.flags.writeable = False
    return table


def _split_posterior_weight(z2, V, k, scale):
    """Posterior mean of ``tau^2 / (tau^2 + V_p)`` for a few selected split contrasts.

    Prior: tau^2 = 0 with probability NULL_PRIOR, else log-uniform on [1e-3, 1] x scale.
    Likelihood of the chosen split's ``z^2 = d_p^2 / V_p``: the largest of k_p independent
    ``s chi^2_1``, ``s = 1 + tau^2 / V_p`` (density ``k F(x/s)^(k-1) f(x/s) / s``).
    """
    tau2, prior = _tau2_prior(scale, NULL_PRIOR)
    s = 1.0 + tau2[None, :] / V[:, None]
    u = z2[:, None] / s
    # log f(u) - log s without the terms common to every tau^2: -u/2 - log(s)/2
    loglik = ((k[:, None] - 1) * np.log(np.maximum(chdtr(1, u), 1e-300))
              - 0.5 * u - 0.5 * np.log(s)).sum(axis=0)
    return (tau2[None, :] / (tau2[None, :] + V[:, None])) @ _posterior(prior, loglik)


def shrink_tree(tree, nodes, scale, budget, rule="max-edge", levels=None):
    """Round-1 node means shrunk along the tree (module docstring), each (n_nodes, m).

    Returns ``(values, raw)``: the shrunk and the raw node means (a node nobody reached takes
    its parent's). One tau^2 per depth from the split contrasts, with the null moments of
    :func:`split_null` (the split was selected on these same labels).
    """
    levels = tree_levels(tree) if levels is None else levels
    count, noise = nodes.denominator, np.maximum(nodes.noise, 0.0)
    has = count > 0
    safe = np.where(has, count, 1.0)
    mean = nodes.numerator / safe[:, None]
    var = np.where(has, noise / safe**2, np.inf)
    raw = np.zeros_like(mean)
    raw[0] = mean[0] if has[0] else 0.0
    values = raw.copy()
    for split in levels:
        left, right = tree.left[split], tree.right[split]
        for child in (left, right):
            raw[child] = np.where(has[child, None], mean[child], raw[split])
        V = var[left] + var[right]
        exact = V <= 0
        noisy = np.isfinite(V) & ~exact & (V <= SE_MAX**2 * scale)
        w = exact.astype(float)
        if noisy.any():
            Vn = V[noisy]
            z2 = ((raw[left] - raw[right])[noisy] ** 2).sum(axis=1) / Vn
            J = len(Vn)
            if J <= SMALL_LEVEL:  # too few contrasts to estimate tau^2 by a margin
                k = split_candidates(tree, split[noisy], rule)
                w[noisy] = _split_posterior_weight(z2, Vn, k, scale)
            else:
                null = split_null(tree, split[noisy], rule).sum(axis=0)
                excess = z2.sum() - null_margin(J, J / np.sum(1.0 / Vn), budget, *null)
                tau2 = min(max(excess, 0.0) / np.sum(1.0 / Vn), scale)
                w[noisy] = tau2 / (tau2 + Vn)
        for child in (left, right):
            values[child] = values[split] + w[:, None] * (raw[child] - raw[split])
    return values, raw


class StableEstimate(NamedTuple):
    """Result of :func:`stable_cell_values`, one row per cell ``h * n_leaves + leaf``.

    values : (n_cells, m) the stable estimate.
    weight : (n_cells,) weight of the cell's own evidence (its eq-(9) contrast), in [0, 1]:
        0 = the fallback alone, 1 = eq (9) relative to its leaf.
    std_error : (n_cells,) standard error of the cell's eq-(9) ratio, ``sqrt(Var R) / D``
        (inf where D <= 0).
    fallback : (n_cells, m) the value with weight 0: the leaf's value plus the histogram
        effect of the parent node.
    node_values : (n_nodes, m) the shrunk round-1 value of every tree node.
    """

    values: np.ndarray
    weight: np.ndarray
    std_error: np.ndarray
    fallback: np.ndarray
    node_values: np.ndarray


def stable_cell_values(tree, nodes, cells, n_hist, scale, rule="max-edge", posterior=False,
                       root_cells=None):
    """The stable estimate of every cell (module docstring): a :class:`StableEstimate`.

    Parameters
    ----------
    tree : ldpviz.partition.PublicTree
    nodes : UnitSums, one row per tree node: the public-side sums (round 1: users who reached
        the node, exact counts). A node nobody reached takes its parent's value; all-zero sums
        make the fallback 0.
    cells : UnitSums, one row per cell ``h * n_leaves + leaf`` (round 2).
    n_hist : int, number of histogram cells.
    scale : float, the largest plausible spread of true deviations: ``M^2`` for labels in
        [-M, M]. It caps tau^2 and sets SE_MAX and TOLERANCE in label units.
    rule : {"max-edge", "cart"}, the rule that grew the tree (its selection bias).
    posterior : bool, posterior-mean weights for the cells (a classifier's choice, see above).
    root_cells : UnitSums or None, the n_hist merged cells of the root when they are known
        better than the sum of their leaves (LPDT: every private user is in the root, V~ = 1).
    """
    levels = tree_levels(tree)
    n_nodes = len(tree.feature)
    budget = TOLERANCE * scale
    merged = merge_leaves(tree, cells, n_hist, levels)
    if root_cells is not None:
        rows = np.arange(n_hist) * n_nodes
        merged = UnitSums(*(_replace_rows(f, rows, r)
                            for f, r in zip(merged, root_cells, strict=True)))
    node_value, node_raw = shrink_tree(tree, nodes, scale, budget, rule, levels)
    m = node_value.shape[1]
    effect = np.zeros((n_hist, n_nodes, m))  # histogram effect: merged cell minus node
    weight = np.zeros((n_hist, n_nodes))
    variance = np.zeros((n_hist, n_nodes))
    parent = node_parents(tree, levels)[0]
    hist = np.arange(n_hist)[:, None]
    depth_nodes = [np.array([0])] + [np.concatenate([tree.left[s], tree.right[s]])
                                     for s in levels]
    for level in depth_nodes:
        inherited = effect[:, parent[level]] * (parent[level] >= 0)[None, :, None]
        rows = (hist * n_nodes + level[None, :]).ravel()
        g = (node_raw[level][None] + inherited).reshape(-1, m)
        small_root = level[0] == 0 and n_hist <= SMALL_ROOT
        values, w, var = shrink(UnitSums(*(f[rows] for f in merged)), g, scale, budget,
                                posterior or small_root, prune=not posterior)
        effect[:, level] = values.reshape(n_hist, len(level), m) - node_raw[level][None]
        weight[:, level] = w.reshape(n_hist, len(level))
        variance[:, level] = var.reshape(n_hist, len(level))
    order = tree.node_of_leaf
    D = merged.denominator.reshape(n_hist, n_nodes)[:, order]
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.where(D > 0, np.sqrt(variance[:, order]) / np.where(D > 0, D, 1.0), np.inf)
    leaf_value = node_value[order][None]
    up = parent[order]
    fallback = leaf_value + effect[:, up] * (up >= 0)[None, :, None]
    return StableEstimate((leaf_value + effect[:, order]).reshape(-1, m),
                          weight[:, order].ravel(), se.ravel(), fallback.reshape(-1, m),
                          node_value)


def _replace_rows(field, rows, values):
    out = field.copy()
    out[rows] = values
    return out


def paper_cell_values(numerator, denominator, backup):
    """Eq (9) as printed: ``N_j / D_j`` where ``D_j > 0``, else ``backup`` (post-processing)."""
    ok = denominator > 0
    return np.where(ok, numerator / np.where(ok, denominator, 1.0), backup)
