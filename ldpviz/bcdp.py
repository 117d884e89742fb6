"""Bayesian Coordinate Differential Privacy (BCDP): per-feature guarantees on top of LDP.

Implements Aliakbarpour, Fallah, Chaudhuri, Courtade and Jordan, *Enhancing Feature-Specific
Data Protection via Bayesian Coordinate Differential Privacy* (2024), the "BCDP paper":

* :func:`l2_mechanism`: the l2-ball channel of Duchi et al. (Mechanism 3, Appendix B.1), with
  the *unbiased* constant ``B`` (the printed one is twice too large, see :func:`l2_constant`);
* :func:`budget_schedule`: the cumulative budgets ``c`` of Theorem 2 (eq 16);
* :func:`mean_mechanism`, :class:`BCDPMean`: Mechanism 1 (nested queries, weighted
  combination, projection to the box) and :class:`LDPMean`, the plain LDP baseline;
* :func:`bcdp_ols`, :func:`ldp_ols`: Algorithm 2 (two independent reports per user);
* an exact calculator for finite data and output spaces (:func:`bcdp_deltas`,
  :func:`ldp_epsilon`, :func:`correlation_tv`, :func:`product_channel`) with the paper's
  Examples 1 and 2 and the exact finite channel of Mechanism 1 on {-1, +1}^d data;
* the closed-form per-coordinate MSE (:func:`expected_mse_pm1`) next to a Monte Carlo estimate
  (:func:`monte_carlo_mse`), the compute function of the live explorer
  (:func:`bcdp_explorer_data`) and a small attack (:func:`correlated_feature_attack`).

Conventions. Data live in the box [-1, 1]^d, as in the paper (not the [0, 1] box of
HistOfTree). Coordinates are sorted from the most to the least sensitive (``deltas``
non-decreasing, Section 4); the last coordinate is the one exempt from Assumption 1 (the label in
Algorithm 2). BCDP never replaces LDP: every BCDP mechanism here is also epsilon-LDP, and the
LDP baseline (``min(deltas)``-LDP, Proposition 3) should always be shown next to it, because the
schedule of Theorem 2 can lose to it (see :func:`bcdp_explorer_data`).

Floating-point caveat: the samplers use floating-point arithmetic, which is not exactly
differentially private (Mironov, 2012). This is a teaching and research package.
"""

from __future__ import annotations

import functools
import itertools
import numbers
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.optimize import brentq, linprog
from scipy.special import gammaln
from sklearn.base import BaseEstimator

from ._rng import as_generator
from ._validation import check_epsilon, check_int

WEIGHTS = ("paper", "inverse_variance")
# Cap on the entries of the (reps * n, d') work arrays of the Monte Carlo: bounded memory.
_CHUNK_ENTRIES = 1 << 22
# The exact channel of Mechanism 1 enumerates 2^(2^(d-1)) sign patterns per block.
_MAX_EXACT_DIM = 4


# ----------------------------------------------------------------------------------------------
# Input checks (each error names its argument)
# ----------------------------------------------------------------------------------------------
def _check_real(value, name, low=None, high=None, low_open=False, allow_inf=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or np.isnan(value):
        raise ValueError(f"{name} must be a real number, got {value!r}.")
    value = float(value)
    if not allow_inf and not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}.")
    if low is not None and (value < low or (low_open and value == low)):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}, got {value!r}.")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high}, got {value!r}.")
    return value


def _check_alpha(alpha, name="alpha"):
    """A budget in [0, inf]: 0 releases nothing, inf is the non-private limit."""
    return _check_real(alpha, name, low=0.0, allow_inf=True)


def _check_epsilon(epsilon, name="epsilon"):
    """The overall LDP budget: positive and finite (Theorem 2 spends it in finite steps)."""
    epsilon = check_epsilon(epsilon, name)
    if not np.isfinite(epsilon):
        raise ValueError(f"{name} must be finite for BCDP mechanisms, got {epsilon!r}.")
    return epsilon


def _check_q(q, name="q"):
    return _check_real(q, name, low=0.0, high=1.0)


def _check_zeta(zeta, q, name="zeta"):
    """zeta in (0, 1]; None is the heuristic ``(1 + q) / 2`` of Appendix B.3."""
    if zeta is None:
        return (1.0 + q) / 2.0
    return _check_real(zeta, name, low=0.0, high=1.0, low_open=True)


