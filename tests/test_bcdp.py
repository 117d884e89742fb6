"""Bayesian Coordinate DP (Aliakbarpour et al. 2024): mechanisms, schedule, privacy, errors.

Statistical checks use fixed seeds and tolerances derived from the theory (standard errors
from known variances); privacy checks use exact likelihood ratios on finite spaces.
"""

import itertools
import math
import time

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import minimize
from sklearn.base import clone

from ldpviz.bcdp import (
    BCDPMean,
    LDPMean,
    bcdp_deltas,
    bcdp_explorer_data,
    bcdp_ols,
    budget_schedule,
    correlated_bernoulli_pmf,
    correlated_feature_attack,
    correlation_tv,
    expected_mse_pm1,
    l2_constant,
    l2_mechanism,
    ldp_epsilon,
    ldp_ols,
    mean_mechanism,
    mean_mechanism_channel,
    monte_carlo_mse,
    paper_example_1,
    paper_example_2,
    product_channel,
    sample_correlated_pm1,
)

FIG3_DELTAS = np.array([0.2, 0.2] + [2.0] * 8)  # Appendix B.3: d = 10, epsilon = 2


def unbiased_B(dim, alpha, r):
    """The unbiased constant, written independently of the library (seed notes)."""
    g = math.exp(math.lgamma((dim + 1) / 2) - math.lgamma(dim / 2 + 1))
    return math.sqrt(math.pi) / 2 * dim * r / math.tanh(alpha / 2) * g


def printed_B(dim, alpha, r):
    """Mechanism 3's constant exactly as printed in Appendix B.1."""
    g = math.exp(math.lgamma((dim + 1) / 2) - math.lgamma(dim / 2 + 1))
    return math.sqrt(math.pi) * dim * r * (math.exp(alpha) + 1) / (math.exp(alpha) - 1) * g


# ----------------------------------------------------------------------------------------------
# Mechanism 3 (l2 ball): unbiasedness, the constant, privacy
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [1, 3, 10])
def test_l2_mechanism_is_unbiased_and_printed_constant_is_not(dim, rng):
    r, alpha, n = 1.5, 1.0, 200_000
    v = np.linspace(1.0, -0.5, dim) if dim > 1 else np.array([1.0])
    v = 0.6 * r * v / np.linalg.norm(v)
    Z = l2_mechanism(np.tile(v, (n, 1)), alpha, r, rng)
    B = unbiased_B(dim, alpha, r)
    assert l2_constant(dim, alpha, r) == pytest.approx(B, rel=1e-12)
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), B, rtol=1e-12)
    # E[Z Z^T] = B^2 I / d' (hemisphere and sphere share it), so Var(Z_i) = B^2/d' - v_i^2.
    se = np.sqrt((B**2 / dim - v**2) / n)
    z_scores = (Z.mean(axis=0) - v) / se
    assert np.max(np.abs(z_scores)) < 5
    # The printed B is exactly twice the unbiased one: its output mean would be 2v, not v.
    assert printed_B(dim, alpha, r) / B == pytest.approx(2.0, rel=1e-12)
    scaled_mean = Z.mean(axis=0) * printed_B(dim, alpha, r) / B
    assert np.max(np.abs(scaled_mean - v) / (2 * se)) > 20
    assert np.max(np.abs(scaled_mean - 2 * v) / (2 * se)) < 5


def test_l2_mechanism_zero_vector_and_zero_budget(rng):
    n, dim, r = 100_000, 4, 1.0
    Z = l2_mechanism(np.zeros((n, dim)), 0.7, r, rng)
    se = unbiased_B(dim, 0.7, r) / np.sqrt(dim * n)
    assert np.max(np.abs(Z.mean(axis=0))) < 5 * se
    # alpha = 0 releases nothing: a constant (documented), whatever the input.
    V = rng.uniform(-0.4, 0.4, size=(10, dim))
    np.testing.assert_array_equal(l2_mechanism(V, 0.0, r, rng), np.zeros((10, dim)))
    assert l2_mechanism(np.array([0.3, 0.1]), 1.0, 1.0, rng).shape == (2,)


@pytest.mark.parametrize("dim", [2, 5])
def test_l2_mechanism_two_point_density_and_likelihood_ratio(dim, rng):
    """The output density (w.r.t. uniform on the sphere) takes two values, 2P(side) on each half.

    We check the structure on samples, then bound the likelihood ratio from it.
    """
    r, alpha, n = 1.0, 1.3, 60_000
    p = math.exp(alpha) / (1 + math.exp(alpha))
    u = np.ones(dim) / math.sqrt(dim)
    sides = {}
    for norm in (0.0, 0.5, 1.0):
        v = norm * r * u
        Z = l2_mechanism(np.tile(v, (n, 1)), alpha, r, rng)
        B = unbiased_B(dim, alpha, r)
        proj = Z @ u / B
        a = 0.5 + norm / 2
        side_prob = a * p + (1 - a) * (1 - p)  # P(Z . u > 0 | v)
        freq = np.mean(proj > 0)
        assert abs(freq - side_prob) < 5 * math.sqrt(side_prob * (1 - side_prob) / n)
        # Given the half, Z is uniform on it: (Z . u / B)^2 ~ Beta(1/2, (d' - 1) / 2).
        for half in (proj[proj > 0], proj[proj < 0]):
            assert stats.kstest(half**2, stats.beta(0.5, (dim - 1) / 2).cdf).pvalue > 1e-3
        sides[norm] = side_prob
    # Density at z: 2 P(side | v) on each half. Over all inputs (norm in [0, r], any direction,
    # so a point z can be on either half for either input) the ratio is at most p/(1-p).
    norms = np.linspace(0, 1, 101)
    a = 0.5 + norms / 2
    dens = np.concatenate([2 * (a * p + (1 - a) * (1 - p)), 2 * (a * (1 - p) + (1 - a) * p)])
    assert dens.max() / dens.min() == pytest.approx(math.exp(alpha), rel=1e-12)
    assert dens.max() / dens.min() <= math.exp(alpha) * (1 + 1e-12)
    assert sides[1.0] == pytest.approx(p)


