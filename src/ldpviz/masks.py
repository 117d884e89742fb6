"""Privacy masks W (n x d, 1 = the user protects that feature) and helpers to read them.

Conventions used throughout this module:

* ``W[i, l] = 1`` (``True``) means user ``i`` protects feature ``l``; 0 means it is published.
* Generators return boolean arrays of shape ``(n, d)``. Python indices are 0-based; where the paper
  states a rule with 1-based indices the docstring says how it was translated.
* The paper's masks are sorted (users protecting more come first) **for display only**. The
  privacy mask is independent of the data (Section 3.1), so which user gets which row does not
  matter: :func:`shuffle_users` permutes the rows and no estimator or formula of
  :mod:`ldpviz.theory` changes its meaning (they depend on W only through its rows as a multiset).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from ._array_kinds import refuse_non_numbers
from ._config import check_rows
from ._index import bincount
from ._rng import as_generator
from ._validation import as_real_array, check_bool, check_int, check_mask, check_real

__all__ = [
    "MaskSummary",
    "aligned_mask",
    "aligned_s_star",
    "concentrated_mask",
    "decade_mask",
    "gamma_mask",
    "protection_counts",
    "protection_ranking",
    "random_mask",
    "shuffle_users",
    "spread_mask",
    "summarize_mask",
    "validate_mask",
]


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------
def validate_mask(W, n=None, d=None, name="W"):
    """Check a user-supplied privacy mask and return it as a boolean array.

    Parameters
    ----------
    W : array_like, shape (n, d)
        0/1 (or boolean) entries, 1 = the user protects that feature.
    n, d : int or None
        Expected number of users (rows) and features (columns); None accepts any size >= 1.
    name : str
        The argument name used in error messages.

    Returns
    -------
    ndarray of bool, shape (n, d)

    Raises
    ------
    ValueError
        If W is not 2-D, is empty, has the wrong shape, contains NaN or anything but 0/1.
    """
    refuse_non_numbers(W, name, "mask")  # what np.asarray would hide (a mask, dates)
    try:
        arr = np.asarray(W)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(f"{name} must be a 2-D (n_users, n_features) 0/1 array of one shape; "
                         f"numpy could not read it: {exc}") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (n_users, n_features) 0/1 array, "
                         f"got {arr.ndim}-D with shape {arr.shape}.")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one user and one feature, got {arr.shape}.")
    rows = arr.shape[0] if n is None else check_int(n, "n", 1)
    cols = arr.shape[1] if d is None else check_int(d, "d", 1)
    return check_mask(arr, (rows, cols), name=name)


# --------------------------------------------------------------------------------------------
# Generators
# --------------------------------------------------------------------------------------------
def aligned_mask(n, d, s):
    """Every user protects the first ``s`` features (the aligned case, Figure 1(a)).

    ``W[i, l] = 1`` iff ``l < s`` (0-based ``l``), i.e. the paper's ``l <= s*`` with 1-based
    ``l`` (Theorem 4.2, Corollary 4.4).

    Parameters
    ----------
    n, d : int >= 1
        Users and features.
    s : int in [0, d]
        The number of protected features s*.

    Returns
    -------
    ndarray of bool, shape (n, d)
    """
    n, d = check_int(n, "n", 1), check_int(d, "d", 1)
    s = check_int(s, "s", 0, d)
    check_rows("aligned_mask", n, 0, d=d, bytes_per_entry=1)
    W = np.zeros((n, d), dtype=bool)
    W[:, :s] = True
    return W


def aligned_s_star(d):
    """The aligned paradigm of Section 5.2: ``s* = ceil(log(sqrt(d)))`` with the natural log.

    Parameters
    ----------
    d : int >= 1
        Number of features.

    Returns
    -------
    int
        ``ceil(ln(d) / 2)``: 0 for d = 1, 1 for 2 <= d <= 7, 2 for 8 <= d <= 54, 3 for
        55 <= d <= 403, ... (``ln(d)/2`` is never an integer for d > 1, so no rounding trap).
    """
    d = check_int(d, "d", 1)
    return math.ceil(0.5 * math.log(d))


def gamma_mask(n, d, gamma):
    """W_gamma of Section 5.1: ``W[i, l] = 1`` iff ``i <= n / l**gamma`` (1-based i and l).

    Feature 1 is protected by everyone, feature l by the first ``n / l**gamma`` users; a smaller
    gamma gives a thicker tail (more users protect many features). Rows are sorted for display
    only: shuffling users does not change any estimator's meaning.

    Parameters
    ----------
    n, d : int >= 1
        Users and features.
    gamma : float >= 0
        Tail exponent; ``gamma = 0`` protects everything.

    Returns
    -------
    ndarray of bool, shape (n, d)
    """
    n, d = check_int(n, "n", 1), check_int(d, "d", 1)
    gamma = check_real(gamma, "gamma", low=0.0)
    check_rows("gamma_mask", n, 16, d=d, bytes_per_entry=1)
    i = np.arange(1, n + 1)[:, None]
    ell = np.arange(1, d + 1)[None, :]
    return i <= n / ell.astype(float) ** gamma


def decade_mask(n, d, s_star, index_base=0):
    """The personalized paradigm of Section 5.2: ``W[i, l] = 1`` iff ``i <= n / 10**floor(l/s*)``.

    Users ``i`` are 1-based. The paper does not say where the feature index ``l`` starts. The
    default ``index_base=0`` (``l = 0, ..., d-1``) is used because it makes the rule a staircase
    of blocks of exactly ``s*`` features: features ``0..s*-1`` are protected by every user
    (the same head as the aligned paradigm with the same ``s*``), the next ``s*`` features by
    ``n/10`` users, the next by ``n/100``, and so on. With ``index_base=1`` (``l = 1, ..., d``)
    the first block has only ``s* - 1`` features, so with ``s* = 1`` (every ``d <= 7`` under
    :func:`aligned_s_star`) no feature at all is protected by everyone.

    The threshold is computed in integers: feature ``l`` is protected by the first
    ``n // 10**floor(l / s*)`` users.

    Parameters
    ----------
    n, d : int >= 1
        Users and features.
    s_star : int >= 1
        Block width, the paper's ``s*`` (e.g. ``aligned_s_star(d)`` when that is >= 1).
    index_base : {0, 1}, default=0
        Where the feature index ``l`` of the formula starts.

    Returns
    -------
    ndarray of bool, shape (n, d)
    """
    n, d = check_int(n, "n", 1), check_int(d, "d", 1)
    s_star = check_int(s_star, "s_star", 1, 2**62)
    index_base = check_int(index_base, "index_base", 0, 1)
    check_rows("decade_mask", n, 16, d=d, bytes_per_entry=1)
    block = (np.arange(d) + index_base) // s_star
    # n // 10**k in int64 where 10**k fits; beyond, n < 10**19 <= 10**k leaves no user (the
    # powers themselves took seconds to build at d = 10^6)
    counts = np.zeros(d, dtype=np.int64)
    small = block <= 18
    counts[small] = n // 10 ** block[small].astype(np.int64)
    return np.arange(n)[:, None] < counts[None, :]


def concentrated_mask(n, d, decay=0.2):
    """A concentrated personalized mask, in the spirit of Figure 1(b).

    Protection is concentrated on the first features and falls off geometrically: feature ``l``
    (0-based) is protected by the first ``n * decay**l`` users (1-based ``i <= n * decay**l``).
    Feature 0 is protected by everyone, and the tail sums ``sum_{l > s} W[i, l]`` are small for
    most users (Section 4.3's "concentrated" case, where it expects a small ``s``). The masks are
    nested (a user protecting feature ``l`` protects every feature before it). ``decay = 0.1``
    is the staircase of :func:`decade_mask` with ``s_star = 1`` (up to the floating-point
    rounding of ``n * 0.1**l``); ``decay -> 0`` approaches the aligned mask with ``s = 1``;
    ``decay = 1`` protects everything.

    The paper shows this pattern only as a picture, without a formula; this generator is
    ldpviz's design.

    Parameters
    ----------
    n, d : int >= 1
        Users and features.
    decay : float in (0, 1]
        Share of users kept from one feature to the next.

    Returns
    -------
    ndarray of bool, shape (n, d)
    """
    n, d = check_int(n, "n", 1), check_int(d, "d", 1)
    decay = check_real(decay, "decay", 0.0, 1.0, low_open=True)
    check_rows("concentrated_mask", n, 16, d=d, bytes_per_entry=1)
    i = np.arange(1, n + 1)[:, None]
    return i <= n * decay ** np.arange(d, dtype=float)[None, :]


def spread_mask(n, d, width=2):
    """A spread personalized mask, in the spirit of Figure 1(c).

    Every user protects ``width`` consecutive features, starting at a feature that moves across
    the users: user ``i`` (0-based) starts at ``b_i = floor(i * d / n)`` and protects features
    ``(b_i + j) mod d`` for ``j = 0, ..., width - 1`` (a diagonal band that wraps around).
    Every user protects the same number of features, but different ones, so the protection
    counts are nearly equal across features (exactly ``n * width / d`` when d divides n) and no
    small set of histogram axes covers most of the protection: the tail sums stay large
    (Section 4.3's "less concentrated" case, where it expects a larger ``s``; see
    :func:`ldpviz.theory.select_s_p` for what eq (15) actually selects).

    The paper shows this pattern only as a picture, without a formula; this generator is
    ldpviz's design.

    Parameters
    ----------
    n, d : int >= 1
        Users and features.
    width : int in [0, d]
        Number of features each user protects.

    Returns
    -------
    ndarray of bool, shape (n, d)
    """
    n, d = check_int(n, "n", 1), check_int(d, "d", 1)
    width = check_int(width, "width", 0, d)
    check_rows("spread_mask", n, 8, d=d, bytes_per_entry=17)
    start = (np.arange(n, dtype=np.int64) * d) // n
    offset = (np.arange(d)[None, :] - start[:, None]) % d
    return offset < width


def random_mask(n, d, rate, random_state=None, exact=False):
    """Random mask with a given protection rate per feature.

    Parameters
    ----------
    n, d : int >= 1
        Users and features.
    rate : float or array_like of shape (d,), entries in [0, 1]
        Probability that a user protects each feature (one rate for all, or one per feature).
    random_state : None, int, SeedSequence or numpy Generator
        Source of randomness (:func:`ldpviz._rng.as_generator`).
    exact : bool, default=False
        False: independent Bernoulli(rate[l]) entries. True: feature ``l`` is protected by
        exactly ``round(rate[l] * n)`` users drawn without replacement (half up), independently
        across features.

    Returns
    -------
    ndarray of bool, shape (n, d)
    """
    n, d = check_int(n, "n", 1), check_int(d, "d", 1)
    exact = check_bool(exact, "exact")
    check_rows("random_mask", n, 0, d=d, bytes_per_entry=20 if exact else 9)
    rates = as_real_array(rate, "rate", f"a number or {d} numbers in [0, 1]")
    if rates.ndim == 0:
        rates = np.full(d, float(rates))
    if rates.shape != (d,):
        raise ValueError(f"rate must be a scalar or have shape ({d},), got shape {rates.shape}.")
    if not np.all(np.isfinite(rates)) or np.any(rates < 0) or np.any(rates > 1):
        raise ValueError(f"rate must lie in [0, 1], got {rate!r}.")
    rng = as_generator(random_state)
    if not exact:
        return rng.random((n, d)) < rates[None, :]
    counts = np.floor(rates * n + 0.5).astype(np.int64)
    # The rank of each user in an independent random order per feature; the first counts[l] win.
    ranks = np.argsort(rng.random((n, d)), axis=0).argsort(axis=0)
    return ranks < counts[None, :]


# --------------------------------------------------------------------------------------------
# Reading a mask
# --------------------------------------------------------------------------------------------
def shuffle_users(W, random_state=None):
    """Return a copy of ``W`` with its rows (users) in a random order.

    The paper draws its masks sorted, users protecting more first, only for display. Because the
    mask is assumed independent of the data (Section 3.1), assigning the rows to users at random
    is the faithful way to pair a displayed mask with an i.i.d. sample; the formulas of
    :mod:`ldpviz.theory` are invariant to it.

    Parameters
    ----------
    W : array_like, shape (n, d)
        A 0/1 mask.
    random_state : None, int, SeedSequence or numpy Generator

    Returns
    -------
    ndarray of bool, shape (n, d)
    """
    W = validate_mask(W)
    rng = as_generator(random_state)
    return W[rng.permutation(W.shape[0])]


def protection_counts(W):
    """How many users protect each feature: ``W.sum(axis=0)``.

    ``W`` is checked as in :func:`validate_mask`: only booleans and the numbers 0 and 1 count,
    so NaN, 2, -1 or the string '0' are refused rather than read as "protected".
    """
    return _column_counts(validate_mask(W))


def protection_ranking(W):
    """Features from most to least protected (ties: lower index first), Section 3.3.

    The first ``s`` of this ranking are HistOfTree's histogram axes.
    """
    return ranking_of_checked_mask(validate_mask(W))


def ranking_of_checked_mask(W):
    """:func:`protection_ranking` of a mask already checked by :func:`validate_mask`."""
    return np.argsort(-_column_counts(W), kind="stable")


def _column_counts(W):
    """Protected users per feature of a checked (bool) mask. Column by column: a strided bool
    reduction over axis 0 is about 6x slower."""
    return np.array([np.count_nonzero(W[:, j]) for j in range(W.shape[1])], dtype=np.int64)


class MaskSummary(NamedTuple):
    """What :func:`summarize_mask` returns.

    features : DataFrame indexed by feature (0-based), columns ``count`` (users protecting it),
        ``share`` (count / n) and ``rank`` (0 = most protected, the order of
        :func:`protection_ranking`).
    users : Series indexed by k = 0..d, the share of users protecting exactly k features.
    """

    features: pd.DataFrame
    users: pd.Series


def summarize_mask(W):
    """Share protected per feature and share of users protecting k features.

    Parameters
    ----------
    W : array_like, shape (n, d)
        A 0/1 mask.

    Returns
    -------
    MaskSummary
        ``(features, users)``; see :class:`MaskSummary`.
    """
    W = validate_mask(W)
    n, d = W.shape
    counts = protection_counts(W)
    rank = np.empty(d, dtype=np.int64)
    rank[protection_ranking(W)] = np.arange(d)
    features = pd.DataFrame(
        {"count": counts, "share": counts / n, "rank": rank},
        index=pd.RangeIndex(d, name="feature"),
    )
    per_user = bincount(W.sum(axis=1), minlength=d + 1) / n
    users = pd.Series(per_user, index=pd.RangeIndex(d + 1, name="k"), name="share")
    return MaskSummary(features, users)
