"""Input checks of the BCDP mechanisms and estimators (:mod:`ldpviz.bcdp`): data in the box
[-1, 1]^d of the BCDP paper, budgets and schedules, priors and channels."""

from __future__ import annotations

import numpy as np

from .._validation import (
    as_real_array,
    check_2d_finite,
    check_epsilon,
    check_label_shape,
    check_real,
    check_simulable,
)

BCDP_WEIGHTS = ("paper", "inverse_variance")


def check_alpha(alpha, name="alpha"):
    """A budget in [0, inf]: 0 releases nothing, inf is the non-private limit."""
    return check_real(alpha, name, low=0.0, allow_inf=True)


#: Largest overall budget: beyond about 1e154 the schedules' products overflow (the means came
#: out inf); long before, the l2 mechanism's noise is below double precision.
MAX_BCDP_EPSILON = 1e100
#: Smallest public radius of the least-squares ball: below about 1e-290 its arithmetic
#: underflows (the solver met NaN).
MIN_RADIUS = 1e-100


def check_finite_epsilon(epsilon, name="epsilon"):
    """The overall LDP budget: positive and finite (Theorem 2 spends it in finite steps), not so
    large that the schedules overflow, and not so small that double precision loses the l2
    mechanism's noise."""
    epsilon = check_epsilon(epsilon, name)
    if not epsilon <= MAX_BCDP_EPSILON:
        raise ValueError(f"{name} must be finite and at most {MAX_BCDP_EPSILON:g} for BCDP "
                         f"mechanisms (the noise is below double precision long before), got "
                         f"{epsilon!r}.")
    return check_simulable(epsilon, name=name)


def check_radius(radius, name="radius"):
    """The public radius of the least-squares ball: finite and at least :data:`MIN_RADIUS`."""
    radius = check_real(radius, name, low=0.0, low_open=True)
    if radius < MIN_RADIUS:
        raise ValueError(f"{name}={radius!r} is below {MIN_RADIUS:g}, where the ball's "
                         f"arithmetic underflows; rescale the problem so that {name} >= "
                         f"{MIN_RADIUS:g}.")
    return radius


def check_signed_labels(y, n, name="y"):
    """Labels of Assumption 2: a finite 1-D array of ``n`` numbers in [-1, 1] (text, dates and
    other kinds refused as for every estimator)."""
    y = check_label_shape(y, n, name, dtype=float)
    if not np.all(np.isfinite(y)) or np.any(np.abs(y) > 1.0):
        raise ValueError(f"{name} must be finite with values in [-1, 1] (Assumption 2).")
    return y


def check_q(q, name="q"):
    return check_real(q, name, low=0.0, high=1.0)


def check_zeta(zeta, q, name="zeta"):
    """zeta in (0, 1]; None is the heuristic ``(1 + q) / 2`` of Appendix B.3."""
    if zeta is None:
        return (1.0 + q) / 2.0
    return check_real(zeta, name, low=0.0, high=1.0, low_open=True)


def check_deltas(deltas, n_features=None, name="deltas"):
    """Per-coordinate BCDP demands: 1-D, >= 0 (inf allowed), non-decreasing. A single number
    is the same demand for each of ``n_features`` coordinates."""
    what = "a non-empty 1-D array of budgets"
    arr = as_real_array(deltas, name, what)
    if arr.ndim == 0 and n_features is not None:
        arr = np.full(n_features, float(arr))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be {what}, got {deltas!r}.")
    if n_features is not None and arr.size != n_features:
        raise ValueError(f"{name} has {arr.size} entries but the data have {n_features} "
                         "coordinates; give one delta per coordinate.")
    if np.any(np.isnan(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must contain numbers >= 0 (np.inf: no coordinate demand).")
    if np.any(arr[1:] < arr[:-1]):  # not np.diff: inf - inf is nan
        raise ValueError(f"{name} must be non-decreasing: order the coordinates from the most to "
                         "the least sensitive (Section 4 of the BCDP paper).")
    return arr


def check_schedule(c, n_features=None, name="c"):
    """Cumulative budgets c_1 <= ... <= c_d of Mechanism 1, finite and >= 0."""
    arr = as_real_array(c, name, "a non-empty 1-D array of cumulative budgets")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}.")
    if n_features is not None and arr.size != n_features:
        raise ValueError(f"{name} has {arr.size} entries but the data have {n_features} "
                         "coordinates.")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(np.diff(arr) < 0):
        raise ValueError(f"{name} must be finite, >= 0 and non-decreasing (cumulative budgets "
                         f"of Mechanism 1), got {arr!r}.")
    return arr


def check_signed_box(X, name="X"):
    """A finite (n, d) array with entries in the paper's box [-1, 1]."""
    X = check_2d_finite(X, name)
    if np.any(np.abs(X) > 1.0):
        raise ValueError(f"{name} has {int(np.sum(np.abs(X) > 1.0))} values outside the box "
                         f"[-1, 1] of the BCDP paper (min {X.min():.3g}, max {X.max():.3g}); "
                         "rescale with public bounds.")
    return X


def check_weights(weights, name="weights"):
    try:
        known = bool(weights in BCDP_WEIGHTS)
    except (TypeError, ValueError):  # an array compared elementwise
        known = False
    if not known:
        raise ValueError(f"{name} must be one of {list(BCDP_WEIGHTS)}, got {weights!r}.")
    return weights


def check_prior(prior, name="prior"):
    prior = np.asarray(prior, dtype=float)
    if prior.ndim == 0 or prior.size == 0:
        raise ValueError(f"{name} must be a joint pmf with one axis per coordinate.")
    if not np.all(np.isfinite(prior)) or np.any(prior < 0) or abs(prior.sum() - 1.0) > 1e-9:
        raise ValueError(f"{name} must be non-negative and sum to 1 (sum {prior.sum():.6g}).")
    return prior


def check_channel(channel, input_shape=None, name="channel"):
    channel = np.asarray(channel, dtype=float)
    if channel.ndim < 2:
        raise ValueError(f"{name} must have shape input_shape + (n_outputs,), got "
                         f"{channel.shape}.")
    if input_shape is not None and channel.shape[:-1] != tuple(input_shape):
        raise ValueError(f"{name} has input shape {channel.shape[:-1]} but the prior has shape "
                         f"{tuple(input_shape)}; the last axis of {name} indexes outputs.")
    if not np.all(np.isfinite(channel)) or np.any(channel < 0):
        raise ValueError(f"{name} must contain probabilities >= 0.")
    if np.max(np.abs(channel.sum(axis=-1) - 1.0)) > 1e-9:
        raise ValueError(f"{name} rows (last axis) must sum to 1: P(output | input).")
    return channel
