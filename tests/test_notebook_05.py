"""Notebook 05 (theory you can touch): every claim its prose makes about a measured or computed
number, checked on the variables the notebook leaves behind (tests/_notebooks.py), so that the
notebook itself shows no test code."""

import itertools

import numpy as np
import pytest
from _notebooks import notebook_namespace

from ldpviz import theory
from ldpviz.model_selection import mean_noise_std
from ldpviz.viz.course import paired_gap

pytestmark = pytest.mark.slow

FIXED = [f"HistOfTree s = {s}" for s in (0, 1, 2)]
ORACLE = "oracle: c by the true error"
LDP = "LDP, split over users"
SEQUENTIAL = "LDP, sequential split"
OLD = "not private: held-out raw features"
UNTUNED = "no tuning: c = 1, (15) as printed"
DEFAULT = "no tuning: c = 'auto', stable (default)"
BEST_CANDIDATE = "(the best LDP candidate, by true error)"


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace("05")


def test_section_1_slopes(ns):
    slopes = ns["slopes"]
    assert np.allclose(-slopes["slope of (10)"], slopes["exponent 2/(2+d+s*)"])  # exact
    assert (-slopes["slope of (14)"] < slopes["exponent 2/(2+d+s*)"]).all()  # log n costs
    assert np.allclose(slopes["exponent 2/(2+d+s*)"].loc[[0, 5]], [2 / 7, 2 / 12])


def test_section_1_the_bounds_part_ways_in_epsilon():
    n, d, eps = 10_000, 5, np.array([0.5, 1, 2, 4, 8, 16])
    lower, upper = theory.lower_bound(n, eps, d, 2), theory.aligned_rate(n, eps, d, 2)
    assert np.isclose(lower[-1], n ** (-2 / 7)) and np.isclose(lower[-2], lower[-1])
    assert np.all(np.diff(upper) < 0)  # the upper bound keeps falling


def test_sections_2_and_3_the_objective(ns):
    rows = ns["rows_s1"]
    assert rows["term1"].is_monotonic_increasing and rows["term2"].is_monotonic_decreasing
    best_per_s = ns["best_per_s"]
    assert best_per_s.loc[0, "total"] == best_per_s.loc[1, "total"]  # an exact tie ...
    assert theory.select_s_p(ns["W"], 10_000, 2.0)[0] == 1  # ... goes to the larger s
    assert set(ns["selection"]["s"]) <= {0, 1}  # (15) picks s = 0 or 1 on these masks


def test_section_4_s_min(ns):
    assert ns["s_default"][0] == 0 and ns["s_with_min"][0] == 3 and ns["adaptive"].s_ == 3


def test_section_5_a_thicker_tail_costs_every_fixed_s(ns):
    for s in FIXED:
        gap, two_se = ns["tail_cost"][s]
        assert gap - two_se > 0  # thickest minus thinnest tail, beyond 2 SE
    # "five replications do not resolve every step": some neighbouring step is within noise
    best, gammas = ns["best"], sorted(ns["best"]["gamma"].unique())
    steps = [paired_gap(best[best["series"] == s], "gamma", a, b)
             for s in FIXED for a, b in itertools.pairwise(gammas)]
    assert any(abs(gap) < two_se for gap, two_se in steps)


def test_section_5_no_fixed_s_wins_everywhere(ns):
    best_fixed = ns["best_fixed"]
    assert best_fixed[0.25] == "HistOfTree s = 1" and best_fixed[4] == "HistOfTree s = 2"
    assert set(best_fixed) == {"HistOfTree s = 1", "HistOfTree s = 2"}  # s = 0 never


def test_section_5_adhistoftree_tracks_the_best_only_at_thick_tails(ns):
    versus = ns["versus_best"]
    for g in (0.25, 0.5):
        gap, two_se = versus[g]
        assert abs(gap) < two_se  # within 2 SE at the thickest tails
    for g in (1, 2, 4):
        gap, two_se = versus[g]
        assert gap > two_se  # measurably worse from γ = 1 on ...
    assert (ns["best_fixed"].loc[[1, 2, 4]] == "HistOfTree s = 2").all()  # where s = 2 wins
    assert all(s == 1 for s, _ in ns["rule"][0.01])  # (15) keeps s = 1 at every γ


