"""Rate exponents and the bounds (10), (13) and (14): what HistOfTree achieves and what no
estimator can beat."""

from __future__ import annotations

import numpy as np

from .._validation import check_epsilon_array, check_int
from ._checks import (
    check_d,
    check_holder_alpha,
    check_lam,
    check_n_array,
)
from ._profile import _out


def upper_rate_exponent(d, s, lam, alpha=1):
    """Rate exponent of eq (13): ``2a / (2a + d + s + lam (d - s))``.

    Parameters
    ----------
    d : int >= 1
        Features.
    s : int in [0, d]
        Histogram axes (``s = d`` gives ``2a / (2a + 2d)``, the fully private rate).
    lam : float or array_like in [0, 1]
        lambda* (0 for the aligned case, Corollary 4.4).
    alpha : float in (0, 1], default=1
        Hölder exponent.

    Returns
    -------
    float or ndarray
        The exponent of ``log n / (n eps^2)``, dimensionless, in (0, 1).
    """
    d = check_d(d)
    s = check_int(s, "s", 0, d)
    lam = check_lam(lam)
    alpha = check_holder_alpha(alpha)
    return _out(2 * alpha / (2 * alpha + d + s + lam * (d - s)))


def upper_bound(n, epsilon, d, s, lam, alpha=1):
    """The upper bound (13): ``(log n / (n eps^2))^{2a / (2a + d + s + lam (d - s))}``.

    Vectorised: ``n``, ``epsilon`` and ``lam`` broadcast against each other.

    Parameters
    ----------
    n : float or array_like, >= 2
        Sample size(s) (natural log; ``n = 1`` would make the bound 0).
    epsilon : float or array_like in (0, inf]
        Privacy budget(s); ``inf`` gives 0 (the theorem needs ``eps <~ (n / log n)^{...}``).
    d : int >= 1
    s : int in [0, d]
    lam : float or array_like in [0, 1]
        lambda*.
    alpha : float in (0, 1], default=1

    Returns
    -------
    float or ndarray
        Excess-risk bound up to a constant (dimensionless).
    """
    n = check_n_array(n, 2)
    epsilon = check_epsilon_array(epsilon)
    exponent = upper_rate_exponent(d, s, lam, alpha)
    # In logs: for tiny epsilon the base overflows although the bound itself is finite.
    with np.errstate(divide="ignore"):
        log_base = np.log(np.log(n)) - np.log(n) - 2.0 * np.log(epsilon)
    with np.errstate(over="ignore", under="ignore"):
        return _out(np.exp(exponent * log_base))


def aligned_rate(n, epsilon, d, s, alpha=1):
    """The aligned rate of Corollary 4.4, eq (14): ``(log n / (n eps^2))^{2a / (2a + d + s*)}``.

    Equal to :func:`upper_bound` with ``lam = 0``. Vectorised over ``n`` and ``epsilon``.

    Parameters
    ----------
    n : float or array_like, >= 2
    epsilon : float or array_like in (0, inf]
    d : int >= 1
    s : int in [0, d]
        s*, the number of features every user protects.
    alpha : float in (0, 1], default=1

    Returns
    -------
    float or ndarray
        Excess-risk bound up to a constant (dimensionless).
    """
    return upper_bound(n, epsilon, d, s, 0.0, alpha)


def lower_bound(n, epsilon, d, s, alpha=1):
    """The minimax lower bound (10): ``(n (e^eps - 1)^2)^{-2a/(2a+d+s)}  max  n^{-2a/(2a+d)}``.

    Theorem 4.2, aligned case with ``s = s*`` protected features. The first term is the price of
    privacy, the second the non-private minimax rate. Vectorised over ``n`` and ``epsilon``.

    Parameters
    ----------
    n : float or array_like, >= 1
        Sample size(s).
    epsilon : float or array_like in (0, inf]
        Privacy budget(s); ``inf`` leaves the non-private term.
    d : int >= 1
    s : int in [0, d]
        s*.
    alpha : float in (0, 1], default=1

    Returns
    -------
    float or ndarray
        Minimax excess risk up to a constant (dimensionless).
    """
    n = check_n_array(n, 1)
    epsilon = check_epsilon_array(epsilon)
    d = check_d(d)
    s = check_int(s, "s", 0, d)
    alpha = check_holder_alpha(alpha)
    # In logs, with log(e^eps - 1) = eps + log(1 - e^-eps): finite for every eps in (0, inf].
    with np.errstate(divide="ignore", invalid="ignore"):
        log_expm1 = np.where(np.isinf(epsilon), np.inf,
                             epsilon + np.log(-np.expm1(-epsilon)))
    with np.errstate(over="ignore", under="ignore"):
        private = np.exp(-2 * alpha / (2 * alpha + d + s) * (np.log(n) + 2.0 * log_expm1))
    public = n ** (-2 * alpha / (2 * alpha + d))
    return _out(np.maximum(private, public))
