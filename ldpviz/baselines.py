"""The competitors of HistOfTree (Section 5 and Appendix C.1 of the HistOfTree paper).

Every class is a scikit-learn regressor with ``fit(X, y, W=None)`` / ``predict(X)`` and the
conventions of :class:`ldpviz.HistOfTree` (public ``y_bound``, features in the public box
[0, 1]^d, one seeded numpy Generator, clear ``ValueError`` naming the argument).

* :class:`Hist` (Berrett, Gyorfi and Walk, 2021): every user sends a noisy one-hot cell vector
  and a noisy label vector over a cubic grid. eps-LDP: everything is private.
* :class:`KRR`: k-ary randomized response on each protected (binned) feature and a Laplace
  label, then a CART tree. eps-semi-feature LDP.
* :class:`ParDT`: a Laplace label and the published features only, then a CART tree.
  eps-semi-feature LDP.
* :class:`LabelDT`: a Laplace label and every feature, then a CART tree. eps-label LDP.
* :class:`DT`: everything in the clear, a CART tree. No privacy (the reference of Table 1).
* :class:`LPDT` (Ma, Zhang, Cai and Yang, 2023): public rows send everything and grow a
  max-edge tree; private rows send their leaf by randomized response and a Laplace label.
  eps-LDP for the private rows.

The private baselines have a ``privatize(X, y, W=None)`` method that returns exactly what each
user sends to the server (for teaching and for the privacy tests). ``fit`` uses the same
randomizers: for KRR, ParDT and LabelDT it sees the very messages ``privatize`` returns with the
same ``random_state``; Hist (aggregate mode) and LPDT draw the sums of such messages directly,
with the same distribution, so memory stays bounded.

Floating-point caveat: textbook floating-point Laplace sampling, used here as everywhere in
numpy, is not exactly differentially private (Mironov, 2012). Do not deploy these samplers.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.tree import DecisionTreeRegressor

from ._base import SemiFeatureRegressor
from ._rng import as_generator
from ._validation import (
    check_choice,
    check_epsilon,
    check_int,
    check_rho,
)
from .mechanisms import (
    MECHANISMS,
    cell_report_sums,
    cell_reports,
    grr,
    laplace_scale,
    privatize_labels,
    split_budget,
)
from .partition import RULES, Histogram, build_partition

__all__ = ["DT", "KRR", "LPDT", "Hist", "LabelDT", "ParDT"]

HIST_NOISE = ("aggregate", "per-user")
HIST_FALLBACKS = ("zero", "global")
PARDT_MISSING = ("nan", "drop")
LPDT_FALLBACKS = ("public", "zero")
# Cap on the entries of per-chunk (users x cells) arrays: bounded memory at any n.
_CHUNK_ENTRIES = 1 << 22
# Largest grid Hist accepts: t**d cells are stored as dense float arrays.
_MAX_HIST_CELLS = 1 << 24
# privatize() materialises per-user arrays; above this, use fit (which works on sums).
_MAX_MATERIALISED = 50_000_000


# ----------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------
def _check_max_depth(max_depth):
    return None if max_depth is None else check_int(max_depth, "max_depth", 1)


def _laplace_noise(scale, size, rng):
    """Laplace(0, scale) draws; ``scale`` may be an array (one per user), 0 means no noise."""
    scale = np.asarray(scale, dtype=float)
    return rng.laplace(0.0, 1.0, size=size) * scale


def _laplace_sum(n, scale, size, rng):
    """Exact draw of the sum of ``n`` iid Laplace(0, scale) variables, ``size`` times.

    A Laplace(b) variable is the difference of two independent Exponential(b) ones, so the sum
    of n of them is Gamma(n, b) - Gamma(n, b): one draw per cell instead of n.
    """
    if n == 0 or scale == 0.0:
        return np.zeros(size)
    return rng.gamma(n, scale, size=size) - rng.gamma(n, scale, size=size)


def _tree_seed(rng):
    """A seed for scikit-learn's tree (it breaks ties between features at random)."""
    return int(rng.integers(0, 2**31 - 1))


