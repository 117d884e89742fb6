"""The stable cell estimate (ldpviz.cell_estimates): its variance formula, its limits, message
sufficiency, and that it is never much worse than ignoring the private features."""

import numpy as np
import pytest
from scipy.stats import chi2

from ldpviz import HistOfTree
from ldpviz.adaptive_rule import RHO_GRID
from ldpviz.cell_estimates import (
    TOLERANCE,
    coupling,
    exact_units,
    label_noise_sums,
    merge_leaves,
    null_margin,
    report_units,
    shrink,
    tree_units,
    unit_variance,
)
from ldpviz.cell_sums import cell_report_sums, partner_weights, report_sums
from ldpviz.datasets import make_paper_regression, paper_regression_function
from ldpviz.masks import aligned_mask, gamma_mask
from ldpviz.mechanisms import cell_reports, privatize_labels
from ldpviz.partition import build_partition

M = 3.5  # the label bound of the measurements


def _mse(model, X_test):
    return float(np.mean((model.predict(X_test) - paper_regression_function(X_test)) ** 2))


@pytest.fixture(scope="module")
def small():
    X, y = make_paper_regression(500, random_state=3)
    return X, np.clip(y, -M, M)


# ---------------------------------------------------------------------------------------------
# The variance of a cell and the margin against false alarms
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mechanism", ["grr", "rr"])
@pytest.mark.parametrize("mask", ["aligned", "gamma"])
def test_the_variance_formula_is_unbiased_for_the_privacy_noise(small, mechanism, mask):
    """Mean of the estimated Var(N - g D) = the variance of N - g D over the randomizers."""
    X, y = small
    W = aligned_mask(len(X), 5, 2) if mask == "aligned" else gamma_mask(len(X), 5, 1.0)
    part = build_partition(X, y, W, (0, 1), 2, 2)
    epsilon, g, reps = 2.0, 0.7, 3000
    nu = 2 * (2 * M / epsilon) ** 2  # Laplace(2M / eps) label noise
    rng = np.random.default_rng(0)
    R, var = [], []
    for _ in range(reps):
        y_tilde = privatize_labels(y, epsilon, M, rng)
        reports = cell_reports(part, X, W, epsilon, mechanism, rng)
        sums = report_sums(reports.debiased, y_tilde)
        units = report_units(sums, nu * sums.denominator)
        R.append(sums.numerator - g * sums.denominator)
        var.append(unit_variance(units, np.full(part.n_cells, g)))
    R, var = np.array(R), np.array(var)
    empirical = R.var(axis=0, ddof=1)
    kurtosis = np.mean((R - R.mean(0)) ** 4, axis=0) / empirical**2
    se = np.sqrt(empirical**2 * (kurtosis - 1) / reps + var.var(axis=0) / reps)
    assert np.all(np.abs(var.mean(axis=0) - empirical) < 5 * se)
    assert np.all(var >= 0)


def test_the_variance_is_zero_without_privacy(small):
    X, y = small
    W = gamma_mask(len(X), 5, 1.0)
    part = build_partition(X, y, W, (0, 1), 2, 2)
    for mechanism in ("grr", "rr"):
        reports = cell_reports(part, X, W, np.inf, mechanism, np.random.default_rng(0))
        sums = report_sums(reports.debiased, y)
        units = report_units(sums, np.zeros(part.n_cells))
        assert np.all(unit_variance(units, np.full(part.n_cells, 1.3)) == 0)


@pytest.mark.parametrize("J", [1, 4, 32])
@pytest.mark.parametrize("noise", [0.01, 1.0, 30.0])
def test_false_alarms_cost_at_most_the_budget(J, noise):
    """With no signal, tau^2 = (Q - q)_+ / sum(precision) adds <= budget per cell on average."""
    budget = 0.01
    q = null_margin(J, noise, budget)
    assert q >= J
    Q = chi2.rvs(J, size=400_000, random_state=np.random.default_rng(J))
    added = np.maximum(Q - q, 0.0) ** 2 * noise / J**2  # upper bound of w^2 v per cell
    assert added.mean() < budget * 1.05 + 3 * added.std() / np.sqrt(len(Q))
    if noise * (J + 2) / J**2 * 2 > budget:  # the plain method of moments would cost more
        assert np.mean(np.maximum(Q - J, 0.0) ** 2 * noise / J**2) > budget


