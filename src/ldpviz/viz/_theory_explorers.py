"""The lambda* and trade-off explorers: the bounds of Section 4 as curves that move."""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from . import views
from ._explorer import (
    BLACK,
    BLUE,
    GREEN,
    GREY,
    ORANGE,
    PURPLE,
    VERMILLION,
    Explorer,
    choice_slider,
    epsilon_slider,
    gamma_slider,
    go,
    int_slider,
    new_figure,
    on_panel,
    readout_html,
    set_log_ticks,
    set_shapes,
    set_trace,
    set_vline,
    vline,
)
from ._panels import Panel, Panels


def _terms(panel):
    """The two terms of (11)/(15) and their sum, on one panel."""
    return [on_panel(go.Scatter(mode="lines", name=name, line={"color": color, "dash": dash,
                                                                "width": 2.5}), panel)
            for name, color, dash in (("privatised-error term", VERMILLION, "dash"),
                                      ("approximation term", GREEN, "dashdot"),
                                      ("sum", BLUE, "solid"))]


# ----------------------------------------------------------------------------------------------
# 3. Personalized masks and lambda*
# ----------------------------------------------------------------------------------------------
def lambda_explorer(n=10_000, epsilon=4.0):
    """The mask W_gamma, delta(p) (eq 12), the objective (11) against p, and lambda*."""
    controls = {
        "gamma": gamma_slider(1.0),
        "s": int_slider("s (hist. axes)", 1, 0, views.D - 1),
        "depth": int_slider("depth p", 4, 1, 14, wide=True),  # 14 positions: a long track
    }
    panels = Panels([
        Panel("W (blue = protected)", weight=0.24, fill=True, legend=1, min_width=110),
        Panel("δ(p), eq (12)", weight=0.38, legend=2),
        Panel("objective (11) against p", weight=0.38, legend=4)])
    traces = [
        on_panel(go.Heatmap(colorscale=[[0, "#eeeeee"], [1, BLUE]], zmin=0, zmax=1,
                            showscale=False, name="W", hoverinfo="skip"), 0, None),
        on_panel(go.Scatter(mode="lines+markers", name="δ(p)",
                            line={"color": ORANGE, "width": 2.5}), 1),
        vline(1, "your depth p"),
        *_terms(2),
        vline(2, "p*, the best depth", PURPLE, "dash"),
        vline(2),
    ]
    fig = new_figure(panels, "Personalized privacy: how the tail of W sets λ*", traces)
    fig.layout.xaxis.update(title_text="feature", tickvals=list(range(views.D)),
                            ticktext=[f"x{j + 1}" for j in range(views.D)])
    fig.layout.yaxis.update(title_text="user (sorted)", range=[n, 0], tickformat=",")
    fig.layout.xaxis2.title.text = fig.layout.xaxis3.title.text = "depth p"
    fig.layout.yaxis2.title.text = "δ(p)"
    fig.layout.yaxis3.title.text = "bound (constants dropped)"
    readout = W.HTML()

    def update():
        c = {k: w.value for k, w in controls.items()}
        out = views.lambda_view(gamma=c["gamma"], s=c["s"], depth=c["depth"], n=n,
                                epsilon=epsilon)
        shapes = [{"type": "rect", "xref": "x", "yref": "y domain", "x0": a - 0.5,
                   "x1": a + 0.5, "y0": 0, "y1": 1, "line": {"color": ORANGE, "width": 4},
                   "name": "histogram axes", "showlegend": i == 0, "legend": "legend"}
                  for i, a in enumerate(out["hist_axes"])]
        terms = np.r_[out["term1"], out["term2"], out["total"]]
        with fig.batch_update():
            set_trace(fig.data[0], z=out["mask"], x=list(range(views.D)), y=out["mask_rows"])
            set_trace(fig.data[1], x=out["p"], y=out["delta"])
            set_vline(fig.data[2], c["depth"], out["delta"], log=True)
            for trace, key in zip(fig.data[3:6], ("term1", "term2", "total"), strict=True):
                set_trace(trace, x=out["p"], y=out[key])
            set_vline(fig.data[6], out["p_star"], terms, log=True)
            set_vline(fig.data[7], c["depth"], terms, log=True)
            set_log_ticks(fig.layout.yaxis2, out["delta"])
            set_log_ticks(fig.layout.yaxis3, terms)
            set_shapes(fig, shapes)
        readout.value = readout_html([
            ("p* (dashed)", int(out["p_star"])), ("λ*", f"{out['lambda_star']:.3f}"),
            (f"log₂δ(p)/p at p = {c['depth']} (dotted)", f"{out['lambda_at_depth']:.3f}"),
            ("rate exponent (13)", f"{out['exponent']:.3f}")])

    return Explorer(controls, [fig], readout, update, "λ* explorer")


