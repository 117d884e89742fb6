"""The simulation of Section 5.1 and the public-box scaling every deployment needs."""

from __future__ import annotations

import numpy as np

from .._config import check_rows
from .._rng import as_generator
from .._validation import as_float_array, as_real_array, check_2d_finite, check_int

#: A public label bound for :func:`make_paper_regression`: f* lies in [0, 2.53] and the noise is
#: N(0, 1), so clipping at 3 keeps almost all of the signal at a moderate Laplace scale.
PAPER_Y_BOUND = 3.0


def paper_regression_function(X):
    """f*(x) = sin(x1) + sin(x2) + sin(x5), the regression function of Section 5.1.

    ``X`` : (n, d) array of finite numbers with d >= 5 (columns 0, 1 and 4 are read).
    """
    X = check_2d_finite(X, "X")
    if X.shape[1] < 5:
        raise ValueError(f"X needs at least 5 columns (f* reads x1, x2 and x5), got shape "
                         f"{X.shape}.")
    return np.sin(X[:, 0]) + np.sin(X[:, 1]) + np.sin(X[:, 4])


def make_paper_regression(n, random_state=None):
    """The simulation of Section 5.1: X ~ U[0, 1]^5, Y = sin X1 + sin X2 + sin X5 + N(0, 1).

    Returns ``(X, y)``. Y is unbounded: the estimators clip it to a public ``y_bound``
    (:data:`PAPER_Y_BOUND` is a sensible choice). The truth is
    :func:`paper_regression_function`.
    """
    n = check_int(n, "n", 1)
    check_rows("make_paper_regression", n, 72)  # X, y and f*'s temporaries, 8 bytes each
    rng = as_generator(random_state)
    X = rng.random((n, 5))
    y = paper_regression_function(X) + rng.standard_normal(n)
    return X, y


def scale_to_box(X, lower, upper, clip=True):
    """Min-max scale features to [0, 1] with public bounds ``lower``/``upper`` fixed in advance.

    Bounds must not be read off private data. With ``clip=True`` values outside the bounds are
    clipped to the box (post-processing of the user's own record).
    """
    columns = getattr(X, "columns", None)
    X = as_float_array(X, "X")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"X contains {int(np.sum(~np.isfinite(X)))} NaN or inf values; a "
                         "value outside every bound cannot be placed in the box.")
    bounds = []
    for name, value in (("lower", lower), ("upper", upper)):
        try:
            arr = np.broadcast_to(as_real_array(value, name, "one number or one per feature"),
                                  X.shape[1:])
        except ValueError as exc:
            if "broadcast" not in str(exc):
                raise
            raise ValueError(f"{name} must be one number or one per feature ({X.shape[1]}), "
                             f"got shape {np.shape(value)}.") from None
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite, got {value!r}.")
        bounds.append(arr)
    lower, upper = bounds
    if np.any(upper <= lower):
        bad = int(np.argmax(upper <= lower))
        label = f"{columns[bad]!r}" if columns is not None else f"{bad}"
        raise ValueError(f"upper must be larger than lower for every feature; feature {label} "
                         f"has lower {lower[bad]:g} and upper {upper[bad]:g}.")
    # Halves keep (X - lower) / (upper - lower) finite for bounds near the float limits.
    with np.errstate(over="ignore", under="ignore"):  # beyond the float range: +-inf, clipped
        Z = (X / 2 - lower / 2) / (upper / 2 - lower / 2)
    return np.clip(Z, 0.0, 1.0) if clip else Z
