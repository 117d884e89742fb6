"""Helpers shared by the baselines: Laplace draws and sums, and the CART-tree base class."""

from __future__ import annotations

import numpy as np
from sklearn.tree import DecisionTreeRegressor

from .._base import SemiFeatureRegressor
from .._config import check_budget, get_config
from .._validation import (
    check_int,
)

# Cap on the entries of per-chunk (users x cells) arrays: bounded memory at any n.
_CHUNK_ENTRIES = 1 << 22


# Bytes per feature entry while a CART baseline fits: the release and scikit-learn's copies.
_TREE_BYTES = 40

# Bytes per (user, cell) entry of the per-user arrays privatize() materialises: two float
# messages, their noise and the one-hot indicator (checked against the budget's max_bytes).
_PRIVATIZE_BYTES = 33


#: Largest max_depth, min_samples_leaf and k scikit-learn's tree (C integers) can take.
_MAX_INT = 2**31 - 1


def _check_max_depth(max_depth):
    return None if max_depth is None else check_int(max_depth, "max_depth", 1, _MAX_INT)


def _laplace_noise(scale, size, rng):
    """Laplace(0, scale) draws; ``scale`` may be an array (one per user), 0 means no noise."""
    scale = np.asarray(scale, dtype=float)
    return rng.laplace(0.0, 1.0, size=size) * scale


def _laplace_sum(n, scale, size, rng):
    """Exact draw of the sum of ``n`` iid Laplace(0, scale) variables, ``size`` times.

    A Laplace(b) variable is the difference of two independent Exponential(b) ones, so the sum
    of n of them is Gamma(n, b) - Gamma(n, b): one draw per cell instead of n.
    """
    if n == 0 or scale == 0.0:
        return np.zeros(size)
    return rng.gamma(n, scale, size=size) - rng.gamma(n, scale, size=size)


def _tree_seed(rng):
    """A seed for scikit-learn's tree (it breaks ties between features at random)."""
    return int(rng.integers(0, 2**31 - 1))


class _TreeBaseline(SemiFeatureRegressor):
    """Shared parts of the baselines that end in a scikit-learn ``DecisionTreeRegressor``."""

    def _check_tree_params(self):
        # The checked Python ints are what the tree gets (not the numpy scalars passed in).
        self._max_depth = _check_max_depth(self.max_depth)
        self._min_samples_leaf = check_int(self.min_samples_leaf, "min_samples_leaf", 1, _MAX_INT)

    def _fit_tree(self, Xf, target, rng):
        # scikit-learn's tree copies and sorts the features: a few copies of X in all.
        check_budget(type(self).__name__, "n_samples", len(Xf),
                     {"max_bytes": _TREE_BYTES * Xf.size},
                     fits=get_config()["max_bytes"] // (_TREE_BYTES * max(Xf.shape[1], 1)))
        self.tree_ = DecisionTreeRegressor(max_depth=self._max_depth,
                                           min_samples_leaf=self._min_samples_leaf,
                                           random_state=_tree_seed(rng))
        self.tree_.fit(Xf, target)

    def _finish(self, values):
        clip = getattr(self, "clip", False)
        return np.clip(values, -self.y_bound_, self.y_bound_) if clip else values

    def predict(self, X):
        """Predicted label: the tree's leaf value (clipped to [-M, M] if ``clip``)."""
        X = self._check_predict_input(X)
        return self._finish(self.tree_.predict(self._tree_input(X)))

    def _tree_input(self, X):
        return X