def test_null_margin_takes_one_noise_level_per_unit():
    noise = np.array([1e-4, 0.01, 1.0, 30.0, 1e4])
    assert np.array_equal(null_margin(6, noise, 0.01), [null_margin(6, v, 0.01) for v in noise])


def test_shrink_limits():
    """Exact units keep their ratio, D <= 0 falls back, tiny noise gives weight ~1."""
    N = np.array([[10.0], [5.0], [-3.0], [50.0], [40.0], [60.0]])
    D = np.array([10.0, 0.0, -2.0, 25.0, 20.0, 30.0])
    excess = np.array([0.0, 4.0, 4.0, 1e-3, 1e-3, 1e-3])
    units = exact_units(D, N, np.zeros(6))._replace(excess0=excess)
    values, weight, _ = shrink(units, np.full(6, 1.0), scale=M**2, budget=1e-3)
    assert values[0, 0] == pytest.approx(1.0) and weight[0] == 1.0  # exact: its ratio
    assert values[1, 0] == 1.0 and values[2, 0] == 1.0  # D <= 0: the center
    assert np.all(weight[1:3] == 0)
    assert np.allclose(values[3:, 0], N[3:, 0] / D[3:], atol=1e-3)  # low noise: eq (9)
    assert np.all((weight >= 0) & (weight <= 1))


def _noisy_units(z, D=100.0, V=100.0):
    """Units with count D, privacy variance V (so z = R / sqrt(V)) and center 0."""
    J = len(z)
    R = np.asarray(z, dtype=float)[:, None] * np.sqrt(V)
    units = exact_units(np.full(J, D), R, np.full(J, V))
    return units._replace(excess0=np.full(J, 1.0))  # a noisy count, far from 0


def test_a_cell_does_not_vouch_for_itself():
    """One 4-sigma cell among seven quiet ones: its weight comes from the others' spread, which
    is noise, so it falls back (with its own z^2 in tau^2 it kept weight ~0.5)."""
    z = np.array([4.0, 0.3, -0.5, 0.2, -0.1, 0.6, -0.4, 0.1])
    values, weight, _ = shrink(_noisy_units(z), np.zeros(8), scale=M**2, budget=TOLERANCE * M**2)
    assert weight[0] == 0 and values[0, 0] == 0


def test_a_cells_weight_does_not_depend_on_its_own_contrast():
    """Moving one cell's contrast changes the other cells' weights, never its own."""
    z = np.array([3.0, -3.0, 2.5, -2.8, 3.1, -2.0, 2.2, -3.0])
    kwargs = {"center": np.zeros(8), "scale": M**2, "budget": TOLERANCE * M**2}
    _, before, _ = shrink(_noisy_units(z), **kwargs)
    z[0] = 8.0
    values, after, _ = shrink(_noisy_units(z), **kwargs)
    assert 0 < after[0] == before[0] < 1
    assert np.all(after[1:] > before[1:])
    assert values[0, 0] == pytest.approx(after[0] * 8.0 * np.sqrt(100.0) / 100.0)


def _paired_units(z, shared=1.0, D=100.0, V=100.0):
    """Units in pairs j, j + J/2 whose users report by GRR over both (|V_i| = 2), all of their
    privacy noise report noise (Var R = V, center 0); ``shared=0`` hides the pairing."""
    J = len(z)
    R = np.asarray(z, dtype=float)[:, None] * np.sqrt(V)
    units = exact_units(np.full(J, D), R, np.zeros(J))
    return units._replace(excess0=np.full(J, 1.0), excess2=np.full((J, 1), V),
                          partner2=np.full((J, 1), shared * V))