# ----------------------------------------------------------------------------------------------
# 4. The bound trade-off
# ----------------------------------------------------------------------------------------------
N_CHOICES = [1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000]
# Under the title, where it wraps with the width (in the figure it ran past a narrow panel).
BOUNDS_NOTE = ("Bounds with their constants dropped: compare slopes, not heights. (13) holds "
               "with high probability for ε up to about (n / log n)<sup>s/(1+d−s)</sup>, "
               "shaded beyond in the right panel (the value is in the readout).")


def tradeoff_explorer():
    """Terms of (11)/(15) against p, the rate (13) against s, and bounds (13) vs (10) in eps."""
    controls = {
        "epsilon": epsilon_slider(2.0),
        "s": int_slider("s (hist. axes)", 1, 0, views.D - 1),
        "gamma": gamma_slider(1.0),
        "n": choice_slider("n users", [(f"{v:,}", v) for v in N_CHOICES], 10_000),
    }
    panels = Panels([Panel("(15) against depth p", legend=4),
                     Panel("rate exponent (13) against s", legend=3),
                     Panel("upper (13) and lower (10) bounds", legend=4)])
    traces = [
        *_terms(0),
        vline(0, "p* for this s", PURPLE, "dash"),
        on_panel(go.Scatter(mode="lines+markers", name="rate exponent (13)",
                            line={"color": ORANGE, "width": 2.5}), 1),
        on_panel(go.Scatter(mode="markers", name="s chosen by (15)",
                            marker={"size": 18, "symbol": "star", "color": PURPLE}), 1),
        vline(1, "your s"),
        on_panel(go.Scatter(mode="lines", name="upper bound (13)",
                            line={"color": PURPLE, "width": 3}), 2),
        on_panel(go.Scatter(mode="lines", name="(13) where it is not claimed",
                            line={"color": PURPLE, "width": 2, "dash": "dot"}), 2),
        on_panel(go.Scatter(mode="lines", name="lower bound (10)",
                            line={"color": BLACK, "dash": "dash", "width": 2.5}), 2),
        vline(2, "your ε"),
    ]
    fig = new_figure(panels, "The privacy-utility trade-off of Theorems 4.2 and 4.3", traces)
    fig.layout.xaxis.title.text = "depth p"
    fig.layout.yaxis.title.text = "bound (constants dropped)"
    fig.layout.xaxis2.update(title_text="s (histogram axes)", dtick=1)
    fig.layout.yaxis2.title.text = "exponent of log n/(nε²)"
    eps_ticks = [0.25, 1, 4, 16, 64]
    fig.layout.xaxis3.update(type="log", title_text="ε", tickvals=eps_ticks,
                             ticktext=[f"{e:g}" for e in eps_ticks])
    fig.layout.yaxis3.title.text = "excess risk (constants dropped)"
    readout = W.HTML()

    def update():
        c = {k: w.value for k, w in controls.items()}
        out = views.tradeoff_view(epsilon=c["epsilon"], s=c["s"], gamma=c["gamma"], n=c["n"])
        sel, eps_max = out["s_selected"], out["epsilon_max"]
        eps, upper = out["epsilons"], out["upper"]
        claimed = eps <= eps_max * 1.0001
        edge = int(np.searchsorted(eps, eps_max, side="right"))  # first point not claimed
        terms = np.r_[out["term1"], out["term2"], out["total"]]
        extent = np.r_[upper, out["lower"]]
        with fig.batch_update():
            for trace, key in zip(fig.data[:3], ("term1", "term2", "total"), strict=True):
                set_trace(trace, x=out["p"], y=out[key])
            set_vline(fig.data[3], out["p_star"], terms, log=True)
            set_trace(fig.data[4], x=out["s_values"], y=out["exponents"])
            set_trace(fig.data[5], x=[sel], y=[out["exponents"][sel]])
            set_vline(fig.data[6], c["s"], out["exponents"])
            set_trace(fig.data[7], x=eps[claimed], y=upper[claimed])
            set_trace(fig.data[8], x=eps[max(edge - 1, 0):], y=upper[max(edge - 1, 0):])
            set_trace(fig.data[9], x=eps, y=out["lower"])
            set_vline(fig.data[10], c["epsilon"], extent, log=True)
            set_log_ticks(fig.layout.yaxis, terms)
            set_log_ticks(fig.layout.yaxis3, extent)
            set_shapes(fig, [{"type": "rect", "xref": "x3", "yref": "y3 domain",
                              "x0": min(eps_max, 64), "x1": 64, "y0": 0, "y1": 1,
                              "fillcolor": GREY, "opacity": 0.15, "line": {"width": 0},
                              "layer": "below"}])
        readout.value = readout_html([
            ("p* for this s", int(out["p_star"])), ("λ*", f"{out['lambda_star']:.3f}"),
            ("(15) selects", f"s = {sel}, p = {out['p_selected']}"),
            ("(13) claimed up to ε ≈", f"{eps_max:.3g}")])

    return Explorer(controls, [fig], readout, update, "Trade-off explorer", note=BOUNDS_NOTE)
