"""The frequency oracles' constants and variances (Wang et al., USENIX Security 2017), and the
input checks they share. Public names are re-exported by :mod:`ldpviz.frequency_oracles`,
whose docstring describes the four oracles.
"""

from __future__ import annotations

import numpy as np

from . import _olh_hash
from ._config import check_budget, get_config
from ._validation import (
    as_real_array,
    check_bool,
    check_choice,
    check_epsilon,
    check_epsilon_array,
    check_int,
)

ORACLES = ("grr", "sue", "oue", "olh")
# Largest k: OLH hashes values below the prime 2^31 - 1; estimates take O(k) memory.
MAX_K = _olh_hash.PRIME - 1


# ----------------------------------------------------------------------------------------------
# The protocols' constants (Wang et al., pure protocols: p*, q*)
# ----------------------------------------------------------------------------------------------
def olh_hash_range(epsilon):
    """OLH's number of hash buckets ``g = round(e^eps) + 1`` (Wang et al.'s optimal g), at most
    2^31 - 1; one value per budget given."""
    eps = np.asarray(epsilon, dtype=float)
    g = np.rint(np.exp(np.minimum(eps, 21.5))) + 1  # e^21.5 > 2^31: capped below anyway
    g = np.minimum(g, _olh_hash.PRIME).astype(np.int64)
    return int(g) if g.ndim == 0 else g


def _constants(oracle, k, epsilon):
    """(p*, q*, p* - q*) of ``oracle`` at budget(s) ``epsilon`` (arrays broadcast), the gap
    computed without cancellation (``1 - e^-eps`` as ``-expm1(-eps)``) and finite at eps = inf.
    """
    eps = np.asarray(epsilon, dtype=float)
    if oracle == "sue":  # each of the two bits that change carries eps / 2
        v = np.exp(-eps / 2)
        return 1 / (1 + v), v / (1 + v), -np.expm1(-eps / 2) / (1 + v)
    u = np.exp(-eps)
    if oracle == "oue":
        return np.full_like(u, 0.5), u / (1 + u), -np.expm1(-eps) / (2 * (1 + u))
    size = np.asarray(k, dtype=float) if oracle == "grr" else olh_hash_range(eps)
    p = 1 / (1 + (size - 1) * u)
    gap = -np.expm1(-eps) * p  # GRR over `size` values: p - q
    if oracle == "grr":
        return p, u * p, gap
    c = _olh_hash.collision_probability(size)  # another value supported: via a collision
    return p, u * p + c * gap, (1 - c) * gap


def oracle_probabilities(oracle, k, epsilon):
    """Probabilities ``(p*, q*)`` that a report supports the user's value and another value.

    Parameters
    ----------
    oracle : {"grr", "sue", "oue", "olh"}
    k : int or array of int >= 2
        Number of possible values (OLH's p*, q* do not depend on it).
    epsilon : float or array of float in (0, inf]

    Returns
    -------
    (p_star, q_star) : floats, or arrays broadcast over ``k`` and ``epsilon``
        Wang et al.'s p* and q*: GRR ``e^eps / (e^eps + k - 1)``, ``1 / (e^eps + k - 1)``;
        SUE ``e^{eps/2} / (e^{eps/2} + 1)``, ``1 / (e^{eps/2} + 1)``; OUE ``1/2``,
        ``1 / (e^eps + 1)``; OLH ``e^eps / (e^eps + g - 1)`` and, with ``c`` the hash family's
        exact collision probability (about 1/g), ``c p* + (1 - c) / (e^eps + g - 1)``.
        Public constants: no data involved. The log-ratio of any report's probabilities under
        two values is at most epsilon (tests/test_frequency_oracles.py checks each exactly).
    """
    oracle, k, epsilon = _check_theory(oracle, k, epsilon)
    p, q, _ = _constants(oracle, k, epsilon)
    return _scalar(p), _scalar(q)


