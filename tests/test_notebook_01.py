"""Notebook 01 (local DP fundamentals) states what its cells show.

The notebook runs once in a fresh kernel (``notebook_namespace``); each test reads the
variables it leaves and checks one claim of its prose, so a number that drifts fails here
rather than in a cell the students see.
"""

import json
import re

import numpy as np
import pytest
from _notebooks import notebook_namespace, notebook_path

from ldpviz import frequency_oracles as fo
from ldpviz.viz import views
from ldpviz.viz.exercises import check_grr, check_randomized_response


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace("01")


def test_the_join_names_every_released_record(ns):
    released, voters = ns["released"], ns["voters"]
    joined = released.merge(voters, on=["zip", "birth date", "sex"])
    assert len(joined) == len(released) and joined["name"].is_unique


def test_reconstruction_succeeds_below_sqrt_n_and_fails_beyond(ns):
    recovered = ns["attack"]["share of bits recovered"].to_numpy()
    # rows: errors 0, 1, 2, 5, 10, 20, 50, then Laplace with a total epsilon of 1
    assert np.all(recovered[:3] == 1.0) and recovered[3] >= 0.95  # "almost every secret"
    assert recovered[4] < 0.8  # sqrt(n) = 10: many bits wrong
    assert np.all(recovered[5:] <= 0.62)  # near a coin flip


def test_laplace_releases_are_off_by_about_one(ns):
    assert np.mean(np.abs(ns["releases"] - 41)) < 3


def test_randomized_response_is_debiased_within_its_error_bars(ns):
    truth, answers, shares = ns["truth"], ns["answers"], ns["shares"]
    true_yes = truth.mean()
    assert abs(shares.estimate[1] - true_yes) <= 2 * shares.std[1]
    assert abs(answers.mean() - 0.5) < abs(true_yes - 0.5)  # pulled toward one half
    # "more than twice what 100,000 truthful answers would give"
    assert shares.std[1] > 2 * np.sqrt(true_yes * (1 - true_yes) / len(truth))


def test_local_noise_is_sqrt_n_times_central(ns):
    noise = ns["noise"]
    simulated, formula = noise.iloc[:, 0].to_numpy(), noise.iloc[:, 1].to_numpy()
    assert np.allclose(simulated, formula, rtol=0.15)
    assert np.isclose(formula[1] / formula[0], 100)


def test_a_hundred_answers_give_the_secret_away(ns):
    majority = ns["repeated"]["majority of the answers is the truth"]
    assert majority.is_monotonic_increasing and majority.loc[101] > 0.99
    bound = ns["repeated"]["posterior from 50%, at most"]
    assert np.all(bound >= majority - 1e-12)  # the composition bound holds


def test_oracle_variance_grr_grows_with_k_unary_and_hashing_do_not():
    # the picture of section 7: views.oracle_variance_view(epsilon=1, k=64, n=100_000)
    out = views.oracle_variance_view(epsilon=1.0, k=64, n=100_000)
    by_k, k = out["by_k"], np.asarray(out["k_values"])
    assert np.all(np.diff(by_k["grr"]) > 0)
    assert np.ptp(by_k["oue"]) < 1e-15 and np.all(by_k["sue"] >= by_k["oue"])
    assert np.allclose(by_k["olh"], by_k["oue"], rtol=0.1)
    small = k < 3 * np.e + 2  # Wang et al.'s crossing at epsilon = 1, "about 10"
    assert np.all(by_k["grr"][small] <= by_k["oue"][small])
    assert np.all(by_k["grr"][~small] > by_k["oue"][~small])
    assert fo.best_oracle(165, 4.0) == "grr" and fo.best_oracle(167, 4.0) != "grr"  # ~166


def test_measured_oracle_errors_follow_the_theory(ns):
    oracles = ns["oracles"]
    assert np.all(oracles["measured / theory"].between(0.8, 1.25))
    assert oracles["RMS error (measured)"].idxmax() == "grr"  # far the worst at k = 64


def test_exercise_4_answer():
    assert (fo.best_oracle(50, 1.0), fo.best_oracle(50, 4.0)) == ("oue", "grr")
    olh, oue = (fo.oracle_variance(o, 1, 50, 1.0) for o in ("olh", "oue"))
    assert olh / oue < 1.1  # "OUE (and OLH, nearly tied)"


def _answer_code(exercise):
    """The Python of Exercise ``exercise``'s Answer block in notebook 01."""
    cells = json.loads(notebook_path("01").read_text())["cells"]
    source = next("".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
                  and "".join(c["source"]).startswith(f"**Exercise {exercise} "))
    answer = source.split("<details>", 1)[1]
    return "\n".join(re.findall(r"```python\n(.*?)```", answer, re.DOTALL))


def test_the_answer_to_exercise_1_passes_its_check():
    names = {"np": np}
    exec(_answer_code(1), names)
    verdict = check_randomized_response(names["my_randomized_response"],
                                        names["my_share_estimate"])
    assert verdict.passed, verdict
    assert "62.2%" in repr(verdict) and "88.1%" in repr(verdict)  # as the answer says


def test_the_answer_to_exercise_2_passes_its_check():
    names = {"np": np}
    exec(_answer_code(2), names)
    verdict = check_grr(names["my_grr"], names["my_grr_frequencies"])
    assert verdict.passed, verdict
    assert all(f"{p}%" in repr(verdict) for p in ("47.5", "17.5", "40.2", "5.4"))
