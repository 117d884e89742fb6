"""Demonstrations for the course and the live explorer: the BCDP explorer's data, what a public
feature (or the choice to hide a feature) reveals about a private one, and the error of BCDP
against plain LDP as the correlation grows. Computations only; the drawing is in ldpviz.viz."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from .._config import check_budget, check_rows, get_config
from .._rng import as_generator
from .._validation import check_int, check_real
from ._checks import (
    check_finite_epsilon,
    check_q,
    check_zeta,
)
from .accuracy import (
    _check_simulation_size,
    _mse_from_runs,
    _simulate_means,
    expected_mse_pm1,
)
from .exact import bcdp_deltas
from .mechanisms import _increments, budget_schedule
from .priors import sample_correlated_pm1

_EXPLORER_DEFAULTS = {"n": 2000, "reps": 5, "d": 10}


def _check_explorer_size(n, d, reps):
    """Refuse sizes beyond the budget, naming n, reps or d: the one furthest above its default
    first (most likely the one just typed). BCDP draws up to d(d+1)/2 entries per user and
    run (one block per coordinate), the baseline d."""
    value = {"n": n, "reps": reps, "d": d}
    order = sorted(value, key=lambda k: -value[k] / _EXPLORER_DEFAULTS[k])
    _check_simulation_size("bcdp_explorer_data", n, d, reps, order,
                           drawn=lambda d_: d_ * (d_ + 3) // 2)


def bcdp_explorer_data(epsilon=2.0, delta=0.2, k=2, q=0.01, zeta=None, n=2000, d=10, reps=5,
                       random_state=0):
    """Everything the BCDP explorer draws, as plain numpy arrays (no plotting).

    Users are drawn from the prior of eqs (57)-(58) with correlation ``q``; the first ``k``
    coordinates demand ``delta``, the others ``epsilon`` (the Figure 3 setting is
    ``epsilon=2, delta=0.2, k=2, d=10``). BCDP runs Mechanism 1 with Theorem 2's schedule; the
    baseline is Duchi's l2 mechanism with ``min(delta, epsilon)`` (``epsilon`` if ``k = 0``) on
    the whole vector. Vectorised over users and repetitions: a few ms at the defaults.

    Returns
    -------
    dict with
        "deltas" (d,), "c" (d,) the budget staircase, "increments" (d,) the per-block budgets,
        "baseline_alpha" float, and, for ``m`` in {"bcdp", "ldp"}:
        ``f"mse_{m}_closed"`` (d,) exact MSE of the unprojected average (:func:`expected_mse_pm1`),
        ``f"mse_{m}_mc"``, ``f"mse_{m}_mc_se"`` (d,) Monte Carlo MSE of the same and its
        standard error, ``f"mse_{m}_mc_projected"`` (d,) Monte Carlo MSE after projection.
    """
    epsilon = check_finite_epsilon(epsilon)
    delta = check_real(delta, "delta", low=0.0, allow_inf=True)
    d = check_int(d, "d", 1)
    k = check_int(k, "k", 0, d)
    n = check_int(n, "n", 1)
    reps = check_int(reps, "reps", 2)
    _check_explorer_size(n, d, reps)
    q = check_q(q)
    zeta = check_zeta(zeta, q)
    rng = as_generator(random_state)
    deltas = np.where(np.arange(d) < k, min(delta, epsilon), epsilon)
    c = budget_schedule(deltas, epsilon, q, zeta)
    alpha = float(deltas.min())
    X = sample_correlated_pm1(n, d, q, rng)
    xbar = X.mean(axis=0)
    out = {"deltas": deltas, "c": c, "increments": _increments(c), "baseline_alpha": alpha}
    for name, sched in (("bcdp", c), ("ldp", np.full(d, alpha))):
        est = _simulate_means(X, sched, reps, rng, "paper")
        raw = _mse_from_runs(est, xbar, project=False)
        out[f"mse_{name}_closed"] = expected_mse_pm1(sched, n, xbar)
        out[f"mse_{name}_mc"] = raw.mse
        out[f"mse_{name}_mc_se"] = raw.stderr
        out[f"mse_{name}_mc_projected"] = _mse_from_runs(est, xbar, project=True).mse
    return out


def correlated_feature_attack(n=10_000, correlation=0.8, epsilon=1.0, random_state=None):
    """How much a public feature reveals about a private one it is correlated with.

    A semi-feature LDP release: each user has a private bit ``S`` (uniform on {-1, +1}),
    released by randomized response with budget ``epsilon`` (kept with probability
    ``e^eps / (1 + e^eps)``), and a public bit ``P`` released in the clear, with
    ``P = S`` with probability ``(1 + correlation) / 2`` (so ``corr(P, S) = correlation``). An
    attacker who knows this prior guesses ``S`` by the Bayes rule from ``P``, from the RR
    report, or from both; the baseline guesses the majority value without looking.

    Parameters
    ----------
    n : int, number of users.
    correlation : float in [-1, 1].
    epsilon : float, budget of the private bit's RR.
    random_state : None, int, or numpy Generator

    Returns
    -------
    dict with the empirical accuracies ``"public"``, ``"release"``, ``"both"``, ``"baseline"``,
    their exact values ``"public_exact"``, ``"release_exact"``, ``"both_exact"`` and
    ``"baseline_exact"`` (= 1/2), and ``"delta_private"``: the exact BCDP level of ``S`` under the
    whole release (:func:`bcdp_deltas`), ``epsilon + log((1 + |rho|) / (1 - |rho|))``, which is
    what the user's "epsilon for S" really is once ``P`` is public (inf at ``|rho| = 1``).
    """
    n = check_int(n, "n", 1)
    check_rows("correlated_feature_attack", n, 72)  # nine per-user arrays of 8 bytes
    rho = check_real(correlation, "correlation", low=-1.0, high=1.0)
    epsilon = check_finite_epsilon(epsilon)
    rng = as_generator(random_state)
    keep = 1.0 / (1.0 + np.exp(-epsilon))
    S = np.where(rng.random(n) < 0.5, 1, -1)
    P = np.where(rng.random(n) < (1.0 + rho) / 2.0, S, -S)
    R = np.where(rng.random(n) < keep, S, -S)
    # Exact joint law of (S, P, R) on {-1, +1}^3 (index 0 = -1): prior over (S, P), channel R.
    joint = np.zeros((2, 2, 2))
    for (si, s), (pi, p), (ri, r_) in itertools.product(enumerate((-1, 1)), repeat=3):
        joint[si, pi, ri] = 0.5 * ((1 + rho * s * p) / 2) * (keep if r_ == s else 1 - keep)
    bayes = np.where(joint[1] >= joint[0], 1, -1)  # best guess of S given (P, R)
    guess_public = np.where(joint[1].sum(1) >= joint[0].sum(1), 1, -1)[(P + 1) // 2]
    guess_release = np.where(joint[1].sum(0) >= joint[0].sum(0), 1, -1)[(R + 1) // 2]
    guess_both = bayes[(P + 1) // 2, (R + 1) // 2]
    # BCDP of S for the release (P, R): input (S, P), output index 2 * P + R (0 = -1).
    prior = joint.sum(axis=2)
    channel = np.zeros((2, 2, 4))
    for si, pi in itertools.product((0, 1), repeat=2):
        channel[si, pi, 2 * pi + si] = keep
        channel[si, pi, 2 * pi + 1 - si] = 1.0 - keep
    frac = float(np.mean(S == 1))
    return {
        "public": float(np.mean(guess_public == S)),
        "release": float(np.mean(guess_release == S)),
        "both": float(np.mean(guess_both == S)),
        "baseline": max(frac, 1.0 - frac),
        "public_exact": float(np.maximum(joint[0].sum(1), joint[1].sum(1)).sum()),
        "release_exact": float(np.maximum(joint[0].sum(0), joint[1].sum(0)).sum()),
        "both_exact": float(np.maximum(joint[0], joint[1]).sum()),
        "baseline_exact": 0.5,
        "delta_private": float(bcdp_deltas(prior, channel)[0]),
    }


def published_column_attack(protected, published, epsilon=1.0):
    """What a published column reveals about a protected one, read as two bits.

    Each column is coded as a bit, above or below its median (the medians of the columns
    given: an attacker would take them from a public reference population). The attacker
    guesses the protected bit from the published one by following the sign of their
    correlation ``r`` (the Bayes guess for balanced bits), and is compared with
    :func:`correlated_feature_attack`'s two-bit model at the same ``|r|``.

    Parameters
    ----------
    protected, published : 1-D arrays of the same length (at least 2 rows).
    epsilon : float, budget of the randomized response of the protected bit it is compared with.

    Returns
    -------
    dict with ``"r_columns"`` (correlation of the columns), ``"r_bits"`` (of the bits),
    ``"share_right"`` (the attack from the published bit on these rows), and, from the
    two-bit model with correlation ``|r_bits|``: ``"release_exact"`` (the attack from an
    epsilon-LDP release of the protected bit), ``"public_exact"`` (from the published bit)
    and ``"delta_private"`` (the BCDP level of the protected bit, ``epsilon + log((1 + |r|) /
    (1 - |r|))``).
    """
    protected = np.asarray(protected, dtype=float)
    published = np.asarray(published, dtype=float)
    if protected.ndim != 1 or published.shape != protected.shape or len(protected) < 2:
        raise ValueError(f"protected and published must be 1-D of the same length >= 2, got "
                         f"shapes {protected.shape} and {published.shape}.")
    if not (np.isfinite(protected).all() and np.isfinite(published).all()):
        raise ValueError("protected and published must be finite (no NaN or inf).")
    S, P = protected > np.median(protected), published > np.median(published)
    if S.all() or not S.any() or P.all() or not P.any():
        raise ValueError("protected and published must each take values on both sides of "
                         "their median (a constant column codes as a constant bit).")
    r_bits = float(np.corrcoef(S, P)[0, 1])
    guess = P if r_bits > 0 else ~P
    model = correlated_feature_attack(n=2, correlation=abs(r_bits), epsilon=epsilon,
                                      random_state=0)
    return {"r_columns": float(np.corrcoef(protected, published)[0, 1]), "r_bits": r_bits,
            "share_right": float(np.mean(guess == S)),
            **{k: model[k] for k in ("release_exact", "public_exact", "delta_private")}}


def mask_attack(hide_if_condition=0.9, hide_otherwise=0.1, prevalence=0.5, epsilon=0.0):
    """What the choice to hide a feature reveals (Section 3.4 of the HistOfTree paper), exactly.

    Each user has a bit ``S`` (a condition, ``P(S = 1) = prevalence``) and chooses to hide it
    (``W = 1``) with probability ``hide_if_condition`` if ``S = 1``, ``hide_otherwise`` if not.
    As in semi-feature LDP, a user with ``W = 0`` publishes ``S`` in the clear and the server
    sees ``W``; a user with ``W = 1`` sends, about ``S``, at most a randomized response with
    budget ``epsilon`` (0: their messages say nothing about ``S``; ``epsilon`` is the most an
    epsilon-semi-feature-LDP release can say about it, given what the user publishes).

    Returns
    -------
    dict with ``"hide_share"`` (``P(W = 1)``); ``"accuracy_hiders"``, the Bayes attacker's
    share of right guesses of ``S`` among the users who hide it, and ``"accuracy_all"``, over
    all users (those who publish ``S`` are read exactly); ``"delta_mask"``, the log-likelihood
    ratio ``W = 1`` carries about ``S``; ``"delta_hiders"``, the privacy level of ``S`` for a
    user who hides it (the largest log ratio ``P(o | S = 1) / P(o | S = 0)`` over the outputs
    ``o`` of hiding users: ``delta_mask + epsilon``); and ``"delta_all"``, the BCDP level of
    ``S`` under the whole release (:func:`bcdp_deltas`; inf as soon as some users publish
    ``S``).
    """
    h1 = check_real(hide_if_condition, "hide_if_condition", low=0.0, high=1.0)
    h0 = check_real(hide_otherwise, "hide_otherwise", low=0.0, high=1.0)
    pi = check_real(prevalence, "prevalence", low=0.0, high=1.0, low_open=True, high_open=True)
    epsilon = check_real(epsilon, "epsilon", low=0.0)
    if h0 == 0 and h1 == 0:
        raise ValueError("hide_if_condition and hide_otherwise are both 0: nobody hides S.")
    keep = 1.0 / (1.0 + np.exp(-epsilon))
    # Outputs: S = 0 published, S = 1 published, (W = 1, report 0), (W = 1, report 1).
    channel = np.array([[1 - h0, 0.0, h0 * keep, h0 * (1 - keep)],
                        [0.0, 1 - h1, h1 * (1 - keep), h1 * keep]])
    prior = np.array([1 - pi, pi])
    joint = prior[:, None] * channel
    hiders = joint[:, 2:]
    hide_share = float(hiders.sum())
    return {
        "hide_share": hide_share,
        "accuracy_hiders": float(hiders.max(axis=0).sum() / hide_share),
        "accuracy_all": float(joint.max(axis=0).sum()),
        "delta_mask": _abs_log_ratio(h1, h0),
        "delta_hiders": _abs_log_ratio(channel[1, 2:], channel[0, 2:]),
        "delta_all": float(bcdp_deltas(prior, channel)[0]),
    }


def _abs_log_ratio(a, b):
    """max |log(a / b)| over entries where either is positive (inf where only one is)."""
    a, b = np.atleast_1d(np.asarray(a, dtype=float)), np.atleast_1d(np.asarray(b, dtype=float))
    live = (a > 0) | (b > 0)
    if np.any((a[live] == 0) | (b[live] == 0)):
        return np.inf
    return float(np.max(np.abs(np.log(a[live] / b[live])))) if live.any() else 0.0


def _check_sweep(owner, param, count, draws_each):
    """Refuse a sweep whose values together would draw more than ``max_report_entries``
    random numbers (each value alone may fit; a million of them would run for hours)."""
    check_budget(owner, f"len({param})", count, {"max_report_entries": count * draws_each},
                 fits=get_config()["max_report_entries"] // max(draws_each, 1))


def attack_table(correlations, n=10_000, epsilon=1.0, random_state=0):
    """:func:`correlated_feature_attack` over several correlations, one row each.

    Returns a DataFrame indexed by ``correlation`` with the columns of that function's dict.
    """
    correlations = list(correlations)
    _check_sweep("attack_table", "correlations", len(correlations), 3 * check_int(n, "n", 1))
    rows = [correlated_feature_attack(n=n, correlation=rho, epsilon=epsilon,
                                      random_state=random_state) for rho in correlations]
    return pd.DataFrame(rows, index=pd.Index(list(correlations), name="correlation"))


def sweep_q(qs, epsilon=2.0, delta=0.2, k=2, n=10_000, d=10, zeta=None, reps=20,
            random_state=0):
    """Total and sensitive-coordinate error of BCDP and plain LDP as the correlation q varies.

    The Figure 3 setting by default (d = 10, the first k = 2 coordinates demand delta = 0.2,
    epsilon = 2, n = 10,000). Returns a DataFrame indexed by ``q`` with, for ``m`` in
    {"bcdp", "ldp"}: ``{m}_total`` and ``{m}_sensitive`` (exact MSE of the unprojected mean,
    summed over all / the sensitive coordinates, :func:`expected_mse_pm1`) and
    ``{m}_total_projected`` (Monte Carlo after projection to the box).
    """
    qs = list(qs)
    draws = 2 * check_int(reps, "reps", 2) * check_int(n, "n", 1) * check_int(d, "d", 1)
    _check_sweep("sweep_q", "qs", len(qs), draws)  # each value is checked again when it runs
    rows = []
    for q in qs:
        out = bcdp_explorer_data(epsilon=epsilon, delta=delta, k=k, q=q, zeta=zeta, n=n, d=d,
                                 reps=reps, random_state=random_state)
        row = {"q": q}
        for m in ("bcdp", "ldp"):
            row[f"{m}_total"] = float(out[f"mse_{m}_closed"].sum())
            row[f"{m}_sensitive"] = float(out[f"mse_{m}_closed"][:k].sum())
            row[f"{m}_total_projected"] = float(out[f"mse_{m}_mc_projected"].sum())
        rows.append(row)
    return pd.DataFrame(rows).set_index("q")


def exact_crossing(qs, epsilon=2.0, delta=0.2, k=2, n=10_000, d=10, zeta=None):
    """The first correlation in ``qs`` at which BCDP's exact total error exceeds plain LDP's.

    The exact MSE of the unprojected averages (:func:`expected_mse_pm1`), summed over the
    ``d`` coordinates: BCDP with Theorem 2's schedule for the demands of
    :func:`bcdp_explorer_data` (the first ``k`` demand ``delta``, the others ``epsilon``)
    against the ``min(delta, epsilon)``-LDP baseline (which does not depend on q). No
    simulation. Returns nan if BCDP is never worse on ``qs``.
    """
    qs = np.asarray(list(qs), dtype=float)
    if qs.ndim != 1 or len(qs) == 0:
        raise ValueError(f"qs must be a non-empty list of correlations, got {qs!r}.")
    epsilon = check_finite_epsilon(epsilon)
    delta = check_real(delta, "delta", low=0.0, allow_inf=True)
    d = check_int(d, "d", 1)
    k = check_int(k, "k", 0, d)
    n = check_int(n, "n", 1)
    _check_sweep("exact_crossing", "qs", len(qs), d)
    deltas = np.where(np.arange(d) < k, min(delta, epsilon), epsilon)
    baseline = expected_mse_pm1(np.full(d, float(deltas.min())), n).sum()
    for q in qs:
        total = expected_mse_pm1(budget_schedule(deltas, epsilon, q, zeta), n).sum()
        if total > baseline:
            return float(q)
    return float("nan")
