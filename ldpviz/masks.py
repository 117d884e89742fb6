"""Privacy masks W (n x d, 1 = the user protects that feature) and helpers to read them."""

from __future__ import annotations

import numpy as np

from ._validation import check_int


def aligned_mask(n, d, s):
    """Every user protects the first ``s`` features (the aligned case, Figure 1(a))."""
    n, d = check_int(n, "n", 1), check_int(d, "d", 1)
    s = check_int(s, "s", 0, d)
    W = np.zeros((n, d), dtype=bool)
    W[:, :s] = True
    return W


def gamma_mask(n, d, gamma):
    """W_gamma of Section 5.1: ``W[i, l] = 1`` iff ``i <= n / l**gamma`` (1-based i and l).

    Feature 1 is protected by everyone, feature l by the first ``n / l**gamma`` users; a smaller
    gamma gives a thicker tail (more users protect many features). Rows are sorted for display
    only: shuffling users does not change any estimator's meaning.
    """
    n, d = check_int(n, "n", 1), check_int(d, "d", 1)
    if not np.isfinite(gamma) or gamma < 0:
        raise ValueError(f"gamma must be a finite number >= 0, got {gamma!r}.")
    i = np.arange(1, n + 1)[:, None]
    ell = np.arange(1, d + 1)[None, :]
    return i <= n / ell.astype(float) ** gamma


def protection_counts(W):
    """How many users protect each feature: ``W.sum(axis=0)``."""
    return np.asarray(W, dtype=bool).sum(axis=0)


def protection_ranking(W):
    """Features from most to least protected (ties: lower index first), Section 3.3.

    The first ``s`` of this ranking are HistOfTree's histogram axes.
    """
    return np.argsort(-protection_counts(W), kind="stable")
