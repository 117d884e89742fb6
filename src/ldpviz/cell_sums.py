"""The server's side of round 2: per-cell sums of the debiased cell reports (eqs 8, 9, 17).

:func:`cell_report_sums` aggregates every user's cell report without materialising the
messages (users grouped by their potential cells, :mod:`ldpviz._cell_groups`); for teaching and
tests, :func:`report_sums` computes the same :class:`CellSums` from the per-user messages of
:func:`ldpviz.mechanisms.cell_reports`. The randomizers themselves live in
:mod:`ldpviz.mechanisms`.
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
from ._config import _CHUNK_ENTRIES, _USER_BLOCK
from ._validation import check_choice, check_epsilon
from .mechanisms import (
    MECHANISMS,
    _grr_cells,
    _grr_constants,
    _grr_draws,
    _rr_constants,
    grr_is_better,
)


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
    bits of :func:`~ldpviz.mechanisms.cell_reports`, not the same draws. Single-cell users
    report their cell exactly (V~ = 1), as there.
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
    (:func:`~ldpviz.mechanisms.grr_is_better`); |V_i| depends on published data only, and
    either mechanism is epsilon-LDP.

    Users are grouped by their potential cells V_i (:func:`~ldpviz._cell_groups.cell_groups`),
    so the cost is a few passes over the users (GRR) plus one random bit per potential entry
    (binary RR), never an n x n_cells matrix. What is drawn, compared with the per-user
    messages of :func:`~ldpviz.mechanisms.cell_reports` from the same generator state:

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
