"""The resource budget: nothing a user types builds more than the budget, and the refusal is fast.

The reproductions of the issue that used to fill memory (depth 40 grew a kernel to 23.8 GB) run
in a child process whose address space is capped at 2 GB: they must fail at once with a message
naming the parameter, or (AdHistOfTree, which chooses its own sizes) fit at once.
"""

import json
import math
import re
import subprocess
import sys
import textwrap
import time
import tracemalloc
import warnings

import numpy as np
import pytest

import ldpviz
from ldpviz import AdHistOfTree, HistOfTree, masks, theory
from ldpviz._config import (
    DEFAULTS,
    check_partition_budget,
    exceeds_budget,
    partition_plan,
)
from ldpviz.baselines import LPDT, Hist
from ldpviz.bcdp import (
    attack_table,
    bcdp_explorer_data,
    correlated_feature_attack,
    sample_correlated_pm1,
    sweep_q,
)
from ldpviz.classification import HistClassifier, HistOfTreeClassifier
from ldpviz.datasets import PAPER_Y_BOUND, make_paper_regression
from ldpviz.masks import aligned_mask, gamma_mask

M = PAPER_Y_BOUND


# ----------------------------------------------------------------------------------------------
# The budget itself
# ----------------------------------------------------------------------------------------------
def test_config_is_one_place_set_and_restored():
    assert ldpviz.get_config() == DEFAULTS
    with ldpviz.config_context(max_cells=100) as inner:
        assert inner["max_cells"] == 100 == ldpviz.get_config()["max_cells"]
        with pytest.raises(ValueError, match="max_cells"):
            HistOfTree(s=0, depth=7, y_bound=M).fit(*make_paper_regression(1000, 0))
    assert ldpviz.get_config() == DEFAULTS
    ldpviz.set_config(max_bytes=1 << 20)
    try:
        assert ldpviz.get_config()["max_bytes"] == 1 << 20
    finally:
        ldpviz.set_config(max_bytes=DEFAULTS["max_bytes"])
    for bad in (0, -1, 2.5, "big", True):
        with pytest.raises(ValueError, match="max_cells must be a positive integer"):
            ldpviz.set_config(max_cells=bad)
    with pytest.raises(ValueError, match="unknown keys"), ldpviz.config_context(cells=5):
        pass
    assert ldpviz.get_config() == DEFAULTS


def test_the_plan_counts_what_a_fit_builds_and_bounds_its_memory():
    X, y = make_paper_regression(20_000, random_state=0)
    W = gamma_mask(20_000, 5, 0.5)
    for s, t, depth, mechanism in [(2, 2, 10, "grr"), (2, 2, 8, "rr"), (3, 12, 2, "grr")]:
        model = HistOfTree(epsilon=2, s=s, t=t, depth=depth, mechanism=mechanism, y_bound=M,
                           random_state=0)
        tracemalloc.start()
        model.fit(X, y, W=W)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        plan = partition_plan(20_000, 20_000, t, s, depth, 5 - s, "max-edge", 0, 1, mechanism,
                              n_patterns=2**s)
        assert model.n_cells_ == plan.cells  # a full max-edge tree: exactly t^s 2^depth
        assert peak <= plan.nbytes  # the estimate is an upper bound of what was allocated
    cart = HistOfTree(s=1, depth=12, rule="cart", y_bound=M, random_state=0).fit(X, y, W=W)
    plan = partition_plan(20_000, 20_000, 2, 1, 12, 4, "cart")
    assert cart.partition_.tree.n_leaves <= plan.leaves


def test_the_plan_bounds_the_memory_of_a_fit_with_many_cells():
    # Per cell the sums, their moments and the estimate's levels take about 580 bytes; the plan
    # once counted 72 (409,600 cells: 238 MB allocated, 231 MB planned).
    n, t, depth = 3000, 40, 8
    X, y = make_paper_regression(n, random_state=0)
    W = gamma_mask(n, 5, 1.0)
    model = HistOfTree(epsilon=4, s=2, t=t, depth=depth, y_bound=M, random_state=0)
    tracemalloc.start()
    model.fit(X, y, W=W)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    plan = partition_plan(n, n, t, 2, depth, 3, "max-edge", 0, 1, "grr", n_patterns=4)
    assert model.n_cells_ == plan.cells == 409_600
    assert peak <= plan.nbytes


