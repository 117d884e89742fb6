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

from ._validation import check_choice, check_epsilon, check_rho

MECHANISMS = ("grr", "rr", "auto")
# Cap on the entries of the per-chunk (users x cells) work arrays: bounded memory at any n.
_CHUNK_ENTRIES = 1 << 22


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
    C = (e^{eps/2} + 1) / (e^{eps/2} - 1). Written with u = e^{-eps/2} to stay finite at large eps.
    """
    u = np.exp(-epsilon / 2.0)
    return u / (1.0 + u), (1.0 + u) / (1.0 - u)


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
    k = np.asarray(k, dtype=float)
    denom = 1.0 + (k - 1.0) * u
    return 1.0 / denom, u / denom, denom / (1.0 - u), u / (1.0 - u)


def grr_probabilities(k, epsilon):
    """(p_true, p_other) of :func:`grr` over k values (eq 16).

    Public constants of the mechanism: no data involved.
    """
    p_true, p_other, _, _ = _grr_constants(check_epsilon(epsilon), k)
    return p_true, p_other


def grr(values, k, epsilon, rng):
    """Generalized randomized response: report the true value in {0..k-1} or another one (eq 16).

    The true value is kept with probability ``e^eps / (e^eps + k - 1)``; otherwise one of the
    other ``k - 1`` values is reported uniformly. ``k`` may differ per user (eq 17, k = |V_i|).

    Privacy: any output has probability between ``1 / (e^eps + k - 1)`` and
    ``e^eps / (e^eps + k - 1)`` whatever the input, so the ratio is at most ``e^eps``
    (Proposition A.1).
    """
    epsilon = _budgets(epsilon)
    values = np.asarray(values, dtype=np.int64)
    k = np.broadcast_to(np.asarray(k, dtype=np.int64), values.shape)
    if np.any((values < 0) | (values >= k)):
        raise ValueError("values must lie in 0..k-1.")
    p_true, _, _, _ = _grr_constants(epsilon, k)
    keep = rng.random(values.shape) < p_true
    other = rng.integers(0, np.maximum(k - 1, 1))
    other = other + (other >= values)
    return np.where(keep | (k == 1), values, other)


def debias_grr(reported, k, epsilon):
    """Unbiased estimates of the k indicators ``1{x = j}`` from GRR reports, shape (n, k).

    ``(1{report = j} - p_other) / (p_true - p_other)`` (eqs 16-17, used in eq 9); ``epsilon``
    may be one budget or an array of per-user budgets. Post-processing of the released
    reports: it uses no raw data and costs no privacy.
    """
    epsilon = _budgets(epsilon)
    reported = np.asarray(reported, dtype=np.int64)
    _, p_other, c, _ = _grr_constants(np.reshape(epsilon, (-1, 1)), k)
    onehot = reported[:, None] == np.arange(k)[None, :]
    return c * (onehot - p_other)


# ----------------------------------------------------------------------------------------------
# The personalized cell report over potential cells V_i (eq 8 / eq 17)
# ----------------------------------------------------------------------------------------------
def _rank_of(mask, index):
    """Position of column ``index[i]`` among the True columns of row i (mask[i, index[i]] True)."""
    return np.cumsum(mask, axis=1)[np.arange(len(index)), index] - 1


def _nth_true(mask, nth):
    """Column of the ``nth[i]``-th True entry of each row (0-based)."""
    return np.argmax(np.cumsum(mask, axis=1) > nth[:, None], axis=1)


def _sample_grr_cells(partition, X, W, T, true_h, true_l, epsilon, rng):
    """Draw one GRR report per user over V_i = H_i x T_i (eq 17) without listing V_i.

    Returns the reported (histogram cell, leaf) pair and |V_i|. "Another cell, uniformly" is
    drawn as a rank among the |V_i| - 1 other potential cells, then decoded in cell-id order:
    the histogram part by mixed radix over the hidden axes, the leaf part from T.
    """
    hist = partition.histogram
    kH = hist.potential_size(W)
    kT = T.sum(axis=1)
    k = kH * kT
    p_true, _, _, _ = _grr_constants(epsilon, k)
    keep = (rng.random(len(k)) < p_true) | (k == 1)
    r = rng.integers(0, np.maximum(k - 1, 1))
    rank_true = hist.potential_rank(X, W) * kT + _rank_of(T, true_l)
    r = np.minimum(r + (r >= rank_true), k - 1)
    h_rank, l_rank = np.divmod(r, kT)
    rep_h = np.where(keep, true_h, hist.potential_nth(X, W, h_rank))
    rep_l = np.where(keep, true_l, _nth_true(T, l_rank))
    return rep_h, rep_l, k


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

    Materialises (n, n_cells) arrays, so it is meant for small n (teaching, tests);
    :func:`cell_report_sums` draws the same reports chunk by chunk and keeps only sums.

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
    if len(X) * n_cells > 50_000_000:
        raise ValueError("cell_reports materialises n x n_cells arrays; use cell_report_sums.")
    H, T = partition.potential(X, W)
    true_h, true_l = partition.cell_parts(X)
    potential = _potential_cells(H, T)
    true_cell = true_h * partition.n_leaves + true_l
    if mechanism == "grr":
        rep_h, rep_l, k = _sample_grr_cells(partition, X, W, T, true_h, true_l, epsilon, rng)
        reported = rep_h * partition.n_leaves + rep_l
        _, p_other, c, _ = _grr_constants(epsilon, k)
        onehot = reported[:, None] == np.arange(n_cells)[None, :]
        debiased = np.where(potential, c[:, None] * (onehot - p_other[:, None]), 0.0)
    else:
        reported = _sample_rr_bits(potential, true_cell, epsilon, rng)
        debiased = _rr_debiased(reported, potential, epsilon)
    return CellReports(reported, potential, debiased)


def grr_is_better(k, epsilon):
    """Whether GRR's debiased indicators vary less than binary RR's for |V_i| = k (eq 16 vs 5).

    Per potential cell not holding the user, GRR's estimate has variance
    ``(e^eps + k - 2) / (e^eps - 1)^2`` (growing with k) and binary RR's
    ``e^{eps/2} / (e^{eps/2} - 1)^2`` (not depending on k); GRR wins for small V_i. Depends
    only on public quantities (k, epsilon), so choosing the mechanism by it costs no privacy.
    """
    epsilon = check_epsilon(epsilon)
    if np.isinf(epsilon):
        return np.ones(np.shape(k), dtype=bool)
    e, h = np.exp(epsilon), np.exp(epsilon / 2)
    return (e + np.asarray(k) - 2) / (e - 1) ** 2 <= h / (h - 1) ** 2


def _moment_columns(y, moments):
    """Per-user label columns whose report-weighted sums are kept: [y] or [y, y^2] (n, m)."""
    return [y, y * y] if moments else [y]


def _cover(partition, X, W, T, weights):
    """``sum_i 1{j in V_i} weights_i`` for every cell j, shape (n_cells, q).

    Users with one potential leaf (the usual case) are grouped by leaf and published histogram
    bins with bincounts; the others go through :meth:`Histogram.potential_sum` with their
    potential leaves spelled out.
    """
    hist, n_leaves = partition.histogram, partition.n_leaves
    q = weights.shape[1]
    single = T.sum(axis=1) == 1
    out = np.zeros((hist.n_cells, n_leaves, q))
    if single.any():
        leaf = np.argmax(T[single], axis=1)
        s, t = len(hist.axes), hist.t
        bins = hist.bins(X[single])
        hidden = W[single][:, list(hist.axes)].astype(bool)
        pattern = hidden @ (1 << np.arange(s)) if s else np.zeros(len(leaf), dtype=np.int64)
        grid = np.zeros((t,) * s + (n_leaves, q))
        for code in np.unique(pattern):
            rows = np.flatnonzero(pattern == code)
            shown = [j for j in range(s) if not (code >> j) & 1]
            group = (np.ravel_multi_index(tuple(bins[rows][:, shown].T), (t,) * len(shown))
                     if shown else np.zeros(len(rows), dtype=np.int64))
            key = group * n_leaves + leaf[rows]
            size = t ** len(shown) * n_leaves
            block = np.stack([np.bincount(key, weights=weights[single][rows, col],
                                          minlength=size) for col in range(q)], axis=1)
            grid += block.reshape([t if j in shown else 1 for j in range(s)] + [n_leaves, q])
        out += grid.reshape(hist.n_cells, n_leaves, q)
    if (~single).any():
        Tf = T[~single].astype(float)
        spelled = (Tf[:, :, None] * weights[~single][:, None, :]).reshape(len(Tf), -1)
        out += hist.potential_sum(X[~single], W[~single], spelled).reshape(out.shape)
    return out.reshape(-1, q)


def _grr_sums(partition, X, W, y, T, epsilon, rng, moments=False):
    """Per-cell sums of GRR reports (eq 17) for one chunk of users.

    Returns ``[sum V~, sum y V~]`` and, with ``moments``, also ``[sum y^2 V~, sum V~^2,
    sum y V~^2, sum y^2 V~^2]`` (the order of :class:`CellSums` after the first two). On V_i
    the debiased indicator is ``c_i (1{report = j} - q_i)``, so its square is
    ``1{report = j} c_i (c_i - 2 offset) + offset^2`` with ``offset = c_i q_i`` (one number).
    """
    n_cells, n_leaves, m = partition.n_cells, partition.n_leaves, y.shape[1]
    true_h, true_l = partition.cell_parts(X)
    rep_h, rep_l, k = _sample_grr_cells(partition, X, W, T, true_h, true_l, epsilon, rng)
    _, _, c, offset = _grr_constants(epsilon, k)
    cell = rep_h * n_leaves + rep_l
    labels = [y, y * y] if moments else [y]

    def reported(weight):  # [sum weight_i, sum weight_i * label_i, ...] over reporters of j
        cols = [np.bincount(cell, weights=weight, minlength=n_cells)]
        cols += [np.bincount(cell, weights=weight * lab[:, col], minlength=n_cells)
                 for lab in labels for col in range(m)]
        return np.stack(cols, axis=1)

    # Every potential cell of user i carries -offset (offset^2 in the squares): the same
    # "cover" sums over V_i serve both.
    Tf = T.astype(float)
    weights = np.concatenate([Tf, (Tf[:, :, None] * y[:, None, :]).reshape(len(T), -1)], axis=1)
    cover = partition.histogram.potential_sum(X, W, weights)
    cover = np.concatenate([cover[:, :n_leaves].reshape(n_cells, 1),
                            cover[:, n_leaves:].reshape(n_cells, m)], axis=1)
    if moments:
        cover = np.concatenate([cover, _cover(partition, X, W, T, y * y)], axis=1)
    first = reported(c) - offset * cover
    out = [first[:, 0], first[:, 1:1 + m]]
    if moments:
        second = reported(c * (c - 2.0 * offset)) + offset**2 * cover
        out += [first[:, 1 + m:], second[:, 0], second[:, 1:1 + m], second[:, 1 + m:]]
    return out


def _rr_sums(partition, X, W, y, T, epsilon, rng, moments=False):
    """Per-cell sums of binary-RR reports (eq 8) for one chunk; as :func:`_grr_sums`."""
    true_h, true_l = partition.cell_parts(X)
    potential = _potential_cells(partition.histogram.potential(X, W), T)
    bits = _sample_rr_bits(potential, true_h * partition.n_leaves + true_l, epsilon, rng)
    debiased = _rr_debiased(bits, potential, epsilon)
    out = [debiased.sum(axis=0), debiased.T @ y]
    if moments:
        m, y2 = y.shape[1], y * y
        second = (debiased * debiased).T @ np.column_stack([np.ones(len(y)), y, y2])
        out += [debiased.T @ y2, second[:, 0], second[:, 1:1 + m], second[:, 1 + m:]]
    return out


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

    For any number g, ``square_numerator2 - 2 g square_numerator + g^2 square`` is
    ``sum_i (y_i - g)^2 (V~_i^j)^2``, the plug-in variance of ``numerator - g denominator``;
    :mod:`ldpviz.cell_estimates` uses these sums to weigh each cell of eq (9) by its noise.
    """

    numerator: np.ndarray
    denominator: np.ndarray
    numerator2: np.ndarray
    square: np.ndarray
    square_numerator: np.ndarray
    square_numerator2: np.ndarray


