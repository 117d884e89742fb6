"""HistOfTree: regression under semi-feature LDP (Sections 3.2-3.3 of the HistOfTree paper)."""

from __future__ import annotations

import numpy as np

from . import adaptive_rule
from ._base import SemiFeatureEstimator, SemiFeatureRegressor
from ._config import check_partition_budget
from ._index import bincount
from ._validation import MAX_COUNT, MAX_DEPTH, check_choice, check_int, check_rho
from .cell_estimates import (
    CELL_ESTIMATES,
    label_noise_sums,
    paper_cell_values,
    report_units,
    stable_cell_values,
    tree_units,
)
from .cell_sums import cell_report_sums
from .masks import ranking_of_checked_mask
from .mechanisms import MECHANISMS, laplace_scale, privatize_labels, split_budget
from .partition import RULES, build_partition

FALLBACKS = ("leaf", "zero")


def _distinct_rows(hidden):
    """Number of distinct rows of a boolean (n, s) array, s < 63, in O(n) small memory."""
    s = hidden.shape[1]
    code = np.zeros(len(hidden), dtype=np.uint16 if s <= 16 else np.int64)
    for j in range(s):
        code |= hidden[:, j].astype(code.dtype) << j
    if s > 16:
        return len(np.unique(code))
    present = np.zeros(1 << s, dtype=bool)
    present[code] = True
    return int(present.sum())