def test_a_grr_partner_does_not_vouch_for_its_cell():
    """Four pairs of cells over which users report by GRR: a pair's report noise is one draw,
    seen with opposite signs. One 4-sigma pair among three quiet ones is noise and falls back,
    as a lone 4-sigma cell does; read as eight independent cells, the partner's z^2 = 16
    vouched for the cell."""
    z = np.array([4.0, 0.3, -0.5, 0.2])
    z = np.concatenate([z, -z])
    kwargs = {"center": np.zeros(8), "scale": M**2, "budget": TOLERANCE * M**2}
    _, paired, _ = shrink(_paired_units(z), **kwargs)
    _, independent, _ = shrink(_paired_units(z, shared=0.0), **kwargs)
    assert paired[0] == paired[4] == 0
    assert independent[0] > 0.2


@pytest.mark.parametrize(("t", "mask", "mechanism"), [(2, "aligned", "grr"),
                                                      (3, "aligned", "grr"),
                                                      (2, "gamma", "grr"), (2, "gamma", "rr")])
def test_coupling_measures_the_noise_grr_partners_share(small, t, mask, mechanism):
    """kappa_j estimates sum_{l != j} corr(R_j, R_l)^2 over the randomizers: closely where
    every user has the same potential cells (aligned), from above where they differ
    (personalized masks), and it is None for binary RR (independent bits)."""
    X, y = small
    W = aligned_mask(len(X), 5, 1) if mask == "aligned" else gamma_mask(len(X), 5, 1.0)
    part = build_partition(X, y, W, (0,), t, 1)
    g, reps = np.full(part.n_cells, 0.7), 1500
    nu = 2 * (2 * M / 8.0) ** 2  # labels at epsilon 8, reports at 0.5: report noise dominates
    rng = np.random.default_rng(0)
    R, kappa = [], []
    for _ in range(reps):
        y_tilde = privatize_labels(y, 8.0, M, rng)
        reports = cell_reports(part, X, W, 0.5, mechanism, rng)
        sums = report_sums(reports.debiased, y_tilde, partner_weights(reports))
        units = report_units(sums, nu * sums.denominator)
        R.append(sums.numerator - g * sums.denominator)
        kappa.append(coupling(units, g, unit_variance(units, g)))
    if mechanism == "rr":
        assert all(k is None for k in kappa)
        return
    corr = np.corrcoef(np.array(R).T)
    empirical = (corr**2).sum(axis=0) - 1.0
    estimated = np.mean(kappa, axis=0)
    assert np.all(empirical > 0.25)  # the pairing is strong here
    if mask == "aligned":
        assert np.all(np.abs(estimated - empirical) < 0.05)
    else:
        assert np.all((estimated > empirical - 0.03) & (estimated < 1.5 * empirical))


# ---------------------------------------------------------------------------------------------
# The tree as a hierarchy: what the server can compute
# ---------------------------------------------------------------------------------------------
def test_tree_units_add_up_the_leaves_and_the_root_holds_everyone(small):
    X, y = small
    W = gamma_mask(len(X), 5, 1.0)
    tree = build_partition(X, y, W, (0,), 1, 4).tree
    count = tree.leaf_count
    leaf_sum = np.nan_to_num(tree.leaf_label_mean)[:, None] * count[:, None]
    units = tree_units(tree, count, leaf_sum, 2.0 * count)
    assert units.denominator[0] == count.sum() < len(X)  # some users stop above the leaves
    for node in np.flatnonzero(tree.feature >= 0):
        kids = [tree.left[node], tree.right[node]]
        assert units.denominator[node] == units.denominator[kids].sum()
        assert np.allclose(units.numerator[node], units.numerator[kids].sum(axis=0))
    everyone = tree_units(tree, count, leaf_sum, 2.0 * count, (len(X), y.sum(), 2.0 * len(X)))
    assert everyone.denominator[0] == len(X) and everyone.numerator[0, 0] == pytest.approx(
        y.sum())
    assert np.array_equal(everyone.denominator[1:], units.denominator[1:])
    assert np.all(units.excess0 == 0) and np.all(units.excess2 == 0)  # exact memberships


