"""Privacy and unbiasedness of the local randomizers (eqs 4, 5, 8, 16, 17)."""

import itertools

import numpy as np
import pytest

from ldpviz.cell_sums import cell_report_sums, partner_weights, report_sums
from ldpviz.mechanisms import (
    binary_rr,
    cell_reports,
    debias_binary_rr,
    debias_grr,
    grr,
    grr_is_better,
    grr_probabilities,
    laplace_log_density,
    laplace_scale,
    privatize_labels,
    rr_probabilities,
    split_budget,
)
from ldpviz.partition import build_partition

EPSILONS = [0.5, 1.0, 2.0, 4.0]


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 2.0, 4.0, 8.0, 100.0])
@pytest.mark.parametrize("rho", [0.1, 0.3, 0.5, 0.7, 0.9])
def test_budget_split_adds_up_to_epsilon(epsilon, rho):
    eps_label, eps_cells = split_budget(epsilon, rho)
    assert eps_label > 0 and eps_cells > 0
    assert eps_label + eps_cells == pytest.approx(epsilon, rel=1e-15, abs=0)
    assert eps_label == pytest.approx(rho * epsilon)


def test_budget_split_at_rho_half_recovers_the_paper_constants():
    eps = 2.0
    eps_label, eps_cells = split_budget(eps, 0.5)
    assert laplace_scale(eps_label, y_bound=3.0) == pytest.approx(4 * 3.0 / eps)  # eq (4)
    keep, flip = rr_probabilities(eps_cells)
    assert keep / flip == pytest.approx(np.exp(eps / 4))  # eq (5): eps/4 per bit
    p_true, p_other = grr_probabilities(7, eps_cells)
    assert p_true / p_other == pytest.approx(np.exp(eps / 2))  # eq (16)


@pytest.mark.parametrize("bad", [0, -1.0, np.nan, "2", None, True])
def test_bad_epsilon_is_rejected(bad):
    with pytest.raises(ValueError, match="epsilon"):
        split_budget(bad, 0.5)


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.2, 1.5])
def test_bad_rho_is_rejected(bad):
    with pytest.raises(ValueError, match="rho"):
        split_budget(1.0, bad)


# ---------------------------------------------------------------------------------------------
# Laplace on clipped labels
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_laplace_density_ratio_is_at_most_e_eps(epsilon):
    M = 2.0
    outputs = np.linspace(-30, 30, 2001)
    labels = np.array([-5.0, -M, -0.3, 0.0, 1.1, M, 7.0])  # clipped to [-M, M] first
    logs = np.array([laplace_log_density(outputs, y, epsilon, M) for y in labels])
    worst = np.max(logs[:, None, :] - logs[None, :, :])
    assert worst <= epsilon + 1e-12
    assert worst == pytest.approx(epsilon, rel=1e-9)  # attained at the extremes: tight


def test_laplace_empirical_ratio(rng):
    epsilon, M, n = 1.0, 1.0, 400_000
    a = privatize_labels(np.full(n, -M), epsilon, M, rng)
    b = privatize_labels(np.full(n, M), epsilon, M, rng)
    edges = np.linspace(-4, 4, 17)
    ca, _ = np.histogram(a, edges)
    cb, _ = np.histogram(b, edges)
    keep = (ca > 2000) & (cb > 2000)
    log_ratio = np.abs(np.log(ca[keep] / cb[keep]))
    se = np.sqrt(1 / ca[keep] + 1 / cb[keep])
    assert np.all(log_ratio <= epsilon + 5 * se)
    assert log_ratio.max() > 0.8 * epsilon  # the bound is nearly reached, not vacuous


def test_laplace_is_unbiased_for_clipped_label(rng):
    y = np.array([-3.0, -0.5, 0.25, 2.0])
    M, eps, reps = 1.5, 0.8, 200_000
    draws = privatize_labels(np.repeat(y[None], reps, 0), eps, M, rng)
    se = np.sqrt(2) * laplace_scale(eps, M) / np.sqrt(reps)
    assert np.all(np.abs(draws.mean(0) - np.clip(y, -M, M)) < 5 * se)


