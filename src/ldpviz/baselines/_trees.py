"""The CART baselines of Section 5: KRR (k-ary RR on the protected features), ParDT (published
features only), LabelDT (label LDP) and DT (no privacy, the reference of Table 1)."""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from .._rng import as_generator
from .._validation import (
    PrivacyWarning,
    check_choice,
    check_epsilon,
    check_int,
    check_rho,
)
from ..mechanisms import (
    grr,
    privatize_labels,
)
from ._common import _MAX_INT, _laplace_noise, _TreeBaseline

PARDT_MISSING = ("nan", "drop")


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
    private_features : list of int or str, or None
        Aligned case, when W is not passed to fit: the columns every user protects (indices,
        or a DataFrame X's column names).
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
        self._k = check_int(self.k, "k", 2, _MAX_INT)
        self._check_tree_params()

    def _budget_shares(self, n_features):
        """The label gets rho eps; each of up to d protected coordinates (1 - rho) eps / d."""
        rho = check_rho(self.rho)
        return (rho, (1.0 - rho) / n_features), rho

    def fit(self, X, y, W=None):
        """Privatize every user's record (see :meth:`privatize`) and fit the tree on it.

        Parameters
        ----------
        X : (n, d) array in [0, 1]; y : (n,) labels.
        W : (n, d) 0/1 privacy mask (1 = protected) or None (``private_features`` / ``s``).
        """
        self._check_params()
        X, y, W, M, rng = self._prepare_fit(X, y, W)
        release = _krr_release(X, y, W, self._k, self.epsilon, self.rho, M, rng)
        self.epsilon_label_, self.epsilon_feature_ = release.epsilon_label, \
            release.epsilon_feature
        self._fit_tree(release.features, release.labels, rng)
        return self

    def privatize(self, X, y, W=None):
        """What each user sends: a :class:`KRRRelease` (uses ``random_state`` like fit)."""
        self._check_params()
        X, y, W, M, rng = self._prepare_fit(X, y, W)
        return _krr_release(X, y, W, self._k, self.epsilon, self.rho, M, rng)


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
        W : not used: every feature is sent. Checked if given, and a W that protects anything
            gets a PrivacyWarning (those features are not protected).
        """
        self._check_tree_params()
        X, y, W, M, rng = self._prepare_fit(X, y, W, needs_mask=False)
        _warn_mask_ignored(W)
        self._fit_tree(X, privatize_labels(y, self.epsilon, M, rng), rng)
        return self

    def privatize(self, X, y, W=None):
        """What each user sends: a :class:`LabelRelease` (all features, noisy label)."""
        X, y, W, M, rng = self._prepare_fit(X, y, W, needs_mask=False)
        _warn_mask_ignored(W)
        return LabelRelease(X.copy(), privatize_labels(y, self.epsilon, M, rng))


def _warn_mask_ignored(W):
    """LabelDT sends every feature: a mask that protects something is not honoured."""
    if W is not None and W.any():
        warnings.warn(
            f"LabelDT sends every feature in the clear and ignores W: the {int(W.sum()):,} "
            "entries W marks as protected are not protected (label LDP only). Use KRR, ParDT or "
            "HistOfTree to honour W, or call fit without W.", PrivacyWarning, stacklevel=3)


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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = False  # no privacy noise
        return tags

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
