"""AdHistOfTree: HistOfTree with (s, depth, t) chosen for the user (Section 4.3)."""

from __future__ import annotations

import numpy as np

from . import adaptive_rule, theory
from ._config import (
    check_mask_tables,
    describe_excess,
    exceeds_budget,
    get_config,
    partition_plan,
)
from ._validation import check_choice, check_int
from .cell_estimates import label_noise_sums
from .depth_selection import FOLDS, cross_validated_depth
from .estimators import HistOfTree, _is_auto
from .theory._checks import check_c


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
        self._t_offset = check_int(self.t_offset, "t_offset", -10, 10)
        check_choice(self.depth_search, "depth_search", DEPTH_SEARCHES)
        X, y, W, _, rng = self._prepare_fit(X, y, W)
        check_mask_tables(type(self).__name__, *W.shape)  # the selection's tables
        self.s_, self.depth_, self.t_, self.lambda_star_ = self._select(W)
        self._check_budget(W, self.s_, self.t_, self.depth_)
        if self._searches(W.shape[1], self.s_):
            self._check_search_budget(W)
        self._run_protocol(X, y, W, rng, self.s_, self.t_, self.depth_)
        return self

    def _check_search_budget(self, W):
        """Refuse, before round 1, a depth search whose trees (one per fold, at least as deep
        as the rule's) the budget cannot grow: 300 users with 2,000 features took minutes."""
        n, d = W.shape
        plan = partition_plan(n, n, self.t_, self.s_, self.depth_, d - self.s_, self.rule,
                              self._min_samples_leaf, 1, self.mechanism, growths=SEARCH_GROWTHS)
        over = exceeds_budget(plan, n)
        if over is not None:
            raise ValueError(
                f"{type(self).__name__}'s depth search (depth_search='round1') grows "
                f"{SEARCH_GROWTHS} trees of depth >= {self.depth_} over {d - self.s_:,} tree "
                f"axes of {n:,} users, which would need {describe_excess(*over)}; pass "
                "depth_search='rule' (one tree at the rule's depth), or raise the budget with "
                f"ldpviz.set_config({over[0]}=...).")

    def _searches(self, d, s):
        """Whether round 1 is followed by the depth search (depth_search="round1")."""
        return self.depth_search == "round1" and isinstance(self.c, str) and s < d

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
        t = max(1, t + self._t_offset)
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
        if not self._searches(d, s):
            return depth
        axes = self._tree_axes(d)
        hidden = bool(W[:, axes].any())  # then deeper trees widen their cell reports
        depths = list(range(depth + 1))
        if not hidden:
            cap = self._cell_cap(len(W), d)
            for q in range(depth + 1, adaptive_rule.P_MAX + 1):  # cells and budget grow with q
                if t**s * 2**q > cap or not self._fits(W, s, t, q, SEARCH_GROWTHS):
                    break
                depths.append(q)
        noise = float(label_noise_sums(len(W), self.n_label_only_,
                                       self._label_noise(self.epsilon_label_),
                                       self._label_noise(self.epsilon))) / len(W)
        penalty = adaptive_rule.histogram_risk(W, len(W), self.epsilon, self.rho_,
                                               self.mechanism, self.y_bound_, s, t,
                                               depths) if hidden else None
        depth, self.depth_scores_ = cross_validated_depth(
            X, y_tilde, W, axes, depths, depth, self.rule, self._deviation_scale(), noise,
            penalty=penalty, min_samples_leaf=self._min_samples_leaf)
        self.depth_ = depth
        self.lambda_star_ = float(theory.lambda_star(W, s, depth)) if depth > 0 else 0.0
        return depth

    def _fits(self, W, s, t, depth, growths=1):
        try:
            self._check_budget(W, s, t, depth, growths=growths)
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
        return int(np.clip(best + self._t_offset, 1, t[-1]))


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
#: Trees the depth search grows (one per fold) and the fit's.
SEARCH_GROWTHS = 1 + FOLDS