def test_section_5_rule_15_as_printed_fails(ns):
    mean_mse = ns["mean_mse"]
    ratio = mean_mse.loc["AdHistOfTree, c = 1 (untuned)"] / ns["fixed"].min()
    assert (ratio > 9).all()  # "about ten times larger or more at every γ"
    assert np.allclose(ns["untuned_ratio"], ratio)
    rule = ns["rule"]
    assert all(p1 > p2 for (_, p1), (_, p2) in zip(rule[1.0], rule[0.01], strict=True))


def test_section_5b_one_run(ns):
    selector = ns["selector"]
    assert np.all(selector.epsilon_spent_ == 4.0)
    sel = selector.selection_
    noise = mean_noise_std(4.0, ns["loss_bound"], 3, ns["n_validation"])
    assert noise < mean_noise_std(4.0, ns["loss_bound"], 3, ns["n_validation"], "sequential")
    assert ns["n_validation"] == 2_000  # a fifth of the users
    assert np.allclose(sel.std_error, noise, rtol=0.1)  # almost all Laplace noise
    assert ns["loss_bound"] == 36 and sel.scale == 36 / 4
    difference = sel.mean_loss[2] - sel.mean_loss[0]  # c = 1 stands out
    assert difference > 2 * np.hypot(sel.std_error[2], sel.std_error[0])


def test_section_5b_what_tuning_under_ldp_costs(ns):
    table = ns["tuning_table"]
    means, gaps = table["mean"], table["difference"]
    gap, two_se = table.loc[LDP, ["difference", "difference 2 SE"]]
    assert gap > two_se  # worse than the oracle by a clear margin
    assert gaps[BEST_CANDIDATE] > gap / 2  # most of it: the split of the users
    old_gap, old_se = ns["ldp_vs_old"]
    assert old_se / 2 < old_gap < 2 * old_se  # "about as much as its two standard errors"
    assert means[UNTUNED] > 10 * means[LDP]  # (15) as printed: more than ten times worse
    assert means[SEQUENTIAL] > means[LDP]  # the sequential split chose worse
    gap, two_se = table.loc[DEFAULT, ["difference", "difference 2 SE"]]
    assert abs(gap) < two_se  # ldpviz's default: within 2 SE of the oracle
    assert list(table.index) == [ORACLE, OLD, LDP, SEQUENTIAL, BEST_CANDIDATE, UNTUNED,
                                 DEFAULT]


def test_exercise_2_and_3_choices_of_15(ns):
    assert theory.select_s_p(ns["W"], 10**6, 4.0)[0] == 2
    W_aligned = ns["W_aligned"]
    assert theory.select_s_p(W_aligned, 10_000, 1.0, tie_rtol=0.1)[0] == 2
    assert theory.select_s_p(W_aligned, 10_000, 1.0, tie_rtol=0.2)[0] == 3


def test_exercise_4_s3_wins_at_epsilon_1_through_t_1(ns):
    gaps, points = ns["aligned_gaps"], ns["aligned_points"]
    gap, two_se = gaps[1.0]
    assert gap < -two_se  # s = 3 better beyond two standard errors at ε = 1
    gap, two_se = gaps[4.0]
    assert abs(gap) < two_se  # within noise at ε = 4
    for eps in (1.0, 4.0):
        assert '"t":1' in points[eps, "s = 3"]  # no histogram at all


def test_exercise_5_tuning_does_not_pay_with_the_stable_estimate(ns):
    gap, two_se = ns["stable_vs_untuned"]
    assert 0 < gap < two_se  # no better than no tuning; the sign against the LDP choice
    gap, two_se = ns["stable_table"].loc[LDP, ["difference", "difference 2 SE"]]
    assert gap > two_se  # clearly behind the oracle