@pytest.mark.parametrize(("n", "classes", "mechanism"), [(300, 200, "grr"), (300, 200, "rr"),
                                                         (20_000, 60, "rr"), (50_000, 20, "grr")])
def test_the_classifier_plan_bounds_its_memory_without_refusing_small_fits(n, classes, mechanism):
    # Each class adds per-user label columns; the plan once counted them twice over the report
    # chunk, refusing 300 users x 200 classes at 1.5 GB (the fit takes 3 MB). The fit must now
    # pass the default budget and the plan stay an upper bound of what it allocates.
    rng = np.random.default_rng(0)
    X, y = rng.random((n, 5)), rng.integers(0, classes, n)
    W = rng.random((n, 5)) < 0.5  # many small groups: binary RR's flat path
    W[:, 0] = True
    model = HistOfTreeClassifier(epsilon=4, s=2, t=2, depth=4, mechanism=mechanism,
                                 classes=list(range(classes)), random_state=0)
    tracemalloc.start()
    model.fit(X, y, W=W)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    plan = partition_plan(n, n, 2, 2, 4, 3, "max-edge", 0, classes, mechanism, n_patterns=4)
    assert peak <= plan.nbytes <= ldpviz.get_config()["max_bytes"]


@pytest.mark.parametrize(("n", "t", "s", "depth"), [(10_000, 2, 2, 40), (300, 2, 1, 12),
                                                    (10_000, 1000, 3, 2), (10_000, 2, 30, 2),
                                                    (10**6, 2, 2, 19), (50_000, 5, 4, 8)])
def test_the_refusal_names_a_value_that_fits(n, t, s, depth):
    """Whatever it suggests passes the guard; one step beyond does not."""
    with pytest.raises(ValueError) as info:
        check_partition_budget("HistOfTree", n, n, t, s, depth, 5)
    message = str(info.value)
    if match := re.search(r"use depth <= (\d+)", message):
        ok = int(match.group(1))
        check_partition_budget("HistOfTree", n, n, t, s, ok, 5)
        assert ok + 1 >= depth or _refused(n, t, s, ok + 1)
    elif match := re.search(r"use t <= (\d+)", message):
        ok = int(match.group(1))
        check_partition_budget("HistOfTree", n, n, ok, s, depth, 5)
        assert _refused(n, ok + 1, s, depth)
    else:
        ok = int(re.search(r"at most s = (\d+)", message).group(1))
        check_partition_budget("HistOfTree", n, n, t, ok, 0, 5)
        assert _refused(n, t, ok + 1, 0)


def _refused(n, t, s, depth):
    try:
        check_partition_budget("HistOfTree", n, n, t, s, depth, 5)
    except ValueError:
        return True
    return False


def test_depth_beyond_what_the_users_can_fill_is_refused_not_built():
    X, y = make_paper_regression(1000, random_state=0)
    HistOfTree(s=0, depth=10, y_bound=M).fit(X, y)  # ceil(log2 1000) = 10 leaves can be filled
    with pytest.raises(ValueError, match=r"depth=11 .* n_samples = 1,000 users .* depth <= 10"):
        HistOfTree(s=0, depth=11, y_bound=M).fit(X, y)
    # CART and a minimum leaf size stop where the data end: no refusal, bounded leaves
    cart = HistOfTree(s=0, depth=40, rule="cart", y_bound=M, random_state=0).fit(X, y)
    assert cart.n_cells_ <= 1000
    capped = HistOfTree(s=0, depth=40, min_samples_leaf=50, y_bound=M, random_state=0).fit(X, y)
    assert capped.n_cells_ <= 1000 // 50


