"""A tuning-free choice of (s, p, t) for AdHistOfTree: bound (26) with the mechanism's variance.

Eq (15) of the HistOfTree paper chooses (s, p*) by a bound whose constants are unknown and
couples the histogram to the tree, ``t* = round(2^{p*/(d-s)})``. Both hurt in practice: the
approximation term's multiplier c decides everything (Appendix C.1 tunes it on held-out error,
which a deployed private estimator cannot do), and the coupling gives ``t = 1`` whenever the
tree is shallow, so a signal on the protected features is thrown away. This module replaces
both by the decomposition the paper's proof starts from, bound (26) (Lemmas B.1-B.3: privatised
error + approximation error, with t and p free), with the variance computed for the actual
mechanism instead of up to a constant, and with the shrinkage of ldpviz's default "stable"
cell estimate (:mod:`ldpviz.cell_estimates`) taken into account:

    risk(s, p, t) = V_0 + sum_{q=1..p} [S(tau_q^2, V_q) + lambda M^2]      (tree levels)
                    + 1{t > 1} [S(tau_H^2, V_H) + lambda M^2]                (histogram)
                    + c_tree M^2 sum_{tree axes} side^2 + c M^2 s / t^2      (what is left)

* ``S(tau^2, V) = tau^2 V / (tau^2 + V)`` is the error of a deviation of spread tau^2 observed
  with noise variance V and shrunk by its signal-to-noise ratio (what the stable estimate does
  at each level of the tree and for the histogram effect); it is below both tau^2 (ignore the
  level) and V (eq 9's ratio). ``lambda M^2`` is the price of each level's shrinkage having
  to estimate its own tau^2 (false alarms; :data:`ldpviz.cell_estimates.TOLERANCE` bounds it
  by design).
* Tree level q: ``tau_q^2 = c_tree M^2 (D(q-1) - D(q))`` with ``D(q)`` the sum of the squared
  sides of the max-edge tree's cells over the d - s tree axes (each cut ``floor(q / (d-s))``
  or ``ceil`` times; Lemma B.3 summed over axes), and ``V_q = 2^q V_0 / r_q``, ``V_0 =
  mean_i (sigma^2 + nu_i) / n`` the variance of the round-1 mean, ``r_q`` the share of users a
  split passes down (those who publish the split axis; q random tree axes).
* Histogram: ``tau_H^2 = c M^2 s (1 - 1/t^2)``; its effect is reported at the full resolution,
  ``V_H = (C / n) mean_i (sigma^2 + nu_i) F(K_i)`` with ``C = t^s 2^p`` cells, ``nu_i`` user
  i's label-noise variance (Laplace(2M / eps_i), ``eps_i = rho eps``, or all of epsilon for a
  user whose cell is fixed by what they publish, as in :class:`ldpviz.HistOfTree`),
  ``sigma^2 = M^2 / 3`` the label's own spread (a label uniform on [-M, M]), and ``F(K)`` how
  much the cell report inflates a user's contribution: 1 for a single potential cell (reported
  exactly), else ``1 + K v(K)`` with ``v`` the variance of one debiased indicator of a
  potential cell not holding the user -- GRR ``(e^e + K - 2) / (e^e - 1)^2`` (eq 17), binary
  RR ``e^{e/2} / (e^{e/2} - 1)^2`` (eq 8), "auto" the smaller; ``e = (1 - rho) eps``
  (:func:`ldpviz.mechanisms.grr_is_better`). ``K_i = t^{h_i} 2^{p k_i / (d-s)}`` potential
  cells for a user hiding ``h_i`` histogram axes and ``k_i`` tree axes (the paper's delta(p),
  eq 12, is the mean of ``2^{p k_i / (d-s)}``).

The unknowns are the squared slopes of the regression function per axis, in units of M^2 (``c``
on the histogram axes, ``c_tree`` on the tree axes: the tree places its cuts where the
round-1 labels vary, a histogram cannot) and the price ``lambda``. They were calibrated once,
offline, on simulated data from a public model class (random additive Lipschitz functions;
``benchmarks/calibrate_adaptive.py``, which states its run time) and are stored here. The
variance terms carry the exact dependence on n, epsilon, rho, the mechanism and W, so the same
constants serve every (n, epsilon, W): the calibration ran at one small n and is checked at
n = 10,000 and 100,000 (``benchmarks/bench_adaptive.py``).

How well it does (``benchmarks/bench_adaptive.py``, n = 10,000, 10 replications): against the
best fixed (s, p, t, rho) of the paper's grid (rho in {0.5, 0.7, 0.9}) chosen in hindsight per
function, the geometric-mean MSE ratio is 1.30 over 66 (setting, function) cells (eq 15 with
c = 0.01: 1.40; worst 2.23 against 3.12); within 10% in 26 of them (n = 100,000, 3 replications:
1.23, worst 1.92, 18 of 44). AdHistOfTree then refines the depth on round 1's released labels
(:mod:`ldpviz.depth_selection`): 1.22, 34 of 66 (n = 100,000: 1.18, 21 of 44). The gap is the
signal: one public rule must serve every function, and the best partition depends on how strong
the signal is and on which features it sits (a strong or rough signal wants t = 3 and deeper
trees, a weak one t = 1 or 2). On the calibration class even the best single partition per
setting chosen in hindsight is 11% off on average in-sample and 20% off for a function it did
not see, about what this rule achieves there (21%).

Why ``t = 1`` is chosen only when it should be: every protected axis is assumed to carry the
calibrated signal, and t = 1 wins only where the histogram effect's noise ``V_H`` is so large
that shrinking it would recover less than the price of trying -- a protected feature with
that much signal could not be recovered by a finer histogram at this n and epsilon. No
coupling ``t = 2^{p / (d-s)}`` remains, so a shallow tree no longer forces one bin.

Privacy: the rule reads only public quantities (n, epsilon, rho, the mechanism, the public label
bound M and the public mask W) -- never the labels, the features or anything released. It runs
before round 1, so which users spend all of epsilon on their label is known before any release,
and the protocol then runs with the chosen (s, p, t) exactly as :class:`ldpviz.HistOfTree`
does: rho eps for the label plus (1 - rho) eps for the cell report, which add up to epsilon.

The budget split. The same proxy, evaluated for a given partition at every rho of
``RHO_GRID``, is :class:`ldpviz.HistOfTree`'s default ``rho="auto"`` (:func:`choose_rho`): where
the cell reports cannot recover the calibrated signal, giving the label nearly all of epsilon
costs little, and it keeps a histogram that cannot help from costing much against t = 1
(benchmarks/bench_cell_estimate.py --target2). AdHistOfTree keeps rho = 0.5, at which the
constants were calibrated.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ._config import check_mask_tables
from ._index import bincount
from ._validation import (
    check_choice,
    check_int,
    check_rho,
    check_simulable,
    resolve_y_bound,
)
from .masks import protection_ranking
from .mechanisms import MECHANISMS

__all__ = ["CALIBRATED_C", "CALIBRATED_C_TREE", "CALIBRATED_LEVEL_COST", "P_MAX", "RHO_GRID",
           "T_MAX", "choose_rho", "default_s_max", "histogram_risk", "risk_table",
           "select_partition"]

#: Calibrated constants (``benchmarks/calibrate_adaptive.py``): the squared slope per histogram
#: axis and per tree axis in units of M^2, and the price of one level of shrinkage in M^2.
CALIBRATED_C = 0.01
CALIBRATED_C_TREE = 0.01
CALIBRATED_LEVEL_COST = 3e-4

#: The label's shares of epsilon that ``rho="auto"`` chooses from: Appendix C.1's grid, and
#: nearly all of epsilon on the label where no cell report could pay for its share.
RHO_GRID = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)

#: Largest bins per histogram axis and tree depth the rule considers (the calibrated range).
T_MAX = 5
P_MAX = 8
MAX_T_MAX = 1000  # risk_table's t_max: one row per t, however few cells fit


def auto_budget_shares():
    """The smallest shares of epsilon ``rho="auto"`` can give a release: ((label, cell
    report), label), for the budget checks made before the rule runs."""
    return (RHO_GRID[0], 1.0 - RHO_GRID[-1]), RHO_GRID[0]


def _check_public(epsilon, rho, mechanism, y_bound):
    """The proxy's public inputs, refused with the argument named where double precision
    could not evaluate it (``rho`` None: every share of ``RHO_GRID``)."""
    y_bound = resolve_y_bound(y_bound, None)
    check_choice(mechanism, "mechanism", MECHANISMS)
    if rho is None:
        shares, label = auto_budget_shares()
    else:
        label = check_rho(rho)
        shares = (label, 1.0 - label)
    check_simulable(epsilon, shares, y_bound, label_share=label)


def _user_types(W, ranking, s):
    """(h, k, weight) of the distinct users of a boolean mask: hidden axes among the s most
    protected (h) and among the others (k), and their share of users, in (h, k) order.

    One pass over the columns into a small code ``h (d + 1) + k``: about 0.1 s at ten million
    users (grouping the (h, k) pairs with np.unique took seconds).
    """
    n, d = W.shape
    check_mask_tables("the adaptive rule", n, d)  # (d + 1)^2 counts below
    code = np.zeros(n, dtype=np.uint8 if (d + 1) ** 2 <= 256 else np.int64)
    for rank, j in enumerate(ranking):
        hidden = W[:, j].view(np.uint8) if code.dtype == np.uint8 else W[:, j]
        code += hidden * code.dtype.type(d + 1 if rank < s else 1)
    counts = bincount(code, minlength=(d + 1) ** 2)
    present = np.flatnonzero(counts)
    return present // (d + 1), present % (d + 1), counts[present] / n


def default_s_max(W):
    """Largest histogram searched: the features everyone protects plus one, and only features
    someone protects; a tree (s <= d - 1) unless everyone protects everything."""
    W = np.asarray(W, dtype=bool)
    s_min, d = int(W.all(axis=0).sum()), W.shape[1]
    return max(s_min, min(s_min + 1, int(W.any(axis=0).sum()), d - 1))


def _report_factor(K, epsilon_cells, mechanism):
    """F(K): 1 for one potential cell, else ``1 + K v(K)`` (module docstring)."""
    K = np.asarray(K, dtype=float)
    if np.isinf(epsilon_cells):
        return np.ones_like(K)
    # (e + K - 1) / e^2 and (h + 1) / h^2 with e = e^eps - 1, h = e^(eps/2) - 1, written with
    # 1/e = e^-eps / (1 - e^-eps) so that a large epsilon neither overflows nor warns
    a = np.exp(-epsilon_cells) / -np.expm1(-epsilon_cells)
    b = np.exp(-epsilon_cells / 2) / -np.expm1(-epsilon_cells / 2)
    grr = a + (K - 1) * a**2
    rr = b + b**2
    v = {"grr": grr, "rr": rr + 0 * K, "auto": np.minimum(grr, rr)}[mechanism]
    return np.where(K <= 1, 1.0, 1.0 + K * v)


def _t_min(s, h, k, weight, n, M2, nu_split, eps_cells, mechanism, c):
    """2 if two bins per protected axis would recover the calibrated signal, else 1.

    The guard against discarding protected features: the histogram effect of ``t = 2``,
    measured at the root (all users, their reports merged over the tree), has spread
    ``tau^2 = c M^2 s 3/4`` and noise ``V = 2^s mean_i (sigma^2 + nu_i) F(2^{h_i}) / n``. If
    ``tau^2 >= V`` (the stable estimate would keep at least half of it) one bin is not a
    candidate, whatever the tree's gain from giving fixed users all of epsilon.
    """
    K = 2.0**h
    factor = np.where((k == 0) & (h == 0), 1.0, _report_factor(K, eps_cells, mechanism))
    noise = 2.0**s * float(weight @ ((M2 / 3.0 + nu_split) * factor)) / n
    return 2 if c * M2 * s * 0.75 >= noise else 1


def _noise(epsilon, rho, y_bound):
    """(nu_split, nu_full, eps_cells): label-noise variances of users who split epsilon and of
    those who spend it all on the label, and the cell report's budget."""
    epsilon = float(epsilon)
    if not np.isfinite(epsilon):
        return 0.0, 0.0, np.inf
    return (2.0 * (2.0 * y_bound / (rho * epsilon)) ** 2, 2.0 * (2.0 * y_bound / epsilon) ** 2,
            (1.0 - rho) * epsilon)