# ----------------------------------------------------------------------------------------------
# Theorem 2: the budget schedule, computed independently here
# ----------------------------------------------------------------------------------------------
def theorem2(deltas, epsilon, q, zeta):
    """Eq (16) written out with the math module, one coordinate at a time."""
    dt = [min(x, epsilon) for x in deltas]
    d = len(dt)
    if q == 0:
        return dt
    first = math.log((math.exp(zeta * dt[0]) + q - 1) / q)
    c_d = min(first, dt[d - 1])
    c = []
    for i in range(d - 1):
        if c_d <= dt[i]:
            c.append(c_d)
        else:
            c.append(dt[i] - math.log(1 + q * math.exp(c_d) - q))
    return [*c, c_d]


def test_budget_schedule_matches_theorem_2():
    rng = np.random.default_rng(7)
    for _ in range(300):
        d = int(rng.integers(1, 9))
        deltas = np.sort(rng.choice([0.05, 0.2, 0.5, 1.0, 2.0, 5.0, np.inf], size=d))
        epsilon = float(rng.choice([0.5, 1.0, 2.0, 4.0]))
        q = float(rng.choice([0.0, 1e-4, 0.01, 0.1, 0.5, 0.9, 0.999, 1.0]))
        zeta = float(rng.uniform(0.01, 1.0))
        c = budget_schedule(deltas, epsilon, q, zeta)
        np.testing.assert_allclose(c, theorem2(deltas, epsilon, q, zeta), rtol=1e-10, atol=1e-12)
        # The properties the proof needs: 0 <= c, non-decreasing, c_d <= epsilon, and the
        # Proposition 4 bound c_i + log(1 + q e^{c_d} - q) <= delta~_i where c_d > delta~_i.
        dt = np.minimum(deltas, epsilon)
        assert np.all(c >= 0) and np.all(np.diff(c) >= -1e-15) and c[-1] <= epsilon + 1e-15
        over = c[-1] > dt
        assert np.all(c[over] + np.log1p(q * np.expm1(c[-1])) <= dt[over] + 1e-12)


def test_budget_schedule_q0_default_zeta_and_corollary_1():
    deltas = np.array([0.3, 1.0, 5.0])
    np.testing.assert_array_equal(budget_schedule(deltas, 2.0, 0.0), [0.3, 1.0, 2.0])
    q = 0.4
    assert np.allclose(budget_schedule(deltas, 2.0, q), budget_schedule(deltas, 2.0, q, 0.7))
    # Corollary 1: delta_i = delta (i <= k), epsilon > 2 delta, zeta = 1/2.
    delta, eps, k, d = 0.4, 2.0, 2, 6
    deltas = np.array([delta] * k + [eps] * (d - k))
    q_star = math.expm1(delta / 2) / math.expm1(eps)
    for q in (0.3 * q_star, q_star):
        c = budget_schedule(deltas, eps, q, 0.5)
        assert np.allclose(c[k:], eps)
        assert np.allclose(c[:k], delta - math.log(1 + q * math.exp(eps) - q))
        assert delta / 2 - 1e-12 <= c[0] <= delta
    # Case 2 of the proof: c_d = log((e^{delta/2} + q - 1) / q) and c_1..c_k = delta / 2, but
    # only while c_d > delta, i.e. q < 1 / (1 + e^{delta/2}). Beyond that every c_i = c_d, which
    # lies in [delta/2, delta]: the corollary's delta/2 is then a lower bound, not the value.
    q_flat = 1 / (1 + math.exp(delta / 2))
    for q in (2 * q_star, 0.2, 0.9 * q_flat, 1.1 * q_flat, 0.8, 1.0):
        c = budget_schedule(deltas, eps, q, 0.5)
        c_d = math.log((math.exp(delta / 2) + q - 1) / q)
        assert np.allclose(c[k:], c_d) and delta / 2 - 1e-12 <= c_d < eps
        if q < q_flat:
            assert c_d > delta and np.allclose(c[:k], delta / 2)
        else:
            assert c_d <= delta and np.allclose(c, c_d)


# ----------------------------------------------------------------------------------------------
# Exact calculator: Examples 1 and 2, Proposition 3, Assumption 1
# ----------------------------------------------------------------------------------------------
def test_example_1_is_bcdp_but_not_ldp():
    prior, channel = paper_example_1(0.5, 0.5, 0.5)
    np.testing.assert_allclose(bcdp_deltas(prior, channel), [math.log(2), math.log(2)])
    assert ldp_epsilon(channel) == np.inf
    # Any a, b, c in (0, 1]: finite BCDP, still no LDP (output 1 is impossible at x = (0, 1)).
    for a, b, c in itertools.product((0.2, 0.7, 1.0), repeat=3):
        prior, channel = paper_example_1(a, b, c)
        # By hand: P(M=1 | x1=0) = a/2, P(M=1 | x1=1) = (b+c)/2, P(M=1 | x2=0) = (a+b)/2, ...
        p1 = {(1, 0): a / 2, (1, 1): (b + c) / 2, (2, 0): (a + b) / 2, (2, 1): c / 2}

        expect = []
        for i in (1, 2):
            s0, s1 = p1[(i, 0)], p1[(i, 1)]
            vals = [abs(math.log(s0 / s1))]
            if s0 < 1 and s1 < 1:
                vals.append(abs(math.log((1 - s0) / (1 - s1))))
            elif s0 != s1:
                vals.append(math.inf)
            expect.append(max(vals))
        np.testing.assert_allclose(bcdp_deltas(prior, channel), expect, rtol=1e-12)
        assert ldp_epsilon(channel) == np.inf


def test_example_2_composition_fails():
    prior, channel = paper_example_2()
    deltas = bcdp_deltas(prior, channel)
    assert deltas[0] == pytest.approx(0.0, abs=1e-12)
    twice = bcdp_deltas(prior, product_channel(channel, channel))
    assert twice[0] == np.inf
    # x2 and x3 are exposed half of the time: P(out_1 = x2 | x2) = 3/4 vs 1/4, ratio 3.
    np.testing.assert_allclose(deltas[1:], math.log(3))
    assert ldp_epsilon(channel) == np.inf


