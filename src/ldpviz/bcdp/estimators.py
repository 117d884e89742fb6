"""Estimators built on Mechanism 1: the BCDP and plain-LDP means (scikit-learn style) and
Algorithm 2, least squares under LDP and BCDP."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.optimize import brentq
from sklearn.base import BaseEstimator

from .._base import check_X
from .._rng import as_generator
from .._validation import check_bool
from ._checks import (
    check_deltas,
    check_finite_epsilon,
    check_radius,
    check_schedule,
    check_signed_box,
    check_signed_labels,
    check_weights,
)
from .mechanisms import _block_weights, budget_schedule, mean_mechanism


class _MeanBase(BaseEstimator):
    """Shared fit for the mean estimators: checked data, one run of Mechanism 1, projection."""

    def _check_X(self, X):
        """Checked rows in [-1, 1]^d; records ``n_features_in_`` (and ``feature_names_in_``)."""
        return check_X(self, X, reset=True, check=check_signed_box)

    def _fit_schedule(self, X, c, weights="paper"):
        check_weights(weights)
        check_bool(self.project, "project")
        rng = as_generator(self.random_state)
        raw = mean_mechanism(X, c, rng, weights).mean(axis=0)
        self.c_ = c
        self.weights_ = _block_weights(c, weights)
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
    deltas : (d,) array or float
        Per-coordinate BCDP demands, non-decreasing (most sensitive coordinate first); one
        number is the same demand for every coordinate.
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
        X = self._check_X(X)
        if self.deltas is None:
            raise ValueError("deltas must be given: one BCDP demand per coordinate (or one "
                             "number for all).")
        deltas = check_deltas(self.deltas, X.shape[1])
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
        X = self._check_X(X)
        epsilon = check_finite_epsilon(self.epsilon)
        return self._fit_schedule(X, np.full(X.shape[1], epsilon))


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
        gap = _to_sphere(radius, t)
        if gap is not None:
            if lo == 0.0:
                return t, bool(np.isclose(gap, 0.0, atol=1e-8 * radius))
            return t + gap * Q[:, 0], True

    def secular(mu):
        return float(np.linalg.norm(beta / (lam + mu))) - radius

    step = tol
    a = lo + step
    while secular(a) <= 0:  # numerically close to the hard case: approach lo from above
        step /= 16.0
        if lo + step == lo:
            t = theta(a)  # ||t|| <= radius: complete to the sphere along the bottom direction,
            # on the side of b (the bottom coordinate of theta(mu) has the sign of beta[0])
            side = -1.0 if beta[0] < 0 else 1.0
            return t + side * (_to_sphere(radius, t) or 0.0) * Q[:, 0], True
        a = lo + step
    hi = lo + float(np.linalg.norm(b)) / radius + 1.0
    mu = brentq(secular, a, hi, xtol=1e-14, rtol=1e-13, maxiter=500)
    return theta(mu), True


def _to_sphere(radius, t):
    """``sqrt(radius^2 - ||t||^2)``, or None when t lies outside the ball.

    Written as ``sqrt(r - |t|) sqrt(r + |t|)`` so that a huge public radius (1e300) does not
    overflow.
    """
    norm = float(np.linalg.norm(t))
    if norm > radius:
        return None
    return math.sqrt(radius - norm) * math.sqrt(radius + norm)


def _private_ols(Z, y, c, radius, rng, weights):
    X = np.column_stack([Z, y])
    d = X.shape[1]
    c = check_schedule(c, d)
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
    Z = check_signed_box(Z, "Z")
    return Z, check_signed_labels(y, len(Z))


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
    deltas = check_deltas(deltas, Z.shape[1] + 1)
    radius = check_radius(radius)
    check_weights(weights)
    c = budget_schedule(deltas, epsilon, q, zeta)
    return _private_ols(Z, y, c, radius, as_generator(random_state), weights)


def ldp_ols(Z, y, epsilon, radius=1.0, weights="paper", random_state=None):
    """The plain LDP baseline of :func:`bcdp_ols`: Algorithm 2 with ``c = epsilon * ones``.

    Each user sends two independent ``epsilon / 2``-LDP l2-mechanism reports of the whole
    ``(z, l)``. Privacy: epsilon-LDP, hence epsilon-BCDP on every coordinate (Proposition 3).
    """
    Z, y = _check_ols_data(Z, y)
    epsilon = check_finite_epsilon(epsilon)
    radius = check_radius(radius)
    check_weights(weights)
    c = np.full(Z.shape[1] + 1, epsilon)
    return _private_ols(Z, y, c, radius, as_generator(random_state), weights)
