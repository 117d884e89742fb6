"""HistOfTree: limits, consistency, the personalized/aligned reduction, sklearn behaviour."""

import warnings

import numpy as np
import pytest
from _bad_data import DEFECTS, with_defect
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

import ldpviz.estimators as estimators_module
from ldpviz import HistOfTree, PrivacyWarning
from ldpviz.adaptive_rule import RHO_GRID, choose_rho
from ldpviz.datasets import PAPER_Y_BOUND, make_paper_regression, paper_regression_function
from ldpviz.masks import aligned_mask, gamma_mask

M = PAPER_Y_BOUND


def _mse(model, X_test):
    return float(np.mean((model.predict(X_test) - paper_regression_function(X_test)) ** 2))


@pytest.fixture(scope="module")
def data():
    X, y = make_paper_regression(6000, random_state=1)
    X_test, _ = make_paper_regression(4000, random_state=2)
    return X, y, X_test


@pytest.mark.parametrize("rule", ["max-edge", "cart"])
@pytest.mark.parametrize("mechanism", ["grr", "rr"])
@pytest.mark.parametrize("mask", ["aligned", "gamma"])
def test_large_epsilon_equals_the_non_private_partition_estimate(data, rule, mechanism, mask):
    """eq (9) -> eq (3) on the same partition as epsilon grows."""
    X, y, _ = data
    W = aligned_mask(len(X), 5, 2) if mask == "aligned" else gamma_mask(len(X), 5, 1.0)
    for epsilon, tol in ((np.inf, 1e-12), (1e5, 1e-3)):
        model = HistOfTree(epsilon=epsilon, s=2, t=3, depth=3, rule=rule, mechanism=mechanism,
                           y_bound=M, random_state=0).fit(X, y, W=W)
        means, counts = model.partition_.cell_means(X, np.clip(y, -M, M))
        full = counts > 0
        assert np.max(np.abs(model.cell_values_[full] - means[full])) < tol


@pytest.mark.slow
def test_mse_falls_as_n_grows_and_as_epsilon_grows():
    X_test, _ = make_paper_regression(5000, random_state=99)

    def mse(n, epsilon, reps=4):
        out = []
        for r in range(reps):
            X, y = make_paper_regression(n, random_state=100 + r)
            model = HistOfTree(epsilon=epsilon, s=2, t=2, depth=2, y_bound=M, random_state=r)
            out.append(_mse(model.fit(X, y), X_test))
        return np.mean(out)

    by_n = [mse(n, 4.0) for n in (2000, 8000, 32000)]
    by_eps = [mse(8000, eps) for eps in (1.0, 2.0, 4.0, 8.0)]
    assert by_n[0] > by_n[1] > by_n[2]
    assert by_eps[0] > by_eps[1] > by_eps[2] > by_eps[3]


def test_personalized_reduces_to_aligned(data):
    """With an aligned W, mechanism (8) is (4)+(5): same potential cells, same estimate."""
    X, y, _ = data
    W = aligned_mask(len(X), 5, 2)
    a = HistOfTree(epsilon=2, t=2, depth=3, y_bound=M, private_features=[0, 1],
                   random_state=7).fit(X, y)
    b = HistOfTree(epsilon=2, s=2, t=2, depth=3, y_bound=M, random_state=7).fit(X, y, W=W)
    assert a.hist_axes_ == b.hist_axes_ == (0, 1)
    assert np.array_equal(a.cell_values_, b.cell_values_)
    H, T = b.partition_.potential(X, W)
    assert H.all() and np.all(T.sum(1) == 1)  # every histogram cell, own leaf only


