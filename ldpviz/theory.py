"""The formulas of Section 4 of the HistOfTree paper: delta, lambda*, the objective (11)/(15),
the selection of (s, p*), rate exponents and the bounds (10), (13), (14).

Conventions
-----------
* **Which features are the "tail".** Eq (12) sums ``W[i, l]`` over features ``s+1..d`` *after
  ranking the features by protection count, most protected first* (Section 3.3: the first ``s``
  of that ranking are the histogram axes). Every function here uses
  :func:`ldpviz.masks.protection_ranking`, the same ranking HistOfTree uses to pick its
  histogram axes, so theory and estimator talk about the same features. Ties between equally
  protected features are broken by the lower column index; tied features have equal column
  sums, but the per-user tail sums can still differ, so the tie rule matters and is shared.
* **Row order does not matter.** W enters only through the histogram of per-user tail counts,
  so shuffling users (:func:`ldpviz.masks.shuffle_users`) changes nothing.
* **n and W.** ``delta`` is the *mean* over the rows of W, so it does not need ``n``. The
  functions that need the sample size (the objective, the selection) take ``n`` separately;
  normally ``n = W.shape[0]``, but a smaller W can stand for the mask pattern of a larger
  sample.
* **log n** is the natural logarithm (the paper leaves the base to the constants); ``log2`` in
  ``lambda*`` and in the powers of two is base 2 as in the paper.
* **Units.** Everything returned is dimensionless: excess-risk bounds up to the unspecified
  constants of the theorems (the same units as a mean squared error once a constant is fixed),
  exponents, and counts. ``p`` is a tree depth (number of splits), ``t`` bins per axis.
* **s = d** (no public axis, no tree): the tail is empty, so ``delta = 1`` and ``lambda* = 0``
  for every ``p``; the objective (11)/(15) divides by ``d - s`` and has no tree depth to tune,
  so :func:`objective` and :func:`optimal_t` raise ``ValueError`` there and the search in
  :func:`select_s_p` runs over ``s = 0..d-1``. The rate formulas need no such care:
  ``upper_rate_exponent(d, d, lam) = 2a / (2a + 2d)`` is the fully private histogram rate.
* **What (15) rewards.** Write ``q = p / (d - s)`` (so a tree cell has side ``2^{-q}``). Then
  term1 ``= L 2^{q (d + s)} mean_i 2^{q k_i}`` and term2 ``= c 2^{-2 a q}``, with ``k_i`` the
  user's protected tail features and ``L = log n / (n eps^2)``. Moving one feature from the tail
  to the histogram multiplies term1 by ``2^q mean_i 2^{q (k_i - w_i)} / mean_i 2^{q k_i} >= 1``
  (``w_i`` = whether user i protects it), with equality iff every user protects it. So for a
  fixed cell side, a larger s never lowers the objective: it ties when the moved feature is
  protected by everyone (the aligned case, ``s < s*``) and is worse otherwise. A larger s can
  still win the integer search over p, because each s sees its own grid of q. See
  :func:`select_s_p`.
* **Large exponents.** ``delta`` is computed in log space (a shifted log-sum-exp), so it only
  overflows to ``inf`` when the true value exceeds the float range; no warning is emitted.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from ._validation import check_epsilon, check_int
from .masks import protection_ranking, validate_mask

__all__ = [
    "MaskProfile",
    "ObjectiveCurve",
    "ObjectiveTerms",
    "aligned_rate",
    "best_depth",
    "default_p_max",
    "delta",
    "lambda_star",
    "lower_bound",
    "mask_profile",
    "objective",
    "objective_curve",
    "objective_table",
    "optimal_t",
    "select_s_p",
    "upper_bound",
    "upper_rate_exponent",
]

#: Relative tolerance under which two objective values count as a tie in :func:`select_s_p`.
TIE_RTOL = 1e-9


# --------------------------------------------------------------------------------------------
# Precomputation: the histogram of tail counts
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MaskProfile:
    """Everything the formulas need from a mask W, computed once in O(n d).

    Attributes
    ----------
    n_users : int
        Rows of W.
    d : int
        Features.
    ranking : ndarray of int, shape (d,)
        :func:`ldpviz.masks.protection_ranking` of W; ``ranking[:s]`` are the histogram axes.
    tail_counts : ndarray of int, shape (d + 1, d + 1)
        ``tail_counts[s, k]`` = number of users protecting exactly ``k`` of the features
        ``ranking[s:]`` (the tail of eq 12). Row ``s = d`` is ``[n_users, 0, ...]``.
    """

    n_users: int
    d: int
    ranking: np.ndarray
    tail_counts: np.ndarray

    def log2_delta(self, s, p):
        """``log2 delta(p)`` of eq (12) for the tail after the first ``s`` ranked features.

        Stable for large ``p``: ``log2 sum_k w_k 2^{k p / (d-s)}`` with the largest present
        ``k`` factored out. ``p`` may be an array of reals >= 0; ``s`` must be an int in [0, d].
        """
        p = np.asarray(p, dtype=float)
        if s == self.d:
            return np.zeros_like(p)
        weights = self.tail_counts[s] / self.n_users
        ks = np.flatnonzero(weights)
        k_max = ks[-1]
        rate = p[..., None] / (self.d - s)
        shifted = np.exp2((ks - k_max) * rate) @ weights[ks]
        # 1 <= delta <= 2^p holds exactly (0 <= k <= d - s); clip the last-bit rounding
        return np.clip(k_max * rate[..., 0] + np.log2(shifted), 0.0, p)


def mask_profile(W):
    """Precompute the tail-count histogram of W (see :class:`MaskProfile`).

    Every function of this module accepts either a mask or a profile; pass a profile when you
    evaluate many (s, p, n, epsilon) for the same W, e.g. behind a slider.

    Parameters
    ----------
    W : array_like of 0/1, shape (n, d), or MaskProfile
        The privacy mask, 1 = protected. A MaskProfile is returned unchanged.

    Returns
    -------
    MaskProfile
    """
    if isinstance(W, MaskProfile):
        return W
    W = validate_mask(W)
    n, d = W.shape
    ranking = protection_ranking(W)
    ranked = W[:, ranking].astype(np.int64)
    # tails[i, s] = number of features among ranking[s:] that user i protects, s = 0..d.
    tails = np.zeros((n, d + 1), dtype=np.int64)
    tails[:, :d] = np.cumsum(ranked[:, ::-1], axis=1)[:, ::-1]
    flat = np.arange(d + 1)[None, :] * (d + 1) + tails
    counts = np.bincount(flat.ravel(), minlength=(d + 1) ** 2).reshape(d + 1, d + 1)
    return MaskProfile(n_users=n, d=d, ranking=ranking, tail_counts=counts)


# --------------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------------
def _check_s(s, d, name="s"):
    return check_int(s, name, 0, d)


def _check_p(p, name="p", strict=False):
    """Real depths >= 0 (> 0 if strict); scalars stay scalar-shaped."""
    try:
        arr = np.asarray(p, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {p!r}.") from None
    if np.asarray(p).dtype == bool:
        raise ValueError(f"{name} must be a number or an array of numbers, got {p!r}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {p!r}.")
    if np.any(arr <= 0) if strict else np.any(arr < 0):
        raise ValueError(f"{name} must be {'> 0' if strict else '>= 0'}, got {p!r}.")
    return arr


def _check_alpha(alpha):
    """Hölder exponent of Assumption 4.1: 0 < alpha <= 1."""
    if (isinstance(alpha, bool) or not isinstance(alpha, numbers.Real)
            or not (0 < alpha <= 1)):
        raise ValueError(f"alpha must be a number in (0, 1] (Assumption 4.1), got {alpha!r}.")
    return float(alpha)


def _check_c(c):
    if isinstance(c, bool) or not isinstance(c, numbers.Real) or not (
        math.isfinite(c) and c > 0
    ):
        raise ValueError(f"c must be a positive finite number, got {c!r}.")
    return float(c)


def _check_n_array(n, low, name="n"):
    """Sample sizes as a float array, every entry finite and >= low."""
    try:
        arr = np.asarray(n, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {n!r}.") from None
    if isinstance(n, bool) or not np.all(np.isfinite(arr)) or np.any(arr < low):
        raise ValueError(f"{name} must be finite and >= {low}, got {n!r}.")
    return arr


def _check_epsilon_array(epsilon, name="epsilon"):
    """Budgets as a float array in (0, inf]; inf = no privacy."""
    if np.ndim(epsilon) == 0:
        return np.asarray(check_epsilon(epsilon, name))
    try:
        arr = np.asarray(epsilon, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be positive numbers, got {epsilon!r}.") from None
    if np.any(np.isnan(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0 (np.inf means no privacy), got {epsilon!r}.")
    return arr


def _check_lam(lam):
    try:
        arr = np.asarray(lam, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"lam must be a number in [0, 1], got {lam!r}.") from None
    if isinstance(lam, bool) or not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(
        arr > 1
    ):
        raise ValueError(f"lam must lie in [0, 1] (lambda* of eq 12), got {lam!r}.")
    return arr


def _out(x):
    """0-d arrays become Python floats; arrays stay arrays."""
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


def default_p_max(n):
    """Deepest tree searched by :func:`select_s_p`: ``max(1, ceil(log2 n))``.

    Section 4.3 searches ``p = 1, ..., log n`` ("at most d log n candidates"); ldpviz reads it
    as ``ceil(log2 n)`` because a tree deeper than ``log2 n`` has more leaves than users. The
    ``max(1, .)`` keeps ``p = 1`` available for tiny ``n``.
    """
    n = check_int(n, "n", 2)
    return max(1, math.ceil(math.log2(n)))


# --------------------------------------------------------------------------------------------
# delta and lambda* (eq 12)
# --------------------------------------------------------------------------------------------
def delta(W, s, p):
    """delta(p) of eq (12): ``(1/n) sum_i 2^{(sum_{l in tail} W[i, l]) p / (d - s)}``.

    The tail is the features ranked ``s+1..d`` by protection count, most protected first
    (Section 3.3; :func:`ldpviz.masks.protection_ranking`), i.e. the features the tree sees.
    delta is the mean over users of ``2^{(tail count) p / (d-s)}``: the average factor by which
    a user's potential cells outnumber the cells of a fully public user (Lemma B.10).

    Parameters
    ----------
    W : array_like of 0/1, shape (n, d), or MaskProfile
        Privacy mask (1 = protected). Row order is irrelevant.
    s : int in [0, d]
        Number of histogram (private) axes.
    p : float or array_like of float >= 0
        Tree depth(s). Values beyond ``log2 n`` are evaluated by the same formula.

    Returns
    -------
    float or ndarray
        Dimensionless, in ``[1, 2^p]``; 1 when no user protects a tail feature, ``2^p`` when
        every user protects every tail feature. ``s = d``: the tail is empty and delta = 1.
    """
    prof = mask_profile(W)
    s = _check_s(s, prof.d)
    p = _check_p(p)
    with np.errstate(over="ignore"):
        return _out(np.exp2(prof.log2_delta(s, p)))


def lambda_star(W, s, p):
    """lambda* of Theorem 4.3: ``log2(delta(p)) / p``, with delta from eq (12).

    Parameters
    ----------
    W : array_like of 0/1, shape (n, d), or MaskProfile
        Privacy mask (1 = protected), tail as in :func:`delta`.
    s : int in [0, d]
        Number of histogram axes.
    p : float or array_like of float > 0
        Tree depth(s); the paper evaluates it at ``p = p*``.

    Returns
    -------
    float or ndarray
        Dimensionless, in [0, 1]. 0 when no user protects a tail feature (e.g. the aligned mask
        with ``s >= s*``) and for ``s = d``; 1 when every user protects the whole tail.
        It enters the rate exponent of eq (13) through ``lambda* (d - s)``.
    """
    prof = mask_profile(W)
    s = _check_s(s, prof.d)
    p = _check_p(p, strict=True)
    return _out(prof.log2_delta(s, p) / p)


# --------------------------------------------------------------------------------------------
# The objective (11) / (15)
# --------------------------------------------------------------------------------------------
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
    s = _check_s(s, prof.d)
    if s == prof.d:
        raise ValueError(
            f"s must be < d = {prof.d} in the objective: eqs (11)/(15) divide by d - s and with "
            "s = d there is no public axis and no tree depth p. The fully private rate is "
            "upper_rate_exponent(d, d, 0)."
        )
    p = _check_p(p)
    n = check_int(n, "n", 2)
    epsilon = check_epsilon(epsilon)
    alpha, c = _check_alpha(alpha), _check_c(c)
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
    p = np.atleast_1d(_check_p(p))
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
    p_max : int >= 1 or None
        Deepest tree searched; None means :func:`default_p_max`.

    Returns
    -------
    (int, float)
        ``p*`` (ties: the smallest p) and ``lambda* = log2 delta(p*) / p*``.
    """
    prof = mask_profile(W)
    p_max = default_p_max(n) if p_max is None else check_int(p_max, "p_max", 1)
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
    d = check_int(d, "d", 1)
    s = check_int(s, "s", 0, d - 1)
    p = _check_p(p)
    with np.errstate(over="ignore"):
        t = np.maximum(1.0, np.floor(np.exp2(p / (d - s)) + 0.5))
    if t.ndim == 0:
        return int(t)
    return t.astype(np.int64)


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
    alpha, c = _check_alpha(alpha), _check_c(c)
    p_max = default_p_max(n) if p_max is None else check_int(p_max, "p_max", 1)
    return prof, n, epsilon, alpha, c, p_max


