"""Growth of the public tree, level by level (behind :func:`ldpviz.partition.grow_tree`).

A level costs a few passes over the users whatever its number of nodes: each user has a state
per tree axis (max-edge: hidden, lower or upper half of the node; CART: hidden or a bin of width
1/256); the count, label sums and sum of squares of every (axis, node, state) come from
``np.bincount`` over a key (node, state), and users move down by one table look-up on (node,
state of the split axis). :class:`TreeMemo` and :func:`reuse_trees` keep growths for reuse.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache

import numpy as np

from ._index import bincount

CART_BINS = 256  # candidate split points of the CART rule: the grid k / 256 of the public box
# Gains closer than this (relative to the mean square label at the node) are ties, which go to
# the lowest feature index whatever the order in which the sums were rounded.
TIE = 1e-9
# Max-edge sides are read off x's binary expansion (52 bits, exact in float) while boxes are at
# least 2^-50 wide; deeper boxes (never reached in practice) compare x with the midpoint.
BIT_RESOLUTION = 50
# Max-edge counts up to this many axes together, in one pass over (node, state of each axis).
JOINT_AXES = 5


# Users per block of the per-user passes: bounded temporaries at any n.
USER_BLOCK = 1 << 20


def _blocks(n):
    """Slices of at most USER_BLOCK users covering 0..n-1."""
    return [slice(lo, lo + USER_BLOCK) for lo in range(0, n, USER_BLOCK)]


def sse_of(stats):
    """Sum of squared deviations from the mean, summed over label columns (0 if empty), from
    stacked statistics ``[count, column sums..., sum of squares]`` (last axis)."""
    count, total, sq = stats[..., 0], stats[..., 1:-1], stats[..., -1]
    safe = np.where(count > 0, count, 1)
    return np.where(count > 0, sq - (total * total).sum(axis=-1) / safe, 0.0)


class Sums:
    """Per key: count, label sums per column and sum of squares, one ``np.bincount`` each."""

    def __init__(self, y2):
        square = y2[:, 0] ** 2 if y2.shape[1] == 1 else (y2 * y2).sum(axis=1)
        self.columns = [*y2.T, square]

    def __call__(self, key_of, size):
        """(size, m + 2) stacked statistics of keys ``0..size-1``; larger keys are dropped.

        ``key_of(block)`` gives the keys of the users in a slice: blocks of users keep the
        temporaries bounded at any n.
        """
        out = np.zeros((size, len(self.columns) + 1))
        for b in _blocks(len(self.columns[0])):
            key = key_of(b)
            out[:, 0] += bincount(key, minlength=size)[:size]
            for j, col in enumerate(self.columns, start=1):
                out[:, j] += bincount(key, weights=col[b], minlength=size)[:size]
        return out


class States:
    """Each user's state along each tree axis at the current level: a small (k, n) int array.

    CART: the bin ``floor(256 x)`` of x, or 256 if the user hides the axis. Max-edge: 0 if
    hidden, else 1 + (x in the upper half of the node). At level L every max-edge node's
    longest edges have length 2^-r, r = L // k (a node always splits one of its longest
    edges), so that half is bit r + 1 of x's binary expansion: the states change only when r
    does, and do not depend on the node. One byte (CART: two) per user and axis.
    """

    def __init__(self, X, axes, public, rule):
        self.X, self.axes, self.public, self.rule = X, axes, public, rule
        if rule == "cart":
            self.width = CART_BINS + 1
            self.state = np.empty(public.shape, dtype=np.uint16)
            for j, axis in enumerate(axes):
                for b in _blocks(len(X)):  # bounded temporaries at any n
                    bins = np.minimum((X[b, axis] * CART_BINS).astype(np.int64), CART_BINS - 1)
                    self.state[j, b] = np.where(public[j, b], bins, CART_BINS)
        else:
            self.width = 3
            self.state = np.zeros(public.shape, dtype=np.uint8)
            self.r, self._codes = None, None

    def at(self, level, pos, mid):
        """The (k, n) states at ``level``; ``mid`` (F + 1, k) is read only for tiny boxes."""
        if self.rule == "max-edge":
            r = level // len(self.axes)
            if r >= BIT_RESOLUTION or r != self.r:
                self.r, self._codes = r, None
                scale = 2.0 ** (r + 1)
                for j, axis in enumerate(self.axes):
                    for b in _blocks(len(self.X)):  # bounded temporaries at any n
                        x = self.X[b, axis]
                        if r < BIT_RESOLUTION:  # exact: x 2^(r+1) has no rounding; 1 is upper
                            upper = np.clip(x * scale, 0, scale - 1).astype(np.int64) & 1
                        else:
                            upper = x >= mid[pos[b], j]
                        self.state[j, b] = self.public[j, b] * (1 + upper)
        return self.state

    def codes(self):
        """Max-edge: (g, code) per group of up to five axes, code = sum_j 3^j state_j."""
        if self._codes is None:
            self._codes = []
            for start in range(0, len(self.state), JOINT_AXES):
                group = self.state[start:start + JOINT_AXES]
                code = np.zeros(group.shape[1], dtype=np.uint8)  # < 3^5
                for j, row in enumerate(group):
                    code += row * np.uint8(3**j)
                self._codes.append((len(group), code))
        return self._codes

    def of_split_axis(self, slot_axis, pos, block):
        """State of the users in ``block`` on the axis their node splits (``slot_axis[pos]``)."""
        at = slot_axis[pos[block]] * len(pos)
        at += np.arange(*block.indices(len(pos)))  # only this block's users, not all n
        return self.state.ravel()[at]


@cache
def digits_matrix(g):
    """(3 g, 3^g) 0/1 matrix: row 3 j + s marks the codes whose base-3 digit j is s."""
    code = np.arange(3**g)
    return np.concatenate([code // 3**j % 3 == np.arange(3)[:, None]
                           for j in range(g)]).astype(float)


def joint_stats(sums, pos, F, states):
    """Statistics of both halves of every (axis, node), max-edge: (k, F, 2, m + 2).

    Groups of up to five axes are counted in one pass over the key (node, state on each axis),
    then split into one table per axis by a matrix product with the states' digits.
    """
    out = []
    for g, code in states.codes():
        table = sums(lambda b, g=g, code=code: pos[b] * 3**g + code[b], F * 3**g)
        table = table.reshape(F, 3**g, -1)
        per_axis = (digits_matrix(g) @ table).reshape(F, g, 3, -1)  # (node, axis, state)
        out.append(per_axis[:, :, 1:].transpose(1, 0, 2, 3))
    return np.concatenate(out)


def cart_stats(sums, pos, F, state):
    """Statistics of every (axis, node, CART bin): (k, F, 256, m + 2)."""
    width = CART_BINS + 1
    return np.stack([sums(lambda b, row=row: pos[b] * width + row[b], F * width)
                     .reshape(F, width, -1)[:, :CART_BINS] for row in state])


# A level counts its statistics per tree axis, not in joint tables of five axes or in 256-bin
# tables, when those tables would be far larger than the users (a wide table of few users: a
# deep tree has nearly as many nodes as users). Same numbers for CART; for max-edge the sums
# per axis are added in another order than the joint tables' matrix product (last bits).
WIDE_WORK = 1 << 22
CALL_ENTRIES = 5000
# Entries of CART's dense (axis, node, bin, statistic) tables beyond which the occupied
# triples are counted instead (8 bytes each, a few copies: about 256 MB).
DENSE_ENTRIES = 1 << 23
# Entries (axis, user) of the per-axis passes held at once: bounded temporaries at any k.
AXIS_ENTRIES = 1 << 22


def joint_is_wasteful(k, n, F, m):
    """Whether max-edge's joint tables (per group of five axes: a call, F nodes x 3^5 codes
    filled and multiplied) would cost far more than passes over all (axis, user) entries at
    once (one block of users: bounded temporaries). Costs in entries; a call of a few numpy
    operations counts as :data:`CALL_ENTRIES`."""
    codes = 3**JOINT_AXES
    joint = -(-k // JOINT_AXES) * (CALL_ENTRIES + (m + 2) * (n + F * codes
                                                             + F * 3 * JOINT_AXES * codes))
    per_axis = 2 * (m + 2) * k * (n + 3 * F)
    return n <= USER_BLOCK and joint > WIDE_WORK and joint > 4 * per_axis


def bins_outnumber_users(F, n, k=1, m=1):
    """Whether CART's dense tables (per axis: a call, F nodes x 257 bins filled, summed and
    scanned) would cost more than the occupied (axis, node, bin) triples (a sort and a few
    dozen passes over the (axis, user) entries), or take much memory (one block of users)."""
    table = F * (CART_BINS + 1)
    dense = k * (CALL_ENTRIES + (m + 2) * (n + 8 * table))
    return n <= USER_BLOCK and (40 * k * n * (m + 2) < dense
                                or k * table * (m + 2) > DENSE_ENTRIES)


def _axis_chunks(k, n):
    """Slices of axes whose (axis, user) entries fit :data:`AXIS_ENTRIES`."""
    step = max(1, AXIS_ENTRIES // max(n, 1))
    return [slice(a, min(a + step, k)) for a in range(0, k, step)]


def halves_per_axis(sums, pos, F, state):
    """Max-edge: statistics of both halves of every (axis, node), (k, F, 2, m + 2), as
    :func:`joint_stats`, from one bincount per statistic over (axis, node, state) keys."""
    k, n = state.shape
    out = np.zeros((k, F, 3, len(sums.columns) + 1))
    for chunk in _axis_chunks(k, n):
        rows = state[chunk].astype(np.int64)
        c = len(rows)
        key = ((np.arange(c)[:, None] * (F + 1) + pos[None, :]) * 3 + rows).ravel()
        size = c * (F + 1) * 3  # node F: users who stopped, dropped below
        table = np.stack([bincount(key, minlength=size).astype(float)]
                         + [bincount(key, weights=np.tile(col, c), minlength=size)
                            for col in sums.columns], axis=-1)
        out[chunk] = table.reshape(c, F + 1, 3, -1)[:, :F]
    return out[:, :, 1:]


def cart_cuts_sparse(sums, pos, F, state, min_child):
    """CART: (parent (k, F, m + 2), child_sse (k, F), cut (k, F)) from the occupied (axis,
    node, bin) triples alone, the numbers of the dense 256-bin tables of :func:`cart_stats`
    bit for bit: each triple's sums add its users in the same order, the running sums over
    bins skip only empty bins (adding 0 changes nothing), and the first best bin of the dense
    scan is an occupied one (an empty bin repeats the sums of the occupied bin below it, and
    CART's children hold at least one user). One block of users (:data:`USER_BLOCK`) only."""
    k, n = state.shape
    width = len(sums.columns) + 1
    parent = np.zeros((k, F, width))
    child = np.full((k, F), np.inf)
    cut = np.zeros((k, F), dtype=np.int64)
    for chunk in _axis_chunks(k, n):
        rows = state[chunk]
        axis, user = np.nonzero((rows < CART_BINS) & (pos < F)[None, :])  # users in order
        if axis.size == 0:
            continue
        order = _by_triple(axis, pos[user] * CART_BINS + rows[axis, user])
        axis, user = axis[order], user[order]  # sorted by (axis, node, bin), users in order
        cell = pos[user] * CART_BINS + rows[axis, user].astype(np.int64)
        new = np.r_[True, (axis[1:] != axis[:-1]) | (cell[1:] != cell[:-1])]
        triple = np.cumsum(new) - 1
        U = int(triple[-1]) + 1
        stats = np.stack([bincount(triple, minlength=U).astype(float)]
                         + [bincount(triple, weights=col[user], minlength=U)
                            for col in sums.columns], axis=-1)
        axis, cell = axis[new], cell[new]
        pair = np.r_[True, (axis[1:] != axis[:-1]) | (cell[1:] // CART_BINS
                                                      != cell[:-1] // CART_BINS)]
        start = np.flatnonzero(pair)
        size = np.diff(np.r_[start, U])
        group = np.repeat(np.arange(len(start)), size)
        below = _running_sums(stats, start, size)
        total = below[start + size - 1]
        above = total[group] - below
        sse = sse_of(below) + sse_of(above)
        sse[(below[:, 0] < min_child) | (above[:, 0] < min_child)] = np.inf
        best = _first_smallest(sse, group, start, np.arange(U) - start[group])
        a, node = axis[start] + chunk.start, cell[start] // CART_BINS
        parent[a, node] = total
        child[a, node] = sse[best]
        cut[a, node] = cell[best] % CART_BINS
    return parent, child, cut


def _by_triple(axis, cell):
    """The stable order of entries by (axis, cell): radix sorts of 16-bit keys where they fit
    (entries come in axis order already, so one sort by cell within each axis would do; the
    second pass keeps the axes in order)."""
    small = cell.max() < 1 << 16 and axis.max() < 1 << 16
    first = np.argsort(cell.astype(np.uint16) if small else cell, kind="stable")
    key = axis[first]
    return first[np.argsort(key.astype(np.uint16) if small else key, kind="stable")]


def _first_smallest(values, group, start, rank):
    """Index of the first smallest value of each run of ``group`` (runs begin at ``start``),
    as ``np.argmin`` finds it (NaN first, then the lowest rank)."""
    if np.isnan(values).any():
        keyed = np.where(np.isnan(values), -np.inf, values)  # argmin returns a NaN first
        return np.lexsort((rank, keyed, group))[start]
    smallest = np.minimum.reduceat(values, start)
    at = np.flatnonzero(values == smallest[group])
    return at[np.r_[True, group[at][1:] != group[at][:-1]]]


def _running_sums(stats, start, size):
    """Running sums of ``stats`` rows within each run (rows ``start`` to ``start + size``),
    added one row at a time as ``np.cumsum`` does: the k-th rows of all runs at once, for
    k = 1, 2, ... (at most 256 steps: a run is one (axis, node)'s occupied bins)."""
    U = len(stats)
    rank = np.arange(U) - np.repeat(start, size)
    order = np.argsort(rank.astype(np.uint16), kind="stable")  # ranks < 2^16: a radix sort
    bounds = np.r_[0, np.cumsum(bincount(rank))]
    columns = [np.array(stats[:, j]) for j in range(stats.shape[1])]
    for r in range(1, len(bounds) - 1):
        at = order[bounds[r]:bounds[r + 1]]
        before = at - 1
        for column in columns:
            column[at] = column[before] + column[at]
    return np.stack(columns, axis=-1)


class TreeMemo:
    """Trees grown on the same users, labels and mask, kept for reuse (see :func:`reuse_trees`).

    A request matches a kept growth if X is the same array object and the labels, the mask on
    the tree axes, the axes, the rule and min_samples_leaf are equal; the growth is then cut at
    the requested depth. New growths go as deep as the deepest request seen so far, so that
    shallower requests for the same labels find them. At most ``size`` growths are kept.
    """

    def __init__(self, size=8):
        self.size = size
        self.depth = 0
        self._kept = []  # (X, labels, hidden, axes, rule, min_samples_leaf, growth), newest first

    def tree(self, grow, X, y_tilde, W, axes, depth, rule, min_samples_leaf):
        """The tree of ``depth``; ``grow(X, labels, W, axes, depth, rule, min_samples_leaf)``
        returns a growth (with ``sizes``, ``complete`` and ``cut(depth)``) when none is kept."""
        axes = np.asarray(axes, dtype=np.int64)
        labels = np.asarray(y_tilde, dtype=float)
        hidden = W[:, axes]
        for place, (x, y, w, a, r, m, growth) in enumerate(self._kept):
            if (x is X and r == rule and m == min_samples_leaf and np.array_equal(a, axes)
                    and y.shape == labels.shape and np.array_equal(y, labels)
                    and np.array_equal(w, hidden)
                    and (growth.complete or len(growth.sizes) - 1 >= depth)):
                self._kept.insert(0, self._kept.pop(place))
                return growth.cut(depth)
        self.depth = max(self.depth, depth)
        growth = grow(X, labels, W, axes, self.depth, rule, min_samples_leaf)
        self._kept.insert(0, (X, labels.copy(), hidden.copy(), axes, rule, min_samples_leaf,
                              growth))
        del self._kept[self.size:]
        return growth.cut(depth)


TREE_MEMO = ContextVar("ldpviz_tree_memo", default=None)


@contextmanager
def reuse_trees(memo=None):
    """Reuse the public trees of :func:`ldpviz.partition.grow_tree` within this block.

    A call with the same users, labels and mask as a kept growth is served from it: a speed-up
    with the same results, since a tree is a function of (X, labels, mask on the tree axes,
    axes, rule, min_samples_leaf) and the depth, and the tree of depth p is the tree of any
    larger depth cut at level p (growth is level by level). It pays when several fits see the
    same label release, e.g. the grid points over depth and t of one replication in
    :mod:`ldpviz.reproduce.experiments` when their arm shares its noise across them. Yields
    the :class:`TreeMemo` in use (pass it again to continue with the same trees).
    """
    memo = TreeMemo() if memo is None else memo
    token = TREE_MEMO.set(memo)
    try:
        yield memo
    finally:
        TREE_MEMO.reset(token)


def grow(X, y_tilde, W, axes, depth, rule, min_samples_leaf, tree_class, record=False):
    """The growth of :func:`ldpviz.partition.grow_tree` (inputs checked), as a
    :class:`Growth` whose ``cut(depth)`` is a ``tree_class``; with ``record``, the users'
    nodes after every level are kept so that it can be cut at any depth."""
    axes = np.asarray(axes, dtype=np.int64)
    n, k = len(X), len(axes)
    y2 = np.asarray(y_tilde, dtype=float)
    y2 = y2[:, None] if y2.ndim == 1 else y2  # (n, m), also for n = 0
    if k == 0:
        depth = 0
    min_child = max(min_samples_leaf, 1 if rule == "cart" else 0)
    sums = Sums(y2)
    public = np.asarray(W.T[axes], dtype=bool)  # (k, n): one row per tree axis
    np.logical_not(public, out=public)
    states = States(X, axes, public, rule)

    # Per node, appended level by level; the frontier is always the last block.
    feature, threshold = [np.array([-1])], [np.array([np.nan])]
    left, right = [np.array([-1])], [np.array([-1])]
    lo, hi = [np.zeros((1, k))], [np.ones((1, k))]
    n_nodes = 1
    pos = np.zeros(n, dtype=np.int64)  # each user's frontier slot; F (none) once they stop
    node_of = np.zeros(n, dtype=np.int32)  # the node where each user is, or stopped
    active = np.ones(n, dtype=bool)  # False once dropped at a split on an axis they hide
    flo, fhi = lo[0], hi[0]  # boxes of the frontier nodes
    sizes = [1]  # number of nodes down to each level
    states_at = [(node_of.copy(), active.copy())] if record else []

    for level in range(depth):
        F = len(flo)
        mid = (flo + fhi) / 2
        state = states.at(level, pos, np.vstack([mid, np.zeros((1, k))]))
        if rule == "max-edge":
            halves = (halves_per_axis(sums, pos, F, state)
                      if joint_is_wasteful(k, n, F, y2.shape[1])
                      else joint_stats(sums, pos, F, states))
            parent = halves.sum(axis=2)
            child_sse = sse_of(halves).sum(axis=-1)
            edge = fhi - flo
            ok = (edge == edge.max(axis=1, keepdims=True)).T & \
                (halves[..., 0].min(axis=-1) >= min_child)
            thr = mid.T
        elif bins_outnumber_users(F, n, k, y2.shape[1]):
            parent, child_sse, cut = cart_cuts_sparse(sums, pos, F, state, min_child)
            ok = np.isfinite(child_sse)
            thr = (cut + 1) / CART_BINS
        else:
            below = np.cumsum(cart_stats(sums, pos, F, state), axis=2)  # x < (bin + 1) / 256
            parent = below[:, :, -1]
            above = parent[:, :, None] - below
            sse = sse_of(below) + sse_of(above)
            sse[(below[..., 0] < min_child) | (above[..., 0] < min_child)] = np.inf
            cut = np.argmin(sse, axis=-1)
            child_sse = np.take_along_axis(sse, cut[..., None], axis=-1)[..., 0]
            ok = np.isfinite(child_sse)
            thr = (cut + 1) / CART_BINS
        pc = parent[..., 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            safe = np.where(pc > 0, pc, 1)
            gain = np.where(ok & (pc > 0), (sse_of(parent) - child_sse) / safe, 0.0)
            tol = TIE * (parent[..., -1] / safe).max(axis=0) + 1e-15
        gain = np.where(ok, gain, -np.inf)
        best_axis = _best_axes(gain, tol)

        splits = np.flatnonzero(best_axis >= 0)
        if splits.size == 0:
            break
        S, a_s = len(splits), best_axis[splits]
        thr_s = thr[a_s, splits]
        children = n_nodes + np.arange(2 * S)
        feature[-1][splits], threshold[-1][splits] = axes[a_s], thr_s
        left[-1][splits], right[-1][splits] = children[0::2], children[1::2]
        clo, chi = np.repeat(flo[splits], 2, axis=0), np.repeat(fhi[splits], 2, axis=0)
        chi[2 * np.arange(S), a_s] = thr_s
        clo[2 * np.arange(S) + 1, a_s] = thr_s
        for block, fill in ((feature, -1), (threshold, np.nan), (left, -1), (right, -1)):
            block.append(np.full(2 * S, fill))
        lo.append(clo)
        hi.append(chi)
        n_nodes += 2 * S

        # Pass users down by their state on their node's split axis: those who hide it stop
        # and drop out; the others go to the lower or upper child.
        # States: max-edge 0 hidden, 1 lower, 2 upper; CART the bin (x >= cut iff bin >= 256
        # cut), CART_BINS hidden.
        width = states.width
        hidden, first_upper = (0, np.full(S, 2)) if rule == "max-edge" else \
            (CART_BINS, np.rint(thr_s * CART_BINS).astype(np.int64))
        move = np.full((F + 1, width), 2 * S)  # (slot, state) -> next slot; 2S = none
        move[splits] = 2 * np.arange(S)[:, None] + (np.arange(width) >= first_upper[:, None])
        drop = np.zeros((F + 1, width), dtype=bool)
        drop[splits, hidden] = True
        move[drop] = 2 * S
        slot_axis = np.zeros(F + 1, dtype=np.int64)
        slot_axis[splits] = a_s
        for b in _blocks(n):  # bounded temporaries at any n
            key = pos[b] * width + states.of_split_axis(slot_axis, pos, b)
            pos[b] = move.ravel()[key]
            active[b] &= ~drop.ravel()[key]
            np.copyto(node_of[b], children[0] + pos[b], casting="same_kind",
                      where=pos[b] < 2 * S)
        flo, fhi = clo, chi
        sizes.append(n_nodes)
        if record:
            states_at.append((node_of.copy(), active.copy()))

    if not record:
        states_at = [None] * (len(sizes) - 1) + [(node_of, active)]
    nodes = {"feature": np.concatenate(feature).astype(np.int64),
             "threshold": np.concatenate(threshold).astype(float),
             "left": np.concatenate(left).astype(np.int64),
             "right": np.concatenate(right).astype(np.int64),
             "lo": np.concatenate(lo).reshape(n_nodes, k),
             "hi": np.concatenate(hi).reshape(n_nodes, k)}
    return Growth(tree_class=tree_class, axes=axes, y2=y2, one_column=np.ndim(y_tilde) == 1,
                  nodes=nodes, sizes=sizes, states_at=states_at,
                  complete=k == 0 or len(sizes) - 1 < depth)


def _best_axes(gain, tol):
    """Per node (columns of ``gain``, axes x nodes), the split axis: in axis order, a later
    axis must beat the best so far by more than ``tol``; -1 where no gain is finite.

    The scan jumps from each best to the next axis that beats it (a few jumps for a few
    hundred axes) rather than visiting every axis in Python: the same comparisons, the same
    choice."""
    k, F = gain.shape
    best_axis = np.full(F, -1)
    best_gain = np.full(F, -np.inf)
    order = np.arange(k)[:, None]
    live = np.arange(F)
    while live.size:
        beats = (gain[:, live] > best_gain[live] + tol[live]) & (order > best_axis[live])
        found = beats.any(axis=0)
        live = live[found]
        nxt = np.argmax(beats[:, found], axis=0)
        best_axis[live], best_gain[live] = nxt, gain[nxt, live]
    return best_axis


@dataclass(frozen=True)
class Growth:
    """A grown tree before it is cut to a depth: the nodes and where the users are."""

    tree_class: type  # ldpviz.partition.PublicTree
    axes: np.ndarray
    y2: np.ndarray
    one_column: bool
    nodes: dict  # feature, threshold, left, right, lo, hi: one entry per node
    sizes: list  # number of nodes down to each level
    states_at: list  # per level, (node of each user, still passed down) or None
    complete: bool  # growth stopped before its depth: no node can split further

    def cut(self, depth):
        """The tree grown to ``depth`` (the nodes of the first ``depth`` levels) as a PublicTree.

        Growth is level by level and each level depends only on the ones above, so this is
        the tree a growth of that depth gives, byte for byte.
        """
        level = min(depth, len(self.sizes) - 1)
        keep = self.sizes[level]
        nodes = {name: values[:keep].copy() for name, values in self.nodes.items()}
        below = nodes["left"] >= keep  # split nodes of the last level kept become leaves
        for name, leaf_value in (("feature", -1), ("threshold", np.nan), ("left", -1),
                                 ("right", -1)):
            nodes[name][below] = leaf_value
        feature = nodes["feature"]
        node_of, active = self.states_at[level]
        n_leaves = int(np.sum(feature < 0))
        leaf_id = np.full(keep, -1)
        leaf_id[feature < 0] = np.arange(n_leaves)
        # Round-1 leaf means: users whose every split coordinate on their path is published.
        at_leaf = active & (feature[node_of] < 0)
        leaf_of_user = leaf_id[node_of[at_leaf]]
        leaf_count = bincount(leaf_of_user, minlength=n_leaves).astype(float)
        leaf_sum = np.stack([bincount(leaf_of_user, weights=col[at_leaf], minlength=n_leaves)
                             for col in self.y2.T], axis=-1)
        leaf_mean = np.where(leaf_count[:, None] > 0,
                             leaf_sum / np.maximum(leaf_count, 1)[:, None], np.nan)
        return self.tree_class(
            axes=self.axes, **nodes, leaf_id=leaf_id, leaf_count=leaf_count,
            leaf_label_mean=leaf_mean[:, 0] if self.one_column else leaf_mean)