def test_ldp_channel_gives_at_most_epsilon_bcdp_on_any_prior():
    """Proposition 3, on randomized response per coordinate (eps_i each, eps = sum)."""
    rng = np.random.default_rng(3)
    eps_i = np.array([0.3, 0.8, 1.5])
    keep = np.exp(eps_i) / (1 + np.exp(eps_i))
    channel = np.ones((2, 2, 2, 1))
    for i in range(3):
        block = np.zeros((2, 2))  # block[x_i, y_i]
        block[np.arange(2), np.arange(2)] = keep[i]
        block[np.arange(2), 1 - np.arange(2)] = 1 - keep[i]
        shape = [1, 1, 1, 2]
        shape[i] = 2
        block = block.reshape(shape)
        channel = (channel[..., :, None] * block[..., None, :]).reshape(2, 2, 2, -1)
    assert ldp_epsilon(channel) == pytest.approx(eps_i.sum())
    for _ in range(20):
        prior = rng.dirichlet(np.ones(8)).reshape(2, 2, 2)
        assert np.all(bcdp_deltas(prior, channel) <= eps_i.sum() + 1e-12)
    # Independent coordinates (q = 0): BCDP is exactly the per-coordinate budget.
    prior = np.einsum("i,j,k->ijk", [0.3, 0.7], [0.5, 0.5], [0.9, 0.1])
    np.testing.assert_allclose(bcdp_deltas(prior, channel), eps_i, rtol=1e-12)
    np.testing.assert_allclose(correlation_tv(prior), 0.0, atol=1e-15)


@pytest.mark.parametrize("q", [0.0, 0.2, 0.7, 1.0])
def test_figure_3_prior_has_tv_q(q):
    prior = correlated_bernoulli_pmf(4, q)
    assert prior.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(correlation_tv(prior), q, atol=1e-12)
    X = sample_correlated_pm1(200_000, 4, q, np.random.default_rng(5))
    # Empirical P(all equal) vs q + (1 - q) 2^(1-d).
    p_eq = q + (1 - q) * 2.0 ** (1 - 4)
    freq = np.mean(np.all(X == X[:, :1], axis=1))
    assert abs(freq - p_eq) < 5 * math.sqrt(p_eq * (1 - p_eq) / len(X)) + 1e-12


# ----------------------------------------------------------------------------------------------
# Privacy of Mechanism 1 and Algorithm 2 through the exact finite channel
# ----------------------------------------------------------------------------------------------
def test_exact_channel_matches_the_sampler_in_dimension_2(rng):
    """In R^2 the four sign cells of (z.(1,1), z.(1,-1)) are quarter circles: the channel is
    the exact law of the cell the l2 mechanism lands in."""
    alpha, n = 0.9, 100_000
    channel = mean_mechanism_channel(np.array([alpha, alpha]))  # one block on (x1, x2)
    assert channel.shape == (2, 2, 4)
    patterns = list(itertools.product((1, -1), repeat=2))  # the library's order
    for i1, i2 in itertools.product((0, 1), repeat=2):
        x = np.array([2 * i1 - 1, 2 * i2 - 1], dtype=float)
        Z = l2_mechanism(np.tile(x, (n, 1)), alpha, math.sqrt(2), rng)
        t = np.stack([np.sign(Z @ [1, 1]), np.sign(Z @ [1, -1])], axis=1)
        for j, pat in enumerate(patterns):
            freq = np.mean(np.all(t == pat, axis=1))
            p = channel[i1, i2, j]
            assert abs(freq - p) < 5 * math.sqrt(p * (1 - p) / n)


def test_exact_channel_counts_sign_cells_and_composes_budgets():
    # 4 planes through 0 in general position in R^3 cut the sphere into 2*(1+3+3) = 14 cells.
    assert mean_mechanism_channel(np.full(3, 0.5)).shape == (2, 2, 2, 14)
    c = np.array([0.1, 0.4, 1.3])
    channel = mean_mechanism_channel(c)
    assert channel.shape[-1] == 14 * 4 * 2
    assert ldp_epsilon(channel) == pytest.approx(c[-1], rel=1e-12)  # composition, tight


@pytest.mark.parametrize("q", [0.0, 0.05, 0.3, 0.7, 0.95, 1.0])
def test_mechanism_1_and_algorithm_2_meet_their_bcdp_and_ldp_targets(q):
    deltas, eps = np.array([0.2, 0.5, 2.0]), 2.0
    prior = correlated_bernoulli_pmf(3, q)
    c = budget_schedule(deltas, eps, q)
    target = np.minimum(deltas, eps)
    channel = mean_mechanism_channel(c)
    assert np.all(bcdp_deltas(prior, channel) <= target + 1e-12)
    assert ldp_epsilon(channel) <= eps + 1e-12
    # Algorithm 2: two independent reports with c / 2 each.
    half = mean_mechanism_channel(c / 2)
    both = product_channel(half, half)
    assert np.all(bcdp_deltas(prior, both) <= target + 1e-12)
    assert ldp_epsilon(both) <= eps + 1e-12
    # The min(delta)-LDP baseline is delta-BCDP too (Proposition 3).
    base = mean_mechanism_channel(np.full(3, deltas.min()))
    assert np.all(bcdp_deltas(prior, base) <= target + 1e-12)


