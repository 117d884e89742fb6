"""The grid cut out by a tree's thresholds: fast leaf look-ups for :mod:`ldpviz.partition`.

Every threshold ldpviz grows is dyadic (a midpoint of Algorithm 1, or CART's k / 256), so each
tree axis is cut into a few intervals found by arithmetic, and each cell of the product grid
lies in a single leaf. A point's leaf is then a few array operations per axis and one table
look-up, whatever the depth; the leaves a user may be in, given the axes they publish, are one
look-up too.
"""

from __future__ import annotations

import math

import numpy as np

from ._index import bincount

# A tree's grid (below) is used while it has at most this many cells, and for potential leaves
# while cells x leaves stays below the second bound; beyond, points descend the tree.
GRID_CELLS = 1 << 18
GRID_POTENTIAL_ENTRIES = 1 << 24
GRID_RESOLUTION = 30
GRID_MAX_AXES = 32


def hiding_patterns(hidden):
    """Users grouped by the set of axes they hide: (code, rows) pairs, code = sum_j 2^j
    hidden[:, j], in increasing code order; rows is None when every user shares the code."""
    if hidden.shape[1] > 62:  # codes beyond int64: group the packed rows, codes as Python ints
        packed = np.packbits(np.asarray(hidden, dtype=bool), axis=1, bitorder="little")
        rows, group = np.unique(packed, axis=0, return_inverse=True)
        codes = [int.from_bytes(row.tobytes(), "little") for row in rows]
        group = group.ravel()
        if len(codes) == 1:
            return [(codes[0], None)]
        return sorted((c, np.flatnonzero(group == g)) for g, c in enumerate(codes))
    code = np.zeros(len(hidden), dtype=np.int64)
    for j in range(hidden.shape[1]):
        code |= hidden[:, j].astype(np.int64) << j
    # A count per possible code is fastest for few axes; beyond, it would be 2^k entries.
    present = (np.flatnonzero(bincount(code, minlength=1)) if hidden.shape[1] <= 16
               else np.unique(code))
    if len(present) == 1:
        return [(int(present[0]), None)]
    return [(int(c), np.flatnonzero(code == c)) for c in present]


def dyadic_resolution(cuts):
    """Smallest r <= 30 with every cut a multiple of 2^-r, or None."""
    cuts = [float(c) for c in cuts]  # a tree's few thresholds: Python floats are faster
    for r in range(GRID_RESOLUTION + 1):
        scale = 2.0**r
        if all((c * scale).is_integer() for c in cuts):
            return r
    return None


class TreeGrid:
    """The grid cut out by all thresholds of a tree: each grid cell lies in a single leaf.

    Every threshold ldpviz grows is dyadic (a midpoint, or CART's k / 256), so along a tree
    axis with thresholds on multiples of 2^-r the grid coordinate of x is
    ``coarse[floor(x 2^r)]``. Finding a point's leaf is then a few array operations per axis
    and one table look-up, whatever the depth.
    """

    def __init__(self, columns, scales, coarse, sizes, leaf):
        self.columns, self.scales, self.coarse, self.sizes, self.leaf = (
            columns, scales, coarse, sizes, leaf)
        self._reach = {}

    @classmethod
    def of(cls, tree):
        """The grid of ``tree``, or None if it is too large or a threshold is not dyadic."""
        if len(tree.axes) > GRID_MAX_AXES:  # numpy arrays have at most 64 dimensions
            return None
        columns, scales, coarse, sizes, cut_list = [], [], [], [], []
        split = tree.feature >= 0
        by_axis = {int(a): set() for a in tree.axes}
        for axis, cut in zip(tree.feature[split].tolist(), tree.threshold[split].tolist(),
                             strict=True):
            by_axis[axis].add(cut)
        for axis in by_axis:
            cuts = np.array(sorted(by_axis[axis]), dtype=float)
            r = dyadic_resolution(cuts)
            if r is None:
                return None
            columns.append(axis)
            scales.append(2**r)
            coarse.append(np.searchsorted(cuts, np.arange(2**r) / 2**r, side="right"))
            sizes.append(len(cuts) + 1)
            cut_list.append(cuts)
        if math.prod(sizes) > GRID_CELLS:
            return None
        # Each leaf's box is a block of grid cells: [cells of lo, cells below hi].
        lo, hi = tree.leaf_boxes()
        start = np.array([np.searchsorted(c, lo[:, j], side="right")
                          for j, c in enumerate(cut_list)], dtype=np.int64).reshape(-1, len(lo))
        stop = np.array([np.searchsorted(c, hi[:, j], side="left") + 1
                         for j, c in enumerate(cut_list)], dtype=np.int64).reshape(-1, len(lo))
        leaf = np.empty(sizes, dtype=np.int64)
        for number, (a, b) in enumerate(zip(start.T, stop.T, strict=True)):
            leaf[tuple(map(slice, a, b))] = number
        return cls(columns, scales, coarse, tuple(sizes), leaf.ravel())

    def coordinates(self, X):
        """(k, n) grid coordinate of each point along each tree axis."""
        out = np.empty((len(self.columns), len(X)), dtype=np.int64)
        for j, (column, scale, coarse, size) in enumerate(
                zip(self.columns, self.scales, self.coarse, self.sizes, strict=True)):
            fine = np.clip((X[:, column] * scale).astype(np.int64), 0, scale - 1)
            out[j] = fine if size == scale else coarse[fine]  # every fine bin its own cell
        return out

    def cell(self, X, coordinates=None):
        """Grid cell of each point (row-major over the tree axes)."""
        coordinates = self.coordinates(X) if coordinates is None else coordinates
        cell = np.zeros(len(X), dtype=np.int64)
        for size, coordinate in zip(self.sizes, coordinates, strict=True):
            cell = cell * size + coordinate
        return cell

    def groups(self, X, hidden, coordinates=None):
        """Users grouped by (tree axes they hide, grid cell of the ones they publish): the
        leaves a user may be in depend on nothing else.

        Returns each user's group (n,) and the leaves of each group, a (G, n_leaves) bool
        table over the G groups that occur.
        """
        n, k = hidden.shape
        n_leaves = int(self.leaf.max()) + 1
        coordinates = self.coordinates(X) if coordinates is None else coordinates
        group = np.empty(n, dtype=np.int64)
        tables, offset = [np.zeros((0, n_leaves), dtype=bool)], 0
        for code, rows in hiding_patterns(hidden) if n else []:
            cell = np.zeros(n if rows is None else len(rows), dtype=np.int64)
            n_cells = 1
            for j in range(k):
                if not (code >> j) & 1:
                    cell = cell * self.sizes[j] + (coordinates[j] if rows is None
                                                   else coordinates[j, rows])
                    n_cells *= self.sizes[j]
            present = np.flatnonzero(bincount(cell, minlength=n_cells))
            number = np.zeros(n_cells, dtype=np.int64)
            number[present] = offset + np.arange(len(present))
            group[slice(None) if rows is None else rows] = number[cell]
            tables.append(self._reachable(code, n_leaves)[present])
            offset += len(present)
        return group, np.concatenate(tables)

    def _reachable(self, code, n_leaves):
        """Per cell of the published axes' grid: the leaves met when the hidden axes vary."""
        if code not in self._reach:
            onehot = np.eye(n_leaves, dtype=bool)[self.leaf].reshape(*self.sizes, n_leaves)
            hidden = tuple(j for j in range(len(self.sizes)) if (code >> j) & 1)
            self._reach[code] = onehot.any(axis=hidden).reshape(-1, n_leaves)
        return self._reach[code]


# ----------------------------------------------------------------------------------------------
