"""LPDT (Ma, Zhang, Cai and Yang, 2023): a max-edge tree grown on public rows; private rows send
their leaf by randomized response and a Laplace label. HistOfTree with W[i, :] = 1 on the
private rows and 0 on the public rows reduces to it (Section 4.3 of the HistOfTree paper)."""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from .._base import SemiFeatureRegressor
from .._config import check_partition_budget
from .._index import bincount
from .._validation import (
    MAX_COUNT,
    MAX_DEPTH,
    PrivacyWarning,
    check_bool,
    check_choice,
    check_int,
    check_rho,
)
from ..cell_estimates import (
    CELL_ESTIMATES,
    add_units,
    exact_units,
    paper_cell_values,
    report_units,
    stable_cell_values,
    tree_units,
)
from ..cell_sums import cell_report_sums
from ..mechanisms import MECHANISMS, cell_reports, laplace_scale, privatize_labels, split_budget
from ..partition import RULES, build_partition

LPDT_FALLBACKS = ("public", "zero")


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
    leaf j is ``sum_i Y~_i U~_i^j / sum_i U~_i^j`` over the private rows (eq 5) with
    ``cell_estimate="paper"``; by default (``"stable"``) each leaf's ratio is weighed against
    a coarser estimate by its own noise (:mod:`ldpviz.cell_estimates`): the public sample's
    mean in that leaf plus the private-minus-public shift measured on its ancestors, so a deep
    tree no longer explodes where the private reports are too noisy.

    Section 4.3 of the HistOfTree paper: HistOfTree with s = 0 and this mask reduces to LPDT
    (HistOfTree privatises the public rows' labels too, and counts those rows in eq 9).

    Privacy: eps-LDP for every private row (Theorem 3.1 of 003): the leaf report changes two
    bits, each by a likelihood factor at most ``e^{(1 - rho) eps / 2}``, and the label density
    by at most ``e^{rho eps}``. Public rows get no protection by design: ``fit`` says so at
    run time with a :class:`ldpviz.PrivacyWarning` naming how many rows it reads in the clear,
    raw labels included. Partially protected rows are treated as fully private (a stronger
    guarantee than they asked for).

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
    cell_estimate : {"stable", "paper"}, default="stable"
        "paper": eq (5) of 003 as printed, with the fallback below where the count is not
        positive. "stable": the variance-aware estimate of :class:`ldpviz.HistOfTree`, with
        the public sample as the coarser, public-side estimate (the default: eq (5) explodes in
        leaves whose debiased count is small next to its noise).
    fallback : {"public", "zero"}, default="public"
        "paper": value of a leaf whose estimated count is not positive: the public sample's
        mean label in that leaf (the global public mean if it is empty, 0 without a public
        sample), or 0. "stable": fall back toward the public sample's node means, or toward 0
        (private reports only).
    clip : bool, default=True
    random_state : None, int, or numpy Generator

    Attributes
    ----------
    partition_ : ldpviz.partition.Partition (no histogram axes; the tree's leaves are cells)
    n_cells_, n_public_ : int
    cell_numerator_, cell_denominator_, cell_values_ : (n_leaves,)
    cell_std_error_ : (n_leaves,) with ``cell_estimate="stable"``: as in
        :class:`ldpviz.HistOfTree`.
    epsilon_label_, epsilon_cells_ : the budget split; they add up to epsilon.
    y_bound_ : float
    """

    def __init__(self, epsilon=1.0, max_depth=4, min_samples_leaf=5, rule="max-edge",
                 mechanism="rr", rho=0.5, y_bound=None, private_features=None, s=None,
                 public_in_estimate=False, cell_estimate="stable", fallback="public", clip=True,
                 random_state=None):
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
        self.cell_estimate = cell_estimate
        self.fallback = fallback
        self.clip = clip
        self.random_state = random_state

    def _check_params(self):
        check_rho(self.rho)
        # The checked Python ints: a numpy int8 would overflow in the budget's arithmetic.
        self._max_depth = check_int(self.max_depth, "max_depth", 0, MAX_DEPTH)
        self._min_samples_leaf = check_int(self.min_samples_leaf, "min_samples_leaf", 0,
                                           MAX_COUNT)
        check_choice(self.rule, "rule", RULES)
        check_choice(self.mechanism, "mechanism", MECHANISMS)
        check_choice(self.fallback, "fallback", LPDT_FALLBACKS)
        check_choice(self.cell_estimate, "cell_estimate", CELL_ESTIMATES)
        check_bool(self.public_in_estimate, "public_in_estimate")

    def _grow(self, X, y, W, M):
        """The max-edge tree on the public rows (their labels are public, clipped to [-M, M]).

        Refuses a tree the public rows cannot fill or the budget cannot hold, and says at run
        time that the all-zero rows of W are read in the clear.
        """
        public = ~W.any(axis=1)
        n_public = int(public.sum())
        check_partition_budget("LPDT", n_public, len(W) - n_public, 1, 0, self._max_depth,
                               W.shape[1], self.rule, self._min_samples_leaf, 1, self.mechanism,
                               depth_name="max_depth", tree_users="public rows")
        if n_public:
            use = "grow the tree and enter the estimate" if self.public_in_estimate else \
                "grow the tree"
            warnings.warn(
                f"LPDT treats the {n_public:,} rows whose mask W is all zero as public data: "
                f"their features and raw labels, unprivatised, {use} (HistOfTree reads such "
                "rows as users who publish their features but still privatise their labels).",
                PrivacyWarning, stacklevel=3)
        # With no public row the tree is the root alone (Theorem 3.5 of 003).
        Xp = X[public]
        yp = np.clip(y[public], -M, M)
        partition = build_partition(Xp, yp, np.zeros(Xp.shape, dtype=bool), (), 1,
                                    self._max_depth, self.rule, self._min_samples_leaf)
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
        stable = self.cell_estimate == "stable"
        sums = cell_report_sums(self.partition_, Xq, np.ones(Xq.shape, dtype=bool), y_tilde,
                                self.epsilon_cells_, self.mechanism, rng, moments=stable)
        num, den = sums[0], sums[1]
        y_public = np.clip(y[public], -M, M)
        leaf = self.partition_.cell_index(X[public])
        counts = bincount(leaf, minlength=self.n_cells_).astype(float)
        totals = bincount(leaf, weights=y_public, minlength=self.n_cells_)
        if self.public_in_estimate and self.n_public_:
            num, den = num + totals, den + counts
        self.cell_numerator_, self.cell_denominator_ = num, den
        if stable:
            values = self._stable_values(sums, counts, totals, y_tilde)
        elif self.fallback == "zero" or self.n_public_ == 0:
            values = paper_cell_values(num, den, np.zeros(self.n_cells_))
        else:
            leaf_mean = self.partition_.tree.leaf_label_mean
            backup = np.where(np.isnan(leaf_mean), float(np.mean(y_public)), leaf_mean)
            values = paper_cell_values(num, den, backup)
        self.cell_values_ = np.clip(values, -M, M) if self.clip else values
        return self

    def _stable_values(self, sums, counts, totals, y_tilde):
        """The stable estimate: private reports against the public sample's node means.

        Every private user is in the root: its merged cell is known exactly (V~ = 1), far
        better than the sum of the noisy leaf reports.
        """
        tree = self.partition_.tree
        noise = 2.0 * laplace_scale(self.epsilon_label_, self.y_bound_) ** 2
        cells = report_units(sums, noise * sums.denominator)
        n_private = len(y_tilde)
        root = exact_units([n_private], [y_tilde.sum()], [noise * n_private])
        if self.public_in_estimate:
            cells = add_units(cells, exact_units(counts, totals, np.zeros(self.n_cells_)))
            root = add_units(root, exact_units([counts.sum()], [totals.sum()], [0.0]))
        # The tree's leaf counts and means are those of the public rows (exact, noiseless).
        keep = float(self.fallback == "public")
        count = tree.leaf_count * keep
        nodes = tree_units(tree, count, np.nan_to_num(tree.leaf_label_mean) * count,
                           np.zeros_like(count))
        estimate = stable_cell_values(tree, nodes, cells, 1, self.y_bound_ ** 2, self.rule,
                                      root_cells=root)
        self.cell_std_error_ = estimate.std_error
        return estimate.values[:, 0]

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