def test_the_tree_growth_is_counted_per_node_on_wide_tables_of_few_users():
    """A level's work grows with tree axes x nodes, not only with tree axes x users: 300 users
    x 20,000 public features at depth 9 counted 162 M entries before (within the budget; about
    15 s to grow) and is now refused, naming a depth that fits. The issue's CART AdHistOfTree
    (300 users x 2,000 features, 22 s) names depth_search='rule', whose one tree fits."""
    n, k = 300, 20_000
    assert partition_plan(n, n, 2, 0, 9, k).report_entries > 1 << 29 > 3 * 9 * n * k
    with pytest.raises(ValueError, match=r"depth=9 .* use depth <= \d+") as info:
        check_partition_budget("HistOfTree", n, n, 2, 0, 9, k)
    ok = int(re.search(r"use depth <= (\d+)", str(info.value)).group(1))
    assert 1 <= ok < 9
    check_partition_budget("HistOfTree", n, n, 2, 0, ok, k)
    with pytest.raises(ValueError):
        check_partition_budget("HistOfTree", n, n, 2, 0, ok + 1, k)

    rng = np.random.default_rng(0)
    X = rng.random((n, 2000))
    model = AdHistOfTree(epsilon=8, y_bound=3, rule="cart", random_state=0)
    with pytest.raises(ValueError, match=r"depth search .* pass depth_search='rule'"):
        model.fit(X, X[:, :3].sum(axis=1), np.zeros(X.shape, dtype=bool))
    one_tree = partition_plan(n, n, model.t_, model.s_, model.depth_, 2000 - model.s_, "cart")
    assert exceeds_budget(one_tree, n) is None


def test_hist_grids_and_per_user_noise_go_through_the_same_budget():
    X, y = make_paper_regression(2000, random_state=0)
    with pytest.raises(ValueError, match=r"Hist on d=5 features with t=40 .* use t <= 16"):
        Hist(t=40, y_bound=M).fit(X, y)
    Hist(t=16, y_bound=M, random_state=0).fit(X, y)  # 16^5 = 1,048,576 cells fit
    with ldpviz.config_context(max_report_entries=10**6, max_report_entries_per_user=100):
        with pytest.raises(ValueError, match="per-user report entries"):
            Hist(t=6, noise="per-user", y_bound=M).fit(X, y)
        Hist(t=6, y_bound=M, random_state=0).fit(X, y)  # aggregate noise: sums only
    with pytest.raises(ValueError, match="HistClassifier on d=5 features with t=40"):
        HistClassifier(t=40, classes=[0, 1]).fit(X, (y > 1).astype(int))
    with ldpviz.config_context(max_bytes=10**6), pytest.raises(ValueError, match="n_samples"):
        Hist(t=6, y_bound=M).privatize(X, y)


def test_adhistoftree_selection_is_bounded_for_every_epsilon():
    rng = np.random.default_rng(0)
    for n, d in [(1, 5), (2, 3), (200, 5), (2000, 5), (3000, 12)]:
        X, y = rng.random((n, d)), rng.normal(size=n)
        for W in (aligned_mask(n, d, 2), gamma_mask(n, d, 0.5), np.ones((n, d))):
            for epsilon in (0.1, 8, 1e6, np.inf):
                model = AdHistOfTree(epsilon=epsilon, c=1, t_offset=1, y_bound=M,
                                     random_state=0).fit(X, y, W=W)
                assert model.n_cells_ <= max(n, 1)  # no more cells than users
                assert model.t_ >= 1 and model.depth_ <= max(1, math.ceil(math.log2(max(n, 2))))
    # the budget binds too
    X, y = rng.random((5000, 5)), rng.normal(size=5000)
    with ldpviz.config_context(max_cells=64):
        model = AdHistOfTree(epsilon=np.inf, private_features=[0, 1], y_bound=M).fit(X, y)
    assert model.n_cells_ <= 64