def _label_variance(h, k, t, M2, nu_split, nu_full):
    """Which user types have their cell fixed by what they publish (all of epsilon on the
    label), and each type's label variance: the label's own spread ``M^2 / 3`` plus its noise."""
    fixed = (k == 0) & ((t == 1) | (h == 0))
    return fixed, M2 / 3.0 + np.where(fixed, nu_full, nu_split)


def _tree_side2(m, p):
    """Squared sides summed over the m tree axes of a max-edge tree of depth p."""
    if m == 0:
        return 0.0
    a, r = divmod(int(p), m)
    return r * 4.0 ** -(a + 1) + (m - r) * 4.0 ** -a


def risk_table(W, n, epsilon, rho=0.5, mechanism="grr", y_bound=1.0, s_min=0, s_max=None,
               max_cells=None, p_max=P_MAX, t_max=T_MAX, c=CALIBRATED_C,
               c_tree=CALIBRATED_C_TREE, level_cost=CALIBRATED_LEVEL_COST):
    """The risk proxy (module docstring) of every candidate (s, p, t).

    Parameters
    ----------
    W : (n_W, d) array of 0/1
        The public mask (1 = protected); only its column ranking and per-user counts are used.
    n : int
        Users.
    epsilon : float in (0, inf]
    rho : float in (0, 1)
        Share of epsilon spent on the label.
    mechanism : {"grr", "rr", "auto"}
    y_bound : float > 0
        The public label bound M.
    s_min, s_max : int
        Histogram sizes searched; ``s_max`` None means :func:`default_s_max`: at most one
        feature beyond those everyone protects (larger histograms on partly published
        features lost to the tree in every calibration setting), none that nobody protects,
        and a tree unless everyone protects everything (``s = d``: a pure histogram, p = 0).
    max_cells : int or None
        Largest partition ``t^s 2^p`` considered (None: n).
    p_max, t_max : int
        Deepest tree and most bins per axis considered.
    c, c_tree, level_cost : float
        The calibrated constants.

    Returns
    -------
    list of (s, p, t, risk)
        ``t`` is 1 when s = 0 and ``p`` is 0 when s = d.
    """
    _check_public(epsilon, rho, mechanism, y_bound)
    check_int(n, "n", 1)
    check_int(t_max, "t_max", 1, MAX_T_MAX)
    ranking = protection_ranking(W)  # checks W
    W = np.asarray(W, dtype=bool)
    s_max = default_s_max(W) if s_max is None else s_max
    out = []
    for s in range(s_min, s_max + 1):
        out += _risk_rows(_user_types(W, ranking, s), W.shape[1], s, n, epsilon, rho,
                          mechanism, y_bound, max_cells, p_max, None, t_max,
                          (c, c_tree, level_cost))
    return out


