"""Static figures: each returns a Figure that shows the view's numbers, with labelled axes."""

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from ldpviz.masks import aligned_mask, gamma_mask
from ldpviz.viz import plots, views


def _labelled(fig):
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        assert ax.get_xlabel() or ax.get_xticklabels(), "an axis without a label"


@pytest.mark.parametrize(("draw", "n_panels"), [
    (plots.plot_partition, 1), (plots.plot_surface, 3), (plots.plot_lambda, 3),
    (plots.plot_tradeoff, 3), (plots.plot_mechanisms, 2)])
def test_view_figures(draw, n_panels):
    fig = draw()
    assert isinstance(fig, Figure)
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert len(panels) == n_panels
    _labelled(fig)


def test_partition_figure_shows_the_view_values():
    fig = plots.plot_partition(depth=1, t=2)
    image = fig.axes[0].images[0].get_array()
    assert np.allclose(image, views.partition_view(depth=1, t=2)["z"])


def test_mask_figure_outlines_the_histogram_axes():
    fig = plots.plot_masks({"aligned": aligned_mask(500, 5, 2), "gamma": gamma_mask(500, 5, 1)},
                           {"aligned": (0, 1)})
    assert len(fig.axes) == 2
    assert len(fig.axes[0].patches) == 2 and len(fig.axes[1].patches) == 0


def test_figure2_panel_draws_the_mean_over_replications():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"series": np.repeat(["HistOfTree", "Hist"], 12),
                       "epsilon": np.tile(np.repeat([1, 2, 4], 4), 2),
                       "mse": rng.random(24)})
    fig = plots.figure2_panel(df, x="epsilon", logx=True, title="Figure 2(a)")
    ax = fig.axes[0]
    lines = {text.get_text(): line for line, text in zip(ax.get_lines(), ax.get_legend().texts,
                                                         strict=False)}
    assert set(lines) == {"HistOfTree", "Hist"}
    expect = df[df.series == "Hist"].groupby("epsilon").mse.mean().to_numpy()
    assert np.allclose(lines["Hist"].get_ydata(), expect)
    assert ax.get_xscale() == "log" and ax.get_title() == "Figure 2(a)"


def test_figure2_panel_puts_a_long_legend_beside_the_lines():
    """Seven series (Figure 2(a)): inside the axes the legend covered a curve; beside them it
    covers nothing, and the figure widens instead. Four series keep it inside."""
    df = pd.DataFrame({"series": np.repeat([f"method {i}" for i in range(7)], 6),
                       "epsilon": np.tile([1, 2, 4, 8, 16, 1024], 7),
                       "mse": np.linspace(0.03, 0.3, 42)})
    for series, beside in ((7, True), (4, False)):
        fig = plots.figure2_panel(df[df.series.isin([f"method {i}" for i in range(series)])],
                                  x="epsilon", logx=True, logy=True)
        fig.draw_without_rendering()  # runs the constrained layout
        ax = fig.axes[0]
        legend = ax.get_legend().get_window_extent()
        axes = ax.get_window_extent()
        assert (legend.x0 >= axes.x1) == beside
        assert (fig.get_size_inches()[0] > 6) == beside
        assert legend.x1 <= fig.bbox.x1 + 1  # whole: nothing cut at the right edge


def test_bcdp_and_objective_figures_draw_their_tables():
    from ldpviz import bcdp

    attack = bcdp.attack_table([0.0, 0.5, 1.0], n=2000)
    fig = plots.plot_attack(attack)
    lines = fig.axes[0].get_lines()
    assert np.allclose(lines[0].get_ydata(), attack["public_exact"])
    sweep = bcdp.sweep_q([0.0, 0.5], n=2000, reps=3)
    fig = plots.plot_bcdp_sweep(sweep)
    assert np.allclose(fig.axes[1].get_lines()[0].get_ydata(), sweep["bcdp_sensitive"])
    fig = plots.plot_objective_vs_side(aligned_mask(2000, 5, 2), 2000, 1.0, s_values=[0, 2])
    assert len(fig.axes[0].get_lines()) == 4  # a curve and its integer points per s


def test_objective_vs_side_refuses_a_q_max_beyond_the_budget():
    # q_max = 1e9 raised MemoryError allocating 29.8 GiB of integer depths
    W = aligned_mask(50, 4, 2)
    with pytest.raises(ValueError,
                       match=r"q_max=1000000000.0 would need .* use q_max <= 1.67e\+06"):
        plots.plot_objective_vs_side(W, 100, 1.0, q_max=1e9)
    with pytest.raises(ValueError, match=r"q_max must be in \(0.05, inf\]"):
        plots.plot_objective_vs_side(W, 100, 1.0, q_max=0)
    with pytest.raises(ValueError, match=r"s_values must be in \[0, 3\]"):
        plots.plot_objective_vs_side(W, 100, 1.0, s_values=[4])


_NAN_MASK = np.where(aligned_mask(50, 4, 2), 1.0, np.nan)


@pytest.mark.parametrize("draw, kwargs, match", [
    # each was silently drawn: W * 2 and NaN cast to True, an outline off the image, -5 users
    (plots.plot_objective_vs_side, {"W": 2 * aligned_mask(50, 4, 2), "n": 100, "epsilon": 1.0},
     "W must contain only 0 and 1"),
    (plots.plot_objective_vs_side, {"W": _NAN_MASK, "n": 100, "epsilon": 1.0},
     "W must contain only 0 and 1.*nan"),
    (plots.plot_mask, {"W": _NAN_MASK}, "W must contain only 0 and 1.*nan"),
    (plots.plot_mask, {"W": aligned_mask(50, 4, 2), "hist_axes": (9,)},
     r"hist_axes has indices outside 0..3"),
    (plots.plot_mask, {"W": aligned_mask(50, 4, 2), "n_users": -5}, "n_users must be >= 50"),
])
def test_mask_figures_refuse_bad_masks_by_name(draw, kwargs, match):
    with pytest.raises(ValueError, match=match):
        draw(**kwargs)
