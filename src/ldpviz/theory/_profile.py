"""The mask side of Section 4: the histogram of tail counts, delta(p) (eq 12) and lambda*."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._config import check_mask_tables
from .._index import bincount
from .._validation import check_int
from ..masks import protection_ranking, validate_mask
from ._checks import (
    check_depths,
    check_s,
)


@dataclass(frozen=True)
class MaskProfile:
    """Everything the formulas need from a mask W, computed once in O(n d).

    Attributes
    ----------
    n_users : int
        Rows of W.
    d : int
        Features.
    ranking : ndarray of int, shape (d,)
        :func:`ldpviz.masks.protection_ranking` of W; ``ranking[:s]`` are the histogram axes.
    tail_counts : ndarray of int, shape (d + 1, d + 1)
        ``tail_counts[s, k]`` = number of users protecting exactly ``k`` of the features
        ``ranking[s:]`` (the tail of eq 12). Row ``s = d`` is ``[n_users, 0, ...]``.
    """

    n_users: int
    d: int
    ranking: np.ndarray
    tail_counts: np.ndarray

    def log2_delta(self, s, p):
        """``log2 delta(p)`` of eq (12) for the tail after the first ``s`` ranked features.

        Stable for large ``p``: ``log2 sum_k w_k 2^{k p / (d-s)}`` with the largest present
        ``k`` factored out. ``p`` may be an array of reals >= 0; ``s`` must be an int in [0, d].
        """
        p = np.asarray(p, dtype=float)
        if s == self.d:
            return np.zeros_like(p)
        weights = self.tail_counts[s] / self.n_users
        ks = np.flatnonzero(weights)
        k_max = ks[-1]
        rate = p[..., None] / (self.d - s)
        shifted = np.exp2((ks - k_max) * rate) @ weights[ks]
        # 1 <= delta <= 2^p holds exactly (0 <= k <= d - s); clip the last-bit rounding
        return np.clip(k_max * rate[..., 0] + np.log2(shifted), 0.0, p)


def mask_profile(W):
    """Precompute the tail-count histogram of W (see :class:`MaskProfile`).

    Every function of this module accepts either a mask or a profile; pass a profile when you
    evaluate many (s, p, n, epsilon) for the same W, e.g. behind a slider.

    Parameters
    ----------
    W : array_like of 0/1, shape (n, d), or MaskProfile
        The privacy mask, 1 = protected. A MaskProfile is returned unchanged.

    Returns
    -------
    MaskProfile
    """
    if isinstance(W, MaskProfile):
        return W
    W = validate_mask(W)
    n, d = W.shape
    check_mask_tables("mask_profile", n, d)
    ranking = protection_ranking(W)
    ranked = W[:, ranking].astype(np.int64)
    # tails[i, s] = number of features among ranking[s:] that user i protects, s = 0..d.
    tails = np.zeros((n, d + 1), dtype=np.int64)
    tails[:, :d] = np.cumsum(ranked[:, ::-1], axis=1)[:, ::-1]
    flat = np.arange(d + 1)[None, :] * (d + 1) + tails
    counts = bincount(flat.ravel(), minlength=(d + 1) ** 2).reshape(d + 1, d + 1)
    return MaskProfile(n_users=n, d=d, ranking=ranking, tail_counts=counts)


def _out(x):
    """0-d arrays become Python floats; arrays stay arrays."""
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


def default_p_max(n):
    """Deepest tree searched by :func:`select_s_p`: ``max(1, ceil(log2 n))``.

    Section 4.3 searches ``p = 1, ..., log n`` ("at most d log n candidates"); ldpviz reads it
    as ``ceil(log2 n)`` because a tree deeper than ``log2 n`` has more leaves than users. The
    ``max(1, .)`` keeps ``p = 1`` available for tiny ``n``.
    """
    n = check_int(n, "n", 2)
    return max(1, math.ceil(math.log2(n)))


def delta(W, s, p):
    """delta(p) of eq (12): ``(1/n) sum_i 2^{(sum_{l in tail} W[i, l]) p / (d - s)}``.

    The tail is the features ranked ``s+1..d`` by protection count, most protected first
    (Section 3.3; :func:`ldpviz.masks.protection_ranking`), i.e. the features the tree sees.
    delta is the mean over users of ``2^{(tail count) p / (d-s)}``: the average factor by which
    a user's potential cells outnumber the cells of a fully public user (Lemma B.10).

    Parameters
    ----------
    W : array_like of 0/1, shape (n, d), or MaskProfile
        Privacy mask (1 = protected). Row order is irrelevant.
    s : int in [0, d]
        Number of histogram (private) axes.
    p : float or array_like of float >= 0
        Tree depth(s). Values beyond ``log2 n`` are evaluated by the same formula.

    Returns
    -------
    float or ndarray
        Dimensionless, in ``[1, 2^p]``; 1 when no user protects a tail feature, ``2^p`` when
        every user protects every tail feature. ``s = d``: the tail is empty and delta = 1.
    """
    prof = mask_profile(W)
    s = check_s(s, prof.d)
    p = check_depths(p)
    with np.errstate(over="ignore"):
        return _out(np.exp2(prof.log2_delta(s, p)))


def lambda_star(W, s, p):
    """lambda* of Theorem 4.3: ``log2(delta(p)) / p``, with delta from eq (12).

    Parameters
    ----------
    W : array_like of 0/1, shape (n, d), or MaskProfile
        Privacy mask (1 = protected), tail as in :func:`delta`.
    s : int in [0, d]
        Number of histogram axes.
    p : float or array_like of float > 0
        Tree depth(s); the paper evaluates it at ``p = p*``.

    Returns
    -------
    float or ndarray
        Dimensionless, in [0, 1]. 0 when no user protects a tail feature (e.g. the aligned mask
        with ``s >= s*``) and for ``s = d``; 1 when every user protects the whole tail.
        It enters the rate exponent of eq (13) through ``lambda* (d - s)``.
    """
    prof = mask_profile(W)
    s = check_s(s, prof.d)
    p = check_depths(p, strict=True)
    return _out(prof.log2_delta(s, p) / p)