def _risk_rows(types, d, s, n, epsilon, rho, mechanism, y_bound, max_cells, p_max, t_min,
               t_max, constants, deepest_only=False):
    """risk_table's rows for one s; ``t_min`` None: the guard :func:`_t_min`;
    ``deepest_only``: only the rows of depth ``p_max`` (the shallower levels still count)."""
    c, c_tree, level_cost = constants
    h, k, weight = types[0].astype(float), types[1].astype(float), types[2]
    n = max(int(n), 1)
    M2 = float(y_bound) ** 2
    nu_split, nu_full, eps_cells = _noise(epsilon, rho, y_bound)
    max_cells = n if max_cells is None else max_cells
    p_max = P_MAX if p_max is None else p_max
    m = d - s
    if s == 0:
        t_values = [1]
    else:
        if t_min is None:
            t_min = _t_min(s, h, k, weight, n, M2, nu_split, eps_cells, mechanism, c)
        t_values = range(t_min, t_max + 1)
    out = []
    for t in t_values:
        fixed, label = _label_variance(h, k, t, M2, nu_split, nu_full)
        base = float(weight @ label) / n  # the root mean's variance
        tree_risk = base
        for p in ([0] if m == 0 else range(p_max + 1)):
            if t**s * 2**p > max_cells:  # in integers: t**s may exceed the floats
                break
            if p > 0:  # one more tree level: its deviation, shrunk by its noise, + a price
                reach = weight @ (1.0 - k / m) ** p  # users passed down p public splits
                tau2 = c_tree * M2 * (_tree_side2(m, p - 1) - _tree_side2(m, p))
                v = 2.0**p * base / max(reach, 1e-12)
                tree_risk += _shrunk(tau2, v) + level_cost * M2
            if deepest_only and p < p_max:
                continue
            total = tree_risk + c_tree * M2 * _tree_side2(m, p) + c * M2 * s / t**2
            if t > 1:
                total += _histogram_term(h, k, weight, label, fixed, m, s, p, t, n, M2,
                                         eps_cells, mechanism, c, level_cost)
            out.append((s, int(p), int(t), total))
    return out


