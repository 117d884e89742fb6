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

import numpy as np
import pandas as pd
from scipy import sparse

from ._validation import check_choice, check_int

RULES = ("max-edge", "cart")
CART_BINS = 256  # candidate split points of the CART rule: the grid k / 256 of the public box


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
        return np.minimum((cols * self.t).astype(np.int64), self.t - 1)

    def cell_index(self, X):
        b = self.bins(X)
        if b.shape[1] == 0:
            return np.zeros(len(X), dtype=np.int64)
        return np.ravel_multi_index(tuple(b.T), (self.t,) * len(self.axes))

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
        b, hidden = self.bins(X), self._hidden(W)
        pattern = hidden @ (1 << np.arange(s))
        for code in np.unique(pattern):
            rows = np.flatnonzero(pattern == code)
            shown = [j for j in range(s) if not (code >> j) & 1]
            if shown:
                group = np.ravel_multi_index(tuple(b[rows][:, shown].T), (t,) * len(shown))
                onehot = sparse.csr_matrix(
                    (np.ones(len(rows)), (group, np.arange(len(rows)))),
                    shape=(t ** len(shown), len(rows)))
                block = onehot @ weights[rows]
            else:
                block = weights[rows].sum(axis=0, keepdims=True)
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

    def apply(self, X):
        """Leaf number of each point (uses every coordinate: this runs on the user's side)."""
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
        T = np.zeros((n, n_leaves), dtype=bool)
        hidden = W[:, self.axes] if len(self.axes) else np.zeros((n, 0), dtype=bool)
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


def _node_stats(key, n_keys, weights, y):
    """Per-key count, per-column sums (n_keys, m) and total sum of squares of y (n, m)."""
    count = np.bincount(key, weights=weights, minlength=n_keys)
    total = np.stack([np.bincount(key, weights=weights * col, minlength=n_keys) for col in y.T],
                     axis=-1)
    sq = np.bincount(key, weights=weights * (y * y).sum(axis=1), minlength=n_keys)
    return count, total, sq


