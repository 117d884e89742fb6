"""The setting every explorer's view shares: Section 5.1's simulation (d = 5, f* = sin x1 +
sin x2 + sin x5), its cached samples, and the checks of a view's sizes and seeds.

Nothing here loads the estimators (scikit-learn, scipy): a view that fits one imports it.
"""

from __future__ import annotations

from functools import lru_cache, wraps

import numpy as np

from .._validation import check_int, check_real
from ..datasets import make_paper_regression

D = 5
N_TEST = 2000
MASK_ROWS_SHOWN = 200  # rows of W drawn as an image; the mask is sorted, so a strided sample

#: Views on more users than this are computed afresh, not cached: caches of samples, masks and
#: fits at any n could hold gigabytes (16 fits of 10 million users: about 8 GB).
CACHE_MAX_USERS = 200_000


def _cached_while_small(maxsize, n_position):
    """``lru_cache(maxsize)`` for calls on at most CACHE_MAX_USERS users (the argument ``n``,
    at ``n_position`` or by name); larger calls are computed afresh every time."""
    def decorate(function):
        cached = lru_cache(maxsize=maxsize)(function)

        @wraps(function)
        def call(*args, **kwargs):
            n = kwargs["n"] if "n" in kwargs else args[n_position]
            try:
                small = bool(n <= CACHE_MAX_USERS)
            except TypeError:  # not a number: the function itself refuses it by name
                small = False
            return (cached if small else function)(*args, **kwargs)

        call.cache_clear = cached.cache_clear
        return call
    return decorate


@_cached_while_small(maxsize=16, n_position=0)
def _paper_data(n, seed):
    """Cached Section 5.1 sample and test set (read-only arrays)."""
    X, y = make_paper_regression(n, random_state=seed)
    X_test, _ = make_paper_regression(N_TEST, random_state=seed + 10_000)
    for a in (X, y, X_test):
        a.setflags(write=False)
    return X, y, X_test


def _read_only(out):
    """Make the arrays of a cached result read-only (a caller cannot corrupt the cache)."""
    for value in out.values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return out


def _check_fit_args(n, s_star, data_seed, noise_seed=0, d=D):
    """A view's sizes and seeds, refused with the argument named before anything is built
    (``n`` may be a float, as a log slider gives it; it is truncated)."""
    check_real(n, "n", low=2)
    check_int(s_star, "s_star", 0, d)
    check_int(data_seed, "data_seed", 0)
    check_int(noise_seed, "noise_seed", 0)
