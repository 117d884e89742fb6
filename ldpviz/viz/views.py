"""What each explorer shows, computed as pure functions: state in, plain arrays out.

``widgets.py`` and ``plots.py`` only draw what these return, and the tests call them directly,
so every number on screen comes from the package's estimators and formulas. All views use the
Section 5.1 simulation (d = 5, f* = sin x1 + sin x2 + sin x5) with the first ``s_star``
features private (the aligned case), unless a mask is given.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from .. import theory
from ..datasets import PAPER_Y_BOUND, make_paper_regression, paper_regression_function
from ..estimators import HistOfTree
from ..masks import aligned_mask, gamma_mask
from ..mechanisms import (
    grr_probabilities,
    laplace_log_density,
    laplace_scale,
    rr_probabilities,
    split_budget,
)

D = 5
GRID = 80  # points per axis of a 2-D slice: fine enough to show every cell edge at depth <= 8
N_TEST = 2000
N_POINTS_SHOWN = 300
MASK_ROWS_SHOWN = 200  # rows of W drawn as an image; the mask is sorted, so a strided sample
EPSILON_GRID = np.exp2(np.linspace(-2, 6, 33))  # 0.25 .. 64 for bound-vs-epsilon curves


@lru_cache(maxsize=16)
def _paper_data(n, seed):
    """Cached Section 5.1 sample and test set (read-only arrays)."""
    X, y = make_paper_regression(n, random_state=seed)
    X_test, _ = make_paper_regression(N_TEST, random_state=seed + 10_000)
    for a in (X, y, X_test):
        a.setflags(write=False)
    return X, y, X_test


def slice_grid(x_axis, y_axis, hold, size=GRID, d=D):
    """Points of the 2-D slice: ``x_axis`` and ``y_axis`` vary over [0, 1], others = ``hold``.

    Returns ``(u, v, points)`` with ``points`` of shape (size * size, d), row-major in v.
    """
    if x_axis == y_axis:
        raise ValueError("x_axis and y_axis must be different features.")
    u = (np.arange(size) + 0.5) / size
    points = np.full((size * size, d), float(hold))
    uu, vv = np.meshgrid(u, u)
    points[:, x_axis] = uu.ravel()
    points[:, y_axis] = vv.ravel()
    return u, u.copy(), points


def _fit(epsilon, s_star, depth, t, rho, n, rule, mechanism, data_seed, noise_seed):
    X, y, X_test = _paper_data(int(n), int(data_seed))
    model = HistOfTree(epsilon=epsilon, s=s_star, t=t, depth=depth, rule=rule,
                       mechanism=mechanism, rho=rho, y_bound=PAPER_Y_BOUND,
                       random_state=noise_seed)
    model.fit(X, y, W=aligned_mask(len(X), D, s_star))
    return model, X, y, X_test


def _slice_edges(partition, x_axis, y_axis, hold):
    """Cell rectangles that meet the slice, as one polyline with NaN breaks (fast to draw)."""
    lo, hi = partition.cell_boxes()
    others = [a for a in range(partition.n_features) if a not in (x_axis, y_axis)]
    meets = np.all((lo[:, others] <= hold) & ((hi[:, others] > hold) | (hi[:, others] >= 1)),
                   axis=1)
    x0, x1 = lo[meets, x_axis], hi[meets, x_axis]
    y0, y1 = lo[meets, y_axis], hi[meets, y_axis]
    nan = np.full_like(x0, np.nan)
    xs = np.stack([x0, x1, x1, x0, x0, nan], axis=1).ravel()
    ys = np.stack([y0, y0, y1, y1, y0, nan], axis=1).ravel()
    return xs, ys, int(meets.sum())


def partition_view(epsilon=4.0, s_star=2, depth=2, t=2, rho=0.5, n=10_000, x_axis=0, y_axis=4,
                   hold=0.5, rule="max-edge", mechanism="grr", data_seed=0, noise_seed=0):
    """The combined partition on a 2-D slice, coloured by the privatised estimate.

    Returns a dict with ``u``, ``v`` (grid coordinates), ``z`` (f~ on the slice, shape
    (len(v), len(u))), ``edge_x``, ``edge_y`` (cell edges meeting the slice), ``point_x``,
    ``point_y`` (a sample of users: published coordinates exact, a protected coordinate drawn
    uniformly at random because the server never sees it), ``x_private``, ``y_private``,
    ``n_cells``, ``cells_in_slice``, ``mse`` (against f* on a test set) and ``mse_nonprivate``
    (eq 3 on the same partition).
    """
    model, X, y, X_test = _fit(epsilon, s_star, depth, t, rho, n, rule, mechanism, data_seed,
                               noise_seed)
    u, v, grid = slice_grid(x_axis, y_axis, hold)
    z = model.predict(grid).reshape(len(v), len(u))
    edge_x, edge_y, in_slice = _slice_edges(model.partition_, x_axis, y_axis, hold)
    shown = X[:N_POINTS_SHOWN]
    rng = np.random.default_rng(1)  # placement of hidden coordinates only; fixed so nothing jumps
    private = set(model.hist_axes_)
    hidden = rng.random((len(shown), 2))
    point_x = np.where(x_axis in private, hidden[:, 0], shown[:, x_axis])
    point_y = np.where(y_axis in private, hidden[:, 1], shown[:, y_axis])
    truth = paper_regression_function(X_test)
    means, _ = model.partition_.cell_means(X, np.clip(y, -PAPER_Y_BOUND, PAPER_Y_BOUND))
    nonprivate = np.nan_to_num(means, nan=float(np.clip(y, -PAPER_Y_BOUND, PAPER_Y_BOUND).mean()))
    return {
        "u": u, "v": v, "z": z, "edge_x": edge_x, "edge_y": edge_y,
        "point_x": point_x, "point_y": point_y,
        "x_private": x_axis in private, "y_private": y_axis in private,
        "n_cells": model.n_cells_, "cells_in_slice": in_slice,
        "mse": float(np.mean((model.predict(X_test) - truth) ** 2)),
        "mse_nonprivate": float(np.mean(
            (nonprivate[model.partition_.cell_index(X_test)] - truth) ** 2)),
    }


def surface_view(epsilon=4.0, s_star=2, depth=2, t=2, n=10_000, x_axis=0, y_axis=4, hold=0.5,
                 rho=0.5, rule="max-edge", mechanism="grr", data_seed=0, noise_seed=0):
    """The truth f*, the privatised surface f~ and the non-private partition estimate (eq 3).

    All three on the same 2-D slice and, for the two estimates, the same partition. Returns a
    dict with ``u``, ``v``, ``truth``, ``private``, ``nonprivate`` (each (len(v), len(u))),
    ``mse`` and ``mse_nonprivate`` against f* on a test set, and ``n_cells``. A new
    ``noise_seed`` redraws only the privacy noise: same users, same data.
    """
    model, X, y, X_test = _fit(epsilon, s_star, depth, t, rho, n, rule, mechanism, data_seed,
                               noise_seed)
    u, v, grid = slice_grid(x_axis, y_axis, hold)
    clipped = np.clip(y, -PAPER_Y_BOUND, PAPER_Y_BOUND)
    means, _ = model.partition_.cell_means(X, clipped)
    means = np.nan_to_num(means, nan=float(clipped.mean()))
    truth_test = paper_regression_function(X_test)
    shape = (len(v), len(u))
    return {
        "u": u, "v": v,
        "truth": paper_regression_function(grid).reshape(shape),
        "private": model.predict(grid).reshape(shape),
        "nonprivate": means[model.partition_.cell_index(grid)].reshape(shape),
        "mse": float(np.mean((model.predict(X_test) - truth_test) ** 2)),
        "mse_nonprivate": float(np.mean(
            (means[model.partition_.cell_index(X_test)] - truth_test) ** 2)),
        "n_cells": model.n_cells_,
    }


@lru_cache(maxsize=32)
def _gamma_profile(n, d, gamma):
    return theory.mask_profile(gamma_mask(n, d, gamma))


def lambda_view(gamma=1.0, s=1, depth=4, n=10_000, epsilon=4.0, d=D):
    """The mask W_gamma, delta(p), the objective (11) against p, and lambda* (eqs 11-13).

    Returns a dict with ``mask`` (a strided sample of W's rows, users x features, as 0/1),
    ``mask_rows`` (their user indices), ``hist_axes`` (the s most protected features, the
    histogram axes), ``p``, ``delta`` (eq 12), ``term1``, ``term2``, ``total`` (eq 11),
    ``p_star``, ``lambda_star``, ``lambda_at_depth`` (log2 delta(depth) / depth),
    ``exponent`` (eq 13 with lambda*) and ``share_protecting`` (share of users protecting
    k = 0..d features).
    """
    profile = _gamma_profile(int(n), int(d), float(gamma))
    W = gamma_mask(int(n), int(d), float(gamma))
    rows = np.unique(np.linspace(0, n - 1, MASK_ROWS_SHOWN).astype(int))
    p = np.arange(1, theory.default_p_max(n) + 1, dtype=float)
    curve = theory.objective_curve(profile, s, n, epsilon, p=p)
    p_star, lam_star = theory.best_depth(profile, s, n, epsilon)
    return {
        "mask": W[rows].astype(int), "mask_rows": rows,
        "hist_axes": tuple(int(a) for a in profile.ranking[:s]),
        "p": p, "delta": np.exp2(profile.log2_delta(s, p)),
        "term1": curve.term1, "term2": curve.term2, "total": curve.total,
        "p_star": p_star, "lambda_star": lam_star,
        "lambda_at_depth": float(profile.log2_delta(s, depth) / depth) if depth > 0 else 0.0,
        "exponent": float(theory.upper_rate_exponent(d, s, lam_star)),
        "share_protecting": np.bincount(W.sum(axis=1), minlength=d + 1) / n,
    }


def tradeoff_view(epsilon=2.0, s=1, gamma=1.0, n=10_000, d=D):
    """The bound trade-offs of Section 4: terms of (11) vs p, rate vs s, bounds vs epsilon.

    Returns a dict with ``p``, ``term1``, ``term2``, ``total``, ``p_star`` (for the given s);
    ``s_values`` (0..d), ``exponents`` (eq 13 at each s with its own lambda*; s = d is the fully
    private rate), ``s_selected``, ``p_selected`` (the minimiser of (15));
    ``epsilons``, ``upper`` (eq 13 at each epsilon with that epsilon's lambda*) and ``lower``
    (eq 10 with s* = s), both up to constants; and ``lambda_star`` at the given epsilon.
    """
    profile = _gamma_profile(int(n), int(d), float(gamma))
    p = np.arange(1, theory.default_p_max(n) + 1, dtype=float)
    curve = theory.objective_curve(profile, s, n, epsilon, p=p)
    p_star, lam_star = theory.best_depth(profile, s, n, epsilon)
    exponents = [theory.upper_rate_exponent(d, k, theory.best_depth(profile, k, n, epsilon)[1])
                 for k in range(d)] + [theory.upper_rate_exponent(d, d, 0.0)]
    s_sel, p_sel = theory.select_s_p(profile, n, epsilon)
    lams = np.array([theory.best_depth(profile, s, n, e)[1] for e in EPSILON_GRID])
    return {
        "p": p, "term1": curve.term1, "term2": curve.term2, "total": curve.total,
        "p_star": p_star, "lambda_star": lam_star,
        "s_values": np.arange(d + 1), "exponents": np.array(exponents),
        "s_selected": s_sel, "p_selected": p_sel,
        "epsilons": EPSILON_GRID,
        "upper": theory.upper_bound(n, EPSILON_GRID, d, s, lams),
        "lower": theory.lower_bound(n, EPSILON_GRID, d, s),
    }


def mechanism_view(epsilon=1.0, rho=0.5, y_bound=1.0, k=6, labels=(-1.0, 1.0)):
    """What one user's release looks like (eqs 4, 5, 16), for the first notebook.

    Returns ``grid`` and ``density`` (a dict from true label to the density of the released
    label on the grid), the Laplace ``scale``, ``grr_probs`` (probability of reporting each of
    k cells, the true one first), ``rr_keep`` (probability a randomized-response bit is kept),
    and the budget split ``epsilon_label``, ``epsilon_cells``.
    """
    eps_label, eps_cells = split_budget(epsilon, rho)
    scale = laplace_scale(eps_label, y_bound)
    reach = y_bound + 6 * scale
    grid = np.linspace(-reach, reach, 401)
    density = {y0: np.exp(laplace_log_density(grid, y0, eps_label, y_bound)) for y0 in labels}
    p_true, p_other = grr_probabilities(k, eps_cells)
    return {
        "grid": grid, "density": density, "scale": scale, "labels": tuple(labels),
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
    "LabelDT": {"max_depth": (1, 3, 5), "min_samples_leaf": (100,)},
    "DT": {"max_depth": (6,), "min_samples_leaf": (100,)},
}


@lru_cache(maxsize=256)  # sliders revisit settings: a revisit is instant
def comparison_view(epsilon=4.0, s_star=2, n=3000, reps=2, data_seed=0):
    """Every method of Figure 2 at one (epsilon, s*): best MSE over a small grid (a live
    miniature of Figure 2(a); :func:`ldpviz.reproduce.paper.figure2` runs the real thing).

    Each method sees the same ``reps`` samples (paired); the grid point with the lowest mean
    MSE against f* is kept. Returns a dict with ``methods``, ``mse`` and ``se`` (arrays in
    that order) and ``best`` (the chosen parameters per method). Results are cached: do not
    modify them.
    """
    from ..baselines import DT, KRR, Hist, LabelDT, ParDT

    classes = {"HistOfTree": HistOfTree, "Hist": Hist, "KRR": KRR, "ParDT": ParDT,
               "LabelDT": LabelDT, "DT": DT}
    samples = [_paper_data(int(n), int(data_seed) + r) for r in range(reps)]
    W = aligned_mask(int(n), D, s_star)
    mse, se, best = [], [], {}
    for name, cls in classes.items():
        grid = COMPARISON_GRIDS[name]
        fixed = {} if cls is DT else {"epsilon": epsilon, "y_bound": PAPER_Y_BOUND}
        if cls is HistOfTree:
            fixed["s"] = s_star
        scores = {}
        for values in itertools.product(*grid.values()):
            params = dict(zip(grid, values, strict=True))
            errors = []
            for r, (X, y, X_test) in enumerate(samples):
                model = cls(**fixed, **params, random_state=r).fit(X, y, W=W)
                errors.append(np.mean((model.predict(X_test)
                                       - paper_regression_function(X_test)) ** 2))
            scores[values] = (np.mean(errors), np.std(errors) / np.sqrt(len(errors)))
        values = min(scores, key=lambda v: scores[v][0])
        mse.append(scores[values][0])
        se.append(scores[values][1])
        best[name] = dict(zip(grid, values, strict=True))
    return {"methods": list(classes), "mse": np.array(mse), "se": np.array(se), "best": best}
