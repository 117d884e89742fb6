"""Notebook 01's computations: the attacks succeed and fail where theory says, the Laplace
mechanism keeps its ratio, the composition table is exact, and bad input is refused."""

import numpy as np
import pytest
from scipy import stats

from ldpviz.viz.fundamentals import (
    compare_oracles,
    laplace_mechanism,
    linkage_example,
    local_vs_central,
    plot_neighbouring_counts,
    reconstruction_attack,
    repeated_collection,
)


def test_linkage_example_reidentifies_every_record_uniquely():
    released, voters = linkage_example()
    key = ["zip", "birth date", "sex"]
    assert not released.duplicated(key).any() and "name" not in released
    joined = released.merge(voters, on=key)
    assert len(joined) == len(released) and joined["name"].is_unique


def test_reconstruction_recovers_everything_from_exact_answers_and_little_from_dp():
    table = reconstruction_attack([0, 2, 50], n=200, n_queries=800, epsilon=1.0, seed=3)
    recovered = table["share of bits recovered"].to_numpy()
    assert recovered[0] == 1.0 and recovered[1] >= 0.95
    # E = 50 >> sqrt(200), and DP's Laplace: about 0.6 and 0.5 (SD of a share 0.035)
    assert recovered[2] < 0.75 and recovered[3] < 0.75
    sd = table["typical error of one answer"].to_numpy()
    assert np.isclose(sd[1], 2 / np.sqrt(3)) and np.isclose(sd[3], np.sqrt(2) * 800)


def test_more_queries_recover_more_at_the_same_noise():
    few = reconstruction_attack([10], n=100, n_queries=200, seed=0).iloc[0, 1]
    many = reconstruction_attack([10], n=100, n_queries=4000, seed=0).iloc[0, 1]
    assert many > few


def test_reconstruction_refuses_a_matrix_beyond_its_budget():
    with pytest.raises(ValueError, match="n_queries <="):
        reconstruction_attack([1], n=10_000, n_queries=10_000)
    with pytest.raises(ValueError, match="noise_levels"):
        reconstruction_attack([-1])


def test_laplace_mechanism_has_the_stated_scale_and_returns_floats_for_scalars():
    rng = np.random.default_rng(0)
    out = laplace_mechanism(np.zeros(200_000), sensitivity=2, epsilon=0.5, rng=rng)
    assert abs(np.mean(np.abs(out)) - 4) < 0.05  # mean |Laplace(b)| = b = 2 / 0.5
    assert isinstance(laplace_mechanism(3, 1, 1.0, rng), float)
    with pytest.raises(ValueError, match="sensitivity"):
        laplace_mechanism(3, 0, 1.0, rng)
    with pytest.raises(ValueError, match="epsilon"):
        laplace_mechanism(3, 1, -1.0, rng)


def test_neighbouring_counts_picture_bounds_the_log_ratio_by_epsilon():
    fig = plot_neighbouring_counts(epsilon=0.7, count=10)
    ratio = fig.axes[1].lines[0].get_ydata()
    assert np.max(np.abs(ratio)) <= 0.7 + 1e-9 and np.isclose(np.max(ratio), 0.7)
    with pytest.raises(ValueError, match="finite"):
        plot_neighbouring_counts(epsilon=np.inf)


def test_local_noise_is_sqrt_n_times_central():
    table = local_vs_central(n_users=2_500, epsilon=2.0, y_bound=3.0, repeats=400, seed=1)
    simulated, formula = table.iloc[:, 0].to_numpy(), table.iloc[:, 1].to_numpy()
    assert np.allclose(simulated, formula, rtol=0.15)
    assert np.isclose(formula[1] / formula[0], 50)
    with pytest.raises(ValueError, match="n_users"):
        local_vs_central(n_users=10_000_000, repeats=100)


def test_repeated_collection_is_the_exact_majority_and_the_composition_bound():
    table = repeated_collection(1.0, [1, 2, 7])
    p = np.e / (1 + np.e)
    assert np.allclose(table["total ε"], [1, 2, 7])
    assert np.isclose(table.loc[1, "majority of the answers is the truth"], p)
    # two answers: both true, or one of each and a fair coin
    assert np.isclose(table.loc[2, "majority of the answers is the truth"],
                      p**2 + p * (1 - p))
    assert np.isclose(table.loc[7, "majority of the answers is the truth"],
                      stats.binom.sf(3, 7, p))
    assert np.allclose(table["posterior from 50%, at most"], 1 / (1 + np.exp(-table["total ε"])))
    # a simulated attacker agrees with the exact value
    answers = np.random.default_rng(0).random((20_000, 7)) < p
    assert abs(np.mean(answers.sum(axis=1) > 3)
               - table.loc[7, "majority of the answers is the truth"]) < 0.01
    with pytest.raises(ValueError, match="repeats"):
        repeated_collection(1.0, [0])


def test_compare_oracles_measures_what_theory_predicts():
    table = compare_oracles(k=32, epsilon=2.0, n=50_000, seed=4)
    assert list(table.index) == ["grr", "sue", "oue", "olh"]
    assert np.all(table["measured / theory"].between(0.75, 1.3))
    with pytest.raises(ValueError, match="k"):
        compare_oracles(k=1, epsilon=1.0)
