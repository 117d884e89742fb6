"""Choosing among candidate models under LDP: held-out users release noisy clipped losses.

Tuning a private estimator (its depth, the constant c of eq 15, ...) on the test error, as the
paper's experiments do (Appendix C.1), reads data no deployed server holds; scoring candidates
on held-out users' raw features is not private either. This module gives a procedure in which
every user speaks once and spends epsilon once:

1. Public randomness splits the users into a validation group and one training group per
   candidate. Candidate j is fitted, as the epsilon-LDP estimator it is, on training group j
   only, and the fitted model is published (post-processing of that group's releases).
2. Each validation user computes, locally on their own full record (x_i, y_i), the clipped loss
   ``l_ij = min(L(f_j(x_i), y_i), B)`` of the published candidates and releases it with the
   Laplace mechanism (eq 4 of the HistOfTree paper, on a value in [0, B]; sensitivity B).
3. The server averages the released losses per candidate. The Laplace noise has mean zero, so
   each average is unbiased for the candidate's mean clipped loss over the validation users; it
   picks the smallest (post-processing).

The loss bound ``B`` is a public parameter fixed before any data is seen: with labels and
predictions in [-M, M] the squared error is at most ``(2M)^2`` and the absolute error at most
``2M`` (:func:`max_loss`), so clipping at those bounds changes nothing; a smaller B trades a
bias (large losses are cut) for less noise.

The budget split over the k candidates (``split``):

* ``"users"`` (the default): public randomness assigns each validation user one candidate
  (balanced: every candidate gets ``n_v / k`` users, up to one); the user releases that
  candidate's loss with all of epsilon (Laplace scale ``B / eps``).
* ``"sequential"``: each validation user releases all k losses, each with ``eps / k`` (scale
  ``k B / eps``); by sequential composition the vector is epsilon-LDP.

Why "users" is the default. With ``sigma^2`` the variance of one clipped loss over the users,
each candidate's average has variance ``k (sigma^2 + 2 B^2 / eps^2) / n_v`` under "users" and
``(sigma^2 + 2 k^2 B^2 / eps^2) / n_v`` under "sequential". The first is smaller whenever
``sigma^2 < 2 k B^2 / eps^2``, which holds for every distribution when ``eps < sqrt(8 k)``
(a loss in [0, B] has variance at most B^2 / 4); where the Laplace noise dominates, as it does
at the usual budgets, "users" has about k times less variance. "sequential" wins only where
the noise is small next to the spread of the losses (large epsilon); its differences between
candidates are then also paired, user by user.

Privacy: each validation user's release is epsilon-LDP for their whole record (features
included, even those they would publish under semi-feature LDP): for any two records the
released losses differ by at most B per coordinate, so the Laplace densities differ by a
factor at most ``e^{eps}`` ("users": one value at ``eps``; "sequential": k values at
``eps / k``). The assignment of candidates is drawn before any release and does not depend
on the data. Each training user takes part in one candidate's fit only (parallel
composition), so every user's total is epsilon (:attr:`PrivateModelSelection.epsilon_spent_`).
Fitting several candidates on the *same* users would spend epsilon once per candidate.

Floating-point caveat: as everywhere in ldpviz (see :mod:`ldpviz.mechanisms`), textbook
floating-point Laplace sampling is not exactly differentially private (Mironov, 2012).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import clone

from ._base import SemiFeatureRegressor
from ._config import check_budget, get_config
from ._index import bincount
from ._rng import as_generator
from ._validation import (
    check_2d_finite,
    check_choice,
    check_epsilon,
    check_mask,
    check_real,
    check_simulable,
    check_target,
)
from .mechanisms import laplace_log_density, laplace_scale

SPLITS = ("users", "sequential")
LOSSES = ("squared", "absolute")
# Bytes per (validation user, candidate) entry: the predictions, the clipped losses, their
# noise and release, and the two index arrays of the reports.
_ENTRY_BYTES = 48


class LossReports(NamedTuple):
    """What the validation users release: one row per released value.

    candidate : (r,) int, the candidate each value is about.
    user : (r,) int, the validation user (0-based, in the order given) who released it.
    value : (r,) float, the clipped loss plus Laplace noise.
    epsilon : float, the budget of one released value (``eps`` or ``eps / k``).
    scale : float, its Laplace scale, ``B / epsilon``.
    n_candidates : int, k.
    """

    candidate: np.ndarray
    user: np.ndarray
    value: np.ndarray
    epsilon: float
    scale: float
    n_candidates: int


class Selection(NamedTuple):
    """The server's choice, computed from the released losses only (post-processing).

    best : int, the candidate with the smallest mean released loss.
    mean_loss : (k,) mean released loss per candidate, unbiased for its mean clipped loss.
    std_error : (k,) standard error of each mean (the released values' spread; nan with fewer
        than two reports).
    n_reports : (k,) released values per candidate.
    epsilon : float, the budget of one released value.
    scale : float, the Laplace scale of one released value.
    """

    best: int
    mean_loss: np.ndarray
    std_error: np.ndarray
    n_reports: np.ndarray
    epsilon: float
    scale: float

    def frame(self, names=None):
        """The selection as a table, one row per candidate (``names``: their labels)."""
        index = pd.Index(range(len(self.mean_loss)) if names is None else list(names),
                         name="candidate")
        if len(index) != len(self.mean_loss):
            raise ValueError(f"names has {len(index)} entries for {len(self.mean_loss)} "
                             "candidates.")
        return pd.DataFrame({"mean released loss": self.mean_loss,
                             "std error": self.std_error, "reports": self.n_reports,
                             "chosen": np.arange(len(index)) == self.best}, index=index)


# ----------------------------------------------------------------------------------------------
# Public constants
# ----------------------------------------------------------------------------------------------
def max_loss(y_bound, loss="squared"):
    """The largest loss when labels and predictions lie in [-M, M]: ``(2M)^2`` or ``2M``.

    A public loss bound B for :func:`release_losses`, derived from the public label bound M.
    """
    check_choice(loss, "loss", LOSSES)
    M = check_real(y_bound, "y_bound", low=0, low_open=True)
    return (2.0 * M) ** 2 if loss == "squared" else 2.0 * M


def report_epsilon(epsilon, n_candidates, split="users"):
    """The budget of one released loss: ``eps`` ("users") or ``eps / k`` ("sequential")."""
    epsilon = check_epsilon(epsilon)
    k = _check_k(n_candidates)
    return epsilon if check_choice(split, "split", SPLITS) == "users" else epsilon / k


def mean_noise_std(epsilon, loss_bound, n_candidates, n_validation, split="users"):
    """Standard deviation the Laplace noise adds to each candidate's mean released loss.

    ``sqrt(2) B / eps_r / sqrt(n_r)`` with ``eps_r`` the budget of one report and ``n_r`` the
    reports per candidate (``n_v / k`` under "users", ``n_v`` under "sequential"): public, known
    before any release. The spread of the losses themselves adds to it.
    """
    k = _check_k(n_candidates)
    B = _check_loss_bound(loss_bound)
    n_v = _check_k(n_validation, "n_validation", 1)
    eps = report_epsilon(epsilon, k, split)
    per_candidate = n_v / k if split == "users" else n_v
    return math.sqrt(2.0) * laplace_scale(eps, B / 2) / math.sqrt(per_candidate)


# ----------------------------------------------------------------------------------------------
# The validation users' side
# ----------------------------------------------------------------------------------------------
def assign_candidates(n_users, n_candidates, random_state=None):
    """Public randomness: the candidate each validation user reports on (split "users").

    Balanced (a random permutation of ``0, 1, ..., k-1, 0, 1, ...``): every candidate gets
    ``n_users // k`` or one more users. Drawn from the generator alone, never from data, so it
    can be published before any release.
    """
    k = _check_k(n_candidates)
    n = _check_k(n_users, "n_users", 1)
    rng = as_generator(random_state)
    return rng.permutation(np.arange(n) % k)


def clipped_losses(predictions, y, loss_bound, loss="squared"):
    """``min(L(prediction, y), B)`` per user and candidate, shape (n, k): each user's local
    computation on their own record, never released as such."""
    predictions, y = _check_predictions(predictions, y)
    return _clipped(predictions, y[:, None], _check_loss_bound(loss_bound),
                    check_choice(loss, "loss", LOSSES))


def release_losses(predictions, y, epsilon, loss_bound, split="users", loss="squared",
                   random_state=None):
    """Each validation user releases their clipped loss(es) with the Laplace mechanism.

    Parameters
    ----------
    predictions : (n_v, k) array
        ``predictions[i, j]`` = candidate j's prediction at validation user i's features,
        computed by that user locally (the candidates are published).
    y : (n_v,) the validation users' labels (read by each user only).
    epsilon : float in (0, inf]
        Each validation user's budget; ``np.inf`` releases the losses without noise.
    loss_bound : float > 0
        The public bound B losses are clipped to (:func:`max_loss`).
    split : {"users", "sequential"}, default="users"
        How the budget is split over the k candidates (module docstring).
    loss : {"squared", "absolute"}, default="squared"
    random_state : None, int or numpy Generator
        Drives the assignment ("users") and the Laplace noise.

    Returns
    -------
    LossReports
    """
    predictions, y = _check_predictions(predictions, y)
    n, k = predictions.shape
    B = _check_loss_bound(loss_bound)
    check_choice(split, "split", SPLITS)
    check_choice(loss, "loss", LOSSES)
    eps = report_epsilon(epsilon, k, split)
    check_simulable(eps, y_bound=B / 2, name="epsilon per report")
    if split == "users" and n < k:
        raise ValueError(f"split='users' needs at least one validation user per candidate: "
                         f"{n} users for {k} candidates; use split='sequential' or more "
                         "validation users.")
    _check_entries("release_losses", n, k)
    rng = as_generator(random_state)
    if split == "users":
        candidate = assign_candidates(n, k, rng)
        user = np.arange(n)
    else:
        candidate = np.tile(np.arange(k), n)
        user = np.repeat(np.arange(n), k)
    losses = _clipped(predictions[user, candidate], y[user], B, loss)
    # eq (4) for a value in [0, B] (sensitivity B, the 2M of a label in [-M, M]): scale B/eps.
    scale = float(laplace_scale(eps, B / 2))
    value = losses + rng.laplace(0.0, 1.0, size=losses.shape) * scale
    return LossReports(candidate, user, value, eps, scale, k)


def release_log_density(released, losses, epsilon, loss_bound, split="users", candidate=None):
    """Log density of one validation user's release given their k clipped losses.

    For the privacy checks (the likelihood ratio of two users' records is the difference of
    two of these). "users": ``released`` holds values about the public ``candidate``;
    "sequential": ``released`` has shape (..., k), one value per candidate.
    """
    losses = np.asarray(losses, dtype=float)
    k = _check_k(losses.shape[-1])
    B = _check_loss_bound(loss_bound)
    eps = report_epsilon(epsilon, k, split)
    released = np.asarray(released, dtype=float)
    if split == "users":
        if candidate is None:
            raise ValueError("split='users' needs the public candidate the value is about.")
        return laplace_log_density(released - B / 2, losses[candidate] - B / 2, eps, B / 2)
    return laplace_log_density(released - B / 2, losses - B / 2, eps, B / 2).sum(axis=-1)


# ----------------------------------------------------------------------------------------------
# The server's side
# ----------------------------------------------------------------------------------------------
def select_candidate(reports):
    """The candidate with the smallest mean released loss (post-processing of ``reports``)."""
    k = reports.n_candidates
    count = bincount(reports.candidate, minlength=k)
    total = bincount(reports.candidate, weights=reports.value, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
        square = bincount(reports.candidate, weights=(reports.value - mean[reports.candidate])
                          ** 2, minlength=k)
        std_error = np.sqrt(square / (count - 1) / count)
    std_error[count < 2] = np.nan
    if np.any(count == 0):
        raise ValueError(f"candidates {np.flatnonzero(count == 0).tolist()} received no "
                         "released loss; give every candidate at least one validation user.")
    return Selection(int(np.argmin(mean)), mean, std_error, count, reports.epsilon,
                     reports.scale)


def select_model(candidates, X, y, epsilon, loss_bound, split="users", loss="squared",
                 random_state=None):
    """Choose among published, already fitted ``candidates`` with the validation users (X, y).

    Each validation user predicts with every candidate locally, computes the clipped losses and
    releases them (:func:`release_losses`); the server keeps the smallest mean
    (:func:`select_candidate`). The candidates must not have been fitted on these users.

    Returns
    -------
    Selection
    """
    candidates = _check_candidates(candidates)
    X = check_2d_finite(X, "X")
    y = check_target(y, X.shape[0])
    _check_entries("select_model", X.shape[0], len(candidates))
    predictions = np.column_stack([np.asarray(m.predict(X), dtype=float) for m in candidates])
    return select_candidate(release_losses(predictions, y, epsilon, loss_bound, split, loss,
                                           random_state))


# ----------------------------------------------------------------------------------------------
# The whole protocol as one estimator
# ----------------------------------------------------------------------------------------------
class PrivateModelSelection(SemiFeatureRegressor):
    """Fit k candidate LDP estimators on disjoint groups of users and keep the one whose
    validation users' released losses are smallest (module docstring); every user spends
    epsilon once.

    Parameters
    ----------
    candidates : list of estimators
        At least two unfitted ldpviz estimators (``fit(X, y[, W])``, ``predict``), each with
        ``epsilon`` equal to this one's. Each is cloned and fitted on its own training group.
    epsilon : float, default=1.0
        Every user's budget: a training user's in their candidate's fit, a validation user's in
        their loss release.
    loss_bound : float or None, default=None
        The public bound B on a loss. None: :func:`max_loss` of the candidates' common public
        ``y_bound`` (an error if they have none).
    validation_size : float in (0, 1), default=0.2
        Share of the users who validate; the rest are split evenly over the candidates.
    split : {"users", "sequential"}, default="users"
        The budget split over candidates of a validation user (module docstring).
    loss : {"squared", "absolute"}, default="squared"
    random_state : None, int or numpy Generator
        Drives the groups, the candidates' seeds (each clone's ``random_state``) and the noise.

    Attributes
    ----------
    estimators_ : the k fitted candidates (candidate j on training group j).
    group_ : (n,) int, each user's training group, -1 for the validation users.
    selection_ : Selection, the released losses' summary and the choice.
    best_index_ : int; best_estimator_ : the chosen fitted candidate (used by ``predict``).
    reports_ : LossReports, what the validation users released.
    loss_bound_ : float, the bound B used.
    epsilon_spent_ : (n,) every user's total budget, summed over what they took part in.
    """

    def __init__(self, candidates=(), epsilon=1.0, loss_bound=None, validation_size=0.2,
                 split="users", loss="squared", random_state=None):
        self.candidates = candidates
        self.epsilon = epsilon
        self.loss_bound = loss_bound
        self.validation_size = validation_size
        self.split = split
        self.loss = loss
        self.random_state = random_state

    def fit(self, X, y, W=None):
        """Split the users, fit each candidate on its group, validate, keep the best.

        ``W`` (the n x d privacy mask) is passed to each candidate's fit on its rows; without
        it the candidates use their own ``private_features``.
        """
        epsilon = check_epsilon(self.epsilon)
        candidates = self._checked_candidates(epsilon)
        check_choice(self.split, "split", SPLITS)
        check_choice(self.loss, "loss", LOSSES)
        size = check_real(self.validation_size, "validation_size", 0, 1, True, True)
        X, y, _ = self._check_data(X, y, None, needs_mask=False)
        if W is not None:
            W = check_mask(W, X.shape)
        n, k = len(y), len(candidates)
        self.loss_bound_ = self._resolve_loss_bound(candidates)
        n_val = self._validation_users(n, k, size)
        _check_entries(type(self).__name__, n_val, k)
        rng = as_generator(self.random_state)
        order = rng.permutation(n)
        self.group_ = np.full(n, -1)
        self.group_[order[n_val:]] = np.arange(n - n_val) % k
        validation = np.sort(order[:n_val])
        self.estimators_ = []
        for j, candidate in enumerate(candidates):
            rows = self.group_ == j
            model = clone(candidate)
            if "random_state" in model.get_params():
                model.set_params(random_state=int(rng.integers(2**63 - 1)))
            fitted = (model.fit(X[rows], y[rows]) if W is None
                      else model.fit(X[rows], y[rows], W=W[rows]))
            self.estimators_.append(fitted)
        predictions = np.column_stack([np.asarray(m.predict(X[validation]), dtype=float)
                                       for m in self.estimators_])
        self.reports_ = release_losses(predictions, y[validation], epsilon, self.loss_bound_,
                                       self.split, self.loss, rng)
        self.selection_ = select_candidate(self.reports_)
        self.best_index_ = self.selection_.best
        self.best_estimator_ = self.estimators_[self.best_index_]
        self.epsilon_spent_ = self._spent(candidates, validation)
        return self

    def predict(self, X):
        """The chosen candidate's prediction."""
        X = self._check_predict_input(X)
        return self.best_estimator_.predict(X)

    def _checked_candidates(self, epsilon):
        candidates = _check_candidates(self.candidates, fitted=False)
        for j, candidate in enumerate(candidates):
            params = candidate.get_params()
            if "epsilon" not in params:
                raise ValueError(f"candidates[{j}] ({type(candidate).__name__}) has no epsilon: "
                                 "each candidate must be an epsilon-LDP estimator, fitted on "
                                 "its own users.")
            if params["epsilon"] != epsilon:
                raise ValueError(f"candidates[{j}].epsilon = {params['epsilon']!r} differs from "
                                 f"epsilon = {epsilon!r}: each training user speaks once, "
                                 "through one candidate, so every candidate must use the "
                                 "procedure's epsilon.")
        return candidates

    def _resolve_loss_bound(self, candidates):
        if self.loss_bound is not None:
            return _check_loss_bound(self.loss_bound)
        bounds = {c.get_params().get("y_bound") for c in candidates}
        if len(bounds) != 1 or None in bounds:
            raise ValueError("loss_bound is None and the candidates do not share one public "
                             f"y_bound (they have {sorted(map(str, bounds))}); pass "
                             "loss_bound, e.g. ldpviz.model_selection.max_loss(M).")
        return max_loss(bounds.pop(), self.loss)

    def _validation_users(self, n, k, size):
        """Validation users: at least one report and one training user per candidate."""
        n_val = round(size * n)
        least = k if self.split == "users" else 1
        if n_val < least or n - n_val < k:
            raise ValueError(
                f"validation_size={self.validation_size!r} gives {n_val} validation and "
                f"{n - n_val} training users out of n_samples = {n}; {k} candidates need at "
                f"least {least} validation user(s) (one report each) and {k} training users: use "
                f"validation_size in [{least / n:.3g}, {(n - k) / n:.3g}] or more users.")
        return n_val

    def _spent(self, candidates, validation):
        """Each user's total budget from what they took part in: their group's candidate, or
        the released values they sent (summed)."""
        spent = np.zeros(len(self.group_))
        training = self.group_ >= 0
        budgets = np.array([float(c.get_params()["epsilon"]) for c in candidates])
        spent[training] = budgets[self.group_[training]]
        per_user = bincount(self.reports_.user, minlength=len(validation))
        spent[validation] += per_user * self.reports_.epsilon
        return spent


