"""The calibrated selection rule of AdHistOfTree (ldpviz.adaptive_rule, issue 15)."""

import inspect

import numpy as np
import pytest
from sklearn.base import clone

from ldpviz import AdHistOfTree, HistOfTree, adaptive_rule
from ldpviz.adaptive_rule import RHO_GRID, choose_rho
from ldpviz.datasets import PAPER_Y_BOUND, make_paper_regression, paper_regression_function
from ldpviz.masks import aligned_mask, gamma_mask

M = PAPER_Y_BOUND


def _select(W, n, epsilon, **kw):
    return adaptive_rule.select_partition(W, n, epsilon, y_bound=M,
                                          s_min=int(np.all(W, axis=0).sum()), **kw)


def test_the_rule_reads_public_inputs_only():
    """No labels, features or releases among its inputs: n, epsilon, rho, the mechanism, M
    and the public mask W."""
    params = set(inspect.signature(adaptive_rule.select_partition).parameters)
    assert params.isdisjoint({"X", "y", "y_tilde", "labels", "random_state"})
    assert {"W", "n", "epsilon", "rho", "mechanism", "y_bound"} <= params


def test_the_estimator_selects_without_looking_at_x_or_y():
    """Before round 1 (s, t and the rule's depth); the depth search after it is tested in
    test_adaptive.py."""
    X, y = make_paper_regression(3000, random_state=0)
    W = gamma_mask(3000, 5, 1.0)
    rng = np.random.default_rng(1)
    a = AdHistOfTree(epsilon=4, y_bound=M, random_state=0).fit(X, y, W=W)
    b = AdHistOfTree(epsilon=4, y_bound=M, random_state=1).fit(
        rng.random(X.shape), rng.uniform(-M, M, len(y)), W=W)
    assert (a.s_, a.rule_depth_, a.t_) == (b.s_, b.rule_depth_, b.t_)
    assert (a.s_, a.rule_depth_, a.t_) == _select(W, 3000, 4.0)


@pytest.mark.parametrize("gamma", [0.5, 1.0, 2.0])
def test_histogram_risk_grows_with_the_depth_where_users_hide_tree_axes(gamma):
    """More leaves mean more cells and, for users hiding tree axes, more potential cells in
    their report: the histogram term of the proxy rises with the depth; it is 0 at t = 1."""
    W = gamma_mask(10_000, 5, gamma)
    risk = adaptive_rule.histogram_risk(W, 10_000, 4.0, 0.5, "grr", M, 1, 2, range(7))
    assert np.all(np.diff(risk) > 0)
    assert not adaptive_rule.histogram_risk(W, 10_000, 4.0, 0.5, "grr", M, 1, 1, range(7)).any()
    rows = {(s, p, t): r for s, p, t, r in adaptive_rule.risk_table(W, 10_000, 4.0, 0.5, "grr", M,
                                                                    s_min=1, s_max=1)}
    with_hist = np.array([rows[(1, p, 2)] for p in range(7)])
    assert np.all(with_hist >= risk)  # the term is a part of the whole


def test_default_is_auto_and_stored_untouched():
    model = AdHistOfTree()
    assert model.get_params()["c"] == "auto"
    assert clone(AdHistOfTree(c=0.1)).get_params()["c"] == 0.1


@pytest.mark.parametrize("value", ["Auto", "a", 0, -1.0, float("nan")])
def test_bad_c_is_rejected(value):
    X, y = make_paper_regression(500, random_state=0)
    with pytest.raises(ValueError, match="c"):
        AdHistOfTree(c=value, y_bound=M).fit(X, y, W=gamma_mask(500, 5, 1.0))


@pytest.mark.parametrize("call", ["risk_table", "select_partition", "choose_rho",
                                  "histogram_risk"])
