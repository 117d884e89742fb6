"""Checks for the course's "implement it yourself" exercises (notebook 01).

A student writes a randomizer and its debiasing; one call runs them on simulated people and
returns a plain verdict::

    check_randomized_response(my_randomized_response, my_share_estimate)
    check_grr(my_grr, my_grr_frequencies)

The student's functions are compared with the mechanisms' exact probabilities (Warner's
randomized response, and generalized randomized response, eq 16 of the HistOfTree paper) and
with the unbiased estimates computed from *the same* released answers, so a correct
implementation passes whatever random numbers it draws, and a wrong one is named with the
number that is off. Nothing the student's code raises escapes: it becomes part of the verdict.
"""

from __future__ import annotations

import numpy as np

from .._index import bincount
from ..mechanisms import grr_probabilities

#: People simulated per setting: the observed probabilities are then within about 0.5
#: percentage points of the truth, so a formula off by a few points is caught.
N_PEOPLE = 200_000
#: A probability is reported as wrong beyond this many standard errors (false alarm below one
#: in a million per comparison, so a correct implementation passes).
Z_LIMIT = 5.0
RR_SETTINGS = (0.5, 2.0)  # two budgets: a formula that happens to fit one is caught at the other
GRR_SETTINGS = ((4, 1.0), (12, 2.0))  # (k, epsilon)


class Verdict:
    """The outcome of an exercise check: ``passed`` and the lines shown to the student."""

    def __init__(self, title, problems, notes):
        self.passed = not problems
        self.problems = list(problems)
        head = (f"PASSED: {title}." if self.passed else
                f"NOT YET: {title}: {len(self.problems)} thing(s) to fix.")
        self.lines = [head, *(f"  - {p}" for p in self.problems), *(f"  ok: {n}" for n in notes)]

    def __repr__(self):
        return "\n".join(self.lines)


def _call(function, *args):
    """(result, None) or (None, a sentence saying what the student's function raised)."""
    name = getattr(function, "__name__", "your function")
    try:
        return function(*args), None
    except NotImplementedError:
        return None, f"{name} is not written yet (it raises NotImplementedError)."
    except Exception as exc:  # the student's code: report it, never let it escape
        return None, f"{name} raised {type(exc).__name__}: {exc}"


def _as_reports(result, n, k, name):
    """The student's reports as an int array of length n in 0..k-1, or a problem sentence."""
    try:
        arr = np.asarray(result)
    except Exception:  # an object numpy cannot read
        return None, f"{name} returned {type(result).__name__}, not an array."
    if arr.ndim == 0:
        return None, f"{name} returned one {type(result).__name__}, not an array of " \
                     f"answers; return one answer per person, shape ({n},)."
    if arr.shape != (n,):
        return None, f"{name} returned shape {arr.shape} for {n:,} people; return one " \
                     f"answer per person, shape ({n},)."
    if arr.dtype.kind not in "biuf" or not np.all(np.isin(arr, np.arange(k))):
        wanted = "0 or 1" if k == 2 else f"integers 0 .. {k - 1}"
        return None, f"{name} returned values other than {wanted}."
    return arr.astype(np.int64), None


def _rate_problem(observed, expected, count, what):
    """A sentence if ``observed`` is more than Z_LIMIT standard errors from ``expected``."""
    se = np.sqrt(expected * (1 - expected) / max(count, 1))
    if abs(observed - expected) > Z_LIMIT * se + 1e-12:
        return f"{what}: {observed:.1%} of the time; it should be {expected:.1%}."
    return None


def _simulated_people(rng, k, n=N_PEOPLE):
    """True values in 0..k-1 with unequal shares (so frequency estimates are tested)."""
    weights = 1.0 / np.arange(1, k + 1)
    return rng.choice(k, size=n, p=weights / weights.sum())


def check_randomized_response(randomize, estimate, seed=0):
    """Check a student's randomized response and its debiasing against the exact mechanism.

    Parameters
    ----------
    randomize : callable ``randomize(truth, epsilon, rng) -> answers``
        ``truth``: an int array of 0/1 (one secret bit per person); returns one 0/1 answer per
        person: the true bit with probability ``e^eps / (1 + e^eps)``, its opposite otherwise
        (Warner's randomized response, epsilon-LDP), drawing from the numpy Generator ``rng``.
    estimate : callable ``estimate(answers, epsilon) -> float``
        The unbiased estimate of the share of true 1s from the answers:
        ``(mean(answers) - (1 - p)) / (2p - 1)`` with ``p = e^eps / (1 + e^eps)``.
    seed : int, default=0
        Seeds the simulated people and the ``rng`` handed to ``randomize``.

    Returns
    -------
    Verdict
        Shown as plain text; ``.passed`` is True when every check holds at both budgets
        (``RR_SETTINGS``): each truth kept at the right rate for people with a true 0 and a
        true 1, and the estimate equal to the unbiased one on the same answers.
    """
    rng = np.random.default_rng(seed)
    problems, notes = [], []
    for epsilon in RR_SETTINGS:
        truth = (rng.random(N_PEOPLE) < 0.3).astype(np.int64)
        keep = float(grr_probabilities(2, epsilon)[0])  # e^eps / (1 + e^eps)
        result, error = _call(randomize, truth.copy(), epsilon, rng)
        answers, error = (None, error) if error else _as_reports(
            result, N_PEOPLE, 2, getattr(randomize, "__name__", "randomize"))
        if error:
            problems.append(error)
            break
        found = [_rate_problem(np.mean(answers[truth == bit] == bit), keep,
                               np.sum(truth == bit),
                               f"at epsilon = {epsilon:g}, people whose true bit is {bit} "
                               f"answered {bit}") for bit in (1, 0)]
        problems += [f for f in found if f]
        if not any(found):
            notes.append(f"epsilon = {epsilon:g}: the truth is kept {keep:.1%} of the time, "
                         "for true 0s and true 1s alike.")
        reference = (answers.mean() - (1 - keep)) / (2 * keep - 1)
        problems += _estimate_problems(estimate, (answers.copy(), epsilon), [reference],
                                       answers.mean(), truth.mean(), epsilon, notes)
        if problems:
            break
    return Verdict("your randomized response and its debiasing", problems, notes)


