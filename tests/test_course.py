"""The course's summary helpers compute what they say, and the by-hand V_i picture is right."""

import numpy as np
import pandas as pd
import pytest

from ldpviz.partition import build_partition
from ldpviz.viz.course import (
    best_per_value,
    mean_2se,
    paired_gap,
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
