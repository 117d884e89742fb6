"""Data: the paper's simulation (Section 5.1) and helpers to put features in the public box."""

from __future__ import annotations

import numpy as np

from ._rng import as_generator
from ._validation import check_int

#: A public label bound for :func:`make_paper_regression`: f* lies in [0, 2.53] and the noise is
#: N(0, 1), so clipping at 3 keeps almost all of the signal at a moderate Laplace scale.
PAPER_Y_BOUND = 3.0


def paper_regression_function(X):
    """f*(x) = sin(x1) + sin(x2) + sin(x5), the regression function of Section 5.1."""
    X = np.asarray(X, dtype=float)
    return np.sin(X[:, 0]) + np.sin(X[:, 1]) + np.sin(X[:, 4])


def make_paper_regression(n, random_state=None):
    """The simulation of Section 5.1: X ~ U[0, 1]^5, Y = sin X1 + sin X2 + sin X5 + N(0, 1).

    Returns ``(X, y)``. Y is unbounded: the estimators clip it to a public ``y_bound``
    (:data:`PAPER_Y_BOUND` is a sensible choice). The truth is
    :func:`paper_regression_function`.
    """
    n = check_int(n, "n", 1)
    rng = as_generator(random_state)
    X = rng.random((n, 5))
    y = paper_regression_function(X) + rng.standard_normal(n)
    return X, y


def scale_to_box(X, lower, upper, clip=True):
    """Min-max scale features to [0, 1] with public bounds ``lower``/``upper`` fixed in advance.

    Bounds must not be read off private data. With ``clip=True`` values outside the bounds are
    clipped to the box (post-processing of the user's own record).
    """
    X = np.asarray(X, dtype=float)
    lower = np.broadcast_to(np.asarray(lower, dtype=float), X.shape[1:])
    upper = np.broadcast_to(np.asarray(upper, dtype=float), X.shape[1:])
    if np.any(upper <= lower):
        raise ValueError("upper must be larger than lower for every feature.")
    Z = (X - lower) / (upper - lower)
    return np.clip(Z, 0.0, 1.0) if clip else Z