def test_theorem_2_holds_on_random_priors_and_naive_budgets_leak():
    rng = np.random.default_rng(11)
    for _ in range(40):
        prior = rng.dirichlet(np.full(8, rng.choice([0.3, 1.0, 5.0]))).reshape(2, 2, 2)
        q = correlation_tv(prior)[:-1].max()  # Assumption 1 (last coordinate exempt)
        deltas = np.sort(rng.choice([0.1, 0.3, 1.0, 2.0, np.inf], size=3))
        eps, zeta = float(rng.choice([0.5, 1.0, 3.0])), float(rng.uniform(0.05, 1.0))
        c = budget_schedule(deltas, eps, q, zeta)
        got = bcdp_deltas(prior, mean_mechanism_channel(c))
        assert np.all(got <= np.minimum(deltas, eps) + 1e-12)
    # Ignoring correlation (c = delta, i.e. Coordinate DP) breaks the sensitive coordinate.
    prior = correlated_bernoulli_pmf(3, 0.3)
    naive = bcdp_deltas(prior, mean_mechanism_channel(np.array([0.2, 0.5, 2.0])))
    assert naive[0] > 0.2 + 0.1


# ----------------------------------------------------------------------------------------------
# Closed-form MSE against Monte Carlo; mean_mechanism unbiased
# ----------------------------------------------------------------------------------------------
CONFIGS = [
    ("bcdp", np.array([0.3, 0.3, 1.0, 1.0, 1.0]), 1.0, 0.1, "paper"),
    ("bcdp", np.array([0.3, 0.6, 1.0, 1.5, 2.0]), 2.0, 0.02, "inverse_variance"),
    ("ldp", None, 0.5, None, "paper"),
    ("zero", np.array([0.0, 0.4, 0.4, 1.0, 1.0]), 1.0, 0.0, "paper"),
]


@pytest.mark.parametrize(("kind", "deltas", "eps", "q", "weights"), CONFIGS)
def test_closed_form_mse_matches_monte_carlo(kind, deltas, eps, q, weights):
    n, d, reps = 400, 5, 400
    X = sample_correlated_pm1(n, d, 0.3, np.random.default_rng(2))
    c = np.full(d, eps) if kind == "ldp" else budget_schedule(deltas, eps, q)
    closed = expected_mse_pm1(c, n, X.mean(axis=0), weights)
    mc = monte_carlo_mse(c, X, reps, weights=weights, random_state=4)
    reached = np.cumsum(c > 0) > 0
    assert np.all(np.abs(mc.mse - closed)[reached] < 5 * mc.stderr[reached])
    # Unreached coordinates are estimated by 0: the error is exactly xbar^2.
    np.testing.assert_allclose(mc.mse[~reached], closed[~reached], rtol=1e-12, atol=1e-15)
    if kind == "zero":
        assert not reached[0] and closed[0] == pytest.approx(X[:, 0].mean() ** 2)
    # Projection never hurts.
    proj = monte_carlo_mse(c, X, reps, project=True, weights=weights, random_state=4)
    assert np.all(proj.mse <= mc.mse + 1e-15)


def test_monte_carlo_mse_refuses_reps_beyond_the_budget():
    # reps = 10**9 raised numpy's MemoryError (29.8 GiB); the refusal names a reps that fits
    import re

    import ldpviz

    X = np.random.default_rng(0).uniform(-1, 1, (200, 4))
    with pytest.raises(ValueError, match=r"monte_carlo_mse with reps=1000000000 .*max_bytes"):
        monte_carlo_mse(np.ones(4), X, reps=10**9)
    with ldpviz.config_context(max_report_entries=2_000_000):
        with pytest.raises(ValueError, match=r"reps=10000 .* use reps <= (\d+)") as refused:
            monte_carlo_mse(np.ones(4), X, reps=10_000)
        fits = int(re.search(r"use reps <= (\d+)", str(refused.value)).group(1))
        assert monte_carlo_mse(np.ones(4), X, reps=fits).mse.shape == (4,)
        with pytest.raises(ValueError, match="reps"):
            monte_carlo_mse(np.ones(4), X, reps=fits + 1)


def test_mean_mechanism_reports_are_unbiased(rng):
    x = np.array([1.0, -1.0, 1.0, 1.0])
    c = budget_schedule(np.array([0.5, 0.5, 2.0, 2.0]), 2.0, 0.05)
    n = 100_000
    R = mean_mechanism(np.tile(x, (n, 1)), c, rng)
    se = np.sqrt(expected_mse_pm1(c, n))  # the per-coordinate sd of the average
    assert np.max(np.abs(R.mean(axis=0) - x) / se) < 5


def _record_l2_budgets(monkeypatch):
    """Log (alpha, r, block width) of every l2-ball release the samplers make."""
    from ldpviz.bcdp import mechanisms

    calls, real = [], mechanisms.l2_mechanism

    def logged(V, alpha, r, rng):
        calls.append((float(alpha), float(r), V.shape[1]))
        return real(V, alpha, r, rng)

    monkeypatch.setattr(mechanisms, "l2_mechanism", logged)
    return calls


def test_mechanism_1_sampler_spends_each_increment_once(monkeypatch, rng):
    # The exact privacy tests check mean_mechanism_channel, a model of the channel: here the
    # sampler itself must run block k on coordinates k..d with budget c_k - c_{k-1} (so that a
    # user's release is c_d-LDP by composition), the Monte Carlo runs use that sampler, and
    # BCDPMean and bcdp_ols spend c_d in all.
    deltas, eps, q = np.array([0.3, 0.5, 2.0, 2.0]), 2.0, 0.1
    c = budget_schedule(deltas, eps, q)
    assert len(np.unique(c)) > 1  # several blocks run
    X = rng.uniform(-1, 1, size=(500, 4))
    calls = _record_l2_budgets(monkeypatch)
    mean_mechanism(X, c, rng)
    alphas = [a for a, _, _ in calls]
    increments = np.diff(c, prepend=0.0)
    assert alphas == pytest.approx(list(increments[increments > 0]))
    assert sum(alphas) == pytest.approx(c[-1])
    for (_, r, width), k in zip(calls, np.flatnonzero(increments > 0), strict=True):
        assert width == 4 - k and r == pytest.approx(math.sqrt(4 - k))
    calls.clear()
    monte_carlo_mse(c, X, reps=3, random_state=0)  # the runs share the sampler: one chunk here
    assert [a for a, _, _ in calls] == alphas
    calls.clear()
    BCDPMean(deltas=deltas, epsilon=eps, q=q, random_state=0).fit(X)
    assert sum(a for a, _, _ in calls) == pytest.approx(c[-1])
    calls.clear()
    Z, y = X[:, :3] / 2, X[:, 3] / 2
    bcdp_ols(Z, y, eps, deltas, q, random_state=0)
    assert sum(a for a, _, _ in calls) == pytest.approx(c[-1])  # two reports with c / 2