# ---------------------------------------------------------------------------------------------
# Binary randomized response on one-hot vectors
# ---------------------------------------------------------------------------------------------
def _rr_vector_prob(report, cell, epsilon):
    keep, flip = rr_probabilities(epsilon)
    truth = np.zeros(len(report), dtype=bool)
    truth[cell] = True
    return np.prod(np.where(np.asarray(report) == truth, keep, flip))


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_binary_rr_exact_ratio_is_at_most_e_eps(epsilon):
    k = 4
    outputs = list(itertools.product([0, 1], repeat=k))
    probs = np.array([[_rr_vector_prob(o, c, epsilon) for o in outputs] for c in range(k)])
    assert np.allclose(probs.sum(1), 1)
    worst = np.max(np.log(probs[:, None, :] / probs[None, :, :]))
    assert worst <= epsilon + 1e-12
    assert worst == pytest.approx(epsilon)


def test_binary_rr_empirical_frequencies_match_exact(rng):
    epsilon, k, n = 1.0, 3, 200_000
    for cell in range(k):
        bits = np.zeros((n, k), dtype=bool)
        bits[:, cell] = True
        out = binary_rr(bits, epsilon, rng)
        codes = out @ (1 << np.arange(k))
        freq = np.bincount(codes, minlength=2**k) / n
        for code in range(2**k):
            report = [(code >> j) & 1 for j in range(k)]
            p = _rr_vector_prob(report, cell, epsilon)
            assert abs(freq[code] - p) < 5 * np.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_binary_rr_debiasing_is_unbiased(rng, epsilon):
    reps = 200_000
    bits = np.tile([1, 0, 0, 1, 0], (reps, 1))
    est = debias_binary_rr(binary_rr(bits, epsilon, rng), epsilon)
    keep, flip = rr_probabilities(epsilon)
    se = np.sqrt(keep * flip / reps) / (keep - flip)
    assert np.all(np.abs(est.mean(0) - bits[0]) < 5 * se)


# ---------------------------------------------------------------------------------------------
# Generalized randomized response
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("k", [1, 2, 5, 30])
def test_grr_exact_probabilities_and_ratio(epsilon, k):
    p_true, p_other = grr_probabilities(k, epsilon)
    assert p_true + (k - 1) * p_other == pytest.approx(1.0)
    assert p_true == pytest.approx(np.exp(epsilon) / (np.exp(epsilon) + k - 1))
    if k > 1:
        assert np.log(p_true / p_other) == pytest.approx(epsilon)


def test_grr_empirical_frequencies_and_ratio(rng):
    epsilon, k, n = 1.5, 5, 300_000
    p_true, p_other = grr_probabilities(k, epsilon)
    freqs = []
    for value in (0, 3):
        out = grr(np.full(n, value), k, epsilon, rng)
        freq = np.bincount(out, minlength=k) / n
        expect = np.where(np.arange(k) == value, p_true, p_other)
        assert np.all(np.abs(freq - expect) < 5 * np.sqrt(expect * (1 - expect) / n))
        freqs.append(freq)
    log_ratio = np.abs(np.log(freqs[0] / freqs[1]))
    assert np.all(log_ratio <= epsilon + 5 * np.sqrt(2 / (n * p_other)))


def test_grr_per_user_domain_sizes(rng):
    k = np.array([1, 2, 3, 10] * 50_000)
    values = np.minimum(np.array([0, 1, 2, 7] * 50_000), k - 1)
    out = grr(values, k, 1.0, rng)
    assert np.all((out >= 0) & (out < k))
    assert np.all(out[k == 1] == 0)