def oracle_variance(oracle, n, k, epsilon, frequency=0.0, share=False):
    """Theoretical variance of the unbiased estimate of one value's count (or share).

    ``Var[c~(v)] = n q*(1 - q*) / (p* - q*)^2 + n f (1 - p* - q*) / (p* - q*)`` (Wang et al.,
    the variance of their pure-protocol estimator); at ``frequency = 0`` it is their Var*,
    the usual yardstick for comparing oracles, which does not depend on the data.

    Parameters
    ----------
    oracle : {"grr", "sue", "oue", "olh"}
    n : int or float > 0
        Number of users.
    k : int or array of int >= 2
    epsilon : float or array of float in (0, inf]
    frequency : float or array in [0, 1]
        True share f of the value.
    share : bool
        Variance of the estimated share (count / n): divided by n^2.

    Returns
    -------
    float or array broadcast over ``k``, ``epsilon`` and ``frequency``.
    """
    oracle, k, epsilon = _check_theory(oracle, k, epsilon)
    n = as_real_array(n, "n")
    if np.any(~(n > 0)) or np.any(~np.isfinite(n)):
        raise ValueError(f"n must be a positive number of users, got {n!r}.")
    f = as_real_array(frequency, "frequency")
    if np.any(~((f >= 0) & (f <= 1))):
        raise ValueError(f"frequency must be a share in [0, 1], got {frequency!r}.")
    p, q, gap = _constants(oracle, k, epsilon)
    var = n * (q * (1 - q) / gap**2 + f * (1 - p - q) / gap)
    var = var / n**2 if check_bool(share, "share") else var
    return _scalar(np.broadcast_to(var, np.broadcast(n, k, epsilon, f).shape).copy())


def best_oracle(k, epsilon):
    """The oracle with the smallest Var* at (k, epsilon), by :func:`oracle_variance`.

    GRR for ``k < 3 e^eps + 2`` (Wang et al.'s comparison of DE with OUE), OUE above; OLH's
    Var* is OUE's when ``e^eps + 1`` is a whole number and slightly above it otherwise (its g
    is rounded), and SUE's is never the smallest. Depends on public (k, epsilon) only.
    Returns a name, or an array of names broadcast over ``k`` and ``epsilon``.
    """
    var = np.array([np.broadcast_to(oracle_variance(o, 1, k, epsilon), np.broadcast(
        np.asarray(k), np.asarray(epsilon)).shape) for o in ORACLES])
    best = np.asarray(ORACLES)[np.argmin(var, axis=0)]
    return str(best) if best.ndim == 0 else best


def _scalar(x):
    return float(x) if np.ndim(x) == 0 else x


def _check_theory(oracle, k, epsilon):
    check_choice(oracle, "oracle", ORACLES)
    if np.ndim(k) == 0:
        k = _check_k(k)
    else:
        k = np.asarray(k)
        if k.dtype.kind not in "iu" or np.any((k < 2) | (k > MAX_K)):
            raise ValueError(f"k must hold integers in [2, {MAX_K}], got {k!r}.")
    epsilon = check_epsilon(epsilon) if np.ndim(epsilon) == 0 else check_epsilon_array(epsilon)
    return oracle, k, epsilon


# ----------------------------------------------------------------------------------------------
# Input checks
# ----------------------------------------------------------------------------------------------
def _check_k(k):
    k = check_int(k, "k", 2, MAX_K)
    check_budget("a frequency oracle", "k", k, {"max_bytes": 64 * k},
                 fits=get_config()["max_bytes"] // 64)
    return k


def _check_budgets(epsilon, n, name="epsilon"):
    """One budget (float) or n per-user budgets (float array), each in (0, inf]."""
    if np.ndim(epsilon) == 0:
        return check_epsilon(epsilon, name)
    eps = as_real_array(epsilon, name, "a positive number or an array of per-user budgets")
    if eps.ndim != 1 or (n is not None and len(eps) != n):
        raise ValueError(f"{name} must be one budget or one per user ({n} values), got an "
                         f"array of shape {eps.shape}.")
    if not np.all(eps > 0):  # also NaN
        raise ValueError(f"{name} must be > 0 for every user (np.inf means no privacy), got "
                         f"{eps[~(eps > 0)][0]!r} at user {np.flatnonzero(~(eps > 0))[0]}.")
    return eps


def _check_codes(x, high, name, what):
    """A 1-D integer array with entries in [0, high) (high: int or per-user array)."""
    x = np.asarray(x)
    if x.ndim != 1 or x.dtype.kind not in "iu" or not len(x):
        raise ValueError(f"{name} must be a non-empty 1-D array of integers ({what}), got "
                         f"{'dtype ' + str(x.dtype) if x.ndim == 1 else f'shape {x.shape}'}.")
    bad = (x.min() < 0 or x.max() >= high) if np.ndim(high) == 0 else np.any((x < 0) |
                                                                              (x >= high))
    if bad:
        i = int(np.flatnonzero((x < 0) | (x >= high))[0])
        top = high if np.ndim(high) == 0 else high[i]
        raise ValueError(f"{name} must lie in 0..{top - 1} ({what}), got {int(x[i])} at user {i}.")
    return x.astype(np.int64, copy=False)


def _check_values(values, k):
    return _check_codes(values, k, "values", f"each user's value, one of the k={k}")
