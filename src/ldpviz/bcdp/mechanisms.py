"""The BCDP paper's randomizers: Duchi et al.'s l2-ball channel (Mechanism 3, with the unbiased
constant), Theorem 2's budget schedule and Mechanism 1 (nested queries, weighted combination).

Floating-point caveat: the samplers use floating-point arithmetic, which is not exactly
differentially private (Mironov, 2012). This is a teaching and research package.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from .._rng import as_generator
from .._validation import check_real
from ._checks import (
    BCDP_WEIGHTS,
    check_alpha,
    check_deltas,
    check_finite_epsilon,
    check_q,
    check_schedule,
    check_signed_box,
    check_weights,
    check_zeta,
)

WEIGHTS = BCDP_WEIGHTS


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
    alpha = check_alpha(alpha)
    r = check_real(r, "r", low=0.0, low_open=True)
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
    epsilon = check_finite_epsilon(epsilon)
    q = check_q(q)
    zeta = check_zeta(zeta, q)
    dt = np.minimum(check_deltas(deltas), epsilon)
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
    X = check_signed_box(X)
    n, d = X.shape
    c = check_schedule(c, d)
    check_weights(weights)
    total, weight_sums = _block_sums(X, c, as_generator(rng), weights, n)
    return _normalise(total, weight_sums)


def _block_sums(X, c, rng, weights, rows, reduce=None):
    """Mechanism 1's blocks before normalisation: ``sum_k w_k Y^k`` (block k, budget
    ``c_k - c_{k-1}``, on coordinates k..d) with each block's reports (len(X), d - k) passed
    through ``reduce`` to ``rows`` rows (None: kept per user), and the cumulative weights.
    The sampler of :func:`mean_mechanism` and of the Monte Carlo runs
    (:func:`ldpviz.bcdp.monte_carlo_mse`)."""
    d = X.shape[1]
    inc = _increments(c)
    w = _block_weights(c, weights)
    total = np.zeros((rows, d))
    for k in np.flatnonzero(inc > 0):
        Y = l2_mechanism(X[:, k:], inc[k], np.sqrt(d - k), rng)
        total[:, k:] += w[k] * (Y if reduce is None else reduce(Y))
    return total, np.cumsum(w)


def _normalise(total, weight_sums):
    """Divide by the cumulative weights; coordinates no block reaches stay 0."""
    reached = weight_sums > 0
    out = np.zeros_like(total)
    out[..., reached] = total[..., reached] / weight_sums[reached]
    return out
