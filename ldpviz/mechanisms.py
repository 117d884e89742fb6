"""Local randomizers of semi-feature LDP and their unbiased debiasing.

Every function is a pure function of (values, epsilon, rng): all randomness comes from the numpy
Generator passed in. The budget convention follows Appendix C.1 of the HistOfTree paper: the label
gets ``rho * epsilon`` and the cell report ``(1 - rho) * epsilon`` (:func:`split_budget`), so the
two releases of one user compose to ``epsilon`` (Proposition 3.2 / A.1).

Floating-point caveat: textbook floating-point Laplace sampling, used here as everywhere in numpy,
is not exactly differentially private (Mironov, 2012). ldpviz is a teaching and research package;
do not deploy these samplers to protect real people.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._cell_groups import (
    bincount_rows,
    cell_groups,
    group_sums,
    potential_cover,
    rr_bit_sums,
    spread_to_cells,
)
from ._config import (
    _CHUNK_ENTRIES,
    _USER_BLOCK,
    _largest_fitting,
    check_budget,
    get_config,
    report_entries_allowed,
)
from ._validation import check_choice, check_epsilon, check_rho

MECHANISMS = ("grr", "rr", "auto")
# Users per block of the uniforms GRR draws (the work arrays' caps are in _config).
_DRAW_BLOCK = 1 << 20


# ----------------------------------------------------------------------------------------------
# Budget split
# ----------------------------------------------------------------------------------------------
def split_budget(epsilon, rho=0.5):
    """Split epsilon into the label's share and the cell report's share (Appendix C.1).

    Parameters
    ----------
    epsilon : float
        Total budget per user, in (0, inf].
    rho : float
        Share of the label, in (0, 1).

    Returns
    -------
    (epsilon_label, epsilon_cells) : tuple of float
        ``rho * epsilon`` and ``epsilon - rho * epsilon``. By sequential composition of the two
        independent releases the user's total loss is their sum, which is ``epsilon``.
    """
    epsilon = check_epsilon(epsilon)
    rho = check_rho(rho)
    if np.isinf(epsilon):
        return np.inf, np.inf
    eps_label = rho * epsilon
    return eps_label, epsilon - eps_label


# ----------------------------------------------------------------------------------------------
# Laplace on clipped labels (eq 4)
# ----------------------------------------------------------------------------------------------
def _budgets(epsilon):
    """A scalar budget (checked) or an array of per-user budgets, all in (0, inf]."""
    if np.ndim(epsilon) == 0:
        return check_epsilon(epsilon)
    epsilon = np.asarray(epsilon, dtype=float)
    if not np.all(epsilon > 0):  # also rejects NaN
        raise ValueError("epsilon must be > 0 for every user (np.inf means no privacy).")
    return epsilon


def laplace_scale(epsilon, y_bound):
    """Laplace scale ``2 M / epsilon`` that makes a label in [-M, M] epsilon-LDP (eq 4).

    The sensitivity of a label clipped to [-M, M] is 2M. With ``epsilon = rho * eps`` this is
    the ``2M / (rho eps)`` of Appendix C.1, and ``4M / eps`` of eq (4) at rho = 1/2.
    ``epsilon`` may be an array of per-user budgets; infinite budgets give scale 0.
    """
    return 2.0 * float(y_bound) / _budgets(epsilon)


def privatize_labels(y, epsilon, y_bound, rng):
    """Release ``clip(y, -M, M) + Laplace(2M / epsilon)`` for each user (eq 4).

    Privacy: each output is epsilon-LDP for that user's label: for any two labels y, y' the
    output densities differ by a factor at most ``exp(epsilon |clip y - clip y'| / 2M) <= e^eps``.
    Call it once per user and reuse the result everywhere (the tree and every cell).
    ``epsilon`` may be one budget or an array of per-user budgets.
    """
    y = np.clip(np.asarray(y, dtype=float), -y_bound, y_bound)
    scale = np.broadcast_to(laplace_scale(epsilon, y_bound), y.shape)
    return y + rng.laplace(0.0, 1.0, size=y.shape) * scale


def laplace_log_density(output, y, epsilon, y_bound):
    """Log density of the label release at ``output`` given the true label ``y`` (eq 4).

    For checks: the privacy tests bound the log-likelihood ratio of two labels by epsilon with it.
    """
    scale = laplace_scale(epsilon, y_bound)
    y = np.clip(y, -y_bound, y_bound)
    return -np.abs(np.asarray(output) - y) / scale - np.log(2 * scale)


# ----------------------------------------------------------------------------------------------
# Binary randomized response, one bit per cell (eq 5 / eq 8)
# ----------------------------------------------------------------------------------------------
def _rr_constants(epsilon):
    """(q, C) for binary RR with budget epsilon for the whole one-hot vector.

    Two entries of a one-hot vector change when the cell changes, so each bit uses epsilon / 2:
    a bit is flipped with probability q = 1 / (1 + e^{eps/2}) and debiased with
    C = (e^{eps/2} + 1) / (e^{eps/2} - 1). Written with u = e^{-eps/2} to stay finite at large eps,
    and 1 - u as ``-expm1(-eps/2)`` to stay accurate at small eps.
    """
    u = np.exp(-epsilon / 2.0)
    return u / (1.0 + u), (1.0 + u) / -np.expm1(-epsilon / 2.0)


def rr_probabilities(epsilon):
    """(keep, flip) probabilities of each bit under :func:`binary_rr` (eq 5 with eps/4 -> eps/2).

    Public constants of the mechanism: no data involved.
    """
    q, _ = _rr_constants(check_epsilon(epsilon))
    return 1.0 - q, q


def binary_rr(bits, epsilon, rng):
    """Randomized response on each entry of a one-hot indicator vector (eq 5 / eq 8).

    Parameters
    ----------
    bits : array of 0/1
        Indicator(s) of the user's cell, last axis = cells.
    epsilon : float
        Budget of the *whole vector*: each bit is kept with probability
        ``e^{eps/2} / (1 + e^{eps/2})``. With ``epsilon = (1 - rho) eps`` and rho = 1/2 this is
        the ``eps/4`` per bit of eq (5).

    Privacy: moving the user to another cell changes two bits, each by a likelihood factor at
    most ``e^{eps/2}``, so the vector release is epsilon-LDP (Proposition 3.2, (19)).
    """
    epsilon = check_epsilon(epsilon)
    q, _ = _rr_constants(epsilon)
    bits = np.asarray(bits).astype(bool)
    return bits ^ (rng.random(bits.shape) < q)


def debias_binary_rr(reported, epsilon):
    """Unbiased estimate ``C (b - q)`` of each indicator from its RR bit (eq 5, used in eq 9).

    Post-processing of the released reports: it uses no raw data and costs no privacy.
    """
    q, C = _rr_constants(check_epsilon(epsilon))
    return C * (np.asarray(reported, dtype=float) - q)


# ----------------------------------------------------------------------------------------------
# Generalized randomized response over k values (eq 16 / eq 17)
# ----------------------------------------------------------------------------------------------
def _grr_constants(epsilon, k):
    """(p_true, p_other, c, offset) of k-ary GRR, stable at large epsilon (u = e^{-eps}).

    p_true = e^eps / (e^eps + k - 1), p_other = 1 / (e^eps + k - 1); the debiased indicator is
    c (1{report = j} - p_other) with c = (e^eps + k - 1) / (e^eps - 1), and c * p_other = offset
    = 1 / (e^eps - 1) does not depend on k.
    """
    u = np.exp(-epsilon)
    one_minus_u = -np.expm1(-epsilon)  # 1 - u without cancellation at small epsilon
    k = np.asarray(k, dtype=float)
    denom = 1.0 + (k - 1.0) * u
    return 1.0 / denom, u / denom, denom / one_minus_u, u / one_minus_u


def grr_probabilities(k, epsilon):
    """(p_true, p_other) of :func:`grr` over k values (eq 16).

    Public constants of the mechanism: no data involved.
    """
    p_true, p_other, _, _ = _grr_constants(check_epsilon(epsilon), k)
    return p_true, p_other


def _grr_keep(k, epsilon, rng):
    """GRR's first draw (eq 16-17): whether each user keeps their true value (always when
    k = 1). ``epsilon``: one budget or one per user. The uniforms are drawn in blocks, which
    numpy draws identically to one call, so the work arrays stay small at millions of users.
    """
    keep = np.empty(len(k), dtype=bool)
    for lo in range(0, len(k), _DRAW_BLOCK):
        b = slice(lo, lo + _DRAW_BLOCK)
        eps = epsilon if np.ndim(epsilon) == 0 else epsilon[b]
        keep[b] = (rng.random(len(k[b])) < _grr_constants(eps, k[b])[0]) | (k[b] == 1)
    return keep


def grr(values, k, epsilon, rng):
    """Generalized randomized response: report the true value in {0..k-1} or another one (eq 16).

    The true value is kept with probability ``e^eps / (e^eps + k - 1)``; otherwise one of the
    other ``k - 1`` values is reported uniformly. ``k`` may differ per user (eq 17, k = |V_i|).

    Privacy: any output has probability between ``1 / (e^eps + k - 1)`` and
    ``e^eps / (e^eps + k - 1)`` whatever the input, so the ratio is at most ``e^eps``
    (Proposition A.1).
    """
    epsilon = _budgets(epsilon)
    values = np.asarray(values)
    if values.dtype.kind not in "iu":
        values = values.astype(np.int64)
    k = np.broadcast_to(np.asarray(k, dtype=np.int64), values.shape)
    if np.any((values < 0) | (values >= k)):
        raise ValueError("values must lie in 0..k-1.")
    shape = values.shape
    values, k = values.reshape(-1), k.reshape(-1)  # C order: the draws of the whole array
    if np.ndim(epsilon):
        epsilon = np.broadcast_to(epsilon, shape).reshape(-1)
    keep = _grr_keep(k, epsilon, rng)  # all uniforms first, then the other values
    out = np.empty(len(values), dtype=np.int64)
    for lo in range(0, len(values), _DRAW_BLOCK):  # blocks: small work arrays at any n
        b = slice(lo, lo + _DRAW_BLOCK)
        other = rng.integers(0, np.maximum(k[b] - 1, 1))
        other += other >= values[b]
        out[b] = np.where(keep[b], values[b], other)
    return out.reshape(shape)


def debias_grr(reported, k, epsilon):
    """Unbiased estimates of the k indicators ``1{x = j}`` from GRR reports, shape (n, k).

    ``(1{report = j} - p_other) / (p_true - p_other)`` (eqs 16-17, used in eq 9); ``epsilon``
    may be one budget or an array of per-user budgets. Post-processing of the released
    reports: it uses no raw data and costs no privacy.
    """
    epsilon = _budgets(epsilon)
    reported = np.asarray(reported)
    if reported.dtype.kind not in "iu":
        reported = reported.astype(np.int64)
    epsilon = np.broadcast_to(np.reshape(epsilon, (-1, 1)), (len(reported), 1))
    out = np.empty((len(reported), k))
    for lo in range(0, len(reported), _DRAW_BLOCK):  # blocks: small work arrays at any n
        b = slice(lo, lo + _DRAW_BLOCK)
        _, p_other, c, _ = _grr_constants(epsilon[b], k)
        out[b] = c * ((reported[b, None] == np.arange(k)[None, :]) - p_other)
    return out


# ----------------------------------------------------------------------------------------------
# The personalized cell report over potential cells V_i (eq 8 / eq 17)
# ----------------------------------------------------------------------------------------------
def _grr_draws(k, epsilon, rng):
    """The two random draws of GRR (eq 17) for users with |V_i| = k: whether each keeps their
    cell, and a rank among the |V_i| - 1 other potential cells.

    One call each for all users (the uniforms in blocks, which numpy draws identically), so the
    reports do not depend on how callers split the users afterwards.
    """
    keep = _grr_keep(k, epsilon, rng)
    high = np.maximum(k - 1, 1)  # |V_i| <= n_cells <= the cell budget: int32 in practice
    return keep, rng.integers(0, high, dtype=high.dtype)


def _grr_cells(groups, keep, r):
    """The reported cells: the own cell, or the r-th other potential cell in the user's group
    list (cell-id order: histogram cell major, leaf minor)."""
    k = groups.user_size
    r = np.minimum(r + (r >= groups.true_rank), k - 1)
    return np.where(keep, groups.true_cell, groups.cells[groups.offset[groups.group] + r])


def _sample_rr_bits(potential, true_cell, epsilon, rng):
    """One binary-RR bit per potential cell (eq 8); cells outside V_i stay 0 and carry no noise.

    A user with a single potential cell has a cell fixed by what they publish: they report it
    as is (randomizing it would add noise and protect nothing).
    """
    q, _ = _rr_constants(epsilon)
    bits = rng.random(potential.shape, dtype=np.float32) < q
    bits[np.arange(len(true_cell)), true_cell] ^= True
    single = potential.sum(axis=1) == 1
    bits[single] = potential[single]
    return bits & potential


def _rr_debiased(bits, potential, epsilon):
    """V~_i^j of eq (8): ``C (b - q)`` on V_i, 0 outside, exact for single-cell users."""
    q, C = _rr_constants(epsilon)
    single = potential.sum(axis=1, keepdims=True) == 1
    return np.where(potential, np.where(single, bits, C * (bits - q)), 0.0)


def _potential_cells(H, T):
    """Flatten V_i = H_i x T_i to a (users x cells) boolean matrix, cell = h * n_leaves + leaf."""
    return (H[:, :, None] & T[:, None, :]).reshape(len(H), -1)


class CellReports(NamedTuple):
    """Per-user messages of the cell report, for teaching (what the server actually receives).

    reported : (n,) reported cell ids (GRR) or (n, n_cells) 0/1 bits (RR).
    potential : (n, n_cells) bool, the potential cells V_i (known to the server from the
        published coordinates).
    debiased : (n, n_cells) float, the unbiased indicator estimates V~_i^j; 0 outside V_i.
    """

    reported: np.ndarray
    potential: np.ndarray
    debiased: np.ndarray


def cell_reports(partition, X, W, epsilon, mechanism, rng):
    """Every user's privatised cell report over their potential cells V_i (eq 8 or eq 17).

    Materialises (n, n_cells) arrays, so it is meant for small n (teaching, tests): it refuses,
    before allocating, more than the resource budget (:func:`ldpviz.set_config`, keys
    ``max_bytes`` and ``max_report_entries``). :func:`cell_report_sums` keeps only the sums:
    for "grr" it draws exactly these reports (same generator state, any n); for "rr" it draws
    bits with the same distribution, not the same bits.

    Parameters
    ----------
    partition : ldpviz.partition.Partition
    X : (n, d) array in [0, 1]; each user's full record (the randomizer runs on the user side).
    W : (n, d) bool privacy mask, 1 = protected.
    epsilon : float
        Budget of the cell report, ``(1 - rho) * eps`` in HistOfTree.
    mechanism : {"grr", "rr"}

    Privacy: V_i depends on published coordinates only, and within V_i the report is
    epsilon-LDP in the protected coordinates (Proposition 3.2 for "rr", A.1 for "grr").
    """
    epsilon = check_epsilon(epsilon)
    check_choice(mechanism, "mechanism", ("grr", "rr"))
    n_cells = partition.n_cells
    _check_report_budget(len(X), n_cells)
    H, T = partition.potential(X, W)
    potential = _potential_cells(H, T)
    groups = cell_groups(partition, X, W)
    if mechanism == "grr":
        k = groups.user_size
        reported = _grr_cells(groups, *_grr_draws(k, epsilon, rng))
        _, p_other, c, _ = _grr_constants(epsilon, k)
        onehot = reported[:, None] == np.arange(n_cells)[None, :]
        debiased = np.where(potential, c[:, None] * (onehot - p_other[:, None]), 0.0)
    else:
        reported = _sample_rr_bits(potential, groups.true_cell, epsilon, rng)
        debiased = _rr_debiased(reported, potential, epsilon)
    return CellReports(reported, potential, debiased)


# Bytes per (user, cell) entry of cell_reports: the potential matrix and its temporary, the
# one-hot or the float32 uniforms, and three float64 arrays while debiasing.
_REPORT_ENTRY_BYTES = 32


def _check_report_budget(n, n_cells):
    """Refuse per-user reports of n users over n_cells cells beyond the resource budget."""
    config = get_config()

    def sizes(n_):
        return {"max_bytes": _REPORT_ENTRY_BYTES * n_ * n_cells,
                "max_report_entries": n_ * n_cells}

    def fits(n_):
        return all(size <= (report_entries_allowed(n_, config) if key == "max_report_entries"
                            else config[key]) for key, size in sizes(n_).items())

    if not fits(n):
        check_budget(f"cell_reports over {n_cells:,} cells", "n_samples", n, sizes(n),
                     fits=_largest_fitting(fits, n), n_report=n)


def grr_is_better(k, epsilon):
    """Whether GRR's debiased indicators vary less than binary RR's for |V_i| = k (eq 16 vs 5).

    Per potential cell not holding the user, GRR's estimate has variance
    ``(e^eps + k - 2) / (e^eps - 1)^2`` (growing with k) and binary RR's
    ``e^{eps/2} / (e^{eps/2} - 1)^2`` (not depending on k); GRR wins for small V_i. Multiplied
    out with ``v = e^{-eps/2}`` the comparison reads ``(k - 2) v^3 <= 1 + v + v^2``, finite at
    every epsilon (no e^eps to overflow). Depends only on public quantities (k, epsilon), so
    choosing the mechanism by it costs no privacy.
    """
    v = np.exp(-check_epsilon(epsilon) / 2.0)
    return (np.asarray(k) - 2.0) * v**3 <= 1.0 + v + v * v


def _label_weights(y, moments):
    """Per-user values whose report-weighted sums are kept, one row each: [1, y] or [1, y,
    y^2], shape (q, n) for y of shape (n, m)."""
    rows = [np.ones((1, len(y))), y.T, (y * y).T] if moments else [np.ones((1, len(y))), y.T]
    return np.concatenate(rows)


def _fields(first, second, partner, m):
    """Split (cells, 1 + 2m) sums of V~, V~^2 and the partner excess into the fields of
    :class:`CellSums`."""
    out = [first[:, 0], first[:, 1:1 + m]]
    if second is not None:
        out.append(first[:, 1 + m:])
        for sums in (second, partner):
            out += [sums[:, 0], sums[:, 1:1 + m], sums[:, 1 + m:]]
    return out


def _grr_sums(groups, weights, epsilon, keep, r, rows, n_cells, moments):
    """Per-cell sums of ``weights`` ((q, n): :func:`_label_weights`) weighted by the debiased
    GRR reports (eq 17) of users ``rows``, given their draws ``keep`` and ``r``
    (:func:`_grr_draws`): ``(sum w V~, sum w V~^2, sum w (V~^2 - V~) / (|V_i| - 1))``, each
    (n_cells, q), the last two None without ``moments``.

    On V_i the debiased indicator is ``c_i (1{report = j} - q_i)``, so its square is
    ``1{report = j} c_i (c_i - 2 offset) + offset^2`` with ``offset = c_i q_i`` (one number):
    each is a bincount over the reported cells plus a multiple of the "cover" sums over V_i
    (for the partner sums, with each group's users scaled by 1 / (|V_g| - 1)).
    """
    if len(rows) == weights.shape[1]:  # every user of the block (rows is 0..n-1): no copies
        sub, w = groups, weights
    else:
        sub = groups._replace(group=groups.group[rows], true_cell=groups.true_cell[rows],
                              true_rank=groups.true_rank[rows])
        w = weights[:, rows]
    cell = _grr_cells(sub, keep, r)
    k = sub.user_size
    _, _, c, offset = _grr_constants(epsilon, k)
    subset = None if sub is groups else rows
    if not moments:
        cover = potential_cover(groups, w, n_cells, subset)
        return bincount_rows(cell, w * c, n_cells) - offset * cover, None, None
    apart = _per_partner(groups.size)
    per_group = group_sums(groups, w, subset)
    cover = spread_to_cells(groups, per_group, n_cells)
    cover_apart = spread_to_cells(groups, per_group * apart[:, None], n_cells)
    scale = c * (c - 2.0 * offset)
    excess = (scale - c) * apart[sub.group]  # V~^2 - V~ = 1{report = j} (scale - c) + ...
    return (bincount_rows(cell, w * c, n_cells) - offset * cover,
            bincount_rows(cell, w * scale, n_cells) + offset**2 * cover,
            bincount_rows(cell, w * excess, n_cells) + (offset**2 + offset) * cover_apart)


def _rr_sums(groups, weights, epsilon, rng, rows, n_cells, moments, max_entries):
    """As :func:`_grr_sums` for binary-RR reports (eq 8).

    With b_ij the bit of user i on cell j, ``V~ = C (b - q)`` and ``V~^2 = C^2 ((1 - 2q) b +
    q^2)`` on V_i (b^2 = b): every sum is a bit sum ``sum_i w_i b_ij`` plus a cover sum. The
    bit sums come from :func:`~ldpviz._cell_groups.rr_bit_sums`: the same distribution as the
    bits of :func:`cell_reports`, not the same draws. Single-cell users report their cell
    exactly (V~ = 1), as there.
    """
    q, C = _rr_constants(epsilon)
    single = groups.size[groups.group[rows]] == 1
    exact = bincount_rows(groups.true_cell[rows[single]], weights[:, rows[single]], n_cells)
    noisy = rows[~single]
    if q == 0.0:  # infinite budget: every bit is the truth
        bits = bincount_rows(groups.true_cell[noisy], weights[:, noisy], n_cells)
    else:
        bits = rr_bit_sums(groups, weights, q, rng, n_cells, max_entries, noisy)
    cover = potential_cover(groups, weights[:, noisy], n_cells, noisy)
    first = C * (bits - q * cover) + exact
    if not moments:
        return first, None
    return first, C * C * ((1.0 - 2.0 * q) * bits + q * q * cover) + exact


class CellSums(NamedTuple):
    """What the server keeps from round 2: per-cell sums of the debiased reports V~_i^j.

    Every field has one row per cell; the label fields have the shape of ``numerator``
    (``(n_cells,)``, or ``(n_cells, m)`` for m label columns y). Each is a sum over users of a
    function of that user's released messages (its cell report and its released label), so
    anything computed from these sums is post-processing.

    numerator : ``sum_i y_i V~_i^j`` (eq 9).
    denominator : ``sum_i V~_i^j``, the debiased count (eq 9).
    numerator2 : ``sum_i y_i^2 V~_i^j``.
    square : ``sum_i (V~_i^j)^2``.
    square_numerator : ``sum_i y_i (V~_i^j)^2``.
    square_numerator2 : ``sum_i y_i^2 (V~_i^j)^2``.
    partner, partner_numerator, partner_numerator2 : ``sum_i y_i^k ((V~_i^j)^2 - V~_i^j) /
        (|V_i| - 1)`` for k = 0, 1, 2, over the users who report by GRR with |V_i| >= 2 (0
        for binary RR).

    For any number g, ``square_numerator2 - 2 g square_numerator + g^2 square`` is
    ``sum_i (y_i - g)^2 (V~_i^j)^2``, the plug-in variance of ``numerator - g denominator``;
    :mod:`ldpviz.cell_estimates` uses these sums to weigh each cell of eq (9) by its noise.
    The partner sums measure how far that noise is shared: a GRR user's debiased indicators
    over V_i add up to exactly 1, so the report noise of cell j reappears, with the opposite
    sign, in the user's other |V_i| - 1 potential cells (on average ``-Var V~_i^j / (|V_i| -
    1)`` with each); binary RR's bits are independent across cells.
    """

    numerator: np.ndarray
    denominator: np.ndarray
    numerator2: np.ndarray
    square: np.ndarray
    square_numerator: np.ndarray
    square_numerator2: np.ndarray
    partner: np.ndarray
    partner_numerator: np.ndarray
    partner_numerator2: np.ndarray


def _per_partner(k):
    """``1 / (k - 1)`` for |V_i| = k >= 2, else 0 (a single-cell user's V~ is exact)."""
    k = np.asarray(k)
    return np.where(k >= 2, 1.0 / np.maximum(k - 1, 1), 0.0)


def partner_weights(reports):
    """Per-user ``1 / (|V_i| - 1)`` for GRR reports with |V_i| >= 2, else 0 (the weights of
    :class:`CellSums`' partner sums), from a :class:`CellReports`."""
    grr = np.ndim(reports.reported) == 1  # GRR reports a cell id, binary RR a row of bits
    return _per_partner(reports.potential.sum(axis=1)) * grr


def report_sums(debiased, y_tilde, partner_weight=None):
    """The :class:`CellSums` of per-user messages (small n: teaching, tests).

    ``debiased`` is the (n, n_cells) matrix of V~_i^j (:attr:`CellReports.debiased`),
    ``y_tilde`` the released labels, (n,) or (n, m), ``partner_weight`` the per-user weights
    of the partner sums (:func:`partner_weights`; default 0: no user reports by GRR). What
    :func:`cell_report_sums` computes without the messages (for GRR from the same draws, for
    binary RR with the same distribution), here from the messages a server would store.
    """
    V = np.asarray(debiased, dtype=float)
    y = np.asarray(y_tilde, dtype=float)
    square = V * V
    w = np.zeros(len(V)) if partner_weight is None else np.asarray(partner_weight, float)
    excess = (square - V) * w[:, None]
    return CellSums(V.T @ y, V.sum(axis=0), V.T @ (y * y), square.sum(axis=0), square.T @ y,
                    square.T @ (y * y), excess.sum(axis=0), excess.T @ y, excess.T @ (y * y))


def cell_report_sums(partition, X, W, y_tilde, epsilon, mechanism, rng, chunk_size=None,
                     moments=False):
    """Aggregate the cell reports of all users: the numerator and denominator of eq (9).

    Returns ``(numerator, denominator)``: ``numerator[j] = sum_i y_tilde_i V~_i^j`` (shape
    ``(n_cells,)``, or ``(n_cells, m)`` when y_tilde has m columns) and
    ``denominator[j] = sum_i V~_i^j``. Their expectations over the randomizer are the sum of
    ``y_tilde`` and the number of users in cell j. ``mechanism="auto"`` lets each user report
    by whichever of GRR and binary RR has the smaller variance for their |V_i|
    (:func:`grr_is_better`); |V_i| depends on published data only, and either mechanism is
    epsilon-LDP.

    Users are grouped by their potential cells V_i (:func:`~ldpviz._cell_groups.cell_groups`),
    so the cost is a few passes over the users (GRR) plus one random bit per potential entry
    (binary RR), never an n x n_cells matrix. What is drawn, compared with the per-user
    messages of :func:`cell_reports` from the same generator state:

    * "grr": exactly the same reports, at any n (two draws per user, one call each);
    * "rr": bits with the same distribution (each Bernoulli with the same probability,
      independent), drawn group by group: the sums have the same distribution as the sums of
      the per-user messages, but are not the same numbers.

    ``chunk_size`` bounds the binary-RR work arrays to about ``chunk_size x n_cells`` entries
    (default: 2^22 entries).

    With ``moments=True`` the result is a :class:`CellSums`, which adds ``sum_i y_tilde_i^2
    V~_i^j``, the sums of ``(V~_i^j)^2``, ``y_tilde_i (V~_i^j)^2`` and ``y_tilde_i^2
    (V~_i^j)^2`` (what a variance estimate of eq (9) needs) and GRR's partner sums (how much
    of that variance a cell shares with the other cells of its users). The random draws, and
    so the numerator and denominator, are the same either way.
    """
    epsilon = check_epsilon(epsilon)
    check_choice(mechanism, "mechanism", MECHANISMS)
    n_cells = partition.n_cells
    y2 = np.asarray(y_tilde, dtype=float)
    y2 = y2[:, None] if y2.ndim == 1 else y2  # (n, m), also for n = 0
    m = y2.shape[1]
    max_entries = _CHUNK_ENTRIES if chunk_size is None else max(1, chunk_size * n_cells)
    # Binary RR sums its bits by a matrix product, whose rounding depends on the number of
    # columns: it always carries y^2, so the numerator is the same with or without moments.
    both = moments or mechanism != "grr"
    first = np.zeros((n_cells, 1 + (2 if both else 1) * m))
    second = np.zeros_like(first) if moments else None
    partner = np.zeros_like(first) if moments else None
    n = len(X)
    blocks = [slice(lo, lo + _USER_BLOCK) for lo in range(0, n, _USER_BLOCK)]
    groups = [cell_groups(partition, X[b], W[b]) for b in blocks]
    index = np.int32 if n_cells < 2**31 else np.int64  # |V_i| <= n_cells
    size = np.concatenate([g.user_size.astype(index) for g in groups] or [np.zeros(0, index)])
    use_grr = (grr_is_better(size, epsilon) if mechanism == "auto"
               else np.full(n, mechanism == "grr"))
    # GRR's draws for all its users at once (as cell_reports), then the users block by block.
    keep, r = _grr_draws(size if use_grr.all() else size[use_grr], epsilon, rng)
    del size
    done = 0
    for b, g in zip(blocks, groups, strict=True):
        rows = np.flatnonzero(use_grr[b])
        if len(rows):
            parts = _grr_sums(g, _label_weights(y2[b], both), epsilon,
                              keep[done:done + len(rows)], r[done:done + len(rows)], rows,
                              n_cells, moments)
            done += len(rows)
            first += parts[0]
            if moments:
                second += parts[1]
                partner += parts[2]
    for b, g in zip(blocks, groups, strict=True):
        rows = np.flatnonzero(~use_grr[b])
        if len(rows):
            parts = _rr_sums(g, _label_weights(y2[b], both), epsilon, rng, rows, n_cells,
                             moments, max_entries)
            first += parts[0]
            if moments:
                second += parts[1]
    totals = _fields(first, second, partner, m)
    if np.ndim(y_tilde) == 1:
        totals = [a[:, 0] if a.ndim == 2 else a for a in totals]
    denominator, numerator = totals[:2]
    if not moments:
        return numerator, denominator
    return CellSums(numerator, denominator, *totals[2:])