@pytest.mark.parametrize("bad, match", [
    ({"epsilon": 1e-300}, "epsilon=1e-300 is too small to simulate"),
    ({"y_bound": 1e-300}, "y_bound=1e-300 is below 1e-100"),
    ({"y_bound": np.inf}, "y_bound must be a positive finite number"),
    ({"mechanism": "GRR"}, "mechanism must be one of"),
])
def test_public_functions_refuse_what_double_precision_cannot_evaluate(call, bad, match):
    # 1e-300 used to overflow (epsilon) or divide 0 by 0 (y_bound) inside the proxy
    W = aligned_mask(1000, 5, 2)
    args = {"epsilon": 1.0, "mechanism": "grr", "y_bound": 3.0, **bad}
    with pytest.raises(ValueError, match=match):
        if call == "choose_rho":
            choose_rho(W, 1000, args["epsilon"], args["mechanism"], args["y_bound"], 2, 2, 2)
        elif call == "histogram_risk":
            adaptive_rule.histogram_risk(W, 1000, args["epsilon"], 0.5, args["mechanism"],
                                         args["y_bound"], 2, 2, [0, 1, 2])
        else:
            getattr(adaptive_rule, call)(W, 1000, **args)


def test_risk_table_refuses_sizes_it_cannot_loop_over():
    W = aligned_mask(1000, 5, 2)
    with pytest.raises(ValueError, match="n must be an integer"):  # was OverflowError
        adaptive_rule.risk_table(W, np.inf, 1.0)
    with pytest.raises(ValueError, match=r"t_max must be in \[1, 1000\]"):  # looped for ever
        adaptive_rule.select_partition(W, 1000, 1.0, t_max=10**9)