# ----------------------------------------------------------------------------------------------
# The Figure 3 setting: where BCDP wins and where it loses to the LDP baseline
# ----------------------------------------------------------------------------------------------
def _fig3(q, reps, seed):
    n, d, eps = 10_000, 10, 2.0
    zeta = (1 + q) / 2  # the heuristic of Appendix B.3
    X = sample_correlated_pm1(n, d, q, np.random.default_rng(seed))
    c = budget_schedule(FIG3_DELTAS, eps, q, zeta)
    base = np.full(d, FIG3_DELTAS.min())
    closed = expected_mse_pm1(c, n), expected_mse_pm1(base, n)
    mc = (monte_carlo_mse(c, X, reps, project=True, random_state=seed + 1),
          monte_carlo_mse(base, X, reps, project=True, random_state=seed + 2))
    return closed, mc


def _gap(mc_a, mc_b, idx):
    """(mean MSE of a - mean MSE of b over coordinates idx, its standard error)."""
    diff = mc_a.mse[idx].mean() - mc_b.mse[idx].mean()
    se = math.sqrt(np.sum(mc_a.stderr[idx] ** 2) + np.sum(mc_b.stderr[idx] ** 2)) / len(idx)
    return diff, se


def test_figure_3_low_correlation_bcdp_wins_overall_but_not_on_sensitive_coordinates():
    """q = 0.01: total and non-sensitive error far below the min-delta LDP baseline.

    On the two sensitive coordinates BCDP cannot win: they are only in block 1, whose budget
    c_1 = delta_1 - log(1 + q e^{c_d} - q) <= delta_1 is the baseline's, on the same
    10-dimensional vector. At q = 0.01, c_1 = 0.138 < 0.2 and the error is ~2.1x the baseline's.
    """
    (bc, lc), (bm, lm) = _fig3(0.01, reps=200, seed=10)
    sens, rest = np.arange(2), np.arange(2, 10)
    c = budget_schedule(FIG3_DELTAS, 2.0, 0.01, 0.505)
    assert c[0] < 0.2
    assert bc.sum() < 0.5 * lc.sum()
    assert np.all(bc[rest] < 0.05 * lc[rest])
    assert np.all(bc[sens] > 1.5 * lc[sens])
    diff, se = _gap(bm, lm, sens)
    assert diff > 3 * se  # BCDP loses on the sensitive coordinates, measured
    diff, se = _gap(bm, lm, rest)
    assert diff < -3 * se
    assert bm.mse.sum() < lm.mse.sum()


def test_figure_3_near_full_correlation_bcdp_loses():
    """q = 0.99 (zeta = 0.995): c_1 = (1 - zeta) delta_1 = 0.001, so the sensitive coordinates
    are estimated from an almost budget-free block and lose badly to the baseline, even after
    projection; the others keep a small edge (alpha ~ 0.2 on 8 rather than 10 coordinates).
    At q = 1 exactly the schedule collapses to the baseline (c = zeta delta_1 = delta_1)."""
    (bc, lc), (bm, lm) = _fig3(0.99, reps=12, seed=20)
    sens, rest = np.arange(2), np.arange(2, 10)
    assert np.all(bc[sens] > 1000 * lc[sens])
    assert np.all(bc[rest] < lc[rest])
    diff, se = _gap(bm, lm, sens)
    assert diff > 3 * se
    assert bm.mse.sum() > lm.mse.sum()
    c1 = budget_schedule(FIG3_DELTAS, 2.0, 1.0, 1.0)
    np.testing.assert_allclose(c1, 0.2)
    np.testing.assert_allclose(expected_mse_pm1(c1, 10_000),
                               expected_mse_pm1(np.full(10, 0.2), 10_000))


# ----------------------------------------------------------------------------------------------
# Estimators
# ----------------------------------------------------------------------------------------------
def test_estimators_follow_sklearn_conventions_and_seed():
    X = sample_correlated_pm1(3000, 4, 0.1, np.random.default_rng(0))
    est = BCDPMean(epsilon=2.0, deltas=[0.5, 0.5, 2.0, 2.0], q=0.1, random_state=3)
    params = est.get_params()
    assert params["deltas"] == [0.5, 0.5, 2.0, 2.0] and params["zeta"] is None
    a = est.fit(X).mean_
    b = clone(est).fit(X).mean_
    np.testing.assert_array_equal(a, b)
    assert np.all(np.abs(a) <= 1)
    assert est.n_features_in_ == 4
    np.testing.assert_allclose(est.c_, budget_schedule([0.5, 0.5, 2.0, 2.0], 2.0, 0.1))
    raw = BCDPMean(2.0, [0.5, 0.5, 2.0, 2.0], 0.1, project=False, random_state=3).fit(X).mean_
    np.testing.assert_array_equal(np.clip(raw, -1, 1), a)
    np.testing.assert_array_equal(
        raw, mean_mechanism(X, est.c_, np.random.default_rng(3)).mean(axis=0))
    # With no coordinate demand and q = 0 BCDP is one block: exactly the LDP baseline.
    bc = BCDPMean(1.0, [np.inf] * 4, 0.0, random_state=9).fit(X).mean_
    np.testing.assert_array_equal(bc, LDPMean(1.0, random_state=9).fit(X).mean_)


def test_ldp_mean_is_unbiased():
    n, d, eps = 20_000, 3, 1.0
    X = sample_correlated_pm1(n, d, 0.5, np.random.default_rng(1))
    est = [LDPMean(eps, project=False, random_state=s).fit(X).mean_ for s in range(40)]
    sd = np.sqrt(expected_mse_pm1(np.full(d, eps), n))
    z = (np.mean(est, axis=0) - X.mean(axis=0)) / (sd / math.sqrt(40))
    assert np.max(np.abs(z)) < 5