class HistOfTreeProtocol(SemiFeatureEstimator):
    """The two rounds of Section 3, shared by HistOfTree and its classifier.

    Subclasses define ``_release_labels(labels, epsilons, rng)``, the round-1 label release with
    per-user budgets (called once; its values Y~, shape (n,) or (n, m), feed the tree and every
    cell), ``_label_noise(epsilon)``, the variance of one released label summed over its
    columns (public: it depends on the budget only), and the post-processing of the sums:
    ``_set_cell_values(numerator, denominator, y_tilde)`` (eq 9 as printed) and
    ``_set_stable_values(estimate)`` (:mod:`ldpviz.cell_estimates`).
    """

    _fallbacks = FALLBACKS
    _local_fallback = "leaf"  # the fallback that uses the round-1 means of the tree nodes
    _global_fallback_rows = 0  # the other fallback keeps the root (1) or nothing (0)
    _posterior = False
    _rho_rule = False  # whether rho="auto" (adaptive_rule.choose_rho) is offered

    def _check_protocol_params(self):
        if not (self._rho_rule and _is_auto(self.rho)):
            check_rho(self.rho, "rho" if not self._rho_rule else "rho (or 'auto')")
        check_choice(self.rule, "rule", RULES)
        check_choice(self.mechanism, "mechanism", MECHANISMS)
        check_choice(self.fallback, "fallback", self._fallbacks)
        # The checked Python int: a numpy int8 would overflow in the budget's arithmetic.
        self._min_samples_leaf = check_int(self.min_samples_leaf, "min_samples_leaf", 0,
                                           MAX_COUNT)
        check_choice(self.cell_estimate, "cell_estimate", CELL_ESTIMATES)

    def _check_budget(self, W, s, t, depth, n_outputs=1, growths=1, depth_name="depth"):
        """Refuse, before round 1, a partition the data cannot fill or the budget cannot hold
        (:func:`ldpviz.set_config`); the error names the parameter and a value that fits.
        ``growths``: the public trees grown (AdHistOfTree's depth search grows more)."""
        hist = W[:, ranking_of_checked_mask(W)[:s]]  # users grouped by the histogram axes they hide
        patterns = _distinct_rows(hist) if 0 < s < 63 else min(len(W), 2**s)
        check_partition_budget(type(self).__name__, len(W), len(W), t, s, depth,
                               W.shape[1] - s, self.rule, self._min_samples_leaf, n_outputs,
                               self.mechanism, patterns, depth_name=depth_name,
                               growths=growths)

    def _choose_s(self, W):
        d = W.shape[1]
        if self.s is not None:
            return check_int(self.s, "s", 0, d)
        if self.private_features is not None:
            return len(self.private_features)
        return round(float(W.sum(axis=1).mean()))

    def _run_protocol(self, X, labels, W, rng, s, t, depth):
        """Rounds 1 and 2 for a given (s, t, depth); rho="auto" is chosen for them by the
        public rule :func:`ldpviz.adaptive_rule.choose_rho` before round 1."""
        ranking = ranking_of_checked_mask(W)
        if _is_auto(self.rho):
            self.rho_ = adaptive_rule.choose_rho(W, len(W), self.epsilon, self.mechanism,
                                                 self.y_bound_, s, depth, t, ranking=ranking)
        else:
            self.rho_ = float(self.rho)
        self.epsilon_label_, self.epsilon_cells_ = split_budget(self.epsilon, self.rho_)
        self.s_ = s
        self.hist_axes_ = tuple(int(a) for a in ranking[:s])
        # Round 1: one label release per user, reused below by the tree and by every cell.
        fixed_cell = self._fixed_cells(W, t)
        self.n_label_only_ = int(np.count_nonzero(fixed_cell))
        y_tilde = self._release_labels(  # the per-user budgets are freed once spent
            labels, np.where(fixed_cell, float(self.epsilon), self.epsilon_label_), rng)
        depth = self._depth_after_round1(X, y_tilde, W, s, t, depth)
        self.partition_ = build_partition(X, y_tilde, W, self.hist_axes_, t, depth,
                                          self.rule, self._min_samples_leaf)
        self.tree_axes_ = self.partition_.tree_axes
        self.n_cells_ = self.partition_.n_cells
        # Round 2: the cell reports over potential cells (the same draws for either estimate).
        stable = self.cell_estimate == "stable"
        sums = cell_report_sums(self.partition_, X, W, y_tilde, self.epsilon_cells_,
                                self.mechanism, rng, moments=stable)
        num, den = sums[0], sums[1]
        self.cell_numerator_, self.cell_denominator_ = num, den
        if stable:
            self._set_stable_values(self._stable_estimate(X, W, y_tilde, sums, fixed_cell))
        else:
            self._set_cell_values(num, den, y_tilde)

    def _depth_after_round1(self, X, y_tilde, W, s, t, depth):
        """The tree depth to grow, given the round-1 release (AdHistOfTree may change it)."""
        return depth

    def _tree_axes(self, d):
        """The axes left to the tree (known before round 1: every axis not in the histogram)."""
        return [a for a in range(d) if a not in self.hist_axes_]

    def _fixed_cells(self, W, t):
        """Users whose cell is fixed by what they publish: all of epsilon goes to their label.

        Every tree axis published, and every histogram axis too unless t = 1: such a user needs
        no private cell report. Known before round 1 (it depends on W, s and t only).
        """
        fixed_cell = ~W[:, self._tree_axes(W.shape[1])].any(axis=1)
        if t > 1:
            fixed_cell &= ~W[:, list(self.hist_axes_)].any(axis=1)
        return fixed_cell

    def _stable_estimate(self, X, W, y_tilde, sums, fixed_cell):
        """The variance-aware estimate of :mod:`ldpviz.cell_estimates` from the released data.

        Public-side units: the round-1 sums of Y~ in every tree node (the users who reached its
        leaves; the root holds everyone). Label-noise variances: ``nu`` for users who split
        their budget, ``nu_fixed`` for those who spent it all on the label (their cell is
        public, so they report it exactly).
        """
        part = self.partition_
        tree = part.tree
        y2 = y_tilde[:, None] if y_tilde.ndim == 1 else y_tilde
        nu, nu_fixed = self._label_noise(self.epsilon_label_), self._label_noise(self.epsilon)
        if fixed_cell.all():
            fixed = sums.denominator  # everyone reports exactly: V~ = 1
        elif fixed_cell.any():  # their published coordinates give their cell
            fixed = bincount(part.cell_index(X[fixed_cell]), minlength=self.n_cells_)
        else:
            fixed = np.zeros(self.n_cells_)
        # The other fallback keeps no node below the root: 0, or the global mean (the root).
        local = float(self.fallback == self._local_fallback)
        count = tree.leaf_count * local
        leaf_noise = nu * count + (nu_fixed - nu) * local * np.reshape(
            fixed, (-1, part.n_leaves)).sum(axis=0)
        leaf_sum = np.nan_to_num(tree.leaf_label_mean).reshape(len(count), -1) * count[:, None]
        keep_root = float(local or self._global_fallback_rows)
        root = (keep_root * len(y2), keep_root * y2.sum(axis=0),
                keep_root * (nu * len(y2) + (nu_fixed - nu) * fixed_cell.sum()))
        nodes = tree_units(tree, count, leaf_sum, leaf_noise, root)
        cells = report_units(sums, label_noise_sums(sums.denominator, fixed, nu, nu_fixed))
        return stable_cell_values(tree, nodes, cells, part.histogram.n_cells,
                                  self._deviation_scale(), self.rule, self._posterior)

    def _leaf_backup(self, global_value):
        """Round-1 leaf means of Y~ (``global_value`` where a leaf has none), one row per cell."""
        leaf = self.partition_.tree.leaf_label_mean
        leaf = np.where(np.isnan(leaf), global_value, leaf)
        reps = (self.partition_.histogram.n_cells,) + (1,) * (leaf.ndim - 1)
        return np.tile(leaf, reps)