def objective_table(W, n, epsilon, alpha=1, c=1, p_max=None, tie_rtol=TIE_RTOL, s_min=0):
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
    p_max : int >= 1 or None
        Deepest tree; None means :func:`default_p_max` (``ceil(log2 n)``).
    tie_rtol : float >= 0, default=1e-9
        Tie tolerance of :func:`select_s_p`, used for the ``selected`` column.
    s_min : int, default=0
        Smallest s :func:`select_s_p` may select (the ``selected`` column).

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
    tie_rtol = _check_tie_rtol(tie_rtol)
    d = prof.d
    p, term1, term2, lam = _grid(prof, n, epsilon, alpha, c, p_max)
    s_col = np.repeat(np.arange(d), p_max)
    p_col = np.tile(p.astype(np.int64), d)
    lam_col = lam.ravel()
    with np.errstate(over="ignore"):
        delta_col = np.exp2(lam_col * p_col)
    t_col = np.maximum(1.0, np.floor(np.exp2(p_col / (d - s_col)) + 0.5)).astype(np.int64)
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
    s_sel, p_sel = _argmin(term1 + term2, tie_rtol, _check_s_min(s_min, d))
    table["selected"] = (table["s"] == s_sel) & (table["p"] == p_sel + 1)
    return table


def _check_tie_rtol(tie_rtol):
    if isinstance(tie_rtol, bool) or not isinstance(tie_rtol, numbers.Real) or not (
        math.isfinite(tie_rtol) and tie_rtol >= 0
    ):
        raise ValueError(f"tie_rtol must be a finite number >= 0, got {tie_rtol!r}.")
    return float(tie_rtol)


