"""The aggregated cell reports (cell_report_sums) against the per-user messages (cell_reports).

GRR: the same draws at any n. Binary RR: the bits are drawn group by group, so the sums are not
the per-user sums of the same generator state; the tests show they have the same law (exact
Bernoulli probabilities per bit, unbiased, the oracle's means and variances).
"""

import numpy as np
import pytest

import ldpviz
from ldpviz import _cell_groups
from ldpviz.cell_sums import cell_report_sums, partner_weights, report_sums
from ldpviz.mechanisms import (
    _grr_constants,
    _rr_constants,
    cell_reports,
    debias_grr,
    grr_is_better,
    grr_probabilities,
)
from ldpviz.partition import build_partition


@pytest.fixture(scope="module")
def partition():
    rng = np.random.default_rng(11)
    X = rng.random((2000, 3))
    y = np.sin(3 * X[:, 1]) + X[:, 2]
    W = rng.random((2000, 3)) < np.array([0.9, 0.4, 0.3])
    return build_partition(X, y, W, hist_axes=(0,), t=3, depth=2)


def _population(part, n, rng):
    """n users; the first half hide every feature (one large group, |V_i| = all cells), the
    others hide random features (many small groups)."""
    X = rng.random((n, 3))
    W = rng.random((n, 3)) < 0.5
    W[: n // 2] = True
    y = rng.normal(1.0, 1.0, n)
    return X, W, y


@pytest.mark.parametrize("dense", [False, True])  # flat entries / dense blocks of users
def test_rr_bit_sums_have_the_exact_binomial_law(monkeypatch, partition, dense):
    """Identical users: the bit sum of their own cell is Binomial(N, 1 - q), of every other
    potential cell Binomial(N, q); y-weighted sums have mean and variance of independent
    Bernoulli bits (sum y q and sum y^2 q (1 - q)); cells outside V_i get exactly 0."""
    monkeypatch.setattr(_cell_groups, "_DENSE_GROUP", 32 if dense else 10**9)
    epsilon, reps, n_users = 1.5, 1500, 300
    x = np.array([0.1, 0.7, 0.4])
    w = np.array([True, True, False])
    X, W = np.tile(x, (n_users, 1)), np.tile(w, (n_users, 1))
    y = np.random.default_rng(3).normal(2.0, 1.0, n_users)
    q, C = _rr_constants(epsilon)
    potential = partition.potential_cells(X[:1], W[:1])[0]
    own = partition.cell_index(X[:1])[0]
    counts, weighted = np.zeros((reps, partition.n_cells)), np.zeros((reps, partition.n_cells))
    rng = np.random.default_rng(7)
    for r in range(reps):
        num, den = cell_report_sums(partition, X, W, y, epsilon, "rr", rng)
        counts[r] = den / C + q * n_users * potential  # undo the debiasing: the bit sums
        weighted[r] = num / C + q * y.sum() * potential
    assert np.all(counts[:, ~potential] == 0) and np.all(weighted[:, ~potential] == 0)
    assert np.allclose(counts, np.round(counts), atol=1e-6)  # whole numbers of set bits
    p = np.where(np.arange(partition.n_cells) == own, 1 - q, q)[potential]
    for draws, mean, var in ((counts, n_users * p, n_users * p * (1 - p)),
                             (weighted, y.sum() * p, (y * y).sum() * p * (1 - p))):
        got = draws[:, potential]
        assert np.all(np.abs(got.mean(0) - mean) < 5 * np.sqrt(var / reps))
        # sample variance: relative standard error about sqrt(2 / reps) (plus kurtosis)
        assert np.all(np.abs(got.var(0, ddof=1) / var - 1) < 6 * np.sqrt(2 / reps))


def test_rr_sums_agree_with_the_per_user_oracle(monkeypatch, partition):
    """Every field of CellSums, aggregated or summed from cell_reports' messages: the same
    means and variances per cell (two-sample tests), on a mix of large and small groups."""
    monkeypatch.setattr(_cell_groups, "_DENSE_GROUP", 32)  # both paths at this size
    rng = np.random.default_rng(5)
    X, W, y = _population(partition, 300, rng)
    epsilon, reps = 1.0, 400
    fast = np.array([np.concatenate(cell_report_sums(partition, X, W, y, epsilon, "rr", rng,
                                                     moments=True)) for _ in range(reps)])
    slow = np.array([np.concatenate(report_sums(
        cell_reports(partition, X, W, epsilon, "rr", rng).debiased, y)) for _ in range(reps)])
    se = np.sqrt((fast.var(0) + slow.var(0)) / reps) + 1e-9
    assert np.all(np.abs(fast.mean(0) - slow.mean(0)) < 5 * se)
    varies = slow.var(0) > 1e-9
    ratio = fast.var(0)[varies] / slow.var(0)[varies]
    assert np.all(np.abs(np.log(ratio)) < 6 * np.sqrt(2 / reps) * 1.5)


def test_rr_sums_are_unbiased_for_counts_and_label_sums(partition):
    rng = np.random.default_rng(9)
    X, W, y = _population(partition, 500, rng)
    reps, epsilon = 300, 2.0
    draws = np.array([np.concatenate(cell_report_sums(partition, X, W, y, epsilon, "rr", rng,
                                                      chunk_size=3))
                      for _ in range(reps)])
    cell = partition.cell_index(X)
    truth = np.concatenate([np.bincount(cell, weights=y, minlength=partition.n_cells),
                            np.bincount(cell, minlength=partition.n_cells)])
    se = draws.std(0, ddof=1) / np.sqrt(reps)
    assert np.all(np.abs(draws.mean(0) - truth) < 5 * se + 1e-9)


@pytest.mark.slow
def test_grr_sums_replay_the_per_user_reports_at_two_million_users():
    """Issue 12 item 5: the sums are those of cell_reports' messages at any n."""
    n = 2_000_000
    rng = np.random.default_rng(0)
    X = rng.random((n, 3))
    W = rng.random((n, 3)) < np.array([1.0, 0.5, 0.0])
    y = X[:, 2] + rng.normal(0, 0.1, n)
    part = build_partition(X, y, W, hist_axes=(0,), t=2, depth=1)
    sums = cell_report_sums(part, X, W, y, 1.0, "grr", np.random.default_rng(4))
    reports = cell_reports(part, X, W, 1.0, "grr", np.random.default_rng(4))
    assert np.allclose(sums[1], reports.debiased.sum(0), rtol=1e-10)
    assert np.allclose(sums[0], y @ reports.debiased, rtol=1e-10)


def test_grr_is_better_is_finite_at_any_budget():
    """Past epsilon ~ 355, (e^eps - 1)^2 overflows: the comparison must not."""
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        assert np.all(grr_is_better(np.array([2, 1000, 10**9]), 800.0))
        assert grr_is_better(10**12, 30.0)
        assert not grr_is_better(10**6, 2.0)
    for epsilon in (0.1, 1.0, 4.0, 8.0):  # agrees with the variances it compares
        k = np.arange(1, 3000)
        e, h = np.exp(epsilon), np.exp(epsilon / 2)
        assert np.array_equal(grr_is_better(k, epsilon),
                              (e + k - 2) / (e - 1) ** 2 <= h / (h - 1) ** 2)


def test_debiasing_constants_are_accurate_at_tiny_budgets():
    """1 - e^{-eps} loses digits at small eps; the constants use expm1."""
    epsilon, k = 1e-12, 3
    _, p_other, c, offset = _grr_constants(epsilon, k)
    assert c == pytest.approx((np.exp(epsilon) + k - 1) / np.expm1(epsilon), rel=1e-12)
    assert offset == pytest.approx(1 / np.expm1(epsilon), rel=1e-12)
    estimate = debias_grr([0], k, epsilon)[0]
    _, p_other = grr_probabilities(k, epsilon)  # 1 / (p_true - p_other) would cancel too
    exact = (1 - p_other) * (np.exp(epsilon) + k - 1) / np.expm1(epsilon)
    assert estimate[0] == pytest.approx(exact, rel=1e-12)
    _, C = _rr_constants(epsilon)
    assert C == pytest.approx((np.exp(epsilon / 2) + 1) / np.expm1(epsilon / 2), rel=1e-12)


def test_cell_reports_follow_the_resource_budget(partition):
    rng = np.random.default_rng(0)
    X, W, _ = _population(partition, 3000, rng)
    cell_reports(partition, X, W, 1.0, "rr", rng)  # the default budget holds this
    with ldpviz.config_context(max_bytes=1 << 20):
        with pytest.raises(ValueError, match=r"n_samples.*max_bytes"):
            cell_reports(partition, X, W, 1.0, "rr", rng)
        cell_reports(partition, X[:100], W[:100], 1.0, "grr", rng)  # small enough


@pytest.mark.parametrize("rule", ["max-edge", "cart"])
def test_tree_growth_in_blocks_of_users_is_the_same_tree(monkeypatch, rule):
    """The per-user passes of the tree growth run in blocks (bounded memory at any n)."""
    from ldpviz import _tree_growth

    rng = np.random.default_rng(2)
    X = rng.random((5000, 4))
    y = np.sin(4 * X[:, 1]) + X[:, 3] + rng.normal(0, 0.1, 5000)
    W = rng.random((5000, 4)) < 0.3
    whole = build_partition(X, y, W, (0,), 2, 4, rule).tree
    monkeypatch.setattr(_tree_growth, "USER_BLOCK", 777)
    blocks = build_partition(X, y, W, (0,), 2, 4, rule).tree
    assert np.array_equal(whole.feature, blocks.feature)
    assert np.array_equal(whole.threshold, blocks.threshold, equal_nan=True)
    assert np.allclose(whole.leaf_count, blocks.leaf_count)
    assert np.allclose(whole.leaf_label_mean, blocks.leaf_label_mean, equal_nan=True)


def test_user_blocks_do_not_change_the_grr_draws(monkeypatch, partition):
    """Blocks of users (bounded memory) leave GRR's draws those of cell_reports."""
    from ldpviz import cell_sums, mechanisms

    rng = np.random.default_rng(8)
    X, W, y = _population(partition, 2500, rng)
    monkeypatch.setattr(cell_sums, "_USER_BLOCK", 300)
    monkeypatch.setattr(mechanisms, "_DRAW_BLOCK", 700)
    sums = cell_report_sums(partition, X, W, y, 1.0, "grr", np.random.default_rng(1),
                            moments=True)
    reports = cell_reports(partition, X, W, 1.0, "grr", np.random.default_rng(1))
    for got, want in zip(sums, report_sums(reports.debiased, y, partner_weights(reports)),
                         strict=True):
        assert np.allclose(got, want, rtol=1e-12, atol=1e-9)
