"""Classification under (semi-feature) LDP: HistOfTree's extension and the rule of 002.

* :class:`HistOfTreeClassifier`: the extension the HistOfTree paper calls straightforward
  (Section 1). The label is released by generalized randomized response, the public tree and
  the cell reports are those of :class:`ldpviz.HistOfTree`, and each cell predicts the class
  with the largest debiased count.
* :class:`HistClassifier`: the partitioning classification rule of Berrett, Gyorfi and Walk
  (2021, Section 5) on a cubic grid under plain LDP: the sign of the noisy label sum.

The label set is a public choice, like ``y_bound`` for regression: pass ``classes``. Reading it
off the labels (``classes=None``) warns with :class:`ldpviz.PrivacyWarning`, since the set of
labels present can reveal a user (a class only one person has).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import type_of_target

from ._array_kinds import refuse_non_numbers
from ._base import SemiFeatureEstimator, check_X
from ._config import check_budget, check_grid_budget, get_config
from ._index import bincount
from ._rng import as_generator
from ._validation import (
    MAX_COUNT,
    MAX_DEPTH,
    PrivacyWarning,
    check_choice,
    check_epsilon,
    check_int,
    check_label_shape,
    check_simulable,
    shown,
)
from .baselines._common import _CHUNK_ENTRIES, _PRIVATIZE_BYTES, _laplace_noise
from .baselines._hist import HIST_NOISE, _grid_sums
from .estimators import HistOfTreeProtocol
from .mechanisms import debias_grr, grr, grr_probabilities
from .partition import Histogram

__all__ = ["HistClassifier", "HistOfTreeClassifier"]

CLASSIFIER_FALLBACKS = ("leaf", "prior")


def _encode_labels(y, n_samples, classes):
    """(classes_, codes): the public label set and each label's index in it.

    Refuses labels that are not categories: missing values, a mix of strings and numbers, and
    (when ``classes`` is not given) a continuous target, which would make every distinct value
    a class.
    """
    for labels, name in ((y, "y"), (classes, "classes")):
        if isinstance(labels, (list, tuple)):  # numpy would turn [1, "a"] into ["1", "a"]
            _check_one_label_type(np.asarray(labels, dtype=object).ravel(), name)
    y = check_label_shape(y, n_samples)
    _check_no_missing(y, "y")
    if y.dtype == object:
        _check_one_label_type(y, "y")
    if classes is None:
        kind = type_of_target(y)
        if kind == "continuous":
            raise ValueError(
                f"Unknown label type: continuous. y holds {len(np.unique(y)):,} distinct "
                f"values, not all integers (e.g. {y[:1].tolist()[0]!r}): a continuous target, "
                "where a classifier needs class labels. Use a regressor (HistOfTree), bin y "
                "first, or pass classes explicitly.")
        if kind == "unknown":
            raise ValueError(
                f"Unknown label type: unknown. y holds {type(y[0]).__name__} objects (dtype "
                f"{y.dtype}); pass class labels as integers or strings.")
        warnings.warn(
            "classes was not set, so the label set was read off the private labels. That "
            "choice depends on private data and is not covered by the privacy guarantee; "
            "pass classes as a public list fixed in advance.",
            PrivacyWarning,
            stacklevel=3,
        )
        classes_ = np.unique(y)
    else:
        classes_ = _as_class_list(classes)
        _check_no_missing(classes_, "classes")
        if classes_.dtype == object:
            _check_one_label_type(classes_, "classes")
        try:
            distinct = len(np.unique(classes_))
        except TypeError:  # objects with no order, such as dicts
            raise ValueError(f"classes must hold numbers or strings, got {classes!r}.") from None
        if distinct != len(classes_):
            raise ValueError(f"classes must be a 1-D list of distinct labels, got {classes!r}.")
        if len(classes_) < 2:
            raise ValueError(f"classes must list at least two classes, got {len(classes_)}: "
                             f"{classes!r}.")
        classes_ = np.sort(classes_)
    if len(classes_) < 2:
        raise ValueError(f"y needs at least two classes, got {len(classes_)} class: "
                         f"{classes_.tolist()!r}.")
    try:
        codes = np.minimum(np.searchsorted(classes_, y), len(classes_) - 1)
        outside = classes_[codes] != y
    except TypeError:  # labels of another type than classes (str against numbers)
        raise ValueError(f"y and classes hold different label types ({y.dtype} and "
                         f"{classes_.dtype}).") from None
    if np.any(outside):
        strays = sorted(set(y[outside].tolist()))
        listed = repr(strays) if len(strays) <= 5 else \
            f"{len(strays):,} values, e.g. {', '.join(shown(v) for v in strays[:5])}"
        known = shown(classes_.tolist()) if len(classes_) <= 10 else \
            f"{len(classes_):,} values from {shown(classes_[0])} to {shown(classes_[-1])}"
        raise ValueError(f"y has labels outside classes: {listed} (classes are {known}).")
    # The smallest signed integer type holding every code: one byte per user for K <= 128,
    # which keeps a fit on ten million users within its memory budget.
    return classes_, codes.astype(np.min_scalar_type(-len(classes_)))


def _as_class_list(classes):
    """``classes`` as a 1-D array; a set, a string or a single value is refused by name."""
    if isinstance(classes, (set, frozenset)):
        try:
            example = repr(sorted(classes))
        except TypeError:  # labels with no common order
            example = f"sorted({classes!r})"
        raise TypeError(f"classes is a set, which has no order; pass a sorted list instead, "
                        f"e.g. classes={example}.")
    if isinstance(classes, (str, bytes)):
        raise TypeError(f"classes must be a list of labels, not a string: got {classes!r}; "
                        "pass each label as an item of a list, e.g. ['yes', 'no'].")
    classes_ = np.asarray(classes)
    refuse_non_numbers(classes_, "classes", "labels")
    if classes_.ndim != 1:
        raise ValueError(f"classes must be a 1-D list of distinct labels, got {classes!r}.")
    return classes_


def _check_no_missing(labels, name):
    """Refuse None, NaN and inf among class labels: they are not categories."""
    if labels.dtype.kind == "f" and not np.all(np.isfinite(labels)):
        raise ValueError(f"{name} contains NaN or inf; class labels must be categories.")
    if labels.dtype == object and any(v is None or (isinstance(v, float) and np.isnan(v))
                                      for v in labels.ravel()):
        raise ValueError(f"{name} contains missing values (None or NaN).")


def _check_one_label_type(labels, name):
    """Refuse a mix of strings and numbers: they have no common order and no common meaning."""
    kinds = {"string" if isinstance(v, str) else "number" for v in labels}
    if len(kinds) > 1:
        text = next(v for v in labels if isinstance(v, str))
        number = next(v for v in labels if not isinstance(v, str))
        raise ValueError(f"{name} mixes strings and numbers as class labels (e.g. {text!r} and "
                         f"{number!r}); use one type (Mix of label input types).")


class _PrivateClassifier(ClassifierMixin, SemiFeatureEstimator):
    """Input checks of the classifiers (labels are categories, not numbers)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Privacy noise dominates on the small samples of scikit-learn's checks.
        tags.classifier_tags.poor_score = True
        return tags

    def _prepare_classification_fit(self, X, y, W, needs_mask, check_size=None):
        """Checked (X, codes, W, rng). ``check_size(shape, W, K)``, called with the number of
        public classes before the labels are read, refuses a fit the budget cannot hold
        before a long class list is sorted (3 million classes took 26 s to be refused)."""
        check_epsilon(self.epsilon)
        columns = getattr(X, "columns", None)
        X = check_X(self, X, reset=True)
        if needs_mask or W is not None:
            W = self._resolve_mask(X.shape, W, columns)
        listed = isinstance(self.classes, (list, tuple, np.ndarray)) and np.ndim(self.classes) == 1
        if check_size is not None and listed and len(self.classes) >= 2:
            check_size(X.shape, W, len(self.classes))
        self.classes_, codes = _encode_labels(y, X.shape[0], self.classes)
        shares, _ = self._budget_shares(X.shape[1])
        check_simulable(self.epsilon, shares, split=self._split_name())
        return X, codes, W, as_generator(self.random_state)

    def predict(self, X):
        """The predicted class of each point."""
        codes = self._predict_codes(X)  # checks that the model is fitted
        return self.classes_[codes]