def _check_s_min(s_min, d):
    return check_int(s_min, "s_min", 0, d - 1)


def _argmin(total, tie_rtol, s_min=0):
    """(s, p index) of the minimum over s >= s_min; ties: largest s, then smallest p."""
    total = np.where(np.arange(len(total))[:, None] >= s_min, total, np.inf)
    best = np.min(total)
    ties = (total <= best * (1.0 + tie_rtol)) | (total == best)
    s_idx, p_idx = np.nonzero(ties)
    s = int(s_idx.max())
    return s, int(p_idx[s_idx == s].min())


def select_s_p(W, n, epsilon, alpha=1, c=1, p_max=None, tie_rtol=TIE_RTOL, s_min=0):
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
    p_max : int >= 1 or None
        Deepest tree searched.
    tie_rtol : float >= 0, default=1e-9
        Candidates whose total is at most ``(1 + tie_rtol)`` times the minimum count as ties.
    s_min : int in [0, d - 1], default=0
        Search only ``s >= s_min``. :class:`ldpviz.AdHistOfTree` passes the number of features
        every user protects: no user publishes them, so a tree could only cut them blindly,
        and on an aligned mask this returns ``s = s*``.

    Returns
    -------
    (int, int)
        ``(s, p*)``; the histogram axes are ``protection_ranking(W)[:s]`` and
        ``t* = optimal_t(p*, d, s)``.
    """
    prof, n, epsilon, alpha, c, p_max = _search_args(W, n, epsilon, alpha, c, p_max)
    tie_rtol = _check_tie_rtol(tie_rtol)
    _, term1, term2, _ = _grid(prof, n, epsilon, alpha, c, p_max)
    s, p_idx = _argmin(term1 + term2, tie_rtol, _check_s_min(s_min, prof.d))
    return s, p_idx + 1


# --------------------------------------------------------------------------------------------
# Rates and bounds (eqs 10, 13, 14)
# --------------------------------------------------------------------------------------------
def upper_rate_exponent(d, s, lam, alpha=1):
    """Rate exponent of eq (13): ``2a / (2a + d + s + lam (d - s))``.

    Parameters
    ----------
    d : int >= 1
        Features.
    s : int in [0, d]
        Histogram axes (``s = d`` gives ``2a / (2a + 2d)``, the fully private rate).
    lam : float or array_like in [0, 1]
        lambda* (0 for the aligned case, Corollary 4.4).
    alpha : float in (0, 1], default=1
        Hölder exponent.

    Returns
    -------
    float or ndarray
        The exponent of ``log n / (n eps^2)``, dimensionless, in (0, 1).
    """
    d = check_int(d, "d", 1)
    s = check_int(s, "s", 0, d)
    lam = _check_lam(lam)
    alpha = _check_alpha(alpha)
    return _out(2 * alpha / (2 * alpha + d + s + lam * (d - s)))


def upper_bound(n, epsilon, d, s, lam, alpha=1):
    """The upper bound (13): ``(log n / (n eps^2))^{2a / (2a + d + s + lam (d - s))}``.

    Vectorised: ``n``, ``epsilon`` and ``lam`` broadcast against each other.

    Parameters
    ----------
    n : float or array_like, >= 2
        Sample size(s) (natural log; ``n = 1`` would make the bound 0).
    epsilon : float or array_like in (0, inf]
        Privacy budget(s); ``inf`` gives 0 (the theorem needs ``eps <~ (n / log n)^{...}``).
    d : int >= 1
    s : int in [0, d]
    lam : float or array_like in [0, 1]
        lambda*.
    alpha : float in (0, 1], default=1

    Returns
    -------
    float or ndarray
        Excess-risk bound up to a constant (dimensionless).
    """
    n = _check_n_array(n, 2)
    epsilon = _check_epsilon_array(epsilon)
    exponent = upper_rate_exponent(d, s, lam, alpha)
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        base = np.log(n) / (n * epsilon**2)
    return _out(base**exponent)


def aligned_rate(n, epsilon, d, s, alpha=1):
    """The aligned rate of Corollary 4.4, eq (14): ``(log n / (n eps^2))^{2a / (2a + d + s*)}``.

    Equal to :func:`upper_bound` with ``lam = 0``. Vectorised over ``n`` and ``epsilon``.

    Parameters
    ----------
    n : float or array_like, >= 2
    epsilon : float or array_like in (0, inf]
    d : int >= 1
    s : int in [0, d]
        s*, the number of features every user protects.
    alpha : float in (0, 1], default=1

    Returns
    -------
    float or ndarray
        Excess-risk bound up to a constant (dimensionless).
    """
    return upper_bound(n, epsilon, d, s, 0.0, alpha)


def lower_bound(n, epsilon, d, s, alpha=1):
    """The minimax lower bound (10): ``(n (e^eps - 1)^2)^{-2a/(2a+d+s)}  max  n^{-2a/(2a+d)}``.

    Theorem 4.2, aligned case with ``s = s*`` protected features. The first term is the price of
    privacy, the second the non-private minimax rate. Vectorised over ``n`` and ``epsilon``.

    Parameters
    ----------
    n : float or array_like, >= 1
        Sample size(s).
    epsilon : float or array_like in (0, inf]
        Privacy budget(s); ``inf`` leaves the non-private term.
    d : int >= 1
    s : int in [0, d]
        s*.
    alpha : float in (0, 1], default=1

    Returns
    -------
    float or ndarray
        Minimax excess risk up to a constant (dimensionless).
    """
    n = _check_n_array(n, 1)
    epsilon = _check_epsilon_array(epsilon)
    d = check_int(d, "d", 1)
    s = check_int(s, "s", 0, d)
    alpha = _check_alpha(alpha)
    with np.errstate(over="ignore", divide="ignore"):
        private = (n * np.expm1(epsilon) ** 2) ** (-2 * alpha / (2 * alpha + d + s))
    public = n ** (-2 * alpha / (2 * alpha + d))
    return _out(np.maximum(private, public))
