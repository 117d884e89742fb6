"""Notebook 03 (HistOfTree step by step) states what its cells show.

The checks that used to sit in collapsed cells of the notebook, plus those of the answers
that now state their result: each reads the variables the notebook leaves after a run in a
fresh kernel, so a number that drifts fails here.
"""

import numpy as np
import pytest
from _notebooks import notebook_namespace

from ldpviz.viz import views
from ldpviz.viz.course import mean_2se


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace("03")


def test_round_one_average_survives_the_noise(ns):
    y, M = ns["y"], ns["M"]
    assert abs(ns["model"].y_tilde_.mean() - np.clip(y, -M, M).mean()) < 0.15


def test_the_root_splits_x5_and_the_tree_never_reads_a_private_value(ns):
    assert ns["splits"].loc[0, "feature"] == 4
    tree, rebuilt = ns["tree"], ns["rebuilt"].tree
    assert np.array_equal(rebuilt.threshold, tree.threshold, equal_nan=True)
    assert np.array_equal(rebuilt.feature, tree.feature)


def test_four_cells_meet_the_slice_and_every_user_has_four_potential_cells(ns):
    assert views.partition_view(epsilon=4, s_star=2, depth=2, t=2)["cells_in_slice"] == 4
    assert np.all(ns["reports"].potential.sum(axis=1) == 4)


def test_the_replay_is_exact_and_the_noisy_counts_add_up(ns):
    model, n = ns["model"], ns["n"]
    assert np.array_equal(ns["y_tilde"], model.y_tilde_)
    assert np.allclose(ns["numerator"], model.cell_numerator_)
    assert np.allclose(ns["denominator"], model.cell_denominator_)
    assert np.isclose(ns["denominator"].sum(), n)
    counts = ns["cells"]["count"]
    assert np.all(np.abs(ns["denominator"] - counts) < 0.2 * counts)  # within 20%


def test_exercise_1_every_debiased_grr_vector_sums_to_one(ns):
    assert np.allclose(ns["reports"].debiased.sum(axis=1), 1.0, atol=1e-12)


def test_the_figures_show_the_models_numbers(ns):
    # Section 4's figure and the printed MSE: the same fit (eq 9 as printed, rho = 0.5)
    view = views.partition_view(epsilon=4, s_star=2, depth=2, t=2, rho=0.5,
                                cell_estimate="paper")
    assert np.isclose(view["mse"], ns["mse_private"])
    assert np.isclose(view["mse_nonprivate"], ns["mse_nonprivate"])


def test_eq9_is_the_clipped_ratio_and_privacy_costs_beyond_the_noise(ns):
    M, model = ns["M"], ns["model"]
    assert np.allclose(model.cell_values_,
                       np.clip(ns["numerator"] / ns["denominator"], -M, M))
    ratio = ns["ratio"]
    assert ratio.mean() - 2 * ratio.std() / np.sqrt(len(ratio)) > 1


def test_eq9_is_eq3_without_privacy(ns):
    assert np.allclose(ns["exact"].cell_values_, ns["exact_means"])


def test_the_epsilon_sweep_with_eq9_as_printed(ns):
    sweep, var_f = ns["sweep"], ns["f_test"].var()
    private = sweep["MSE, eq (9) as printed"]
    assert private.is_monotonic_decreasing  # more budget, smaller error
    assert private.loc[1.0] > var_f  # worse than predicting one constant
    assert np.isclose(private.loc[np.inf], sweep.loc[np.inf, "MSE, eq (3), no privacy"])


def test_sparse_cells_explode_with_eq9_not_with_the_stable_estimate(ns):
    paper, stable, errors = ns["paper"], ns["stable"], ns["errors"]
    assert np.array_equal(paper.cell_denominator_, stable.cell_denominator_)  # same sums
    assert errors["stable"] < 0.1 * errors["paper"]
    assert np.median(stable.cell_std_error_) > 0.25 * 3 * np.sin(1)  # SE ~ range of f*


