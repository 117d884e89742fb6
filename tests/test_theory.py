"""Section 4 formulas (eqs 10-15) against independent plain-Python computations."""

import itertools
import math
import time

import numpy as np
import pandas as pd
import pytest

from ldpviz import theory
from ldpviz.masks import aligned_mask, gamma_mask, protection_ranking, shuffle_users


# ---------------------------------------------------------------------------------------------
# Independent reference computations: loops over users and features, no numpy
# ---------------------------------------------------------------------------------------------
def ref_ranking(W):
    """Features by protection count, most protected first; ties: lower index first."""
    n, d = len(W), len(W[0])
    counts = [sum(int(W[i][j]) for i in range(n)) for j in range(d)]
    return sorted(range(d), key=lambda j: (-counts[j], j))


def ref_delta(W, s, p):
    n, d = len(W), len(W[0])
    if s == d:
        return 1.0
    tail = ref_ranking(W)[s:]
    total = 0.0
    for i in range(n):
        k = sum(int(W[i][j]) for j in tail)
        total += 2.0 ** (k * p / (d - s))
    return total / n


def ref_objective(W, s, p, n, eps, alpha=1.0, c=1.0):
    d = len(W[0])
    term1 = 2.0 ** (p * (d + s) / (d - s)) * math.log(n) / (n * eps**2) * ref_delta(W, s, p)
    term2 = c * 2.0 ** (-2.0 * alpha * p / (d - s))
    return term1, term2


def ref_select(W, n, eps, alpha=1.0, c=1.0, p_max=None, rtol=1e-9):
    d = len(W[0])
    if p_max is None:
        p_max = max(1, math.ceil(math.log2(n)))
    values = {}
    for s in range(d):
        for p in range(1, p_max + 1):
            values[s, p] = sum(ref_objective(W, s, p, n, eps, alpha, c))
    best = min(values.values())
    ties = [key for key, v in values.items() if v <= best * (1 + rtol)]
    s_best = max(s for s, _ in ties)
    return s_best, min(p for s, p in ties if s == s_best)


def random_masks(seed, count=12):
    """Small random masks of assorted shapes and densities (ties in counts are common)."""
    rng = np.random.default_rng(seed)
    masks = []
    for _ in range(count):
        n = int(rng.integers(1, 25))
        d = int(rng.integers(1, 6))
        rates = rng.uniform(0, 1, size=d)
        masks.append(rng.random((n, d)) < rates)
    return masks


def corner_masks():
    return [
        np.zeros((7, 4), dtype=bool),               # nobody protects anything
        np.ones((5, 3), dtype=bool),                # everybody protects everything
        np.array([[1, 0, 1, 1, 0]], dtype=bool),    # a single user
        np.array([[0], [1], [1]], dtype=bool),      # a single feature
        # three features with equal counts: the tie rule changes delta (head 0: every tail
        # count is 1; head 2 would give tail counts 2, 2, 0, 0)
        np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 1]], dtype=bool),
    ]


ALL_MASKS = random_masks(1) + random_masks(2) + corner_masks()


# ---------------------------------------------------------------------------------------------
# delta and lambda* (eq 12)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("W", ALL_MASKS)
def test_delta_matches_reference_for_every_s_and_p(W):
    d = W.shape[1]
    for s in range(d + 1):
        for p in [0, 0.5, 1, 2, 3.7, 7, 25]:  # includes p far beyond log2 n
            assert theory.delta(W, s, p) == pytest.approx(ref_delta(W.tolist(), s, p), rel=1e-12)


@pytest.mark.parametrize("W", ALL_MASKS)
def test_lambda_star_matches_reference_and_lies_in_unit_interval(W):
    d = W.shape[1]
    for s in range(d + 1):
        for p in [0.5, 1, 3, 9]:
            expected = math.log2(ref_delta(W.tolist(), s, p)) / p
            lam = theory.lambda_star(W, s, p)
            assert lam == pytest.approx(expected, rel=1e-10, abs=1e-13)
            assert 0 <= lam <= 1


