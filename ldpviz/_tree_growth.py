"""Per-level statistics of the public tree's growth (used by :func:`ldpviz.partition.grow_tree`).

A level of the tree costs a few passes over the users whatever its number of nodes: each user
has a state per tree axis (max-edge: hidden, lower or upper half of the node; CART: hidden or a
bin of width 1/256), and the count, label sums and sum of squares of every (axis, node, state)
come from ``np.bincount`` over a key (node, state).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache

import numpy as np

CART_BINS = 256  # candidate split points of the CART rule: the grid k / 256 of the public box
# Gains closer than this (relative to the mean square label at the node) are ties, which go to
# the lowest feature index whatever the order in which the sums were rounded.
TIE = 1e-9
# Max-edge sides are read off x's binary expansion (52 bits, exact in float) while boxes are at
# least 2^-50 wide; deeper boxes (never reached in practice) compare x with the midpoint.
BIT_RESOLUTION = 50
# Max-edge counts up to this many axes together, in one pass over (node, state of each axis).
JOINT_AXES = 5


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

    def __call__(self, key, size):
        """(size, m + 2) stacked statistics of keys ``0..size-1``; larger keys are dropped."""
        out = np.empty((size, len(self.columns) + 1))
        out[:, 0] = np.bincount(key, minlength=size)[:size]
        for j, col in enumerate(self.columns, start=1):
            out[:, j] = np.bincount(key, weights=col, minlength=size)[:size]
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
                bins = np.minimum((X[:, axis] * CART_BINS).astype(np.int64), CART_BINS - 1)
                self.state[j] = np.where(public[j], bins, CART_BINS)
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
                    if r < BIT_RESOLUTION:  # exact: x 2^(r+1) has no rounding; 1 is upper
                        upper = np.clip(self.X[:, axis] * scale, 0, scale - 1).astype(
                            np.int64) & 1
                    else:
                        upper = self.X[:, axis] >= mid[pos, j]
                    self.state[j] = self.public[j] * (1 + upper)
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

    def of_split_axis(self, slot_axis, pos):
        """Each user's state on the axis their node splits (``slot_axis[pos]``)."""
        at = slot_axis[pos] * len(pos)
        at += np.arange(len(pos))
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
        table = sums(pos * 3**g + code, F * 3**g).reshape(F, 3**g, -1)
        per_axis = (digits_matrix(g) @ table).reshape(F, g, 3, -1)  # (node, axis, state)
        out.append(per_axis[:, :, 1:].transpose(1, 0, 2, 3))
    return np.concatenate(out)


def cart_stats(sums, pos, F, state):
    """Statistics of every (axis, node, CART bin): (k, F, 256, m + 2)."""
    width = CART_BINS + 1
    return np.stack([sums(pos * width + row, F * width).reshape(F, width, -1)[:, :CART_BINS]
                     for row in state])


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