def _estimate_problems(estimate, args, reference, raw, true_share, epsilon, notes):
    """Problems with a student's estimate, compared with ``reference`` on the same reports."""
    name = getattr(estimate, "__name__", "estimate")
    result, error = _call(estimate, *args)
    if error:
        return [error]
    try:
        value = np.asarray(result, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        return [f"{name} returned {type(result).__name__}, not numbers."]
    reference, raw = np.asarray(reference, dtype=float), np.atleast_1d(raw)
    if value.shape != reference.shape:
        wanted = "one number" if len(reference) == 1 else f"{len(reference)} shares"
        return [f"{name} returned {value.size} value(s); return {wanted}."]
    if np.allclose(value, reference, rtol=1e-6, atol=1e-9):
        shown = f"{reference[0]:.4f}" if len(reference) == 1 else "every share"
        notes.append(f"epsilon = {epsilon:g}: your estimate equals the unbiased one "
                     f"({shown}) on the same answers.")
        return []
    hint = ""
    if np.allclose(value, raw):
        hint = " That is the raw share of the answers: it is pulled toward the uniform share " \
               "by the random answers; undo that (debias)."
    elif len(reference) > 1 and np.allclose(value, reference * len(args[0])):
        hint = " Those are counts; return shares (divide by the number of reports)."
    where = np.argmax(np.abs(value - reference))
    label = "" if len(reference) == 1 else f" for value {where}"
    return [f"at epsilon = {epsilon:g}, {name} gives {value[where]:.4f}{label}; the unbiased "
            f"estimate from the same answers is {reference[where]:.4f} (true share "
            f"{np.atleast_1d(true_share)[where]:.4f}).{hint}"]


def check_grr(randomize, estimate, seed=0):
    """Check a student's generalized randomized response and its frequency estimate.

    Parameters
    ----------
    randomize : callable ``randomize(values, k, epsilon, rng) -> reports``
        ``values``: ints in ``0 .. k-1``; returns one report per person: the true value with
        probability ``p = e^eps / (e^eps + k - 1)``, otherwise one of the *other* ``k - 1``
        values chosen uniformly (each with ``q = 1 / (e^eps + k - 1)``), eq (16).
    estimate : callable ``estimate(reports, k, epsilon) -> shares``
        The k unbiased frequency estimates ``(count_j / n - q) / (p - q)``.
    seed : int, default=0

    Returns
    -------
    Verdict
        ``.passed`` when, at each ``(k, epsilon)`` of ``GRR_SETTINGS``, every probability
        ``P(report = j | value = v)`` matches p or q within ``Z_LIMIT`` standard errors and
        the estimate equals the unbiased one on the same reports.
    """
    rng = np.random.default_rng(seed)
    problems, notes = [], []
    for k, epsilon in GRR_SETTINGS:
        values = _simulated_people(rng, k)
        p, q = (float(v) for v in grr_probabilities(k, epsilon))
        result, error = _call(randomize, values.copy(), k, epsilon, rng)
        reports, error = (None, error) if error else _as_reports(
            result, N_PEOPLE, k, getattr(randomize, "__name__", "randomize"))
        if error:
            problems.append(error)
            break
        found = _transition_problems(values, reports, k, epsilon, p, q)
        problems += found
        if not found:
            notes.append(f"k = {k}, epsilon = {epsilon:g}: the true value is reported "
                         f"{p:.1%} of the time, each other value {q:.1%}.")
        shares = bincount(reports, minlength=k) / N_PEOPLE
        reference = (shares - q) / (p - q)
        true_shares = bincount(values, minlength=k) / N_PEOPLE
        problems += _estimate_problems(estimate, (reports.copy(), k, epsilon), reference,
                                       shares, true_shares, epsilon, notes)
        if problems:
            break
    return Verdict("your generalized randomized response and its frequency estimate",
                   problems, notes)


def _transition_problems(values, reports, k, epsilon, p, q):
    """The worst-off probability P(report = j | value = v) against p (j = v) or q, if any."""
    table = np.zeros((k, k))
    np.add.at(table, (values, reports), 1)
    counts = table.sum(axis=1, keepdims=True)
    expected = np.where(np.eye(k, dtype=bool), p, q)
    z = (table / counts - expected) / np.sqrt(expected * (1 - expected) / counts)
    v, j = np.unravel_index(np.argmax(np.abs(z)), z.shape)
    if abs(z[v, j]) <= Z_LIMIT:
        return []
    what = (f"at k = {k}, epsilon = {epsilon:g}, people whose value is {v} reported "
            + (f"their true value {v}" if v == j else f"the other value {j}"))
    found = _rate_problem(table[v, j] / counts[v, 0], expected[v, j], counts[v, 0], what)
    if v != j:
        found += " Each of the k - 1 other values must be equally likely."
    return [found]
