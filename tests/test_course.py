"""The course's summary helpers compute what they say, and the by-hand V_i picture is right."""

import numpy as np
import pandas as pd
import pytest

from ldpviz.partition import build_partition
from ldpviz.viz.course import (
    best_per_value,
    mean_2se,
    paired_gap,
    paired_table,
    panel_with_floor,
    plot_potential_cells,
)


def _runs():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"arm": np.repeat(["a", "b"], 8), "rep": np.tile(np.arange(8), 2),
                         "mse": rng.normal(size=16)})


def test_mean_2se_is_the_mean_and_two_standard_errors():
    runs = _runs()
    out = mean_2se(runs, "arm")
    a = runs.loc[runs["arm"] == "a", "mse"]
    assert np.isclose(out.loc["a", "mean"], a.mean())
    assert np.isclose(out.loc["a", "2 SE"], 2 * a.std(ddof=1) / np.sqrt(8))
    assert out.loc["a", "mean ± 2 SE"] == f"{a.mean():.3f} ± {2 * a.std(ddof=1) / np.sqrt(8):.3f}"


def test_paired_gap_pairs_replications():
    runs = _runs()
    diff = runs["mse"].to_numpy()[:8] - runs["mse"].to_numpy()[8:]
    gap, se2 = paired_gap(runs, "arm", "a", "b")
    assert np.isclose(gap, diff.mean()) and np.isclose(se2, 2 * diff.std(ddof=1) / np.sqrt(8))
    with pytest.raises(ValueError, match="at least 2"):
        paired_gap(runs[runs["rep"] == 0], "arm", "a", "b")


def test_paired_table_lists_each_groups_paired_difference_to_the_reference():
    runs = _runs()
    runs = pd.concat([runs, runs[runs["arm"] == "a"].assign(arm="c", mse=lambda r: r["mse"] ** 2)])
    table = paired_table(runs, "arm", "b", order=["c", "b", "a"])
    assert list(table.index) == ["c", "b", "a"]
    for group in ("a", "c"):
        gap, two_se = paired_gap(runs, "arm", group, "b")
        assert np.isclose(table.loc[group, "difference"], gap)
        assert np.isclose(table.loc[group, "difference 2 SE"], two_se)
        assert table.loc[group, "difference ± 2 SE"] == f"{gap:+.3f} ± {two_se:.3f}"
    assert np.isnan(table.loc["b", "difference"]) and table.loc["b", "difference ± 2 SE"] == ""
    assert table.loc["a", "mean"] == mean_2se(runs, "arm").loc["a", "mean"]
    assert list(paired_table(runs, "arm", "b").index) == ["b", "a", "c"]
    with pytest.raises(ValueError, match="no group 'd'"):
        paired_table(runs, "arm", "d")


def test_potential_cells_picture_shades_the_column_of_a_hidden_tree_feature():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(500, 2))
    part = build_partition(X, rng.normal(size=500), np.zeros((500, 2), bool), hist_axes=[0],
                           t=2, depth=2)
    fig = plot_potential_cells(part, x=[0.3, 0.6], w=[False, True])
    shaded = [p for p in fig.axes[0].patches if p.get_facecolor()[:3] != (1.0, 1.0, 1.0)]
    assert len(shaded) == 4  # own histogram bin x all 4 tree intervals
    with pytest.raises(ValueError, match="two features"):
        plot_potential_cells(part, x=[0.3, 0.6, 0.1], w=[False, True, False])


def test_best_per_value_keeps_each_values_best_point_across_arms():
    # Two arms whose config ids collide: the best point must be found per (arm, config).
    rows = []
    for arm, t, config, level in ((0, 1, 0, 5.0), (0, 1, 1, 3.0), (1, 2, 0, 4.0), (1, 2, 1, 9.0)):
        rows += [{"arm": arm, "t": t, "config_id": config, "rep": r, "mse": level + 0.1 * r}
                 for r in range(3)]
    wide = best_per_value(pd.DataFrame(rows), "t")
    assert np.allclose(wide[1], [3.0, 3.1, 3.2]) and np.allclose(wide[2], [4.0, 4.1, 4.2])


def test_panel_with_floor_keeps_the_floor_in_view():
    runs = pd.DataFrame({"series": "a", "epsilon": np.repeat([1.0, 4.0], 3),
                         "mse": [0.5, 0.6, 0.55, 0.2, 0.25, 0.22]})
    fig = panel_with_floor(runs, floor=0.01)
    assert fig.axes[0].get_ylim()[0] <= 0.01


def test_summaries_refuse_missing_columns_and_mixed_settings():
    runs = _runs()
    with pytest.raises(ValueError, match="no column 'setting'"):
        mean_2se(runs, "setting")
    with pytest.raises(ValueError, match="no column 'error'"):
        paired_gap(runs, "arm", "a", "b", y="error")
    with pytest.raises(ValueError, match="no column 'config_id'"):
        best_per_value(runs, "arm")
    # two settings (say two epsilons) stacked: a paired gap would average them silently
    twice = pd.concat([runs.assign(epsilon=1.0), runs.assign(epsilon=4.0)])
    with pytest.raises(ValueError, match="several rows per"):
        paired_gap(twice, "arm", "a", "b")
    rows = [{"t": t, "config_id": 0, "rep": r, "mse": 1.0, "epsilon": e}
            for t in (1, 2) for r in range(3) for e in (1.0, 4.0)]
    with pytest.raises(ValueError, match="several rows per"):
        best_per_value(pd.DataFrame(rows), "t")