def report_sums(debiased, y_tilde):
    """The :class:`CellSums` of per-user messages (small n: teaching, tests).

    ``debiased`` is the (n, n_cells) matrix of V~_i^j (:attr:`CellReports.debiased`),
    ``y_tilde`` the released labels, (n,) or (n, m). What :func:`cell_report_sums` computes
    chunk by chunk, here from the messages a server would store.
    """
    V = np.asarray(debiased, dtype=float)
    y = np.asarray(y_tilde, dtype=float)
    square = V * V
    return CellSums(V.T @ y, V.sum(axis=0), V.T @ (y * y), square.sum(axis=0), square.T @ y,
                    square.T @ (y * y))


def cell_report_sums(partition, X, W, y_tilde, epsilon, mechanism, rng, chunk_size=None,
                     moments=False):
    """Aggregate the cell reports of all users: the numerator and denominator of eq (9).

    Returns ``(numerator, denominator)``: ``numerator[j] = sum_i y_tilde_i V~_i^j`` (shape
    ``(n_cells,)``, or ``(n_cells, m)`` when y_tilde has m columns) and
    ``denominator[j] = sum_i V~_i^j``. Their expectations over the randomizer are the sum of
    ``y_tilde`` and the number of users in cell j. Users are processed in chunks so memory stays
    bounded at any n (never an n x n_cells matrix); the draws are those of
    :func:`cell_reports`. ``mechanism="auto"`` lets each user report by whichever of GRR and
    binary RR has the smaller variance for their |V_i| (:func:`grr_is_better`); |V_i| depends
    on published data only, and either mechanism is epsilon-LDP.

    With ``moments=True`` the result is a :class:`CellSums`, which adds ``sum_i y_tilde_i^2
    V~_i^j`` and the sums of ``(V~_i^j)^2``, ``y_tilde_i (V~_i^j)^2`` and ``y_tilde_i^2
    (V~_i^j)^2`` (what a variance estimate of eq (9) needs). The random draws, and so the
    numerator and denominator, are the same either way.
    """
    epsilon = check_epsilon(epsilon)
    check_choice(mechanism, "mechanism", MECHANISMS)
    n, n_cells = len(X), partition.n_cells
    y2 = np.asarray(y_tilde, dtype=float)
    y2 = y2[:, None] if y2.ndim == 1 else y2  # (n, m), also for n = 0
    m = y2.shape[1]
    if chunk_size is None:
        chunk_size = max(1, _CHUNK_ENTRIES // (max(n_cells, 1) * m))
    label_shape = (n_cells, m)
    totals = [np.zeros(n_cells), np.zeros(label_shape)]
    if moments:
        totals += [np.zeros(label_shape), np.zeros(n_cells), np.zeros(label_shape),
                   np.zeros(label_shape)]
    for start in range(0, n, chunk_size):
        sl = slice(start, start + chunk_size)
        Xc, Wc, yc = X[sl], W[sl], y2[sl]
        T = partition.tree.potential(Xc, Wc)
        if mechanism == "auto":
            use_grr = grr_is_better(partition.histogram.potential_size(Wc) * T.sum(axis=1),
                                    epsilon)
        else:
            use_grr = np.full(len(Xc), mechanism == "grr")
        for rows, sums in ((use_grr, _grr_sums), (~use_grr, _rr_sums)):
            if rows.any():
                parts = sums(partition, Xc[rows], Wc[rows], yc[rows], T[rows], epsilon, rng,
                             moments)
                for total, part in zip(totals, parts, strict=True):
                    total += part
    if np.ndim(y_tilde) == 1:
        totals = [a[:, 0] if a.ndim == 2 else a for a in totals]
    denominator, numerator = totals[:2]
    if not moments:
        return numerator, denominator
    return CellSums(numerator, denominator, *totals[2:])
