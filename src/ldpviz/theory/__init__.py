"""The formulas of Section 4 of the HistOfTree paper: delta, lambda*, the objective (11)/(15),
the selection of (s, p*), rate exponents and the bounds (10), (13), (14).

Conventions
-----------
* **Which features are the "tail".** Eq (12) sums ``W[i, l]`` over features ``s+1..d`` *after
  ranking the features by protection count, most protected first* (Section 3.3: the first ``s``
  of that ranking are the histogram axes). Every function here uses
  :func:`ldpviz.masks.protection_ranking`, the same ranking HistOfTree uses to pick its
  histogram axes, so theory and estimator talk about the same features. Ties between equally
  protected features are broken by the lower column index; tied features have equal column
  sums, but the per-user tail sums can still differ, so the tie rule matters and is shared.
* **Row order does not matter.** W enters only through the histogram of per-user tail counts,
  so shuffling users (:func:`ldpviz.masks.shuffle_users`) changes nothing.
* **n and W.** ``delta`` is the *mean* over the rows of W, so it does not need ``n``. The
  functions that need the sample size (the objective, the selection) take ``n`` separately;
  normally ``n = W.shape[0]``, but a smaller W can stand for the mask pattern of a larger
  sample.
* **log n** is the natural logarithm (the paper leaves the base to the constants); ``log2`` in
  ``lambda*`` and in the powers of two is base 2 as in the paper.
* **Units.** Everything returned is dimensionless: excess-risk bounds up to the unspecified
  constants of the theorems (the same units as a mean squared error once a constant is fixed),
  exponents, and counts. ``p`` is a tree depth (number of splits), ``t`` bins per axis.
* **s = d** (no public axis, no tree): the tail is empty, so ``delta = 1`` and ``lambda* = 0``
  for every ``p``; the objective (11)/(15) divides by ``d - s`` and has no tree depth to tune,
  so :func:`objective` and :func:`optimal_t` raise ``ValueError`` there and the search in
  :func:`select_s_p` runs over ``s = 0..d-1``. The rate formulas need no such care:
  ``upper_rate_exponent(d, d, lam) = 2a / (2a + 2d)`` is the fully private histogram rate.
* **What (15) rewards.** Write ``q = p / (d - s)`` (so a tree cell has side ``2^{-q}``). Then
  term1 ``= L 2^{q (d + s)} mean_i 2^{q k_i}`` and term2 ``= c 2^{-2 a q}``, with ``k_i`` the
  user's protected tail features and ``L = log n / (n eps^2)``. Moving one feature from the tail
  to the histogram multiplies term1 by ``2^q mean_i 2^{q (k_i - w_i)} / mean_i 2^{q k_i} >= 1``
  (``w_i`` = whether user i protects it), with equality iff every user protects it. So for a
  fixed cell side, a larger s never lowers the objective: it ties when the moved feature is
  protected by everyone (the aligned case, ``s < s*``) and is worse otherwise. A larger s can
  still win the integer search over p, because each s sees its own grid of q. See
  :func:`select_s_p`.
* **Large exponents.** ``delta`` is computed in log space (a shifted log-sum-exp), so it only
  overflows to ``inf`` when the true value exceeds the float range; no warning is emitted.
"""

from ._bounds import aligned_rate, lower_bound, upper_bound, upper_rate_exponent
from ._objective import (
    TIE_RTOL,
    ObjectiveCurve,
    ObjectiveTerms,
    best_depth,
    objective,
    objective_curve,
    objective_table,
    optimal_t,
    select_s_p,
)
from ._profile import MaskProfile, default_p_max, delta, lambda_star, mask_profile

__all__ = [
    "TIE_RTOL",
    "MaskProfile",
    "ObjectiveCurve",
    "ObjectiveTerms",
    "aligned_rate",
    "best_depth",
    "default_p_max",
    "delta",
    "lambda_star",
    "lower_bound",
    "mask_profile",
    "objective",
    "objective_curve",
    "objective_table",
    "optimal_t",
    "select_s_p",
    "upper_bound",
    "upper_rate_exponent",
]