def test_first_user_messages_replays_histoftree_and_shows_each_methods_release():
    from ldpviz import HistOfTree
    from ldpviz.datasets import make_paper_regression
    from ldpviz.masks import aligned_mask
    from ldpviz.mechanisms import cell_reports, privatize_labels
    from ldpviz.viz.course import first_user_messages

    X, y = make_paper_regression(500, random_state=1)
    W = aligned_mask(500, 5, 2)
    table = first_user_messages(X, y, W, 4.0, 3.0, user=3, random_state=7)
    hot = HistOfTree(epsilon=4.0, t=2, depth=2, rho=0.5, cell_estimate="paper", y_bound=3.0,
                     random_state=7).fit(X, y, W=W)
    rng = np.random.default_rng(7)  # the replay the table is built from is the fit's own
    assert np.array_equal(privatize_labels(y, hot.epsilon_label_, 3.0, rng), hot.y_tilde_)
    report = cell_reports(hot.partition_, X, W, hot.epsilon_cells_, "grr", rng)
    assert f"cell {report.reported[3]} of V_i" in table.loc["HistOfTree", "also sent"]
    assert table.loc["HistOfTree", "label"] == hot.y_tilde_[3]
    np.testing.assert_array_equal(table.loc["DT", ["x1", "x2"]], X[3, :2])  # in the clear
    assert table.loc[["ParDT", "HistOfTree", "Hist"], ["x1", "x2"]].isna().all().all()
    assert table.loc["KRR", "ε of the label"] + 2 * 1.0 == 4.0  # ε/2 + 2 x ε/4
    assert table.loc["Hist", "also sent"] == f"{2 * 2**5} noisy numbers"


def test_paired_verdicts_says_noise_within_two_standard_errors():
    from ldpviz.viz.course import paired_verdicts

    reps = np.arange(6)
    runs = pd.DataFrame({"rep": np.tile(reps, 3), "epsilon": 1.0,
                         "m": np.repeat(["ref", "worse", "same"], 6),
                         "mse": np.r_[reps * 0.1, reps * 0.1 + 1 + 0.01 * (reps % 2),
                                      reps * 0.1 + 0.01 * (-1) ** reps]})
    out = paired_verdicts(runs, "m", ["worse", "same"], "ref").set_index("versus")
    assert out.loc["worse", "verdict"] == "ref better"
    assert out.loc["same", "verdict"] == "within the noise"
    assert np.isclose(out.loc["worse", "gap"], 1.005)


def test_ranked_grid_points_ranks_and_marks_the_near_ties():
    import json

    from ldpviz.viz.course import ranked_grid_points

    errors = {1: [1.0, 1.02, 0.98, 1.0], 2: [1.01, 1.0, 1.0, 1.01], 4: [2.0, 2.0, 2.0, 2.01]}
    rows = [{"series": "a", "rep": rep, "config": json.dumps({"depth": depth}), "mse": mse}
            for depth, values in errors.items() for rep, mse in enumerate(values)]
    ranked, notes = ranked_grid_points(pd.DataFrame(rows))
    assert ranked["depth"].tolist() == [1, 2, 4] and ranked["rank"].tolist() == [1, 2, 3]
    assert ranked["within 2 SE of the best"].tolist() == [True, True, False]
    assert any("4 replications" in n for n in notes)  # 1/2^4 > 0.05: no star possible
    with pytest.raises(ValueError, match="one series"):
        ranked_grid_points(pd.DataFrame(rows).assign(series=["a", "b"] * 6))


def test_comparison_table_is_the_explorers_numbers():
    from ldpviz.viz import views
    from ldpviz.viz.course import comparison_table

    table = comparison_table([(4.0, 2)])
    out = views.comparison_view(epsilon=4.0, s_star=2)
    assert list(table.index) == out["methods"]
    assert table.iloc[0, 0] == f"{out['mse'][0]:.3f} ± {2 * out['se'][0]:.3f}"


def test_estimate_change_pairs_two_estimates_by_replication():
    from ldpviz.viz.course import estimate_change

    reps = np.arange(4)
    first = pd.DataFrame({"series": "a", "epsilon": 4, "rep": reps, "t": 1,
                          "mse": [1.0, 1.1, 0.9, 1.0]})
    second = first.assign(mse=first["mse"] - 0.5 + 0.01 * reps, t=2)
    out = estimate_change(first, second)
    row = out.change.iloc[0]
    assert np.isclose(row["gap"], -0.485) and row["verdict"] == "eq (9) worse"
    assert out.t.loc[("a", "stable"), 4] == 2 and out.t.loc[("a", "eq (9) as printed"), 4] == 1
    assert np.isclose(out.means.loc[("a", "stable", 4), "mean"], 0.515)
