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
from scipy import sparse

from ._tree_grid import GRID_POTENTIAL_ENTRIES, TreeGrid, hiding_patterns
from ._tree_growth import (  # noqa: F401 (TreeMemo, reuse_trees: public here)
    CART_BINS,
    TIE,
    TREE_MEMO,
    States,
    Sums,
    TreeMemo,
    cart_stats,
    joint_stats,
    reuse_trees,
    sse_of,
)
from ._validation import check_choice, check_int

RULES = ("max-edge", "cart")


def _inside(x, lo, hi):
    """x in [lo, hi), with the face at 1 closed. Broadcasts."""
    return (x >= lo) & ((x < hi) | (hi >= 1.0))


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
        return cell

    def potential(self, X, W):
        """(n, n_cells) bool: histogram cells consistent with each user's published coordinates."""
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
        b, hidden = self.bins(X), self._hidden(W)
        rank = np.zeros(len(X), dtype=np.int64)
        for j in range(len(self.axes)):
            rank = np.where(hidden[:, j], rank * self.t + b[:, j], rank)
        return rank

    def potential_nth(self, X, W, nth):
        """Cell id of the ``nth[i]``-th potential cell of user i (0-based)."""
        b, hidden = self.bins(X), self._hidden(W)
        nth = np.asarray(nth, dtype=np.int64).copy()
        for j in reversed(range(len(self.axes))):
            b[:, j] = np.where(hidden[:, j], nth % self.t, b[:, j])
            nth = np.where(hidden[:, j], nth // self.t, nth)
        if not self.axes:
            return np.zeros(len(X), dtype=np.int64)
        return np.ravel_multi_index(tuple(b.T), (self.t,) * len(self.axes))

    def potential_sum(self, X, W, weights):
        """``sum_i 1{h in H_i} weights[i]`` for every histogram cell h: shape (n_cells, m).

        Users are grouped by which histogram axes they hide; within a group the sum depends
        only on the published bins and is broadcast over the hidden ones.
        """
        s, t = len(self.axes), self.t
        weights = np.asarray(weights, dtype=float).reshape(len(X), -1)
        out = np.zeros((t,) * s + (weights.shape[1],))
        if s == 0:
            return weights.sum(axis=0)[None, :]
        b = self.bins(X)
        for code, rows in hiding_patterns(self._hidden(W)):
            shown = [j for j in range(s) if not (code >> j) & 1]
            w = weights if rows is None else weights[rows]
            if shown:
                bins = b if rows is None else b[rows]
                group = np.ravel_multi_index(tuple(bins[:, shown].T), (t,) * len(shown))
                onehot = sparse.csr_matrix((np.ones(len(w)), (group, np.arange(len(w)))),
                                           shape=(t ** len(shown), len(w)))
                block = onehot @ w
            else:
                block = w.sum(axis=0, keepdims=True)
            shape = [t if j in shown else 1 for j in range(s)]
            out += block.reshape(*shape, -1)
        return out.reshape(self.n_cells, -1)

    def boxes(self):
        """(lo, hi), each (n_cells, s): the box of each histogram cell on its axes."""
        s = len(self.axes)
        if s == 0:
            return np.zeros((1, 0)), np.ones((1, 0))
        idx = np.stack(np.unravel_index(np.arange(self.n_cells), (self.t,) * s), axis=1)
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

    @cached_property
    def _grid(self):
        return TreeGrid.of(self)

    def apply(self, X):
        """Leaf number of each point (uses every coordinate: this runs on the user's side)."""
        grid = self._grid
        if grid is None:
            return self._descend(X)
        return grid.leaf[grid.cell(X)]

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
        """(n, n_leaves) bool: leaves consistent with each user's published tree coordinates."""
        n, n_leaves = len(X), self.n_leaves
        hidden = W[:, self.axes] if len(self.axes) else np.zeros((n, 0), dtype=bool)
        grid = self._grid
        if grid is not None and grid.leaf.size * n_leaves <= GRID_POTENTIAL_ENTRIES:
            return grid.potential(X, hidden)
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
        return T

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
        return memo.tree(partial(_grow, record=True), X, y_tilde, W, axes, depth, rule,
                         min_samples_leaf)
    return _grow(X, y_tilde, W, axes, depth, rule, min_samples_leaf).cut(depth)


def _grow(X, y_tilde, W, axes, depth, rule, min_samples_leaf, record=False):
    """The growth of :func:`grow_tree` (inputs checked); with ``record``, the users' nodes
    after every level are kept so the tree can be cut at any depth."""
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
            halves = joint_stats(sums, pos, F, states)
            parent = halves.sum(axis=2)
            child_sse = sse_of(halves).sum(axis=-1)
            edge = fhi - flo
            ok = (edge == edge.max(axis=1, keepdims=True)).T & \
                (halves[..., 0].min(axis=-1) >= min_child)
            thr = mid.T
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
        best_gain = np.full(F, -np.inf)
        best_axis = np.full(F, -1)
        for a in range(k):  # in axis order: a later axis must beat the best by more than tol
            better = gain[a] > best_gain + tol
            best_gain = np.where(better, gain[a], best_gain)
            best_axis = np.where(better, a, best_axis)

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
        key = pos * width + states.of_split_axis(slot_axis, pos)
        pos = move.ravel()[key]
        active &= ~drop.ravel()[key]
        np.copyto(node_of, children[0] + pos, casting="same_kind", where=pos < 2 * S)
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
    return _Growth(axes=axes, y2=y2, one_column=np.ndim(y_tilde) == 1, nodes=nodes, sizes=sizes,
                   states_at=states_at, complete=k == 0 or len(sizes) - 1 < depth)


@dataclass(frozen=True)
class _Growth:
    """A grown tree before it is cut to a depth: the nodes and where the users are."""

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
        leaf_count = np.bincount(leaf_of_user, minlength=n_leaves).astype(float)
        leaf_sum = np.stack([np.bincount(leaf_of_user, weights=col[at_leaf], minlength=n_leaves)
                             for col in self.y2.T], axis=-1)
        leaf_mean = np.where(leaf_count[:, None] > 0,
                             leaf_sum / np.maximum(leaf_count, 1)[:, None], np.nan)
        return PublicTree(
            axes=self.axes, **nodes, leaf_id=leaf_id, leaf_count=leaf_count,
            leaf_label_mean=leaf_mean[:, 0] if self.one_column else leaf_mean)


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
        return h * self.n_leaves + leaf

    def potential(self, X, W):
        """Potential cells V_i in factored form: V_i = H_i x T_i (Section 3.3).

        Returns ``H`` (n, n_hist_cells) and ``T`` (n, n_leaves), boolean. A cell is potential
        for user i iff some point agreeing with the coordinates i publishes lies in it.
        """
        return self.histogram.potential(X, W), self.tree.potential(X, W)

    def potential_cells(self, X, W):
        """V_i as an (n, n_cells) boolean matrix (small n only; see :meth:`potential`)."""
        H, T = self.potential(X, W)
        return (H[:, :, None] & T[:, None, :]).reshape(len(X), -1)

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
        counts = np.bincount(cell, minlength=self.n_cells).astype(float)
        sums = np.bincount(cell, weights=y, minlength=self.n_cells)
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