def test_merged_cells_add_up_the_leaves(small):
    X, y = small
    W = aligned_mask(len(X), 5, 2)
    part = build_partition(X, y, W, (0, 1), 2, 3)
    reports = cell_reports(part, X, W, 1.0, "grr", np.random.default_rng(1))
    sums = report_sums(reports.debiased, y)
    cells = report_units(sums, sums.denominator)
    merged = merge_leaves(part.tree, cells, part.histogram.n_cells)
    n_nodes = len(part.tree.feature)
    root = merged.denominator.reshape(-1, n_nodes)[:, 0]
    assert np.allclose(root, sums.denominator.reshape(4, -1).sum(1))
    assert np.isclose(root.sum(), len(X))  # GRR: each user's V~ adds up to 1


# ---------------------------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def data():
    X, y = make_paper_regression(10_000, random_state=7)
    X_test, _ = make_paper_regression(2000, random_state=8)
    return X, y, X_test


@pytest.mark.parametrize("mechanism", ["grr", "rr"])
@pytest.mark.parametrize("mask", ["aligned", "gamma"])
def test_replayed_messages_give_the_same_estimate(data, mechanism, mask):
    """Message sufficiency: the cell values are a function of what users released.

    Replay the users' side with the model's seed (labels, then cell reports), keep only what
    the server sees (published coordinates, W, the messages) and recompute the estimate.
    """
    X, y, _ = data
    X, y = X[:1500], y[:1500]
    W = aligned_mask(len(X), 5, 2) if mask == "aligned" else gamma_mask(len(X), 5, 1.0)
    model = HistOfTree(epsilon=2, s=2, t=2, depth=2, mechanism=mechanism, y_bound=M,
                       random_state=5).fit(X, y, W=W)
    rng = np.random.default_rng(5)
    fixed = model._fixed_cells(W, model.t)
    y_tilde = privatize_labels(y, np.where(fixed, 2.0, model.epsilon_label_), M, rng)
    assert np.array_equal(y_tilde, model.y_tilde_)
    if mechanism == "grr":  # the per-user messages are the model's draws
        reports = cell_reports(model.partition_, X, W, model.epsilon_cells_, mechanism, rng)
        sums = report_sums(reports.debiased, y_tilde, partner_weights(reports))
    else:  # binary RR bits are drawn in aggregate: same law as the messages, not the same draws
        sums = cell_report_sums(model.partition_, X, W, y_tilde, model.epsilon_cells_,
                                mechanism, rng, moments=True)
    assert np.allclose(sums.numerator, model.cell_numerator_)
    server_view = np.where(W, 0.5, X)  # protected coordinates are never read
    estimate = model._stable_estimate(server_view, W, y_tilde, sums, fixed)
    assert np.allclose(np.clip(estimate.values[:, 0], -M, M), model.cell_values_,
                       rtol=1e-9, atol=1e-12)


def test_without_privacy_both_estimates_are_eq_3(data):
    X, y, _ = data
    W = gamma_mask(len(X), 5, 1.0)
    for rule in ("max-edge", "cart"):
        fits = [HistOfTree(epsilon=np.inf, s=2, t=3, depth=3, rule=rule, y_bound=M,
                           cell_estimate=e, random_state=0).fit(X, y, W=W)
                for e in ("stable", "paper")]
        full = fits[0].cell_denominator_ > 0  # empty cells: each estimate's own fallback
        assert np.allclose(fits[0].cell_values_[full], fits[1].cell_values_[full], rtol=0,
                           atol=1e-12)
        assert np.all(fits[0].cell_std_error_[full] < 1e-6)  # no privacy noise


def test_the_stable_estimate_is_unbiased_where_the_noise_is_small():
    """At n = 40,000 and epsilon = 8 (5,000 users per cell) the stable estimate averages to
    the non-private partition estimate of eq (3) on the same cells, within 4 standard errors."""
    reps, diffs = 60, []
    for r in range(reps):
        X, y = make_paper_regression(40_000, random_state=200 + r)
        model = HistOfTree(epsilon=8, s=2, t=2, depth=1, y_bound=M, random_state=r).fit(X, y)
        means, _ = model.partition_.cell_means(X, np.clip(y, -M, M))
        diffs.append(model.cell_values_ - means)
    diffs = np.array(diffs)
    se = diffs.std(axis=0, ddof=1) / np.sqrt(reps)
    assert np.all(np.abs(diffs.mean(axis=0)) < 4 * se)


