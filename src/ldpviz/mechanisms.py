"""Local randomizers of semi-feature LDP and their unbiased debiasing.

Every function is a pure function of (values, epsilon, rng): all randomness comes from the numpy
Generator passed in. The budget convention follows Appendix C.1 of the HistOfTree paper: the label
gets ``rho * epsilon`` and the cell report ``(1 - rho) * epsilon`` (:func:`split_budget`), so the
two releases of one user compose to ``epsilon`` (Proposition 3.2 / A.1). What the server does
with the cell reports (their per-cell sums) is in :mod:`ldpviz.cell_sums`.

Floating-point caveat: textbook floating-point Laplace sampling, used here as everywhere in numpy,
is not exactly differentially private (Mironov, 2012). ldpviz is a teaching and research package;
do not deploy these samplers to protect real people.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._cell_groups import cell_groups
from ._config import (
    _largest_fitting,
    check_budget,
    get_config,
    report_entries_allowed,
)
from ._index import as_index, index_dtype
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
    bits = np.asarray(bits)
    _check_per_user_output("binary_rr", bits.shape, 18, "unary_reports or estimate_frequencies"
                           "(values, k, epsilon, 'sue')")
    bits = bits.astype(bool)
    return bits ^ (rng.random(bits.shape) < q)


def _check_per_user_output(owner, shape, bytes_per_entry, oracle_call):
    """Refuse, before allocating, a per-user (n, k) result beyond the ``max_bytes`` budget,
    naming its size and the frequency API that returns the k frequencies in O(n + k)."""
    n, k = (shape[0], math.prod(shape[1:])) if len(shape) else (1, 1)
    size = bytes_per_entry * n * k
    limit = get_config()["max_bytes"]
    if size > limit:
        raise ValueError(
            f"{owner} would return every user's entries, an (n, k) = ({n:,}, {k:,}) array "
            f"needing {size:,} bytes, more than the budget max_bytes = {limit:,}; for the k "
            f"frequencies use ldpviz.frequency_oracles.{oracle_call}, in O(n + k) memory, or "
            f"keep n <= {max(limit // (bytes_per_entry * k), 1):,}, or raise the budget with "
            "ldpviz.set_config(max_bytes=...).")


def debias_binary_rr(reported, epsilon):
    """Unbiased estimate ``C (b - q)`` of each indicator from its RR bit (eq 5, used in eq 9).

    Post-processing of the released reports: it uses no raw data and costs no privacy. Returns
    an array of the reports' shape, refused beyond the ``max_bytes`` budget; the k frequencies
    alone: :func:`ldpviz.frequency_oracles.estimate_unary`.
    """
    q, C = _rr_constants(check_epsilon(epsilon))
    reported = np.asarray(reported)
    _check_per_user_output("debias_binary_rr", reported.shape, 16, "estimate_unary(reports, "
                           "epsilon, optimized=False)")
    return C * (reported.astype(float) - q)


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
    # numpy's index type where the values fit (np.bincount takes it on wasm32 too)
    out = np.empty(len(values), dtype=index_dtype(k.max() if len(k) else 0))
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
    reports: it uses no raw data and costs no privacy. The (n, k) result is refused beyond the
    ``max_bytes`` budget; the k frequencies alone, in O(n + k) memory:
    :func:`ldpviz.frequency_oracles.estimate_grr`.
    """
    epsilon = _budgets(epsilon)
    reported = np.asarray(reported)
    if reported.dtype.kind not in "iu":
        reported = reported.astype(np.int64)
    epsilon = np.broadcast_to(np.reshape(epsilon, (-1, 1)), (len(reported), 1))
    _check_per_user_output("debias_grr", (len(reported), k), 8, "estimate_grr(reports, k, "
                           "epsilon)")
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
    ``max_bytes`` and ``max_report_entries``). :func:`ldpviz.cell_sums.cell_report_sums`
    keeps only the sums: for "grr" it draws exactly these reports (same generator state, any
    n); for "rr" it draws bits with the same distribution, not the same bits.

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
        reported = as_index(_grr_cells(groups, *_grr_draws(k, epsilon, rng)))
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
