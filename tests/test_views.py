"""The explorers' pure compute functions agree with the package's estimators and formulas."""

import numpy as np
import pytest

from ldpviz import HistOfTree, theory
from ldpviz.datasets import PAPER_Y_BOUND, make_paper_regression, paper_regression_function
from ldpviz.masks import aligned_mask, gamma_mask
from ldpviz.viz import _paper_setting, model_views, views


def _model(n=3000, **kw):
    X, y = make_paper_regression(n, random_state=0)
    model = HistOfTree(epsilon=kw["epsilon"], s=kw["s_star"], t=kw["t"], depth=kw["depth"],
                       rho=0.5, y_bound=PAPER_Y_BOUND, random_state=kw.get("noise_seed", 0))
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
    shown = X[out["point_rows"]]
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
        X, y, X_test = _paper_setting._paper_data(3000, r)
        model = LabelDT(epsilon=4.0, y_bound=PAPER_Y_BOUND, random_state=r, **best).fit(X, y)
        errors.append(np.mean((model.predict(X_test) - paper_regression_function(X_test)) ** 2))
    assert mse["LabelDT"] == pytest.approx(np.mean(errors))
    # label LDP with the semi-feature estimator: HistOfTree with every feature public
    best = out["best"]["HistOfTree s=0"]
    errors = []
    for r in range(2):
        X, y, X_test = _paper_setting._paper_data(3000, r)
        model = HistOfTree(epsilon=4.0, s=0, y_bound=PAPER_Y_BOUND, random_state=r, **best)
        model.fit(X, y, W=np.zeros_like(X, dtype=bool))
        errors.append(np.mean((model.predict(X_test) - paper_regression_function(X_test)) ** 2))
    assert mse["HistOfTree s=0"] == pytest.approx(np.mean(errors))
    assert mse["DT"] == min(mse.values())  # no privacy is best
    assert mse["LabelDT"] < mse["Hist"]  # label LDP beats full LDP


def _gamma_model(n=3000, s=2, gamma=1.0, **kw):
    X, y = make_paper_regression(n, random_state=0)
    W = gamma_mask(n, 5, gamma)
    model = HistOfTree(epsilon=kw.get("epsilon", 4.0), s=s, t=kw.get("t", 2),
                       depth=kw.get("depth", 2), rho=0.5, y_bound=PAPER_Y_BOUND,
                       random_state=0)
    return model.fit(X, y, W=W), X, W


def test_personalized_partition_view_is_the_protocol_of_section_3_3():
    out = views.partition_view(n=3000, s_star=2, depth=2, t=2, mask="gamma", gamma=0.5, user=3)
    model, X, W = _gamma_model(s=2, gamma=0.5)
    # the s most protected features are the histogram axes; the estimate is eq (9) with W_gamma
    assert out["hist_axes"] == (0, 1) and out["tree_axes"] == (2, 3, 4)
    assert np.allclose(out["protect_share"], W.mean(axis=0))
    user = out["user"]
    i = user["index"]
    assert W[i].sum() == 3 and not W[:i].sum(axis=1).tolist().count(3)  # first with k = 3
    assert user["protects"] == (0, 1, 2)
    # the slice passes through the user's point, and f~ on it is the personalized fit
    assert np.allclose(out["slice_at"], X[i])
    _, _, grid = views.slice_grid(0, 4, X[i])
    assert np.array_equal(out["z"].ravel(), model.predict(grid))
    # V_i: the partition's potential cells of this user; those meeting the slice are outlined
    potential = model.partition_.potential_cells(X[[i]], W[[i]])[0]
    assert user["n_potential"] == potential.sum() > 1
    assert len(user["edge_x"]) == 6 * user["n_potential_in_slice"]
    assert 1 <= user["n_potential_in_slice"] <= user["n_potential"]
    own_x = user["own_x"][:5]
    assert own_x.min() <= X[i, 0] <= own_x.max()  # the user's own cell contains their point


