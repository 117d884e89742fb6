"""Users grouped by their potential cells V_i, and the cell reports aggregated over the groups.

Two users with the same hidden axes, the same published histogram bins and the same tree group
(:meth:`PublicTree.potential_groups`) have the same potential cells V_i = H_i x T_i. Working on
groups, the per-cell sums of :func:`ldpviz.cell_sums.cell_report_sums` cost a few passes over
the users plus, for binary RR, one random bit per *potential* entry (user, cell in V_i), never
an (n, n_cells) matrix.
"""

from __future__ import annotations

import math
from functools import cache
from typing import NamedTuple

import numpy as np
from threadpoolctl import ThreadpoolController

from ._index import as_index, bincount, repeat
from .partition import _mixed_radix

# Users of a group reported as dense (users x cells) blocks when the group has at least this
# many users (one matrix product per block); smaller groups share a flat list of entries
# (measured: the flat list is faster up to about a thousand users per group).
_DENSE_GROUP = 1024


class CellGroups(NamedTuple):
    """Users grouped by V_i; every group's cells listed in cell-id order (the order GRR ranks).

    group : (n,) each user's group.
    size : (G,) |V_g|.
    offset : (G + 1,) start of each group's cells in ``cells``.
    cells : (sum_g |V_g|,) the cells of every group, group after group.
    true_cell : (n,) each user's own cell.
    true_rank : (n,) position of that cell in the user's group list.
    """

    group: np.ndarray
    size: np.ndarray
    offset: np.ndarray
    cells: np.ndarray
    true_cell: np.ndarray
    true_rank: np.ndarray

    @property
    def user_size(self):
        """|V_i| of every user."""
        return self.size[self.group]


def _number(key, n_keys):
    """Dense numbers 0..G-1 for the keys that occur (in key order) and one user per number."""
    if n_keys <= max(4 * len(key), 1 << 16):
        present = np.flatnonzero(bincount(key, minlength=1))
        number = np.zeros(max(n_keys, 1), dtype=np.int64)
        number[present] = np.arange(len(present))
        group = number[key]
    else:
        _, group = np.unique(key, return_inverse=True)
        group = group.ravel()
    rep = np.zeros(int(group.max()) + 1 if len(group) else 0, dtype=np.int64)
    rep[group] = np.arange(len(group))
    return group, rep


def cell_groups(partition, X, W):
    """The :class:`CellGroups` of users X with masks W under ``partition`` (Section 3.3)."""
    hist, tree, n_leaves = partition.histogram, partition.tree, partition.n_leaves
    n, s, t = len(X), len(hist.axes), hist.t
    tree_group, table, leaf = tree.groups_and_leaves(X, W)
    leaf_rank = np.cumsum(table, axis=1)[tree_group, leaf] - 1
    leaf_order = np.argsort(~table, axis=1, kind="stable")
    kT = table.sum(axis=1)
    bins, hidden = hist.bins(X), hist._hidden(W)
    # A user's histogram potential set is named by its bins with every hidden axis set to t.
    if s and (t + 1.0) ** s * len(table) < 2.0**62:
        hkey = np.zeros(n, dtype=np.int64)
        for j in range(s):
            hkey = hkey * (t + 1) + np.where(hidden[:, j], t, bins[:, j])
        group, rep = _number(hkey * len(table) + tree_group, (t + 1) ** s * len(table))
    else:  # too many combinations for one integer key: group the rows
        rows = np.column_stack([np.where(hidden, t, bins), tree_group])
        _, group = np.unique(rows, axis=0, return_inverse=True)
        group = group.ravel()
        rep = np.zeros(int(group.max()) + 1 if n else 0, dtype=np.int64)
        rep[group] = np.arange(n)
    kT_g = kT[tree_group[rep]]
    size = t ** hidden[rep].sum(axis=1) * kT_g  # |H_g| |T_g|
    offset = np.concatenate([[0], np.cumsum(size, dtype=np.int64)])  # > 2^31 possible
    # Every group's cells in rank order: histogram rank major, leaf rank minor (as GRR decodes).
    owner = repeat(np.arange(len(rep)), size)
    h_rank, l_rank = np.divmod(np.arange(offset[-1]) - offset[owner], kT_g[owner])
    who = rep[owner]
    cells = (hist.nth_of_bins(bins[who], hidden[who], h_rank) * n_leaves
             + leaf_order[tree_group[who], l_rank])
    true_rank = hist.rank_of_bins(bins, hidden) * kT[tree_group] + leaf_rank
    true_cell = _mixed_radix(bins, t) * n_leaves + leaf
    index = np.int32 if max(len(rep), partition.n_cells) < 2**31 else np.int64  # compact
    return CellGroups(group.astype(index), size, offset, cells, true_cell.astype(index),
                      true_rank.astype(index))


