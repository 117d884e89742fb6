"""What each explorer shows, computed as pure functions: state in, plain arrays out.

``widgets.py`` and ``plots.py`` only draw what these return, and the tests call them directly,
so every number on screen comes from the package's estimators and formulas. All views use the
Section 5.1 simulation (d = 5, f* = sin x1 + sin x2 + sin x5) with the first ``s_star``
features private (the aligned case), unless a mask is given.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache, wraps
from typing import NamedTuple

import numpy as np

from .. import bcdp, theory
from .._config import check_sizes
from .._index import bincount
from .._validation import (
    as_float_array,
    check_int,
    check_real,
    check_rho,
    check_simulable,
    check_target,
    resolve_y_bound,
)
from ..datasets import PAPER_Y_BOUND, make_paper_regression, paper_regression_function
from ..estimators import HistOfTree
from ..frequency_oracles import ORACLES, best_oracle, olh_hash_range, oracle_variance
from ..masks import aligned_mask, gamma_mask
from ..mechanisms import (
    grr_probabilities,
    laplace_log_density,
    laplace_scale,
    rr_probabilities,
    split_budget,
)
from ..theory._objective import _LOG2_MAX_T

D = 5
GRID = 64  # points per axis of a 2-D slice: an edge at a multiple of 1/64 falls between points
N_TEST = 2000
N_POINTS_SHOWN = 200
MASK_ROWS_SHOWN = 200  # rows of W drawn as an image; the mask is sorted, so a strided sample
MAX_CELLS_SHOWN = 1_000_000  # mechanism_view's k: its GRR law is returned cell by cell
EPSILON_GRID = np.exp2(np.linspace(-2, 6, 33))  # 0.25 .. 64 for bound-vs-epsilon curves


#: Views on more users than this are computed afresh, not cached: caches of samples, masks and
#: fits at any n could hold gigabytes (16 fits of 10 million users: about 8 GB).
CACHE_MAX_USERS = 200_000


def _cached_while_small(maxsize, n_position):
    """``lru_cache(maxsize)`` for calls on at most CACHE_MAX_USERS users (the argument ``n``,
    at ``n_position`` or by name); larger calls are computed afresh every time."""
    def decorate(function):
        cached = lru_cache(maxsize=maxsize)(function)

        @wraps(function)
        def call(*args, **kwargs):
            n = kwargs["n"] if "n" in kwargs else args[n_position]
            try:
                small = bool(n <= CACHE_MAX_USERS)
            except TypeError:  # not a number: the function itself refuses it by name
                small = False
            return (cached if small else function)(*args, **kwargs)

        call.cache_clear = cached.cache_clear
        return call
    return decorate


@_cached_while_small(maxsize=16, n_position=0)
def _paper_data(n, seed):
    """Cached Section 5.1 sample and test set (read-only arrays)."""
    X, y = make_paper_regression(n, random_state=seed)
    X_test, _ = make_paper_regression(N_TEST, random_state=seed + 10_000)
    for a in (X, y, X_test):
        a.setflags(write=False)
    return X, y, X_test


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _decimal(value):
    return f"{value:.10f}".rstrip("0").rstrip(".")


#: Most labels on a log axis (24 labels 13 px apart overlapped on the trade-off explorer's 46
#: decades), and the decades between labels to choose from.
MAX_LOG_TICKS = 11
LOG_TICK_STEPS = (1, 2, 5, 10, 20, 50, 100, 200)


def log_ticks(values):
    """Tick values and labels for a log axis showing ``values`` (positive ones count).

    Spans of 1.5 decades or more: powers of ten only, every decade or every k-th (k = 2, 5, 10,
    20, ...) so that at most about ten are labelled (a panel a few hundred pixels high has room
    for that many), written as decimals when all lie in [0.001, 10000], else as 10ⁿ. Shorter
    spans: 1, 2, 3, 5 times powers of ten, written as decimals. Never the SI suffixes (μ, n, B,
    T) plotly mixes in.
    """
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    if not len(values):
        return [1.0], ["1"]
    low, high = np.log10(values.min()), np.log10(values.max())
    lo, hi = np.floor(low), np.ceil(high)
    if high - low >= 1.5:
        step = next(k for k in LOG_TICK_STEPS if (hi - lo) / k <= MAX_LOG_TICKS - 2)
        powers = np.arange(np.floor(lo / step) * step, hi + step, step)
        powers = powers[(powers >= -320) & (powers <= 308)]  # 10.0**k is a float
        ticks = [10.0**k for k in powers]
        if all(-3 <= k <= 4 for k in powers):
            return ticks, [_decimal(t) for t in ticks]
        return ticks, ["10" + str(int(k)).translate(_SUPERSCRIPT) for k in powers]
    ticks = [m * 10.0**k for k in np.arange(lo, hi + 1) for m in (1, 2, 3, 5)
             if m * 10.0**k <= 10.0**hi]  # the decades around the values: at most 9 labels
    return ticks, [_decimal(t) if t >= 1e-4 else f"{t:.0e}" for t in ticks]


def _read_only(out):
    """Make the arrays of a cached result read-only (a caller cannot corrupt the cache)."""
    for value in out.values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return out


def _check_slice_axes(x_axis, y_axis, d=D):
    check_int(x_axis, "x_axis", 0, d - 1)
    check_int(y_axis, "y_axis", 0, d - 1)


def _check_fit_args(n, s_star, data_seed, noise_seed=0, d=D):
    """A view's sizes and seeds, refused with the argument named before anything is built
    (``n`` may be a float, as a log slider gives it; it is truncated)."""
    check_real(n, "n", low=2)
    check_int(s_star, "s_star", 0, d)
    check_int(data_seed, "data_seed", 0)
    check_int(noise_seed, "noise_seed", 0)


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


@lru_cache(maxsize=32)
def _gamma_profile(n, d, gamma):
    return theory.mask_profile(gamma_mask(n, d, gamma))


def _check_theory_args(n, s, d):
    check_real(n, "n", low=2)
    d = check_int(d, "d", 1)
    check_int(s, "s", 0, d)


@lru_cache(maxsize=128)  # sliders revisit settings: a revisit is instant (do not modify)
def lambda_view(gamma=1.0, s=1, depth=4, n=10_000, epsilon=4.0, d=D):
    """The mask W_gamma, delta(p), the objective (11) against p, and lambda* (eqs 11-13).

    Returns a dict with ``mask`` (a strided sample of W's rows, users x features, as 0/1),
    ``mask_rows`` (their user indices), ``hist_axes`` (the s most protected features, the
    histogram axes), ``p``, ``delta`` (eq 12), ``term1``, ``term2``, ``total`` (eq 11),
    ``p_star``, ``lambda_star``, ``lambda_at_depth`` (log2 delta(depth) / depth),
    ``exponent`` (eq 13 with lambda*) and ``share_protecting`` (share of users protecting
    k = 0..d features).
    """
    _check_theory_args(n, s, d)
    check_int(depth, "depth", 0, _LOG2_MAX_T)  # the depths the theory searches (p_max)
    profile = _gamma_profile(int(n), int(d), float(gamma))
    W = gamma_mask(int(n), int(d), float(gamma))
    rows = np.unique(np.linspace(0, n - 1, MASK_ROWS_SHOWN).astype(int))
    p = np.arange(1, theory.default_p_max(n) + 1, dtype=float)
    curve = theory.objective_curve(profile, s, n, epsilon, p=p)
    p_star, lam_star = theory.best_depth(profile, s, n, epsilon)
    return _read_only({
        "mask": W[rows].astype(int), "mask_rows": rows,
        "hist_axes": tuple(int(a) for a in profile.ranking[:s]),
        "p": p, "delta": np.exp2(profile.log2_delta(s, p)),
        "term1": curve.term1, "term2": curve.term2, "total": curve.total,
        "p_star": p_star, "lambda_star": lam_star,
        "lambda_at_depth": float(profile.log2_delta(s, depth) / depth) if depth > 0 else 0.0,
        "exponent": float(theory.upper_rate_exponent(d, s, lam_star)),
        "share_protecting": bincount(W.sum(axis=1), minlength=d + 1) / n,
    })


@lru_cache(maxsize=64)  # they do not depend on the epsilon chosen: computed once per (n, s)
def _bounds_in_epsilon(n, d, s, gamma):
    """Upper bound (13), each epsilon with its own lambda*, and lower bound (10) on
    EPSILON_GRID (read-only)."""
    profile = _gamma_profile(n, d, gamma)
    lams = np.array([theory.best_depth(profile, s, n, e)[1] for e in EPSILON_GRID])
    upper = theory.upper_bound(n, EPSILON_GRID, d, s, lams)
    lower = theory.lower_bound(n, EPSILON_GRID, d, s)
    for a in (upper, lower):
        a.setflags(write=False)
    return upper, lower


@lru_cache(maxsize=128)  # sliders revisit settings: a revisit is instant (do not modify)
def tradeoff_view(epsilon=2.0, s=1, gamma=1.0, n=10_000, d=D):
    """The bound trade-offs of Section 4: terms of (11) vs p, rate vs s, bounds vs epsilon.

    Returns a dict with ``p``, ``term1``, ``term2``, ``total``, ``p_star`` (for the given s);
    ``s_values`` (0..d), ``exponents`` (eq 13 at each s with its own lambda*; s = d is the fully
    private rate), ``s_selected``, ``p_selected`` (the minimiser of (15));
    ``epsilons``, ``upper`` (eq 13 at each epsilon with that epsilon's lambda*) and ``lower``
    (eq 10 with s* = s), both up to constants; ``epsilon_max``, the order of the largest
    epsilon for which Theorem 4.3 claims (13), ``(n / log n)^{s / (1 + d - s)}`` (constants
    dropped; beyond it the non-private term can dominate); and ``lambda_star`` at the given
    epsilon.
    """
    _check_theory_args(n, s, d)
    profile = _gamma_profile(int(n), int(d), float(gamma))
    p = np.arange(1, theory.default_p_max(n) + 1, dtype=float)
    curve = theory.objective_curve(profile, s, n, epsilon, p=p)
    p_star, lam_star = theory.best_depth(profile, s, n, epsilon)
    exponents = [theory.upper_rate_exponent(d, k, theory.best_depth(profile, k, n, epsilon)[1])
                 for k in range(d)] + [theory.upper_rate_exponent(d, d, 0.0)]
    s_sel, p_sel = theory.select_s_p(profile, n, epsilon)
    upper, lower = _bounds_in_epsilon(int(n), int(d), int(s), float(gamma))
    return _read_only({
        "p": p, "term1": curve.term1, "term2": curve.term2, "total": curve.total,
        "p_star": p_star, "lambda_star": lam_star,
        "s_values": np.arange(d + 1), "exponents": np.array(exponents),
        "s_selected": s_sel, "p_selected": p_sel,
        "epsilons": EPSILON_GRID,
        "upper": upper, "lower": lower,
        "epsilon_max": float((n / np.log(n)) ** (s / (1 + d - s))),
    })


@lru_cache(maxsize=128)
def bcdp_view(epsilon=2.0, delta=0.2, k=2, q=0.01, zeta=0.5, n=2000, d=10):
    """:func:`ldpviz.bcdp.bcdp_explorer_data` (the Figure 3 setting of the BCDP paper) at one
    setting, cached: sliders revisit settings. Do not modify the result."""
    return bcdp.bcdp_explorer_data(epsilon=epsilon, delta=delta, k=k, q=q, zeta=zeta, n=n, d=d)


def mechanism_view(epsilon=1.0, rho=0.5, y_bound=1.0, k=6, labels=(-1.0, 1.0)):
    """What one user's release looks like (eqs 4, 5, 16), for the first notebook.

    Returns ``grid`` and ``density`` (a dict from true label to the density of the released
    label on the grid), the Laplace ``scale``, ``grr_probs`` (probability of reporting each of
    k cells, the true one first), ``rr_keep`` (probability a randomized-response bit is kept),
    and the budget split ``epsilon_label``, ``epsilon_cells``.
    """
    k = check_int(k, "k", 1, MAX_CELLS_SHOWN)  # one probability per cell is returned
    rho = check_rho(rho)
    labels = check_target(labels, np.size(labels), "labels")
    if not labels.size:
        raise ValueError("labels must hold at least one label, got none.")
    y_bound = resolve_y_bound(y_bound, labels)
    if check_simulable(epsilon, (rho, 1.0 - rho), y_bound, rho) == np.inf:
        raise ValueError("epsilon must be finite here: with no privacy the label is sent as "
                         "is and has no density to draw, got inf.")
    eps_label, eps_cells = split_budget(epsilon, rho)
    scale = laplace_scale(eps_label, y_bound)
    reach = y_bound + 6 * scale
    grid = np.linspace(-reach, reach, 401)
    labels = tuple(labels.tolist())
    density = {y0: np.exp(laplace_log_density(grid, y0, eps_label, y_bound)) for y0 in labels}
    p_true, p_other = grr_probabilities(k, eps_cells)
    return {
        "grid": grid, "density": density, "scale": scale, "labels": labels,
        "grr_probs": np.r_[p_true, np.full(k - 1, p_other)],
        "rr_keep": rr_probabilities(eps_cells)[0],
        "epsilon_label": eps_label, "epsilon_cells": eps_cells,
    }


#: Small grids for the live comparison (the paper's grids are in ldpviz.reproduce.paper).
COMPARISON_GRIDS = {
    "HistOfTree": {"depth": (0, 1, 2, 3), "t": (1, 2)},
    "Hist": {"t": (1, 2)},
    "KRR": {"k": (2, 3), "max_depth": (3,)},
    "ParDT": {"max_depth": (2, 4)},
    "HistOfTree s=0": {"depth": (0, 1, 2, 3, 4)},
    "LabelDT": {"max_depth": (1, 3, 5), "min_samples_leaf": (100,)},
    "DT": {"max_depth": (6,), "min_samples_leaf": (100,)},
}
N_COMPARISON_SETTINGS = sum(math.prod(len(v) for v in g.values()) for g in
                        COMPARISON_GRIDS.values())
LABEL_LDP_NOTE = ("Label LDP twice: HistOfTree with every feature public (s = 0) and the "
                  "paper's LabelDT; CART on noisy labels makes end-cut splits, so LabelDT "
                  "can lose to semi-feature LDP while the same estimator with s = 0 does not.")


#: One fit of the comparison takes about 0.8 us per user (measured), 80 of the budget's report
#: entries (about 10 ns each); each replication keeps its sample (D + 1 floats a user) and test set.
_COMPARISON_ENTRIES_PER_USER = 80


def _comparison_sizes(n, reps):
    return {"max_bytes": 8 * reps * ((D + 1) * n + D * N_TEST),
            "max_report_entries": _COMPARISON_ENTRIES_PER_USER * N_COMPARISON_SETTINGS * reps * n}


def _check_comparison_size(n, reps):
    """Refuse ``reps`` replications of every method on ``n`` users beyond the budget, naming
    reps and a value that fits, or n when not even one replication fits."""
    check_sizes("comparison_view", {"reps": reps, "n": n}, _comparison_sizes, ("reps", "n"),
                n_report="n")


def _comparison_model(name, epsilon, s_star, params, seed):
    """One method of :func:`comparison_view` and the mask it is fitted with (None: no W)."""
    from ..baselines import DT, KRR, Hist, LabelDT, ParDT

    private = {"epsilon": epsilon, "y_bound": PAPER_Y_BOUND, "random_state": seed}
    if name == "DT":
        return DT(**params, random_state=seed), None
    if name == "LabelDT":  # label LDP: every feature in the clear
        return LabelDT(**private, **params), None
    if name == "HistOfTree s=0":  # label LDP with the semi-feature estimator
        return HistOfTree(s=0, **private, **params), "public"
    if name == "HistOfTree":
        return HistOfTree(s=s_star, **private, **params), "aligned"
    return {"Hist": Hist, "KRR": KRR, "ParDT": ParDT}[name](**private, **params), "aligned"


@lru_cache(maxsize=256)  # sliders revisit settings: a revisit is instant
def comparison_view(epsilon=4.0, s_star=2, n=3000, reps=2, data_seed=0):
    """Every method of Figure 2 at one (epsilon, s*): best MSE over a small grid (a live
    miniature of Figure 2(a); :func:`ldpviz.reproduce.paper.figure2` runs the real thing).

    Each method sees the same ``reps`` samples (paired); the grid point with the lowest mean
    MSE against f* is kept. Label LDP appears twice (:data:`LABEL_LDP_NOTE`). Returns a dict
    with ``methods``, ``mse`` and ``se`` (arrays in that order) and ``best`` (the chosen
    parameters per method). Results are cached: do not modify them.
    """
    _check_fit_args(n, s_star, data_seed)
    reps = check_int(reps, "reps", 1)
    _check_comparison_size(int(n), reps)
    samples = [_paper_data(int(n), int(data_seed) + r) for r in range(reps)]
    masks = {"aligned": aligned_mask(int(n), D, s_star), "public": np.zeros((int(n), D), bool),
             None: None}
    mse, se, best = [], [], {}
    for name, grid in COMPARISON_GRIDS.items():
        scores = {}
        for values in itertools.product(*grid.values()):
            params = dict(zip(grid, values, strict=True))
            errors = []
            for r, (X, y, X_test) in enumerate(samples):
                model, mask = _comparison_model(name, epsilon, s_star, params, r)
                if mask is None:
                    model.fit(X, y)
                else:
                    model.fit(X, y, W=masks[mask])
                errors.append(np.mean((model.predict(X_test)
                                       - paper_regression_function(X_test)) ** 2))
            scores[values] = (np.mean(errors), np.std(errors) / np.sqrt(len(errors)))
        values = min(scores, key=lambda v: scores[v][0])
        mse.append(scores[values][0])
        se.append(scores[values][1])
        best[name] = dict(zip(grid, values, strict=True))
    return {"methods": list(COMPARISON_GRIDS), "mse": np.array(mse), "se": np.array(se),
            "best": best}


#: Domain sizes and budgets of :func:`oracle_variance_view`'s two curves.
ORACLE_K_GRID = np.unique(np.rint(np.geomspace(2, 1 << 16, 65)).astype(np.int64))
ORACLE_EPSILONS = np.linspace(0.25, 6.0, 47)
ORACLE_NAMES = {"grr": "GRR", "sue": "SUE", "oue": "OUE", "olh": "OLH"}


def oracle_variance_view(epsilon=1.0, k=16, n=10_000):
    """How precisely each frequency oracle estimates a share, against k and against epsilon.

    The variance of one value's estimated share (count / n) at true share 0, Wang et al.'s
    Var* / n^2 (:func:`ldpviz.frequency_oracles.oracle_variance`), for GRR, SUE, OUE and OLH:
    GRR's grows with k, the others' do not, and GRR is best below ``k = 3 e^eps + 2``.

    Parameters
    ----------
    epsilon : float in (0, 20]
        Budget of the curves against k.
    k : int in [2, 2^31 - 2]
        Number of values of the curves against epsilon.
    n : number of users (>= 1)

    Returns
    -------
    dict with ``oracles`` (the four names), ``labels`` (display names), ``k_values``
    (:data:`ORACLE_K_GRID`) and ``by_k`` (name -> variance at each k, at ``epsilon``),
    ``epsilons`` (:data:`ORACLE_EPSILONS`) and ``by_epsilon`` (name -> variance at each
    epsilon, at ``k``), ``best_by_k`` and ``best_by_epsilon`` (the smallest's name at each
    point), ``best`` (at the given k and epsilon), ``crossover_k`` (``3 e^eps + 2``),
    ``olh_g`` (OLH's hash range at ``epsilon``) and the arguments.
    """
    epsilon = check_real(epsilon, "epsilon", low=0.0, high=20.0, low_open=True)
    k = check_int(k, "k", 2, (1 << 31) - 2)
    n = check_real(n, "n", low=1.0)
    by_k = {o: oracle_variance(o, n, ORACLE_K_GRID, epsilon, share=True) for o in ORACLES}
    by_eps = {o: oracle_variance(o, n, k, ORACLE_EPSILONS, share=True) for o in ORACLES}
    return {
        "oracles": ORACLES, "labels": ORACLE_NAMES,
        "k_values": ORACLE_K_GRID, "by_k": by_k,
        "epsilons": ORACLE_EPSILONS, "by_epsilon": by_eps,
        "best_by_k": best_oracle(ORACLE_K_GRID, epsilon),
        "best_by_epsilon": best_oracle(k, ORACLE_EPSILONS),
        "best": best_oracle(k, epsilon), "crossover_k": 3 * np.exp(epsilon) + 2,
        "olh_g": olh_hash_range(epsilon), "epsilon": epsilon, "k": k, "n": n,
    }
