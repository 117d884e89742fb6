"""What the lambda* and trade-off explorers show: the mask W_gamma, the objective (11) and the
bounds of Section 4 (eqs 10-15), from :mod:`ldpviz.theory`."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .. import theory
from .._index import bincount
from .._validation import check_int, check_real
from ..masks import gamma_mask
from ..theory._objective import _LOG2_MAX_T
from ._paper_setting import MASK_ROWS_SHOWN, D, _read_only

EPSILON_GRID = np.exp2(np.linspace(-2, 6, 33))  # 0.25 .. 64 for bound-vs-epsilon curves


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