def test_select_s_p_honours_max_cells():
    W = aligned_mask(10_000, 5, 3)
    free = theory.select_s_p(W, 10_000, 1e6, c=1)
    s, p = theory.select_s_p(W, 10_000, 1e6, c=1, max_cells=1000)
    assert theory.optimal_t(p, 5, s) ** s * 2**p <= 1000 < (
        theory.optimal_t(free[1], 5, free[0]) ** free[0] * 2 ** free[1])
    table = theory.objective_table(W, 10_000, 1e6, c=1, max_cells=1000)
    assert table.loc[table.selected, ["s", "p"]].values.tolist() == [[s, p]]
    with pytest.raises(ValueError, match="max_cells"):
        theory.select_s_p(W, 10_000, 1.0, s_min=4, max_cells=8)


def test_lpdt_guards_its_public_tree():
    X, y = make_paper_regression(1000, random_state=0)
    public = np.zeros(X.shape)
    with pytest.raises(ValueError, match=r"max_depth=30 .* public rows .* max_depth <= 10"):
        LPDT(max_depth=30, min_samples_leaf=0, y_bound=M).fit(X, y, W=public)
    with pytest.warns(ldpviz.PrivacyWarning, match="1,000 rows whose mask W is all zero"):
        model = LPDT(max_depth=30, min_samples_leaf=5, y_bound=M, random_state=0).fit(
            X, y, W=public)
    assert model.n_cells_ <= 1000 // 5


# ----------------------------------------------------------------------------------------------
# The reproductions of the issue, in a child process capped at 2 GB of address space
# ----------------------------------------------------------------------------------------------
CHILD = textwrap.dedent("""
    import json, resource, sys, time, warnings
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    warnings.simplefilter("ignore")
    import numpy as np
    from ldpviz import AdHistOfTree, HistOfTree
    from ldpviz.baselines import LPDT
    from ldpviz.classification import HistOfTreeClassifier
    from ldpviz.datasets import make_paper_regression

    X, y = make_paper_regression(10_000, random_state=0)
    X30 = np.random.default_rng(0).random((10_000, 30))
    cases = {
        "depth=40": lambda: HistOfTree(depth=40, s=2, y_bound=3).fit(X, y),
        "depth=30": lambda: HistOfTree(depth=30, s=2, y_bound=3).fit(X, y),
        "depth=18": lambda: HistOfTree(depth=18, s=2, y_bound=3).fit(X, y),
        "t=1000, 3 private": lambda: HistOfTree(t=1000, private_features=[0, 1, 2],
                                                y_bound=3).fit(X, y),
        "30 of 30 private": lambda: HistOfTree(private_features=list(range(30)),
                                               y_bound=3).fit(X30, y),
        "classifier depth=30": lambda: HistOfTreeClassifier(depth=30, s=2, classes=[0, 1]).fit(
            X, (y > 1).astype(int)),
        "LPDT max_depth=30": lambda: LPDT(max_depth=30, min_samples_leaf=0, y_bound=3).fit(
            X, y, W=np.zeros(X.shape)),
        "Ad eps=inf n=1": lambda: AdHistOfTree(epsilon=np.inf, private_features=[0, 1],
                                               y_bound=3).fit(X[:1], y[:1]),
        "Ad eps=inf n=200": lambda: AdHistOfTree(epsilon=np.inf, private_features=[0, 1],
                                                 y_bound=3).fit(X[:200], y[:200]),
        "Ad eps=1e6": lambda: AdHistOfTree(epsilon=1e6, c=1, private_features=[0, 1],
                                           y_bound=3).fit(X, y),
    }
    out = {}
    for name, fit in cases.items():
        start = time.perf_counter()
        try:
            model = fit()
            result = {"cells": int(model.n_cells_)}
        except Exception as exc:
            result = {"error": type(exc).__name__, "message": str(exc)}
        result["seconds"] = time.perf_counter() - start
        out[name] = result
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))
""")