def test_the_noisier_the_cell_the_further_eq9_strays(ns):
    # section 8's figure: eq (9)'s distance to eq (3) grows with the cell's standard error,
    # the stable estimate's does not
    paper, stable, reference = ns["paper"], ns["stable"], ns["deep_cells"]["mean"].to_numpy()
    se = stable.cell_std_error_
    third = np.digitize(se, np.quantile(se, [1 / 3, 2 / 3]))

    def rms(fit):
        dev = fit.cell_values_ - reference
        return [np.sqrt(np.mean(dev[third == k] ** 2)) for k in range(3)]

    assert rms(paper)[2] > 1.3 * rms(paper)[0]  # the noisiest third strays furthest
    assert max(rms(stable)) < 0.5 * min(rms(paper))  # the stable estimate stays close


def test_the_explorer_questions(ns):
    depths, var_f = ns["depths"], ns["f_test"].var()
    paper, stable = depths["MSE, eq (9) as printed"], depths["MSE, stable estimate"]
    eq3 = depths["MSE, eq (3), no privacy"]
    assert paper.iloc[-1] > 10 * paper.iloc[0]  # eq (9) explodes with the depth
    assert stable.max() < 1.5 * eq3.max()  # the stable estimate does not
    assert eq3.max() < 1.5 * eq3.min()  # the non-private error barely moves
    s0, s5, t4 = (ns["settings"].iloc[k] for k in range(3))
    assert abs(s0["MSE, stable estimate"] - s0["MSE, eq (3), no privacy"]) < \
        0.2 * s0["MSE, eq (3), no privacy"]  # label LDP: nearly coincide
    assert s5["MSE, eq (9) as printed"] > 2 * var_f and s5["MSE, stable estimate"] < 1.5 * var_f
    assert s5["MSE, eq (3), no privacy"] < 0.5 * var_f
    assert t4["MSE, eq (9) as printed"] > 3 * t4["MSE, stable estimate"]
    assert t4["MSE, eq (3), no privacy"] < depths.loc[2, "MSE, eq (3), no privacy"]


def test_the_surface_questions(ns):
    surfaces, var_f = ns["surfaces"], ns["f_test"].var()
    at1, at1_big = surfaces["ε = 1, n = 10,000, eq (9)"], surfaces["ε = 1, n = 40,000, eq (9)"]
    assert at1.min() > 10 * var_f  # far worse than a constant
    assert at1_big.mean() < at1.mean() and at1_big.min() > 5 * var_f  # helps, not enough
    assert surfaces["ε = 1, n = 10,000, stable"].mean() < 1.5 * var_f  # about a constant
    assert surfaces["ε = 4, n = 10,000, eq (9)"].std() > 0  # the private MSE moves


def test_exercises_2_and_4_cart_and_rr_lose_beyond_two_standard_errors(ns):
    cart_gap, rr_gap = ns["cart_gap"], ns["rr_gap"]
    assert cart_gap[0] > cart_gap[1] and rr_gap[0] > rr_gap[1]
    splits = ns["cart_splits"]
    assert splits.loc[0, "feature"] == 4  # the root splits x5
    assert np.all(splits["threshold"].iloc[1:] > 0.95)  # end cuts near the upper edge


def test_exercise_3_small_epsilon(ns):
    found = mean_2se(ns["exercises"], "setting")
    mean, two_se = found["mean"], found["2 SE"]
    var_f = ns["f_test"].var()
    # rho has no effect at t = 1 (every user spends all of epsilon on the label)
    runs = ns["exercises"].set_index(["setting", "rep"])["mse"]
    assert np.allclose(runs["ε = 1, t = 1, depth 1, ρ 0.5"], runs["ε = 1, t = 1, depth 1, ρ 0.9"],
                       rtol=1e-12)
    t1d1 = "ε = 1, t = 1, depth 1, ρ 0.5"
    assert mean[t1d1] < var_f < mean[t1d1] + two_se[t1d1]  # below, within two SE
    assert mean["ε = 1, t = 1, depth 0, ρ 0.5"] > var_f  # slightly above it
    t1d2, t2d2 = "ε = 1, t = 1, depth 2, ρ 0.5", "ε = 1, t = 2, depth 2, ρ 0.5"
    assert mean[t2d2] > mean[t1d2]  # the label's lost budget shows
    assert mean["ε = 1, t = 2, depth 2, ρ auto"] <= 1.05 * mean[t1d2]  # the rule gives it back
