"""What the partition and surface explorers show: one HistOfTree fit on the Section 5.1
simulation (the first ``s_star`` features private, the aligned case, unless a mask is given),
seen on a 2-D slice of the feature box.

The estimator stack (scikit-learn, scipy) loads on the first fit, not on import: the course's
first cells import this module through :mod:`ldpviz.viz.plots` and never fit a model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .._validation import as_float_array, check_int, check_real
from ..datasets import PAPER_Y_BOUND, paper_regression_function
from ..masks import aligned_mask, gamma_mask
from ._paper_setting import (
    MASK_ROWS_SHOWN,
    D,
    _cached_while_small,
    _check_fit_args,
    _paper_data,
)

if TYPE_CHECKING:
    from ..estimators import HistOfTree

GRID = 64  # points per axis of a 2-D slice: an edge at a multiple of 1/64 falls between points
N_POINTS_SHOWN = 200


def _check_slice_axes(x_axis, y_axis, d=D):
    check_int(x_axis, "x_axis", 0, d - 1)
    check_int(y_axis, "y_axis", 0, d - 1)


def _check_hold(hold, d=D):
    """The point a slice passes through, in the box [0, 1]^d: one value for all, or d."""
    if np.ndim(hold) == 0:
        return np.full(d, check_real(hold, "hold", low=0.0, high=1.0))
    at = as_float_array(hold, "hold")
    if at.shape != (d,) or not np.all((at >= 0) & (at <= 1)):  # NaN fails too
        raise ValueError(f"hold must be one number or {d} numbers in [0, 1], got {hold!r}.")
    return at


def slice_grid(x_axis, y_axis, hold, size=GRID, d=D):
    """Points of the 2-D slice: ``x_axis`` and ``y_axis`` vary over [0, 1], the other features
    are held at ``hold`` (one value in [0, 1] for all, or a point of length d).

    Returns ``(u, v, points)`` with ``points`` of shape (size * size, d), row-major in v.
    """
    _check_slice_axes(x_axis, y_axis, d)
    if x_axis == y_axis:
        raise ValueError("x_axis and y_axis must be different features.")
    u = (np.arange(size) + 0.5) / size
    points = np.tile(_check_hold(hold, d), (size * size, 1))
    uu, vv = np.meshgrid(u, u)
    points[:, x_axis] = uu.ravel()
    points[:, y_axis] = vv.ravel()
    return u, u.copy(), points


MASKS = ("aligned", "gamma")


@_cached_while_small(maxsize=8, n_position=1)
def privacy_mask(kind, n, s_star=2, gamma=1.0, d=D):
    """The mask W of a view (read-only): ``"aligned"`` (the first ``s_star`` features protected
    by everyone) or ``"gamma"`` (W_gamma of Section 5.1, every user protects their own)."""
    if kind not in MASKS:
        raise ValueError(f"mask must be one of {MASKS}, got {kind!r}.")
    W = aligned_mask(int(n), d, int(s_star)) if kind == "aligned" else gamma_mask(
        int(n), d, float(gamma))
    W.setflags(write=False)
    return W


class _Fit(NamedTuple):
    model: HistOfTree
    X: np.ndarray
    W: np.ndarray
    X_test: np.ndarray
    nonprivate: np.ndarray  # eq (3) per cell (the clipped mean label where a cell is empty)
    mse: float
    mse_nonprivate: float


@_cached_while_small(maxsize=16, n_position=5)  # the slice, axes and user change: no refit
def _fit(epsilon, s_star, depth, t, rho, n, rule, mechanism, data_seed, noise_seed,
         mask="aligned", gamma=1.0, cell_estimate="stable"):
    """One HistOfTree fit on the Section 5.1 sample and what every view needs from it.

    With ``mask="aligned"``, ``s_star`` features are private for everyone (s = s*); with
    ``mask="gamma"``, the users follow W_gamma and ``s_star`` is s, the number of histogram
    axes (the s most protected features, Section 3.3). ``cell_estimate`` is HistOfTree's:
    "paper" (eq 9 as printed) or "stable" (variance-aware). Cached: do not modify the result.
    """
    from ..estimators import HistOfTree  # the estimator stack loads with the first fit

    X, y, X_test = _paper_data(int(n), int(data_seed))
    W = privacy_mask(mask, n, s_star, gamma)
    model = HistOfTree(epsilon=epsilon, s=s_star, t=t, depth=depth, rule=rule,
                       mechanism=mechanism, rho=rho, y_bound=PAPER_Y_BOUND,
                       cell_estimate=cell_estimate, random_state=noise_seed).fit(X, y, W=W)
    clipped = np.clip(y, -PAPER_Y_BOUND, PAPER_Y_BOUND)
    means, _ = model.partition_.cell_means(X, clipped)
    means = np.nan_to_num(means, nan=float(clipped.mean()))
    truth = paper_regression_function(X_test)
    return _Fit(model, X, W, X_test, means,
                float(np.mean((model.predict(X_test) - truth) ** 2)),
                float(np.mean((means[model.partition_.cell_index(X_test)] - truth) ** 2)))


def _pinned(model):
    """Cells whose estimate sits on the clip at +-M (eq 9's ratio exploded there)."""
    return int(np.sum(np.abs(model.cell_values_) >= model.y_bound_))


def _meets_slice(lo, hi, at, x_axis, y_axis):
    """Cells (rows of the boxes lo, hi) that meet the 2-D slice through the point ``at``."""
    others = [a for a in range(lo.shape[1]) if a not in (x_axis, y_axis)]
    at = np.asarray(at, dtype=float)[others]
    return np.all((lo[:, others] <= at) & ((hi[:, others] > at) | (hi[:, others] >= 1)), axis=1)


def _outline(lo, hi, x_axis, y_axis):
    """Rectangles as one polyline with NaN breaks (fast to draw)."""
    x0, x1 = lo[:, x_axis], hi[:, x_axis]
    y0, y1 = lo[:, y_axis], hi[:, y_axis]
    nan = np.full_like(x0, np.nan)
    return (np.stack([x0, x1, x1, x0, x0, nan], axis=1).ravel(),
            np.stack([y0, y0, y1, y1, y0, nan], axis=1).ravel())


def _slice_edges(partition, x_axis, y_axis, hold):
    """Cell rectangles that meet the slice, as one polyline with NaN breaks (fast to draw)."""
    lo, hi = partition.cell_boxes()
    at = np.broadcast_to(np.asarray(hold, dtype=float), (partition.n_features,))
    meets = _meets_slice(lo, hi, at, x_axis, y_axis)
    xs, ys = _outline(lo[meets], hi[meets], x_axis, y_axis)
    return xs, ys, int(meets.sum())


def user_of_group(W, k):
    """The first user protecting exactly ``k`` features (None if nobody does)."""
    rows = np.flatnonzero(W.sum(axis=1) == k)
    return int(rows[0]) if len(rows) else None


def _user_cells(fit, user, x_axis, y_axis):
    """The potential cells V_i of ``user`` (Section 3.3) on the slice through their point."""
    partition, x, w = fit.model.partition_, fit.X[user], fit.W[user]
    lo, hi = partition.cell_boxes()
    potential = partition.potential_cells(x[None], w[None])[0]
    meets = _meets_slice(lo, hi, x, x_axis, y_axis)
    own = partition.cell_index(x[None])[0]
    edge_x, edge_y = _outline(lo[potential & meets], hi[potential & meets], x_axis, y_axis)
    own_x, own_y = _outline(lo[[own]], hi[[own]], x_axis, y_axis)
    return {"index": user, "protects": tuple(int(a) for a in np.flatnonzero(w)),
            "point": x.copy(), "n_potential": int(potential.sum()),
            "n_potential_in_slice": int((potential & meets).sum()),
            "edge_x": edge_x, "edge_y": edge_y, "own_x": own_x, "own_y": own_y}


def _mask_picture(W):
    """A strided sample of W's rows (users x features, as 0/1) and the sampled user indices."""
    rows = np.unique(np.linspace(0, len(W) - 1, MASK_ROWS_SHOWN).astype(int))
    return W[rows].astype(int), rows


def partition_view(epsilon=4.0, s_star=2, depth=2, t=2, rho=0.5, n=10_000, x_axis=0, y_axis=4,
                   hold=0.5, rule="max-edge", mechanism="grr", data_seed=0, noise_seed=0,
                   mask="aligned", gamma=1.0, user=None, cell_estimate="stable"):
    """The combined partition on a 2-D slice, coloured by the privatised estimate.

    ``mask="aligned"``: the first ``s_star`` features are private for every user (eqs 4-6).
    ``mask="gamma"``: personalized privacy with W_gamma (eqs 8-9): ``s_star`` is then s, the
    number of histogram axes, which are the s most protected features (Section 3.3). ``user``
    (personalized case only) is a number k of protected features: the first user protecting
    exactly k features is shown with their potential cells V_i, and the slice passes through
    their point instead of ``hold``. ``cell_estimate``: "stable" (HistOfTree's default, the
    variance-aware estimate) or "paper" (eq 9 as printed, which explodes in sparse cells).
    ``rho``: the label's share of epsilon, or "auto" (HistOfTree's default public rule).

    Returns a dict with ``rho`` (the share used), ``u``, ``v`` (grid coordinates), ``z`` (f~
    on the slice, shape (len(v), len(u))), ``edge_x``, ``edge_y`` (cell edges meeting the
    slice), ``point_x``,
    ``point_y`` (a sample of users, rows ``point_rows`` of the sample: published coordinates
    exact, a protected coordinate drawn uniformly at random because the server never sees
    it), ``x_private``, ``y_private``
    (histogram axis or not), ``hist_axes``, ``tree_axes``, ``protect_share`` (share of users
    protecting each feature), ``mask_image``, ``mask_rows`` (a strided sample of W),
    ``slice_at`` (the point the slice passes through), ``user`` (None, or a dict with the
    user's ``index``, ``protects``, ``point``, ``n_potential``, ``n_potential_in_slice``, the
    outline ``edge_x``, ``edge_y`` of their potential cells in the slice and ``own_x``,
    ``own_y`` of their own cell), ``n_cells``, ``cells_in_slice``, ``n_pinned`` (cells whose
    estimate is clipped to +-M), ``mse`` (against f* on a test set) and ``mse_nonprivate``
    (eq 3 on the same partition).
    """
    _check_fit_args(n, s_star, data_seed, noise_seed)
    _check_slice_axes(x_axis, y_axis)
    hold = _check_hold(hold)
    fit = _fit(epsilon, s_star, depth, t, rho, n, rule, mechanism, data_seed, noise_seed, mask,
               gamma, cell_estimate)
    model, X, W = fit.model, fit.X, fit.W
    chosen = None
    if user is not None and mask == "gamma":
        index = user_of_group(W, user)
        chosen = None if index is None else _user_cells(fit, index, x_axis, y_axis)
    at = chosen["point"] if chosen else hold
    u, v, grid = slice_grid(x_axis, y_axis, at)
    z = model.predict(grid).reshape(len(v), len(u))
    edge_x, edge_y, in_slice = _slice_edges(model.partition_, x_axis, y_axis, at)
    # Users drawn: published coordinates exact; a protected one at random (fixed placement)
    rows = np.unique(np.linspace(0, len(X) - 1, N_POINTS_SHOWN).astype(int))
    hidden = np.random.default_rng(1).random((len(rows), 2))
    point_x = np.where(W[rows, x_axis], hidden[:, 0], X[rows, x_axis])
    point_y = np.where(W[rows, y_axis], hidden[:, 1], X[rows, y_axis])
    private = set(model.hist_axes_)
    image, image_rows = _mask_picture(W)
    return {
        "rho": model.rho_, "u": u, "v": v, "z": z, "edge_x": edge_x, "edge_y": edge_y,
        "point_x": point_x, "point_y": point_y, "point_rows": rows,
        "x_private": x_axis in private, "y_private": y_axis in private,
        "hist_axes": tuple(model.hist_axes_), "tree_axes": tuple(model.tree_axes_),
        "protect_share": W.mean(axis=0), "mask_image": image, "mask_rows": image_rows,
        "slice_at": at, "user": chosen,
        "n_cells": model.n_cells_, "cells_in_slice": in_slice, "n_pinned": _pinned(model),
        "mse": fit.mse, "mse_nonprivate": fit.mse_nonprivate,
    }


def surface_view(epsilon=4.0, s_star=2, depth=2, t=2, n=10_000, x_axis=0, y_axis=4, hold=0.5,
                 rho=0.5, rule="max-edge", mechanism="grr", data_seed=0, noise_seed=0,
                 mask="aligned", gamma=1.0, cell_estimate="stable"):
    """The truth f*, the privatised surface f~ and the non-private partition estimate (eq 3).

    All three on the same 2-D slice and, for the two estimates, the same partition. ``mask``,
    ``gamma`` and ``s_star`` as in :func:`partition_view` (``mask="gamma"``: the personalized
    protocol of Section 3.3 with s = ``s_star`` histogram axes) and ``cell_estimate`` as in
    :func:`partition_view`. Returns a dict with ``u``, ``v``, ``truth``, ``private``,
    ``nonprivate`` (each (len(v), len(u))), ``mse`` and ``mse_nonprivate`` against f* on a test
    set, ``n_cells``, ``n_pinned``, ``hist_axes``, ``tree_axes`` and ``protect_share``.
    A new ``noise_seed`` redraws only the privacy noise: same users, same data.
    """
    _check_fit_args(n, s_star, data_seed, noise_seed)
    _check_slice_axes(x_axis, y_axis)
    _check_hold(hold)
    fit = _fit(epsilon, s_star, depth, t, rho, n, rule, mechanism, data_seed, noise_seed, mask,
               gamma, cell_estimate)
    model = fit.model
    u, v, grid = slice_grid(x_axis, y_axis, hold)
    shape = (len(v), len(u))
    return {
        "u": u, "v": v,
        "truth": paper_regression_function(grid).reshape(shape),
        "private": model.predict(grid).reshape(shape),
        "nonprivate": fit.nonprivate[model.partition_.cell_index(grid)].reshape(shape),
        "mse": fit.mse, "mse_nonprivate": fit.mse_nonprivate, "n_cells": model.n_cells_,
        "n_pinned": _pinned(model), "hist_axes": tuple(model.hist_axes_),
        "tree_axes": tuple(model.tree_axes_),
        "protect_share": fit.W.mean(axis=0),
    }