#: What each reproduction must now do: refuse naming the parameter, or fit with at most n cells.
EXPECTED = {
    "depth=40": "depth", "depth=30": "depth", "depth=18": "depth", "t=1000, 3 private": "t",
    "30 of 30 private": "histogram axes", "classifier depth=30": "depth",
    "LPDT max_depth=30": "max_depth", "Ad eps=inf n=1": 1, "Ad eps=inf n=200": 200,
    "Ad eps=1e6": 10_000,
}


@pytest.mark.slow
def test_the_issue_reproductions_fail_fast_under_a_2gb_memory_cap():
    start = time.perf_counter()
    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                           timeout=300, env={"OPENBLAS_NUM_THREADS": "1", "PATH": ""})
    wall = time.perf_counter() - start
    assert child.returncode == 0, child.stderr[-2000:]
    out = json.loads(child.stdout)
    for name, expected in EXPECTED.items():
        result = out[name]
        assert result["seconds"] < 2.0, (name, result)  # was 15 s to out-of-memory
        if isinstance(expected, str):
            assert result.get("error") == "ValueError", (name, result)
            param = expected.split()[0]
            assert f"{param}" in result["message"] and "use " in result["message"], result
        else:
            assert "error" not in result and result["cells"] <= expected, (name, result)
    assert out["peak_mb"] < 1024  # far below the cap: nothing large was ever allocated
    assert wall < 120  # the child, imports included


def test_refusal_happens_before_anything_is_allocated():
    X, y = make_paper_regression(10_000, random_state=0)
    for model in (HistOfTree(depth=25, s=2, y_bound=M),
                  HistOfTree(t=500, private_features=[0, 1, 2], y_bound=M),
                  HistOfTreeClassifier(depth=25, s=2, classes=[0, 1])):
        tracemalloc.start()
        with pytest.raises(ValueError), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, (y > 1).astype(int) if hasattr(model, "classes") else y)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < 20 * X.nbytes  # input checks only: a few copies of the data


def test_exceeds_budget_reports_the_first_limit():
    plan = partition_plan(1000, 1000, 2, 2, 8, 3)
    assert exceeds_budget(plan, 1000) is None
    with ldpviz.config_context(max_cells=10):
        key, size, limit = exceeds_budget(plan, 1000)
    assert (key, size, limit) == ("max_cells", 2**2 * 2**8, 10)


# ----------------------------------------------------------------------------------------------
# Data and mask generators: n users are estimated before they are built
# ----------------------------------------------------------------------------------------------
GENERATORS = {
    "make_paper_regression": lambda n: make_paper_regression(n, random_state=0),
    "aligned_mask": lambda n: aligned_mask(n, 5, 2),
    "gamma_mask": lambda n: gamma_mask(n, 5, 1.0),
    "decade_mask": lambda n: masks.decade_mask(n, 5, 2),
    "concentrated_mask": lambda n: masks.concentrated_mask(n, 5),
    "spread_mask": lambda n: masks.spread_mask(n, 5),
    "random_mask": lambda n: masks.random_mask(n, 5, 0.3, random_state=0, exact=True),
    "sample_correlated_pm1": lambda n: sample_correlated_pm1(n, 5, 0.5, 0),
    "correlated_feature_attack": lambda n: correlated_feature_attack(n=n, random_state=0),
}


@pytest.mark.parametrize("name", GENERATORS)
def test_generators_refuse_more_users_than_the_budget_and_name_a_size_that_fits(name):
    build = GENERATORS[name]
    with ldpviz.config_context(max_bytes=200_000):
        tracemalloc.start()
        with pytest.raises(ValueError, match=rf"{name} with n=1000000 would need .* bytes "
                                             r"of working memory.*use n <= (\d+)") as refused:
            build(10**6)  # small enough to build, were the guard missing
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < 100_000  # refused before building anything
        fits = int(re.search(r"use n <= (\d+)", str(refused.value)).group(1))
        assert fits >= 100
        tracemalloc.start()
        build(fits)  # the size it names is accepted, and stays near the budget
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak <= 1.5 * 200_000, (name, peak)
        with pytest.raises(ValueError, match="max_bytes"):
            build(fits + 1)