class HistOfTreeClassifier(_PrivateClassifier, HistOfTreeProtocol):
    """HistOfTree for labels in a finite set (the extension of Section 1 of the paper).

    The protocol of :class:`ldpviz.HistOfTree` with the Laplace label replaced by generalized
    randomized response over the K classes:

    1. Each user reports its class once by GRR with budget ``rho eps`` (eq 16) and publishes
       the features it does not protect. The server debiases the report into an unbiased
       one-hot vector ``Y~_i`` (K numbers that add up to 1) and grows the public tree on these
       K columns (Algorithm 1, W-aware; the score sums the variance reduction over columns).
    2. With pi = histogram on the s most protected axes x tree, each user reports its cell
       among its potential cells V_i with budget ``(1 - rho) eps`` (eq 17 or eq 8). The
       per-cell class scores are ``sum_i Y~_ic V~_i^j`` (eq 9's numerator, one per class),
       unbiased for the class counts. By default (``cell_estimate="stable"``) each cell's
       class frequencies ``scores / D_j`` are weighed against coarser ones by their noise
       (:mod:`ldpviz.cell_estimates`, with the label noise of GRR and a spread of at most 1,
       the largest variance of a one-hot label); with ``"paper"`` the cell predicts the class
       with the largest score (eq 9's numerator).

    Privacy: eps-semi-feature LDP (Definition 3.1): the GRR label report changes probability
    by at most ``e^{rho eps}`` between any two classes (Proposition A.1) and the cell report
    by at most ``e^{(1 - rho) eps}`` between any two values of the protected features
    (Propositions 3.2 / A.1), so by composition the user's message changes by at most
    ``e^eps``. Normalising, clipping and the fallback are post-processing.

    Parameters
    ----------
    epsilon : float, default=1.0
    s : int or None, default=None
        Number of histogram axes (as in HistOfTree).
    t : int, default=2
        Histogram bins per private axis.
    depth : int, default=2
        Depth of the public tree.
    rule : {"max-edge", "cart"}, default="max-edge"
    mechanism : {"grr", "rr"}, default="grr"
    rho : float, default=0.5
        Share of epsilon spent on the label.
    classes : array-like or None, default=None
        The public label set. None reads it off y with a PrivacyWarning (a leak).
    private_features : list of int or str, or None
        Aligned case: the columns every user protects (if W is not passed to fit), as indices
        or, when X is a DataFrame, as its column names.
    min_samples_leaf : int, default=0
    cell_estimate : {"stable", "paper"}, default="stable"
        As in :class:`ldpviz.HistOfTree`: "stable" weighs each cell's class frequencies by
        their noise and falls back along the tree (the default: sparse cells otherwise vote
        by noise); "paper" uses the scores as printed.
    fallback : {"leaf", "prior"}, default="leaf"
        "paper": class probabilities of a cell whose scores are all <= 0: the round-1 mean of
        the debiased one-hot labels in its tree leaf (else the global one), or the global one.
        "stable": fall back along the round-1 means of the tree nodes ("leaf") or toward the
        global one ("prior").
    random_state : None, int, or numpy Generator

    Attributes
    ----------
    classes_ : (K,) the label set, sorted.
    partition_ : ldpviz.partition.Partition
    n_cells_ : int
    cell_scores_ : (n_cells, K) debiased class counts per cell (may be negative).
    cell_denominator_ : (n_cells,) debiased user counts (the scores add up to it).
    cell_proba_ : (n_cells, K) class probabilities per cell.
    cell_std_error_ : (n_cells,) with ``cell_estimate="stable"``: as in
        :class:`ldpviz.HistOfTree`.
    y_reported_ : (n,) int, each user's GRR class report (index into ``classes_``), drawn once;
        the smallest signed integer type that holds the codes (int8 up to 128 classes).
    hist_axes_, tree_axes_ : tuple of int
    s_ : int
    epsilon_label_, epsilon_cells_ : the budget split of a user who sends a cell report; they
        add up to epsilon.
    n_label_only_ : int, the users whose cell is fixed by what they publish: they send no cell
        report and spend all of epsilon on their label.
    """

    def __init__(self, epsilon=1.0, s=None, t=2, depth=2, rule="max-edge", mechanism="grr",
                 rho=0.5, classes=None, private_features=None, min_samples_leaf=0,
                 cell_estimate="stable", fallback="leaf", random_state=None):
        self.epsilon = epsilon
        self.s = s
        self.t = t
        self.depth = depth
        self.rule = rule
        self.mechanism = mechanism
        self.rho = rho
        self.classes = classes
        self.private_features = private_features
        self.min_samples_leaf = min_samples_leaf
        self.cell_estimate = cell_estimate
        self.fallback = fallback
        self.random_state = random_state

    _fallbacks = CLASSIFIER_FALLBACKS
    _global_fallback_rows = 1  # "prior": the root's round-1 mean
    _posterior = True  # accuracy: a noisy cell still votes where the fallback is undecided

    def fit(self, X, y, W=None):
        """Run both rounds of the protocol.

        Parameters
        ----------
        X : (n, d) array with entries in the public box [0, 1].
        y : (n,) labels, each in ``classes``.
        W : (n, d) 0/1 privacy mask (1 = protected) or None (``private_features`` / ``s``).
        """
        self._check_protocol_params()
        t = check_int(self.t, "t", 1, MAX_COUNT)
        depth = check_int(self.depth, "depth", 0, MAX_DEPTH)
        X, codes, W, rng = self._prepare_classification_fit(
            X, y, W, needs_mask=True, check_size=lambda shape, W, K: self._check_budget(
                W, self._choose_s(W), t, depth, n_outputs=K))
        s = self._choose_s(W)
        self._check_budget(W, s, t, depth, n_outputs=len(self.classes_))
        self._run_protocol(X, codes, W, rng, s, t, depth)
        return self

    def _release_labels(self, codes, epsilons, rng):
        """GRR over the K classes (eq 16), once per user; debiased one-hot rows feed the tree."""
        K = len(self.classes_)
        self.y_reported_ = grr(codes, K, epsilons, rng).astype(codes.dtype)
        return debias_grr(self.y_reported_, K, epsilons)

    def _label_noise(self, epsilon):
        """Total variance ``c^2 ((K-1) q (1-q) + p (1-p))`` of a debiased GRR one-hot label.

        For K-ary GRR (eq 16) with ``c = 1 / (p - q)``: the column of the true class has
        variance ``c^2 p (1 - p)``, each other column ``c^2 q (1 - q)``; the sum does not
        depend on the class.
        """
        p, q = grr_probabilities(len(self.classes_), epsilon)
        if p == q:  # no information (cannot happen for epsilon > 0)
            return np.inf
        return ((len(self.classes_) - 1) * q * (1 - q) + p * (1 - p)) / (p - q) ** 2

    def _deviation_scale(self):
        return 1.0  # the largest total variance of a one-hot label

    def _set_cell_values(self, scores, den, onehot):
        """Class scores per cell, clipped at 0 and normalised, with the fallback."""
        self.cell_scores_ = scores
        prior = _normalise(onehot.mean(axis=0)[None, :])[0]
        if self.fallback == "leaf":
            backup = _normalise(self._leaf_backup(prior), prior)
        else:
            backup = np.broadcast_to(prior, scores.shape)
        self.cell_proba_ = _normalise(scores, backup)

    def _set_stable_values(self, estimate):
        """Stable class frequencies per cell, clipped at 0 and normalised."""
        self.cell_scores_ = self.cell_numerator_
        self.cell_std_error_ = estimate.std_error
        prior = _normalise(estimate.node_values[:1])[0]
        self.cell_proba_ = _normalise(estimate.values, np.broadcast_to(prior,
                                                                        estimate.values.shape))

    def predict_proba(self, X):
        """Class probabilities of the cell containing each point, columns in ``classes_``.

        The debiased class scores clipped at 0 and normalised (post-processing).
        """
        X = self._check_predict_input(X)
        per_point = 8 * len(self.classes_)
        fits = get_config()["max_bytes"] // per_point
        check_budget(f"{type(self).__name__}.predict_proba with {len(self.classes_):,} classes",
                     "len(X)", len(X), {"max_bytes": per_point * len(X)},
                     advice=f"pass at most {fits:,} points at a time, or use predict (one "
                     "label per point)")
        return self.cell_proba_[self.partition_.cell_index(X)]

    def _predict_codes(self, X):
        X = self._check_predict_input(X)
        # the class of each cell, then of each point: no (points x classes) array
        return np.argmax(self.cell_proba_, axis=1)[self.partition_.cell_index(X)]