class HistOfTree(SemiFeatureRegressor, HistOfTreeProtocol):
    """Histogram on the private features times a tree on the public ones, under semi-feature LDP.

    The two-round protocol of Section 3 (aligned: eqs 4-6; personalized: eqs 8-9; GRR variant:
    eq 17):

    1. Each user releases ``Y~ = clip(Y, -M, M) + Laplace(2M / (rho eps))`` once, with the
       coordinates they publish. The server grows a tree on the public axes from these
       (Algorithm 1, W-aware; or the CART rule).
    2. With the partition pi = histogram (t bins on each of the s most protected axes) x tree,
       each user reports their cell among their potential cells V_i with budget
       ``(1 - rho) eps``, by GRR (eq 17) or one randomized-response bit per cell (eq 8).
       The estimate in cell j is ``sum_i Y~_i V~_i^j / sum_i V~_i^j`` (eq 9).

    Privacy: each user's release is epsilon-semi-feature LDP (Definition 3.1, Propositions 3.2
    and A.1): rho*eps for the label plus (1-rho)*eps for the cell report. The published
    coordinates and W are public. A user whose cell is fixed by what they publish (every
    feature, or every tree feature when t = 1) sends no private cell report and spends all of
    epsilon on the label (the paper splits the budget for them too; this costs nothing and
    halves their label noise's scale at rho = 1/2). Any user with a single potential cell
    reports it exactly. Clipping
    predictions to [-M, M] and the fallback for cells whose estimated count is not positive
    are post-processing and cost no privacy.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget per user, in (0, inf]; ``np.inf`` gives the non-private limit.
    s : int or None, default=None
        Number of histogram axes: the ``s`` most protected features (Section 3.3). None: the
        number of ``private_features`` in the aligned case, else the mean number of protected
        features per user, rounded.
    t : int, default=2
        Histogram bins per private axis.
    depth : int, default=2
        Depth p of the public tree. A full max-edge tree (``min_samples_leaf=0``) has 2^p
        leaves whatever the data, so p may not exceed ``ceil(log2 n)``; the partition must also
        fit the resource budget (:func:`ldpviz.get_config`). Both are checked before round 1.
    rule : {"max-edge", "cart"}, default="max-edge"
        Max-edge midpoint rule of Algorithm 1, or CART variance reduction (the paper's "CART").
    mechanism : {"grr", "rr", "auto"}, default="grr"
        Cell report by generalized randomized response (eq 17, used in the paper's experiments)
        or by one binary randomized response per potential cell (eq 8); "auto" lets each user
        use the one with the smaller variance for their number of potential cells
        (:func:`ldpviz.mechanisms.grr_is_better`; an ldpviz extension).
    rho : float in (0, 1) or "auto", default="auto"
        Share of epsilon a user who sends a cell report spends on the label (Appendix C.1 tunes it
        in {0.5, 0.7, 0.9}; the paper's experiments use 0.5 where they fix it). "auto": chosen by a
        public rule (:func:`ldpviz.adaptive_rule.choose_rho`) from ``RHO_GRID`` = 0.5 ... 0.95 for
        this partition, from n, epsilon, the mechanism, M and W only (never the data; made before
        round 1, so it costs no privacy), by the risk proxy of :mod:`ldpviz.adaptive_rule`. Where
        the cell reports cannot be estimated at this n and epsilon, nearly all of epsilon goes to
        the label, so a histogram that cannot help costs little against ``t = 1`` (whose users
        report no cell and spend all of epsilon on the label). Measured
        (``benchmarks/bench_cell_estimate.py --target2``, Section 5.1 data, n = 10,000, aligned s* 1
        and 2, GRR and RR, t 2-4, depth 0-6, 30 runs): the worst ratio MSE(t) / MSE(t = 1) at
        epsilon 1 is 1.02 (1.26 with rho = 0.5), at epsilon 2 1.37 (1.88); since each cell's spread
        leaves the cell out (100 runs): 1.03 and 1.16, and every setting is within 1.10 MSE(t = 1) +
        0.01 on average; since GRR's partner cells count as one noise draw
        (:func:`ldpviz.cell_estimates.coupling`), every setting holds by two standard errors (191
        at 400 runs; the last, s* = 2, GRR, epsilon 2, t = 2, depth 2, has rare large errors and
        holds by five at 4,000 runs: ratio 1.13). The price: the rule assumes a moderate signal per
        protected axis, so where a strong one would have repaid the cell reports it gives them too
        little (a ramp on the protected features, 24 settings of W_gamma and aligned masks at
        epsilon 2 and 4: 1.05 times rho = 0.5's error on geometric mean, worst 1.56 at W_gamma,
        gamma = 1, epsilon 4, t = 2, depth 4). Pass ``rho=0.5`` (the paper's) when the protected
        features are known to carry strong signal.
        The value used is ``rho_``.
    y_bound : float or None, default=None
        Public label bound M. None reads it off the labels with a PrivacyWarning (a leak).
    private_features : list of int or str, or None, default=None
        Aligned case: the columns every user protects, as indices or, when X is a DataFrame,
        as its column names. Passing W to fit as well is an error.
    min_samples_leaf : int, default=0
        Refuse a tree split leaving a child with fewer users who publish that coordinate
        (0: the full tree of Algorithm 1).
    cell_estimate : {"stable", "paper"}, default="stable"
        How the cell values are computed from the released sums (post-processing, no privacy
        cost). "paper": eq (9) as printed, ``N_j / D_j``, with the fallback below where
        ``D_j <= 0``; use it to reproduce the paper. "stable" (the default): each cell's
        ratio is weighed against a coarser estimate by its own noise,
        ``f^_j = g_j + R_j D_j tau^2 / (D_j^2 tau^2 + Var R_j)`` with ``R_j = N_j - g_j D_j``
        and ``Var R_j`` the variance privacy adds (delta method; formula and derivation in
        :mod:`ldpviz.cell_estimates`), ``tau^2`` estimated across cells (empirical Bayes),
        and ``g_j`` the leaf's value plus the histogram effect measured on coarser tree
        nodes, down to the round-1 mean of Y~. It is the default because eq (9) explodes
        in sparse cells (a ratio of two noisy sums: the debiased count D_j can be ~0 or
        negative) while the stable estimate does not, and where every cell's noise is small
        the two agree (with epsilon = inf both are eq (3)).
    fallback : {"leaf", "zero"}, default="leaf"
        The public-side value to fall back to. "paper": prediction in a cell whose estimated
        count is not positive: the round-1 mean of the privatised labels in its tree leaf (the
        global mean if that leaf has none), or 0. "stable": "leaf" falls back along the
        round-1 means of Y~ in the tree nodes; "zero" toward 0.
    clip : bool, default=True
        Clip predictions to [-M, M].
    random_state : None, int, or numpy Generator
        Drives all privacy noise: the same seed gives the same fit.

    Attributes
    ----------
    partition_ : ldpviz.partition.Partition
    n_cells_ : int
    cell_values_ : (n_cells,) predictions per cell.
    cell_numerator_, cell_denominator_ : (n_cells,) the sums of eq (9); the denominator is the
        debiased count of users in each cell.
    cell_std_error_ : (n_cells,) with ``cell_estimate="stable"`` only: the standard error of
        each cell's eq-(9) ratio, ``sqrt(Var R_j) / D_j`` (inf where D_j <= 0), the noise the
        stable estimate weighs it by.
    y_tilde_ : (n,) the privatised labels, released once and reused by the tree and every cell.
    hist_axes_, tree_axes_ : tuple of int
    s_ : int, the number of histogram axes used.
    rho_ : float, the label's share used (``rho``, or the rule's choice with "auto").
    epsilon_label_, epsilon_cells_ : the budget split of a user who sends a cell report
        (``rho_ * epsilon`` and the rest); they add up to epsilon.
    n_label_only_ : int, the users whose cell is fixed by what they publish (every user when
        t = 1 and the tree's axes are published): they send no cell report and spend all of
        epsilon on their label.
    y_bound_ : float
    """

    _rho_rule = True

    def __init__(self, epsilon=1.0, s=None, t=2, depth=2, rule="max-edge", mechanism="grr",
                 rho="auto", y_bound=None, private_features=None, min_samples_leaf=0,
                 cell_estimate="stable", fallback="leaf", clip=True, random_state=None):
        self.epsilon = epsilon
        self.s = s
        self.t = t
        self.depth = depth
        self.rule = rule
        self.mechanism = mechanism
        self.rho = rho
        self.y_bound = y_bound
        self.private_features = private_features
        self.min_samples_leaf = min_samples_leaf
        self.cell_estimate = cell_estimate
        self.fallback = fallback
        self.clip = clip
        self.random_state = random_state

    def fit(self, X, y, W=None):
        """Run both rounds of the protocol on the users ``(X, y)`` with privacy mask ``W``.

        Parameters
        ----------
        X : (n, d) array with entries in the public box [0, 1].
        y : (n,) labels.
        W : (n, d) 0/1 array or None. 1 = the user protects that feature. None: the aligned
            mask from ``private_features`` (or the first ``s`` columns).
        """
        self._check_protocol_params()
        t = check_int(self.t, "t", 1, MAX_COUNT)
        depth = check_int(self.depth, "depth", 0, MAX_DEPTH)
        X, y, W, _, rng = self._prepare_fit(X, y, W)
        s = self._choose_s(W)
        self._check_budget(W, s, t, depth)
        self._run_protocol(X, y, W, rng, s, t, depth)
        return self

    def _budget_shares(self, n_features):
        """With rho="auto" the smallest shares the rule can choose (checked before it runs)."""
        if _is_auto(self.rho):
            return adaptive_rule.auto_budget_shares()
        return super()._budget_shares(n_features)

    def _release_labels(self, y, epsilons, rng):
        """eq (4): clip to [-M, M] and add Laplace(2M / epsilon_i), once per user."""
        self.y_tilde_ = privatize_labels(y, epsilons, self.y_bound_, rng)
        return self.y_tilde_

    def _label_noise(self, epsilon):
        """Variance ``2 b^2`` of the Laplace noise of one label, ``b = 2M / epsilon``."""
        return 2.0 * laplace_scale(epsilon, self.y_bound_) ** 2

    def _deviation_scale(self):
        return self.y_bound_ ** 2

    def _set_cell_values(self, num, den, y_tilde):
        """eq (9) per cell, with the post-processing fallback and clipping."""
        if self.fallback == "zero":
            backup = np.zeros(self.n_cells_)
        else:
            backup = self._leaf_backup(float(np.mean(y_tilde)))
        self._store_values(paper_cell_values(num, den, backup))

    def _set_stable_values(self, estimate):
        self.cell_std_error_ = estimate.std_error
        self._store_values(estimate.values[:, 0])

    def _store_values(self, values):
        M = self.y_bound_
        self.cell_values_ = np.clip(values, -M, M) if self.clip else values

    def predict(self, X):
        """Predicted label: the value of the cell containing each point.

        Points outside the feature box [0, 1]^d get the value of the nearest boundary cell
        (coordinates are clipped into the box, as a tree's outer leaves extend to infinity).
        """
        X = self._check_predict_input(X)
        return self.cell_values_[self.partition_.cell_index(X)]


def _is_auto(rho):
    return isinstance(rho, str) and rho == "auto"
