"""The combined partition pi = pi_priv x pi_pub of HistOfTree (Sections 3.2-3.3, Algorithm 1).

* :class:`Histogram`: t equal bins on each of the s histogram ("private") axes.
* :class:`PublicTree`: a tree on the remaining axes, grown from published coordinates and the
  privatised labels only, with the max-edge midpoint rule of Algorithm 1 or the CART rule of the
  paper's experiments. It is W-aware: along axis l only users with W[i, l] = 0 count, and only
  they are passed down a split on l.
* :class:`Partition`: their product. Cell ``j = h * n_leaves + leaf`` for histogram cell ``h``.
  It gives each point's cell, each user's potential cells V_i, each cell's box (for drawing)
  and the non-private partition estimate of eq (3).

Cells are half-open boxes ``[lo, hi)``, except that the upper face at 1 is closed, so the unit
cube is covered exactly; the lower child of a split at ``c`` is ``x < c``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial

import numpy as np
import pandas as pd

from ._tree_grid import GRID_POTENTIAL_ENTRIES, TreeGrid, hiding_patterns
from ._tree_growth import CART_BINS, TREE_MEMO, TreeMemo, grow, reuse_trees

__all__ = ["CART_BINS", "RULES", "Histogram", "Partition", "PublicTree", "TreeMemo",
           "build_partition", "grow_tree", "reuse_trees"]
from ._config import check_budget, get_config
from ._index import as_index, bincount
from ._validation import check_choice, check_int

RULES = ("max-edge", "cart")


def _mixed_radix(bins, t):
    """Row-major cell id of per-axis bins (n, k) in base t; any number of axes (numpy's
    ravel_multi_index takes at most 64), the guard keeps t^k within int64."""
    cell = np.zeros(len(bins), dtype=np.int64)
    for j in range(bins.shape[1]):
        cell = cell * t + bins[:, j]
    return cell


def _inside(x, lo, hi):
    """x in [lo, hi), with the face at 1 closed. Broadcasts."""
    return (x >= lo) & ((x < hi) | (hi >= 1.0))


def _columns(weights):
    """Weights as an (n, m) float array (a 1-D array is one column)."""
    weights = np.asarray(weights, dtype=float)
    return weights[:, None] if weights.ndim == 1 else weights


def _group_sums(group, n_groups, weights):
    """(n_groups, m) column sums of ``weights`` (n, m) per group."""
    weights = _columns(weights)
    return np.stack([bincount(group, weights=col, minlength=n_groups)
                     for col in weights.T], axis=-1)


def check_matrix(owner, n, columns, bytes_per_entry):
    """Refuse a per-user (n, columns) boolean matrix of ``bytes_per_entry`` bytes per entry
    (result and temporaries) beyond the ``max_bytes`` budget, before building it; the message
    points to the factored and summed forms that never build it."""
    fits = get_config()["max_bytes"] // max(bytes_per_entry * columns, 1)
    check_budget(f"{owner} over {columns:,} columns", "n", n,
                 {"max_bytes": bytes_per_entry * n * columns}, fits=fits,
                 advice=f"use n <= {fits:,} here, or Partition.potential_sum, which sums over "
                        "the users without building the (n, columns) matrix")


# ----------------------------------------------------------------------------------------------
# Histogram on the private axes
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Histogram:
    """t equal-width bins per axis on ``axes`` (the histogram partition of Section 3.2)."""

    axes: tuple
    t: int

    @property
    def n_cells(self):
        return self.t ** len(self.axes)

    def bins(self, X):
        """(n, s) bin index of each point along each histogram axis."""
        cols = X[:, list(self.axes)]
        return np.clip((cols * self.t).astype(np.int64), 0, self.t - 1)

    def cell_index(self, X):
        """Histogram cell of each point (row-major over the axes, the last one fastest)."""
        cell = np.zeros(len(X), dtype=np.int64)
        for axis in self.axes:
            cell = cell * self.t + np.clip((X[:, axis] * self.t).astype(np.int64), 0, self.t - 1)
        return as_index(cell)  # np.bincount takes it on wasm32 too

    def potential(self, X, W):
        """(n, n_cells) bool: histogram cells consistent with each user's published coordinates.

        Refused beyond the ``max_bytes`` budget before it is built (:func:`check_matrix`)."""
        check_matrix("Histogram.potential", len(X), self.n_cells, 3)
        b = self.bins(X)
        H = np.ones((len(X), 1), dtype=bool)
        grid = np.arange(self.t)
        for j, axis in enumerate(self.axes):
            allowed = W[:, axis][:, None] | (b[:, j][:, None] == grid[None, :])
            H = (H[:, :, None] & allowed[:, None, :]).reshape(len(X), -1)
        return H

    # The potential set of a user is a product: every bin on a hidden axis, their own bin on a
    # published one. The methods below work on that structure in O(n s) instead of building
    # the (n, t^s) matrix above; cells are listed in cell-id order (last axis fastest).
    def _hidden(self, W):
        return W[:, list(self.axes)].astype(bool)

    def potential_size(self, W):
        """|H_i| = t ** (number of hidden histogram axes of user i)."""
        return self.t ** self._hidden(W).sum(axis=1)

    def potential_rank(self, X, W):
        """Position of each user's own cell among their potential cells."""
        return self.rank_of_bins(self.bins(X), self._hidden(W))

    def rank_of_bins(self, bins, hidden):
        """:meth:`potential_rank` from the users' bins and hidden histogram axes."""
        rank = np.zeros(len(bins), dtype=np.int64)
        for j in range(len(self.axes)):
            rank = np.where(hidden[:, j], rank * self.t + bins[:, j], rank)
        return rank

    def potential_nth(self, X, W, nth):
        """Cell id of the ``nth[i]``-th potential cell of user i (0-based)."""
        return self.nth_of_bins(self.bins(X), self._hidden(W), nth)

    def nth_of_bins(self, bins, hidden, nth):
        """:meth:`potential_nth` from the users' bins and hidden histogram axes."""
        b = np.array(bins, dtype=np.int64)
        nth = np.asarray(nth, dtype=np.int64).copy()
        for j in reversed(range(len(self.axes))):
            b[:, j] = np.where(hidden[:, j], nth % self.t, b[:, j])
            nth = np.where(hidden[:, j], nth // self.t, nth)
        return _mixed_radix(b, self.t)

    def potential_sum(self, X, W, weights):
        """``sum_i 1{h in H_i} weights[i]`` for every histogram cell h: shape (n_cells, m).

        Users are grouped by which histogram axes they hide; within a group the sum depends
        only on the published bins and is broadcast over the hidden ones.
        """
        s, t = len(self.axes), self.t
        weights = np.asarray(weights, dtype=float).reshape(len(X), -1)
        if s == 0 or t == 1:  # one cell, potential for everyone
            return weights.sum(axis=0)[None, :]
        out = np.zeros((t,) * s + (weights.shape[1],))
        for rows, shown, cell in self._published_cells(X, W):
            w = weights if rows is None else weights[rows]
            if shown:
                from scipy import sparse

                onehot = sparse.csr_matrix((np.ones(len(w)), (cell, np.arange(len(w)))),
                                           shape=(t ** len(shown), len(w)))
                block = onehot @ w
            else:
                block = w.sum(axis=0, keepdims=True)
            shape = [t if j in shown else 1 for j in range(s)]
            out += block.reshape(*shape, -1)
        return out.reshape(self.n_cells, -1)

    def _published_cells(self, X, W):
        """Users grouped by the histogram axes they hide: per group (rows, or None for all
        users; the axes shown; each user's cell in the grid of the shown axes)."""
        b = self.bins(X)
        for code, rows in hiding_patterns(self._hidden(W)):
            shown = [j for j in range(len(self.axes)) if not (code >> j) & 1]
            bins = b if rows is None else b[rows]
            cell = _mixed_radix(bins[:, shown], self.t)
            yield rows, shown, cell

    def boxes(self):
        """(lo, hi), each (n_cells, s): the box of each histogram cell on its axes."""
        s = len(self.axes)
        if s == 0:
            return np.zeros((1, 0)), np.ones((1, 0))
        idx = np.empty((self.n_cells, s), dtype=np.int64)
        rest = np.arange(self.n_cells)
        for j in reversed(range(s)):
            rest, idx[:, j] = np.divmod(rest, self.t)
        return idx / self.t, (idx + 1) / self.t


# ----------------------------------------------------------------------------------------------
# Public tree
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PublicTree:
    """A binary tree on the public axes, stored as flat arrays like scikit-learn's ``tree_``.

    Attributes
    ----------
    axes : (k,) int, the feature indices the tree may split on.
    feature : (n_nodes,) int, feature index split at each node (-1 at leaves).
    threshold : (n_nodes,) float, split point (lower child: x < threshold).
    left, right : (n_nodes,) int, child node ids (-1 at leaves).
    lo, hi : (n_nodes, k) node boxes on the tree axes.
    leaf_id : (n_nodes,) int, leaf number of each leaf node (-1 for internal nodes).
    leaf_count : (n_leaves,) users that reached each leaf with every split coordinate published.
    leaf_label_mean : (n_leaves,) or (n_leaves, m) mean privatised label of those users (nan if
        none): a
        round-1, public-side value used as a fallback (post-processing, no extra privacy cost).
    """

    axes: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    leaf_id: np.ndarray
    leaf_count: np.ndarray
    leaf_label_mean: np.ndarray

    @property
    def n_leaves(self):
        return int(np.sum(self.leaf_id >= 0))

    @property
    def depth(self):
        depth = np.zeros(len(self.feature), dtype=int)
        for node in range(len(self.feature)):  # parents precede children
            for child in (self.left[node], self.right[node]):
                if child >= 0:
                    depth[child] = depth[node] + 1
        return int(depth.max())

    @property
    def leaf_nodes(self):
        return np.flatnonzero(self.leaf_id >= 0)

    @property
    def node_of_leaf(self):
        """(n_leaves,) the node id of each leaf number."""
        nodes = self.leaf_nodes
        return nodes[np.argsort(self.leaf_id[nodes])]

    @cached_property
    def _grid(self):
        return TreeGrid.of(self)

    def __getstate__(self):
        """Pickles without the grid (a cache, rebuilt on first use)."""
        state = dict(self.__dict__)
        state.pop("_grid", None)
        return state

    def apply(self, X):
        """Leaf number of each point (uses every coordinate: this runs on the user's side)."""
        grid = self._grid
        leaf = self._descend(X) if grid is None else grid.leaf[grid.cell(X)]
        return as_index(leaf)  # numpy's index type: np.bincount takes it on wasm32 too

    def _descend(self, X):
        """Leaf of each point by walking down the tree, one level per step."""
        node = np.zeros(len(X), dtype=np.int64)
        rows = np.arange(len(X))
        while True:
            feat = self.feature[node]
            internal = feat >= 0
            if not internal.any():
                break
            go_right = X[rows[internal], feat[internal]] >= self.threshold[node[internal]]
            node[internal] = np.where(go_right, self.right[node[internal]],
                                      self.left[node[internal]])
        return self.leaf_id[node]

    def potential(self, X, W):
        """(n, n_leaves) bool: leaves consistent with each user's published tree coordinates
        (refused beyond the ``max_bytes`` budget, :func:`check_matrix`)."""
        check_matrix("PublicTree.potential", len(X), self.n_leaves, 1)
        group, table = self.potential_groups(X, W)
        return table[group]

    def potential_groups(self, X, W):
        """Users grouped by the leaves they may be in: each user's group (n,) and each group's
        leaves, a (G, n_leaves) bool table (groups that occur only).

        With the tree's grid a group is (tree axes hidden, grid cell of the published ones),
        found by arithmetic; the methods below work on groups instead of the (n, n_leaves)
        matrix of :meth:`potential`, as :class:`Histogram`'s do on its product structure.
        """
        n, n_leaves = len(X), self.n_leaves
        hidden = W[:, self.axes] if len(self.axes) else np.zeros((n, 0), dtype=bool)
        grid = self._grid
        if grid is not None and grid.leaf.size * n_leaves <= GRID_POTENTIAL_ENTRIES:
            return grid.groups(X, hidden)
        T = np.zeros((n, n_leaves), dtype=bool)
        partial = hidden.any(axis=1)
        full = ~partial
        T[np.flatnonzero(full), self.apply(X[full])] = True  # all published: own leaf only
        if partial.any():
            nodes = self.leaf_nodes
            x = X[partial][:, self.axes][:, None, :]
            ok = _inside(x, self.lo[nodes][None], self.hi[nodes][None])
            ok |= hidden[partial][:, None, :]
            T[partial] = ok.all(axis=2)
        table, group = np.unique(T, axis=0, return_inverse=True)
        return group.ravel(), table

    def groups_and_leaves(self, X, W):
        """:meth:`potential_groups` and each user's own leaf (:meth:`apply`), with the grid
        coordinates computed once."""
        grid = self._grid
        if grid is None or grid.leaf.size * self.n_leaves > GRID_POTENTIAL_ENTRIES:
            return (*self.potential_groups(X, W), self.apply(X))
        coordinates = grid.coordinates(X)
        hidden = W[:, self.axes] if len(self.axes) else np.zeros((len(X), 0), dtype=bool)
        group, table = grid.groups(X, hidden, coordinates)
        return group, table, grid.leaf[grid.cell(X, coordinates)]

    def potential_size(self, X, W):
        """|T_i|: the number of leaves user i may be in."""
        group, table = self.potential_groups(X, W)
        return table.sum(axis=1)[group]

    def potential_rank(self, X, W, leaf):
        """Position of ``leaf[i]`` among user i's potential leaves (it must be one of them)."""
        group, table = self.potential_groups(X, W)
        return np.cumsum(table, axis=1)[group, leaf] - 1

    def potential_nth(self, X, W, nth):
        """The ``nth[i]``-th potential leaf of user i (0-based, in leaf order)."""
        group, table = self.potential_groups(X, W)
        return np.argsort(~table, axis=1, kind="stable")[group, nth]

    def potential_sum(self, X, W, weights):
        """``sum_i 1{leaf in T_i} weights[i]`` for every leaf: shape (n_leaves, m)."""
        group, table = self.potential_groups(X, W)
        per_group = _group_sums(group, len(table), weights)
        return table.T.astype(float) @ per_group

    def leaf_boxes(self):
        nodes = self.leaf_nodes
        return self.lo[nodes], self.hi[nodes]

    def split_table(self):
        """One row per split: ``node``, ``depth``, ``feature`` (0-based), ``threshold``
        (lower child: x < threshold), ``left``, ``right`` (child node ids) and, for children
        that are leaves, their leaf numbers ``left_leaf``, ``right_leaf`` (-1 otherwise)."""
        nodes = np.flatnonzero(self.feature >= 0)
        depth = np.zeros(len(self.feature), dtype=int)
        for node in nodes:  # parents come before their children
            depth[self.left[node]] = depth[self.right[node]] = depth[node] + 1
        return pd.DataFrame({
            "node": nodes, "depth": depth[nodes], "feature": self.feature[nodes],
            "threshold": self.threshold[nodes], "left": self.left[nodes],
            "right": self.right[nodes], "left_leaf": self.leaf_id[self.left[nodes]],
            "right_leaf": self.leaf_id[self.right[nodes]],
        })


def grow_tree(X, y_tilde, W, axes, depth, rule="max-edge", min_samples_leaf=0):
    """Grow the public tree of HistOfTree (Algorithm 1, W-aware) level by level.

    Parameters
    ----------
    X : (n, d) array in [0, 1]. Only coordinates with ``W[i, l] = 0`` are ever read.
    y_tilde : (n,) or (n, m) privatised labels (the round-1 release); with m columns (e.g.
        debiased one-hot classes) the score sums the variance reduction over columns.
    W : (n, d) bool privacy mask.
    axes : sequence of int, the public (non-histogram) axes the tree may split on.
    depth : int >= 0, number of split levels p.
    rule : {"max-edge", "cart"}
        "max-edge": split at the midpoint of one of the node's longest edges, the one with the
        largest variance reduction (Algorithm 1); every node splits, giving 2^depth leaves.
        "cart": the axis and split point with the largest variance reduction (CART), searched
        on the grid k / 256; a node with no admissible split stays a leaf.
    min_samples_leaf : int >= 0
        A split is refused if a child would receive fewer users (among those that publish the
        split coordinate); 0 grows the full max-edge tree of Algorithm 1, a positive value is
        the n_l rule of LPDT. CART always needs at least one user per child.

    Notes
    -----
    The split score along axis l is the variance reduction of y_tilde per user among the users
    with ``W[i, l] = 0`` (eq 7 with the sample variances weighted by child size, as in CART); in
    the aligned case every axis sees the same users and this is plain variance reduction. Users
    with ``W[i, l] = 1`` are not passed below a split on l. Gains within a relative 1e-9 of
    each other are ties, which go to the lowest feature index.

    A level costs a few passes over the users whatever its number of nodes: each user has a
    state per axis (max-edge: hidden, lower or upper half; CART: hidden or a bin of 1/256), the
    sums of every (axis, node, state) come from ``np.bincount`` (max-edge: five axes per pass)
    and users move down by one table look-up on (node, state of the split axis).
    """
    check_choice(rule, "rule", RULES)
    depth = check_int(depth, "depth", 0)
    min_samples_leaf = check_int(min_samples_leaf, "min_samples_leaf", 0)
    memo = TREE_MEMO.get()
    if memo is not None:
        return memo.tree(partial(grow, tree_class=PublicTree, record=True), X, y_tilde, W, axes,
                         depth, rule, min_samples_leaf)
    return grow(X, y_tilde, W, axes, depth, rule, min_samples_leaf, PublicTree).cut(depth)


# ----------------------------------------------------------------------------------------------
# The product partition
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Partition:
    """pi_priv x pi_pub: cell ``j = h * n_leaves + leaf``."""

    histogram: Histogram
    tree: PublicTree
    n_features: int

    @property
    def n_leaves(self):
        return self.tree.n_leaves

    @property
    def n_cells(self):
        return self.histogram.n_cells * self.tree.n_leaves

    @property
    def hist_axes(self):
        return tuple(self.histogram.axes)

    @property
    def tree_axes(self):
        return tuple(int(a) for a in self.tree.axes)

    def cell_parts(self, X):
        """(histogram cell, leaf) of each point."""
        return self.histogram.cell_index(X), self.tree.apply(X)

    def cell_index(self, X):
        """Cell id of each point in [0, 1]^d."""
        h, leaf = self.cell_parts(X)
        return as_index(h * self.n_leaves + leaf)  # np.bincount takes it on wasm32 too

    def potential(self, X, W):
        """Potential cells V_i in factored form: V_i = H_i x T_i (Section 3.3).

        Returns ``H`` (n, n_hist_cells) and ``T`` (n, n_leaves), boolean. A cell is potential
        for user i iff some point agreeing with the coordinates i publishes lies in it.
        """
        return self.histogram.potential(X, W), self.tree.potential(X, W)

    def potential_cells(self, X, W):
        """V_i as an (n, n_cells) boolean matrix (small n only; see :meth:`potential`): refused
        beyond the ``max_bytes`` budget before it is built (:func:`check_matrix`)."""
        check_matrix("Partition.potential_cells", len(X), self.n_cells, 2)
        H, T = self.potential(X, W)
        return (H[:, :, None] & T[:, None, :]).reshape(len(X), -1)

    def potential_sum(self, X, W, weights):
        """``sum_i 1{j in V_i} weights[i]`` for every cell j: shape (n_cells, m).

        V_i = H_i x T_i (Section 3.3): users are grouped by the histogram axes they hide, their
        published bins and their tree group (:meth:`PublicTree.potential_groups`); each group's
        sum goes to its leaves and is broadcast over the hidden histogram axes. Never builds
        the (n, n_cells) matrix.
        """
        hist = self.histogram
        s, t, n_leaves = len(hist.axes), hist.t, self.n_leaves
        weights = _columns(weights)
        group, table = self.tree.potential_groups(X, W)
        reach = table.astype(float)
        out = np.zeros((t,) * s + (n_leaves, weights.shape[1]))
        for rows, shown, cell in hist._published_cells(X, W):
            key = (group if rows is None else group[rows]) + len(table) * cell
            sums = _group_sums(key, t ** len(shown) * len(table),
                               weights if rows is None else weights[rows])
            block = reach.T @ sums.reshape(t ** len(shown), len(table), -1)  # (bins, leaf, m)
            shape = [t if j in shown else 1 for j in range(s)]
            out += block.reshape(*shape, n_leaves, -1)
        return out.reshape(self.n_cells, -1)

    def cell_boxes(self):
        """(lo, hi), each (n_cells, d): the box of every cell, in cell-id order."""
        hlo, hhi = self.histogram.boxes()
        tlo, thi = self.tree.leaf_boxes()
        nh, nl, d = self.histogram.n_cells, self.n_leaves, self.n_features
        lo, hi = np.zeros((nh, nl, d)), np.ones((nh, nl, d))
        for j, axis in enumerate(self.histogram.axes):
            lo[:, :, axis] = hlo[:, j][:, None]
            hi[:, :, axis] = hhi[:, j][:, None]
        for j, axis in enumerate(self.tree.axes):
            lo[:, :, axis] = tlo[:, j][None, :]
            hi[:, :, axis] = thi[:, j][None, :]
        return lo.reshape(-1, d), hi.reshape(-1, d)

    def cell_table(self, X=None, y=None):
        """One row per cell: its ``hist_cell`` and ``leaf``, its box (``lo_k``, ``hi_k`` for
        every feature k, 0-based) and, given users ``X`` and labels ``y``, their ``count`` and
        the non-private mean of eq (3) (``mean``, NaN in empty cells)."""
        lo, hi = self.cell_boxes()
        cells = np.arange(self.n_cells)
        table = pd.DataFrame({"cell": cells, "hist_cell": cells // self.n_leaves,
                              "leaf": cells % self.n_leaves})
        for k in range(self.n_features):
            table[f"lo_{k}"], table[f"hi_{k}"] = lo[:, k], hi[:, k]
        if X is not None:
            means, counts = self.cell_means(X, np.zeros(len(X)) if y is None else y)
            table["count"] = counts.astype(int)
            if y is not None:
                table["mean"] = means
        return table.set_index("cell")

    def cell_means(self, X, y):
        """The non-private partition estimator of eq (3): per-cell mean of y (nan if empty).

        Returns ``(means, counts)``.
        """
        cell = self.cell_index(X)
        counts = bincount(cell, minlength=self.n_cells).astype(float)
        sums = bincount(cell, weights=y, minlength=self.n_cells)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan), counts


def build_partition(X, y_tilde, W, hist_axes, t, depth, rule="max-edge", min_samples_leaf=0):
    """The HistOfTree partition: t bins on ``hist_axes``, a public tree on the other axes."""
    d = X.shape[1]
    t = check_int(t, "t", 1)
    hist_axes = tuple(int(a) for a in hist_axes)
    tree_axes = [a for a in range(d) if a not in set(hist_axes)]
    tree = grow_tree(X, y_tilde, W, tree_axes, depth, rule, min_samples_leaf)
    return Partition(Histogram(hist_axes, t), tree, d)