def _check_deltas(deltas, n_features=None, name="deltas"):
    """Per-coordinate BCDP demands: 1-D, >= 0 (inf allowed), non-decreasing."""
    try:
        arr = np.asarray(deltas, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of budgets, got {deltas!r}.")
    if n_features is not None and arr.size != n_features:
        raise ValueError(f"{name} has {arr.size} entries but the data have {n_features} "
                         "coordinates; give one delta per coordinate.")
    if np.any(np.isnan(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must contain numbers >= 0 (np.inf: no coordinate demand).")
    if np.any(arr[1:] < arr[:-1]):  # not np.diff: inf - inf is nan
        raise ValueError(f"{name} must be non-decreasing: order the coordinates from the most to "
                         "the least sensitive (Section 4 of the BCDP paper).")
    return arr


def _check_schedule(c, n_features=None, name="c"):
    """Cumulative budgets c_1 <= ... <= c_d of Mechanism 1, finite and >= 0."""
    arr = np.asarray(c, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}.")
    if n_features is not None and arr.size != n_features:
        raise ValueError(f"{name} has {arr.size} entries but the data have {n_features} "
                         "coordinates.")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(np.diff(arr) < 0):
        raise ValueError(f"{name} must be finite, >= 0 and non-decreasing (cumulative budgets "
                         f"of Mechanism 1), got {arr!r}.")
    return arr


def _check_box(X, name="X"):
    """A finite (n, d) array with entries in the paper's box [-1, 1]."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array (n_samples, n_features), "
                         f"got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or inf.")
    if np.any(np.abs(X) > 1.0):
        raise ValueError(f"{name} has values outside the box [-1, 1] of the BCDP paper "
                         f"(min {X.min():.3g}, max {X.max():.3g}); rescale with public bounds.")
    return X


def _check_weights(weights, name="weights"):
    if weights not in WEIGHTS:
        raise ValueError(f"{name} must be one of {list(WEIGHTS)}, got {weights!r}.")
    return weights


# ----------------------------------------------------------------------------------------------
# Mechanism 3: Duchi et al.'s l2-ball channel, with the unbiased constant
# ----------------------------------------------------------------------------------------------
def l2_constant(dim, alpha, r):
    """Radius ``B`` of the output sphere of Mechanism 3 that makes the channel unbiased.

    ``B = (sqrt(pi) / 2) d' r coth(alpha / 2) Gamma((d' + 1) / 2) / Gamma(d' / 2 + 1)``.

    Mechanism 3 as printed (Appendix B.1) has ``sqrt(pi)`` instead of ``sqrt(pi) / 2``: with
    that constant the output mean is ``2 v``. Derivation: a uniform point of the unit
    hemisphere around ``w`` has mean ``m_d w`` with
    ``m_d = Gamma(d'/2) / (sqrt(pi) Gamma((d'+1)/2))``; the hemisphere is the right one with
    probability ``e^alpha / (e^alpha + 1)`` and ``E[v~] = v``, so
    ``E[Z] = B m_d tanh(alpha/2) v / r`` and ``B = r / (m_d tanh(alpha / 2))``, which is the
    formula above.

    Parameters
    ----------
    dim : int or array of int
        Dimension ``d'`` of the vector released.
    alpha : float or array
        Budget in [0, inf]; ``alpha = 0`` gives ``inf`` (no unbiased release exists).
    r : float
        Radius of the l2 ball holding the inputs.
    """
    dim = np.asarray(dim, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    half = np.tanh(alpha / 2.0)
    coth = np.divide(1.0, half, out=np.full(np.broadcast(half).shape, np.inf), where=half > 0)
    gamma_ratio = np.exp(gammaln((dim + 1.0) / 2.0) - gammaln(dim / 2.0 + 1.0))
    out = 0.5 * np.sqrt(np.pi) * dim * r * coth * gamma_ratio
    return float(out) if out.ndim == 0 else out


def _second_moment(dim, alpha, r):
    """Per-coordinate ``E[Z_i^2] = B^2 / d'`` of Mechanism 3, the same for every input.

    The hemisphere's second-moment matrix equals the whole sphere's, ``B^2 I / d'``, so
    ``Var(Z_i | v) = B^2 / d' - v_i^2`` exactly.
    """
    return l2_constant(dim, alpha, r) ** 2 / np.asarray(dim, dtype=float)


def l2_mechanism(V, alpha, r, rng):
    """Duchi et al.'s l2-ball channel (Mechanism 3 of the BCDP paper), one row per user.

    For each row ``v`` with ``||v|| <= r``: draw ``S ~ Bern(1/2 + ||v|| / (2r))`` and set
    ``v~ = (2S - 1) r v / ||v||``; draw ``K ~ Bern(e^alpha / (e^alpha + 1))``; release ``Z``
    uniform on the sphere of radius ``B`` (:func:`l2_constant`), restricted to the half
    ``(2K - 1) z . v~ > 0``. Then ``E[Z | v] = v`` and ``E[Z Z^T | v] = B^2 I / d'``.

    Parameters
    ----------
    V : (n, d') or (d',) array
        Inputs, each in the l2 ball of radius ``r``. A row ``v = 0`` has no direction: the
        first axis is used, which gives the same output law (uniform on the sphere) as any
        other choice.
    alpha : float
        Budget in [0, inf]. ``alpha = 0`` releases nothing: the output is the constant 0
        (0-LDP, carries no information, and is *not* an unbiased estimate of ``v``, since the
        unbiased ``B`` is infinite). :func:`mean_mechanism` skips such blocks (weight 0).
    r : float
        Public radius of the l2 ball, > 0.
    rng : numpy Generator (or anything :func:`ldpviz._rng.as_generator` accepts)

    Returns
    -------
    Z : array of the shape of ``V``.

    Privacy: the output density on the sphere (relative to uniform) is
    ``2 (a p + (1 - a)(1 - p))`` on the half ``z . v > 0`` and ``2 (a (1 - p) + (1 - a) p)`` on
    the other, with ``p = e^alpha / (1 + e^alpha)`` and ``a = 1/2 + ||v|| / (2r)``. Both values lie
    in ``[2(1 - p), 2p]``, so the density ratio between any two inputs is at most
    ``p / (1 - p) = e^alpha``: the channel is alpha-LDP.
    """
    V = np.asarray(V, dtype=float)
    squeeze = V.ndim == 1
    if squeeze:
        V = V[None, :]
    if V.ndim != 2 or V.shape[1] == 0:
        raise ValueError(f"V must be (n, d') or (d',), got shape {np.shape(V)}.")
    if not np.all(np.isfinite(V)):
        raise ValueError("V contains NaN or inf.")
    alpha = _check_alpha(alpha)
    r = _check_real(r, "r", low=0.0, low_open=True)
    rng = as_generator(rng)
    n, dim = V.shape
    norms = np.linalg.norm(V, axis=1)
    if np.any(norms > r * (1.0 + 1e-9)):
        raise ValueError(f"V has rows of l2 norm up to {norms.max():.6g}, outside the ball of "
                         f"radius r = {r:.6g}.")
    if alpha == 0.0:
        out = np.zeros_like(V)
        return out[0] if squeeze else out
    norms = np.minimum(norms, r)
    u = np.zeros_like(V)
    u[:, 0] = 1.0
    nonzero = norms > 0
    u[nonzero] = V[nonzero] / norms[nonzero, None]
    s_plus = rng.random(n) < 0.5 + norms / (2.0 * r)
    k_plus = rng.random(n) < 1.0 / (1.0 + np.exp(-alpha))
    side = np.where(s_plus == k_plus, 1.0, -1.0)  # (2S - 1)(2K - 1)
    G = rng.standard_normal((n, dim))
    # Flipping a uniform point of the sphere onto the wanted half keeps it uniform there.
    flip = np.where(np.einsum("ij,ij->i", G, u) * side >= 0, 1.0, -1.0)
    Z = G * (flip * l2_constant(dim, alpha, r) / np.linalg.norm(G, axis=1))[:, None]
    return Z[0] if squeeze else Z


# ----------------------------------------------------------------------------------------------
# Theorem 2: the budget schedule
# ----------------------------------------------------------------------------------------------
def budget_schedule(deltas, epsilon, q, zeta=None):
    """Cumulative per-coordinate budgets ``c`` of Theorem 2 (eq 16).

    With ``delta~_i = min(delta_i, epsilon)``::

        c_d = min(log((e^(zeta delta~_1) + q - 1) / q), delta~_d)
        c_i = c_d                                  if c_d <= delta~_i        (i < d)
              delta~_i - log(1 + q e^(c_d) - q)    otherwise.

    Parameters
    ----------
    deltas : (d,) array
        BCDP demands, non-decreasing (most sensitive coordinate first), >= 0; ``np.inf``
        means "no demand beyond epsilon".
    epsilon : float
        Overall LDP budget, positive and finite.
    q : float in [0, 1]
        Bound on the dependence between coordinates (Assumption 1, eq 15). ``q = 0``
        (independent coordinates) is the limit of the formula: ``c = min(deltas, epsilon)``.
    zeta : float in (0, 1] or None
        Share of ``delta~_1`` that the correlation may spend. None: ``(1 + q) / 2``, the
        heuristic of Appendix B.3. With ``zeta = 1`` and ``q < 1``, ``c_1`` can be 0: the most
        sensitive coordinate is then not estimated at all.

    Returns
    -------
    c : (d,) array, non-decreasing, ``0 <= c_i`` and ``c_d <= epsilon``.

    Privacy: Mechanism 1 run with ``c`` is ``c_d``-LDP (hence epsilon-LDP) and, under
    Assumption 1, delta-BCDP (Theorem 2, via Proposition 4).
    """
    epsilon = _check_epsilon(epsilon)
    q = _check_q(q)
    zeta = _check_zeta(zeta, q)
    dt = np.minimum(_check_deltas(deltas), epsilon)
    if q == 0.0:
        return dt.copy()
    # log((e^x + q - 1) / q) = log1p(expm1(x) / q), stable for small x and q.
    c_d = min(float(np.log1p(np.expm1(zeta * dt[0]) / q)), float(dt[-1]))
    correction = float(np.log1p(q * np.expm1(c_d)))
    c = np.where(c_d <= dt, c_d, dt - correction)
    c[-1] = c_d
    return np.maximum(c, 0.0)


def _increments(c):
    """Per-block budgets ``alpha_k = c_k - c_{k-1}`` (c_0 = 0); rounding below 0 is clipped."""
    return np.maximum(np.diff(c, prepend=0.0), 0.0)


def _block_weights(c, weights="paper"):
    """Weights w_k of Mechanism 1; zero-budget blocks get weight 0 (they are skipped).

    "paper": ``w_k = (c_k - c_{k-1})^2 / (d - k + 1)``, as printed. "inverse_variance":
    ``w_k = d'_k / B_k^2``, the inverse of block k's per-coordinate variance bound
    (:func:`_second_moment`). For small budgets and large ``d'`` this is about
    ``alpha_k^2 / (2 pi d'_k)``: the paper's weights up to a constant factor.
    """
    inc = _increments(c)
    dims = len(c) - np.arange(len(c))
    on = inc > 0
    w = np.zeros(len(c))
    if weights == "paper":
        w[on] = inc[on] ** 2 / dims[on]
    else:
        w[on] = 1.0 / _second_moment(dims[on], inc[on], np.sqrt(dims[on]))
    return w


# ----------------------------------------------------------------------------------------------
# Mechanism 1: mean estimation
# ----------------------------------------------------------------------------------------------
def mean_mechanism(X, c, rng, weights="paper"):
    """Each user's report of Mechanism 1, ``M_mean(x, c)``, unprojected: shape (n, d).

    For blocks ``k = 1..d`` the user releases ``Y^k = l2_mechanism(x_{k:d}, c_k - c_{k-1},
    sqrt(d - k + 1))``; coordinate ``i`` is estimated by
    ``sum_{k<=i} w_k Y^k_{i+1-k} / sum_{k<=i} w_k``. Blocks with a zero budget are not run.

    Parameters
    ----------
    X : (n, d) array in [-1, 1]^d, sorted from the most to the least sensitive coordinate.
    c : (d,) non-decreasing cumulative budgets (:func:`budget_schedule`). ``c = alpha * ones``
        is the plain alpha-LDP l2 mechanism on the whole vector (one block).
    rng : numpy Generator
    weights : {"paper", "inverse_variance"}
        See :func:`_block_weights`.

    Returns
    -------
    (n, d) array of unbiased estimates of each user's x, except for coordinates that no block
    reaches (``c_i = 0``): those are 0, the centre of the box.

    Privacy: block k is ``(c_k - c_{k-1})``-LDP, so a user's release is ``c_d``-LDP by
    composition and c-CDP; with ``c`` from :func:`budget_schedule` it is delta-BCDP under
    Assumption 1 (Theorem 2).
    """
    X = _check_box(X)
    n, d = X.shape
    c = _check_schedule(c, d)
    _check_weights(weights)
    rng = as_generator(rng)
    inc = _increments(c)
    w = _block_weights(c, weights)
    out = np.zeros((n, d))
    for k in np.flatnonzero(inc > 0):
        out[:, k:] += w[k] * l2_mechanism(X[:, k:], inc[k], np.sqrt(d - k), rng)
    return _normalise(out, np.cumsum(w))


def _normalise(total, weight_sums):
    """Divide by the cumulative weights; coordinates no block reaches stay 0."""
    reached = weight_sums > 0
    out = np.zeros_like(total)
    out[..., reached] = total[..., reached] / weight_sums[reached]
    return out


def _simulate_means(X, c, reps, rng, weights):
    """``reps`` independent runs of the server's unprojected average, shape (reps, d).

    Users are processed for several repetitions at once (vectorised), in chunks that keep the
    work arrays below ``_CHUNK_ENTRIES`` entries.
    """
    n, d = X.shape
    inc = _increments(c)
    w = _block_weights(c, weights)
    totals = np.zeros((reps, d))
    chunk = max(1, _CHUNK_ENTRIES // (n * d))
    for start in range(0, reps, chunk):
        m = min(chunk, reps - start)
        for k in np.flatnonzero(inc > 0):
            V = np.tile(X[:, k:], (m, 1))
            Y = l2_mechanism(V, inc[k], np.sqrt(d - k), rng)
            totals[start:start + m, k:] += w[k] * Y.reshape(m, n, d - k).mean(axis=1)
    return _normalise(totals, np.cumsum(w))


class _MeanBase(BaseEstimator):
    """Shared fit for the mean estimators: checked data, one run of Mechanism 1, projection."""

    def _fit_schedule(self, X, c, weights="paper"):
        _check_weights(weights)
        rng = as_generator(self.random_state)
        raw = mean_mechanism(X, c, rng, weights).mean(axis=0)
        self.c_ = c
        self.weights_ = _block_weights(c, weights)
        self.n_features_in_ = X.shape[1]
        self.mean_ = np.clip(raw, -1.0, 1.0) if self.project else raw
        return self


class BCDPMean(_MeanBase):
    """Mean estimation under epsilon-LDP and delta-BCDP (Mechanism 1 with Theorem 2's ``c``).

    Each user runs :func:`mean_mechanism` with ``c = budget_schedule(deltas, epsilon, q,
    zeta)``; the server averages the reports and (by default) projects the average onto the box
    ``[-1, 1]^d`` (the ``Pi`` of eq 17). Projection is post-processing: it costs no privacy and
    never increases the error of any coordinate, but it biases the estimate; ``project=False``
    shows the unbiased average.

    Parameters
    ----------
    epsilon : float
        Overall LDP budget per user, positive and finite.
    deltas : (d,) array
        Per-coordinate BCDP demands, non-decreasing (most sensitive coordinate first).
    q : float in [0, 1]
        Public bound on the dependence between coordinates (Assumption 1).
    zeta : float in (0, 1] or None, default=None
        Free parameter of Theorem 2; None: ``(1 + q) / 2`` (Appendix B.3).
    project : bool, default=True
        Clip the average into ``[-1, 1]^d``.
    weights : {"paper", "inverse_variance"}, default="paper"
        Combination weights of the nested queries (see :func:`mean_mechanism`).
    random_state : None, int, or numpy Generator
        Drives all privacy noise: the same seed gives the same estimate.

    Attributes
    ----------
    mean_ : (d,) estimated mean.
    c_ : (d,) the budget schedule used.
    weights_ : (d,) the block weights (0 for skipped blocks).
    n_features_in_ : int

    Privacy: every user's release is ``c_d``-LDP (``c_d <= epsilon``) and, for priors
    satisfying Assumption 1 with this ``q``, delta-BCDP (Theorem 2). The average and the
    projection are post-processing (Proposition 5). BCDP does not compose (Example 2): a
    second release by the same user needs its own accounting (Algorithm 2 halves ``c``).
    """

    def __init__(self, epsilon=1.0, deltas=None, q=0.0, zeta=None, project=True,
                 weights="paper", random_state=None):
        self.epsilon = epsilon
        self.deltas = deltas
        self.q = q
        self.zeta = zeta
        self.project = project
        self.weights = weights
        self.random_state = random_state

    def fit(self, X, y=None):
        """Privatise every row of ``X`` (n, d) in [-1, 1]^d and estimate the mean."""
        X = _check_box(X)
        if self.deltas is None:
            raise ValueError("deltas must be given: one BCDP demand per coordinate.")
        deltas = _check_deltas(self.deltas, X.shape[1])
        c = budget_schedule(deltas, self.epsilon, self.q, self.zeta)
        return self._fit_schedule(X, c, self.weights)


class LDPMean(_MeanBase):
    """The plain epsilon-LDP baseline: Duchi et al.'s l2 mechanism on the whole vector.

    Each user releases ``l2_mechanism(x, epsilon, sqrt(d))`` (Mechanism 3); the server averages
    and (by default) projects onto ``[-1, 1]^d``. Run with ``epsilon = min(deltas)`` it is the
    ``min delta``-LDP baseline of Appendix B.3, which is delta-BCDP for every prior
    (Proposition 3).

    Parameters
    ----------
    epsilon : float
        LDP budget per user, positive and finite.
    project : bool, default=True
    random_state : None, int, or numpy Generator

    Attributes
    ----------
    mean_, c_ (= epsilon * ones), weights_, n_features_in_ : as in :class:`BCDPMean`.

    Privacy: epsilon-LDP per user (Mechanism 3), hence epsilon-BCDP on every coordinate.
    """

    def __init__(self, epsilon=1.0, project=True, random_state=None):
        self.epsilon = epsilon
        self.project = project
        self.random_state = random_state

    def fit(self, X, y=None):
        """Privatise every row of ``X`` (n, d) in [-1, 1]^d and estimate the mean."""
        X = _check_box(X)
        epsilon = _check_epsilon(self.epsilon)
        return self._fit_schedule(X, np.full(X.shape[1], epsilon))


# ----------------------------------------------------------------------------------------------
# Closed-form MSE and its Monte Carlo counterpart
# ----------------------------------------------------------------------------------------------
def expected_mse_pm1(c, n, xbar=None, weights="paper"):
    """Exact per-coordinate MSE of the unprojected Mechanism 1 average on {-1, +1} data.

    For block k (dimension ``d'_k = d - k + 1``, budget ``alpha_k = c_k - c_{k-1}``) a
    coordinate's report has variance ``B_k^2 / d'_k - x^2 = B_k^2 / d'_k - 1`` for every user
    (:func:`l2_constant`; exact, not a bound). Blocks and users are independent, so

        MSE_i = (1/n) sum_{k<=i} w_k^2 (B_k^2 / d'_k - 1) / (sum_{k<=i} w_k)^2,

    conditional on the data, whatever their joint law (the correlation ``q`` acts only through
    ``c``). A coordinate no block reaches (``c_i = 0``) is estimated by 0: its error is
    ``xbar_i^2``. The projected estimator's MSE is never larger (projection onto a box that
    contains the true mean is a contraction). The paper's bound (eq 17) is this up to constants.

    Parameters
    ----------
    c : (d,) cumulative budgets. For the alpha-LDP baseline pass ``np.full(d, alpha)``.
    n : int, number of users.
    xbar : (d,) array or None
        The data mean, used only for unreached coordinates (None: 0).
    weights : {"paper", "inverse_variance"}
    """
    c = _check_schedule(c)
    n = check_int(n, "n", 1)
    _check_weights(weights)
    d = len(c)
    xbar = np.zeros(d) if xbar is None else np.asarray(xbar, dtype=float)
    if xbar.shape != (d,):
        raise ValueError(f"xbar must have shape ({d},), got {xbar.shape}.")
    inc = _increments(c)
    dims = d - np.arange(d)
    w = _block_weights(c, weights)
    var = np.zeros(d)
    on = inc > 0
    var[on] = _second_moment(dims[on], inc[on], np.sqrt(dims[on])) - 1.0
    mse = _normalise(np.cumsum(w**2 * var), np.cumsum(w) ** 2) / n
    reached = np.cumsum(w) > 0
    return np.where(reached, mse, xbar**2)


class MonteCarloMSE(NamedTuple):
    """Per-coordinate mean squared error over repetitions and its standard error."""

    mse: np.ndarray
    stderr: np.ndarray


def monte_carlo_mse(c, X, reps=100, project=False, weights="paper", random_state=None):
    """Monte Carlo estimate of the per-coordinate MSE of the Mechanism 1 average on data ``X``.

    Runs the whole protocol ``reps`` times on the same users (vectorised over users and
    repetitions) and averages ``(estimate_i - xbar_i)^2``. With ``project=False`` and {-1, +1}
    data it estimates the same quantity as :func:`expected_mse_pm1`.

    Parameters
    ----------
    c : (d,) cumulative budgets (``np.full(d, alpha)`` for the alpha-LDP baseline).
    X : (n, d) array in [-1, 1]^d.
    reps : int, number of independent runs.
    project : bool, clip each run's average into [-1, 1]^d.
    weights : {"paper", "inverse_variance"}
    random_state : None, int, or numpy Generator

    Returns
    -------
    MonteCarloMSE(mse, stderr), two (d,) arrays.
    """
    X = _check_box(X)
    c = _check_schedule(c, X.shape[1])
    reps = check_int(reps, "reps", 2)
    _check_weights(weights)
    est = _simulate_means(X, c, reps, as_generator(random_state), weights)
    return _mse_from_runs(est, X.mean(axis=0), project)


def _mse_from_runs(est, xbar, project):
    if project:
        est = np.clip(est, -1.0, 1.0)
    sq = (est - xbar) ** 2
    return MonteCarloMSE(sq.mean(axis=0), sq.std(axis=0, ddof=1) / np.sqrt(len(sq)))


# ----------------------------------------------------------------------------------------------
# The prior of Appendix B.3 (eqs 57-58)
# ----------------------------------------------------------------------------------------------
def sample_correlated_pm1(n, d, q, rng):
    """n users from the prior of eqs (57)-(58), coded in {-1, +1}: shape (n, d).

    With probability ``q`` every coordinate equals one fair coin ``Z``; otherwise the
    coordinates are i.i.d. fair coins. Then ``TV(pi_{x_-i | x_i = 1}, pi_{x_-i | x_i = -1}) = q``
    for every i: Assumption 1 holds with this q (see :func:`correlation_tv`).
    """
    n = check_int(n, "n", 1)
    d = check_int(d, "d", 1)
    q = _check_q(q)
    rng = as_generator(rng)
    copy = rng.random(n) < q
    common = rng.random(n) < 0.5
    bits = np.where(copy[:, None], common[:, None], rng.random((n, d)) < 0.5)
    return np.where(bits, 1.0, -1.0)


def correlated_bernoulli_pmf(d, q):
    """Joint pmf of eqs (57)-(58) on {0, 1}^d, shape (2,) * d (index 0 = bit 0 = -1 in +-1 code)."""
    d = check_int(d, "d", 1, _MAX_EXACT_DIM * 4)
    q = _check_q(q)
    pmf = np.full((2,) * d, (1.0 - q) / 2.0**d)
    pmf[(0,) * d] += q / 2.0
    pmf[(1,) * d] += q / 2.0
    return pmf


# ----------------------------------------------------------------------------------------------
# Exact calculator on finite spaces
# ----------------------------------------------------------------------------------------------
def _check_prior(prior, name="prior"):
    prior = np.asarray(prior, dtype=float)
    if prior.ndim == 0 or prior.size == 0:
        raise ValueError(f"{name} must be a joint pmf with one axis per coordinate.")
    if not np.all(np.isfinite(prior)) or np.any(prior < 0) or abs(prior.sum() - 1.0) > 1e-9:
        raise ValueError(f"{name} must be non-negative and sum to 1 (sum {prior.sum():.6g}).")
    return prior


def _check_channel(channel, input_shape=None, name="channel"):
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


def _log_ratio_range(table):
    """max over columns of log(max over rows / min over rows); inf if some row is 0 where
    another is positive. Columns that are 0 for every row are events of probability 0."""
    hi = table.max(axis=0)
    lo = table.min(axis=0)
    live = hi > 0
    if not np.any(live):
        return 0.0
    if np.any(lo[live] == 0):
        return np.inf
    return float(np.max(np.log(hi[live] / lo[live])))


def bcdp_deltas(prior, channel):
    """Smallest delta such that ``(prior, channel)`` is delta-BCDP (Definition 4), exactly.

    For finite spaces the supremum in eq (10) over events ``R``, ``S_i``, ``S'_i`` is reached
    at single points (a ratio of sums is at most the largest ratio of its terms, and
    ``P(y | x_i in S)`` is a mixture of the ``P(y | x_i = s)``), so

        delta_i = max_y max_{s, s'} log P(y | x_i = s) / P(y | x_i = s'),

    over values ``s, s'`` of positive prior probability.

    Parameters
    ----------
    prior : array of shape (m_1, ..., m_d)
        Joint pmf of the d coordinates.
    channel : array of shape (m_1, ..., m_d, n_outputs)
        ``channel[x, y] = P(M(x) = y)``.

    Returns
    -------
    (d,) array; ``inf`` where an output rules out a value of the coordinate.
    """
    prior = _check_prior(prior)
    channel = _check_channel(channel, prior.shape)
    joint = prior[..., None] * channel
    out = np.empty(prior.ndim)
    for i in range(prior.ndim):
        other = tuple(j for j in range(prior.ndim) if j != i)
        marg = prior.sum(axis=other)
        pos = marg > 0
        cond = joint.sum(axis=other)[pos] / marg[pos, None]
        out[i] = _log_ratio_range(cond)
    return out


def ldp_epsilon(channel):
    """Smallest epsilon such that the channel is epsilon-LDP (Definition 1), exactly.

    ``max_y max_{x, x'} log P(y | x) / P(y | x')`` over *all* inputs (LDP ignores the prior);
    ``inf`` if some output is impossible for one input and possible for another.

    Parameters
    ----------
    channel : array of shape input_shape + (n_outputs,)
    """
    channel = _check_channel(channel)
    return _log_ratio_range(channel.reshape(-1, channel.shape[-1]))


def correlation_tv(prior):
    """Per-coordinate dependence ``q_i`` of eq (13)/(15), exactly, for a finite prior.

    ``q_i = max_{s, s'} TV(pi_{x_-i | x_i = s}, pi_{x_-i | x_i = s'})``; the supremum over events
    is reached at single values because TV is convex. Assumption 1 holds with
    ``q = max(q_1, ..., q_{d-1})`` (the last coordinate is exempt).
    """
    prior = _check_prior(prior)
    d = prior.ndim
    out = np.zeros(d)
    for i in range(d):
        rows = np.moveaxis(prior, i, 0).reshape(prior.shape[i], -1)
        marg = rows.sum(axis=1)
        cond = rows[marg > 0] / marg[marg > 0, None]
        if len(cond) > 1:
            diff = np.abs(cond[:, None, :] - cond[None, :, :]).sum(axis=-1) / 2.0
            out[i] = diff.max()
    return out


def product_channel(*channels):
    """Channel of independent runs of several channels on the same input (composition).

    Outputs are the tuples of outputs, flattened in C order. BCDP does not compose in general
    (Example 2); LDP and CDP do.
    """
    if not channels:
        raise ValueError("channels: give at least one channel.")
    out = _check_channel(channels[0], name="channels[0]")
    for j, ch in enumerate(channels[1:], start=1):
        ch = _check_channel(ch, out.shape[:-1], name=f"channels[{j}]")
        out = (out[..., :, None] * ch[..., None, :]).reshape((*out.shape[:-1], -1))
    return out


def paper_example_1(a=0.5, b=0.5, c=0.5):
    """(prior, channel) of Example 1: BCDP without LDP.

    ``x1, x2`` i.i.d. Bern(1/2); ``P(M = 1 | x) = a, b, 0, c`` for ``(x1, x2) = (0,0), (1,0),
    (0,1), (1,1)``. With ``a = b = c = 1/2`` it is (log 2, log 2)-BCDP and not LDP.
    Channel axes: (x1, x2, output in {0, 1}).
    """
    for name, v in (("a", a), ("b", b), ("c", c)):
        _check_real(v, name, low=0.0, high=1.0, low_open=True)
    p1 = np.array([[a, 0.0], [b, c]])  # p1[x1, x2]
    return np.full((2, 2), 0.25), np.stack([1.0 - p1, p1], axis=-1)


def paper_example_2():
    """(prior, channel) of Example 2 (eq 14): 0-BCDP for x1, but two copies are not BCDP.

    ``x`` uniform on {0, 1}^3; ``M(x) = (x1 xor x2, x3)`` or ``(x2, x1 xor x3)`` with probability
    1/2 each. Output index ``2 * o1 + o2``. Channel axes: (x1, x2, x3, output).
    """
    channel = np.zeros((2, 2, 2, 4))
    for x1, x2, x3 in itertools.product((0, 1), repeat=3):
        channel[x1, x2, x3, 2 * (x1 ^ x2) + x3] += 0.5
        channel[x1, x2, x3, 2 * x2 + (x1 ^ x3)] += 0.5
    return np.full((2, 2, 2), 1.0 / 8.0), channel


@functools.cache
def _sign_patterns(dim):
    """Realisable sign patterns of ``z -> (sign(z . h))_h`` and the normals ``h``.

    ``h`` runs over {-1, +1}^dim with first entry +1 (one per antipodal pair). A pattern ``t``
    is realisable when the open cone ``{z : t_j z . h_j > 0}`` is non-empty, decided exactly
    by a linear feasibility problem.
    """
    rest = np.array(list(itertools.product((1.0, -1.0), repeat=dim - 1)), dtype=float)
    rest = rest.reshape(2 ** (dim - 1), dim - 1)
    normals = np.hstack([np.ones((len(rest), 1)), rest])
    m = len(normals)
    found = []
    for t in itertools.product((1.0, -1.0), repeat=m):
        A = -np.asarray(t)[:, None] * normals
        res = linprog(np.zeros(dim), A_ub=A, b_ub=-np.ones(m), bounds=[(None, None)] * dim,
                      method="highs")
        if res.status == 0:
            found.append(t)
    return normals, np.array(found)


def _l2_block_channel(dim, alpha):
    """Exact finite channel of Mechanism 3 on {-1, +1}^dim inputs (axes (2,)*dim + (N,)).

    For such inputs ``||x|| = r = sqrt(dim)``, so the output density on the sphere is ``2p`` on
    the half ``z . x > 0`` and ``2(1 - p)`` on the other: it depends on ``z`` only through the
    signs ``(sign(z . h))_h``, a sufficient statistic. Likelihood ratios between inputs are
    those of this finite channel; the areas of the sign cells cancel in every ratio, so each
    realisable cell gets the same mass 1/N (rows still sum to 1 by antipodal symmetry).
    """
    normals, patterns = _sign_patterns(dim)
    p = 1.0 / (1.0 + np.exp(-alpha))
    inputs = np.array(list(itertools.product((-1.0, 1.0), repeat=dim)))
    # x = x_0 h_j for the normal h_j = x_0 x, so sign(z . x) = x_0 t_j.
    j = np.array([np.flatnonzero(np.all(normals == x[0] * x, axis=1))[0] for x in inputs])
    signs = inputs[:, :1] * patterns[:, j].T
    probs = np.where(signs > 0, 2.0 * p, 2.0 * (1.0 - p)) / len(patterns)
    return probs.reshape((2,) * dim + (len(patterns),))


def mean_mechanism_channel(c):
    """Exact finite channel of Mechanism 1 (unprojected) on {-1, +1}^d inputs, d <= 4.

    Input axes index each coordinate (0 = -1, 1 = +1, matching
    :func:`correlated_bernoulli_pmf`); outputs are the joint sign patterns of all blocks (see
    :func:`_l2_block_channel`). The combination with weights and the projection are
    post-processing, so ``bcdp_deltas(prior, mean_mechanism_channel(c))`` and
    ``ldp_epsilon(...)`` are the exact privacy levels of :class:`BCDPMean` for that prior.
    ``c = alpha * ones`` gives the alpha-LDP baseline. Zero-budget blocks release nothing.
    """
    c = _check_schedule(c)
    d = len(c)
    if d > _MAX_EXACT_DIM:
        raise ValueError(f"c has {d} entries; the exact channel is limited to d <= "
                         f"{_MAX_EXACT_DIM} (it enumerates 2^(2^(d-1)) sign patterns).")
    out = np.ones((2,) * d + (1,))
    inc = _increments(c)
    for k in np.flatnonzero(inc > 0):
        block = _l2_block_channel(d - k, inc[k]).reshape((1,) * k + (2,) * (d - k) + (-1,))
        out = (out[..., :, None] * block[..., None, :]).reshape((2,) * d + (-1,))
    return out


# ----------------------------------------------------------------------------------------------
# Algorithm 2: least squares
# ----------------------------------------------------------------------------------------------
class OLSResult(NamedTuple):
    """Output of :func:`bcdp_ols` / :func:`ldp_ols`.

    coef : (d - 1,) minimiser of the private objective over the ball.
    c : (d,) budget schedule of the whole protocol (each report used ``c / 2``).
    min_eigenvalue : smallest eigenvalue of the symmetrised quadratic form; < 0 means the
        private objective is non-convex.
    on_boundary : whether the minimiser lies on the sphere ``||theta|| = radius``.
    """

    coef: np.ndarray
    c: np.ndarray
    min_eigenvalue: float
    on_boundary: bool


def _trust_region(H, b, radius):
    """Global minimiser of ``theta^T H theta / 2 - b^T theta`` over ``||theta|| <= radius``.

    H symmetric, possibly indefinite (the trust-region subproblem: its optimum satisfies
    ``(H + mu I) theta = b`` with ``mu >= 0``, ``H + mu I`` positive semi-definite and
    ``mu (radius - ||theta||) = 0``). ``mu`` is found with :func:`scipy.optimize.brentq` on the
    secular equation; the "hard case" adds a multiple of the bottom eigenvector.
    """
    lam, Q = np.linalg.eigh(H)
    beta = Q.T @ b
    scale = max(1.0, float(np.abs(lam).max()), float(np.linalg.norm(b)))
    tol = 1e-12 * scale
    lmin = float(lam[0])

    def theta(mu):
        return Q @ (beta / (lam + mu))

    if lmin > tol:
        t = theta(0.0)
        if np.linalg.norm(t) <= radius:
            return t, False
    lo = max(0.0, -lmin)
    bottom = lam - lmin <= tol
    if np.all(np.abs(beta[bottom]) <= tol):
        # Possible hard case: solve on the other eigen-directions at mu = lo.
        coef = np.zeros_like(beta)
        coef[~bottom] = beta[~bottom] / (lam[~bottom] + lo)
        t = Q @ coef
        gap = radius**2 - float(t @ t)
        if gap >= 0:
            if lo == 0.0:
                return t, bool(np.isclose(gap, 0.0))
            return t + np.sqrt(gap) * Q[:, 0], True

    def secular(mu):
        return float(np.linalg.norm(beta / (lam + mu))) - radius

    step = tol
    a = lo + step
    while secular(a) <= 0:  # numerically close to the hard case: approach lo from above
        step /= 16.0
        if lo + step == lo:
            t = theta(a)  # ||t|| <= radius: complete to the sphere along the bottom direction
            return t + np.sqrt(max(radius**2 - float(t @ t), 0.0)) * Q[:, 0], True
        a = lo + step
    hi = lo + float(np.linalg.norm(b)) / radius + 1.0
    mu = brentq(secular, a, hi, xtol=1e-14, rtol=1e-13, maxiter=500)
    return theta(mu), True


def _private_ols(Z, y, c, radius, rng, weights):
    X = np.column_stack([Z, y])
    d = X.shape[1]
    c = _check_schedule(c, d)
    half = c / 2.0
    R1 = mean_mechanism(X, half, rng, weights)
    R2 = mean_mechanism(X, half, rng, weights)
    n = len(X)
    A = R1[:, :-1].T @ R2[:, :-1] / n  # unbiased for Z^T Z / n: the reports are independent
    b = R2[:, :-1].T @ R1[:, -1] / n  # unbiased for Z^T y / n
    H = (A + A.T) / 2.0  # theta^T A theta = theta^T H theta
    coef, on_boundary = _trust_region(H, b, radius)
    return OLSResult(coef, c, float(np.linalg.eigvalsh(H)[0]), on_boundary)


def _check_ols_data(Z, y):
    Z = _check_box(Z, "Z")
    y = np.asarray(y, dtype=float)
    if y.ndim != 1 or len(y) != len(Z):
        raise ValueError(f"y must be 1-D with {len(Z)} entries, got shape {y.shape}.")
    if not np.all(np.isfinite(y)) or np.any(np.abs(y) > 1.0):
        raise ValueError("y must be finite with values in [-1, 1] (Assumption 2).")
    return Z, y


def bcdp_ols(Z, y, epsilon, deltas, q, zeta=None, radius=1.0, weights="paper",
             random_state=None):
    """Least squares under epsilon-LDP and delta-BCDP (Algorithm 2 of the BCDP paper).

    Each user ``x = (z, l)`` (label last) sends two independent reports
    ``M_mean(x, c / 2)`` (Mechanism 1, unprojected so that they stay unbiased), with
    ``c = budget_schedule(deltas, epsilon, q, zeta)``. The server minimises

        f^(theta) = (1 / 2n) sum_i (theta^T z^(i,1) z^(i,2)^T theta - 2 theta^T l^(i,1) z^(i,2)),

    an unbiased estimate of the least-squares objective (up to a constant), over the ball
    ``||theta|| <= radius``. Its quadratic form can be indefinite, so the minimiser is the
    exact global solution of a trust-region subproblem, not a local descent.

    Parameters
    ----------
    Z : (n, d - 1) features in [-1, 1], most sensitive first.
    y : (n,) labels in [-1, 1] (Assumption 2).
    epsilon : float, overall LDP budget.
    deltas : (d,) BCDP demands for (features..., label), non-decreasing.
    q : float in [0, 1], Assumption 1's bound (the label is exempt).
    zeta : float in (0, 1] or None (``(1 + q) / 2``).
    radius : float, default=1.0
        Public radius of the parameter set Theta. Choose it from public knowledge, before
        seeing the data. 1.0 covers every least-squares solution when the features are
        isotropic {-1, +1} coins (``||theta||^2 = Var(l) <= 1``); widen it for other designs.
    weights : {"paper", "inverse_variance"}
    random_state : None, int, or numpy Generator

    Returns
    -------
    OLSResult

    Privacy: the two reports use ``c / 2`` each; LDP and CDP compose, so the pair is
    ``c_d``-LDP and c-CDP and, by Proposition 4 as in Theorem 2, delta-BCDP (Theorem 3). (BCDP
    itself does not compose, Example 2; halving ``c``, not ``delta``, is what makes this work.)
    The optimisation is post-processing.
    """
    Z, y = _check_ols_data(Z, y)
    deltas = _check_deltas(deltas, Z.shape[1] + 1)
    radius = _check_real(radius, "radius", low=0.0, low_open=True)
    _check_weights(weights)
    c = budget_schedule(deltas, epsilon, q, zeta)
    return _private_ols(Z, y, c, radius, as_generator(random_state), weights)


def ldp_ols(Z, y, epsilon, radius=1.0, weights="paper", random_state=None):
    """The plain LDP baseline of :func:`bcdp_ols`: Algorithm 2 with ``c = epsilon * ones``.

    Each user sends two independent ``epsilon / 2``-LDP l2-mechanism reports of the whole
    ``(z, l)``. Privacy: epsilon-LDP, hence epsilon-BCDP on every coordinate (Proposition 3).
    """
    Z, y = _check_ols_data(Z, y)
    epsilon = _check_epsilon(epsilon)
    radius = _check_real(radius, "radius", low=0.0, low_open=True)
    _check_weights(weights)
    c = np.full(Z.shape[1] + 1, epsilon)
    return _private_ols(Z, y, c, radius, as_generator(random_state), weights)


# ----------------------------------------------------------------------------------------------
# Live explorer and the "public features leak" notebook
# ----------------------------------------------------------------------------------------------
def bcdp_explorer_data(epsilon=2.0, delta=0.2, k=2, q=0.01, zeta=None, n=2000, d=10, reps=5,
                       random_state=0):
    """Everything the BCDP explorer draws, as plain numpy arrays (no plotting).

    Users are drawn from the prior of eqs (57)-(58) with correlation ``q``; the first ``k``
    coordinates demand ``delta``, the others ``epsilon`` (the Figure 3 setting is
    ``epsilon=2, delta=0.2, k=2, d=10``). BCDP runs Mechanism 1 with Theorem 2's schedule; the
    baseline is Duchi's l2 mechanism with ``min(delta, epsilon)`` (``epsilon`` if ``k = 0``) on
    the whole vector. Vectorised over users and repetitions: a few ms at the defaults.

    Returns
    -------
    dict with
        "deltas" (d,), "c" (d,) the budget staircase, "increments" (d,) the per-block budgets,
        "baseline_alpha" float, and, for ``m`` in {"bcdp", "ldp"}:
        ``f"mse_{m}_closed"`` (d,) exact MSE of the unprojected average (:func:`expected_mse_pm1`),
        ``f"mse_{m}_mc"``, ``f"mse_{m}_mc_se"`` (d,) Monte Carlo MSE of the same and its
        standard error, ``f"mse_{m}_mc_projected"`` (d,) Monte Carlo MSE after projection.
    """
    epsilon = _check_epsilon(epsilon)
    delta = _check_real(delta, "delta", low=0.0, allow_inf=True)
    d = check_int(d, "d", 1)
    k = check_int(k, "k", 0, d)
    n = check_int(n, "n", 1)
    reps = check_int(reps, "reps", 2)
    q = _check_q(q)
    zeta = _check_zeta(zeta, q)
    rng = as_generator(random_state)
    deltas = np.where(np.arange(d) < k, min(delta, epsilon), epsilon)
    c = budget_schedule(deltas, epsilon, q, zeta)
    alpha = float(deltas.min())
    X = sample_correlated_pm1(n, d, q, rng)
    xbar = X.mean(axis=0)
    out = {"deltas": deltas, "c": c, "increments": _increments(c), "baseline_alpha": alpha}
    for name, sched in (("bcdp", c), ("ldp", np.full(d, alpha))):
        est = _simulate_means(X, sched, reps, rng, "paper")
        raw = _mse_from_runs(est, xbar, project=False)
        out[f"mse_{name}_closed"] = expected_mse_pm1(sched, n, xbar)
        out[f"mse_{name}_mc"] = raw.mse
        out[f"mse_{name}_mc_se"] = raw.stderr
        out[f"mse_{name}_mc_projected"] = _mse_from_runs(est, xbar, project=True).mse
    return out


def correlated_feature_attack(n=10_000, correlation=0.8, epsilon=1.0, random_state=None):
    """How much a public feature reveals about a private one it is correlated with.

    A semi-feature LDP release: each user has a private bit ``S`` (uniform on {-1, +1}),
    released by randomized response with budget ``epsilon`` (kept with probability
    ``e^eps / (1 + e^eps)``), and a public bit ``P`` released in the clear, with
    ``P = S`` with probability ``(1 + correlation) / 2`` (so ``corr(P, S) = correlation``). An
    attacker who knows this prior guesses ``S`` by the Bayes rule from ``P``, from the RR
    report, or from both; the baseline guesses the majority value without looking.

    Parameters
    ----------
    n : int, number of users.
    correlation : float in [-1, 1].
    epsilon : float, budget of the private bit's RR.
    random_state : None, int, or numpy Generator

    Returns
    -------
    dict with the empirical accuracies ``"public"``, ``"release"``, ``"both"``, ``"baseline"``,
    their exact values ``"public_exact"``, ``"release_exact"``, ``"both_exact"`` and
    ``"baseline_exact"`` (= 1/2), and ``"delta_private"``: the exact BCDP level of ``S`` under the
    whole release (:func:`bcdp_deltas`), ``epsilon + log((1 + |rho|) / (1 - |rho|))``, which is
    what the user's "epsilon for S" really is once ``P`` is public (inf at ``|rho| = 1``).
    """
    n = check_int(n, "n", 1)
    rho = _check_real(correlation, "correlation", low=-1.0, high=1.0)
    epsilon = _check_epsilon(epsilon)
    rng = as_generator(random_state)
    keep = 1.0 / (1.0 + np.exp(-epsilon))
    S = np.where(rng.random(n) < 0.5, 1, -1)
    P = np.where(rng.random(n) < (1.0 + rho) / 2.0, S, -S)
    R = np.where(rng.random(n) < keep, S, -S)
    # Exact joint law of (S, P, R) on {-1, +1}^3 (index 0 = -1): prior over (S, P), channel R.
    joint = np.zeros((2, 2, 2))
    for (si, s), (pi, p), (ri, r_) in itertools.product(enumerate((-1, 1)), repeat=3):
        joint[si, pi, ri] = 0.5 * ((1 + rho * s * p) / 2) * (keep if r_ == s else 1 - keep)
    bayes = np.where(joint[1] >= joint[0], 1, -1)  # best guess of S given (P, R)
    guess_public = np.where(joint[1].sum(1) >= joint[0].sum(1), 1, -1)[(P + 1) // 2]
    guess_release = np.where(joint[1].sum(0) >= joint[0].sum(0), 1, -1)[(R + 1) // 2]
    guess_both = bayes[(P + 1) // 2, (R + 1) // 2]
    # BCDP of S for the release (P, R): input (S, P), output index 2 * P + R (0 = -1).
    prior = joint.sum(axis=2)
    channel = np.zeros((2, 2, 4))
    for si, pi in itertools.product((0, 1), repeat=2):
        channel[si, pi, 2 * pi + si] = keep
        channel[si, pi, 2 * pi + 1 - si] = 1.0 - keep
    frac = float(np.mean(S == 1))
    return {
        "public": float(np.mean(guess_public == S)),
        "release": float(np.mean(guess_release == S)),
        "both": float(np.mean(guess_both == S)),
        "baseline": max(frac, 1.0 - frac),
        "public_exact": float(np.maximum(joint[0].sum(1), joint[1].sum(1)).sum()),
        "release_exact": float(np.maximum(joint[0].sum(0), joint[1].sum(0)).sum()),
        "both_exact": float(np.maximum(joint[0], joint[1]).sum()),
        "baseline_exact": 0.5,
        "delta_private": float(bcdp_deltas(prior, channel)[0]),
    }


def attack_table(correlations, n=10_000, epsilon=1.0, random_state=0):
    """:func:`correlated_feature_attack` over several correlations, one row each.

    Returns a DataFrame indexed by ``correlation`` with the columns of that function's dict.
    """
    rows = [correlated_feature_attack(n=n, correlation=rho, epsilon=epsilon,
                                      random_state=random_state) for rho in correlations]
    return pd.DataFrame(rows, index=pd.Index(list(correlations), name="correlation"))


def sweep_q(qs, epsilon=2.0, delta=0.2, k=2, n=10_000, d=10, zeta=None, reps=20,
            random_state=0):
    """Total and sensitive-coordinate error of BCDP and plain LDP as the correlation q varies.

    The Figure 3 setting by default (d = 10, the first k = 2 coordinates demand delta = 0.2,
    epsilon = 2, n = 10,000). Returns a DataFrame indexed by ``q`` with, for ``m`` in
    {"bcdp", "ldp"}: ``{m}_total`` and ``{m}_sensitive`` (exact MSE of the unprojected mean,
    summed over all / the sensitive coordinates, :func:`expected_mse_pm1`) and
    ``{m}_total_projected`` (Monte Carlo after projection to the box).
    """
    rows = []
    for q in qs:
        out = bcdp_explorer_data(epsilon=epsilon, delta=delta, k=k, q=q, zeta=zeta, n=n, d=d,
                                 reps=reps, random_state=random_state)
        row = {"q": q}
        for m in ("bcdp", "ldp"):
            row[f"{m}_total"] = float(out[f"mse_{m}_closed"].sum())
            row[f"{m}_sensitive"] = float(out[f"mse_{m}_closed"][:k].sum())
            row[f"{m}_total_projected"] = float(out[f"mse_{m}_mc_projected"].sum())
        rows.append(row)
    return pd.DataFrame(rows).set_index("q")
