"""Per-level statistics of the public tree's growth (used by :func:`ldpviz.partition.grow_tree`).

A level of the tree costs a few passes over the users whatever its number of nodes: each user
has a state per tree axis (max-edge: hidden, lower or upper half of the node; CART: hidden or a
bin of width 1/256), and the count, label sums and sum of squares of every (axis, node, state)
come from ``np.bincount`` over a key (node, state).
"""

from __future__ import annotations

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
    """Each user's state along each tree axis at the current level: a (k, n) int array.

    CART: the bin ``floor(256 x)`` of x, or 256 if the user hides the axis. Max-edge: 0 if
    hidden, else 1 + (x in the upper half of the node). At level L every max-edge node's
    longest edges have length 2^-r, r = L // k (a node always splits one of its longest
    edges), so that half is bit r + 1 of x's binary expansion: the states change only when r
    does, and do not depend on the node.
    """

    def __init__(self, Xa, public, rule):
        self.Xa, self.public, self.rule = Xa, public, rule
        if rule == "cart":
            self.width = CART_BINS + 1
            self.state = np.where(public, np.minimum((Xa * CART_BINS).astype(np.int64),
                                                     CART_BINS - 1), CART_BINS)
        else:
            self.width = 3
            # floor(x 2^52) is exact; x = 1 counts as the largest double below 1 (upper half)
            self.bits = np.minimum((Xa * 2.0**52).astype(np.int64), 2**52 - 1)
            self.r = None

    def at(self, level, pos, mid):
        """The (k, n) states at ``level``; ``mid`` (F + 1, k) is read only for tiny boxes."""
        if self.rule == "max-edge":
            r = level // len(self.Xa)
            if r >= BIT_RESOLUTION:
                self.r, self.state = None, self.public * (1 + (self.Xa >= mid[pos].T))
                self._codes = None
            elif r != self.r:
                self.r, self.state = r, self.public * (1 + ((self.bits >> (51 - r)) & 1))
                self._codes = None
        return self.state

    def codes(self):
        """Max-edge: (g, code) per group of up to five axes, code = sum_j 3^j state_j."""
        if self._codes is None:
            self._codes = []
            for start in range(0, len(self.state), JOINT_AXES):
                group = self.state[start:start + JOINT_AXES]
                code = np.zeros(group.shape[1], dtype=np.int64)
                for j, row in enumerate(group):
                    code += row * 3**j
                self._codes.append((len(group), code))
        return self._codes


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