# ----------------------------------------------------------------------------------------------
# Algorithm 2 (least squares)
# ----------------------------------------------------------------------------------------------
def test_trust_region_solver_is_globally_optimal():
    from ldpviz.bcdp.estimators import _trust_region

    rng = np.random.default_rng(8)
    for trial in range(30):
        m = 3
        A = rng.normal(size=(m, m))
        H = (A + A.T) / 2
        if trial % 3 == 0:
            H = H @ H.T + 0.1 * np.eye(m)  # convex
        b = rng.normal(size=m)
        radius = float(rng.choice([0.3, 1.0, 5.0]))
        theta, _ = _trust_region(H, b, radius)

        def f(t, H=H, b=b):
            return 0.5 * t @ H @ t - b @ t

        norm = np.linalg.norm(theta)
        assert norm <= radius * (1 + 1e-9)
        # Certificate of global optimality: (H + mu I) theta = b, mu >= 0, H + mu I >= 0, and
        # mu = 0 unless theta is on the sphere.
        mu = theta @ (b - H @ theta) / norm**2
        assert np.linalg.norm(H @ theta + mu * theta - b) < 1e-8 * (1 + np.linalg.norm(b))
        assert mu >= -1e-9 and np.linalg.eigvalsh(H)[0] + mu >= -1e-9
        assert abs(mu) < 1e-9 or abs(norm - radius) < 1e-9 * radius
        # And nothing found by local searches (pulled back into the ball) or sampling beats it.
        cons = {"type": "ineq", "fun": lambda t, radius=radius: radius**2 - t @ t}
        starts = rng.normal(size=(10, m)) * radius / 3
        local = [minimize(f, x0, constraints=[cons], method="SLSQP").x for x0 in starts]
        best = min(f(x * min(1.0, radius / np.linalg.norm(x))) for x in local)
        pts = rng.normal(size=(5000, m))
        pts *= radius * rng.random((5000, 1)) ** (1 / m) / np.linalg.norm(pts, axis=1)[:, None]
        vals = 0.5 * np.einsum("ij,jk,ik->i", pts, H, pts) - pts @ b
        assert f(theta) <= min(best, vals.min()) + 1e-10
        if trial % 3 == 0 and np.linalg.norm(np.linalg.solve(H, b)) < radius:
            np.testing.assert_allclose(theta, np.linalg.solve(H, b), atol=1e-10)


def test_algorithm_2_objective_is_unbiased(rng):
    """E[z^(1) z^(2)T] = z z^T and E[l^(1) z^(2)] = l z: independent reports, c / 2 each."""
    n = 100_000
    Z = np.where(rng.random((n, 2)) < 0.5, 1.0, -1.0)
    y = np.clip(0.5 * Z[:, 0] - 0.3 * Z[:, 1] + 0.2 * rng.normal(size=n), -1, 1)
    X = np.column_stack([Z, y])
    c = budget_schedule(np.array([1.0, 2.0, 4.0]), 4.0, 0.0) / 2
    R1, R2 = mean_mechanism(X, c, rng), mean_mechanism(X, c, rng)
    terms = np.concatenate([np.einsum("ni,nj->nij", R1[:, :2], R2[:, :2]).reshape(n, -1)
                            - np.einsum("ni,nj->nij", Z, Z).reshape(n, -1),
                            R1[:, 2:] * R2[:, :2] - y[:, None] * Z], axis=1)
    z = terms.mean(axis=0) / (terms.std(axis=0, ddof=1) / math.sqrt(n))
    assert np.max(np.abs(z)) < 5


def _ols_standard_errors(Z, y, c, theta, rng):
    """Delta-method standard errors of the private minimiser: sd of the per-user gradient noise
    at theta, through the (population) Hessian Z^T Z / n, from an independent run."""
    X = np.column_stack([Z, y])
    R1, R2 = mean_mechanism(X, c / 2, rng), mean_mechanism(X, c / 2, rng)
    grads = (R1[:, :-1] * (R2[:, :-1] @ theta)[:, None]
             + R2[:, :-1] * (R1[:, :-1] @ theta)[:, None]) / 2 - R1[:, -1:] * R2[:, :-1]
    Hinv = np.linalg.inv(Z.T @ Z / len(Z))
    cov = Hinv @ np.cov(grads.T) @ Hinv
    return np.sqrt(np.diag(cov) / len(Z))


def test_bcdp_and_ldp_ols_recover_least_squares():
    rng = np.random.default_rng(12)
    n = 40_000
    Z = np.where(rng.random((n, 2)) < 0.5, 1.0, -1.0)
    y = np.clip(0.5 * Z[:, 0] - 0.3 * Z[:, 1] + 0.2 * rng.normal(size=n), -1, 1)
    theta_ols = np.linalg.lstsq(Z, y, rcond=None)[0]
    deltas = np.array([1.0, 2.0, 4.0])
    res = bcdp_ols(Z, y, 4.0, deltas, 0.0, radius=1.0, random_state=5)
    assert not res.on_boundary and res.min_eigenvalue > 0
    se = _ols_standard_errors(Z, y, res.c, theta_ols, rng)
    assert np.all(np.abs(res.coef - theta_ols) < 5 * se)
    base = ldp_ols(Z, y, 1.0, radius=1.0, random_state=6)
    se_b = _ols_standard_errors(Z, y, np.full(3, 1.0), theta_ols, rng)
    assert np.all(np.abs(base.coef - theta_ols) < 5 * se_b)
    # Small n: the symmetrised quadratic can be indefinite; the answer stays in the ball.
    small = [bcdp_ols(Z[:30], y[:30], 0.5, [0.2, 0.3, 0.5], 0.2, radius=2.0, random_state=s)
             for s in range(10)]
    assert all(np.linalg.norm(r.coef) <= 2.0 + 1e-9 for r in small)
    assert any(r.min_eigenvalue < 0 and r.on_boundary for r in small)