def test_grr_draws_do_not_depend_on_the_block_size(monkeypatch):
    """grr and debias_grr work in blocks of users to bound memory at millions of users: any
    block size gives the same reports and estimates as one block (and as a 2-D input, which
    is drawn in one piece)."""
    import ldpviz.mechanisms as mech

    n = 1001
    k = np.random.default_rng(0).integers(1, 9, n)
    values = (np.random.default_rng(1).random(n) * k).astype(np.int8)
    eps = np.where(np.arange(n) % 3 == 0, 4.0, 1.0)
    one_block = grr(values, k, eps, np.random.default_rng(2))
    two_d = grr(values[None, :], k[None, :], eps[None, :], np.random.default_rng(2))[0]
    estimate = debias_grr(one_block, 9, eps)
    monkeypatch.setattr(mech, "_DRAW_BLOCK", 64)
    blocked = grr(values, k, eps, np.random.default_rng(2))
    assert blocked.dtype == np.intp  # np.bincount takes it on every platform
    np.testing.assert_array_equal(blocked, one_block)
    np.testing.assert_array_equal(two_d, one_block)
    np.testing.assert_array_equal(debias_grr(blocked, 9, eps), estimate)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_grr_debiasing_is_unbiased(rng, epsilon):
    k, reps = 6, 200_000
    est = debias_grr(grr(np.full(reps, 2), k, epsilon, rng), k, epsilon)
    p_true, p_other = grr_probabilities(k, epsilon)
    c = 1 / (p_true - p_other)
    se = c * np.sqrt(p_true * (1 - p_true) / reps)
    assert np.all(np.abs(est.mean(0) - (np.arange(k) == 2)) < 5 * se)


# ---------------------------------------------------------------------------------------------
# The personalized cell report (eq 8 / eq 17) on a real partition
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def small_partition(rng):
    n, d = 3000, 3
    X = rng.random((n, d))
    y = np.sin(3 * X[:, 1]) + X[:, 2]
    W = rng.random((n, d)) < np.array([0.9, 0.4, 0.3])
    part = build_partition(X, y, W, hist_axes=(0,), t=3, depth=2)
    return X, y, W, part


@pytest.mark.parametrize("mechanism", ["grr", "rr"])
def test_cell_report_ratio_between_private_values(rng, small_partition, mechanism):
    """Two records with the same published coordinates but different protected ones."""
    part = small_partition[3]
    epsilon, n = 1.0, 60_000
    w = np.array([True, True, False])  # protects features 0 and 1, publishes feature 2
    x_a = np.array([0.1, 0.2, 0.7])
    x_b = np.array([0.9, 0.8, 0.7])
    Xa, Xb, Wn = np.tile(x_a, (n, 1)), np.tile(x_b, (n, 1)), np.tile(w, (n, 1))
    ra = cell_reports(part, Xa, Wn, epsilon, mechanism, rng)
    rb = cell_reports(part, Xb, Wn, epsilon, mechanism, rng)
    assert np.array_equal(ra.potential, rb.potential)  # V_i depends on published data only
    potential = ra.potential[0]
    V = np.flatnonzero(potential)
    cell_a, cell_b = part.cell_index(x_a[None])[0], part.cell_index(x_b[None])[0]
    assert cell_a != cell_b and potential[cell_a] and potential[cell_b]
    if mechanism == "grr":
        p_true, p_other = grr_probabilities(len(V), epsilon)
        for rep, cell in ((ra, cell_a), (rb, cell_b)):
            assert np.all(np.isin(rep.reported, V))  # never outside V_i
            freq = np.bincount(rep.reported, minlength=part.n_cells)[V] / n
            expect = np.where(V == cell, p_true, p_other)
            assert np.all(np.abs(freq - expect) < 5 * np.sqrt(expect * (1 - expect) / n))
        # exact ratio over all outputs
        pa = np.where(V == cell_a, p_true, p_other)
        pb = np.where(V == cell_b, p_true, p_other)
        assert np.max(np.abs(np.log(pa / pb))) == pytest.approx(epsilon)
    else:
        assert not np.any(ra.reported[:, ~potential])  # cells outside V_i carry 0
        keep, flip = rr_probabilities(epsilon)
        for rep, cell in ((ra, cell_a), (rb, cell_b)):
            freq = rep.reported[:, V].mean(0)
            expect = np.where(V == cell, keep, flip)
            assert np.all(np.abs(freq - expect) < 5 * np.sqrt(expect * (1 - expect) / n))
        # exact: only the bits at cell_a and cell_b differ in distribution, each by e^{eps/2}
        assert 2 * np.log(keep / flip) == pytest.approx(epsilon)