def test_histogram_axes_are_the_most_protected_features(data):
    X, y, _ = data
    W = np.zeros((len(X), 5), dtype=bool)
    W[:, 3] = True
    W[: len(X) // 2, 1] = True
    model = HistOfTree(epsilon=2, s=2, depth=2, y_bound=M, random_state=0).fit(X, y, W=W)
    assert model.hist_axes_ == (3, 1)
    assert model.tree_axes_ == (0, 2, 4)


def test_each_label_is_privatised_once_and_reused(monkeypatch, data):
    X, y, _ = data
    calls, captured = [], {}
    real_privatize = estimators_module.privatize_labels
    real_build = estimators_module.build_partition

    def counting_privatize(*args, **kwargs):
        out = real_privatize(*args, **kwargs)
        calls.append(out)
        return out

    def capturing_build(X_, y_tilde, *args, **kwargs):
        captured["tree_labels"] = y_tilde
        return real_build(X_, y_tilde, *args, **kwargs)

    monkeypatch.setattr(estimators_module, "privatize_labels", counting_privatize)
    monkeypatch.setattr(estimators_module, "build_partition", capturing_build)
    model = HistOfTree(epsilon=2, s=2, depth=2, y_bound=M, random_state=0).fit(
        X, y, W=gamma_mask(len(X), 5, 1.0))
    assert len(calls) == 1 and calls[0].shape == (len(X),)
    assert captured["tree_labels"] is calls[0] is model.y_tilde_


def test_budget_split_of_a_fit_adds_up(data):
    X, y, _ = data
    for rho in (0.5, 0.7, 0.9):
        model = HistOfTree(epsilon=3.0, s=2, rho=rho, y_bound=M, random_state=0).fit(X, y)
        assert model.epsilon_label_ + model.epsilon_cells_ == pytest.approx(3.0, rel=1e-15)
        assert model.epsilon_label_ == pytest.approx(rho * 3.0)


@pytest.mark.parametrize("mechanism", ["grr", "rr", "auto"])
@pytest.mark.parametrize("epsilon", [0.5, 2.0, 8.0])
def test_budget_rule_splits_epsilon_exactly_and_the_labels_carry_its_share(data, mechanism,
                                                                           epsilon):
    """rho="auto": the chosen share is one of RHO_GRID, the split adds up to epsilon, the rule
    is the public one (same inputs, same rho), and the released labels' noise has the
    variance of Laplace(2M / (rho_ eps))."""
    X, y, _ = data
    W = gamma_mask(len(X), 5, 1.0)
    model = HistOfTree(epsilon=epsilon, s=1, t=3, depth=3, mechanism=mechanism, y_bound=M,
                       random_state=0).fit(X, y, W=W)
    assert model.rho_ in RHO_GRID
    assert model.epsilon_label_ + model.epsilon_cells_ == pytest.approx(epsilon, rel=1e-15)
    assert model.epsilon_label_ == pytest.approx(model.rho_ * epsilon)
    assert model.rho_ == choose_rho(W, len(X), epsilon, mechanism, M, 1, 3, 3)
    split = W.any(axis=1)  # t > 1: whoever hides a feature sends a cell report
    noise = (model.y_tilde_ - np.clip(y, -M, M))[split]
    expect = 2 * (2 * M / model.epsilon_label_) ** 2
    assert abs(noise.var() - expect) < 0.15 * expect


def test_users_who_publish_everything_spend_the_whole_budget_on_the_label(data):
    X, y, _ = data
    W = np.zeros((len(X), 5), dtype=bool)
    W[: len(X) // 2, :2] = True  # half the users protect two features, half protect none
    model = HistOfTree(epsilon=2.0, s=2, rho=0.5, y_bound=M, random_state=0).fit(X, y, W=W)
    assert model.n_label_only_ == np.sum(~W.any(axis=1))
    one_bin = HistOfTree(epsilon=2.0, s=2, t=1, y_bound=M, random_state=0).fit(X, y, W=W)
    assert one_bin.n_label_only_ == len(X)  # t = 1: every cell is known from the tree axes
    noise = model.y_tilde_ - np.clip(y, -M, M)
    # Laplace(b) has variance 2 b^2 with b = 2M / epsilon_i
    for rows, eps in ((W.any(axis=1), 1.0), (~W.any(axis=1), 2.0)):
        var, expect = noise[rows].var(), 2 * (2 * M / eps) ** 2
        assert abs(var - expect) < 0.15 * expect


def test_same_seed_same_fit_and_different_seed_different_fit(data):
    X, y, X_test = data
    fits = [HistOfTree(epsilon=1, s=2, y_bound=M, random_state=s).fit(X, y).predict(X_test)
            for s in (3, 3, 4)]
    assert np.array_equal(fits[0], fits[1])
    assert not np.array_equal(fits[0], fits[2])


def test_generator_random_state_is_accepted(data):
    X, y, _ = data
    model = HistOfTree(epsilon=1, s=2, y_bound=M, random_state=np.random.default_rng(0))
    assert model.fit(X, y).n_cells_ == 16


def test_corner_cases_s_zero_s_d_depth_zero(data):
    X, y, X_test = data
    for s, depth, cells in ((0, 3, 8), (5, 3, 32), (2, 0, 4)):
        model = HistOfTree(epsilon=4, s=s, t=2, depth=depth, y_bound=M, random_state=0)
        model.fit(X, y)
        assert model.n_cells_ == cells
        pred = model.predict(X_test)
        assert np.all(np.isfinite(pred)) and np.all(np.abs(pred) <= M)


def test_fallback_and_clipping_are_applied_where_counts_are_not_positive(data):
    """eq (9) as printed: the fallback replaces cells whose debiased count is not positive."""
    X, y, _ = data
    X, y = X[:300], y[:300]  # many nearly empty cells at a low budget
    kwargs = dict(epsilon=0.5, s=3, t=3, depth=3, y_bound=M, cell_estimate="paper",
                  random_state=0)
    leaf = HistOfTree(**kwargs).fit(X, y)
    zero = HistOfTree(fallback="zero", **kwargs).fit(X, y)
    bad = leaf.cell_denominator_ <= 0
    assert bad.any()
    assert np.all(zero.cell_values_[bad] == 0)
    leaf_means = leaf.partition_.tree.leaf_label_mean
    expect = np.tile(np.where(np.isnan(leaf_means), leaf.y_tilde_.mean(), leaf_means),
                     leaf.partition_.histogram.n_cells)
    assert np.allclose(leaf.cell_values_[bad], np.clip(expect[bad], -M, M))
    assert np.all(np.abs(leaf.cell_values_) <= M)
    raw = HistOfTree(clip=False, **kwargs).fit(X, y)
    assert np.abs(raw.cell_values_).max() > M


def test_predict_clips_points_outside_the_box_to_the_boundary_cells(data):
    X, y, _ = data
    model = HistOfTree(epsilon=4, s=2, y_bound=M, random_state=0).fit(X, y)
    outside = np.array([[-0.2, 1.3, 0.5, 1.0, 2.0]])
    assert model.predict(outside) == pytest.approx(model.predict(np.clip(outside, 0, 1)))


def test_missing_y_bound_warns_that_it_leaks(data):
    X, y, _ = data
    with pytest.warns(PrivacyWarning, match="y_bound"):
        model = HistOfTree(epsilon=4, s=2, random_state=0).fit(X, y)
    assert model.y_bound_ == pytest.approx(np.abs(y).max())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        HistOfTree(epsilon=4, s=2, y_bound=M, random_state=0).fit(X, y)


BAD_INPUTS = [
    ("epsilon", dict(epsilon=0), {}),
    ("epsilon", dict(epsilon=-1), {}),
    ("rho", dict(rho=1.0), {}),
    ("rho", dict(rho=0), {}),
    ("s", dict(s=6), {}),
    ("t", dict(t=0), {}),
    ("depth", dict(depth=-1), {}),
    ("rule", dict(rule="gini"), {}),
    ("mechanism", dict(mechanism="laplace"), {}),
    ("fallback", dict(fallback="mean"), {}),
    ("y_bound", dict(y_bound=-1.0), {}),
    ("private_features", dict(private_features=[0, 7]), {}),
]
BAD_INPUTS += [(argument, {}, (argument, defect)) for argument, defect in DEFECTS]


@pytest.mark.parametrize(("name", "params", "corrupt"), BAD_INPUTS)
def test_bad_input_gets_a_clear_error(data, name, params, corrupt):
    X, y, _ = data
    X, y = X[:200].copy(), y[:200].copy()
    W = aligned_mask(200, 5, 2).astype(int)
    if corrupt:
        X, y, W = with_defect(X, y, W, *corrupt)
    base = dict(epsilon=1.0, s=2, y_bound=M, random_state=0)
    with pytest.raises(ValueError, match=name):
        HistOfTree(**{**base, **params}).fit(X, y, W=W)


def test_missing_mask_information_is_an_error(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="private_features"):
        HistOfTree(epsilon=1, y_bound=M).fit(X, y)
    with pytest.raises(ValueError, match="either W"):
        HistOfTree(epsilon=1, y_bound=M, private_features=[0]).fit(X, y, W=aligned_mask(
            len(X), 5, 1))


def test_predict_checks_the_number_of_features(data):
    X, y, _ = data
    model = HistOfTree(epsilon=1, s=2, y_bound=M, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :3])


def test_scikit_learn_conventions(data):
    X, y, X_test = data
    model = HistOfTree(epsilon=2, s=2, t=3, depth=2, y_bound=M, random_state=0)
    params = model.get_params()
    assert params["t"] == 3 and params["rule"] == "max-edge"
    twin = clone(model).set_params(depth=4)
    assert twin.depth == 4 and model.depth == 2
    assert not hasattr(model, "partition_")
    model.fit(X, y)
    assert model.n_features_in_ == 5
    assert isinstance(model.score(X_test, paper_regression_function(X_test)), float)


def test_pipeline_and_grid_search_pass_W_through(data):
    X, y, _ = data
    W = gamma_mask(len(X), 5, 1.0)
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(X))  # masks may be shuffled across users freely
    X, y, W = X[perm], y[perm], W[perm]
    pipe = make_pipeline(FunctionTransformer(), HistOfTree(epsilon=4, s=2, y_bound=M,
                                                           random_state=0))
    pipe.fit(X, y, histoftree__W=W)
    assert pipe[-1].n_cells_ == 16
    search = GridSearchCV(HistOfTree(epsilon=4, s=2, y_bound=M, random_state=0),
                          {"depth": [1, 3]}, cv=KFold(3), scoring="neg_mean_squared_error")
    search.fit(X, y, W=W)
    assert search.best_params_["depth"] in (1, 3)
    assert search.best_estimator_.partition_.n_features == 5


