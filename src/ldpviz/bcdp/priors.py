"""The correlated prior of Appendix B.3 (eqs 57-58), as samples and as an exact pmf."""

from __future__ import annotations

import numpy as np

from .._config import check_rows
from .._rng import as_generator
from .._validation import check_int
from ._checks import check_q
from .exact import MAX_EXACT_DIM


def sample_correlated_pm1(n, d, q, rng):
    """n users from the prior of eqs (57)-(58), coded in {-1, +1}: shape (n, d).

    With probability ``q`` every coordinate equals one fair coin ``Z``; otherwise the
    coordinates are i.i.d. fair coins. Then ``TV(pi_{x_-i | x_i = 1}, pi_{x_-i | x_i = -1}) = q``
    for every i: Assumption 1 holds with this q (see :func:`correlation_tv`).
    """
    n = check_int(n, "n", 1)
    d = check_int(d, "d", 1)
    check_rows("sample_correlated_pm1", n, 8, d=d, bytes_per_entry=9)
    q = check_q(q)
    rng = as_generator(rng)
    copy = rng.random(n) < q
    common = rng.random(n) < 0.5
    bits = np.where(copy[:, None], common[:, None], rng.random((n, d)) < 0.5)
    return np.where(bits, 1.0, -1.0)


def correlated_bernoulli_pmf(d, q):
    """Joint pmf of eqs (57)-(58) on {0, 1}^d, shape (2,) * d (index 0 = bit 0 = -1 in +-1 code)."""
    d = check_int(d, "d", 1, MAX_EXACT_DIM * 4)
    q = check_q(q)
    pmf = np.full((2,) * d, (1.0 - q) / 2.0**d)
    pmf[(0,) * d] += q / 2.0
    pmf[(1,) * d] += q / 2.0
    return pmf