def test_delta_is_vectorised_over_p():
    W = random_masks(3, 1)[0]
    p = np.array([[0.0, 1.0], [2.5, 6.0]])
    got = theory.delta(W, 0, p)
    assert got.shape == p.shape
    expected = [[ref_delta(W.tolist(), 0, x) for x in row] for row in p.tolist()]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_delta_tail_follows_the_protection_ranking_not_the_column_order():
    rng = np.random.default_rng(4)
    W = rng.random((40, 5)) < np.array([0.1, 0.9, 0.3, 0.7, 0.5])
    perm = rng.permutation(5)
    for s in range(6):
        assert theory.delta(W, s, 3) == pytest.approx(theory.delta(W[:, perm], s, 3), rel=1e-12)
    # the tail is exactly the features the estimator does not put in its histogram
    s = 2
    tail = [j for j in range(5) if j not in set(protection_ranking(W)[:s].tolist())]
    k = W[:, tail].sum(axis=1)
    assert theory.delta(W, s, 3) == pytest.approx(np.mean(2.0 ** (k * 3 / 3)), rel=1e-12)


def test_ties_in_protection_count_keep_the_lower_index_in_the_histogram():
    W = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 1]], dtype=bool)
    assert theory.delta(W, 1, 2) == pytest.approx(2.0)  # tail {1, 2}: every user has k = 1
    assert theory.delta(W[:, ::-1], 1, 2) == pytest.approx((4 + 4 + 1 + 1) / 4)


def test_delta_extremes_and_s_equals_d():
    W0 = np.zeros((6, 4), dtype=bool)
    W1 = np.ones((6, 4), dtype=bool)
    for s in range(4):
        assert theory.delta(W0, s, 5) == 1.0
        assert theory.lambda_star(W0, s, 5) == 0.0
        assert theory.delta(W1, s, 5) == pytest.approx(2.0**5)  # every user protects the tail
        assert theory.lambda_star(W1, s, 5) == pytest.approx(1.0)
    # s = d: empty tail, delta = 1 and lambda* = 0 whatever the mask and p
    for W in (W0, W1, random_masks(5, 1)[0]):
        d = W.shape[1]
        assert theory.delta(W, d, 7) == 1.0
        assert theory.lambda_star(W, d, 7) == 0.0


def test_delta_does_not_overflow_silently_for_huge_p():
    W = np.ones((3, 2), dtype=bool)
    assert theory.lambda_star(W, 0, 5000.0) == pytest.approx(1.0)  # 2^5000 is not a float
    assert theory.delta(W, 0, 5000.0) == np.inf


@pytest.mark.parametrize("d,s_star", [(3, 1), (5, 2), (5, 4), (6, 3)])
def test_lambda_star_on_aligned_masks(d, s_star):
    W = aligned_mask(9, d, s_star)
    for p in [1, 2, 5, 11]:
        for s in range(s_star, d + 1):
            assert theory.lambda_star(W, s, p) == 0.0
        for s in range(s_star):
            # every user protects the s* - s tail features: delta = 2^{(s*-s) p/(d-s)}
            assert theory.lambda_star(W, s, p) == pytest.approx((s_star - s) / (d - s))


def test_lambda_star_grows_as_gamma_falls():
    gammas = [8.0, 4.0, 2.0, 1.0, 0.5, 0.25, 0.0]
    for s, p in [(0, 4), (1, 4), (2, 6)]:
        lams = [theory.lambda_star(gamma_mask(2000, 5, g), s, p) for g in gammas]
        assert all(b >= a - 1e-12 for a, b in itertools.pairwise(lams))
        assert lams[-1] > lams[0] + 0.3
        assert lams[-1] == pytest.approx(1.0)  # gamma = 0: everybody protects everything


