"""Input checks shared by every estimator: each error names the argument it is about."""

from __future__ import annotations

import numbers
import warnings

import numpy as np


class PrivacyWarning(UserWarning):
    """A public parameter was read off private data, so the release leaks beyond epsilon."""


def check_epsilon(epsilon, name="epsilon"):
    """Return epsilon as a float in (0, inf]; inf means no privacy (the non-private limit)."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise ValueError(f"{name} must be a positive number, got {epsilon!r}.")
    epsilon = float(epsilon)
    if np.isnan(epsilon) or epsilon <= 0:
        raise ValueError(f"{name} must be > 0 (np.inf means no privacy), got {epsilon!r}.")
    return epsilon


def check_rho(rho, name="rho"):
    """Return the label's share of the budget, a float strictly inside (0, 1)."""
    if isinstance(rho, bool) or not isinstance(rho, numbers.Real) or not 0 < rho < 1:
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got {rho!r}.")
    return float(rho)


def check_int(value, name, low=0, high=None):
    """Return value as an int in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}.")
    if value < low or (high is not None and value > high):
        bound = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be {bound}, got {value!r}.")
    return int(value)


def check_choice(value, name, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}.")
    return value


def check_features(X, name="X", box=True):
    """A finite 2-D float array; with box=True its entries must lie in the public box [0, 1]."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}.")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} must have at least one sample and one feature, got {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or inf; impute or drop those rows explicitly first.")
    if box and (X.min() < 0.0 or X.max() > 1.0):
        raise ValueError(
            f"{name} has values outside the public feature box [0, 1] "
            f"(min {X.min():.3g}, max {X.max():.3g}); scale with bounds fixed in advance, "
            "e.g. ldpviz.datasets.scale_to_box."
        )
    return X


def check_label_shape(y, n_samples, name="y", dtype=None):
    """``y`` as a 1-D array of ``n_samples`` entries (an (n, 1) column is flattened)."""
    y = np.asarray(y, dtype=dtype)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {y.shape}.")
    if y.shape[0] != n_samples:
        raise ValueError(f"{name} has {y.shape[0]} entries but X has {n_samples} rows.")
    return y


def check_target(y, n_samples, name="y"):
    y = check_label_shape(y, n_samples, name, dtype=float)
    if not np.all(np.isfinite(y)):
        raise ValueError(f"{name} contains NaN or inf.")
    return y


def check_mask(W, shape, name="W"):
    """The n x d privacy mask: 1 = the user protects that feature, 0 = publishes it."""
    W = np.asarray(W)
    if W.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)} (n_samples, n_features), "
                         f"got {W.shape}.")
    if W.dtype != bool:
        if not np.issubdtype(W.dtype, np.number):
            raise ValueError(f"{name} must be numeric 0/1 or boolean, got dtype {W.dtype}.")
        if not np.all((W == 0) | (W == 1)):
            raise ValueError(f"{name} must contain only 0 and 1 (1 = protected).")
    return W.astype(bool)


def check_feature_indices(indices, n_features, name="private_features"):
    idx = np.asarray(indices)
    if idx.ndim != 1 or (idx.size and not np.issubdtype(idx.dtype, np.integer)):
        raise ValueError(f"{name} must be a list of column indices, got {indices!r}.")
    if np.any(idx < 0) or np.any(idx >= n_features):
        raise ValueError(f"{name} has indices outside 0..{n_features - 1}: {indices!r}.")
    if len(np.unique(idx)) != len(idx):
        raise ValueError(f"{name} has repeated indices: {indices!r}.")
    return idx.astype(int)


def resolve_y_bound(y_bound, y, name="y_bound"):
    """Return the public label bound M; reading it off the labels warns that this leaks."""
    if y_bound is None:
        warnings.warn(
            f"{name} was not set, so it was read off the private labels (max |y|). "
            "That choice depends on private data and is not covered by the privacy "
            f"guarantee; pass {name} as a public bound fixed in advance.",
            PrivacyWarning,
            stacklevel=3,
        )
        bound = float(np.max(np.abs(y)))
        return bound if bound > 0 else 1.0
    if isinstance(y_bound, bool) or not isinstance(y_bound, numbers.Real) or not (
        np.isfinite(y_bound) and y_bound > 0
    ):
        raise ValueError(f"{name} must be a positive finite number, got {y_bound!r}.")
    return float(y_bound)