def bincount_rows(index, weights, length, users=None):
    """(length, q) sums of each row of ``weights`` (q, n) by ``index`` (n,); with ``users``,
    of the columns ``weights[:, users]``, gathered one row at a time (a (q, len(users)) copy
    would cost memory in proportion to q, the label columns: classes for the classifier).

    Per-user weights are kept as rows (one contiguous array per label column): gathering a
    subset of users then copies q contiguous runs, not n scattered rows.
    """
    index = as_index(index)  # once, not once per row
    out = np.empty((length, len(weights)))
    for j, row in enumerate(weights):
        out[:, j] = bincount(index, weights=row if users is None else row[users],
                             minlength=length)
    return out


def group_sums(groups, weights, rows=None):
    """(G, q) sums of ``weights`` (q, len(rows)) over each group's users ``rows``."""
    group = groups.group if rows is None else groups.group[rows]
    return bincount_rows(group, weights, len(groups.size))


def spread_to_cells(groups, per_group, n_cells):
    """``sum_g 1{j in V_g} per_group[g]`` for every cell j, shape (n_cells, q)."""
    owner = repeat(np.arange(len(groups.size)), groups.size)
    return bincount_rows(groups.cells, per_group.T, n_cells, users=owner)


def potential_cover(groups, weights, n_cells, rows=None):
    """``sum_i 1{j in V_i} weights[:, i]`` for every cell j, shape (n_cells, q), over users
    ``rows`` (``weights`` holds those users' columns, (q, len(rows)))."""
    return spread_to_cells(groups, group_sums(groups, weights, rows), n_cells)


# The weighted bit sums of a dense block are computed in float32 on 12-bit integer pieces of
# the weights: with at most 2^11 users per block every partial sum is an integer below 2^23,
# so float32 adds them exactly; five pieces carry the weights' 53 bits.
_EXACT_USERS = 1 << 11
_PIECE_BITS = 12
_PIECES = 5


def _exact_product(bits, weights):
    """``bits @ weights.T`` for 0/1 bits (k, N), N <= 2^11, and float64 weights (q, N), by a
    float32 matrix product on integer pieces of the weights (exact; faster than float64).

    Each row is written ``sum_p a_p 2^(E - 12 (p + 1))`` with integers |a_p| <= 2^12 (E the
    row's binary exponent); the bit sums of each piece are exact integers in float32.
    """
    _, exponent = np.frexp(np.abs(weights).max(axis=1, initial=0.0))
    rest = weights.copy()
    pieces = np.empty((_PIECES, *weights.shape), dtype=np.float32)
    scales = np.ldexp(1.0, exponent - _PIECE_BITS * np.arange(1, _PIECES + 1)[:, None])
    for p, scale in enumerate(scales[:, :, None]):
        piece = np.rint(rest / scale)
        rest -= piece * scale
        pieces[p] = piece  # |piece| <= 2^12: exact in float32
    sums = bits.astype(np.float32) @ pieces.reshape(-1, weights.shape[1]).T  # (k, pieces x q)
    q = len(weights)
    return (sums.reshape(len(bits), _PIECES, q).astype(float) * scales).sum(axis=1)


@cache
def _blas():
    """The process's BLAS thread pools (inspected once, on first use)."""
    return ThreadpoolController()