# ---------------------------------------------------------------------------------------------
# The objective (11)/(15)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("W", ALL_MASKS)
def test_objective_terms_match_reference(W):
    d = W.shape[1]
    for s in range(d):
        for p, n, eps, alpha, c in [(1, 2, 1.0, 1.0, 1.0), (3, 500, 0.5, 0.6, 0.1),
                                    (6, 10_000, 4.0, 1.0, 0.01), (20, 50, 2.0, 0.3, 1.0)]:
            got = theory.objective(W, s, p, n, eps, alpha=alpha, c=c)
            t1, t2 = ref_objective(W.tolist(), s, p, n, eps, alpha, c)
            assert got.term1 == pytest.approx(t1, rel=1e-10)
            assert got.term2 == pytest.approx(t2, rel=1e-12)
            assert got.total == pytest.approx(t1 + t2, rel=1e-10)


def test_objective_is_vectorised_over_p_and_c_scales_only_term2():
    W = gamma_mask(300, 4, 1.0)
    p = np.arange(0, 12)
    a = theory.objective(W, 1, p, 300, 2.0)
    b = theory.objective(W, 1, p, 300, 2.0, c=0.1)
    assert a.term1.shape == p.shape
    np.testing.assert_allclose(b.term1, a.term1, rtol=1e-14)
    np.testing.assert_allclose(b.term2, 0.1 * a.term2, rtol=1e-14)
    np.testing.assert_allclose(a.total, a.term1 + a.term2, rtol=1e-14)
    # the privatised term grows with p, the approximation term falls
    assert np.all(np.diff(a.term1) > 0) and np.all(np.diff(a.term2) < 0)


def test_objective_without_privacy_has_no_privatised_term():
    W = gamma_mask(100, 3, 1.0)
    terms = theory.objective(W, 1, np.arange(1, 8), 100, np.inf)
    assert np.all(terms.term1 == 0)
    assert theory.select_s_p(W, 100, np.inf) == (2, theory.default_p_max(100))