class _TreeBaseline(SemiFeatureRegressor):
    """Shared parts of the baselines that end in a scikit-learn ``DecisionTreeRegressor``."""

    def _check_tree_params(self):
        _check_max_depth(self.max_depth)
        check_int(self.min_samples_leaf, "min_samples_leaf", 1)

    def _fit_tree(self, Xf, target, rng):
        self.tree_ = DecisionTreeRegressor(max_depth=self.max_depth,
                                           min_samples_leaf=self.min_samples_leaf,
                                           random_state=_tree_seed(rng))
        self.tree_.fit(Xf, target)

    def _finish(self, values):
        clip = getattr(self, "clip", False)
        return np.clip(values, -self.y_bound_, self.y_bound_) if clip else values

    def predict(self, X):
        """Predicted label: the tree's leaf value (clipped to [-M, M] if ``clip``)."""
        X = self._check_predict_input(X)
        return self._finish(self.tree_.predict(self._tree_input(X)))

    def _tree_input(self, X):
        return X


# ----------------------------------------------------------------------------------------------
# Hist: the privatised partitioning estimate of Berrett, Gyorfi and Walk (2021)
# ----------------------------------------------------------------------------------------------
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

    def _check_params(self, d):
        check_rho(self.rho)
        t = check_int(self.t, "t", 1)
        check_choice(self.noise, "noise", HIST_NOISE)
        check_choice(self.fallback, "fallback", HIST_FALLBACKS)
        if isinstance(self.zeta, bool) or not np.isscalar(self.zeta) or not (
            np.isfinite(self.zeta) and self.zeta >= 0
        ):
            raise ValueError(f"zeta must be a finite number >= 0, got {self.zeta!r}.")
        if float(t) ** d > _MAX_HIST_CELLS:
            raise ValueError(f"t={t} gives t**d = {t}**{d} cells, more than Hist can store "
                             f"({_MAX_HIST_CELLS}); lower t.")
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
        grid = self._check_params(X.shape[1])
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
        grid = self._check_params(X.shape[1])
        if len(X) * grid.n_cells > _MAX_MATERIALISED:
            raise ValueError("privatize materialises n x t**d arrays; use fit (it works on "
                             "sums) or fewer users.")
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
    numerator = np.stack([np.bincount(cell, weights=values[:, c], minlength=n_cells)
                          for c in range(m)], axis=1)
    denominator = (np.bincount(cell, minlength=n_cells).astype(float)
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


# ----------------------------------------------------------------------------------------------
# KRR: k-ary randomized response on the protected features, then a tree
# ----------------------------------------------------------------------------------------------
class KRRRelease(NamedTuple):
    """Per-user messages of :class:`KRR`.

    features : (n, d) published features: public entries as they are, protected entries
        replaced by the midpoint ``(j + 1/2) / k`` of the GRR-reported level j.
    labels : (n,) ``clip(Y_i) + Laplace(2M / epsilon_label_i)``.
    epsilon_label : (n,) the label's budget per user.
    epsilon_feature : (n,) the budget of *each* protected coordinate of user i (0 if none).
    """

    features: np.ndarray
    labels: np.ndarray
    epsilon_label: np.ndarray
    epsilon_feature: np.ndarray


def krr_budget(W, epsilon, rho=0.5):
    """Per-user budget split of :class:`KRR`; for each user the parts add up to epsilon.

    A user protecting ``k_i >= 1`` features gives ``rho * eps`` to the label and
    ``(1 - rho) eps / k_i`` to each protected coordinate; a user protecting nothing gives the
    whole ``eps`` to the label (nothing else is private).

    Returns
    -------
    (epsilon_label, epsilon_feature) : two (n,) arrays, with
        ``epsilon_label + W.sum(1) * epsilon_feature == epsilon``.
    """
    epsilon = check_epsilon(epsilon)
    rho = check_rho(rho)
    n_protected = np.asarray(W, dtype=bool).sum(axis=1)
    if np.isinf(epsilon):
        return np.full(len(n_protected), np.inf), np.where(n_protected > 0, np.inf, 0.0)
    eps_label = np.where(n_protected > 0, rho * epsilon, epsilon)
    eps_feature = (epsilon - eps_label) / np.maximum(n_protected, 1)
    return eps_label, eps_feature


def _krr_release(X, y, W, k, epsilon, rho, M, rng):
    eps_label, eps_feature = krr_budget(W, epsilon, rho)
    levels = np.minimum((X * k).astype(np.int64), k - 1)
    features = X.copy()
    n_protected = W.sum(axis=1)
    # One GRR draw per protected entry; users are grouped by their per-coordinate budget
    # (at most d groups), not looped over.
    for count in np.unique(n_protected[n_protected > 0]):
        rows = n_protected == count
        sub = W & rows[:, None]
        reported = grr(levels[sub], k, float(eps_feature[rows][0]), rng)
        features[sub] = (reported + 0.5) / k
    scale = np.where(np.isinf(eps_label), 0.0, 2.0 * M / eps_label)
    labels = np.clip(y, -M, M) + _laplace_noise(scale, len(y), rng)
    return KRRRelease(features, labels, eps_label, eps_feature)


class KRR(_TreeBaseline):
    """k-ary randomized response on the protected features, Laplace on the label, then CART.

    The obfuscation baseline (iv) of Section 5 of the HistOfTree paper. User i bins each
    feature it protects (``W[i, l] = 1``) into k equal levels on [0, 1] and reports the level
    by generalized randomized response (eq 16), sends its published features as they are and
    ``clip(Y_i) + Laplace(2M / eps_label_i)``. The server replaces each reported level j by its
    midpoint ``(j + 1/2) / k`` and fits ``sklearn.tree.DecisionTreeRegressor`` on the result.

    Budget split (explicit, per user, see :func:`krr_budget`): with ``k_i`` protected features
    the label gets ``rho eps`` and each protected coordinate ``(1 - rho) eps / k_i``; with
    ``k_i = 0`` the label gets ``eps``. The parts add up to eps for every user.

    Privacy: eps-semi-feature LDP (Definition 3.1, eq 2). For two records differing in the
    protected coordinates and the label, each GRR report changes probability by at most
    ``exp((1 - rho) eps / k_i)`` (Proposition A.1) and the label density by at most
    ``exp(rho eps)`` (eq 4), so the message changes by at most ``e^eps`` (sequential
    composition). The published coordinates are public by definition. Fitting the tree and
    clipping are post-processing.

    Parameters
    ----------
    epsilon : float, default=1.0
    k : int, default=2
        Levels per protected feature (Appendix C.1 grid {2, 3, 4, 5}).
    rho : float, default=0.5
        Label share of the budget for users who protect at least one feature.
    max_depth, min_samples_leaf : scikit-learn tree parameters (Appendix C.1 grids
        {1, 2, 4, 6, 8} and {1, 10, 100}).
    y_bound : float or None, default=None
        Public label bound M; None reads it off the labels with a PrivacyWarning (a leak).
    private_features : list of int or None
        Aligned case, when W is not passed to fit: the columns every user protects.
    s : int or None
        When W and private_features are None: the first s columns are protected.
    clip : bool, default=True
        Clip predictions to [-M, M].
    random_state : None, int, or numpy Generator

    Attributes
    ----------
    tree_ : the fitted DecisionTreeRegressor.
    epsilon_label_, epsilon_feature_ : (n,) per-user budgets (see :func:`krr_budget`).
    y_bound_ : float

    Notes
    -----
    Predictions use the raw test features (thresholds the tree learned between midpoints are
    bin edges, so in the aligned case this equals binning the test point first).
    """

    def __init__(self, epsilon=1.0, k=2, rho=0.5, max_depth=4, min_samples_leaf=10,
                 y_bound=None, private_features=None, s=None, clip=True, random_state=None):
        self.epsilon = epsilon
        self.k = k
        self.rho = rho
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.y_bound = y_bound
        self.private_features = private_features
        self.s = s
        self.clip = clip
        self.random_state = random_state

    def _check_params(self):
        check_rho(self.rho)
        check_int(self.k, "k", 2)
        self._check_tree_params()

    def fit(self, X, y, W=None):
        """Privatize every user's record (see :meth:`privatize`) and fit the tree on it.

        Parameters
        ----------
        X : (n, d) array in [0, 1]; y : (n,) labels.
        W : (n, d) 0/1 privacy mask (1 = protected) or None (``private_features`` / ``s``).
        """
        self._check_params()
        X, y, W, M, rng = self._prepare_fit(X, y, W)
        release = _krr_release(X, y, W, self.k, self.epsilon, self.rho, M, rng)
        self.epsilon_label_, self.epsilon_feature_ = release.epsilon_label, \
            release.epsilon_feature
        self._fit_tree(release.features, release.labels, rng)
        return self

    def privatize(self, X, y, W=None):
        """What each user sends: a :class:`KRRRelease` (uses ``random_state`` like fit)."""
        self._check_params()
        X, y, W, M, rng = self._prepare_fit(X, y, W)
        return _krr_release(X, y, W, self.k, self.epsilon, self.rho, M, rng)


# ----------------------------------------------------------------------------------------------
# ParDT, LabelDT, DT
# ----------------------------------------------------------------------------------------------
class LabelRelease(NamedTuple):
    """Per-user messages of :class:`ParDT` / :class:`LabelDT`.

    features : (n, d) published features; NaN where the user protects the feature (ParDT).
    labels : (n,) ``clip(Y_i) + Laplace(2M / eps)``.
    """

    features: np.ndarray
    labels: np.ndarray


class ParDT(_TreeBaseline):
    """Laplace on the label, a CART tree on the published features only (baseline (v)).

    User i sends ``clip(Y_i) + Laplace(2M / eps)`` (scale range/eps, Appendix C.1) and the
    features it does not protect; the protected ones are never sent. The server fits
    ``sklearn.tree.DecisionTreeRegressor`` on what it received.

    Personalized masks (users protect different features): with ``missing="nan"`` (default)
    each user's protected entries are missing values and scikit-learn's native NaN support
    (>= 1.3) routes them at each split (to the side that reduces the error most); a column
    protected by every user is dropped. With ``missing="drop"`` only the columns that *every*
    user publishes are used. In the aligned case the two coincide.

    Privacy: eps-semi-feature LDP (Definition 3.1, eq 2): only the label depends on private
    data, through the Laplace mechanism (eq 4 with the whole budget), whose density changes by
    at most ``exp(eps |clip y - clip y'| / 2M) <= e^eps``. Published coordinates are public.

    Parameters
    ----------
    epsilon : float, default=1.0
    max_depth, min_samples_leaf : scikit-learn tree parameters.
    y_bound : float or None, default=None
        Public label bound M; None reads it off the labels with a PrivacyWarning (a leak).
    private_features, s : the aligned mask when W is not passed to fit (as in HistOfTree).
    missing : {"nan", "drop"}, default="nan"
    clip : bool, default=True
    random_state : None, int, or numpy Generator

    Attributes
    ----------
    tree_ : the fitted DecisionTreeRegressor.
    tree_features_ : (k,) int, the columns the tree sees (empty: constant prediction).
    y_bound_ : float
    """

    def __init__(self, epsilon=1.0, max_depth=4, min_samples_leaf=10, y_bound=None,
                 private_features=None, s=None, missing="nan", clip=True, random_state=None):
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.y_bound = y_bound
        self.private_features = private_features
        self.s = s
        self.missing = missing
        self.clip = clip
        self.random_state = random_state

    def _release(self, X, y, W, M, rng):
        features = np.where(W, np.nan, X)
        return LabelRelease(features, privatize_labels(y, self.epsilon, M, rng))

    def fit(self, X, y, W=None):
        """Privatize the labels, drop the protected entries, fit the tree.

        Parameters
        ----------
        X : (n, d) array in [0, 1]; y : (n,) labels.
        W : (n, d) 0/1 privacy mask (1 = protected) or None (``private_features`` / ``s``).
        """
        self._check_tree_params()
        check_choice(self.missing, "missing", PARDT_MISSING)
        X, y, W, M, rng = self._prepare_fit(X, y, W)
        release = self._release(X, y, W, M, rng)
        keep = ~W.all(axis=0) if self.missing == "nan" else ~W.any(axis=0)
        self.tree_features_ = np.flatnonzero(keep)
        self._fit_tree(self._tree_input(release.features), release.labels, rng)
        return self

    def _tree_input(self, X):
        if self.tree_features_.size == 0:  # nothing published: the tree is a single leaf
            return np.zeros((len(X), 1))
        return X[:, self.tree_features_]

    def privatize(self, X, y, W=None):
        """What each user sends: a :class:`LabelRelease` (NaN where protected)."""
        check_choice(self.missing, "missing", PARDT_MISSING)
        X, y, W, M, rng = self._prepare_fit(X, y, W)
        return self._release(X, y, W, M, rng)


class LabelDT(_TreeBaseline):
    """Laplace on the label, a CART tree on every feature: the label-LDP benchmark (vi).

    User i sends its features and ``clip(Y_i) + Laplace(2M / eps)`` (scale range/eps,
    Appendix C.1); the server fits ``sklearn.tree.DecisionTreeRegressor``.

    Privacy: eps-label LDP only (eq 1 of Definition 3.1 with every feature public): the label
    density changes by at most ``e^eps``; the features are sent in the clear, so it is *not*
    semi-feature LDP for any protected feature. It is the lower end of Figure 2(a).

    Parameters
    ----------
    epsilon : float, default=1.0
    max_depth, min_samples_leaf : scikit-learn tree parameters.
    y_bound : float or None, default=None
        Public label bound M; None reads it off the labels with a PrivacyWarning (a leak).
    clip : bool, default=True
    random_state : None, int, or numpy Generator

    Attributes
    ----------
    tree_ : the fitted DecisionTreeRegressor.
    y_bound_ : float
    """

    def __init__(self, epsilon=1.0, max_depth=4, min_samples_leaf=10, y_bound=None, clip=True,
                 random_state=None):
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.y_bound = y_bound
        self.clip = clip
        self.random_state = random_state

    def fit(self, X, y, W=None):
        """Privatize the labels and fit the tree on all features.

        Parameters
        ----------
        X : (n, d) array in [0, 1]; y : (n,) labels.
        W : ignored (every feature is sent); checked if given.
        """
        self._check_tree_params()
        X, y, _, M, rng = self._prepare_fit(X, y, W, needs_mask=False)
        self._fit_tree(X, privatize_labels(y, self.epsilon, M, rng), rng)
        return self

    def privatize(self, X, y, W=None):
        """What each user sends: a :class:`LabelRelease` (all features, noisy label)."""
        X, y, _, M, rng = self._prepare_fit(X, y, W, needs_mask=False)
        return LabelRelease(X.copy(), privatize_labels(y, self.epsilon, M, rng))


class DT(_TreeBaseline):
    """The non-private CART tree (baseline (vii)), the reference of Table 1's MSE ratios.

    ``sklearn.tree.DecisionTreeRegressor`` on the raw data. No privacy at all.

    Parameters
    ----------
    max_depth, min_samples_leaf : scikit-learn tree parameters.
    random_state : None, int, or numpy Generator (scikit-learn's tie breaking).

    Attributes
    ----------
    tree_ : the fitted DecisionTreeRegressor.
    """

    def __init__(self, max_depth=4, min_samples_leaf=10, random_state=None):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    def fit(self, X, y, W=None):
        """Fit the tree on the raw data.

        Parameters
        ----------
        X : (n, d) array in [0, 1]; y : (n,) labels.
        W : ignored; checked if given.
        """
        self._check_tree_params()
        X, y, _ = self._check_data(X, y, W, needs_mask=False)
        self._fit_tree(X, y, as_generator(self.random_state))
        return self


# ----------------------------------------------------------------------------------------------
# LPDT: the public-data tree of Ma, Zhang, Cai and Yang (2023)
# ----------------------------------------------------------------------------------------------
class LPDTRelease(NamedTuple):
    """Per-user messages of the private rows of :class:`LPDT`.

    private : (n,) bool, the rows treated as private (W row not all zero).
    reports : ldpviz.mechanisms.CellReports of the private rows over the leaves.
    labels : (n_private,) ``clip(Y_i) + Laplace(2M / (rho eps))``.
    """

    private: np.ndarray
    reports: object
    labels: np.ndarray


class LPDT(SemiFeatureRegressor):
    """Locally private decision tree with public data (Ma, Zhang, Cai and Yang, 2023).

    Rows of W that are all zero form the *public sample*: features and label in the clear
    (those users consented). They grow the max-edge tree (Section 2.3 of 003) with the
    minimum-leaf rule n_l (``min_samples_leaf``). Every other row is private for *all* its
    features and its label: the user reports its leaf by binary randomized response on the
    one-hot leaf vector (eq 3 of 003; budget ``(1 - rho) eps``, i.e. eps/4 per bit at
    rho = 1/2) and ``clip(Y_i) + Laplace(2M / (rho eps))`` (eq 4), each once. The estimate in
    leaf j is ``sum_i Y~_i U~_i^j / sum_i U~_i^j`` over the private rows (eq 5).

    Section 4.3 of the HistOfTree paper: HistOfTree with s = 0 and this mask reduces to LPDT
    (HistOfTree privatises the public rows' labels too, and counts those rows in eq 9).

    Privacy: eps-LDP for every private row (Theorem 3.1 of 003): the leaf report changes two
    bits, each by a likelihood factor at most ``e^{(1 - rho) eps / 2}``, and the label density
    by at most ``e^{rho eps}``. Public rows get no protection by design. Partially protected
    rows are treated as fully private (a stronger guarantee than they asked for).

    Parameters
    ----------
    epsilon : float, default=1.0
    max_depth : int, default=4
        Depth of the max-edge tree (003's s).
    min_samples_leaf : int, default=5
        n_l: a split is refused when a child holds fewer public points (003, Section 2.3).
    rule : {"max-edge", "cart"}, default="max-edge"
        003's max-edge midpoint rule, or CART on the public sample.
    mechanism : {"rr", "grr"}, default="rr"
        Leaf report by binary RR (003) or by one GRR draw over the leaves (eq 17 of 000).
    rho : float, default=0.5
        Share of epsilon spent on the label.
    y_bound : float or None, default=None
        Public label bound M; None reads it off the labels with a PrivacyWarning (a leak).
    private_features, s : the aligned mask when W is not passed to fit. LPDT needs public
        *rows*: pass W (rows of zeros are public); with an aligned mask either every row is
        public (s = 0) or none is, and the tree is then a single leaf (Theorem 3.5 of 003).
    public_in_estimate : bool, default=False
        False: eq (5) of 003, the public sample only grows the tree. True: the public rows'
        exact leaf counts and labels are added to the sums (more data, no privacy cost).
    fallback : {"public", "zero"}, default="public"
        Value of a leaf whose estimated count is not positive: the public sample's mean label
        in that leaf (the global public mean if it is empty, 0 without a public sample), or 0.
    clip : bool, default=True
    random_state : None, int, or numpy Generator

    Attributes
    ----------
    partition_ : ldpviz.partition.Partition (no histogram axes; the tree's leaves are cells)
    n_cells_, n_public_ : int
    cell_numerator_, cell_denominator_, cell_values_ : (n_leaves,)
    epsilon_label_, epsilon_cells_ : the budget split; they add up to epsilon.
    y_bound_ : float
    """

    def __init__(self, epsilon=1.0, max_depth=4, min_samples_leaf=5, rule="max-edge",
                 mechanism="rr", rho=0.5, y_bound=None, private_features=None, s=None,
                 public_in_estimate=False, fallback="public", clip=True, random_state=None):
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.rule = rule
        self.mechanism = mechanism
        self.rho = rho
        self.y_bound = y_bound
        self.private_features = private_features
        self.s = s
        self.public_in_estimate = public_in_estimate
        self.fallback = fallback
        self.clip = clip
        self.random_state = random_state

    def _check_params(self):
        check_rho(self.rho)
        check_int(self.max_depth, "max_depth", 0)
        check_int(self.min_samples_leaf, "min_samples_leaf", 0)
        check_choice(self.rule, "rule", RULES)
        check_choice(self.mechanism, "mechanism", MECHANISMS)
        check_choice(self.fallback, "fallback", LPDT_FALLBACKS)

    def _grow(self, X, y, W, M):
        """The max-edge tree on the public rows (their labels are public, clipped to [-M, M])."""
        public = ~W.any(axis=1)
        # With no public row the tree is the root alone (Theorem 3.5 of 003).
        Xp = X[public]
        yp = np.clip(y[public], -M, M)
        partition = build_partition(Xp, yp, np.zeros(Xp.shape, dtype=bool), (), 1,
                                    self.max_depth, self.rule, self.min_samples_leaf)
        return public, partition

    def fit(self, X, y, W=None):
        """Grow the tree on the public rows, then aggregate the private rows' reports (eq 5).

        Parameters
        ----------
        X : (n, d) array in [0, 1]; y : (n,) labels.
        W : (n, d) 0/1 mask; all-zero rows are the public sample, the others are private.
        """
        self._check_params()
        X, y, W, M, rng = self._prepare_fit(X, y, W)
        self.epsilon_label_, self.epsilon_cells_ = split_budget(self.epsilon, self.rho)
        public, self.partition_ = self._grow(X, y, W, M)
        self.n_public_ = int(public.sum())
        self.n_cells_ = self.partition_.n_cells
        private = ~public
        Xq = X[private]
        # One label release per private user, reused by every leaf.
        y_tilde = privatize_labels(y[private], self.epsilon_label_, M, rng)
        num, den = cell_report_sums(self.partition_, Xq, np.ones(Xq.shape, dtype=bool),
                                    y_tilde, self.epsilon_cells_, self.mechanism, rng)
        if self.public_in_estimate and self.n_public_:
            leaf = self.partition_.cell_index(X[public])
            num = num + np.bincount(leaf, weights=np.clip(y[public], -M, M),
                                    minlength=self.n_cells_)
            den = den + np.bincount(leaf, minlength=self.n_cells_)
        self.cell_numerator_, self.cell_denominator_ = num, den
        if self.fallback == "zero" or self.n_public_ == 0:
            backup = np.zeros(self.n_cells_)
        else:
            leaf_mean = self.partition_.tree.leaf_label_mean
            global_mean = float(np.mean(np.clip(y[public], -M, M)))
            backup = np.where(np.isnan(leaf_mean), global_mean, leaf_mean)
        ok = den > 0
        values = np.where(ok, num / np.where(ok, den, 1.0), backup)
        self.cell_values_ = np.clip(values, -M, M) if self.clip else values
        return self

    def predict(self, X):
        """Predicted label: the value of the leaf containing each point."""
        X = self._check_predict_input(X)
        return self.cell_values_[self.partition_.cell_index(X)]

    def privatize(self, X, y, W=None):
        """What the private rows send: an :class:`LPDTRelease` (small n only).

        The tree is grown on the public rows first (it is public); uses ``random_state``.
        """
        self._check_params()
        X, y, W, M, rng = self._prepare_fit(X, y, W)
        eps_label, eps_cells = split_budget(self.epsilon, self.rho)
        public, partition = self._grow(X, y, W, M)
        Xq = X[~public]
        labels = privatize_labels(y[~public], eps_label, M, rng)
        reports = cell_reports(partition, Xq, np.ones(Xq.shape, dtype=bool), eps_cells,
                               self.mechanism, rng)
        return LPDTRelease(~public, reports, labels)