def test_with_one_bin_users_who_hide_only_histogram_axes_also_spend_it_all_on_the_label(data):
    X, y, _ = data
    W = np.zeros((len(X), 5), dtype=bool)
    W[:, 0] = True  # everyone hides x1, a histogram axis
    W[: len(X) // 2, 3] = True  # half also hide x4, a tree axis
    model = HistOfTree(epsilon=2.0, s=1, t=1, depth=2, y_bound=M, random_state=0).fit(X, y, W=W)
    noise = model.y_tilde_ - np.clip(y, -M, M)
    for rows, eps in ((W[:, 3], model.epsilon_label_), (~W[:, 3], 2.0)):
        var, expect = noise[rows].var(), 2 * (2 * M / eps) ** 2
        assert abs(var - expect) < 0.15 * expect


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64])
def test_numpy_integer_parameters_fit_as_the_python_ints(data, dtype):
    """depth and min_samples_leaf as small numpy integers: the checked Python ints are used
    (an int8 once overflowed in the resource check: 'Python integer 300 out of bounds')."""
    X, y, _ = data
    W = gamma_mask(300, 5, 1.0)
    for params in ({"depth": 2}, {"min_samples_leaf": 1}):
        plain = HistOfTree(s=1, y_bound=M, random_state=0, **params).fit(X[:300], y[:300], W)
        small = HistOfTree(s=1, y_bound=M, random_state=0,
                           **{k: dtype(v) for k, v in params.items()}).fit(X[:300], y[:300], W)
        np.testing.assert_array_equal(small.cell_values_, plain.cell_values_)