# ----------------------------------------------------------------------------------------------
# Checks
# ----------------------------------------------------------------------------------------------
def _check_k(k, name="n_candidates", low=1):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {k!r}.")
    return int(k)


def _check_entries(owner, n, k):
    """Refuse n validation users x k candidates beyond the max_bytes budget, before the
    predictions, losses and reports are allocated."""
    fits = get_config()["max_bytes"] // (k * _ENTRY_BYTES)
    check_budget(f"{owner} with {k} candidates", "validation users", n,
                 {"max_bytes": n * k * _ENTRY_BYTES}, fits=fits,
                 advice=f"use at most {fits:,} validation users (or fewer candidates)")


def _check_loss_bound(loss_bound):
    return check_real(loss_bound, "loss_bound", low=0, low_open=True)


def _check_predictions(predictions, y):
    predictions = check_2d_finite(predictions, "predictions")
    y = check_target(y, predictions.shape[0])
    return predictions, y


def _check_candidates(candidates, fitted=True):
    if isinstance(candidates, (str, bytes)) or not hasattr(candidates, "__len__"):
        raise ValueError(f"candidates must be a list of estimators, got {candidates!r}.")
    candidates = list(candidates)
    if len(candidates) < 2:
        raise ValueError(f"candidates must hold at least two estimators to choose from, got "
                         f"{len(candidates)}.")
    for j, candidate in enumerate(candidates):
        needs = ("predict",) if fitted else ("fit", "predict", "get_params")
        missing = [m for m in needs if not callable(getattr(candidate, m, None))]
        if missing:
            raise ValueError(f"candidates[{j}] ({type(candidate).__name__}) has no "
                             f"{', '.join(missing)}: candidates must be estimators.")
    return candidates


def _clipped(predictions, y, B, loss):
    error = predictions - y
    return np.minimum(error**2 if loss == "squared" else np.abs(error), B)
