"""How accurate Mechanism 1 is: its exact per-coordinate MSE on {-1, +1} data and a vectorised
Monte Carlo estimate of the same."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import check_sizes
from .._rng import as_generator
from .._validation import check_bool, check_int
from ._checks import (
    check_schedule,
    check_signed_box,
    check_weights,
)
from .mechanisms import (
    _block_sums,
    _block_weights,
    _increments,
    _normalise,
    _second_moment,
)

# Cap on the entries of the (reps * n, d') work arrays of the Monte Carlo: bounded memory.
_CHUNK_ENTRIES = 1 << 22


def expected_mse_pm1(c, n, xbar=None, weights="paper"):
    """Exact per-coordinate MSE of the unprojected Mechanism 1 average on {-1, +1} data.

    For block k (dimension ``d'_k = d - k + 1``, budget ``alpha_k = c_k - c_{k-1}``) a
    coordinate's report has variance ``B_k^2 / d'_k - x^2 = B_k^2 / d'_k - 1`` for every user
    (:func:`l2_constant`; exact, not a bound). Blocks and users are independent, so

        MSE_i = (1/n) sum_{k<=i} w_k^2 (B_k^2 / d'_k - 1) / (sum_{k<=i} w_k)^2,

    conditional on the data, whatever their joint law (the correlation ``q`` acts only through
    ``c``). A coordinate no block reaches (``c_i = 0``) is estimated by 0: its error is
    ``xbar_i^2``. The projected estimator's MSE is never larger (projection onto a box that
    contains the true mean is a contraction). The paper's bound (eq 17) is this up to constants.

    Parameters
    ----------
    c : (d,) cumulative budgets. For the alpha-LDP baseline pass ``np.full(d, alpha)``.
    n : int, number of users.
    xbar : (d,) array or None
        The data mean, used only for unreached coordinates (None: 0).
    weights : {"paper", "inverse_variance"}
    """
    c = check_schedule(c)
    n = check_int(n, "n", 1)
    check_weights(weights)
    d = len(c)
    xbar = np.zeros(d) if xbar is None else np.asarray(xbar, dtype=float)
    if xbar.shape != (d,):
        raise ValueError(f"xbar must have shape ({d},), got {xbar.shape}.")
    inc = _increments(c)
    dims = d - np.arange(d)
    w = _block_weights(c, weights)
    var = np.zeros(d)
    on = inc > 0
    var[on] = _second_moment(dims[on], inc[on], np.sqrt(dims[on])) - 1.0
    mse = _normalise(np.cumsum(w**2 * var), np.cumsum(w) ** 2) / n
    reached = np.cumsum(w) > 0
    return np.where(reached, mse, xbar**2)


class MonteCarloMSE(NamedTuple):
    """Per-coordinate mean squared error over repetitions and its standard error."""

    mse: np.ndarray
    stderr: np.ndarray


def monte_carlo_mse(c, X, reps=100, project=False, weights="paper", random_state=None):
    """Monte Carlo estimate of the per-coordinate MSE of the Mechanism 1 average on data ``X``.

    Runs the whole protocol ``reps`` times on the same users (vectorised over users and
    repetitions) and averages ``(estimate_i - xbar_i)^2``. With ``project=False`` and {-1, +1}
    data it estimates the same quantity as :func:`expected_mse_pm1`.

    Parameters
    ----------
    c : (d,) cumulative budgets (``np.full(d, alpha)`` for the alpha-LDP baseline).
    X : (n, d) array in [-1, 1]^d.
    reps : int, number of independent runs.
    project : bool, clip each run's average into [-1, 1]^d.
    weights : {"paper", "inverse_variance"}
    random_state : None, int, or numpy Generator

    Returns
    -------
    MonteCarloMSE(mse, stderr), two (d,) arrays.
    """
    X = check_signed_box(X)
    c = check_schedule(c, X.shape[1])
    reps = check_int(reps, "reps", 2)
    check_bool(project, "project")
    drawn = int(np.sum((X.shape[1] - np.arange(X.shape[1]))[_increments(c) > 0]))
    _check_simulation_size("monte_carlo_mse", *X.shape, reps, drawn=lambda d: drawn)
    check_weights(weights)
    est = _simulate_means(X, c, reps, as_generator(random_state), weights)
    return _mse_from_runs(est, X.mean(axis=0), project)


# One entry of the l2 mechanism's draws takes about 50 ns (measured), five of the budget's
# report entries (about 10 ns each).
_DRAW_COST = 5


def _simulation_sizes(n, d, reps, drawn=None):
    """Peak bytes (about 46 per entry of the runs vectorised at once, chunked as
    :func:`_simulate_means` does; measured with tracemalloc) and the draws, weighted by their
    cost. ``drawn(d)``: entries drawn per user and run (block k draws d - k); None: d."""
    work = min(reps * n * d, max(_CHUNK_ENTRIES, n * d))
    per_user = d if drawn is None else drawn(d)
    return {"max_bytes": 46 * work + 9 * n * d + 24 * reps * d,
            "max_report_entries": _DRAW_COST * reps * n * per_user}


def _check_simulation_size(owner, n, d, reps, order=("reps",), drawn=None):
    """Refuse ``reps`` runs on n users x d coordinates beyond the budget before anything is
    drawn: the arrays against ``max_bytes``, the draws (the time) against
    ``max_report_entries``. The message names the first of ``order`` (among "n", "reps", "d")
    whose reduction alone would fit, and its largest value that does."""
    check_sizes(owner, {"n": n, "reps": reps, "d": d},
                lambda **given: _simulation_sizes(**given, drawn=drawn), order, low={"reps": 2})


def _simulate_means(X, c, reps, rng, weights):
    """``reps`` independent runs of the server's unprojected average, shape (reps, d).

    Users are processed for several repetitions at once (vectorised), in chunks that keep the
    work arrays below ``_CHUNK_ENTRIES`` entries.
    """
    n, d = X.shape
    totals = np.zeros((reps, d))
    chunk = max(1, _CHUNK_ENTRIES // (n * d))
    for start in range(0, reps, chunk):
        m = min(chunk, reps - start)
        runs, weight_sums = _block_sums(np.tile(X, (m, 1)), c, rng, weights, m,
                                        lambda Y, m=m: Y.reshape(m, n, -1).mean(axis=1))
        totals[start:start + m] = runs
    return _normalise(totals, weight_sums)


def _mse_from_runs(est, xbar, project):
    if project:
        est = np.clip(est, -1.0, 1.0)
    sq = (est - xbar) ** 2
    return MonteCarloMSE(sq.mean(axis=0), sq.std(axis=0, ddof=1) / np.sqrt(len(sq)))