def test_a_user_who_hides_more_has_more_potential_cells():
    sizes = [views.partition_view(n=3000, mask="gamma", user=k)["user"]["n_potential"]
             for k in range(1, 6)]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]


def test_gamma_moves_the_personalized_partition_and_surface():
    a = views.partition_view(n=3000, mask="gamma", gamma=0.25, depth=3)
    b = views.partition_view(n=3000, mask="gamma", gamma=4.0, depth=3)
    assert not np.array_equal(a["z"], b["z"])
    assert not np.allclose(a["protect_share"], b["protect_share"])
    sa = views.surface_view(n=3000, mask="gamma", gamma=0.25)
    sb = views.surface_view(n=3000, mask="gamma", gamma=4.0)
    assert not np.array_equal(sa["private"], sb["private"])
    assert np.array_equal(sa["truth"], sb["truth"])


def test_aligned_view_ignores_gamma_and_user():
    a = views.partition_view(n=3000, gamma=0.25, user=3)
    b = views.partition_view(n=3000, gamma=4.0)
    assert np.array_equal(a["z"], b["z"]) and a["user"] is None
    with pytest.raises(ValueError, match="mask"):
        views.partition_view(n=3000, mask="spread")


def test_tradeoff_view_says_where_the_upper_bound_is_claimed():
    out = views.tradeoff_view(s=1, n=10_000)
    assert out["epsilon_max"] == pytest.approx((10_000 / np.log(10_000)) ** (1 / 5))
    assert views.tradeoff_view(s=0, n=10_000)["epsilon_max"] == pytest.approx(1.0)


def test_bad_t_is_refused_with_a_readable_message():
    with pytest.raises(ValueError, match=r"t must be >= 1, got 0\."):
        views.partition_view(t=0)


@pytest.mark.parametrize("view, kwargs, match", [
    ("partition_view", {"x_axis": 5}, r"x_axis must be in \[0, 4\], got 5"),
    ("partition_view", {"y_axis": 2.5}, "y_axis must be an integer"),
    ("surface_view", {"x_axis": np.nan}, "x_axis must be an integer"),
    ("surface_view", {"n": np.inf}, "n must be finite"),
    ("surface_view", {"s_star": np.inf}, "s_star must be an integer"),
    ("partition_view", {"data_seed": -1}, "data_seed must be >= 0"),
    ("lambda_view", {"n": np.inf}, "n must be finite"),
    ("tradeoff_view", {"d": np.inf}, "d must be an integer"),
    ("tradeoff_view", {"s": 6}, r"s must be in \[0, 5\]"),
    ("mechanism_view", {"k": 10**9}, r"k must be in \[1, 1000000\]"),
])
def test_views_refuse_odd_arguments_by_name(view, kwargs, match):
    # each used to escape as IndexError, OverflowError or MemoryError from deep inside
    with pytest.raises(ValueError, match=match):
        getattr(views, view)(**kwargs)


def test_the_estimate_switch_shows_eq_9_exploding_where_the_stable_estimate_does_not():
    kw = dict(epsilon=1.0, s_star=2, depth=4, t=3, n=3000)
    paper = views.surface_view(cell_estimate="paper", **kw)
    stable = views.surface_view(**kw)
    model = HistOfTree(epsilon=1.0, s=2, t=3, depth=4, rho=0.5, y_bound=PAPER_Y_BOUND,
                       cell_estimate="paper", random_state=0)
    X, y = make_paper_regression(3000, random_state=0)
    model.fit(X, y, W=aligned_mask(3000, 5, 2))
    _, _, grid = views.slice_grid(0, 4, 0.5)
    assert np.array_equal(paper["private"].ravel(), model.predict(grid))
    assert paper["n_pinned"] == np.sum(np.abs(model.cell_values_) >= PAPER_Y_BOUND) > 0
    assert stable["n_pinned"] < paper["n_pinned"]
    assert stable["mse"] < paper["mse"]
    part = views.partition_view(cell_estimate="paper", **kw)
    assert part["n_pinned"] == paper["n_pinned"]