@pytest.mark.parametrize("param, value", [("n", 10**5), ("reps", 2000), ("d", 1000)])
def test_bcdp_explorer_data_names_the_size_to_lower(param, value):
    # d = 10**9 raised numpy's MemoryError; reps = 10**9 would have run for hours
    # (draws are weighted: BCDP draws up to d(d+1)/2 entries per user and run, each ~5 units)
    with ldpviz.config_context(max_bytes=5_000_000, max_report_entries=65_000_000):
        with pytest.raises(ValueError, match=rf"with {param}={value} would need.*"
                                             rf"use {param} <= (\d+)") as refused:
            bcdp_explorer_data(**{param: value})
        fits = int(re.search(rf"use {param} <= (\d+)", str(refused.value)).group(1))
        tracemalloc.start()
        bcdp_explorer_data(**{param: fits})
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak <= 1.5 * 5_000_000, (param, fits, peak)
        with pytest.raises(ValueError, match=param):
            bcdp_explorer_data(**{param: fits + 1})


def test_sweeps_refuse_more_values_than_the_draw_budget():
    # a million values ran for hours, each one fitting the budget alone
    with pytest.raises(ValueError, match=r"sweep_q with len\(qs\)=1000 would need .* use "
                                         r"len\(qs\) <= 134,"):
        sweep_q([0.1] * 1000)
    with pytest.raises(ValueError, match=r"use len\(correlations\) <= 17895,"):
        attack_table(np.full(100_000, 0.5))
    assert len(sweep_q([0.1, 0.5], n=500, reps=2)) == 2


def test_experiments_refuse_replications_and_test_sets_beyond_the_budget():
    from ldpviz.reproduce.experiments import Arm, Mask, SyntheticData, run
    arm = Arm("hot", HistOfTree, SyntheticData(200, n_test=50), grid={"t": [1, 2]},
              params={"epsilon": 2.0, "s": 2, "y_bound": M}, mask=Mask("aligned", s_star=2))
    with ldpviz.config_context(max_bytes=400_000):
        # reps = 10**9 filled 24 GB of bookkeeping before the first fit (the kernel was killed)
        with pytest.raises(ValueError, match=r"run with reps=100000 would need .* use "
                                             r"reps <= (\d+),") as refused:
            run([arm], reps=100_000, progress=False)
        fits = int(re.search(r"reps <= (\d+)", str(refused.value)).group(1))
        assert 100 <= fits < 1000
        with pytest.raises(ValueError, match=r"SyntheticData with n_test=100000 would need"):
            SyntheticData(200, n_test=100_000)
    tracemalloc.start()
    run([arm], reps=fits, progress=False)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak <= 2 * 400_000  # the estimate is of the right size


# ----------------------------------------------------------------------------------------------
# Many classes (issue 32): the budget names classes; the sums never build users x classes
# ----------------------------------------------------------------------------------------------
def test_too_many_classes_are_refused_naming_classes_with_a_count_that_fits():
    """classes=list(range(100000)) advised "use fewer users"."""
    X, y = make_paper_regression(300, random_state=0)
    labels = (y > 1).astype(int)
    with pytest.raises(ValueError, match=r"and 100,000 classes would need .* bytes of working "
                                         r"memory.*; use at most ([\d,]+) classes \(a shorter "
                                         r"classes list\)") as info:
        HistOfTreeClassifier(s=2, classes=list(range(100_000))).fit(X, labels)
    assert "fewer users" not in str(info.value)
    with ldpviz.config_context(max_bytes=1 << 24):
        with pytest.raises(ValueError, match=r"use at most ([\d,]+) classes") as info:
            HistOfTreeClassifier(s=2, classes=list(range(1000))).fit(X, labels)
        fits = int(re.search(r"at most ([\d,]+) classes", str(info.value))[1].replace(",", ""))
        assert 2 <= fits < 1000
        HistOfTreeClassifier(s=2, classes=list(range(fits))).fit(X, labels)  # the advice holds
        with pytest.raises(ValueError, match=r"predict_proba with 1,000 classes with "
                                             r"len\(X\)=3000 would need .*pass at most 2,097 "
                                             "points at a time, or use predict"):
            model = HistOfTreeClassifier(s=2, classes=list(range(fits)))
            model.fit(X, labels).classes_ = np.arange(1000)  # its cells, 1000 columns asked
            model.predict_proba(np.tile(X, (10, 1)))