@pytest.mark.parametrize("n", [200, 2000, 100_000])
@pytest.mark.parametrize("epsilon", [0.5, 2.0, 8.0, np.inf])
@pytest.mark.parametrize("mask", ["aligned2", "gamma0.5", "gamma3", "none", "all"])
def test_selection_is_bounded(n, epsilon, mask):
    W = {"aligned2": aligned_mask(n, 5, 2), "gamma0.5": gamma_mask(n, 5, 0.5),
         "gamma3": gamma_mask(n, 5, 3.0), "none": np.zeros((n, 5), dtype=int),
         "all": np.ones((n, 5), dtype=int)}[mask]
    s_min = int(W.all(axis=0).sum())
    s_max = max(s_min, min(int(W.any(axis=0).sum()), 4))  # a tree unless all is protected
    s, p, t = _select(W, n, epsilon, max_cells=n // 2)
    assert s_min <= s <= s_max
    assert 0 <= p <= adaptive_rule.P_MAX and 1 <= t <= adaptive_rule.T_MAX
    assert t**s * 2**p <= n // 2
    if s == 0:
        assert t == 1
    if s == 5:
        assert p == 0


def test_aligned_mask_keeps_s_star():
    for s_star in range(5):
        for epsilon in (1.0, 8.0):
            assert _select(aligned_mask(10_000, 5, s_star), 10_000, epsilon)[0] == s_star


def test_risk_falls_with_n_and_epsilon():
    """Every candidate's risk proxy is non-increasing in n and in epsilon (its variance terms
    fall, its bias terms do not move)."""
    W = gamma_mask(4000, 5, 1.0)

    def risks(n, epsilon):
        return {r[:3]: r[3] for r in adaptive_rule.risk_table(W, n, epsilon, y_bound=M,
                                                              s_min=1, max_cells=10**9)}
    for lo, hi in [((1000, 4.0), (10_000, 4.0)), ((10_000, 1.0), (10_000, 4.0)),
                   ((10_000, 4.0), (10_000, np.inf))]:
        a, b = risks(*lo), risks(*hi)
        common = a.keys() & b.keys()  # t = 1 drops out where two bins can recover a signal
        assert len(common) > 50
        assert all(b[k] <= a[k] * (1 + 1e-12) for k in common)


@pytest.mark.parametrize(("kind", "v"), [("aligned", 1), ("aligned", 2), ("aligned", 4),
                                         ("gamma", 0.25), ("gamma", 1.0), ("gamma", 3.0)])
def test_bins_grow_with_n_and_epsilon(kind, v):
    """More users or more budget never give the protected axes fewer bins (the histogram
    pays off as its noise falls), and enough of either gives them more than one."""

    def bins(n, epsilon):
        W = aligned_mask(n, 5, int(v)) if kind == "aligned" else gamma_mask(n, 5, v)
        return _select(W, n, epsilon)[2]
    by_n = [bins(n, 4.0) for n in (1000, 3000, 10_000, 30_000, 100_000, 300_000)]
    by_eps = [bins(10_000, e) for e in (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, np.inf)]
    assert by_n == sorted(by_n) and by_eps == sorted(by_eps)
    assert by_n[-1] >= 2 and by_eps[0] == 1 and by_eps[-1] >= 3


def test_t_is_one_only_when_the_histogram_cannot_pay():
    """Without privacy noise the protected axes always get bins; with a tiny budget they
    never do (two bins would only add noise)."""
    for W in (aligned_mask(10_000, 5, 2), gamma_mask(10_000, 5, 1.0)):
        assert _select(W, 10_000, np.inf)[2] >= 2
        assert _select(W, 10_000, 0.1)[2] == 1


def test_the_mechanism_enters_the_variance():
    """Binary RR's per-cell variance does not grow with the potential cells, GRR's does: at a
    large epsilon, with many potential cells, the rule prices them differently."""
    W = gamma_mask(10_000, 5, 0.25)
    grr = adaptive_rule.risk_table(W, 10_000, 8.0, mechanism="grr", y_bound=M, s_min=1)
    rr = adaptive_rule.risk_table(W, 10_000, 8.0, mechanism="rr", y_bound=M, s_min=1)
    assert any(abs(a[3] - b[3]) > 1e-6 * a[3] for a, b in zip(grr, rr, strict=True))


def test_paper_rule_is_kept_for_a_numeric_c():
    X, y = make_paper_regression(4000, random_state=3)
    W = gamma_mask(4000, 5, 2.0)
    model = AdHistOfTree(epsilon=4, c=0.01, y_bound=M, random_state=0).fit(X, y, W=W)
    from ldpviz import theory
    s, p = theory.select_s_p(W, 4000, 4, c=0.01, s_min=1, max_cells=4000)
    assert (model.s_, model.depth_, model.t_) == (s, p, theory.optimal_t(p, 5, s))


def test_protected_signal_is_not_thrown_away():
    """The issue's case: W_gamma (gamma = 1), n = 10,000, epsilon = 4 and a Lipschitz signal
    on the protected features (monotone: benchmarks/_adaptive_data.protected_ramp). Eq (15)
    with c = 0.01 picks t = 1 and learns little; the calibrated rule keeps bins on the
    protected axes and learns most of the signal."""
    n, reps = 10_000, 3
    W = gamma_mask(n, 5, 1.0)
    rng = np.random.default_rng(5)
    X_test = rng.random((2000, 5))

    def f(X):
        return 2.0 * X[:, 0] + 1.2 * X[:, 1] ** 2 + 0.3 * X[:, 4]

    var_f = np.var(f(rng.random((200_000, 5))))
    mse = {"auto": [], "eq15": []}
    for r in range(reps):
        X = rng.random((n, 5))
        y = f(X) + rng.standard_normal(n)
        models = {"auto": AdHistOfTree(epsilon=4, y_bound=M, random_state=r),
                  "eq15": AdHistOfTree(epsilon=4, c=0.01, y_bound=M, random_state=r)}
        for name, model in models.items():
            model.fit(X, y, W=W)
            mse[name].append(np.mean((model.predict(X_test) - f(X_test)) ** 2))
    auto = AdHistOfTree(epsilon=4, y_bound=M).fit(X, y, W=W)
    assert auto.t_ >= 2
    assert np.mean(mse["auto"]) < 0.5 * var_f
    assert np.mean(mse["auto"]) < np.mean(mse["eq15"])


GMEAN_MAX, WORST_MAX = 1.35, 2.5
# Settings of the slow check (reduced from benchmarks/bench_adaptive.py): (mask, value, epsilon).
SLOW_SETTINGS = [("gamma", 0.5, 4.0), ("gamma", 2.0, 4.0), ("aligned", 1, 2.0),
                 ("aligned", 2, 4.0), ("aligned", 3, 8.0), ("aligned", 4, 1.0)]


def _mse(model, X, y, W, X_test, truth):
    return np.mean((model.fit(X, y, W=W).predict(X_test) - truth) ** 2)


def _paper_grid_best_and_auto(kind, value, epsilon, n, reps):
    """Per replication: MSE of every (s, p, t) of the paper's grid (rho = 0.5, AdHistOfTree's),
    of the rule, of eq (15)."""
    W = gamma_mask(n, 5, value) if kind == "gamma" else aligned_mask(n, 5, value)
    ss = (1, 2, 3) if kind == "gamma" else (value,)
    grid = [(s, p, t) for s in ss for p in (1, 2, 4, 6) for t in (1, 2, 3)]
    fixed, auto, eq15 = np.zeros((reps, len(grid))), np.zeros(reps), np.zeros(reps)
    for r in range(reps):
        X, y = make_paper_regression(n, random_state=100 + r)
        X_test, _ = make_paper_regression(2000, random_state=200 + r)
        truth = paper_regression_function(X_test)

        data = (X, y, W, X_test, truth)
        for j, (s, p, t) in enumerate(grid):
            fixed[r, j] = _mse(HistOfTree(epsilon=epsilon, s=s, t=t, depth=p, rho=0.5,
                                          y_bound=M, random_state=r), *data)
        auto[r] = _mse(AdHistOfTree(epsilon=epsilon, y_bound=M, random_state=r), *data)
        eq15[r] = _mse(AdHistOfTree(epsilon=epsilon, c=0.01, y_bound=M, random_state=r), *data)
    best = fixed[:, np.argmin(fixed.mean(axis=0))]
    return best, auto, eq15


@pytest.mark.slow
def test_calibrated_rule_is_near_the_best_fixed_partition():
    """Issue 15, item 1 at reduced size (n = 10,000, 3 replications, six of the 22 settings of
    benchmarks/bench_adaptive.py, the Section 5.1 function the calibration never saw).

    Ratio = mean MSE of AdHistOfTree's default rule / mean MSE of the best (s, p, t) of the
    paper's grid chosen on the same replications (optimistic for the grid). The issue's target
    (every ratio <= 1.10) is NOT met: on the full benchmark (10 replications) these six
    settings measured 1.69, 1.18, 1.46, 0.89, 1.19, 0.96 (geometric mean 1.20; eq 15 with
    c = 0.01: 1.32), and no rule reading only public information can meet it on a
    heterogeneous class (benchmarks/calibrate_adaptive.py prints that limit). Asserted: the
    geometric mean is at most GMEAN_MAX, no ratio exceeds WORST_MAX (margins for 3
    replications), and the rule beats eq (15) with the previous default c = 0.01.
    """
    n, reps = 10_000, 3
    ratios, ratios15 = [], []
    for kind, value, epsilon in SLOW_SETTINGS:
        best, auto, eq15 = _paper_grid_best_and_auto(kind, value, epsilon, n, reps)
        ratios.append(auto.mean() / best.mean())
        ratios15.append(eq15.mean() / best.mean())
    gmean = float(np.exp(np.mean(np.log(ratios))))
    gmean15 = float(np.exp(np.mean(np.log(ratios15))))
    assert gmean <= GMEAN_MAX, (ratios, gmean)
    assert max(ratios) <= WORST_MAX, ratios
    assert gmean < gmean15, (gmean, gmean15)


# ---------------------------------------------------------------------------------------------
# The budget rule (rho="auto")
# ---------------------------------------------------------------------------------------------
def test_budget_rule_starves_hopeless_cells_and_splits_where_they_pay():
    W = aligned_mask(10_000, 5, 2)
    # a few hundred users at epsilon 1: no cell report can be estimated
    assert choose_rho(W[:300], 300, 1.0, "grr", M, 2, 2, 3) == max(RHO_GRID)
    # a million users at epsilon 8: the cells pay for a real share of the budget
    assert choose_rho(W, 1_000_000, 8.0, "grr", M, 2, 2, 2) <= 0.7
    assert choose_rho(W, 10_000, np.inf, "grr", M, 2, 2, 2) == 0.5


def test_budget_rule_reads_only_the_public_mask_counts():
    """Same protection pattern shares and n: same rho, whatever the row order (and it never
    sees X or y: its signature has no place for them)."""
    W = gamma_mask(4000, 5, 1.0)
    perm = np.random.default_rng(0).permutation(4000)
    for eps in (0.5, 2.0, 4.0):
        assert choose_rho(W, 4000, eps, "rr", M, 1, 3, 2) == choose_rho(W[perm], 4000, eps, "rr",
                                                                          M, 1, 3, 2)