def test_the_stable_estimate_does_not_explode_where_eq_9_does(data):
    X, y, X_test = data
    X, y = X[:2000], y[:2000]
    kwargs = dict(epsilon=1.0, s=2, t=3, depth=4, y_bound=M, clip=False, random_state=0)
    paper = HistOfTree(cell_estimate="paper", **kwargs).fit(X, y)
    stable = HistOfTree(**kwargs).fit(X, y)
    assert np.abs(paper.cell_values_).max() > 10 * M
    assert np.abs(stable.cell_values_).max() < M
    assert _mse(stable, X_test) < 0.1 * _mse(paper, X_test)
    bad = stable.cell_denominator_ <= 0
    assert bad.any() and np.all(np.isinf(stable.cell_std_error_[bad]))


def test_label_noise_of_users_who_spend_everything_on_the_label():
    D = np.array([10.0, 4.0])
    assert np.allclose(label_noise_sums(D, [10, 1], 8.0, 2.0), [20.0, 26.0])
    assert TOLERANCE > 0


# ---------------------------------------------------------------------------------------------
# Never much worse than ignoring the private features (issue 17, item 2)
# ---------------------------------------------------------------------------------------------
def _mse_table(configs, n, reps, s_star=2, f=None):
    """MSE against f* of HistOfTree for every config (dict of parameters), one row per rep.

    Replication r: fresh users (seed 10,000 + r) and noise seed r, the same for every config.
    ``f`` replaces the Section 5.1 regression function (labels f(X) + N(0, 1)).
    """
    X_test, _ = make_paper_regression(2000, random_state=424_242)
    f_test = (paper_regression_function if f is None else f)(X_test)
    rows = []
    for rep in range(reps):
        X, y = make_paper_regression(n, random_state=10_000 + rep)
        if f is not None:
            y = f(X) + np.random.default_rng(10_001 + rep).standard_normal(n)
        W = aligned_mask(n, 5, s_star)
        rows.append([np.mean((HistOfTree(s=s_star, y_bound=M, random_state=rep, **config)
                              .fit(X, y, W=W).predict(X_test) - f_test) ** 2)
                     for config in configs])
    return np.array(rows)


def _target2_check(epsilons, mechanisms, s_stars, ts, depths, reps):
    """Target 2: MSE(t) <= 1.10 MSE(t = 1) + 0.01 at the same depth, within two standard
    errors, with the default rho="auto".

    At t > 1 a user who reports a cell gives the label rho * eps, at t = 1 (every cell fixed by
    the published features) all of eps; with rho = 1/2 the round-1 tree and leaf means at
    t > 1 rest on labels 4x noisier in variance, which no post-processing can undo (worst
    ratio 1.26 at epsilon 1 and 1.88 at epsilon 2 in 30 runs). The public budget rule
    (``adaptive_rule.choose_rho``) gives the label nearly all of epsilon where the cell
    reports cannot pay. Rare false alarms of the histogram test (one noisy cell vouching for
    itself) made the worst ratio 1.37 at epsilon 2; with each cell's spread estimated from the
    others, 100 runs of benchmarks/bench_cell_estimate.py --target2 hold in every setting on
    average, worst ratio 1.16 (the MSE is heavy-tailed, hence the standard error here).
    """
    for eps in epsilons:
        for mech in mechanisms:
            for s_star in s_stars:
                configs = [{"epsilon": eps, "mechanism": mech, "t": t, "depth": p}
                           for t in (1, *ts) for p in depths]
                mse = _mse_table(configs, 10_000, reps, s_star).reshape(reps, -1, len(depths))
                base = mse[:, 0]
                for k in range(1, mse.shape[1]):
                    for j, depth in enumerate(depths):
                        excess = mse[:, k, j] - (1.10 * base[:, j] + 0.01)
                        se = excess.std(ddof=1) / np.sqrt(reps)
                        assert excess.mean() <= 2 * se, (eps, mech, s_star, ts[k - 1], depth)


def test_never_much_worse_than_ignoring_the_private_features():
    _target2_check(epsilons=(1, 2, 4, 8), mechanisms=("grr",), s_stars=(2,), ts=(2, 4),
                   depths=(0, 4), reps=5)


