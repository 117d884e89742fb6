"""Notebook 04 (personalized privacy): every claim its prose makes about a measured or computed
number, checked on the variables the notebook leaves behind (tests/_notebooks.py), so that the
notebook itself shows no test code."""

import numpy as np
import pytest
from _notebooks import notebook_namespace

from ldpviz import masks, theory

pytestmark = pytest.mark.slow

PAPER = "eq (9) as printed, ρ = 0.5"
STABLE = "stable estimate, ρ = 'auto'"


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace("04")


def test_section_1_who_protects_what(ns):
    users = ns["summary"].users
    assert users[0] == 0 and users[1] == 0.5 and users[5] == pytest.approx(0.2)
    assert list(masks.protection_ranking(ns["W_gamma"])) == [0, 1, 2, 3, 4]


def test_section_2_ranking_and_shares(ns):
    assert np.allclose(ns["shares"]["(c) spread"], 0.4)  # 40% protect each feature
    spread = ns["figure1"]["(c) spread"]
    assert list(masks.protection_ranking(spread)) == [0, 1, 2, 3, 4]  # a tie, by index
    concentrated = ns["figure1"]["(b) concentrated"]
    assert concentrated[:, 0].sum() > 0.5 * concentrated.sum()  # one axis, most protection


def test_section_3_potential_cells(ns):
    assert ns["model"].n_cells_ == 32  # 2 bins x 16 leaves: each tree axis split once
    assert list(ns["V"].sum(axis=1)) == [2, 4, 8, 16, 32]  # each hidden coordinate doubles
    toy = ns["toy"]
    for w, size in (([False, True], 4), ([True, False], 2), ([True, True], 8)):
        assert toy.potential_cells(np.array([[0.3, 0.6]]), np.array([w])).sum() == size


def test_section_4_delta_and_lambda(ns):
    assert np.isclose(ns["blow_up"], theory.delta(ns["W_gamma"], 1, 4))  # mean blow-up
    lam = ns["lam"]
    assert lam["λ*"].is_monotonic_increasing  # λ* grows as γ falls (thicker tail)
    assert lam["p*"].is_monotonic_decreasing  # ... the best depth p* shrinks
    assert lam["rate exponent (13)"].is_monotonic_decreasing  # ... the rate gets slower
    assert lam["rate exponent (13)"].min() > 2 / (2 + 2 * 5)  # towards the private 0.17
    assert lam.loc[1.0, "p*"] == 5 and lam.loc[0.5, "p*"] == 4  # p* drops from 5 to 4 ...
    assert lam.loc[1.0, "δ(p*)"] == pytest.approx(lam.loc[0.5, "δ(p*)"], rel=1e-3)  # flat


def test_section_6_a_thicker_tail_costs(ns):
    means = ns["by_gamma"]["mean"]
    for name in (PAPER, STABLE):
        assert means[name].is_monotonic_decreasing  # error falls at every step of γ
        gap, two_se = ns["tail_gap"][name]
        assert gap - two_se > 0  # the extremes differ beyond two standard errors
    gap, two_se = ns["tail_gap"][PAPER]
    assert gap > 2 * two_se  # "several standard errors wide" (here: more than four)
    assert ns["tail_gap"][STABLE][0] < ns["tail_gap"][PAPER][0] / 2  # "a fraction of"


def test_section_7_clear_public_labels_help(ns):
    gap, two_se = ns["lpdt_gap"]
    assert gap > two_se > 0  # HistOfTree minus LPDT: beyond two standard errors


def test_exercise_4_the_gap_shrinks_far_more_than_one_over_epsilon_squared(ns):
    gap, two_se = ns["gap"], ns["two_se"]
    for name in (PAPER, STABLE):
        assert gap[name, 8.0] < gap[name, 4.0]  # it shrinks
    assert gap[PAPER, 8.0] - two_se[PAPER, 8.0] < 0  # within noise of zero at ε = 8
    assert gap[PAPER, 4.0] / ns["upper_8"][PAPER] > 10  # more than ten times, even its top
    assert ns["factors"][STABLE] < ns["factors"][PAPER]  # the stable gap shrinks by less
    assert round(ns["grr_var"][2.0] / ns["grr_var"][4.0]) == 22


def test_exercise_4_the_noise_of_ratio_9_explains_the_gap(ns):
    excess, gap, two_se = ns["excess"], ns["gap"], ns["two_se"]
    for eps in (4.0, 8.0):  # the thick tail's extra variance matches the measured gap
        assert abs(excess[eps] - gap[PAPER, eps]) < two_se[PAPER, eps]
    ratio = excess[4.0] / excess[8.0]
    assert ratio > ns["grr_var"][2.0] / ns["grr_var"][4.0] > 4  # more than GRR's factor alone
