"""The checks of the course's "implement it yourself" exercises pass correct code, whatever
its random numbers, and catch the usual mistakes, each with a sentence naming it."""

import numpy as np
import pytest

from ldpviz.viz.exercises import check_grr, check_randomized_response


def good_rr(truth, epsilon, rng):
    keep = rng.random(len(truth)) < np.exp(epsilon) / (1 + np.exp(epsilon))
    return np.where(keep, truth, 1 - truth)


def good_share(answers, epsilon):
    p = np.exp(epsilon) / (1 + np.exp(epsilon))
    return (np.mean(answers) - (1 - p)) / (2 * p - 1)


def good_grr(values, k, epsilon, rng):
    keep = rng.random(len(values)) < np.exp(epsilon) / (np.exp(epsilon) + k - 1)
    other = rng.integers(0, k - 1, len(values))
    other = other + (other >= values)
    return np.where(keep, values, other)


def good_frequencies(reports, k, epsilon):
    p = np.exp(epsilon) / (np.exp(epsilon) + k - 1)
    q = 1 / (np.exp(epsilon) + k - 1)
    return (np.bincount(reports, minlength=k) / len(reports) - q) / (p - q)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_correct_implementations_pass_whatever_their_random_numbers(seed):
    rr = check_randomized_response(good_rr, good_share, seed=seed)
    grr = check_grr(good_grr, good_frequencies, seed=seed)
    assert rr.passed and grr.passed, (rr, grr)
    assert repr(rr).startswith("PASSED") and repr(grr).startswith("PASSED")


def test_a_boolean_randomized_response_passes_too():
    def as_bool(truth, epsilon, rng):
        return good_rr(truth, epsilon, rng).astype(bool)

    assert check_randomized_response(as_bool, good_share).passed


def _fails(verdict, *words):
    text = repr(verdict)
    assert not verdict.passed and text.startswith("NOT YET"), text
    for word in words:
        assert word in text, (word, text)


def test_wrong_keep_probabilities_are_caught():
    def eps_not_exp(truth, epsilon, rng):  # epsilon / (1 + epsilon): a classic slip
        keep = rng.random(len(truth)) < epsilon / (1 + epsilon)
        return np.where(keep, truth, 1 - truth)

    def no_noise(truth, epsilon, rng):
        return truth

    def only_ones_flipped(truth, epsilon, rng):  # randomizes true 1s only
        keep = rng.random(len(truth)) < np.exp(epsilon) / (1 + np.exp(epsilon))
        return np.where(keep | (truth == 0), truth, 0)

    _fails(check_randomized_response(eps_not_exp, good_share), "62.2%")
    _fails(check_randomized_response(no_noise, good_share), "100.0% of the time")
    _fails(check_randomized_response(only_ones_flipped, good_share), "true bit is 0")


def test_a_formula_right_at_one_budget_only_is_caught_at_the_other():
    def fixed_half(truth, epsilon, rng):  # hard-codes epsilon = 0.5
        keep = rng.random(len(truth)) < np.exp(0.5) / (1 + np.exp(0.5))
        return np.where(keep, truth, 1 - truth)

    _fails(check_randomized_response(fixed_half, good_share), "epsilon = 2")


def test_wrong_estimates_are_caught_with_a_hint():
    def raw(answers, epsilon):
        return np.mean(answers)

    def wrong_sign(answers, epsilon):
        p = np.exp(epsilon) / (1 + np.exp(epsilon))
        return (np.mean(answers) + (1 - p)) / (2 * p - 1)

    _fails(check_randomized_response(good_rr, raw), "raw share", "debias")
    _fails(check_randomized_response(good_rr, wrong_sign), "unbiased estimate")


def test_grr_mistakes_are_caught():
    def replacement_among_all(values, k, epsilon, rng):  # may "replace" by the truth
        keep = rng.random(len(values)) < np.exp(epsilon) / (np.exp(epsilon) + k - 1)
        return np.where(keep, values, rng.integers(0, k, len(values)))

    def never_the_last(values, k, epsilon, rng):  # others uniform over k - 2 values only
        keep = rng.random(len(values)) < np.exp(epsilon) / (np.exp(epsilon) + k - 1)
        other = rng.integers(0, k - 2, len(values))
        other = other + (other >= values)
        return np.where(keep, values, other)

    def counts(reports, k, epsilon):
        return good_frequencies(reports, k, epsilon) * len(reports)

    _fails(check_grr(replacement_among_all, good_frequencies), "their true value")
    _fails(check_grr(never_the_last, good_frequencies), "equally likely")
    _fails(check_grr(good_grr, counts), "counts")
    _fails(check_grr(good_grr, lambda r, k, e: np.bincount(r, minlength=k) / len(r)),
           "raw share")


def test_whatever_the_student_code_does_the_check_returns_a_verdict():
    def todo(*args):
        raise NotImplementedError("write it")

    def crash(*args):
        return 1 / 0

    _fails(check_randomized_response(todo, good_share), "not written yet")
    _fails(check_randomized_response(good_rr, todo), "not written yet")
    _fails(check_randomized_response(crash, good_share), "ZeroDivisionError")
    _fails(check_randomized_response(lambda t, e, r: [0, 1], good_share), "shape (2,)")
    _fails(check_randomized_response(lambda t, e, r: t * 2, good_share), "other than 0 or 1")
    _fails(check_randomized_response(lambda t, e, r: object(), good_share), "one object")
    _fails(check_randomized_response(good_rr, lambda a, e: "a string"), "not numbers")
    _fails(check_randomized_response(good_rr, lambda a, e: [0.3, 0.7]), "one number")
    _fails(check_grr(good_grr, lambda r, k, e: 0.5), "4 shares")
    _fails(check_grr(lambda v, k, e, r: v + k, good_frequencies), "integers 0 ..")


def test_the_student_cannot_corrupt_the_checks_data():
    def mutating(truth, epsilon, rng):
        answers = good_rr(truth, epsilon, rng)
        truth[:] = 0  # overwrites its input
        return answers

    assert check_randomized_response(mutating, good_share).passed
