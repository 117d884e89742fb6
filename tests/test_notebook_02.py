"""Notebook 02 (semi-feature LDP) states what its cells show.

These are the checks that used to sit in collapsed cells of the notebook: each reads the
variables the notebook leaves after a run in a fresh kernel.
"""

import numpy as np
import pytest
from _notebooks import notebook_namespace

from ldpviz.mechanisms import grr_is_better, grr_probabilities, privatize_labels


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace("02")


def test_two_coins_are_debiased_and_have_likelihood_ratio_three(ns):
    truth, answer = ns["truth"], ns["answer"]
    assert abs(2 * (answer.mean() - 0.25) - truth.mean()) < 0.03
    assert abs(answer[truth].mean() / answer[~truth].mean() - 3) < 0.3
    # like Warner's design with p = 3/4: the answer is the truth 3 times in 4
    assert abs(np.mean(answer == truth) - 0.75) < 0.02


def test_the_budget_split_always_adds_up_to_epsilon(ns):
    split = ns["split"]
    assert np.allclose(split["ε label"] + split["ε cells"], ns["epsilon"])


def test_finn_has_one_potential_cell_and_reports_it(ns):
    finn = list(ns["people"].index).index("Finn")
    reports, true_cell = ns["reports"], ns["true_cell"]
    assert reports.potential[finn].sum() == 1
    assert reports.reported[finn] == true_cell[finn]


def test_binary_rr_bits_outside_the_potential_cells_are_zero(ns):
    rr = ns["rr_reports"]
    assert not np.any(rr.reported & ~rr.potential)


def test_the_average_of_released_labels_approaches_the_truth(ns):
    averages = ns["averages"]["average of Ỹ"].to_numpy()
    assert abs(averages[-1] - ns["true_label"]) < 0.05
    assert abs(averages[-1] - ns["true_label"]) < abs(averages[0] - ns["true_label"])


def test_debiased_grr_reports_are_unbiased(ns):
    cells = ns["cells"]
    assert np.allclose(cells["debiased average"], [0, 0, 1, 0], atol=0.05)
    assert np.allclose(cells["reported how often"], cells["exact probability"], atol=0.01)


def test_every_mechanism_keeps_its_likelihood_ratio(ns):
    eps_label, eps_cells = ns["eps_label"], ns["eps_cells"]
    assert np.allclose(ns["ratios"]["worst ratio"], np.exp(eps_cells))  # GRR, every k
    assert np.isclose((ns["keep"] / ns["flip"]) ** 2, np.exp(eps_cells))  # RR: two bits
    log_ratio = ns["log_ratio"]
    assert log_ratio.max() <= eps_label + 1e-9 and np.isclose(log_ratio.max(), eps_label)
    assert np.isclose(eps_label + eps_cells, ns["epsilon"])  # the whole message: epsilon


def test_exercise_3_switch_between_grr_and_rr():
    # "puts the switch between 32 and 33 potential cells at this budget"
    assert grr_is_better(4, 2.0) and grr_is_better(32, 2.0)
    assert not grr_is_better(33, 2.0) and not grr_is_better(64, 2.0)
    assert grr_probabilities(4, 2.0)[0] > grr_probabilities(64, 2.0)[0]


def test_exercise_4_clipping_pulls_the_average_to_the_bound():
    released = privatize_labels(np.full(100_000, 2.5), 1.0, 1.0, np.random.default_rng(0))
    assert abs(released.mean() - 1.0) < 0.05
