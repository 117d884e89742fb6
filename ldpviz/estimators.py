"""HistOfTree: regression under semi-feature LDP (Sections 3.2-3.3 of the HistOfTree paper)."""

from __future__ import annotations

import numpy as np

from . import adaptive_rule, theory
from ._base import SemiFeatureEstimator, SemiFeatureRegressor
from ._config import check_partition_budget, exceeds_budget, get_config, partition_plan
from ._validation import check_c, check_choice, check_int, check_rho
from .cell_estimates import (
    CELL_ESTIMATES,
    label_noise_sums,
    paper_cell_values,
    report_units,
    stable_cell_values,
    tree_units,
)
from .depth_selection import cross_validated_depth
from .masks import ranking_of_checked_mask
from .mechanisms import (
    MECHANISMS,
    cell_report_sums,
    laplace_scale,
    privatize_labels,
    split_budget,
)
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
        check_int(self.min_samples_leaf, "min_samples_leaf", 0)
        check_choice(self.cell_estimate, "cell_estimate", CELL_ESTIMATES)

    def _check_budget(self, W, s, t, depth, n_outputs=1):
        """Refuse, before round 1, a partition the data cannot fill or the budget cannot hold
        (:func:`ldpviz.set_config`); the error names the parameter and a value that fits."""
        hist = W[:, ranking_of_checked_mask(W)[:s]]  # users grouped by the histogram axes they hide
        patterns = _distinct_rows(hist) if 0 < s < 63 else min(len(W), 2**s)
        check_partition_budget(type(self).__name__, len(W), len(W), t, s, depth,
                               W.shape[1] - s, self.rule, self.min_samples_leaf, n_outputs,
                               self.mechanism, patterns)

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
                                          self.rule, self.min_samples_leaf)
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

    def _fixed_cells(self, W, t):
        """Users whose cell is fixed by what they publish: all of epsilon goes to their label.

        Every tree axis published, and every histogram axis too unless t = 1: such a user needs
        no private cell report. Known before round 1 (it depends on W, s and t only).
        """
        tree_axes = [a for a in range(W.shape[1]) if a not in self.hist_axes_]
        fixed_cell = ~W[:, tree_axes].any(axis=1)
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
            fixed = np.bincount(part.cell_index(X[fixed_cell]), minlength=self.n_cells_)
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
        0.01. The price: the rule assumes a moderate signal per protected axis, so where a strong
        one would have repaid the cell reports it gives them too little (a ramp on the protected
        features, 24 settings of W_gamma and aligned masks at epsilon 2 and 4: 1.05 times rho =
        0.5's error on geometric mean, worst 1.56 at W_gamma, gamma = 1, epsilon 4, t = 2, depth 4).
        Pass ``rho=0.5`` (the paper's) when the protected features are known to carry strong signal.
        The value used is ``rho_``.
    y_bound : float or None, default=None
        Public label bound M. None reads it off the labels with a PrivacyWarning (a leak).
    private_features : list of int or None, default=None
        Aligned case: the columns every user protects. Passing W to fit as well is an error.
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
        check_int(self.t, "t", 1)
        check_int(self.depth, "depth", 0)
        X, y, W, _, rng = self._prepare_fit(X, y, W)
        s = self._choose_s(W)
        self._check_budget(W, s, self.t, self.depth)
        self._run_protocol(X, y, W, rng, s, self.t, self.depth)
        return self

    def _budget_shares(self, n_features):
        """With rho="auto" the smallest shares the rule can choose (checked before it runs)."""
        if _is_auto(self.rho):
            grid = adaptive_rule.RHO_GRID
            return (min(grid), 1.0 - max(grid)), min(grid)
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


class AdHistOfTree(HistOfTree):
    """HistOfTree with (s, depth, t) chosen from public information (Section 4.3), the depth
    then refined on the released labels (post-processing).

    Two selection rules, neither of which looks at the labels, the features or any release
    (the depth search after round 1 is described below them):

    * ``c="auto"`` (the default): the calibrated rule of :mod:`ldpviz.adaptive_rule`. It
      minimises bound (26) of the paper's proof -- the variance of the estimate, computed for
      the actual mechanism, budget split, label bound M and mask W, plus the approximation
      error of the cells -- over (s, p, t) jointly, without eq (15)'s coupling
      ``t = round(2^(p/(d-s)))``; its constants were calibrated once, offline, on simulated
      data from a public model class (``benchmarks/calibrate_adaptive.py``). It keeps ``t = 1``
      only where two bins per protected axis would add more variance than a protected feature
      with the calibrated signal could repay, so a shallow tree no longer forces one bin.
      Measured against the best fixed (s, p, t) of the paper's grid chosen in hindsight
      (``benchmarks/bench_adaptive.py``, n = 10,000, 10 replications, 66 settings x
      functions, the grid's rho in {0.5, 0.7, 0.9}): geometric-mean MSE ratio 1.29 (eq 15
      with c = 0.01: 1.39), within 10% in 27 of 66; a rule reading only public information
      cannot know how strong the signal is or where it sits, and loses most where it is
      strong and needs t = 3.
    * ``c`` a number: eq (15) as in the paper. It minimises the bound (15) over s and the depth
      p by brute force (:func:`ldpviz.theory.select_s_p`), then takes ``t = t* + t_offset``
      with ``t* = round(2^(p/(d-s)))``. Only partitions with at most ``n`` cells (the side
      condition ``t^s 2^p log n <~ n`` of Theorem 4.3 without its constant) that fit the
      resource budget are candidates, so the selection stays bounded at every epsilon,
      ``np.inf`` included, where (15) alone would keep deepening the tree. If every feature is
      protected by everyone (s = d, no tree), t minimises the s = d analogue of (15),
      ``t^{2d} log n / (n eps^2) + c t^{-2}``.

    In both, features that every user protects always go to the histogram (``s >= s_min``):
    no user publishes them, so a tree could cut them only blindly (max-edge midpoints; CART
    not at all), and on an aligned mask this selects ``s = s*``, the first corner case of
    Section 4.3. The calibrated rule also never puts a feature nobody protects into the
    histogram.

    With the calibrated rule the depth is then refined on round 1's released labels
    (``depth_search="round1"``, the default): the rule assumes the calibrated smoothness, and a
    rough function wants a deeper tree than it picks. Measured as above: within 10% in 34 of
    66 (rule alone: 27), geometric mean 1.22 (1.29); at n = 100,000 (3 replications) 21 of
    44 (18), 1.18 (1.23) -- see :mod:`ldpviz.depth_selection`.

    Privacy: exactly that of :class:`HistOfTree`. The selection of (s, t) and of the rule's
    depth is a function of public quantities only (n, epsilon, rho, the mechanism, the public
    bound M and the public mask W), made before round 1, so which users spend all of epsilon on
    their label (those whose cell is fixed by what they publish, which depends on s and t) is
    known before any release, and the budget adds up exactly: rho*eps for the label plus
    (1 - rho)*eps for the cell report. The depth search reads only released labels and
    published coordinates (post-processing), before round 2.

    Parameters
    ----------
    epsilon, rule, mechanism, rho, y_bound, private_features, min_samples_leaf, cell_estimate,
    fallback, clip, random_state :
        As in :class:`HistOfTree` (the stable cell estimate by default), except that ``rho``
        defaults to 0.5: the calibrated rule was calibrated at 0.5 and decides itself whether
        a histogram can pay (t = 1 or not); ``rho="auto"`` then starves the histogram it kept
        where the signal is strong (W_gamma, gamma = 1, epsilon 4, a ramp on the protected
        features: MSE 0.38 instead of 0.2).
    c : "auto" or float, default="auto"
        "auto": the calibrated rule above. A positive number: eq (15), with ``c`` multiplying
        its approximation term (Appendix C.1 tunes it in {0.01, 0.1, 1}; ``c = 1`` is the bound
        as printed and picks trees far too deep for realistic n; ``c = 0.01`` was ldpviz's
        default before the calibrated rule).
    t_offset : int, default=0
        Use ``t + t_offset`` bins (at least 1, at most what the cell cap allows); Appendix C.1
        tunes it in {-1, 0, 1} for eq (15). With ``c="auto"`` the offset moves the rule's t.
    depth_search : {"round1", "rule"}, default="round1"
        With ``c="auto"``: "round1" cross-validates the tree depth on the labels released in
        round 1 (:mod:`ldpviz.depth_selection`; post-processing, before the cell reports), and
        keeps the rule's depth unless another is better by two standard errors; it may deepen
        the tree only where every user publishes every tree axis, and elsewhere adds the cost
        of wider cell reports (:func:`ldpviz.adaptive_rule.histogram_risk`). "rule": the
        rule's depth.
        Eq (15) (``c`` a number) always keeps its own depth.

    Attributes
    ----------
    s_, depth_, t_ : the selected number of histogram axes, depth p* and bins per axis.
    rule_depth_ : the depth chosen before round 1 (``depth_`` may differ: ``depth_search``).
    depth_scores_ : dict or None, the held-out comparison behind ``depth_`` ("depth",
        "difference" of mean squared error on Y~ to the rule depth's, plus the histogram
        term's where users hide tree axes, "std_error"); None where no search ran.
    lambda_star_ : float, lambda* = log2(delta(p*)) / p* of the selected (s, p*) (0 when
        p* = 0 or s = d).
    Plus every attribute of :class:`HistOfTree`.
    """

    def __init__(self, epsilon=1.0, c="auto", t_offset=0, depth_search="round1",
                 rule="max-edge", mechanism="grr", rho=0.5, y_bound=None,
                 private_features=None, min_samples_leaf=0, cell_estimate="stable",
                 fallback="leaf", clip=True, random_state=None):
        self.epsilon = epsilon
        self.c = c
        self.t_offset = t_offset
        self.depth_search = depth_search
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
        """Select (s, p*, t) from public information, then run HistOfTree's protocol."""
        self._check_protocol_params()
        if isinstance(self.c, str) and self.c != "auto":
            raise ValueError(f"c must be a positive finite number, got {self.c!r} (or 'auto': "
                             "the calibrated rule).")
        if not isinstance(self.c, str):
            check_c(self.c)
        check_int(self.t_offset, "t_offset", -10, 10)
        check_choice(self.depth_search, "depth_search", DEPTH_SEARCHES)
        X, y, W, _, rng = self._prepare_fit(X, y, W)
        self.s_, self.depth_, self.t_, self.lambda_star_ = self._select(W)
        self._check_budget(W, self.s_, self.t_, self.depth_)
        self._run_protocol(X, y, W, rng, self.s_, self.t_, self.depth_)
        return self

    def _select(self, W):
        """(s, p*, t, lambda*) by the calibrated rule or eq (15), among partitions with at
        most ``_cell_cap`` cells. With rho="auto" the calibrated rule scores the partitions at
        rho = 0.5 (as calibrated); the protocol then chooses rho for the one selected."""
        n, d = W.shape
        s_min = int(np.sum(W.all(axis=0)))
        epsilon = float(self.epsilon)
        cap = self._cell_cap(n, d)
        if isinstance(self.c, str):
            s, p, t = adaptive_rule.select_partition(
                W, n, epsilon, rho=0.5 if _is_auto(self.rho) else float(self.rho),
                mechanism=self.mechanism, y_bound=self.y_bound_, s_min=s_min, max_cells=cap)
        elif s_min == d or n < 2:
            return d, 0, self._histogram_only_t(n, d, epsilon, cap), 0.0
        else:
            try:
                s, p = theory.select_s_p(W, n, epsilon, c=self.c, s_min=s_min, max_cells=cap)
            except ValueError:  # even p = 1 is too large with s >= s_min: no tree
                return s_min, 0, self._histogram_only_t(n, s_min, epsilon, cap), 0.0
            t = theory.optimal_t(p, d, s)
        t = max(1, t + self.t_offset)
        t = min(t, _largest_root(cap >> p, s))  # t_offset may push t past the cap
        lam = float(theory.lambda_star(W, s, p)) if 0 < p and s < d else 0.0
        return s, p, t, lam

    def _depth_after_round1(self, X, y_tilde, W, s, t, depth):
        """With the calibrated rule and ``depth_search="round1"``: the depth cross-validated on
        the released labels (:mod:`ldpviz.depth_selection`), among the depths whose partition
        fits the cell cap and the budget; deeper than the rule's only where every user
        publishes every tree axis."""
        self.rule_depth_, self.depth_scores_ = depth, None
        d = W.shape[1]
        if self.depth_search == "rule" or not isinstance(self.c, str) or s == d:
            return depth
        axes = [a for a in range(d) if a not in self.hist_axes_]
        cap = self._cell_cap(len(W), d)
        depths = [q for q in range(adaptive_rule.P_MAX + 1)
                  if q <= depth or (t**s * 2**q <= cap and self._fits(W, s, t, q))]
        n_fixed = self.n_label_only_
        noise = (n_fixed * self._label_noise(self.epsilon) + (len(W) - n_fixed)
                 * self._label_noise(self.epsilon_label_)) / len(W)
        hidden = bool(W[:, axes].any())  # then deeper trees widen their cell reports
        penalty = adaptive_rule.histogram_risk(W, len(W), self.epsilon, self.rho_,
                                               self.mechanism, self.y_bound_, s, t,
                                               depths) if hidden else None
        depth, self.depth_scores_ = cross_validated_depth(
            X, y_tilde, W, axes, depths, depth, self.rule, self._deviation_scale(), noise,
            deeper=not hidden, penalty=penalty, min_samples_leaf=self.min_samples_leaf)
        self.depth_ = depth
        self.lambda_star_ = float(theory.lambda_star(W, s, depth)) if depth > 0 else 0.0
        return depth

    def _fits(self, W, s, t, depth):
        try:
            self._check_budget(W, s, t, depth)
        except ValueError:
            return False
        return True

    def _cell_cap(self, n, d):
        """Most cells the selection may choose: no more than the n users (the side condition
        ``t^s 2^p log n <~ n`` of Theorem 4.3 without its constant) and what the budget holds
        (:func:`ldpviz.get_config`) for the cell reports of n users, whatever the rule."""
        cap = min(max(n, 1), get_config()["max_cells"])
        fits = [q for q in range(cap.bit_length()) if exceeds_budget(
            partition_plan(n, n, 1, 0, q, d, "max-edge", 0, 1, self.mechanism), n) is None]
        return min(cap, 1 << max(fits, default=0))

    def _histogram_only_t(self, n, s, epsilon, cap):
        """Bins per axis minimising t^{2s} log n / (n eps^2) + c t^{-2} (the s = d case), at
        most the ``cap`` cells."""
        t = np.arange(1, min(64, _largest_root(cap, s)) + 1)
        scale = np.log(max(n, 2)) / (max(n, 1) * epsilon**2) if np.isfinite(epsilon) else 0.0
        best = int(t[np.argmin(t ** (2.0 * s) * scale + self.c * t ** -2.0)])
        return int(np.clip(best + self.t_offset, 1, t[-1]))


def _largest_root(cells, s):
    """Largest t >= 1 with t^s <= cells (1 if none; any t when s = 0)."""
    if s == 0:
        return 64
    t = max(1, round(max(cells, 1) ** (1.0 / s)))
    while t > 1 and t**s > cells:
        t -= 1
    while (t + 1) ** s <= cells:
        t += 1
    return t


DEPTH_SEARCHES = ("round1", "rule")


def _is_auto(rho):
    return isinstance(rho, str) and rho == "auto"