def _class_sums(cell, codes, K, n_cells, scale, noise, rng):
    """(n_cells, K) noisy sums of the users' one-hot class vectors: the numbers, and the noise
    draws in the same order, of ``_grid_sums`` on the n x K one-hot matrix, without building
    it (100,000 classes took 48 s and n x K x 8 bytes)."""
    n = len(cell)
    key = cell.astype(np.int64) * K + codes.astype(np.int64)
    sums = bincount(key, minlength=n_cells * K).reshape(n_cells, K).astype(float)
    if n == 0 or scale == 0.0:
        return sums
    if noise == "aggregate":  # per class, the Gamma difference of _laplace_sum, in order
        block = max(1, _CHUNK_ENTRIES // (2 * n_cells))
        for start in range(0, K, block):
            draws = rng.gamma(n, scale, size=(min(block, K - start), 2, n_cells))
            sums[:, start:start + len(draws)] += (draws[:, 0] - draws[:, 1]).T
        return sums
    rows = max(1, _CHUNK_ENTRIES // n_cells)  # per user: as _grid_sums, chunk by chunk
    for start in range(0, n, rows):
        size = (min(rows, n - start), n_cells)
        for c in range(K):
            sums[:, c] += _laplace_noise(scale, size, rng).sum(axis=0)
    return sums


def _normalise(scores, backup=None):
    """Rows clipped at 0 and normalised to sum 1; rows with no positive entry take ``backup``."""
    pos = np.clip(scores, 0.0, None)
    total = pos.sum(axis=1, keepdims=True)
    ok = total > 0
    proba = pos / np.where(ok, total, 1.0)
    if backup is None:
        return np.where(ok, proba, 1.0 / scores.shape[1])
    return np.where(ok, proba, backup)


class HistClassifier(_PrivateClassifier):
    """The partitioning classification rule of Berrett, Gyorfi and Walk (2021, Section 5).

    Plain LDP on a cubic grid with t bins per axis (``t**d`` cells A_j). With two classes,
    coded -1 (``classes_[0]``) and +1 (``classes_[1]``), user i sends for every cell j

        ``Z_ij = Y_i 1{X_i in A_j} + Laplace(2 / eps)``

    and the rule is ``g(x) = sign(sum_i Z_ij)`` for x in A_j (002, Section 5; sign(0) = -1).
    With K > 2 classes each user sends ``Z_ijc = 1{X_i in A_j, Y_i = c} + Laplace(2 / eps)``
    for every cell and class, and the rule is the arg max over c of ``sum_i Z_ijc``.

    The rule does not use 002's cell vector W_ij (eq 6), so it is not sent and the whole budget
    goes to Z (with 002's joint mechanism, eps/2 each, the scale would be 4/eps).

    Privacy: eps-LDP for the whole record. Changing (x, y) changes Z by at most 2 in l1 norm
    (y in one cell and y' in another, or |y - y'| <= 2 in the same cell; for K > 2 two
    indicator entries), so the Laplace(2/eps) output densities differ by at most ``e^eps``
    (Proposition 1 of 002).

    Parameters
    ----------
    epsilon : float, default=1.0
    t : int, default=2
        Bins per axis.
    classes : array-like or None, default=None
        The public label set. None reads it off y with a PrivacyWarning (a leak).
    noise : {"aggregate", "per-user"}, default="aggregate"
        As in :class:`ldpviz.baselines.Hist`: exact noise sums (Gamma differences) or every
        user's message drawn (teaching).
    random_state : None, int, or numpy Generator

    Attributes
    ----------
    classes_ : (K,)
    n_cells_ : int
    cell_sums_ : (n_cells,) for two classes, else (n_cells, K): the noisy sums of Z.
    scale_ : the Laplace scale 2/eps.
    """

    def __init__(self, epsilon=1.0, t=2, classes=None, noise="aggregate", random_state=None):
        self.epsilon = epsilon
        self.t = t
        self.classes = classes
        self.noise = noise
        self.random_state = random_state

    def _grid(self, n, d, K=None):
        """The grid, its size checked for ``K`` classes (default: ``classes_``)."""
        t = check_int(self.t, "t", 1, MAX_COUNT)
        check_choice(self.noise, "noise", HIST_NOISE)
        K = len(self.classes_) if K is None else K
        check_grid_budget("HistClassifier", n, t, d, 1 if K == 2 else K,
                          per_user=self.noise == "per-user", classes=K)
        return Histogram(tuple(range(d)), t)

    def _messages(self, codes):
        """Per-user values before noise: +-1 for two classes, one-hot for more."""
        K = len(self.classes_)
        if K == 2:
            return (2.0 * codes - 1.0)[:, None]
        return (codes[:, None] == np.arange(K)[None, :]).astype(float)

    def fit(self, X, y, W=None):
        """Collect the noisy label sums of every grid cell.

        Parameters
        ----------
        X : (n, d) array with entries in the public box [0, 1].
        y : (n,) labels, each in ``classes``.
        W : ignored (everything is private); checked if given.
        """
        X, codes, _, rng = self._prepare_classification_fit(
            X, y, W, needs_mask=False, check_size=lambda shape, W, K: self._grid(*shape, K))
        grid = self._grid(*X.shape)
        self.n_cells_ = grid.n_cells
        eps = check_epsilon(self.epsilon)
        self.scale_ = 0.0 if np.isinf(eps) else 2.0 / eps
        cell = grid.cell_index(X)
        if len(self.classes_) == 2:
            sums, _ = _grid_sums(cell, self._messages(codes), grid.n_cells, [self.scale_],
                                 None, self.noise, rng)
            self.cell_sums_ = sums[:, 0]
        else:
            self.cell_sums_ = _class_sums(cell, codes, len(self.classes_), grid.n_cells,
                                          self.scale_, self.noise, rng)
        self._grid_ = grid
        return self

    def _predict_codes(self, X):
        X = self._check_predict_input(X)
        cells = self._grid_.cell_index(X)
        if self.cell_sums_.ndim == 1:
            return (self.cell_sums_[cells] > 0).astype(np.int64)
        return np.argmax(self.cell_sums_, axis=1)[cells]  # per cell: no n x K array

    def privatize(self, X, y, W=None):
        """Every user's message Z_i over all cells (and classes if K > 2), shape (n, ...).

        For small n only (it materialises the n x t**d array). Uses ``random_state``.
        """
        X, codes, _, rng = self._prepare_classification_fit(X, y, W, needs_mask=False)
        grid = self._grid(*X.shape)
        values = self._messages(codes)
        per_user = _PRIVATIZE_BYTES * grid.n_cells * values.shape[1]
        check_budget("HistClassifier.privatize", "n_samples", len(X),
                     {"max_bytes": per_user * len(X)}, fits=get_config()["max_bytes"] // per_user)
        eps = check_epsilon(self.epsilon)
        scale = 0.0 if np.isinf(eps) else 2.0 / eps
        onehot = grid.cell_index(X)[:, None] == np.arange(grid.n_cells)[None, :]
        z = onehot[:, :, None] * values[:, None, :]
        z = z + rng.laplace(0.0, 1.0, size=z.shape) * scale
        return z[:, :, 0] if values.shape[1] == 1 else z
