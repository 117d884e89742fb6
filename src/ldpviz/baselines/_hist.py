"""Hist (Berrett, Gyorfi and Walk, 2021): a privatised partitioning estimate on a cubic grid.
Every user sends a noisy one-hot cell vector and a noisy label vector: eps-LDP, all private."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._base import SemiFeatureRegressor
from .._config import check_budget, check_grid_budget, get_config
from .._index import bincount
from .._validation import (
    MAX_COUNT,
    check_choice,
    check_int,
    check_real,
    check_rho,
)
from ..mechanisms import (
    laplace_scale,
    split_budget,
)
from ..partition import Histogram
from ._common import _CHUNK_ENTRIES, _PRIVATIZE_BYTES, _laplace_noise, _laplace_sum

HIST_NOISE = ("aggregate", "per-user")


HIST_FALLBACKS = ("zero", "global")


class HistRelease(NamedTuple):
    """Per-user messages of :class:`Hist` (eqs 5 and 6 of Berrett, Gyorfi and Walk, 2021).

    z : (n, n_cells) float, ``clip(Y_i) 1{X_i in A_j} + Laplace(b_Z)`` for every cell j.
    w : (n, n_cells) float, ``1{X_i in A_j} + Laplace(b_W)`` for every cell j.
    """

    z: np.ndarray
    w: np.ndarray


def _hist_scales(epsilon, rho, y_bound):
    """(b_Z, b_W): Laplace scales of the label vector and of the cell vector.

    Moving a user changes the label vector by at most 2M in l1 (|y| in the old cell plus |y'|
    in the new one, or |y - y'| in the same cell) and the one-hot cell vector by at most 2, so
    scales 2M / (rho eps) and 2 / ((1 - rho) eps) spend rho eps and (1 - rho) eps. At
    rho = 1/2 they are 4M/eps and 4/eps, i.e. 002's sigma_Z^2 = 32 M^2/eps^2 and
    sigma_W^2 = 32/eps^2 for unit-variance Laplace noise (Proposition 1 of 002).
    """
    eps_z, eps_w = split_budget(epsilon, rho)
    return laplace_scale(eps_z, y_bound), laplace_scale(eps_w, 1.0), eps_z, eps_w


class Hist(SemiFeatureRegressor):
    """Privatised partitioning regression estimate on a cubic grid (Berrett et al., 2021).

    Every feature and the label are private (plain LDP). With the grid of t equal bins per axis
    (``t**d`` cells A_j), user i sends for *every* cell j (eqs 5-6 of 002)

    * ``Z_ij = clip(Y_i, -M, M) 1{X_i in A_j} + Laplace(b_Z)``, ``b_Z = 2M / (rho eps)``,
    * ``W_ij = 1{X_i in A_j} + Laplace(b_W)``, ``b_W = 2 / ((1 - rho) eps)``,

    (``4M/eps`` and ``4/eps`` at the default rho = 1/2, the scales of 002 and Appendix C.1 of
    the HistOfTree paper). With ``mu_j = sum_i W_ij / n`` the estimate in cell j is
    ``sum_i Z_ij / sum_i W_ij`` if ``mu_j > zeta * t**-d`` and the fallback otherwise (the
    truncated estimate of 002, Section 3, with ``c_n h^d = zeta t^-d``).

    Privacy: eps-LDP for the whole record (X_i, Y_i). The l1 sensitivity of the label vector
    is 2M and that of the one-hot vector is 2, so for any two records the output densities
    differ by at most ``exp(rho eps) exp((1 - rho) eps) = e^eps`` (Proposition 1 of 002 with
    sigma = sqrt(2) b). Thresholding, the fallback and clipping are post-processing.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget per user, in (0, inf].
    t : int, default=2
        Bins per axis; the grid has ``t**d`` cells (each user's message has 2 t**d numbers).
    zeta : float, default=0.05
        Truncation threshold of Appendix C.1 (grid {0.01, 0.05}), on the *density* scale: a
        cell is kept when its estimated probability exceeds ``zeta / t**d`` (002's
        ``c_n h^d``). Appendix C.1 says "probability less than zeta"; to threshold the
        probability itself at p, pass ``zeta = p * t**d``.
    rho : float, default=0.5
        Share of epsilon spent on the label vector Z; the cell vector W gets the rest.
    y_bound : float or None, default=None
        Public label bound M. None reads it off the labels with a PrivacyWarning (a leak).
    noise : {"aggregate", "per-user"}, default="aggregate"
        "aggregate" draws each cell's noise sum directly (a sum of n Laplace(b) is
        Gamma(n, b) - Gamma(n, b)): exact in distribution, O(n + cells) time. "per-user" draws
        every user's message, in chunks (O(n * cells) time; for teaching).
    fallback : {"zero", "global"}, default="zero"
        Value of a truncated cell: 0 as in 002, or the privatised global mean
        ``sum_j Z_j / sum_j W_j`` over all cells (post-processing).
    clip : bool, default=True
        Clip predictions to [-M, M].
    random_state : None, int, or numpy Generator

    Attributes
    ----------
    n_cells_ : int
    cell_numerator_, cell_denominator_ : (n_cells,) ``sum_i Z_ij`` and ``sum_i W_ij``.
    kept_ : (n_cells,) bool, cells above the threshold.
    cell_values_ : (n_cells,) predictions per cell.
    scale_z_, scale_w_ : the Laplace scales b_Z and b_W.
    epsilon_label_, epsilon_cells_ : budgets of Z and W; they add up to epsilon.
    y_bound_ : float

    Examples
    --------
    >>> from ldpviz.datasets import make_paper_regression, PAPER_Y_BOUND
    >>> X, y = make_paper_regression(2000, random_state=0)
    >>> Hist(epsilon=4, t=1, y_bound=PAPER_Y_BOUND, random_state=0).fit(X, y).n_cells_
    1
    """

    def __init__(self, epsilon=1.0, t=2, zeta=0.05, rho=0.5, y_bound=None, noise="aggregate",
                 fallback="zero", clip=True, random_state=None):
        self.epsilon = epsilon
        self.t = t
        self.zeta = zeta
        self.rho = rho
        self.y_bound = y_bound
        self.noise = noise
        self.fallback = fallback
        self.clip = clip
        self.random_state = random_state

    def _check_params(self, n, d):
        check_rho(self.rho)
        t = check_int(self.t, "t", 1, MAX_COUNT)
        check_choice(self.noise, "noise", HIST_NOISE)
        check_choice(self.fallback, "fallback", HIST_FALLBACKS)
        check_real(self.zeta, "zeta", low=0.0)
        check_grid_budget("Hist", n, t, d, per_user=self.noise == "per-user")
        return Histogram(tuple(range(d)), t)

    def fit(self, X, y, W=None):
        """Collect the users' privatised messages and form the truncated estimate.

        Parameters
        ----------
        X : (n, d) array with entries in the public box [0, 1].
        y : (n,) labels.
        W : ignored (Hist protects every feature); checked if given.
        """
        X, y, W, M, rng = self._prepare_fit(X, y, W, needs_mask=False)
        grid = self._check_params(*X.shape)
        self.n_cells_ = grid.n_cells
        self.scale_z_, self.scale_w_, self.epsilon_label_, self.epsilon_cells_ = _hist_scales(
            self.epsilon, self.rho, M)
        cell = grid.cell_index(X)
        num, den = _grid_sums(cell, np.clip(y, -M, M)[:, None], grid.n_cells,
                              [self.scale_z_], self.scale_w_, self.noise, rng)
        self.cell_numerator_, self.cell_denominator_ = num[:, 0], den
        n = len(X)
        self.kept_ = den > float(self.zeta) * n / grid.n_cells
        if self.fallback == "zero":
            backup = 0.0
        else:
            total = den.sum()
            backup = num.sum() / total if total > 0 else 0.0
        values = np.where(self.kept_, self.cell_numerator_ / np.where(self.kept_, den, 1.0),
                          backup)
        self.cell_values_ = np.clip(values, -M, M) if self.clip else values
        self._grid = grid
        return self

    def predict(self, X):
        """Predicted label: the value of the grid cell containing each point."""
        X = self._check_predict_input(X)
        return self.cell_values_[self._grid.cell_index(X)]

    def privatize(self, X, y, W=None):
        """Every user's message (Z_i, W_i) over all cells, as the server receives it.

        Materialises two (n, t**d) arrays: meant for small n (teaching, tests). Uses
        ``random_state`` like :meth:`fit`. Returns a :class:`HistRelease`.
        """
        X, y, W, M, rng = self._prepare_fit(X, y, W, needs_mask=False)
        grid = self._check_params(*X.shape)
        check_budget("Hist.privatize", "n_samples", len(X),
                     {"max_bytes": _PRIVATIZE_BYTES * len(X) * grid.n_cells},
                     fits=get_config()["max_bytes"] // (_PRIVATIZE_BYTES * grid.n_cells))
        b_z, b_w, _, _ = _hist_scales(self.epsilon, self.rho, M)
        onehot = grid.cell_index(X)[:, None] == np.arange(grid.n_cells)[None, :]
        z = np.clip(y, -M, M)[:, None] * onehot + _laplace_noise(b_z, onehot.shape, rng)
        w = onehot + _laplace_noise(b_w, onehot.shape, rng)
        return HistRelease(z, w)


def _grid_sums(cell, values, n_cells, value_scales, count_scale, noise, rng):
    """Noisy per-cell sums of ``values`` (n, m) and of the indicator, as in eqs (5)-(7) of 002.

    Column c of ``values`` gets Laplace(value_scales[c]) noise in every cell from every user;
    the indicator gets Laplace(count_scale) (skipped if ``count_scale`` is None). Returns
    ``(numerator (n_cells, m), denominator (n_cells,) or None)``.
    """
    n, m = values.shape
    numerator = np.stack([bincount(cell, weights=values[:, c], minlength=n_cells)
                          for c in range(m)], axis=1)
    denominator = (bincount(cell, minlength=n_cells).astype(float)
                   if count_scale is not None else None)
    if noise == "aggregate":
        for c in range(m):
            numerator[:, c] += _laplace_sum(n, value_scales[c], n_cells, rng)
        if count_scale is not None:
            denominator += _laplace_sum(n, count_scale, n_cells, rng)
        return numerator, denominator
    # Per-user mode: every user's noise vector is drawn, chunk by chunk (bounded memory).
    rows = max(1, _CHUNK_ENTRIES // n_cells)
    for start in range(0, n, rows):
        size = (min(rows, n - start), n_cells)
        for c in range(m):
            numerator[:, c] += _laplace_noise(value_scales[c], size, rng).sum(axis=0)
        if count_scale is not None:
            denominator += _laplace_noise(count_scale, size, rng).sum(axis=0)
    return numerator, denominator
