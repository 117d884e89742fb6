"""The run-time estimate's arithmetic (the timing itself is checked against measurements in
benchmarks/bench_whatif.py, never in a timed test): grid points counted, pilots extrapolated
in the table's size, one round of tasks per ceil(splits / workers)."""

import math

import numpy as np
import pytest

from ldpviz.reproduce import runtime
from ldpviz.reproduce.experiments import Arm, SplitData
from ldpviz.reproduce.whatif import DecadeMask


class _Fit:
    """A stand-in estimator (its time comes from the patched pilot clock)."""

    def __init__(self, depth=1, leaf=1):
        self.depth, self.leaf = depth, leaf

    def fit(self, X, y, W=None):
        return self

    def predict(self, X):
        return np.zeros(len(X))


@pytest.fixture
def pilot(monkeypatch):
    """Each grid point costs ``depth * 1e-6 * rows`` CPU seconds; the calls are recorded."""
    calls = []

    def seconds(arm, config, X, y, X_test, W):
        calls.append((arm.method, dict(config), len(y), W is not None))
        return config["depth"] * 1e-6 * len(y)

    monkeypatch.setattr(runtime, "_fit_seconds", seconds)
    return calls


def _arms(n, grid, mask=None):
    data = SplitData(np.random.default_rng(0).random((n, 3)), np.zeros(n), (-1, 1), 0.3)
    return [Arm("A", _Fit, data, {}, {}, grid, mask), Arm("B", _Fit, data, {}, {}, grid)]


def test_the_estimate_counts_every_grid_point_of_every_split(pilot):
    grid = {"depth": (1, 2, 3), "leaf": (1, 10)}
    arms = _arms(1000, grid, mask=DecadeMask((0,)))
    seconds, n_fits, jobs = runtime.estimate_seconds(arms, 5, None)
    assert (n_fits, jobs) == (2 * 6 * 5, 1)
    per_fit = np.mean([1, 2, 3]) * 1e-6 * 700  # every point timed: fast fits
    assert seconds == pytest.approx(n_fits * per_fit)
    assert len(pilot) == 2 * 6 and all(rows == 700 for _, _, rows, _ in pilot)
    assert {masked for method, _, _, masked in pilot if method == "A"} == {True}


def test_a_large_table_is_timed_at_three_sizes_and_extrapolated(pilot):
    arms = _arms(100_000, {"depth": (1, 3)})
    seconds, n_fits, _ = runtime.estimate_seconds(arms, 2, None)
    assert {rows for *_, rows, _ in pilot} == {runtime.PILOT_ROWS // 4, runtime.PILOT_ROWS,
                                               70_000}  # the third: the table itself
    assert seconds == pytest.approx(n_fits * 2 * 1e-6 * 70_000)  # linear in n: exact


def _power_law(monkeypatch, seconds_at):
    calls = []

    def seconds(arm, config, X, y, X_test, W):
        calls.append(len(y))
        return config["depth"] * seconds_at(len(y))

    monkeypatch.setattr(runtime, "_fit_seconds", seconds)
    return calls


@pytest.mark.parametrize("exponent", [1.0, 1.3, 1.6])
def test_the_extrapolation_recovers_a_known_growth_in_n(monkeypatch, exponent):
    """Fits whose time grows as n**exponent: the pilots at 5,000, 20,000 and 80,000 rows find
    the exponent and the estimate at 700,000 training rows is that power (a line through the
    two smaller sizes would fall short by (700,000 / 20,000)**0.3 = 2.9x at n**1.3)."""
    calls = _power_law(monkeypatch, lambda rows: 1e-9 * rows**exponent)
    arms = _arms(1_000_000, {"depth": (1, 2, 3)})[:1]
    estimate, n_fits, _ = runtime.estimate_seconds(arms, 20, None)
    assert sorted(set(calls)) == [5_000, 20_000, 4 * runtime.PILOT_ROWS]
    assert calls.count(4 * runtime.PILOT_ROWS) == 1  # the third size: the costliest point
    assert estimate == pytest.approx(n_fits * 2 * 1e-9 * 700_000**exponent, rel=1e-6)


def test_a_fixed_cost_does_not_make_a_fit_grow_slower_than_n(monkeypatch):
    """A fixed cost flattens the pilots' slope below 1; the estimate still grows as n from the
    largest pilot size, never slower (every fit reads every row)."""
    _power_law(monkeypatch, lambda rows: 0.01 + 1e-7 * rows)
    arms = _arms(1_000_000, {"depth": (1,)})[:1]
    estimate, n_fits, _ = runtime.estimate_seconds(arms, 20, None)
    at_third = 0.01 + 1e-7 * 4 * runtime.PILOT_ROWS
    assert estimate == pytest.approx(n_fits * at_third * 700_000 / (4 * runtime.PILOT_ROWS))