# ----------------------------------------------------------------------------------------------
# Explorer and the attack
# ----------------------------------------------------------------------------------------------
def test_explorer_data_is_consistent_and_fast():
    out = bcdp_explorer_data()
    d = 10
    for key in ("deltas", "c", "increments", "mse_bcdp_closed", "mse_bcdp_mc", "mse_bcdp_mc_se",
                "mse_bcdp_mc_projected", "mse_ldp_closed", "mse_ldp_mc", "mse_ldp_mc_se",
                "mse_ldp_mc_projected"):
        assert out[key].shape == (d,)
    np.testing.assert_allclose(out["c"], budget_schedule(FIG3_DELTAS, 2.0, 0.01))
    assert out["baseline_alpha"] == 0.2
    again = bcdp_explorer_data()
    for key, value in out.items():
        np.testing.assert_array_equal(value, again[key])
    k0 = bcdp_explorer_data(k=0, q=0.5)
    np.testing.assert_allclose(k0["c"], 2.0)
    np.testing.assert_allclose(k0["mse_bcdp_closed"], k0["mse_ldp_closed"])
    times = []
    for _ in range(5):
        start = time.perf_counter()
        bcdp_explorer_data()
        times.append(time.perf_counter() - start)
    assert min(times) < 0.1


@pytest.mark.parametrize("rho", [0.0, 0.6, -0.9])
def test_correlated_feature_attack(rho):
    n, eps = 40_000, 1.0
    out = correlated_feature_attack(n, rho, eps, random_state=1)
    keep = math.exp(eps) / (1 + math.exp(eps))
    expect_public = (1 + abs(rho)) / 2
    assert out["public_exact"] == pytest.approx(expect_public)
    assert out["release_exact"] == pytest.approx(keep)
    assert out["both_exact"] == pytest.approx(max(expect_public, keep))
    for key in ("public", "release", "both"):
        p = out[f"{key}_exact"]
        assert abs(out[key] - p) < 5 * math.sqrt(p * (1 - p) / n)
    assert abs(out["baseline"] - 0.5) < 5 * math.sqrt(0.25 / n) + 0.5 / n
    assert out["delta_private"] == pytest.approx(eps + math.log((1 + abs(rho)) / (1 - abs(rho))))
    assert correlated_feature_attack(100, 1.0, eps, random_state=0)["delta_private"] == np.inf


# ----------------------------------------------------------------------------------------------
# Bad inputs
# ----------------------------------------------------------------------------------------------
X4 = np.ones((5, 4))


@pytest.mark.parametrize(("call", "name"), [
    (lambda: l2_mechanism(np.ones((3, 2)), -1.0, 2.0, 0), "alpha"),
    (lambda: l2_mechanism(np.ones((3, 2)), 1.0, 0.0, 0), "r"),
    (lambda: l2_mechanism(np.ones((3, 2)), 1.0, 1.0, 0), "V"),
    (lambda: l2_mechanism(np.array([[np.nan, 0.0]]), 1.0, 1.0, 0), "V"),
    (lambda: budget_schedule([0.2, 1.0], -1.0, 0.1), "epsilon"),
    (lambda: budget_schedule([0.2, 1.0], np.inf, 0.1), "epsilon"),
    (lambda: budget_schedule([0.2, 1.0], 1.0, 1.5), "q"),
    (lambda: budget_schedule([0.2, 1.0], 1.0, -0.1), "q"),
    (lambda: budget_schedule([0.2, 1.0], 1.0, 0.1, 0.0), "zeta"),
    (lambda: budget_schedule([0.2, 1.0], 1.0, 0.1, 1.2), "zeta"),
    (lambda: budget_schedule([1.0, 0.2], 1.0, 0.1), "deltas"),
    (lambda: budget_schedule([-0.2, 1.0], 1.0, 0.1), "deltas"),
    (lambda: budget_schedule([], 1.0, 0.1), "deltas"),
    (lambda: budget_schedule(["0.2", "1.0"], 1.0, 0.1), "deltas"),  # was parsed
    (lambda: mean_mechanism(X4, ["0.5", "0.5", "1", "1"], 0), "c"),  # was parsed
    (lambda: BCDPMean(1.0, [0.2, 1.0], 0.1).fit(X4), "deltas"),
    (lambda: BCDPMean(1.0, None, 0.1).fit(X4), "deltas"),
    (lambda: BCDPMean(-1.0, [0.2] * 4, 0.1).fit(X4), "epsilon"),
    (lambda: BCDPMean(1.0, [0.2] * 4, 2.0).fit(X4), "q"),
    (lambda: BCDPMean(1.0, [0.2] * 4, 0.1, weights="bogus").fit(X4), "weights"),
    (lambda: BCDPMean(1.0, [0.2] * 4, 0.1).fit(2 * X4), "X"),
    (lambda: LDPMean(0.0).fit(X4), "epsilon"),
    (lambda: LDPMean(1.0).fit(np.ones(4)), "X"),
    (lambda: mean_mechanism(X4, [0.5, 0.2, 1.0, 1.0], 0), "c"),
    (lambda: mean_mechanism(X4, [0.5, 1.0], 0), "c"),
    (lambda: expected_mse_pm1([0.5, 1.0], 0), "n"),
    (lambda: expected_mse_pm1([0.5, 1.0], 10, xbar=[0.0]), "xbar"),
    (lambda: monte_carlo_mse([0.5] * 4, X4, reps=1), "reps"),
    (lambda: bcdp_deltas(np.full((2, 2), 0.3), np.full((2, 2, 2), 0.5)), "prior"),
    (lambda: bcdp_deltas(np.full((2, 2), 0.25), np.full((2, 3, 2), 0.5)), "channel"),
    (lambda: bcdp_deltas(np.full((2, 2), 0.25), np.full((2, 2, 2), 0.4)), "channel"),
    (lambda: ldp_epsilon(np.array([0.5, 0.5])), "channel"),
    (lambda: product_channel(), "channels"),
    (lambda: product_channel(np.full((2, 2), 0.5), np.full((3, 2), 0.5)), "channels"),
    (lambda: mean_mechanism_channel(np.full(5, 0.5)), "c"),
    (lambda: correlated_bernoulli_pmf(3, 1.1), "q"),
    (lambda: paper_example_1(a=0.0), "a"),
    (lambda: sample_correlated_pm1(0, 3, 0.1, 0), "n"),
    (lambda: bcdp_ols(np.ones((4, 2)), np.ones(4), 1.0, [0.2, 1.0], 0.1), "deltas"),
    (lambda: bcdp_ols(np.ones((4, 2)), 2 * np.ones(4), 1.0, [0.2, 1.0, 1.0], 0.1), "y"),
    (lambda: bcdp_ols(np.ones((4, 2)), np.ones(4), 1.0, [0.2, 1.0, 1.0], 0.1, radius=0),
     "radius"),
    (lambda: ldp_ols(np.ones((4, 2)) * 3, np.ones(4), 1.0), "Z"),
    (lambda: bcdp_explorer_data(k=11), "k"),
    (lambda: bcdp_explorer_data(q=-0.5), "q"),
    (lambda: bcdp_explorer_data(delta=-1.0), "delta"),
    (lambda: bcdp_explorer_data(reps=1), "reps"),
    (lambda: correlated_feature_attack(100, 1.5), "correlation"),
])
def test_bad_inputs_raise_value_error_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_sweep_q_matches_the_explorer_data_and_the_attack_table_its_function():
    from ldpviz.bcdp import attack_table, bcdp_explorer_data, correlated_feature_attack, sweep_q

    table = sweep_q([0.01, 0.5], n=1000, reps=3, random_state=2)
    out = bcdp_explorer_data(q=0.5, n=1000, reps=3, random_state=2)
    assert table.loc[0.5, "bcdp_total"] == pytest.approx(out["mse_bcdp_closed"].sum())
    assert table.loc[0.5, "ldp_sensitive"] == pytest.approx(out["mse_ldp_closed"][:2].sum())
    attack = attack_table([0.3], n=500, epsilon=1.0, random_state=1)
    assert attack.loc[0.3, "both"] == correlated_feature_attack(500, 0.3, 1.0, 1)["both"]


