"""Privacy mask generators (Sections 5.1, 5.2, Figure 1) and the helpers that read masks."""

import math
import re

import numpy as np
import pandas as pd
import pytest

import ldpviz
import ldpviz.masks as masks
from ldpviz.masks import (
    aligned_mask,
    aligned_s_star,
    concentrated_mask,
    decade_mask,
    gamma_mask,
    protection_counts,
    protection_ranking,
    random_mask,
    shuffle_users,
    spread_mask,
    summarize_mask,
    validate_mask,
)


def column_counts(W):
    """Users protecting each feature, by plain loops."""
    return [sum(int(W[i][j]) for i in range(len(W))) for j in range(len(W[0]))]


def is_staircase(W):
    """Each column protected by a prefix of the users (sorted rows, as the paper draws them)."""
    W = np.asarray(W, dtype=bool)
    return all(not np.any(~col[:-1] & col[1:]) for col in W.T)


# ---------------------------------------------------------------------------------------------
# Generators: exact definitions at small n
# ---------------------------------------------------------------------------------------------
def test_aligned_mask():
    W = aligned_mask(4, 5, 2)
    assert W.shape == (4, 5) and W.dtype == bool
    assert W.tolist() == [[True, True, False, False, False]] * 4
    assert not aligned_mask(3, 2, 0).any() and aligned_mask(3, 2, 2).all()
    with pytest.raises(ValueError, match="s must be in"):
        aligned_mask(3, 2, 3)
    with pytest.raises(ValueError, match="n must be"):
        aligned_mask(0, 2, 1)
    with pytest.raises(ValueError, match="d must be an integer"):
        aligned_mask(3, 2.5, 1)


def test_gamma_mask_definition():
    # i <= n / l^gamma with 1-based i and l: n = 8, gamma = 1 -> 8, 4, 2 (8/3 = 2.67) users
    W = gamma_mask(8, 3, 1.0)
    assert column_counts(W.tolist()) == [8, 4, 2]
    for i in range(8):
        for ell in range(3):
            assert W[i, ell] == ((i + 1) <= 8 / (ell + 1) ** 1.0)
    assert is_staircase(W)
    assert gamma_mask(5, 4, 0).all()
    with pytest.raises(ValueError, match="gamma"):
        gamma_mask(5, 4, -1)
    with pytest.raises(ValueError, match="gamma"):
        gamma_mask(5, 4, "1")


@pytest.mark.parametrize("make", [lambda n, d: gamma_mask(n, d, 1.0),
                                  lambda n, d: masks.aligned_mask(n, d, 1),
                                  lambda n, d: masks.spread_mask(n, d),
                                  lambda n, d: masks.random_mask(n, d, 0.5, random_state=0)])
def test_a_mask_too_wide_for_the_budget_names_d_and_a_width_that_fits(make):
    """gamma_mask(10, 10**9, 1) said 'use n <= 1': the problem is d."""
    with ldpviz.config_context(max_bytes=200_000):
        with pytest.raises(ValueError, match=r"with n=10 and d=1000000 would need .* use "
                                             r"d <= (\d+) \(with n=10\)") as refused:
            make(10, 10**6)
        fits = int(re.search(r"d <= (\d+)", str(refused.value)).group(1))
        assert make(10, fits).shape == (10, fits)
        with pytest.raises(ValueError, match="max_bytes"):
            make(10, fits + 1)


def test_aligned_s_star_is_ceil_of_natural_log_of_sqrt_d():
    for d in range(1, 600):
        assert aligned_s_star(d) == math.ceil(math.log(math.sqrt(d)))
    assert [aligned_s_star(d) for d in (1, 2, 7, 8, 54, 55, 403, 404)] == [0, 1, 1, 2, 2, 3, 3, 4]
    with pytest.raises(ValueError, match="d must be"):
        aligned_s_star(0)


def test_decade_mask_zero_based_feature_index():
    # W[i, l] = 1 iff i <= n / 10^floor(l / s*), i 1-based, l = 0..d-1
    W = decade_mask(1000, 5, 2)
    assert column_counts(W.tolist()) == [1000, 1000, 100, 100, 10]
    assert is_staircase(W)
    # with s* = 1 feature 0 is protected by everyone, then one decade per feature
    assert column_counts(decade_mask(1000, 5, 1).tolist()) == [1000, 100, 10, 1, 0]
    # the first s* features are the aligned paradigm's protected features
    for d in (2, 5, 9):
        s_star = max(1, aligned_s_star(d))
        W = decade_mask(50, d, s_star)
        assert W[:, :s_star].all()
        assert not W[:, s_star:].all(axis=0).any()