def test_the_third_size_stays_within_the_pilot_s_share(monkeypatch):
    """One split of a costly grid: the third pilot size shrinks so that its one fit costs at
    most PILOT_SHARE of the grid's estimated run, and is skipped below twice the second."""
    calls = _power_law(monkeypatch, lambda rows: 1e-4 * rows)  # 2 s at 20,000 rows
    arms = _arms(1_000_000, {"depth": (1,)})[:1]
    estimate, n_fits, _ = runtime.estimate_seconds(arms, 1, None)
    assert max(calls) == runtime.PILOT_ROWS  # 70 s estimated: 2.1 s allowed, 4 s needed
    assert estimate == pytest.approx(n_fits * 1e-4 * 700_000)
    calls.clear()
    estimate, n_fits, _ = runtime.estimate_seconds(arms, 2, None)
    third = max(calls)  # 140 s estimated: 4.2 s allowed, at most 42,000 rows
    assert 2 * runtime.PILOT_ROWS <= third <= 42_000
    assert estimate == pytest.approx(n_fits * 1e-4 * 700_000)


def test_workers_take_one_split_each_per_round(pilot):
    arms = _arms(1000, {"depth": (2,)})
    one, _, _ = runtime.estimate_seconds(arms, 5, 1)
    two, _, jobs = runtime.estimate_seconds(arms, 5, 2)
    assert jobs == 2
    assert two == pytest.approx(one * math.ceil(5 / 2) / 5 + runtime.WORKER_START)


def test_slow_pilots_stop_after_the_budget(monkeypatch):
    calls = []

    def slow(arm, config, X, y, X_test, W):
        calls.append(config)
        return 0.4

    monkeypatch.setattr(runtime, "_fit_seconds", slow)
    arms = _arms(1000, {"depth": tuple(range(1, 41))})[:1]
    seconds, n_fits, _ = runtime.estimate_seconds(arms, 3, None)
    budget = max(runtime.PILOT_BUDGET, runtime.PILOT_SHARE * n_fits * 0.4)
    assert len(calls) == max(runtime.PILOT_MIN, math.ceil(budget / 0.4)) < 40
    assert seconds == pytest.approx(0.4 * n_fits)


def test_a_large_table_s_costliest_point_sets_the_scale(monkeypatch):
    """One grid point in ten costs far more than the others and grows as n squared: timed at
    the small size, it is timed first at the large one, so the estimate follows it even when
    the budget leaves the other points untimed there."""
    calls = []

    def seconds(arm, config, X, y, X_test, W):
        rows = len(y)
        calls.append((config["depth"], rows))
        return 1e-5 * rows * (1 + 99 * (rows / 20_000) * (config["depth"] == 10))

    monkeypatch.setattr(runtime, "_fit_seconds", seconds)
    arms = _arms(100_000, {"depth": tuple(range(1, 11))})[:1]
    estimate, n_fits, _ = runtime.estimate_seconds(arms, 1, None)
    assert (10, runtime.PILOT_ROWS) in calls
    assert sum(rows == runtime.PILOT_ROWS for _, rows in calls) < 10  # the budget binds
    exact = np.mean([1e-5 * 20_000 * (1 + 99 * (d == 10)) for d in range(1, 11)])
    assert estimate >= 0.99 * exact * n_fits  # at least the large pilot size's cost


def test_a_fast_grid_is_timed_again_and_each_point_gets_its_median(monkeypatch):
    """A grid of millisecond fits timed whole before the budget: further passes while the
    pilot stays under PILOT_SHARE of the grid's run, and a point's one slow timing (here its
    first, ten times the others) does not set the estimate."""
    calls = []

    def seconds(arm, config, X, y, X_test, W):
        calls.append(config["depth"])
        return 1e-3 * config["depth"] * (10 if calls.count(config["depth"]) == 1 else 1)

    monkeypatch.setattr(runtime, "_fit_seconds", seconds)
    arms = _arms(1000, {"depth": (1, 2, 3)})[:1]
    estimate, n_fits, _ = runtime.estimate_seconds(arms, 1000, None)
    assert len(calls) == 3 * runtime.PILOT_PASSES  # 3 x 10 fits: 0.07 s < 3% of a 6 s run
    assert estimate == pytest.approx(n_fits * 2e-3)
    calls.clear()
    estimate, n_fits, _ = runtime.estimate_seconds(arms, 1, None)
    assert len(calls) == 3  # a 6 ms run: one pass, its timings as they are
    assert estimate == pytest.approx(n_fits * 2e-2)