def _histogram_term(h, k, weight, label, fixed, m, s, p, t, n, M2, eps_cells, mechanism, c,
                    level_cost):
    """The histogram effect's share of the risk, reported at the full (s, p, t) resolution:
    ``S(tau_H^2, V_H) + lambda M^2`` (module docstring)."""
    K = t**h * (np.exp2(p * k / m) if m else 1.0)
    factor = np.where(fixed, 1.0, _report_factor(K, eps_cells, mechanism))
    v = t**s * 2.0**p * float(weight @ (label * factor)) / n
    tau2 = c * M2 * s * (1.0 - 1.0 / t**2)
    return _shrunk(tau2, v) + level_cost * M2


def _shrunk(tau2, v):
    """``tau2 v / (tau2 + v)``; where the product of two huge variances overflows (labels
    bounded by 1e90, say), the same quotient as ``a / (1 + a / b)``, a and b their min and
    max."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = tau2 * v / (tau2 + v)
    if np.isfinite(out):
        return out
    a, b = min(tau2, v), max(tau2, v)
    return a / (1.0 + a / b)


def histogram_risk(W, n, epsilon, rho, mechanism, y_bound, s, t, depths, ranking=None):
    """The histogram term of the risk proxy at each depth of ``depths`` for (s, t): what the
    cell reports' noise costs as the tree deepens (more cells; more potential cells for users
    who hide tree axes). 0 when t = 1. Public inputs only."""
    _check_public(epsilon, rho, mechanism, y_bound)
    depths = np.asarray(depths, dtype=int)
    if t == 1 or s == 0:
        return np.zeros(len(depths))
    W = np.asarray(W, dtype=bool)
    ranking = protection_ranking(W) if ranking is None else ranking
    h, k, weight = _user_types(W, ranking, s)
    h, k = h.astype(float), k.astype(float)
    nu_split, nu_full, eps_cells = _noise(epsilon, rho, y_bound)
    M2 = float(y_bound) ** 2
    fixed, label = _label_variance(h, k, t, M2, nu_split, nu_full)
    return np.array([_histogram_term(h, k, weight, label, fixed, W.shape[1] - s, s, p, t,
                                     max(int(n), 1), M2, eps_cells, mechanism, CALIBRATED_C,
                                     CALIBRATED_LEVEL_COST) for p in depths])


def select_partition(W, n, epsilon, rho=0.5, mechanism="grr", y_bound=1.0, s_min=0, s_max=None,
                     max_cells=None, p_max=P_MAX, t_max=T_MAX, c=CALIBRATED_C,
                     c_tree=CALIBRATED_C_TREE, level_cost=CALIBRATED_LEVEL_COST,
                     tie_rtol=1e-12):
    """The (s, p, t) minimising :func:`risk_table` (same parameters).

    Candidates within ``tie_rtol`` (relative) of the minimum count as ties; ties go to the
    fewest cells, then the smallest s.
    """
    rows = risk_table(W, n, epsilon, rho, mechanism, y_bound, s_min, s_max, max_cells, p_max,
                      t_max, c, c_tree, level_cost)
    if not rows:
        raise ValueError("max_cells must allow at least one cell; got no candidate partition.")
    risk = np.array([r[3] for r in rows])
    best = risk.min()
    ties = [r for r, v in zip(rows, risk, strict=True) if v <= best * (1 + tie_rtol)]
    s, p, t, _ = min(ties, key=lambda r: (r[2] ** r[0] * 2 ** r[1], r[0]))
    return s, p, t


def choose_rho(W, n, epsilon, mechanism, y_bound, s, p, t, ranking=None):
    """The label's share of epsilon (``rho="auto"``) for a given partition: the value of
    ``RHO_GRID`` whose :func:`risk_table` risk of (s, p, t) is least (ties: the smallest).

    Public inputs only (the mask W, n, epsilon, the mechanism, the bound M and the partition
    size), so the choice is made before round 1 and costs no privacy. ``epsilon = inf``: 0.5
    (nothing to split). ``ranking``: the protection ranking of a boolean W already checked.

    The risk assumes the calibrated signal ``c`` per protected axis: where the cell reports
    could not recover that much at this n and epsilon, nearly all of epsilon goes to the label.
    A stronger signal on the protected features would have repaid a smaller rho (measured in
    :class:`ldpviz.HistOfTree`'s docstring); no public rule can know which.
    """
    _check_public(epsilon, None, mechanism, y_bound)
    if not np.isfinite(float(epsilon)):
        return RHO_GRID[0]
    if ranking is None:
        ranking = protection_ranking(W)
        W = np.asarray(W, dtype=bool)
    h, k, weight = _user_types(W, ranking, s)
    return _rho_for(tuple(h.tolist()), tuple(k.tolist()), tuple(weight.tolist()), W.shape[1],
                    int(n), float(epsilon), mechanism, float(y_bound), int(s), int(p), int(t))


@lru_cache(maxsize=256)  # explorers and grid searches refit the same mask and partition
def _rho_for(h, k, weight, d, n, epsilon, mechanism, y_bound, s, p, t):
    types = (np.array(h), np.array(k), np.array(weight))
    constants = (CALIBRATED_C, CALIBRATED_C_TREE, CALIBRATED_LEVEL_COST)
    risks = []
    for rho in RHO_GRID:
        rows = _risk_rows(types, d, s, n, epsilon, rho, mechanism, y_bound, np.inf, p, t, t,
                          constants, deepest_only=True)
        risks.append(next((r[3] for r in rows if r[1] == p), np.inf))
    return RHO_GRID[int(np.argmin(risks))]
