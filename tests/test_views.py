"""The explorers' pure compute functions agree with the package's estimators and formulas."""

import numpy as np
import pytest

from ldpviz import HistOfTree, theory
from ldpviz.datasets import PAPER_Y_BOUND, make_paper_regression, paper_regression_function
from ldpviz.masks import aligned_mask, gamma_mask
from ldpviz.viz import views


def _model(n=3000, **kw):
    X, y = make_paper_regression(n, random_state=0)
    model = HistOfTree(epsilon=kw["epsilon"], s=kw["s_star"], t=kw["t"], depth=kw["depth"],
                       y_bound=PAPER_Y_BOUND, random_state=kw.get("noise_seed", 0))
    return model.fit(X, y, W=aligned_mask(n, 5, kw["s_star"]))


def test_partition_view_matches_histoftree():
    kw = dict(epsilon=2.0, s_star=2, depth=3, t=2)
    out = views.partition_view(n=3000, x_axis=1, y_axis=3, hold=0.3, **kw)
    model = _model(**kw)
    _, _, grid = views.slice_grid(1, 3, 0.3)
    assert np.array_equal(out["z"].ravel(), model.predict(grid))
    assert out["n_cells"] == model.n_cells_
    X_test, _ = make_paper_regression(views.N_TEST, random_state=10_000)
    expect = np.mean((model.predict(X_test) - paper_regression_function(X_test)) ** 2)
    assert out["mse"] == pytest.approx(expect)
    assert out["x_private"] and not out["y_private"]
    # the hidden coordinate of the users' points is not their data
    X, _ = make_paper_regression(3000, random_state=0)
    shown = X[: len(out["point_x"])]
    assert not np.allclose(out["point_x"], shown[:, 1])
    assert np.array_equal(out["point_y"], shown[:, 3])


def test_partition_view_edges_outline_the_cells_in_the_slice():
    out = views.partition_view(depth=2, t=2, s_star=1, x_axis=0, y_axis=4)
    xs = out["edge_x"].reshape(-1, 6)[:, :5]
    assert len(xs) == out["cells_in_slice"]
    # the rectangles tile the unit square
    ys = out["edge_y"].reshape(-1, 6)[:, :5]
    area = (xs.max(1) - xs.min(1)) * (ys.max(1) - ys.min(1))
    assert area.sum() == pytest.approx(1.0)


def test_surface_view_matches_histoftree_and_a_new_draw_changes_only_the_noise():
    kw = dict(epsilon=4.0, s_star=2, depth=2, t=3)
    a = views.surface_view(n=3000, noise_seed=0, **kw)
    b = views.surface_view(n=3000, noise_seed=1, **kw)
    model = _model(**kw)
    _, _, grid = views.slice_grid(0, 4, 0.5)
    assert np.array_equal(a["private"].ravel(), model.predict(grid))
    assert np.allclose(a["truth"].ravel(), paper_regression_function(grid))
    assert np.array_equal(a["truth"], b["truth"]) and np.array_equal(a["nonprivate"],
                                                                       b["nonprivate"])
    assert not np.array_equal(a["private"], b["private"])
    assert a["mse_nonprivate"] < a["mse"]


def test_lambda_view_matches_theory():
    out = views.lambda_view(gamma=0.5, s=2, depth=3, n=5000, epsilon=2.0)
    W = gamma_mask(5000, 5, 0.5)
    p = out["p"]
    assert np.allclose(out["delta"], theory.delta(W, 2, p))
    assert np.allclose(out["total"], theory.objective(W, 2, p, 5000, 2.0).total)
    assert out["p_star"] == p[np.argmin(out["total"])]
    assert out["lambda_star"] == pytest.approx(theory.lambda_star(W, 2, out["p_star"]))
    assert out["lambda_at_depth"] == pytest.approx(theory.lambda_star(W, 2, 3))
    assert out["exponent"] == pytest.approx(theory.upper_rate_exponent(5, 2,
                                                                       out["lambda_star"]))
    assert out["hist_axes"] == (0, 1)
    assert out["share_protecting"].sum() == pytest.approx(1.0)


def test_lambda_grows_as_the_tail_of_w_thickens():
    lams = [views.lambda_view(gamma=g, s=1)["lambda_star"] for g in (4.0, 2.0, 1.0, 0.5)]
    assert lams == sorted(lams)


def test_tradeoff_view_matches_theory():
    out = views.tradeoff_view(epsilon=3.0, s=1, gamma=1.0, n=5000)
    W = gamma_mask(5000, 5, 1.0)
    assert (out["s_selected"], out["p_selected"]) == theory.select_s_p(W, 5000, 3.0)
    assert np.allclose(out["lower"], theory.lower_bound(5000, out["epsilons"], 5, 1))
    assert np.all(np.diff(out["upper"]) <= 1e-12)  # more budget, smaller bound
    assert out["exponents"][-1] == pytest.approx(theory.upper_rate_exponent(5, 5, 0))
    assert len(out["s_values"]) == 6


def test_comparison_view_matches_direct_fits_and_orders_the_privacy_models():
    from ldpviz.baselines import LabelDT

    out = views.comparison_view(epsilon=4.0, s_star=2, n=3000, reps=2)
    mse = dict(zip(out["methods"], out["mse"], strict=True))
    best = out["best"]["LabelDT"]
    errors = []
    for r in range(2):
        X, y, X_test = views._paper_data(3000, r)
        model = LabelDT(epsilon=4.0, y_bound=PAPER_Y_BOUND, random_state=r, **best).fit(X, y)
        errors.append(np.mean((model.predict(X_test) - paper_regression_function(X_test)) ** 2))
    assert mse["LabelDT"] == pytest.approx(np.mean(errors))
    assert mse["DT"] == min(mse.values())  # no privacy is best
    assert mse["LabelDT"] < mse["Hist"]  # label LDP beats full LDP
