"""Bayesian Coordinate Differential Privacy (BCDP): per-feature guarantees on top of LDP.

Implements Aliakbarpour, Fallah, Chaudhuri, Courtade and Jordan, *Enhancing Feature-Specific
Data Protection via Bayesian Coordinate Differential Privacy* (2024), the "BCDP paper":

* :func:`l2_mechanism`: the l2-ball channel of Duchi et al. (Mechanism 3, Appendix B.1), with
  the *unbiased* constant ``B`` (the printed one is twice too large, see :func:`l2_constant`);
* :func:`budget_schedule`: the cumulative budgets ``c`` of Theorem 2 (eq 16);
* :func:`mean_mechanism`, :class:`BCDPMean`: Mechanism 1 (nested queries, weighted
  combination, projection to the box) and :class:`LDPMean`, the plain LDP baseline;
* :func:`bcdp_ols`, :func:`ldp_ols`: Algorithm 2 (two independent reports per user);
* an exact calculator for finite data and output spaces (:func:`bcdp_deltas`,
  :func:`ldp_epsilon`, :func:`correlation_tv`, :func:`product_channel`) with the paper's
  Examples 1 and 2 and the exact finite channel of Mechanism 1 on {-1, +1}^d data;
* the closed-form per-coordinate MSE (:func:`expected_mse_pm1`) next to a Monte Carlo estimate
  (:func:`monte_carlo_mse`), the compute function of the live explorer
  (:func:`bcdp_explorer_data`, :func:`exact_crossing`) and small attacks
  (:func:`correlated_feature_attack`, :func:`published_column_attack`, :func:`mask_attack`).

Conventions. Data live in the box [-1, 1]^d, as in the paper (not the [0, 1] box of
HistOfTree). Coordinates are sorted from the most to the least sensitive (``deltas``
non-decreasing, Section 4); the last coordinate is the one exempt from Assumption 1 (the label in
Algorithm 2). BCDP never replaces LDP: every BCDP mechanism here is also epsilon-LDP, and the
LDP baseline (``min(deltas)``-LDP, Proposition 3) should always be shown next to it, because the
schedule of Theorem 2 can lose to it (see :func:`bcdp_explorer_data`).

Modules: ``mechanisms`` (Mechanism 3, Theorem 2, Mechanism 1), ``estimators`` (the means and
Algorithm 2), ``accuracy`` (exact and Monte Carlo MSE), ``priors`` (the correlated prior of
Appendix B.3), ``exact`` (the finite-space calculator) and ``demos`` (the explorer's data and the
attack of notebook 08). Everything public is importable from ``ldpviz.bcdp``; input checks live
in ``ldpviz._validation`` with the rest of the package's.

Floating-point caveat: the samplers use floating-point arithmetic, which is not exactly
differentially private (Mironov, 2012). This is a teaching and research package.
"""

from .accuracy import MonteCarloMSE, expected_mse_pm1, monte_carlo_mse
from .demos import (
    attack_table,
    bcdp_explorer_data,
    correlated_feature_attack,
    exact_crossing,
    mask_attack,
    published_column_attack,
    sweep_q,
)
from .estimators import BCDPMean, LDPMean, OLSResult, bcdp_ols, ldp_ols
from .exact import (
    bcdp_deltas,
    correlation_tv,
    ldp_epsilon,
    mean_mechanism_channel,
    paper_example_1,
    paper_example_2,
    product_channel,
)
from .mechanisms import WEIGHTS, budget_schedule, l2_constant, l2_mechanism, mean_mechanism
from .priors import correlated_bernoulli_pmf, sample_correlated_pm1

__all__ = [
    "WEIGHTS",
    "BCDPMean",
    "LDPMean",
    "MonteCarloMSE",
    "OLSResult",
    "attack_table",
    "bcdp_deltas",
    "bcdp_explorer_data",
    "bcdp_ols",
    "budget_schedule",
    "correlated_bernoulli_pmf",
    "correlated_feature_attack",
    "correlation_tv",
    "exact_crossing",
    "expected_mse_pm1",
    "l2_constant",
    "l2_mechanism",
    "ldp_epsilon",
    "ldp_ols",
    "mask_attack",
    "mean_mechanism",
    "mean_mechanism_channel",
    "monte_carlo_mse",
    "paper_example_1",
    "paper_example_2",
    "product_channel",
    "published_column_attack",
    "sample_correlated_pm1",
    "sweep_q",
]
