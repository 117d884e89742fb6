"""Frequency oracles (Wang, Blocki, Li, Jha, USENIX Security 2017): exact privacy of each
randomizer, empirical audits, the budget, unbiasedness and the variance formulas, the resource
guards, and the course's view and figure."""

import itertools

import numpy as np
import pytest

import ldpviz
from ldpviz import _olh_hash
from ldpviz import frequency_oracles as fo
from ldpviz._index import bincount  # numpy's on every platform (int64 data on wasm32)
from ldpviz.frequency_oracles import (
    ORACLES,
    best_oracle,
    estimate_frequencies,
    estimate_grr,
    estimate_olh,
    estimate_unary,
    grr_reports,
    olh_hash_range,
    olh_reports,
    oracle_probabilities,
    oracle_variance,
    unary_reports,
)
from ldpviz.mechanisms import binary_rr, debias_binary_rr, debias_grr

EPSILONS = [0.1, 0.5, 1.0, 2.0, 4.0, 8.0]


def _skewed_values(n, k, seed=0):
    """A fixed population: a third hold value 1, the rest uniform (some values rare)."""
    values = np.random.default_rng(seed).integers(0, k, n)
    values[: n // 3] = 1
    return values


# ---------------------------------------------------------------------------------------------
# Exact likelihood ratios: every output of every randomizer, worst case = epsilon exactly
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("k", [2, 5, 40])
def test_grr_exact_probabilities_and_ratio(epsilon, k):
    p, q = oracle_probabilities("grr", k, epsilon)
    assert p + (k - 1) * q == pytest.approx(1.0)
    assert p == pytest.approx(np.exp(epsilon) / (np.exp(epsilon) + k - 1))
    assert np.log(p / q) == pytest.approx(epsilon, rel=1e-12)


def _unary_output_probs(k, epsilon, optimized):
    """probs[x, o]: probability that a user holding x sends the bit vector with code o."""
    p, q = oracle_probabilities("oue" if optimized else "sue", k, epsilon)
    outputs = np.array(list(itertools.product([0, 1], repeat=k)), dtype=bool)
    codes = outputs @ (1 << np.arange(k))
    probs = np.empty((k, len(outputs)))
    for x in range(k):
        prob_one = np.where(np.arange(k) == x, p, q)
        probs[x, codes] = np.prod(np.where(outputs, prob_one, 1 - prob_one), axis=1)
    return probs


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("optimized", [True, False])
def test_unary_exact_ratio_is_epsilon(epsilon, optimized):
    probs = _unary_output_probs(4, epsilon, optimized)
    assert np.allclose(probs.sum(1), 1)
    worst = np.max(np.log(probs[:, None, :] / probs[None, :, :]))
    assert worst <= epsilon * (1 + 1e-12)
    assert worst == pytest.approx(epsilon, rel=1e-9)  # attained: the bound is tight


@pytest.fixture
def small_prime(monkeypatch):
    """OLH's hash family over the prime 13: small enough to enumerate every (a, b)."""
    monkeypatch.setattr(_olh_hash, "PRIME", 13)
    return 13


def _olh_output_probs(k, epsilon, prime):
    """probs[x, (a, b, y)] of OLH over every hash of the family, by enumeration."""
    g = olh_hash_range(epsilon)
    a, b = (m.ravel() for m in np.meshgrid(np.arange(1, prime), np.arange(prime),
                                           indexing="ij"))
    p_keep = np.exp(epsilon) / (np.exp(epsilon) + g - 1)
    probs = []
    for x in range(k):
        hashed = _olh_hash.hash_values(np.full(len(a), x), a, b, g)
        grr = np.where(hashed[:, None] == np.arange(g)[None, :], p_keep, (1 - p_keep) / (g - 1))
        probs.append((grr / len(a)).ravel())
    return np.array(probs), a, b, g


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_olh_exact_ratio_and_support_probabilities(small_prime, epsilon):
    """Every output (a, b, y) of the whole hash family: the log-ratio is at most epsilon and
    reached; the probabilities that a report supports x and another value are the p*, q* of
    oracle_probabilities (whose q* uses the family's exact collision probability)."""
    k = 6
    probs, a, b, g = _olh_output_probs(k, epsilon, small_prime)
    assert np.allclose(probs.sum(1), 1)
    worst = np.max(np.log(probs[:, None, :] / probs[None, :, :]))
    assert worst <= epsilon * (1 + 1e-12) and worst == pytest.approx(epsilon, rel=1e-9)
    p_star, q_star = oracle_probabilities("olh", k, epsilon)
    y = np.tile(np.arange(g), len(a))
    for v in range(k):
        supports = np.repeat(_olh_hash.hash_values(np.full(len(a), v), a, b, g), g) == y
        for x in range(k):
            assert probs[x, supports].sum() == pytest.approx(p_star if x == v else q_star,
                                                             rel=1e-12)


# ---------------------------------------------------------------------------------------------
# Empirical audits: the randomizers draw what the exact probabilities say
# ---------------------------------------------------------------------------------------------
def _audit(freqs, expect, n, epsilon):
    """Each input's output frequencies match the exact ones (5 SE), and the log-ratio between
    the two inputs stays under epsilon (5 SE) where both are well sampled."""
    for freq, exp in zip(freqs, expect, strict=True):
        assert np.all(np.abs(freq - exp) < 5 * np.sqrt(exp * (1 - exp) / n) + 1e-12)
    keep = (freqs[0] * n > 500) & (freqs[1] * n > 500)
    log_ratio = np.abs(np.log(freqs[0][keep] / freqs[1][keep]))
    se = np.sqrt(1 / (freqs[0][keep] * n) + 1 / (freqs[1][keep] * n))
    assert np.all(log_ratio <= epsilon + 5 * se)
    assert log_ratio.max() > 0.7 * epsilon  # the bound is nearly reached, not vacuous


def test_grr_reports_empirical_frequencies(rng):
    epsilon, k, n = 1.5, 5, 300_000
    p, q = oracle_probabilities("grr", k, epsilon)
    freqs = [np.bincount(grr_reports(np.full(n, x), k, epsilon, rng), minlength=k) / n
             for x in (0, 3)]
    expect = [np.where(np.arange(k) == x, p, q) for x in (0, 3)]
    _audit(freqs, expect, n, epsilon)


@pytest.mark.parametrize("optimized", [True, False])
def test_unary_reports_empirical_frequencies(rng, optimized):
    epsilon, k, n = 2.0, 3, 200_000
    probs = _unary_output_probs(k, epsilon, optimized)
    freqs = []
    for x in (0, 2):
        bits = unary_reports(np.full(n, x), k, epsilon, rng, optimized=optimized)
        freqs.append(np.bincount(bits @ (1 << np.arange(k)), minlength=2**k) / n)
    _audit(freqs, probs[[0, 2]], n, epsilon)


def test_olh_reports_empirical_frequencies(small_prime, rng):
    epsilon, k, n = 1.0, 6, 400_000
    probs, a, _, g = _olh_output_probs(k, epsilon, small_prime)
    freqs = []
    for x in (0, 4):
        rep = olh_reports(np.full(n, x), k, epsilon, rng)
        code = ((rep.a - 1) * small_prime + rep.b) * g + rep.value
        freqs.append(bincount(code, minlength=len(a) * g) / n)
    _audit(freqs, probs[[0, 4]], n, epsilon)


def test_olh_reports_support_rates_with_the_real_prime(rng):
    epsilon, k, n = 1.0, 8, 200_000
    rep = olh_reports(np.full(n, 3), k, epsilon, rng)
    p, q = oracle_probabilities("olh", k, epsilon)
    assert rep.g == olh_hash_range(epsilon) == 4
    assert np.all((rep.a >= 1) & (rep.a < _olh_hash.PRIME) & (rep.b < _olh_hash.PRIME))
    for v in range(k):
        rate = np.mean(_olh_hash.hash_values(np.full(n, v), rep.a, rep.b, rep.g) == rep.value)
        expect = p if v == 3 else q
        assert abs(rate - expect) < 5 * np.sqrt(expect * (1 - expect) / n)


# ---------------------------------------------------------------------------------------------
# The budget: what each user spends adds up to epsilon
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("epsilon", [*EPSILONS, 30.0])
def test_budget_adds_up_to_epsilon(epsilon):
    """GRR and OLH spend it all on one categorical draw (OLH's hash is drawn independently of
    the value and costs nothing); unary encoding splits it over the two bits a change of
    value moves: SUE eps/2 + eps/2, OUE 0 + eps."""
    p, q = oracle_probabilities("grr", 7, epsilon)
    assert np.log(p / q) == pytest.approx(epsilon, rel=1e-12)
    g = olh_hash_range(epsilon)
    p_g, q_g, _ = fo._constants("grr", g, epsilon)  # the GRR over g buckets inside OLH
    assert np.log(p_g / q_g) == pytest.approx(epsilon, rel=1e-12)
    assert oracle_probabilities("olh", 7, epsilon)[0] == pytest.approx(p_g, rel=1e-12)
    for oracle, own_bit in (("sue", epsilon / 2), ("oue", 0.0)):
        p, q = oracle_probabilities(oracle, 7, epsilon)
        spent_own, spent_other = np.log(p / (1 - p)), np.log((1 - q) / q)
        # (1 - p and 1 - q lose digits at large epsilon: relative 1e-9)
        assert spent_own == pytest.approx(own_bit, rel=1e-9, abs=1e-12)
        assert spent_own + spent_other == pytest.approx(epsilon, rel=1e-9)


def test_per_user_budgets_each_spend_their_own(small_prime):
    """With per-user budgets, user i's exact worst-case ratio is e^{epsilon_i}."""
    for epsilon in (0.5, 2.0):
        probs, *_ = _olh_output_probs(4, epsilon, small_prime)
        assert np.max(np.log(probs[:, None] / probs[None])) == pytest.approx(epsilon)
    eps = np.array([0.5, 2.0, 4.0])
    p, q = oracle_probabilities("grr", 5, eps)
    assert np.allclose(np.log(p / q), eps, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# Unbiasedness and Wang et al.'s variance, in repeated simulations with fixed seeds
# ---------------------------------------------------------------------------------------------
def _check_mean_and_variance(draws, truth, variance):
    """Mean within 5 standard errors of the truth; sample variance within 5 standard errors of
    the theoretical one (the ratio s^2 / Var has sd sqrt(2 / (R - 1)) for near-normal draws,
    which sums of thousands of independent reports are)."""
    reps = len(draws)
    assert np.all(np.abs(draws.mean(0) - truth) < 5 * np.sqrt(variance / reps))
    ratio = draws.var(0, ddof=1) / variance
    assert np.all(np.abs(ratio - 1) < 5 * np.sqrt(2 / (reps - 1))), ratio


@pytest.mark.parametrize("oracle", ORACLES)
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_estimates_are_unbiased_with_wang_et_al_variance(oracle, epsilon):
    n, k, reps = 3000, 6, 1200
    values = _skewed_values(n, k)
    truth = bincount(values, minlength=k)
    rng = np.random.default_rng(7)
    draws = np.array([estimate_frequencies(values, k, epsilon, oracle, rng).estimate
                      for _ in range(reps)])
    _check_mean_and_variance(draws, truth, oracle_variance(oracle, n, k, epsilon, truth / n))


@pytest.mark.parametrize("optimized", [True, False])
def test_per_user_unary_reports_are_unbiased_with_the_same_variance(optimized):
    """The bits themselves (not the binomial column sums estimate_frequencies draws)."""
    n, k, reps, epsilon = 1000, 5, 400, 1.0
    oracle = "oue" if optimized else "sue"
    values = _skewed_values(n, k)
    truth = bincount(values, minlength=k)
    rng = np.random.default_rng(3)
    draws = np.array([estimate_unary(unary_reports(values, k, epsilon, rng, optimized),
                                     epsilon, optimized).estimate for _ in range(reps)])
    _check_mean_and_variance(draws, truth, oracle_variance(oracle, n, k, epsilon, truth / n))


@pytest.mark.parametrize("oracle", ORACLES)
def test_per_user_budgets_are_unbiased_with_the_summed_variance(oracle):
    """Each report debiased with its own budget; the variance is the sum over users of
    ``w_i^2 p_i (1 - p_i)`` (holders of v) or ``w_i^2 q_i (1 - q_i)``, w_i = 1 / (p_i - q_i)."""
    n, k, reps = 3000, 6, 1000
    values = _skewed_values(n, k, seed=1)
    eps = np.where(np.arange(n) % 3 == 0, 0.5, 3.0)
    eps[np.arange(n) % 7 == 0] = np.inf  # a few users with no privacy
    truth = bincount(values, minlength=k)
    p, q = (np.asarray(a) for a in oracle_probabilities(oracle, k, eps))
    holds = values[:, None] == np.arange(k)[None, :]
    variance = (np.where(holds, (p * (1 - p))[:, None], (q * (1 - q))[:, None])
                / ((p - q) ** 2)[:, None]).sum(0)
    rng = np.random.default_rng(11)
    draws = np.array([estimate_frequencies(values, k, eps, oracle, rng).estimate
                      for _ in range(reps)])
    _check_mean_and_variance(draws, truth, variance)


@pytest.mark.parametrize("oracle", ORACLES)
def test_reported_variance_is_the_formula_at_the_estimate(oracle):
    n, k, eps = 200_000, 8, 1.0
    values = _skewed_values(n, k)
    est = estimate_frequencies(values, k, eps, oracle, rng=0)
    share = estimate_frequencies(values, k, eps, oracle, rng=0, share=True)
    assert np.allclose(est.variance, oracle_variance(oracle, n, k, eps,
                                                     np.clip(est.estimate / n, 0, 1)))
    assert np.allclose(share.estimate, est.estimate / n)
    assert np.allclose(share.std, est.std / n)
    exact = oracle_variance(oracle, n, k, eps, bincount(values, minlength=k) / n)
    assert np.allclose(est.variance, exact, rtol=0.05)  # the plug-in is close at this n


def test_theoretical_variances_are_wang_et_al_closed_forms():
    n, eps = 10_000, np.array([0.5, 1.0, 2.0, 4.0])
    e = np.exp(eps)
    for k in (2, 16, 1024):
        assert np.allclose(oracle_variance("grr", n, k, eps), n * (k - 2 + e) / (e - 1) ** 2)
    assert np.allclose(oracle_variance("sue", n, 16, eps),
                       n * np.exp(eps / 2) / (np.exp(eps / 2) - 1) ** 2)
    assert np.allclose(oracle_variance("oue", n, 16, eps), n * 4 * e / (e - 1) ** 2)
    g = olh_hash_range(eps)  # q* = 1 / g up to the hash family's exact collisions
    assert np.allclose(oracle_variance("olh", n, 16, eps),
                       n * (e - 1 + g) ** 2 / ((e - 1) ** 2 * (g - 1)), rtol=1e-6)


def test_best_oracle_switches_at_three_e_eps_plus_two():
    for eps in (0.5, 1.0, 2.0, 4.0):
        cross = 3 * np.exp(eps) + 2
        assert best_oracle(int(np.floor(cross - 0.5)), eps) == "grr"
        assert best_oracle(int(np.ceil(cross + 0.5)), eps) == "oue"
    assert list(best_oracle(np.array([2, 1024]), 1.0)) == ["grr", "oue"]
    eps, k = np.meshgrid([0.5, 1.0, 2.0], [2, 16, 1024])  # a (k, epsilon) grid for a map
    grid = best_oracle(k, eps)
    assert grid.shape == (3, 3) and grid[1, 2] == "grr" and grid[1, 1] == "oue"
    assert oracle_variance("grr", 100, k, eps).shape == (3, 3)


# ---------------------------------------------------------------------------------------------
# Same draws, any block size, no privacy
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("epsilon", [1.0, "per-user"])
def test_estimate_frequencies_draws_the_per_user_reports(epsilon):
    n, k = 40_000, 70  # k > 64: OLH's larger blocks
    values = _skewed_values(n, k)
    eps = np.linspace(0.5, 3.0, n) if epsilon == "per-user" else epsilon
    fused = estimate_frequencies(values, k, eps, "grr", rng=5)
    assert np.allclose(estimate_grr(grr_reports(values, k, eps, 5), k, eps).estimate,
                       fused.estimate, rtol=1e-12, atol=1e-6)
    fused = estimate_frequencies(values, k, eps, "olh", rng=5)
    assert np.allclose(estimate_olh(olh_reports(values, k, eps, 5), k, eps).estimate,
                       fused.estimate, rtol=1e-12, atol=1e-6)


def test_server_sums_do_not_depend_on_the_block_size(monkeypatch):
    n, k, eps = 5000, 9, np.full(5000, 1.3)
    eps[::4] = 0.7
    values = _skewed_values(n, k)
    reports = olh_reports(values, k, eps, 1)
    bits = unary_reports(values, k, 1.0, 2)
    before = (estimate_olh(reports, k, eps).estimate, estimate_unary(bits, 1.0).estimate)
    monkeypatch.setattr(_olh_hash, "COUNT_BLOCK", 128)
    monkeypatch.setattr(fo, "_ENTRY_BLOCK", 100)
    after = (estimate_olh(reports, k, eps).estimate, estimate_unary(bits, 1.0).estimate)
    for x, y in zip(before, after, strict=True):
        assert np.allclose(x, y, rtol=1e-12)


def test_no_privacy_gives_the_exact_counts():
    values = _skewed_values(2000, 12)
    truth = bincount(values, minlength=12)
    for oracle in ("grr", "sue", "olh"):
        est = estimate_frequencies(values, 12, np.inf, oracle, rng=0)
        assert np.allclose(est.estimate, truth) and np.allclose(est.variance, 0)
    oue = estimate_frequencies(values, 12, np.inf, "oue", rng=0)  # own bit still a coin flip
    assert np.all(np.isfinite(oue.estimate)) and np.all(oue.variance > 0)


def test_same_seed_same_estimate_and_large_budgets_stay_finite():
    values = _skewed_values(1000, 5)
    for oracle in ORACLES:
        a = estimate_frequencies(values, 5, 1.0, oracle, rng=3).estimate
        assert np.array_equal(a, estimate_frequencies(values, 5, 1.0, oracle, rng=3).estimate)
        for eps in (1e-9, 50.0, 800.0):
            est = estimate_frequencies(values, 5, eps, oracle, rng=3)
            assert np.all(np.isfinite(est.estimate)) and np.all(np.isfinite(est.variance))


# ---------------------------------------------------------------------------------------------
# Input checks: a ValueError naming the argument
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("kwargs", "name"), [
    ({"values": [0, 1, 5]}, "values"), ({"values": [0.0, 1.0]}, "values"),
    ({"values": [[0, 1]]}, "values"), ({"values": []}, "values"), ({"values": [-1, 0]}, "values"),
    ({"k": 1}, "k"), ({"k": 2.0}, "k"), ({"k": True}, "k"), ({"k": "4"}, "k"),
    ({"epsilon": 0}, "epsilon"), ({"epsilon": -1.0}, "epsilon"), ({"epsilon": np.nan}, "epsilon"),
    ({"epsilon": "1"}, "epsilon"), ({"epsilon": [1.0, 2.0]}, "epsilon"),
    ({"epsilon": [1.0, 0.0, 1.0]}, "epsilon"), ({"oracle": "rappor"}, "oracle"),
    ({"share": "yes"}, "share"), ({"rng": -3}, "rng"),
])
def test_bad_arguments_are_refused_by_name(kwargs, name):
    args = {"values": [0, 1, 2], "k": 4, "epsilon": 1.0, "oracle": "olh", "rng": 0,
            "share": False, **kwargs}
    with pytest.raises((ValueError, TypeError), match=name):  # TypeError: share not a bool
        estimate_frequencies(**args)


def test_bad_reports_are_refused_on_the_server_side():
    with pytest.raises(ValueError, match="reports"):
        estimate_grr([0, 4], 4, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        estimate_grr([0, 1, 2], 4, [1.0, 1.0])
    with pytest.raises(ValueError, match="reports"):
        estimate_unary(np.array([[0, 2], [1, 0]]), 1.0)
    with pytest.raises(ValueError, match="reports"):
        estimate_unary(np.array([0, 1, 1]), 1.0)
    rep = olh_reports([0, 1, 2], 4, 1.0, 0)
    with pytest.raises(ValueError, match="epsilon"):
        estimate_olh(rep, 4, 3.0)  # made with another budget: another g
    with pytest.raises(ValueError, match=r"reports\.value"):
        estimate_olh(rep._replace(value=rep.value + 4), 4, 1.0)
    with pytest.raises(ValueError, match=r"reports\.a"):
        estimate_olh(rep._replace(a=np.zeros(3, dtype=np.int64)), 4, 1.0)
    with pytest.raises(ValueError, match="one entry per user"):
        estimate_olh(rep._replace(b=rep.b[:2]), 4, 1.0)
    with pytest.raises(ValueError, match="OLHReports"):
        estimate_olh([1, 2, 3], 4, 1.0)
    for bad, name in ((("rappor", 10, 4, 1.0), "oracle"), (("grr", 0, 4, 1.0), "n"),
                      (("oue", 10, 4, 1.0, -0.1), "frequency")):
        with pytest.raises(ValueError, match=name):
            oracle_variance(*bad)


# ---------------------------------------------------------------------------------------------
# Resource guards: refuse before allocating, name the size, point to the frequency API
# ---------------------------------------------------------------------------------------------
def test_unary_reports_refuse_beyond_the_budget():
    values = np.zeros(200_000, dtype=np.int64)
    with ldpviz.config_context(max_bytes=1 << 24), \
            pytest.raises(ValueError, match=r"n=200000.*estimate_frequencies"):
        unary_reports(values, 1024, 1.0, 0)
    est = estimate_frequencies(values, 1024, 1.0, "oue", rng=0)  # the same job in O(n + k)
    assert est.estimate.shape == (1024,)


def test_olh_server_work_is_checked_against_the_budget():
    values = np.zeros(100_000, dtype=np.int64)
    with ldpviz.config_context(max_report_entries=1 << 20, max_report_entries_per_user=4), \
            pytest.raises(ValueError, match=r"k=64.*use k <= 10"):
        estimate_frequencies(values, 64, 1.0, "olh", rng=0)


def test_huge_k_is_refused_before_allocating():
    with pytest.raises(ValueError, match="k"):
        estimate_frequencies([0, 1], (1 << 31) - 2, 1.0, "grr")


@pytest.mark.parametrize("call", [
    lambda: debias_grr(np.zeros(1_000_000, dtype=np.int64), 1 << 20, 1.0),
    lambda: debias_binary_rr(np.zeros((1 << 16, 1 << 14), dtype=bool), 1.0),
    lambda: binary_rr(np.zeros((1 << 16, 1 << 14), dtype=bool), 1.0, np.random.default_rng()),
])
def test_per_user_debiasing_is_refused_with_the_size_and_the_frequency_api(call):
    with pytest.raises(ValueError, match=r"\(n, k\) = .* bytes.*frequency_oracles"):
        call()


def test_per_user_potential_matrices_are_refused_beyond_the_budget(rng):
    from ldpviz.partition import build_partition

    X = rng.random((2000, 3))
    W = rng.random((2000, 3)) < 0.5
    part = build_partition(X, X[:, 0], W, hist_axes=(0, 1), t=4, depth=2)
    assert part.potential_cells(X, W).shape == (2000, part.n_cells)
    with ldpviz.config_context(max_bytes=5000):  # the smallest, the tree's, takes 8000
        for call in (lambda: part.potential_cells(X, W), lambda: part.potential(X, W),
                     lambda: part.tree.potential(X, W)):
            with pytest.raises(ValueError, match=r"n=2000 would need .* bytes.*potential_sum"):
                call()


def test_per_user_debiasing_below_the_budget_is_unchanged():
    reports = grr_reports(_skewed_values(500, 4), 4, 1.0, 0)
    assert np.allclose(debias_grr(reports, 4, 1.0).sum(0), estimate_grr(reports, 4,
                                                                          1.0).estimate)


# ---------------------------------------------------------------------------------------------
# The course's view and figure
# ---------------------------------------------------------------------------------------------
def test_oracle_variance_view_shows_where_each_oracle_wins():
    from ldpviz.viz import views

    out = views.oracle_variance_view(epsilon=1.0, k=16, n=10_000)
    ks, cross = out["k_values"], out["crossover_k"]
    assert cross == pytest.approx(3 * np.e + 2)
    assert np.all(out["best_by_k"][ks < cross - 0.5] == "grr")
    assert np.all(out["best_by_k"][ks > cross + 0.5] == "oue")
    for name in ORACLES:
        assert np.allclose(out["by_k"][name],
                           oracle_variance(name, 10_000, ks, 1.0, share=True))
        assert out["by_epsilon"][name].shape == out["epsilons"].shape
        assert np.all(np.diff(out["by_epsilon"][name]) < 0)  # more budget, less noise
    assert np.all(np.diff(out["by_k"]["grr"]) > 0)  # GRR's grows with k, the others' do not
    assert np.ptp(out["by_k"]["oue"]) == 0 and out["best"] == "oue"
    assert views.oracle_variance_view(epsilon=4.0, k=16)["best"] == "grr"
    for bad in ({"epsilon": 0}, {"k": 1}, {"n": 0}, {"epsilon": "1"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            views.oracle_variance_view(**bad)


def test_plot_oracle_variance_draws_four_oracles_in_two_panels():
    from ldpviz.viz import plots

    fig = plots.plot_oracle_variance(epsilon=2.0, k=1024, n=100_000)
    assert len(fig.axes) == 2 and fig.get_figwidth() <= plots.MAX_WIDTH
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["GRR", "SUE", "OUE", "OLH"]
    assert all(len(ax.get_lines()) >= 4 for ax in fig.axes)
    assert fig.axes[0].get_xscale() == "log" and fig.axes[1].get_yscale() == "log"