def test_objective_rejects_s_equal_d_and_bad_arguments():
    W = gamma_mask(20, 3, 1.0)
    with pytest.raises(ValueError, match="s must be < d"):
        theory.objective(W, 3, 2, 20, 1.0)
    with pytest.raises(ValueError, match="p must be >= 0"):
        theory.objective(W, 1, -1, 20, 1.0)
    with pytest.raises(ValueError, match="p must be finite"):
        theory.objective(W, 1, np.nan, 20, 1.0)
    with pytest.raises(ValueError, match="n must be"):
        theory.objective(W, 1, 2, 1, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        theory.objective(W, 1, 2, 20, 0.0)
    with pytest.raises(ValueError, match="alpha"):
        theory.objective(W, 1, 2, 20, 1.0, alpha=1.5)
    with pytest.raises(ValueError, match="c must be"):
        theory.objective(W, 1, 2, 20, 1.0, c=0)
    with pytest.raises(ValueError, match="s must be in"):
        theory.objective(W, 4, 2, 20, 1.0)
    with pytest.raises(ValueError, match="W must contain only 0 and 1"):
        theory.objective(W * 2, 1, 2, 20, 1.0)
    with pytest.raises(ValueError, match="p must be > 0"):
        theory.lambda_star(W, 1, 0)


@pytest.mark.parametrize(("call", "name"), [
    (lambda W: theory.delta(W, 1, "1"), "p"),
    (lambda W: theory.lambda_star(W, 1, "1"), "p"),
    (lambda W: theory.objective(W, 1, ["2"], 20, 1.0), "p"),
    (lambda W: theory.upper_rate_exponent(4, 2, "0.1"), "lam"),
    (lambda W: theory.lower_bound("100", 1, 4, 2), "n"),
    (lambda W: theory.upper_bound("100", 1, 4, 2, 0.0), "n"),
    (lambda W: theory.lower_bound([True, True], 1, 4, 2), "n"),  # True was read as n = 1
    (lambda W: theory.lower_bound(100, [1, "2"], 4, 2), "epsilon"),
    (lambda W: theory.aligned_rate(100, [True, 2], 4, 2), "epsilon"),
])
def test_numeric_strings_and_booleans_are_refused_not_parsed(call, name):
    """As the scalar checks of epsilon and s do: "1" is not the number 1, True not n = 1."""
    with pytest.raises(ValueError, match=rf"^{name} must be .*, got "):
        call(gamma_mask(20, 3, 1.0))


def test_formulas_are_invariant_to_the_order_of_users():
    W = gamma_mask(500, 5, 0.7)
    V = shuffle_users(W, random_state=3)
    assert not np.array_equal(V, W)
    for s in range(6):
        assert theory.delta(V, s, 4) == theory.delta(W, s, 4)
        assert theory.lambda_star(V, s, 2.5) == theory.lambda_star(W, s, 2.5)
    assert theory.objective(V, 2, 3, 500, 1.0) == theory.objective(W, 2, 3, 500, 1.0)
    assert theory.select_s_p(V, 500, 2.0) == theory.select_s_p(W, 500, 2.0)
    pd.testing.assert_frame_equal(theory.objective_table(V, 500, 2.0),
                                  theory.objective_table(W, 500, 2.0))


def test_mask_profile_gives_the_same_answers_as_the_mask():
    W = gamma_mask(400, 5, 1.0)
    prof = theory.mask_profile(W)
    assert theory.mask_profile(prof) is prof
    assert prof.tail_counts.sum(axis=1).tolist() == [400] * 6
    assert theory.delta(prof, 2, 3) == theory.delta(W, 2, 3)
    assert theory.select_s_p(prof, 400, 1.0) == theory.select_s_p(W, 400, 1.0)


# ---------------------------------------------------------------------------------------------
# What (15) rewards: the cell side q = p / (d - s)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("W", [*random_masks(6, 6), gamma_mask(200, 5, 0.5)])
def test_a_larger_s_never_lowers_the_objective_at_fixed_cell_side(W):
    d = W.shape[1]
    for q in [0.2, 0.5, 1.0, 1.7, 3.0]:
        totals = [theory.objective(W, s, q * (d - s), 1000, 1.0).total for s in range(d)]
        assert all(b >= a * (1 - 1e-12) for a, b in itertools.pairwise(totals))


def test_aligned_mask_objective_depends_on_q_only_for_s_up_to_s_star():
    d, s_star = 5, 3
    W = aligned_mask(10, d, s_star)
    for q in [0.25, 0.8, 1.0, 2.2]:
        totals = [theory.objective(W, s, q * (d - s), 10_000, 1.0).total for s in range(d)]
        # s <= s*: the same function of q (the paper's "theoretically equivalent")
        assert totals[:s_star + 1] == pytest.approx([totals[0]] * (s_star + 1), rel=1e-12)
        # s > s*: strictly worse at the same cell side
        assert all(t > totals[s_star] for t in totals[s_star + 1:])
        # and the continuous minimiser's rate: lambda* (d - s) + s = s* for every s <= s*
        for s in range(s_star + 1):
            lam = theory.lambda_star(W, s, q * (d - s))
            assert s + lam * (d - s) == pytest.approx(s_star)


# ---------------------------------------------------------------------------------------------
# select_s_p and the table
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("W", ALL_MASKS)
def test_select_s_p_matches_brute_force_reference(W):
    if W.shape[1] == 1:
        assert theory.select_s_p(W, 64, 1.0) == ref_select(W.tolist(), 64, 1.0)
        return
    for n, eps, c, p_max, rtol in [(2, 1.0, 1.0, None, 1e-9), (64, 0.5, 1.0, None, 1e-9),
                                   (10_000, 4.0, 0.1, None, 1e-9), (300, 2.0, 1.0, 20, 1e-9),
                                   (1000, 1.0, 0.01, None, 0.2)]:
        got = theory.select_s_p(W, n, eps, c=c, p_max=p_max, tie_rtol=rtol)
        assert got == ref_select(W.tolist(), n, eps, c=c, p_max=p_max, rtol=rtol)
        assert isinstance(got[0], int) and isinstance(got[1], int)


def test_default_p_range():
    assert [theory.default_p_max(n) for n in (2, 3, 4, 5, 1024, 1025, 10_000)] == [
        1, 2, 2, 3, 10, 11, 14]
    table = theory.objective_table(gamma_mask(50, 3, 1.0), 10_000, 1.0)
    assert sorted(set(table["p"])) == list(range(1, 15))
    assert sorted(set(table["s"])) == [0, 1, 2]


def test_exact_tie_goes_to_the_larger_s():
    # d = 2, s* = 1: (s=0, p=2) and (s=1, p=1) both give 8 L + 1/4 with L = log n / (n eps^2)
    W = aligned_mask(30, 2, 1)
    n, eps = 100, 1.0
    L = math.log(n) / n
    a = theory.objective(W, 0, 2, n, eps)
    b = theory.objective(W, 1, 1, n, eps)
    assert a.total == pytest.approx(8 * L + 0.25, rel=1e-12)
    assert b.total == pytest.approx(8 * L + 0.25, rel=1e-12)
    assert theory.select_s_p(W, n, eps) == (1, 1)
    table = theory.objective_table(W, n, eps)
    best = table["total"].min()
    assert set(table.loc[np.isclose(table["total"], best, rtol=1e-9), "s"]) == {0, 1}


def test_aligned_selection_never_exceeds_s_star_but_can_fall_below_it():
    below = 0
    for d in range(2, 7):
        for s_star in range(d):
            W = aligned_mask(4, d, s_star)
            for n, eps in itertools.product((100, 10_000, 10**6), (0.5, 1.0, 4.0)):
                s, _ = theory.select_s_p(W, n, eps)
                assert s <= s_star
                below += s < s_star
    assert below > 0  # the integer grid of p breaks the tie between s <= s* (see select_s_p)


def test_aligned_selection_documented_cases():
    n, d = 10_000, 5
    # s* = 2: the search lands on s = s* for both budgets
    assert theory.select_s_p(aligned_mask(20, d, 2), n, 1.0)[0] == 2
    assert theory.select_s_p(aligned_mask(20, d, 2), n, 4.0)[0] == 2
    # s* = 3, eps = 1: s = 0 is *strictly* better than any s = 3 candidate, because
    # p / (d - s) = 4/5 is nearer the continuous optimum than any multiple of 1/2
    W = aligned_mask(20, d, 3)
    table = theory.objective_table(W, n, 1.0)
    by_s = table.groupby("s")["total"].min()
    assert by_s[0] < by_s[3] * (1 - 1e-3)
    assert theory.select_s_p(W, n, 1.0) == (0, 4)
    # accepting near-ties (10%) moves the choice back up to a larger s
    assert theory.select_s_p(W, n, 1.0, tie_rtol=0.1)[0] >= 2


def test_objective_table_is_consistent():
    W = gamma_mask(800, 4, 1.0)
    n, eps = 800, 2.0
    table = theory.objective_table(W, n, eps, c=0.1)
    p_max = theory.default_p_max(n)
    assert len(table) == 4 * p_max
    assert {"s", "p", "term1", "term2", "total", "lambda", "delta", "t", "exponent",
            "selected"} <= set(table.columns)
    np.testing.assert_allclose(table["total"], table["term1"] + table["term2"], rtol=1e-14)
    for row in table.sample(10, random_state=0).to_dict("records"):
        s, p = int(row["s"]), int(row["p"])
        terms = theory.objective(W, s, p, n, eps, c=0.1)
        assert row["term1"] == pytest.approx(terms.term1, rel=1e-12)
        assert row["term2"] == pytest.approx(terms.term2, rel=1e-12)
        assert row["lambda"] == pytest.approx(theory.lambda_star(W, s, p), abs=1e-12)
        assert row["delta"] == pytest.approx(theory.delta(W, s, p), rel=1e-9)
        assert row["t"] == theory.optimal_t(p, 4, s)
        assert row["exponent"] == pytest.approx(
            theory.upper_rate_exponent(4, s, row["lambda"]))
    chosen = table.loc[table["selected"]]
    assert len(chosen) == 1
    assert (int(chosen["s"].iloc[0]), int(chosen["p"].iloc[0])) == theory.select_s_p(
        W, n, eps, c=0.1)
    assert chosen["total"].iloc[0] == table["total"].min()


def test_objective_curve_matches_objective_and_is_fast():
    rng = np.random.default_rng(7)
    W = rng.random((10_000, 5)) < np.array([0.9, 0.6, 0.4, 0.2, 0.1])
    curve = theory.objective_curve(W, 1, 10_000, 2.0)
    np.testing.assert_array_equal(curve.p, np.arange(1, 15))
    np.testing.assert_allclose(curve.total, theory.objective(W, 1, curve.p, 10_000, 2.0).total)
    fine = theory.objective_curve(W, 1, 10_000, 2.0, p=np.linspace(0, 14, 200))
    assert fine.total.shape == (200,)
    timings = []
    for _ in range(15):
        start = time.perf_counter()
        theory.objective_curve(W, 1, 10_000, 2.0, p=np.linspace(0, 14, 200))
        timings.append(time.perf_counter() - start)
    assert min(timings) < 0.010


def test_select_s_p_corner_cases():
    # all-zero mask and single-user mask agree with the reference
    for W in (np.zeros((5, 4), dtype=bool), np.array([[1, 1, 0, 0]], dtype=bool)):
        assert theory.select_s_p(W, 1000, 1.0) == ref_select(W.tolist(), 1000, 1.0)
    # one feature: s = 0 is the only candidate
    assert theory.select_s_p(np.ones((4, 1)), 100, 1.0)[0] == 0
    # p beyond log2 n is searched when asked for
    W = np.zeros((5, 2), dtype=bool)
    assert theory.select_s_p(W, 4, np.inf, p_max=30) == (1, 30)
    with pytest.raises(ValueError, match="p_max"):
        theory.select_s_p(W, 4, 1.0, p_max=0)
    with pytest.raises(ValueError, match="tie_rtol"):
        theory.select_s_p(W, 4, 1.0, tie_rtol=-1)
    with pytest.raises(ValueError, match="n must be"):
        theory.select_s_p(W, 1, 1.0)


def test_optimal_t():
    assert theory.optimal_t(4, 5, 1) == 2        # 2^1
    assert theory.optimal_t(3, 5, 3) == 3        # 2^1.5 = 2.83
    assert theory.optimal_t(1, 5, 0) == 1        # 2^0.2 = 1.15
    assert theory.optimal_t(0, 5, 0) == 1
    assert theory.optimal_t(6, 4, 1) == 4        # 2^2
    assert theory.optimal_t(7, 2, 1) == 128
    np.testing.assert_array_equal(theory.optimal_t(np.array([2, 4, 6]), 4, 2), [2, 4, 8])
    with pytest.raises(ValueError, match="s must be in"):
        theory.optimal_t(3, 4, 4)


# ---------------------------------------------------------------------------------------------
# Rates and bounds (eqs 10, 13, 14)
# ---------------------------------------------------------------------------------------------
def test_upper_rate_exponent():
    for d, s, lam, alpha in [(5, 2, 0.0, 1.0), (5, 0, 0.4, 1.0), (3, 3, 0.7, 0.5), (1, 0, 1, 1)]:
        expected = 2 * alpha / (2 * alpha + d + s + lam * (d - s))
        assert theory.upper_rate_exponent(d, s, lam, alpha) == pytest.approx(expected)
    assert theory.upper_rate_exponent(4, 4, 0.9) == pytest.approx(2 / 10)  # s = d: lam inert
    lams = np.linspace(0, 1, 5)
    ex = theory.upper_rate_exponent(5, 1, lams)
    assert np.all(np.diff(ex) < 0)
    # lam = 1 loses all the public features: the fully private exponent
    fully_private = theory.upper_rate_exponent(5, 5, 0)
    assert theory.upper_rate_exponent(5, 1, 1.0) == pytest.approx(fully_private)
    for bad in [dict(lam=-0.1), dict(lam=1.5), dict(alpha=0), dict(s=6)]:
        args = dict(d=5, s=1, lam=0.2, alpha=1) | bad
        with pytest.raises(ValueError, match=next(iter(bad))):
            theory.upper_rate_exponent(**args)


def test_upper_bound_and_aligned_rate_vectorised():
    n = np.array([100, 1000, 10_000])
    eps = np.array([[0.5], [1.0], [4.0]])
    got = theory.upper_bound(n, eps, 5, 2, 0.3, alpha=0.8)
    assert got.shape == (3, 3)
    for i, e in enumerate([0.5, 1.0, 4.0]):
        for j, m in enumerate([100, 1000, 10_000]):
            expected = (math.log(m) / (m * e**2)) ** (1.6 / (1.6 + 5 + 2 + 0.3 * 3))
            assert got[i, j] == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(theory.aligned_rate(n, 2.0, 5, 2),
                               theory.upper_bound(n, 2.0, 5, 2, 0.0), rtol=1e-15)
    assert theory.upper_bound(100, np.inf, 5, 2, 0.0) == 0.0
    with pytest.raises(ValueError, match="n must be"):
        theory.upper_bound(1, 1.0, 5, 2, 0.0)
    with pytest.raises(ValueError, match="epsilon"):
        theory.upper_bound(10, [1.0, -1.0], 5, 2, 0.0)


def test_lower_bound_vectorised_and_its_two_regimes():
    n = np.array([10.0, 1e3, 1e5])
    eps = np.array([0.1, 1.0, 3.0, 10.0])[:, None]
    got = theory.lower_bound(n, eps, 4, 2, alpha=0.5)
    for i, e in enumerate([0.1, 1.0, 3.0, 10.0]):
        for j, m in enumerate([10.0, 1e3, 1e5]):
            private = (m * (math.exp(e) - 1) ** 2) ** (-1.0 / (1.0 + 4 + 2))
            public = m ** (-1.0 / (1.0 + 4))
            assert got[i, j] == pytest.approx(max(private, public), rel=1e-12)
    # no privacy: the non-private minimax rate
    assert theory.lower_bound(1e4, np.inf, 4, 2) == pytest.approx(1e4 ** (-2 / 6))
    # the two terms cross where (e^eps - 1) = n^{s / (4a + 2d)} (Section 4.1)
    m, d, s, a = 1e4, 4, 2, 1.0
    eps_star = math.log1p(m ** (s / (4 * a + 2 * d)))
    left = theory.lower_bound(m, eps_star * 0.9, d, s)
    right = theory.lower_bound(m, eps_star * 1.1, d, s)
    assert left > m ** (-2 * a / (2 * a + d)) * 1.01
    assert right == pytest.approx(m ** (-2 * a / (2 * a + d)))
    # s* = 0: privacy of the label only still costs, but less than s* = d
    assert theory.lower_bound(1e4, 0.5, 4, 0) < theory.lower_bound(1e4, 0.5, 4, 4)


def test_lower_bound_below_aligned_upper_rate_for_small_epsilon():
    n = np.geomspace(3, 1e7, 30)
    for eps in (0.05, 0.3, 1.0):
        for d, s in [(1, 0), (3, 1), (5, 2), (5, 5)]:
            lower = theory.lower_bound(n, eps, d, s)
            upper = theory.aligned_rate(n, eps, d, s)
            assert np.all(lower <= upper)


def test_best_depth_is_the_argmin_of_the_objective_for_that_s():
    from ldpviz.masks import gamma_mask

    W = gamma_mask(3000, 5, 1.0)
    for s in range(5):
        p_star, lam = theory.best_depth(W, s, 3000, 2.0)
        table = theory.objective_table(W, 3000, 2.0)
        rows = table[table.s == s]
        assert p_star == rows.loc[rows.total.idxmin(), "p"]
        assert lam == pytest.approx(theory.lambda_star(W, s, p_star))
