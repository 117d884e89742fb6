"""Static figures: each returns a Figure that shows the view's numbers, with labelled axes."""

import io
import struct

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

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
    with pytest.raises(ValueError, match=r"q_max must be in \(0.05, inf\)"):
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


# ----------------------------------------------------------------------------------------------
# Legible in the narrowest notebook output
# ----------------------------------------------------------------------------------------------
#: JupyterLab at 1024x768 with the file browser open: outputs 592 px wide, wider PNGs shrunk.
NARROWEST_OUTPUT = 592
MIN_TEXT_PX = 9


def _series(n):
    return pd.DataFrame({"series": np.repeat([f"method {i}" for i in range(n)], 6),
                         "epsilon": np.tile([1, 2, 4, 8, 16, 1024], n),
                         "mse": np.linspace(0.03, 0.3, 6 * n)})


def _sweep():
    from ldpviz import bcdp

    qs = [0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99, 1]  # notebook 08's sweep
    return bcdp.sweep_q(qs, n=500, reps=2, random_state=0)


def _masks(k):
    return {f"mask {i}": aligned_mask(500, 5, 1 + i % 4) for i in range(k)}


#: Every figure plots.py draws, with its widest arguments (most panels, legends beside).
ALL_FIGURES = {
    "figure2_panel (4 series, legend inside)": lambda: plots.figure2_panel(_series(4), "epsilon"),
    "figure2_panel (7 series, legend beside)": lambda: plots.figure2_panel(
        _series(7), "epsilon", logx=True, logy=True),
    "plot_partition": plots.plot_partition,
    "plot_surface": plots.plot_surface,
    "plot_mask": lambda: plots.plot_mask(aligned_mask(500, 5, 2), (0, 1)),
    "plot_masks (3)": lambda: plots.plot_masks(_masks(3)),
    "plot_masks (5)": lambda: plots.plot_masks(_masks(5)),
    "plot_lambda": plots.plot_lambda,
    "plot_tradeoff": plots.plot_tradeoff,
    "plot_mechanisms": plots.plot_mechanisms,
    "plot_objective_vs_side": lambda: plots.plot_objective_vs_side(aligned_mask(500, 5, 2), 500,
                                                                   1.0),
    "plot_attack": lambda: plots.plot_attack(__import__("ldpviz.bcdp").bcdp.attack_table(
        [0.0, 0.5, 1.0], n=500)),
    "plot_bcdp_sweep": lambda: plots.plot_bcdp_sweep(_sweep()),
    "plot_oracle_variance": lambda: plots.plot_oracle_variance(epsilon=1.0, k=16),
}


def _inline_png_width(fig):
    """Width in px of the PNG the notebook's inline backend shows (100 dpi, tight bbox)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return struct.unpack(">I", buf.getvalue()[16:20])[0]


def test_every_figure_is_listed():
    drawn = {name.split(" ")[0] for name in ALL_FIGURES}
    public = {name for name in dir(plots) if name.startswith("plot_")} | {"figure2_panel"}
    assert drawn == public


@pytest.mark.parametrize("name", list(ALL_FIGURES))
def test_smallest_text_stays_legible_in_a_592_px_output(name):
    """Wide figures were shrunk to 592 px: plot_tradeoff's 10 pt legend (1273 px PNG) rendered
    at 6.5 px, plot_lambda's at 6.8. Panels beyond what MAX_WIDTH holds now wrap."""
    fig = ALL_FIGURES[name]()
    width = _inline_png_width(fig)
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    smallest = min(t.get_fontsize() for t in texts)
    shown = smallest * 100 / 72 * min(1.0, NARROWEST_OUTPUT / width)
    assert shown >= MIN_TEXT_PX, f"{smallest:g} pt text in a {width} px PNG shows at {shown:.1f} px"
    assert fig.get_size_inches()[0] <= plots.MAX_WIDTH + 1e-9  # the rule that keeps it so


@pytest.mark.parametrize(("k", "rows"), [(2, [2]), (3, [3]), (4, [3, 1]), (5, [3, 2])])
def test_panels_beyond_a_row_wrap_and_the_last_row_is_centred(k, rows):
    fig = plots.plot_masks(_masks(k))
    fig.draw_without_rendering()
    boxes = [ax.get_position() for ax in fig.axes]
    tops = sorted({round(b.y1, 2) for b in boxes}, reverse=True)
    assert [sum(round(b.y1, 2) == top for b in boxes) for top in tops] == rows
    if len(rows) > 1:  # the short row is centred under the full one
        first = [b for b in boxes if round(b.y1, 2) == tops[0]]
        last = [b for b in boxes if round(b.y1, 2) == tops[-1]]
        centre = (min(b.x0 for b in first) + max(b.x1 for b in first)) / 2
        assert abs((min(b.x0 for b in last) + max(b.x1 for b in last)) / 2 - centre) < 0.02


def test_bcdp_sweep_tick_labels_do_not_touch():
    """Twelve q values on one line ran together ("0.010.020.05", about 1 px apart)."""
    fig = plots.plot_bcdp_sweep(_sweep())
    fig.draw_without_rendering()
    for ax in fig.axes:
        labels = ax.get_xticklabels() + ax.get_xticklabels(minor=True)
        boxes = [t.get_window_extent() for t in labels if t.get_text().strip()]
        assert len(boxes) == 12  # every q is labelled
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                apart = max(b.x0 - a.x1, a.x0 - b.x1, b.y0 - a.y1, a.y0 - b.y1)
                assert apart >= 4, f"tick labels {apart:.1f} px apart"
    # the legend sits below the panels, outside the data
    legend = fig.legends[0].get_window_extent()
    assert all(legend.y1 <= ax.get_window_extent().y0 for ax in fig.axes)