def _sse(count, total, sq):
    """Sum of squared deviations from the mean, summed over label columns (0 if empty)."""
    safe = np.where(count > 0, count, 1)
    return np.where(count > 0, sq - (total * total).sum(axis=-1) / safe, 0.0)


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
    with ``W[i, l] = 1`` are not passed below a split on l. Ties go to the lowest feature index.
    """
    check_choice(rule, "rule", RULES)
    depth = check_int(depth, "depth", 0)
    min_samples_leaf = check_int(min_samples_leaf, "min_samples_leaf", 0)
    axes = np.asarray(axes, dtype=np.int64)
    n, k = len(X), len(axes)
    y2 = np.asarray(y_tilde, dtype=float)
    y2 = y2[:, None] if y2.ndim == 1 else y2  # (n, m), also for n = 0
    if k == 0:
        depth = 0
    min_child = max(min_samples_leaf, 1 if rule == "cart" else 0)

    feature, threshold, left, right = [-1], [np.nan], [-1], [-1]
    lo, hi = [np.zeros(k)], [np.ones(k)]
    node_of = np.zeros(n, dtype=np.int64)  # node of each user still being passed down
    active = np.ones(n, dtype=bool)
    frontier = np.array([0])
    public = ~W[:, axes] if k else np.zeros((n, 0), dtype=bool)
    Xa = X[:, axes]

    for _ in range(depth):
        F = len(frontier)
        pos_of_node = np.full(len(feature), -1)
        pos_of_node[frontier] = np.arange(F)
        pos = np.where(active, pos_of_node[node_of], -1)
        best_gain = np.full(F, -np.inf)
        best_axis = np.full(F, -1)
        best_thr = np.full(F, np.nan)
        flo, fhi = np.array(lo)[frontier], np.array(hi)[frontier]
        edge = fhi - flo
        longest = np.isclose(edge, edge.max(axis=1, keepdims=True), rtol=0, atol=1e-12)
        for a in range(k):
            avail = (pos >= 0) & public[:, a]
            w = avail.astype(float)
            p = np.where(avail, pos, 0)
            pc, pt, ps = _node_stats(p, F, w, y2)
            parent_sse = _sse(pc, pt, ps)
            if rule == "max-edge":
                mid = (flo[:, a] + fhi[:, a]) / 2
                side = (Xa[:, a] >= mid[p]).astype(np.int64)
                c, t_, s_ = (v.reshape(F, 2, *v.shape[1:])
                             for v in _node_stats(2 * p + side, 2 * F, w, y2))
                child_sse = _sse(c, t_, s_).sum(axis=1)
                ok = longest[:, a] & (c.min(axis=1) >= min_child)
                thr = mid
            else:
                b = np.minimum((Xa[:, a] * CART_BINS).astype(np.int64), CART_BINS - 1)
                c, t_, s_ = (np.cumsum(v.reshape(F, CART_BINS, *v.shape[1:]), axis=1)
                             for v in _node_stats(p * CART_BINS + b, F * CART_BINS, w, y2))
                right_c = pc[:, None] - c
                sse = _sse(c, t_, s_) + _sse(right_c, pt[:, None] - t_, ps[:, None] - s_)
                sse[(c < min_child) | (right_c < min_child)] = np.inf
                cut = np.argmin(sse, axis=1)
                child_sse = sse[np.arange(F), cut]
                ok = np.isfinite(child_sse)
                thr = (cut + 1) / CART_BINS
            with np.errstate(invalid="ignore", divide="ignore"):
                gain = np.where(pc > 0, (parent_sse - child_sse) / np.where(pc > 0, pc, 1), 0.0)
            gain = np.where(ok, gain, -np.inf)
            better = gain > best_gain + 1e-15
            best_gain = np.where(better, gain, best_gain)
            best_axis = np.where(better, a, best_axis)
            best_thr = np.where(better, thr, best_thr)

        splits = np.flatnonzero(best_axis >= 0)
        if splits.size == 0:
            break
        child_of = np.full((F, 2), -1)
        for f in splits:
            node, a = frontier[f], best_axis[f]
            child_of[f] = [len(feature), len(feature) + 1]
            for side in (0, 1):
                clo, chi = lo[node].copy(), hi[node].copy()
                if side == 0:
                    chi[a] = best_thr[f]
                else:
                    clo[a] = best_thr[f]
                lo.append(clo)
                hi.append(chi)
                feature.append(-1)
                threshold.append(np.nan)
                left.append(-1)
                right.append(-1)
            feature[node], threshold[node] = int(axes[a]), float(best_thr[f])
            left[node], right[node] = child_of[f]
        # Pass users down: only those who publish the split coordinate follow the split.
        moving = (pos >= 0) & (best_axis[np.maximum(pos, 0)] >= 0)
        idx = np.flatnonzero(moving)
        a_idx = best_axis[pos[idx]]
        keeps = public[idx, a_idx]
        go_right = (Xa[idx, a_idx] >= best_thr[pos[idx]]).astype(np.int64)
        node_of[idx] = np.where(keeps, child_of[pos[idx], go_right], node_of[idx])
        active[idx[~keeps]] = False
        frontier = child_of[splits].ravel()

    feature = np.array(feature, dtype=np.int64)
    leaf_id = np.full(len(feature), -1)
    leaf_id[feature < 0] = np.arange(int(np.sum(feature < 0)))
    # Round-1 leaf means: users whose every split coordinate on their path is published.
    at_leaf = active & (feature[node_of] < 0)
    leaf_of_user = leaf_id[node_of[at_leaf]]
    n_leaves = int(np.sum(feature < 0))
    leaf_count = np.bincount(leaf_of_user, minlength=n_leaves).astype(float)
    leaf_sum = np.stack([np.bincount(leaf_of_user, weights=col[at_leaf], minlength=n_leaves)
                         for col in y2.T], axis=-1)
    leaf_mean = np.where(leaf_count[:, None] > 0, leaf_sum / np.maximum(leaf_count, 1)[:, None],
                         np.nan)
    if np.ndim(y_tilde) == 1:
        leaf_mean = leaf_mean[:, 0]
    return PublicTree(
        axes=axes,
        feature=feature,
        threshold=np.array(threshold, dtype=float),
        left=np.array(left, dtype=np.int64),
        right=np.array(right, dtype=np.int64),
        lo=np.array(lo, dtype=float).reshape(len(feature), k),
        hi=np.array(hi, dtype=float).reshape(len(feature), k),
        leaf_id=leaf_id,
        leaf_count=leaf_count,
        leaf_label_mean=leaf_mean,
    )


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