@pytest.mark.parametrize("value", ["x", "False", None, 1, 0.0])
def test_project_takes_true_or_false_only(value):
    """project="x" was read by its truthiness: now a TypeError naming it."""
    for call in (lambda: BCDPMean(1.0, [0.2] * 4, 0.1, project=value).fit(X4),
                 lambda: LDPMean(1.0, project=value).fit(X4),
                 lambda: monte_carlo_mse([0.5] * 4, X4, reps=2, project=value)):
        with pytest.raises(TypeError, match=r"^project must be True or False, got "):
            call()
    BCDPMean(1.0, [0.2] * 4, 0.1, project=np.bool_(False)).fit(X4)


def test_mask_attack_counts_the_decision_to_hide():
    from ldpviz.bcdp import mask_attack

    # Nobody publishes S (everyone hides): the mask says nothing, the report says epsilon.
    everyone = mask_attack(1.0, 1.0, prevalence=0.3, epsilon=0.7)
    assert everyone["delta_mask"] == 0 and everyone["delta_all"] == pytest.approx(0.7)
    assert everyone["delta_hiders"] == pytest.approx(0.7)
    assert everyone["accuracy_all"] == pytest.approx(0.7)  # the majority guess: prevalence
    # Hiding depends on S: log(h1 / h0) from W alone, plus what the report says, and S in the
    # clear for the users who do not hide.
    out = mask_attack(0.6, 0.2, prevalence=0.5, epsilon=0.5)
    assert out["hide_share"] == pytest.approx(0.4)
    assert out["delta_mask"] == pytest.approx(math.log(3))
    assert out["delta_hiders"] == pytest.approx(math.log(3) + 0.5)
    assert np.isinf(out["delta_all"])
    keep = 1 / (1 + math.exp(-0.5))
    hiders = max(0.1 * keep, 0.3 * (1 - keep)) + max(0.1 * (1 - keep), 0.3 * keep)
    assert out["accuracy_hiders"] == pytest.approx(hiders / 0.4)
    assert out["accuracy_all"] == pytest.approx(0.6 + hiders)


def test_published_column_attack_reads_two_columns_as_bits():
    from ldpviz.bcdp import correlated_feature_attack, published_column_attack

    rng = np.random.default_rng(3)
    protected = rng.random(2000)
    published = -protected + 0.3 * rng.random(2000)  # strongly, negatively correlated
    out = published_column_attack(protected, published, epsilon=1.0)
    assert out["r_columns"] < -0.9 and out["r_bits"] < 0
    assert out["share_right"] == pytest.approx((1 + abs(out["r_bits"])) / 2, abs=0.01)
    model = correlated_feature_attack(10, abs(out["r_bits"]), 1.0, 0)
    assert out["delta_private"] == pytest.approx(model["delta_private"])
    with pytest.raises(ValueError, match="published"):
        published_column_attack(protected, published[:-1])
    with pytest.raises(ValueError, match="median"):
        published_column_attack(np.ones(5), np.arange(5.0))


def test_exact_crossing_is_where_the_exact_totals_cross():
    from ldpviz.bcdp import budget_schedule, exact_crossing

    qs = np.linspace(0, 0.3, 31)
    q = exact_crossing(qs)
    demands = np.array([0.2] * 2 + [2.0] * 8)
    baseline = expected_mse_pm1(np.full(10, 0.2), 10_000).sum()

    def total(q):
        return expected_mse_pm1(budget_schedule(demands, 2.0, q), 10_000).sum()
    assert total(q) > baseline >= total(q - 0.01)
    assert np.isnan(exact_crossing([0.0]))  # q = 0: BCDP wins
    with pytest.raises(ValueError, match="qs"):
        exact_crossing([])