def test_full_release_composes_to_epsilon():
    """Label (rho eps) times cell report ((1 - rho) eps): worst-case ratio e^eps exactly."""
    for epsilon, rho, k in [(1.0, 0.5, 6), (2.0, 0.7, 3), (4.0, 0.9, 12)]:
        eps_label, eps_cells = split_budget(epsilon, rho)
        outputs = np.linspace(-20, 20, 4001)
        label_log_ratio = np.max(laplace_log_density(outputs, 1.0, eps_label, 1.0)
                                 - laplace_log_density(outputs, -1.0, eps_label, 1.0))
        p_true, p_other = grr_probabilities(k, eps_cells)
        keep, flip = rr_probabilities(eps_cells)
        for cell_log_ratio in (np.log(p_true / p_other), 2 * np.log(keep / flip)):
            assert label_log_ratio + cell_log_ratio == pytest.approx(epsilon)


@pytest.mark.parametrize("mechanism", ["grr", "rr"])
def test_cell_reports_are_unbiased_per_user(rng, small_partition, mechanism):
    X, _, W, part = small_partition
    X, W = X[:40], W[:40]
    epsilon, reps = 2.0, 3000
    total = np.zeros((len(X), part.n_cells))
    for _ in range(reps):
        total += cell_reports(part, X, W, epsilon, mechanism, rng).debiased
    truth = np.zeros_like(total)
    truth[np.arange(len(X)), part.cell_index(X)] = 1
    potential = part.potential_cells(X, W)
    # Variance of one debiased entry is at most c^2/4 with c = 1/(p_true - p_other).
    k = potential.sum(1, keepdims=True)
    if mechanism == "grr":
        p_true, p_other = grr_probabilities(k, epsilon)
    else:
        p_true, p_other = rr_probabilities(epsilon)
    se = 0.5 / (p_true - p_other) / np.sqrt(reps)
    assert np.all(np.abs(total / reps - truth) < 5 * se)
    assert np.all(total[~potential] == 0)


@pytest.mark.parametrize("mechanism", ["grr", "rr", "auto"])
def test_aggregated_sums_are_unbiased(rng, small_partition, mechanism):
    X, y, W, part = small_partition
    epsilon, reps = 2.0, 300
    num = np.zeros((reps, part.n_cells))
    den = np.zeros((reps, part.n_cells))
    for r in range(reps):
        num[r], den[r] = cell_report_sums(part, X, W, y, epsilon, mechanism, rng,
                                          chunk_size=700)
    cell = part.cell_index(X)
    count = np.bincount(cell, minlength=part.n_cells)
    ysum = np.bincount(cell, weights=y, minlength=part.n_cells)
    for draws, truth in ((den, count), (num, ysum)):
        se = draws.std(0, ddof=1) / np.sqrt(reps)
        assert np.all(np.abs(draws.mean(0) - truth) < 5 * se + 1e-9)