def test_decade_mask_one_based_feature_index():
    # l = 1..d: floor(l / 2) = 0, 1, 1, 2, 2
    assert column_counts(decade_mask(1000, 5, 2, index_base=1).tolist()) == [
        1000, 100, 100, 10, 10]
    # s* = 1 with 1-based l: no feature is protected by everyone (the trap the notes point out)
    W = decade_mask(1000, 5, 1, index_base=1)
    assert column_counts(W.tolist()) == [100, 10, 1, 0, 0]
    assert not W.all(axis=0).any()


def test_decade_mask_small_n_and_exact_integer_thresholds():
    W = decade_mask(25, 3, 1)
    assert column_counts(W.tolist()) == [25, 2, 0]
    for i in range(25):
        for ell in range(3):
            assert W[i, ell] == ((i + 1) * 10 ** (ell // 1) <= 25)
    # thresholds in integers: exactly n // 10^l users, no floating-point loss at any decade
    n = 10**6 - 1
    assert decade_mask(n, 9, 1).sum(axis=0).tolist() == [n // 10**k for k in range(9)]
    assert decade_mask(10**6, 9, 1).sum(axis=0).tolist() == [10 ** (6 - k) for k in range(7)] + [
        0, 0]
    with pytest.raises(ValueError, match="s_star"):
        decade_mask(10, 3, 0)
    with pytest.raises(ValueError, match="index_base"):
        decade_mask(10, 3, 1, index_base=2)


def test_concentrated_mask():
    W = concentrated_mask(8, 4, decay=0.5)
    assert W.shape == (8, 4)
    assert column_counts(W.tolist()) == [8, 4, 2, 1]
    assert is_staircase(W)
    # nested: protecting feature l implies protecting every earlier feature
    assert np.all(W[:, 1:] <= W[:, :-1])
    assert concentrated_mask(6, 3, decay=1.0).all()
    assert column_counts(concentrated_mask(100, 3, decay=0.1).tolist()) == [100, 10, 1]
    for bad in (0, -0.5, 1.5, np.nan, "x"):
        with pytest.raises(ValueError, match="decay"):
            concentrated_mask(5, 3, decay=bad)


def test_spread_mask():
    W = spread_mask(10, 5, width=2)
    # user i starts at floor(i * 5 / 10) = i // 2 and protects two features, wrapping around
    for i in range(10):
        start = i // 2
        assert set(np.flatnonzero(W[i])) == {start, (start + 1) % 5}
    assert W.sum(axis=1).tolist() == [2] * 10
    assert column_counts(W.tolist()) == [4] * 5  # n * width / d
    assert not spread_mask(7, 3, width=0).any()
    assert spread_mask(7, 3, width=3).all()
    # n not divisible by d: every user still protects exactly `width` features
    W = spread_mask(11, 4, width=3)
    assert W.sum(axis=1).tolist() == [3] * 11
    assert max(column_counts(W.tolist())) - min(column_counts(W.tolist())) <= 3
    with pytest.raises(ValueError, match="width"):
        spread_mask(5, 3, width=4)


def test_concentrated_versus_spread_tail():
    # the point of Figure 1(b)/(c): the tail beyond the most protected features is thin vs thick
    from ldpviz.theory import lambda_star

    n, d = 1000, 5
    for s in (1, 2):
        assert lambda_star(concentrated_mask(n, d, 0.2), s, 4) < lambda_star(
            spread_mask(n, d, 2), s, 4)


def test_random_mask_rates_and_reproducibility():
    rates = np.array([0.9, 0.5, 0.1, 0.0, 1.0])
    W = random_mask(20_000, 5, rates, random_state=0)
    assert W.shape == (20_000, 5) and W.dtype == bool
    share = W.mean(axis=0)
    sd = np.sqrt(rates * (1 - rates) / 20_000)
    assert np.all(np.abs(share - rates) <= 5 * sd + 1e-12)
    assert np.array_equal(W, random_mask(20_000, 5, rates, random_state=0))
    assert not np.array_equal(W, random_mask(20_000, 5, rates, random_state=1))
    gen = np.random.default_rng(5)
    assert random_mask(50, 3, 0.5, random_state=gen).shape == (50, 3)


def test_random_mask_exact_counts():
    W = random_mask(10, 4, [0.25, 0.5, 0.0, 1.0], random_state=3, exact=True)
    assert column_counts(W.tolist()) == [3, 5, 0, 10]  # round half up: 2.5 -> 3
    W2 = random_mask(10, 4, [0.25, 0.5, 0.0, 1.0], random_state=4, exact=True)
    assert column_counts(W2.tolist()) == [3, 5, 0, 10]
    assert not np.array_equal(W, W2)


@pytest.mark.parametrize("rate", [1.2, -0.1, [0.5, 0.5], np.nan, "high"])
def test_random_mask_rejects_bad_rates(rate):
    with pytest.raises(ValueError, match="rate"):
        random_mask(10, 3, rate, random_state=0)


# ---------------------------------------------------------------------------------------------
# Validation and helpers
# ---------------------------------------------------------------------------------------------
def test_validate_mask_accepts_and_converts():
    W = validate_mask([[0, 1.0], [1, 0]])
    assert W.dtype == bool and W.tolist() == [[False, True], [True, False]]
    assert validate_mask(np.ones((2, 3), dtype=bool), n=2, d=3).all()


@pytest.mark.parametrize(
    "W,kwargs,message",
    [
        ([0, 1, 1], {}, "2-D"),
        (np.zeros((2, 2, 2)), {}, "2-D"),
        (np.zeros((0, 3)), {}, "at least one user"),
        ([[0, 2], [1, 0]], {}, "only 0 and 1"),
        ([[0, np.nan], [1, 0]], {}, "only 0 and 1"),
        ([["a", "b"]], {}, "numeric"),
        (np.zeros((3, 2)), {"n": 4}, r"shape \(4, 2\)"),
        (np.zeros((3, 2)), {"d": 3}, r"shape \(3, 3\)"),
    ],
)
def test_validate_mask_errors_name_the_argument(W, kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        validate_mask(W, name="mask", **kwargs)
    assert "mask" in str(info.value)


def test_shuffle_users_keeps_the_rows_and_counts():
    W = gamma_mask(60, 4, 0.8)
    V = shuffle_users(W, random_state=2)
    assert V.shape == W.shape and not np.array_equal(V, W)
    assert sorted(map(tuple, V.tolist())) == sorted(map(tuple, W.tolist()))
    assert protection_counts(V).tolist() == protection_counts(W).tolist()
    assert np.array_equal(V, shuffle_users(W, random_state=2))
    assert np.array_equal(W, gamma_mask(60, 4, 0.8))  # the input is not modified
    with pytest.raises(ValueError, match="W must contain only 0 and 1"):
        shuffle_users([[3, 0]])


def test_protection_counts_and_ranking():
    W = np.array([[0, 1, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]])
    assert protection_counts(W).tolist() == column_counts(W.tolist()) == [1, 3, 1, 1]
    # most protected first; ties keep the lower index first
    assert protection_ranking(W).tolist() == [1, 0, 2, 3]


def test_summarize_mask():
    rng = np.random.default_rng(8)
    W = rng.random((37, 4)) < np.array([0.2, 0.7, 0.7, 0.4])
    features, users = summarize_mask(W)
    counts = column_counts(W.tolist())
    assert isinstance(features, pd.DataFrame) and isinstance(users, pd.Series)
    assert features["count"].tolist() == counts
    assert features["share"].tolist() == pytest.approx([c / 37 for c in counts])
    order = sorted(range(4), key=lambda j: (-counts[j], j))
    assert [int(features["rank"][j]) for j in order] == [0, 1, 2, 3]
    per_user = [sum(int(v) for v in row) for row in W.tolist()]
    assert users.index.tolist() == [0, 1, 2, 3, 4]
    assert users.tolist() == pytest.approx([per_user.count(k) / 37 for k in range(5)])
    assert users.sum() == pytest.approx(1.0)
    # summary of a hand-checkable mask
    features, users = summarize_mask(aligned_mask(5, 3, 2))
    assert features["share"].tolist() == [1.0, 1.0, 0.0]
    assert users.tolist() == [0.0, 0.0, 1.0, 0.0]


@pytest.mark.parametrize("W", [[[2, -1], [np.nan, 0]], [["0", "1"], ["1", "0"]],
                               [[0.5, 1.0], [0.0, 1.0]]])
def test_reading_a_mask_refuses_entries_that_are_not_zero_or_one(W):
    """'0' is not "protected", NaN and 2 are not anything: counting them would be a guess."""
    with pytest.raises(ValueError, match="W must"):
        masks.protection_counts(W)
    with pytest.raises(ValueError, match="W must"):
        masks.protection_ranking(W)
    np.testing.assert_array_equal(masks.protection_counts([[1, 0], [1, 1]]), [2, 1])