def test_theory_views_are_cached_for_slider_revisits():
    # checking the arguments must not displace the cache (a revisit is instant)
    assert views.lambda_view(gamma=2.0) is views.lambda_view(gamma=2.0)


@pytest.mark.parametrize("kwargs, match", [
    # reps <= 0 returned all-NaN MSEs, 1.5 an unnamed TypeError, 'x' "invalid literal for int()"
    ({"reps": 0}, "reps must be >= 1, got 0"),
    ({"reps": -3}, "reps must be >= 1, got -3"),
    ({"reps": 1.5}, "reps must be an integer, got 1.5"),
    ({"data_seed": "x"}, "data_seed must be an integer, got 'x'"),
    # reps = 10**9 ran 17 s into a MemoryError: refused at once with a reps that fits
    ({"reps": 10**9}, r"comparison_view with reps=1000000000 would need .* use reps <= \d+"),
    ({"n": 10**9}, r"comparison_view with n=1000000000 would need .* use n <= \d+"),
])
def test_comparison_view_checks_reps_and_its_size_first(kwargs, match):
    with pytest.raises(ValueError, match=match):
        views.comparison_view(**kwargs)


@pytest.mark.parametrize("view, kwargs, match", [
    # each used to run: all-NaN densities, an empty or wrong answer, or a numpy error
    ("mechanism_view", {"y_bound": 0}, "y_bound must be a positive finite number, got 0"),
    ("mechanism_view", {"y_bound": np.inf}, "y_bound must be a positive finite number"),
    ("mechanism_view", {"labels": (np.nan,)}, "labels contains 1 NaN"),
    ("mechanism_view", {"labels": ()}, "labels must hold at least one label"),
    ("mechanism_view", {"labels": "ab"},
     "labels must hold numbers, but the entry is the text 'ab'"),
    ("mechanism_view", {"epsilon": 1e-300}, "epsilon=1e-300 is too small to simulate"),
    ("mechanism_view", {"epsilon": np.inf}, "epsilon must be finite here"),
    ("lambda_view", {"depth": -1}, r"depth must be in \[0, 62\], got -1"),
    ("lambda_view", {"depth": 10**18}, r"depth must be in \[0, 62\]"),
    ("surface_view", {"hold": 2}, r"hold must be in \[0, 1\], got 2"),
    ("surface_view", {"hold": -1}, r"hold must be in \[0, 1\], got -1"),
    ("surface_view", {"hold": "x"}, "hold must be a real number, got 'x'"),
    ("partition_view", {"hold": (0.5,) * 4}, r"hold must be one number or 5 numbers in \[0, 1\]"),
])
def test_views_refuse_impossible_values_by_name(view, kwargs, match):
    with pytest.raises(ValueError, match=match):
        getattr(views, view)(**kwargs)


def test_views_cache_small_samples_only(monkeypatch):
    # Revisited settings are instant, but a cache of fits at any n could hold gigabytes: above
    # CACHE_MAX_USERS every call is computed afresh and nothing is kept.
    monkeypatch.setattr(_paper_setting, "CACHE_MAX_USERS", 1500)
    args = (4.0, 2, 2, 2, 0.5)
    small = model_views._fit(*args, 1000, "max-edge", "grr", 0, 0)
    assert model_views._fit(*args, 1000, "max-edge", "grr", 0, 0) is small
    assert views.privacy_mask("aligned", 1000) is views.privacy_mask("aligned", 1000)
    large = model_views._fit(*args, 2000, "max-edge", "grr", 0, 0)
    again = model_views._fit(*args, 2000, "max-edge", "grr", 0, 0)
    assert again is not large and again.mse == large.mse  # the same fit, recomputed
    assert views.privacy_mask("aligned", 2000) is not views.privacy_mask("aligned", 2000)
    assert _paper_setting._paper_data(2000, 0) is not _paper_setting._paper_data(2000, 0)