def test_budget_rule_recovers_the_one_bin_accuracy_where_cells_cannot_pay():
    """Epsilon 1, n = 10,000: no histogram effect is recoverable, so rho="auto" gives the label
    nearly all of epsilon and t = 2 is within 5% of t = 1 (with rho = 0.5: 1.17x-1.29x)."""
    for s_star in (1, 2):
        configs = [{"epsilon": 1.0, "t": t, "depth": 2} for t in (1, 2)]
        mse = _mse_table(configs, 10_000, 5, s_star).mean(axis=0)
        assert mse[1] <= 1.05 * mse[0] + 0.005, (s_star, mse)
    model = HistOfTree(epsilon=1.0, s=2, t=2, depth=2, y_bound=M, random_state=0)
    X, y = make_paper_regression(10_000, random_state=0)
    assert model.fit(X, y, W=aligned_mask(10_000, 5, 2)).rho_ == max(RHO_GRID)


@pytest.mark.slow
def test_never_much_worse_than_ignoring_the_private_features_full_grid():
    """The issue's grid at n = 10,000 (6 runs; the benchmark uses 20)."""
    _target2_check(epsilons=(1, 2, 4, 8), mechanisms=("grr", "rr"), s_stars=(1, 2),
                   ts=(2, 3, 4), depths=(0, 2, 4, 6), reps=6)


# ---------------------------------------------------------------------------------------------
# No loss where eq (9) was good, gains where it was not (issue 17, item 3)
# ---------------------------------------------------------------------------------------------
def protected_signal(X):
    """A regression function of the two protected features only (aligned s* = 2)."""
    return np.sin(2 * np.pi * X[:, 0]) + 2 * X[:, 1] ** 2


def _best_over_grid(n, epsilon, reps, rhos, f=None):
    """Mean MSE of the best grid point (Appendix C.1: depth 1/2/4/6, t 1/2/3), per estimate."""
    grid = [{"rho": rho, "depth": p, "t": t, "epsilon": epsilon}
            for rho in rhos for p in (1, 2, 4, 6) for t in (1, 2, 3)]
    configs = [{**g, "cell_estimate": e} for e in ("paper", "stable") for g in grid]
    mean = _mse_table(configs, n, reps, f=f).mean(axis=0).reshape(2, -1)
    return mean[0].min(), mean[1].min()


@pytest.mark.parametrize("epsilon", [4, 8])
def test_no_loss_where_eq_9_was_good(epsilon):
    paper, stable = _best_over_grid(10_000, epsilon, reps=3, rhos=(0.5,))
    assert stable <= 1.03 * paper


@pytest.mark.parametrize("epsilon", [2, 4])
def test_gains_when_the_signal_sits_on_the_protected_features(epsilon):
    paper, stable = _best_over_grid(10_000, epsilon, reps=3, rhos=(0.5,), f=protected_signal)
    assert stable < 0.99 * paper


@pytest.mark.slow
@pytest.mark.parametrize(("n", "epsilons", "reps"),
                         [(10_000, (1,), 20), (10_000, (2, 4, 8), 4), (100_000, (1, 4), 2)])
def test_best_over_the_papers_grid(n, epsilons, reps):
    """Best over C.1's grid (rho 0.5/0.7/0.9): within 3% of eq (9); strictly better with the
    signal on protected features (n = 100,000: 0.59x to 0.999x). At n = 10,000 and epsilon 1
    the best grid point is t = 1, depth 1 (one split, whose weight is a posterior mean): 1.017x
    in 20 runs (benchmarks/bench_cell_estimate.py --target3), but a replication's MSE moves by
    +-0.03 with the chosen split axis, so 4 runs cannot resolve 3% (1.045x): 20 runs."""
    for epsilon in epsilons:
        paper, stable = _best_over_grid(n, epsilon, reps, rhos=(0.5, 0.7, 0.9))
        assert stable <= 1.03 * paper, epsilon
        paper, stable = _best_over_grid(n, epsilon, reps, rhos=(0.5, 0.7, 0.9),
                                        f=protected_signal)
        assert stable < paper, epsilon