def test_aggregated_grr_sums_are_the_sums_of_the_per_user_reports(rng, small_partition):
    """Same generator state: GRR sums equal the sums of cell_reports' messages (any chunk)."""
    X, y, W, part = small_partition
    for chunk in (len(X), 700, None):
        seed = int(rng.integers(1 << 30))
        reports = cell_reports(part, X, W, 1.0, "grr", np.random.default_rng(seed))
        num, den = cell_report_sums(part, X, W, y, 1.0, "grr", np.random.default_rng(seed),
                                    chunk_size=chunk)
        assert np.allclose(den, reports.debiased.sum(0), rtol=1e-12, atol=1e-9)
        assert np.allclose(num, y @ reports.debiased, rtol=1e-12, atol=1e-9)


def test_second_moments_match_per_user_reports_and_leave_the_draws_alone(rng, small_partition):
    """moments=True adds the sums a variance estimate needs; the reports drawn are the same."""
    X, y, W, part = small_partition
    for labels in (y, np.column_stack([y, y**2])):
        seed = int(rng.integers(1 << 30))
        reports = cell_reports(part, X, W, 1.0, "grr", np.random.default_rng(seed))
        sums = cell_report_sums(part, X, W, labels, 1.0, "grr", np.random.default_rng(seed),
                                moments=True)
        expect = report_sums(reports.debiased, labels, partner_weights(reports))
        for got, want in zip(sums, expect, strict=True):
            assert np.allclose(got, want, rtol=1e-12, atol=1e-9)
        for mechanism in ("grr", "rr", "auto"):
            for chunk in (len(X), 7):
                num, den = cell_report_sums(part, X, W, labels, 1.0, mechanism,
                                            np.random.default_rng(seed), chunk_size=chunk)
                again = cell_report_sums(part, X, W, labels, 1.0, mechanism,
                                         np.random.default_rng(seed), chunk_size=chunk,
                                         moments=True)
                assert np.array_equal(num, again.numerator)
                assert np.array_equal(den, again.denominator)


def test_single_cell_users_report_their_public_cell_exactly(rng, small_partition):
    X, _, W, part = small_partition
    W = np.zeros_like(W)  # everyone publishes everything: V_i is one cell
    for mechanism in ("grr", "rr"):
        reports = cell_reports(part, X, W, 0.5, mechanism, rng)
        truth = np.eye(part.n_cells)[part.cell_index(X)]
        assert np.array_equal(reports.debiased, truth)


def test_infinite_epsilon_reports_the_truth(rng, small_partition):
    X, y, W, part = small_partition
    for mechanism in ("grr", "rr"):
        num, den = cell_report_sums(part, X, W, y, np.inf, mechanism, rng)
        cell = part.cell_index(X)
        assert np.allclose(den, np.bincount(cell, minlength=part.n_cells))
        assert np.allclose(num, np.bincount(cell, weights=y, minlength=part.n_cells))


def test_same_seed_same_reports(small_partition):
    X, y, W, part = small_partition
    a = cell_report_sums(part, X, W, y, 1.0, "grr", np.random.default_rng(5))
    b = cell_report_sums(part, X, W, y, 1.0, "grr", np.random.default_rng(5))
    c = cell_report_sums(part, X, W, y, 1.0, "grr", np.random.default_rng(6))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[1], c[1])


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0])
def test_grr_is_better_picks_the_smaller_simulated_variance(rng, epsilon):
    """Variance of the debiased indicator of a cell that does not hold the user."""
    reps = 100_000
    rr = debias_binary_rr(binary_rr(np.zeros((reps, 1)), epsilon, rng), epsilon)[:, 0].var()
    for k in (2, 4, 16, 64):
        reports = grr(np.zeros(reps, dtype=int), k, epsilon, rng)
        grr_var = debias_grr(reports, k, epsilon)[:, 1].var()
        if abs(grr_var - rr) > 0.1 * max(grr_var, rr):  # clear cases only
            assert grr_is_better(k, epsilon) == (grr_var < rr), (k, grr_var, rr)
    assert grr_is_better(2, epsilon) and not grr_is_better(10_000, epsilon)
