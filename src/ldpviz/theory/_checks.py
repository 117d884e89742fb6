"""Checks of the arguments of the formulas of Section 4 (:mod:`ldpviz.theory`): scalars or
arrays of sizes, budgets and depths, each error naming the argument."""

from __future__ import annotations

import math

import numpy as np

from .._validation import (
    as_real_array,
    check_int,
    real_or_infinite,
    shown,
)

#: Largest dimension the formulas take: integers stay exact as floats up to 2^53 (2**1100 was
#: an OverflowError).
MAX_D = 2**53


def check_d(d):
    return check_int(d, "d", 1, MAX_D)


def check_s(s, d, name="s"):
    return check_int(s, name, 0, d)


def check_depths(p, name="p", strict=False):
    """Real depths >= 0 (> 0 if strict); scalars stay scalar-shaped."""
    arr = as_real_array(p, name)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {p!r}.")
    if np.any(arr <= 0) if strict else np.any(arr < 0):
        raise ValueError(f"{name} must be {'> 0' if strict else '>= 0'}, got {p!r}.")
    return arr


def check_holder_alpha(alpha):
    """Hölder exponent of Assumption 4.1: 0 < alpha <= 1."""
    value = real_or_infinite(alpha, "alpha")
    if value is None or not (0 < value <= 1):
        raise ValueError(f"alpha must be a number in (0, 1] (Assumption 4.1), got "
                         f"{shown(alpha)}.")
    return value


def check_c(c):
    value = real_or_infinite(c, "c")
    if value is None or not (math.isfinite(value) and value > 0):
        raise ValueError(f"c must be a positive finite number, got {shown(c)}.")
    return value


def check_n_array(n, low, name="n"):
    """Sample sizes as a float array, every entry finite and >= low."""
    arr = as_real_array(n, name)
    if not np.all(np.isfinite(arr)) or np.any(arr < low):
        raise ValueError(f"{name} must be finite and >= {low}, got {n!r}.")
    return arr


def check_lam(lam):
    arr = as_real_array(lam, "lam", "a number in [0, 1]")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
        raise ValueError(f"lam must lie in [0, 1] (lambda* of eq 12), got {lam!r}.")
    return arr


def check_tie_rtol(tie_rtol):
    value = real_or_infinite(tie_rtol, "tie_rtol")
    if value is None or not (math.isfinite(value) and value >= 0):
        raise ValueError(f"tie_rtol must be a finite number >= 0, got {shown(tie_rtol)}.")
    return value


def check_s_min(s_min, d):
    return check_int(s_min, "s_min", 0, d - 1)
