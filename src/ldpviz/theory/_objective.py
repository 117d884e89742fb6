"""The objective (11)/(15) and the choice of the histogram size s, the depth p* and the bins t."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from .._validation import check_epsilon, check_int
from ._checks import (
    check_c,
    check_d,
    check_depths,
    check_holder_alpha,
    check_s,
    check_s_min,
    check_tie_rtol,
)
from ._profile import _out, default_p_max, mask_profile

#: Relative tolerance under which two objective values count as a tie in :func:`select_s_p`.
TIE_RTOL = 1e-9


class ObjectiveTerms(NamedTuple):
    """The right-hand side of (11)/(15), term by term (dimensionless, up to constants).

    term1 : privatised-error term ``2^{p (d+s)/(d-s)} log(n) / (n eps^2) * delta(p)``.
    term2 : approximation term ``c * 2^{-2 alpha p / (d - s)}``.
    total : term1 + term2.
    """

    term1: float | np.ndarray
    term2: float | np.ndarray
    total: float | np.ndarray


class ObjectiveCurve(NamedTuple):
    """The objective against p for one s (see :func:`objective_curve`)."""

    p: np.ndarray
    term1: np.ndarray
    term2: np.ndarray
    total: np.ndarray


def _log2_term1(prof, s, p, n, epsilon):
    """log2 of the privatised-error term, computed without overflow."""
    d = prof.d
    with np.errstate(divide="ignore"):
        log2_scale = math.log2(math.log(n)) - math.log2(n) - 2.0 * np.log2(epsilon)
    return p * (d + s) / (d - s) + prof.log2_delta(s, p) + log2_scale


def _terms(prof, s, p, n, epsilon, alpha, c):
    d = prof.d
    with np.errstate(over="ignore"):
        term1 = np.exp2(_log2_term1(prof, s, p, n, epsilon))
    term2 = c * np.exp2(-2.0 * alpha * p / (d - s))
    return term1, term2


def objective(W, s, p, n, epsilon, alpha=1, c=1):
    """The right-hand side of eq (11) (eq (15) with ``alpha = 1``), returned term by term.

    ``2^{p (d+s)/(d-s)} log(n) / (n eps^2) * delta(p)  +  c * 2^{-2 alpha p / (d-s)}``

    The first term bounds the privatised (estimation) error, the second the approximation error
    of cells with side ``2^{-p/(d-s)}`` (Lemma B.3). ``c`` multiplies the second term as in
    Appendix C.1 (AdHistOfTree tries c in {0.01, 0.1, 1}); ``c = 1`` is the paper's (11)/(15).

    Parameters
    ----------
    W : array_like of 0/1, shape (n_W, d), or MaskProfile
        Privacy mask (1 = protected); the tail of eq (12) follows the protection ranking.
    s : int in [0, d - 1]
        Number of histogram axes. ``s = d`` raises ValueError: (11) divides by ``d - s`` and
        there is no tree depth to choose.
    p : float or array_like of float >= 0
        Tree depth(s). Depths beyond ``log2 n`` are evaluated by the same formula (the theorem's
        side condition ``t^s 2^p log n <~ n`` then fails; the first term shows it).
    n : int >= 2
        Sample size (``log n`` is the natural log; ``n = 1`` makes the bound vanish).
    epsilon : float in (0, inf]
        Privacy budget; ``np.inf`` makes the first term 0.
    alpha : float in (0, 1], default=1
        Hölder exponent of Assumption 4.1 (eq 15 sets it to 1).
    c : float > 0, default=1
        Weight of the approximation term.

    Returns
    -------
    ObjectiveTerms
        ``(term1, term2, total)``, floats for scalar ``p``, arrays shaped like ``p`` otherwise.
        Dimensionless excess-risk bounds up to constants.
    """
    prof = mask_profile(W)
    s = check_s(s, prof.d)
    if s == prof.d:
        raise ValueError(
            f"s must be < d = {prof.d} in the objective: eqs (11)/(15) divide by d - s and with "
            "s = d there is no public axis and no tree depth p. The fully private rate is "
            "upper_rate_exponent(d, d, 0)."
        )
    p = check_depths(p)
    n = check_int(n, "n", 2)
    epsilon = check_epsilon(epsilon)
    alpha, c = check_holder_alpha(alpha), check_c(c)
    term1, term2 = _terms(prof, s, p, n, epsilon, alpha, c)
    return ObjectiveTerms(_out(term1), _out(term2), _out(term1 + term2))


def objective_curve(W, s, n, epsilon, p=None, alpha=1, c=1):
    """The objective (11)/(15) against p for one s, for plots and sliders.

    Vectorised over ``p``; W is reduced once to its tail-count histogram (pass a
    :class:`MaskProfile` to skip even that), so no loop runs over users.

    Parameters
    ----------
    W : array_like of 0/1 or MaskProfile
        Privacy mask.
    s : int in [0, d - 1]
        Number of histogram axes.
    n : int >= 2
        Sample size.
    epsilon : float in (0, inf]
        Privacy budget.
    p : array_like of float >= 0 or None
        Depths; None means ``1, ..., default_p_max(n)``.
    alpha, c : see :func:`objective`.

    Returns
    -------
    ObjectiveCurve
        ``(p, term1, term2, total)`` as 1-D arrays.
    """
    if p is None:
        p = np.arange(1, default_p_max(n) + 1, dtype=float)
    p = np.atleast_1d(check_depths(p))
    terms = objective(W, s, p, n, epsilon, alpha=alpha, c=c)
    return ObjectiveCurve(p, terms.term1, terms.term2, terms.total)


def best_depth(W, s, n, epsilon, alpha=1, c=1, p_max=None):
    """The depth p* minimising (11)/(15) for a fixed s, and its lambda* (eqs 11-13).

    Parameters
    ----------
    W : array_like of 0/1 or MaskProfile
        Privacy mask.
    s : int in [0, d - 1]
        Number of histogram axes.
    n : int >= 2
        Sample size.
    epsilon : float in (0, inf]
    alpha, c : see :func:`objective`.
    p_max : int in [1, 62] or None
        Deepest tree searched; None means :func:`default_p_max`.

    Returns
    -------
    (int, float)
        ``p*`` (ties: the smallest p) and ``lambda* = log2 delta(p*) / p*``.
    """
    prof = mask_profile(W)
    p_max = default_p_max(n) if p_max is None else check_int(p_max, "p_max", 1, _LOG2_MAX_T)
    curve = objective_curve(prof, s, n, epsilon, p=np.arange(1, p_max + 1, dtype=float),
                            alpha=alpha, c=c)
    p_star = int(curve.p[np.argmin(curve.total)])
    return p_star, float(prof.log2_delta(s, p_star) / p_star)


def optimal_t(p, d, s):
    """Histogram bins per private axis: ``t* = round(2^{p / (d - s)})``, at least 1.

    Theorem 4.3 / Corollary 4.4 take ``t ~ 2^{p*/(d-s)}`` so that histogram cells and tree
    cells have the same side; Appendix C.1 uses ``t* = round(2^{p*/(d-s)})``. Rounding is half
    up (``2^{p/(d-s)}`` is never exactly a half-integer for integer p).

    Parameters
    ----------
    p : float or array_like of float >= 0
        Tree depth(s).
    d : int >= 1
        Features.
    s : int in [0, d - 1]
        Histogram axes (``s = d`` raises: there is no tree depth to match).

    Returns
    -------
    int or ndarray of int
        Bins per axis, >= 1.
    """
    d = check_d(d)
    s = check_int(s, "s", 0, d - 1)
    p = check_depths(p)
    if np.any(p / (d - s) > _LOG2_MAX_T):
        raise ValueError(f"p={np.max(p):g} gives t* = 2^(p / (d - s)) bins per axis, more than "
                         f"an integer holds (2^{_LOG2_MAX_T}); use p <= {_LOG2_MAX_T * (d - s)}.")
    t = _t_star(p, d - s)
    if t.ndim == 0:
        return int(t)
    return t.astype(np.int64)


#: optimal_t refuses t* beyond 2^62 (an int64 holds it; no partition that large is buildable).
_LOG2_MAX_T = 62


def _t_star(p, width):
    """``max(1, round(2^(p / width)))`` as floats (inf beyond the float range)."""
    with np.errstate(over="ignore"):
        return np.maximum(1.0, np.floor(np.exp2(np.asarray(p, dtype=float) / width) + 0.5))


def _log2_cells(d, p, s_values):
    """log2 of the cells ``t*^s 2^p`` of every (s, p) candidate, shape (len(s), len(p))."""
    s = np.asarray(s_values, dtype=float)[:, None]
    return s * np.log2(_t_star(p[None, :], d - s)) + p[None, :]


def _grid(prof, n, epsilon, alpha, c, p_max):
    """Objective over s = 0..d-1 (rows) and p = 1..p_max (columns)."""
    d = prof.d
    p = np.arange(1, p_max + 1, dtype=float)
    term1 = np.empty((d, p_max))
    term2 = np.empty((d, p_max))
    lam = np.empty((d, p_max))
    for s in range(d):  # d rows, each vectorised over p; no loop over users
        term1[s], term2[s] = _terms(prof, s, p, n, epsilon, alpha, c)
        lam[s] = prof.log2_delta(s, p) / p
    return p, term1, term2, lam


def _search_args(W, n, epsilon, alpha, c, p_max):
    prof = mask_profile(W)
    n = check_int(n, "n", 2)
    epsilon = check_epsilon(epsilon)
    alpha, c = check_holder_alpha(alpha), check_c(c)
    p_max = default_p_max(n) if p_max is None else check_int(p_max, "p_max", 1, _LOG2_MAX_T)
    return prof, n, epsilon, alpha, c, p_max


def objective_table(W, n, epsilon, alpha=1, c=1, p_max=None, tie_rtol=TIE_RTOL, s_min=0,
                    max_cells=None):
    """Every candidate of the brute-force search (15) as a tidy DataFrame.

    Parameters
    ----------
    W : array_like of 0/1 or MaskProfile
        Privacy mask.
    n : int >= 2
        Sample size.
    epsilon : float in (0, inf]
        Privacy budget.
    alpha : float in (0, 1], default=1
        Hölder exponent (eq 15 uses 1).
    c : float > 0, default=1
        Weight of the approximation term (Appendix C.1).
    p_max : int in [1, 62] or None
        Deepest tree; None means :func:`default_p_max` (``ceil(log2 n)``).
    tie_rtol : float >= 0, default=1e-9
        Tie tolerance of :func:`select_s_p`, used for the ``selected`` column.
    s_min : int, default=0
        Smallest s :func:`select_s_p` may select (the ``selected`` column).
    max_cells : int >= 1 or None
        Largest partition :func:`select_s_p` may select (the ``selected`` column).

    Returns
    -------
    DataFrame
        One row per (s, p), s = 0..d-1, p = 1..p_max, columns ``s``, ``p``, ``term1``
        (privatised error), ``term2`` (approximation, times c), ``total``, ``lambda``
        (lambda* = log2 delta / p), ``delta`` (eq 12), ``t`` (:func:`optimal_t`), ``exponent``
        (the rate exponent of eq 13 with that lambda) and ``selected`` (True on the single row
        :func:`select_s_p` returns).
    """
    prof, n, epsilon, alpha, c, p_max = _search_args(W, n, epsilon, alpha, c, p_max)
    tie_rtol = check_tie_rtol(tie_rtol)
    d = prof.d
    p, term1, term2, lam = _grid(prof, n, epsilon, alpha, c, p_max)
    s_col = np.repeat(np.arange(d), p_max)
    p_col = np.tile(p.astype(np.int64), d)
    lam_col = lam.ravel()
    with np.errstate(over="ignore"):
        delta_col = np.exp2(lam_col * p_col)
    t_col = _t_star(p_col, d - s_col).astype(np.int64)
    table = pd.DataFrame({
        "s": s_col,
        "p": p_col,
        "term1": term1.ravel(),
        "term2": term2.ravel(),
        "total": (term1 + term2).ravel(),
        "lambda": lam_col,
        "delta": delta_col,
        "t": t_col,
        "exponent": 2 * alpha / (2 * alpha + d + s_col + lam_col * (d - s_col)),
    })
    s_sel, p_sel = _argmin(term1 + term2, tie_rtol, check_s_min(s_min, d),
                           _fits(d, p, max_cells))
    table["selected"] = (table["s"] == s_sel) & (table["p"] == p_sel + 1)
    return table


def _argmin(total, tie_rtol, s_min=0, allowed=None):
    """(s, p index) of the minimum over s >= s_min and the ``allowed`` candidates; ties: the
    largest s, then the smallest p."""
    allowed = (np.arange(len(total))[:, None] >= s_min) & (
        True if allowed is None else allowed)
    if not allowed.any():
        raise ValueError("no candidate (s, p) with s >= s_min has at most max_cells cells "
                         "t*^s 2^p; raise max_cells or lower s_min.")
    total = np.where(allowed, total, np.inf)
    best = np.min(total)
    ties = allowed & ((total <= best * (1.0 + tie_rtol)) | (total == best))
    s_idx, p_idx = np.nonzero(ties)
    s = int(s_idx.max())
    return s, int(p_idx[s_idx == s].min())


def select_s_p(W, n, epsilon, alpha=1, c=1, p_max=None, tie_rtol=TIE_RTOL, s_min=0,
               max_cells=None):
    """The brute-force minimiser (s, p*) of eq (15) (Section 4.3; AdHistOfTree).

    Searches ``s = 0, ..., d - 1`` and ``p = 1, ..., p_max`` (``ceil(log2 n)`` by default,
    :func:`default_p_max`) for the smallest :func:`objective` total. ``s = d`` is not a
    candidate (the objective divides by ``d - s``). Ties, up to the relative ``tie_rtol``, go to
    the **largest s**, then the smallest p: on the aligned mask every ``s <= s*`` gives the same
    objective as a function of ``q = p / (d - s)`` (Section 4.3: "theoretically equivalent"),
    and only the larger s puts the features everyone protects in the histogram, where a user
    can report them; a tree could cut them only blindly (no user publishes them).

    Note that this equivalence is for real q. The search runs over integer p, so each s sees
    its own grid ``q = 1/(d-s), 2/(d-s), ...``, and on an aligned mask the argmin often lands
    strictly on some ``s < s*`` whose grid point is closer to the continuous optimum (for
    n = 10,000, d = 5, s* = 3, eps = 1 it returns s = 0, with s = 3's best total 19% above the
    minimum). A relative ``tie_rtol`` of about 0.2 recovers s* there; ``s_min`` (what
    :class:`ldpviz.AdHistOfTree` uses) imposes it.

    Parameters
    ----------
    W : array_like of 0/1, shape (n_W, d), or MaskProfile
        Privacy mask (1 = protected); row order is irrelevant.
    n : int >= 2
        Sample size.
    epsilon : float in (0, inf]
        Privacy budget.
    alpha : float in (0, 1], default=1
        Hölder exponent (eq 15 replaces the unknown alpha by 1).
    c : float > 0, default=1
        Weight of the approximation term (Appendix C.1).
    p_max : int in [1, 62] or None
        Deepest tree searched.
    tie_rtol : float >= 0, default=1e-9
        Candidates whose total is at most ``(1 + tie_rtol)`` times the minimum count as ties.
    s_min : int in [0, d - 1], default=0
        Search only ``s >= s_min``. :class:`ldpviz.AdHistOfTree` passes the number of features
        every user protects: no user publishes them, so a tree could only cut them blindly,
        and on an aligned mask this returns ``s = s*``.
    max_cells : int >= 1 or None
        Search only candidates whose partition has at most this many cells ``t*^s 2^p``.
        :class:`ldpviz.AdHistOfTree` passes ``min(n, budget)``: the side condition
        ``t^s 2^p log n <~ n`` of Theorem 4.3 without its constant, and what memory holds. At
        large epsilon the objective keeps falling with p, and without it the search would pick
        partitions with far more cells than users.

    Returns
    -------
    (int, int)
        ``(s, p*)``; the histogram axes are ``protection_ranking(W)[:s]`` and
        ``t* = optimal_t(p*, d, s)``.

    Raises
    ------
    ValueError
        If no candidate with ``s >= s_min`` has at most ``max_cells`` cells.
    """
    prof, n, epsilon, alpha, c, p_max = _search_args(W, n, epsilon, alpha, c, p_max)
    tie_rtol = check_tie_rtol(tie_rtol)
    p, term1, term2, _ = _grid(prof, n, epsilon, alpha, c, p_max)
    s, p_idx = _argmin(term1 + term2, tie_rtol, check_s_min(s_min, prof.d),
                       _fits(prof.d, p, max_cells))
    return s, p_idx + 1


def _fits(d, p, max_cells):
    """(d, len(p)) bool: candidates with at most ``max_cells`` cells (None: all)."""
    if max_cells is None:
        return None
    max_cells = check_int(max_cells, "max_cells", 1)
    return _log2_cells(d, p, np.arange(d)) <= math.log2(max_cells) + 1e-9
