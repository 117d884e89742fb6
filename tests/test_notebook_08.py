"""Notebook 08 (when public features leak): every claim its prose makes about a measured or
computed number, checked on the variables the notebook leaves behind (tests/_notebooks.py), so
that the notebook itself shows no test code."""

import numpy as np
import pytest
from _notebooks import notebook_namespace

from ldpviz import bcdp

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace("08")


def test_section_1_the_public_bit_overtakes_the_release_from_r_one_half(ns):
    attack = ns["attack"]
    assert attack.loc[0.9, "public_exact"] > attack.loc[0.9, "release_exact"]
    assert attack.loc[0.5, "public_exact"] >= attack.loc[0.5, "release_exact"]
    assert attack.loc[0.4, "public_exact"] < attack.loc[0.4, "release_exact"]
    assert np.isclose(attack.loc[1.0, "public_exact"], 1)  # r = 1 gives S away
    np.testing.assert_allclose(attack["public_exact"], (1 + attack.index) / 2)


def test_section_1_the_bcdp_level_adds_what_p_reveals(ns):
    attack = ns["attack"]
    r = attack.index[attack.index < 1].to_numpy()
    np.testing.assert_allclose(attack.loc[r, "delta_private"], 1 + np.log((1 + r) / (1 - r)))
    assert np.isinf(attack.loc[1.0, "delta_private"])


def test_examples_1_and_2(ns):
    np.testing.assert_allclose(ns["example1"], np.log(2))  # each coordinate log 2 ...
    assert np.isinf(bcdp.ldp_epsilon(bcdp.paper_example_1(0.5, 0.5, 0.5)[1]))  # ... not LDP
    assert ns["once"][0] == 0 and np.isinf(ns["twice"][0])  # 0-BCDP once, unbounded twice


def test_section_3_schedules(ns):
    schedules = ns["schedules"]
    np.testing.assert_allclose(schedules[0], ns["demands"])  # q = 0: each its own demand
    assert (schedules[0.01].iloc[2:] == 2).all()  # the others keep 2 at q = 0.01
    np.testing.assert_allclose(schedules[1], 0.2)  # q = 1: the LDP baseline


def test_section_4_what_the_sweep_says(ns):
    at = ns["sweep"].loc
    assert at[0.01, "bcdp_total"] < at[0.01, "ldp_total"]  # small q: BCDP's total is lower
    assert at[0.01, "bcdp_sensitive"] > at[0.01, "ldp_sensitive"]  # ... x1, x2 are worse
    assert at[0.5, "bcdp_total"] > at[0.5, "ldp_total"]  # moderate q: BCDP loses
    assert at[0.5, "bcdp_total_projected"] > at[0.5, "ldp_total_projected"]  # projected too
    assert np.isclose(at[1, "bcdp_total"], at[1, "ldp_total"])  # q = 1: the same schedule
    assert at[1, "bcdp_total_projected"] != at[1, "ldp_total_projected"]  # simulation noise
    assert 0 < ns["crossing"] < 0.2  # "the exact totals cross at a small q"
    first_projected = ns["sweep"].index[ns["projected"]].min()
    assert first_projected > ns["crossing"]  # "... the simulated totals cross later"
    assert at[0.99, "bcdp_total"] > 10 * at[0.99, "ldp_total"]  # near q = 1 it explodes


def test_section_6_the_published_ratio_gives_hdl_away(ns):
    leak = ns["leak"]
    assert leak["r_bits"] < 0 < leak["share_right"] - leak["release_exact"]


def test_exercise_2_the_mask_leak():
    alone = bcdp.mask_attack(0.9, 0.1, prevalence=0.5)
    spent = bcdp.mask_attack(0.9, 0.1, prevalence=0.5, epsilon=1.0)
    assert alone["hide_share"] == pytest.approx(0.5)  # "half the users hide S"
    assert alone["accuracy_hiders"] == pytest.approx(0.9)
    assert alone["accuracy_all"] == pytest.approx(0.95) == spent["accuracy_all"]
    assert alone["delta_mask"] == pytest.approx(np.log(9))
    assert np.isinf(alone["delta_all"]) and np.isinf(spent["delta_all"])
    assert alone["delta_hiders"] == pytest.approx(np.log(9))  # at least log 9 ...
    assert spent["delta_hiders"] == pytest.approx(np.log(9) + 1)  # ... at most log 9 + ε