@pytest.mark.parametrize("noise", ["aggregate", "per-user"])
def test_many_class_sums_are_the_one_hot_sums_without_the_one_hot_matrix(noise):
    """The per-class sums used to build the n x K one-hot matrix (100,000 classes: 48 s);
    they are now counted directly, with the same noise draws in the same order."""
    from ldpviz.baselines._hist import _grid_sums
    from ldpviz.classification import _class_sums

    rng = np.random.default_rng(0)
    cell, codes = rng.integers(0, 9, 500), rng.integers(0, 7, 500).astype(np.int8)
    onehot = (codes[:, None] == np.arange(7)[None, :]).astype(float)
    expected, _ = _grid_sums(cell, onehot, 9, [0.8] * 7, None, noise, np.random.default_rng(3))
    got = _class_sums(cell, codes, 7, 9, 0.8, noise, np.random.default_rng(3))
    np.testing.assert_array_equal(got, expected)
    X, y = make_paper_regression(300, random_state=0)
    model = HistClassifier(classes=list(range(100_000)), random_state=0)
    labels = np.digitize(y, [0, 1, 2]) * 20_000
    predicted = model.fit(X, labels).predict(X)
    assert model.cell_sums_.shape == (model.n_cells_, 100_000)
    np.testing.assert_array_equal(predicted, np.arange(100_000)[
        np.argmax(model.cell_sums_[model._grid_.cell_index(X)], axis=1)])


def test_a_long_class_list_is_refused_before_it_is_sorted_naming_classes(monkeypatch):
    """3 million classes took 26 s to be refused ("lower t", though t=1 did not fit either):
    the labels were encoded (the list sorted) first."""
    from ldpviz import classification

    X, y = make_paper_regression(300, random_state=0)
    labels = (y > 1).astype(int)
    many = list(range(3_000_000))
    monkeypatch.setattr(classification, "_encode_labels", lambda *a: pytest.fail("sorted"))
    with pytest.raises(ValueError, match=r"^HistClassifier on d=5 features and 3,000,000 "
                                         r"classes with t=2 would need .*; use at most "
                                         r"1,398,100 classes, or raise"):
        HistClassifier(classes=many).fit(X, labels)
    with pytest.raises(ValueError, match=r"and 3,000,000 classes would need .*use at most "
                                         r"22,868 classes"):
        HistOfTreeClassifier(s=2, classes=many).fit(X, labels)
    monkeypatch.undo()
    with pytest.raises(ValueError, match=r"use at most 55,923 classes or noise='aggregate' "
                                         r"\(the same distribution\)"):
        HistClassifier(classes=list(range(100_000)), noise="per-user").fit(X, labels)
    with pytest.raises(ValueError, match=r"features with t=40 would need .* use t <= 16"):
        HistClassifier(t=40, classes=[0, 1]).fit(X, labels)


@pytest.mark.parametrize("classes", [[0, 1], [0, 1, 2]])
def test_a_wide_grid_of_few_classes_is_refused_naming_t_not_classes(classes):
    """With 2 classes on 400 features the advice was 'use fewer classes' (2 is the fewest)."""
    X = np.random.default_rng(0).random((200, 400))
    with pytest.raises(ValueError, match=r"^HistClassifier on d=400 features (and 3 classes )?"
                                         r"with t=2 would need more than 2\^200 cells.*; use "
                                         r"t <= 1, or raise"):
        HistClassifier(classes=classes).fit(X, np.arange(200) % 2)