def _bernoulli_float32_law(q, shape, rng):
    """Bits with the law of ``rng.random(shape, dtype=np.float32) < q``, from fewer random bytes.

    A float32 uniform is ``U / 2^24`` for a uniform 24-bit integer U, so the bit is
    ``U < Q = ceil(q 2^24)``. U's top byte decides it unless it equals Q's top byte (1 case in
    256); only then are U's low 16 bits drawn. Same law, one random byte per bit instead of four.
    """
    Q = int(np.ceil(q * 2.0**24))
    top, low = Q >> 16, Q & 0xFFFF
    size = math.prod(shape)  # a Python int: np.prod is int32 on wasm32
    high = np.frombuffer(rng.bytes(size), dtype=np.uint8)
    bits = high < top
    tie = np.flatnonzero(high == top)
    if len(tie):
        bits[tie] = rng.integers(0, 1 << 16, size=len(tie)) < low
    return bits.reshape(shape)


def rr_bit_sums(groups, weights, q, rng, n_cells, max_entries, rows):
    """``sum_i weights[:, i] b_ij`` for every cell j over the users ``rows`` (``weights``: (q,
    n), every user of ``groups``): one binary-RR bit
    b_ij per potential cell of each user, Bernoulli(1 - q) on their own cell, Bernoulli(q) on the
    others (eq 8).

    The bits are drawn group by group (a dense users x |V_g| block for large groups, one flat
    list of entries for the others) and only their weighted sums are kept, so the cost is one
    draw per potential entry and memory stays below ``max_entries`` entries at a time.
    Each bit has the law of ``uniform_float32 < q`` (:func:`_bernoulli_float32_law` in the dense
    blocks) and is flipped on the user's own cell, as in :func:`ldpviz.mechanisms.cell_reports`:
    every bit has the same law as there and the bits are independent, so the sums have the same
    distribution (the draws themselves differ).
    """
    out = np.zeros((n_cells, len(weights)))
    if len(rows) == 0:
        return out
    group = groups.group[rows]
    # a stable sort is one order whatever the algorithm: 16-bit keys get numpy's radix sort
    order = np.argsort(group.astype(np.uint16) if len(groups.size) <= 1 << 16 else group,
                       kind="stable")
    rows, group = rows[order], group[order]
    counts = bincount(group, minlength=len(groups.size))
    starts = np.concatenate([[0], np.cumsum(counts)])
    big = np.flatnonzero(counts >= _DENSE_GROUP)
    # One BLAS thread: a block's product is too small to share, and a second thread waiting
    # for a busy core (a browser redrawing, another job) costs more than the product itself.
    # The sums are exact integers, so the bytes do not depend on the threads.
    with _blas().limit(limits=1, user_api="blas"):
        for g in big:
            cells = groups.cells[groups.offset[g]:groups.offset[g + 1]]
            block = max(1, min(max_entries // len(cells), _EXACT_USERS))
            for lo in range(starts[g], starts[g + 1], block):
                users = rows[lo:min(lo + block, starts[g + 1])]
                bits = _bernoulli_float32_law(q, (len(cells), len(users)), rng)
                bits[groups.true_rank[users], np.arange(len(users))] ^= True
                out[cells] += _exact_product(bits, weights[:, users])
    small = rows[counts[group] < _DENSE_GROUP]
    size = groups.size[groups.group[small]]
    ends = np.cumsum(size, dtype=np.int64)  # n |V_i| passes 2^31 at millions of users
    lo = 0
    while lo < len(small):  # flat entries of the small groups, max_entries at a time
        hi = max(lo + 1, int(np.searchsorted(ends, ends[lo] - size[lo] + max_entries, "right")))
        users, k = small[lo:hi], size[lo:hi]
        first = np.cumsum(k) - k
        bits = rng.random(int(k.sum()), dtype=np.float32) < q
        bits[first + groups.true_rank[users]] ^= True
        set_bits = np.flatnonzero(bits)
        owner = repeat(np.arange(len(users)), k)[set_bits]
        user = users[owner]
        cell = groups.cells[groups.offset[groups.group[user]] + set_bits - first[owner]]
        out += bincount_rows(cell, weights, n_cells, users=user)
        lo = hi
    return out
