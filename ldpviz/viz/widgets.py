"""Live explorers: ipywidgets sliders wired to plotly FigureWidgets.

Each explorer is an :class:`Explorer` (an ipywidgets VBox) whose plots are updated in place by
``batch_update``; the numbers come from the pure functions of :mod:`ldpviz.viz.views`. Every
explorer can be called with no arguments. ``explorer.controls`` maps slider names to widgets,
``explorer.figures`` lists the FigureWidgets and ``explorer.readout`` is the HTML readout, so
tests and notebooks can drive them without a browser.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from copy import deepcopy

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .. import bcdp
from . import views

FONT = {"size": 16}
# Okabe-Ito: distinguishable under the common colour-vision deficiencies.
COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]
HEATMAP_SCALE = "Viridis"
FEATURES = [(f"x{j + 1}", j) for j in range(views.D)]
SLIDER_STYLE = {"description_width": "initial"}
# Figure width in pixels; None lets plotly fit the output area (a notebook). The dashboard
# sets it: a figure built in a tab opened later is drawn before it is attached to the page,
# and plotly would fall back to 700 px and never grow.
FIGURE_WIDTH = ContextVar("FIGURE_WIDTH", default=None)
APP_FIGURE_WIDTH = 1150


class Explorer(W.VBox):
    """A VBox with named ``controls``, its ``figures``, a ``readout`` and an ``update`` hook.

    ``last_update_seconds`` is the kernel-side time of the last recompute and redraw.
    """

    def __init__(self, controls, figures, readout, update, title, extra=None, panels=None):
        self.controls = controls
        self.figures = figures
        self.readout = readout
        self._update = update
        self.last_update_seconds = float("nan")
        header = W.HTML(f"<h3 style='margin:4px 0'>{title}</h3>")
        rows = [W.HBox(list(controls.values())[i:i + 3]) for i in range(0, len(controls), 3)]
        body = [header, *rows, *(extra or []), readout, *(panels or figures)]
        super().__init__(body, layout=W.Layout(width="100%"))
        for widget in controls.values():
            if hasattr(widget, "value"):
                widget.observe(self.update, names="value")
        self.update()
        self._sync_figures()

    def _sync_figures(self):
        """Copy each figure's current state into the traits a new browser view starts from.

        plotly's FigureWidget does this only when it is displayed itself; inside a VBox or a
        Tab it is not, and a view would start from the empty figure of construction time
        (later edits reach live views as messages).
        """
        for fig in self.figures:
            fig._widget_layout = deepcopy(fig._layout_obj._props)
            fig._widget_data = deepcopy(fig._data)

    def _repr_mimebundle_(self, **kwargs):
        self._sync_figures()
        return super()._repr_mimebundle_(**kwargs)

    def update(self, change=None):
        start = time.perf_counter()
        self._update()
        self.last_update_seconds = time.perf_counter() - start


def _log_slider(description, value, low, high):
    """A base-2 log slider for epsilon-like parameters."""
    return W.FloatLogSlider(value=value, base=2, min=np.log2(low), max=np.log2(high), step=0.25,
                            description=description, continuous_update=False,
                            style=SLIDER_STYLE, readout_format=".3g")


def _int_slider(description, value, low, high, step=1):
    return W.IntSlider(value=value, min=low, max=high, step=step, description=description,
                       continuous_update=False, style=SLIDER_STYLE)


def _float_slider(description, value, low, high, step):
    return W.FloatSlider(value=value, min=low, max=high, step=step, description=description,
                         continuous_update=False, style=SLIDER_STYLE, readout_format=".2f")


def _histoftree_controls():
    """The sliders of a HistOfTree fit, at the teaching defaults (16 cells)."""
    return {
        "epsilon": _log_slider("ε", 4.0, 0.25, 64),
        "s_star": _int_slider("s* (private features)", 2, 0, views.D),
        "depth": _int_slider("depth p", 2, 0, 8),
        "t": _int_slider("t (bins)", 2, 1, 6),
    }


def _layout(fig, title, height=460):
    fig.update_layout(title=title, font=FONT, template="plotly_white", height=height,
                      width=FIGURE_WIDTH.get(),
                      margin={"l": 60, "r": 20, "t": 70, "b": 60},
                      legend={"orientation": "h", "y": -0.2})
    return fig


def _retitle(obj, text):
    """Set a title only if it changed: any relayout makes plotly redraw the whole figure."""
    if obj.title.text != text:
        obj.title.text = text


def _axis_title(axis, private):
    return f"x{axis + 1} ({'private: histogram bins' if private else 'public: tree splits'})"


def _readout(items):
    cells = "".join(f"<td style='padding:2px 14px'><b>{k}</b> {v}</td>" for k, v in items)
    return f"<table style='font-size:15px'><tr>{cells}</tr></table>"


# ----------------------------------------------------------------------------------------------
# 1. The combined partition
# ----------------------------------------------------------------------------------------------
def partition_explorer(n=10_000):
    """Histogram bins on private axes x tree splits on public ones, coloured by f~."""
    controls = {
        **_histoftree_controls(),
        "rho": _float_slider("ρ (label share)", 0.5, 0.1, 0.9, 0.1),
        "hold": _float_slider("other features at", 0.5, 0.0, 1.0, 0.05),
        "x_axis": W.Dropdown(options=FEATURES, value=0, description="horizontal"),
        "y_axis": W.Dropdown(options=FEATURES, value=4, description="vertical"),
    }
    fig = go.FigureWidget(data=[
        go.Heatmap(colorscale=HEATMAP_SCALE, zmin=-0.5, zmax=3.0, name="f~",
                   colorbar={"title": "f~(x)"}),
        go.Scatter(mode="lines", line={"color": "white", "width": 1.5}, name="cell edges",
                   hoverinfo="skip"),
        go.Scatter(mode="markers", name="users (hidden coordinate drawn at random)",
                   marker={"size": 5, "color": "rgba(255,255,255,0.55)",
                           "line": {"color": "black", "width": 0.5}}),
    ])
    _layout(fig, "Combined partition on a 2-D slice", height=540)
    # A square plot: a fixed width keeps the colour bar next to it instead of the far edge.
    fig.update_layout(width=640, autosize=False)
    fig.update_xaxes(range=[0, 1], constrain="domain")
    fig.update_yaxes(range=[0, 1], scaleanchor="x", constrain="domain")
    readout = W.HTML()

    def update():
        c = {k: w.value for k, w in controls.items()}
        if c["x_axis"] == c["y_axis"]:
            readout.value = "<b>Pick two different features for the axes.</b>"
            return
        out = views.partition_view(epsilon=c["epsilon"], s_star=c["s_star"], depth=c["depth"],
                                   t=c["t"], rho=c["rho"], n=n, x_axis=c["x_axis"],
                                   y_axis=c["y_axis"], hold=c["hold"])
        with fig.batch_update():
            fig.data[0].update(x=out["u"], y=out["v"], z=out["z"])
            fig.data[1].update(x=out["edge_x"], y=out["edge_y"])
            fig.data[2].update(x=out["point_x"], y=out["point_y"])
            others = [f"x{a + 1}" for a in range(views.D) if a not in (c["x_axis"], c["y_axis"])]
            _retitle(fig.layout, f"Combined partition on the slice {', '.join(others)} = "
                                 f"{c['hold']:.2f}")
            _retitle(fig.layout.xaxis, _axis_title(c["x_axis"], out["x_private"]))
            _retitle(fig.layout.yaxis, _axis_title(c["y_axis"], out["y_private"]))
        readout.value = _readout([
            ("cells", out["n_cells"]), ("in this slice", out["cells_in_slice"]),
            ("MSE (private)", f"{out['mse']:.3f}"),
            ("MSE (same partition, no privacy)", f"{out['mse_nonprivate']:.3f}")])

    return Explorer(controls, [fig], readout, update, "Partition explorer")


# ----------------------------------------------------------------------------------------------
# 2. The privatised regression surface
# ----------------------------------------------------------------------------------------------
def surface_explorer():
    """f* next to the privatised f~ and the non-private partition estimate on one slice."""
    controls = {
        **_histoftree_controls(),
        "n": W.IntSlider(value=10_000, min=1000, max=40000, step=1000, description="n users",
                         continuous_update=False, style=SLIDER_STYLE),
        "kind": W.ToggleButtons(options=["heatmap", "surface"], value="heatmap",
                                description="show as"),
    }
    new_draw = W.Button(description="new draw (fresh privacy noise)", icon="refresh",
                        layout=W.Layout(width="260px"))
    titles = ("truth f*", "privatised f~", "non-private, same partition")
    heat = make_subplots(rows=1, cols=3, subplot_titles=titles, horizontal_spacing=0.06)
    for col in range(3):
        heat.add_trace(go.Heatmap(colorscale=HEATMAP_SCALE, zmin=-0.5, zmax=3.0,
                                  showscale=col == 2, colorbar={"title": "f(x)"}),
                       row=1, col=col + 1)
        heat.update_xaxes(title_text="x1", row=1, col=col + 1)
    heat.update_yaxes(title_text="x5", row=1, col=1)
    heat = _layout(go.FigureWidget(heat), "Regression surfaces on the slice (x2, x3, x4) = 0.5")
    heat_box, surf_box = W.Box([heat]), W.Box([])
    readout = W.HTML()
    noise = {"seed": 0}
    figures = [heat]

    def surface_figure():
        """The 3-D view, built on first use: every FigureWidget costs the browser a bundle."""
        surf = make_subplots(rows=1, cols=3, subplot_titles=titles,
                             specs=[[{"type": "scene"}] * 3], horizontal_spacing=0.02)
        for col in range(3):
            surf.add_trace(go.Surface(colorscale=HEATMAP_SCALE, cmin=-0.5, cmax=3.0,
                                      showscale=col == 2), row=1, col=col + 1)
        surf = _layout(go.FigureWidget(surf), "Regression surfaces (drag to rotate)", height=480)
        scene = {"xaxis_title": "x1", "yaxis_title": "x5", "zaxis_title": "f",
                 "zaxis": {"range": [-0.5, 3.0]}}
        surf.update_layout(scene=scene, scene2=scene, scene3=scene)
        figures.append(surf)
        return surf

    def update():
        c = {k: w.value for k, w in controls.items()}
        out = views.surface_view(epsilon=c["epsilon"], s_star=c["s_star"], depth=c["depth"],
                                 t=c["t"], n=c["n"], noise_seed=noise["seed"])
        show_heat = c["kind"] == "heatmap"
        new = not show_heat and len(figures) == 1
        fig = heat if show_heat else (surface_figure() if new else figures[1])
        with fig.batch_update():
            for trace, key in zip(fig.data, ("truth", "private", "nonprivate"), strict=True):
                trace.update(x=out["u"], y=out["v"], z=out[key])
        if new:
            explorer._sync_figures()
            surf_box.children = [fig]
        heat_box.layout.display = None if show_heat else "none"
        surf_box.layout.display = "none" if show_heat else None
        readout.value = _readout([
            ("cells", out["n_cells"]), ("MSE (private)", f"{out['mse']:.3f}"),
            ("MSE (no privacy)", f"{out['mse_nonprivate']:.3f}"), ("noise draw", noise["seed"])])

    def redraw(_button):
        noise["seed"] += 1
        explorer.update()

    explorer = Explorer(controls, figures, readout, update, "Surface explorer",
                        extra=[new_draw], panels=[heat_box, surf_box])
    new_draw.on_click(redraw)
    explorer.buttons = {"new_draw": new_draw}
    return explorer


def _vline(x, xref, yref, color="black", dash="dot"):
    return {"type": "line", "x0": x, "x1": x, "y0": 0, "y1": 1, "xref": xref,
            "yref": f"{yref} domain", "line": {"color": color, "dash": dash, "width": 2}}


# ----------------------------------------------------------------------------------------------
# 3. Personalized masks and lambda*
# ----------------------------------------------------------------------------------------------
def lambda_explorer(n=10_000, epsilon=4.0):
    """The mask W_gamma, delta(p) (eq 12), the objective (11) against p, and lambda*."""
    controls = {
        "gamma": _float_slider("γ (tail of W)", 1.0, 0.25, 4.0, 0.25),
        "s": _int_slider("s (histogram axes)", 1, 0, views.D - 1),
        "depth": _int_slider("depth p", 4, 1, 14),
    }
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.1, column_widths=[0.26, 0.37, 0.37],
                        subplot_titles=("mask W (blue = protected)", "δ(p), eq (12)",
                                        "objective (11) against p"))
    fig.add_trace(go.Heatmap(colorscale=[[0, "#f4f4f4"], [1, COLORS[0]]], zmin=0, zmax=1,
                             showscale=False, name="W"), row=1, col=1)
    fig.add_trace(go.Scatter(mode="lines+markers", name="δ(p)",
                             line={"color": COLORS[4]}), row=1, col=2)
    for name, color, dash in (("privatised-error term", COLORS[1], "dash"),
                              ("approximation term", COLORS[2], "dash"),
                              ("sum", COLORS[0], "solid")):
        fig.add_trace(go.Scatter(mode="lines", name=name, line={"color": color, "dash": dash}),
                      row=1, col=3)
    fig.update_xaxes(title_text="feature", tickvals=list(range(views.D)),
                     ticktext=[f"x{j + 1}" for j in range(views.D)], row=1, col=1)
    fig.update_yaxes(title_text="user (sorted)", autorange="reversed", row=1, col=1)
    fig.update_xaxes(title_text="depth p", row=1, col=2)
    fig.update_xaxes(title_text="depth p", row=1, col=3)
    fig.update_yaxes(type="log", row=1, col=2)
    fig.update_yaxes(type="log", title_text="bound (up to constants)", row=1, col=3)
    fig = _layout(go.FigureWidget(fig), "Personalized privacy: how the tail of W sets λ*")
    readout = W.HTML()

    def update():
        c = {k: w.value for k, w in controls.items()}
        out = views.lambda_view(gamma=c["gamma"], s=c["s"], depth=c["depth"], n=n,
                                epsilon=epsilon)
        shapes = [{"type": "rect", "xref": "x", "yref": "y domain", "x0": a - 0.5,
                   "x1": a + 0.5, "y0": 0, "y1": 1, "line": {"color": COLORS[4], "width": 3}}
                  for a in out["hist_axes"]]
        shapes += [_vline(c["depth"], "x2", "y2"), _vline(c["depth"], "x3", "y3"),
                   _vline(out["p_star"], "x3", "y3", COLORS[3], "dash")]
        with fig.batch_update():
            fig.data[0].update(z=out["mask"], x=list(range(views.D)), y=out["mask_rows"])
            fig.data[1].update(x=out["p"], y=out["delta"])
            for trace, key in zip(fig.data[2:], ("term1", "term2", "total"), strict=True):
                trace.update(x=out["p"], y=out[key])
            fig.layout.shapes = shapes
        readout.value = _readout([
            ("p* (dashed)", int(out["p_star"])), ("λ*", f"{out['lambda_star']:.3f}"),
            (f"log₂δ(p)/p at p = {c['depth']} (dotted)", f"{out['lambda_at_depth']:.3f}"),
            ("rate exponent (13)", f"{out['exponent']:.3f}")])

    return Explorer(controls, [fig], readout, update, "λ* explorer")


# ----------------------------------------------------------------------------------------------
# 4. The bound trade-off
# ----------------------------------------------------------------------------------------------
N_CHOICES = [1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000]


def tradeoff_explorer():
    """Terms of (11)/(15) against p, the rate (13) against s, and bounds (13) vs (10) in eps."""
    controls = {
        "epsilon": _log_slider("ε", 2.0, 0.25, 64),
        "s": _int_slider("s (histogram axes)", 1, 0, views.D - 1),
        "gamma": _float_slider("γ (tail of W)", 1.0, 0.25, 4.0, 0.25),
        "n": W.SelectionSlider(options=[(f"{v:,}", v) for v in N_CHOICES], value=10_000,
                               description="n users", continuous_update=False,
                               style=SLIDER_STYLE),
    }
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.09,
                        subplot_titles=("(15) against depth p", "rate exponent (13) against s",
                                        "upper (13) vs lower (10) bound"))
    for name, color, dash in (("privatised-error term", COLORS[1], "dash"),
                              ("approximation term", COLORS[2], "dash"),
                              ("sum", COLORS[0], "solid")):
        fig.add_trace(go.Scatter(mode="lines", name=name, line={"color": color, "dash": dash}),
                      row=1, col=1)
    fig.add_trace(go.Scatter(mode="lines+markers", name="rate exponent",
                             line={"color": COLORS[4]}), row=1, col=2)
    fig.add_trace(go.Scatter(mode="markers", name="s chosen by (15)",
                             marker={"size": 16, "symbol": "star", "color": COLORS[3]}),
                  row=1, col=2)
    fig.add_trace(go.Scatter(mode="lines", name="upper bound (13)", line={"color": COLORS[0]}),
                  row=1, col=3)
    fig.add_trace(go.Scatter(mode="lines", name="lower bound (10)",
                             line={"color": COLORS[7], "dash": "dash"}), row=1, col=3)
    fig.update_xaxes(title_text="depth p", row=1, col=1)
    fig.update_yaxes(type="log", title_text="bound (up to constants)", row=1, col=1)
    fig.update_xaxes(title_text="s", dtick=1, row=1, col=2)
    fig.update_yaxes(title_text="exponent of log n/(nε²)", row=1, col=2)
    eps_ticks = [0.25, 1, 4, 16, 64]  # the slider's range; plotly's own log ticks crowd here
    fig.update_xaxes(type="log", title_text="ε", tickvals=eps_ticks,
                     ticktext=[f"{e:g}" for e in eps_ticks], row=1, col=3)
    risk_ticks = [m * 10.0**k for k in range(-6, 3) for m in (1, 2, 5)]
    fig.update_yaxes(type="log", title_text="excess risk (up to constants)", tickvals=risk_ticks,
                     ticktext=[f"{r:g}" for r in risk_ticks], row=1, col=3)
    fig = _layout(go.FigureWidget(fig), "The privacy-utility trade-off of Theorems 4.2 and 4.3")
    readout = W.HTML()

    def update():
        c = {k: w.value for k, w in controls.items()}
        out = views.tradeoff_view(epsilon=c["epsilon"], s=c["s"], gamma=c["gamma"], n=c["n"])
        sel = out["s_selected"]
        with fig.batch_update():
            for trace, key in zip(fig.data[:3], ("term1", "term2", "total"), strict=True):
                trace.update(x=out["p"], y=out[key])
            fig.data[3].update(x=out["s_values"], y=out["exponents"])
            fig.data[4].update(x=[sel], y=[out["exponents"][sel]])
            fig.data[5].update(x=out["epsilons"], y=out["upper"])
            fig.data[6].update(x=out["epsilons"], y=out["lower"])
            fig.layout.shapes = [_vline(out["p_star"], "x", "y", COLORS[3], "dash"),
                                 _vline(c["s"], "x2", "y2"),
                                 _vline(c["epsilon"], "x3", "y3")]
        readout.value = _readout([
            ("p* for this s", int(out["p_star"])), ("λ*", f"{out['lambda_star']:.3f}"),
            ("(15) selects", f"s = {sel}, p = {out['p_selected']}")])

    return Explorer(controls, [fig], readout, update, "Trade-off explorer")


# ----------------------------------------------------------------------------------------------
# 0. One user's release (the first notebook)
# ----------------------------------------------------------------------------------------------
def mechanism_explorer():
    """The Laplace label release and the GRR cell report of one user as epsilon moves."""
    controls = {
        "epsilon": _log_slider("ε", 1.0, 0.125, 16),
        "rho": _float_slider("ρ (label share)", 0.5, 0.1, 0.9, 0.1),
        "k": _int_slider("potential cells |V|", 6, 2, 30),
    }
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=("released label Ỹ = clip(Y) + Laplace",
                                        "GRR: which cell is reported"))
    for i, name in enumerate(("true label −1", "true label +1")):
        fig.add_trace(go.Scatter(mode="lines", name=name, line={"color": COLORS[i]}),
                      row=1, col=1)
    fig.add_trace(go.Bar(name="report probability", marker={"color": COLORS[5]},
                         showlegend=False), row=1, col=2)
    fig.update_xaxes(title_text="Ỹ", row=1, col=1)
    fig.update_yaxes(title_text="density", row=1, col=1)
    fig.update_xaxes(title_text="reported cell (1 = the user's true cell)", row=1, col=2)
    fig.update_yaxes(title_text="probability", range=[0, 1], row=1, col=2)
    fig = _layout(go.FigureWidget(fig), "What one user sends (labels in [−1, 1])", height=420)
    readout = W.HTML()

    def update():
        c = {k: w.value for k, w in controls.items()}
        out = views.mechanism_view(epsilon=c["epsilon"], rho=c["rho"], k=c["k"])
        probs = out["grr_probs"]
        with fig.batch_update():
            for trace, y0 in zip(fig.data[:2], out["labels"], strict=True):
                trace.update(x=out["grid"], y=out["density"][y0])
            fig.data[2].update(x=np.arange(1, len(probs) + 1), y=probs,
                               marker={"color": [COLORS[0]] + [COLORS[5]] * (len(probs) - 1)})
        readout.value = _readout([
            ("label budget ρε", f"{out['epsilon_label']:.2f}"),
            ("Laplace scale", f"{out['scale']:.2f}"),
            ("cell budget (1−ρ)ε", f"{out['epsilon_cells']:.2f}"),
            ("P(true cell reported)", f"{probs[0]:.2f}"),
            ("RR bit kept", f"{out['rr_keep']:.2f}")])

    return Explorer(controls, [fig], readout, update, "Mechanism explorer")


# ----------------------------------------------------------------------------------------------
# 5. Correlated features: Bayesian coordinate DP
# ----------------------------------------------------------------------------------------------
def bcdp_explorer():
    """BCDP's budget staircase and per-coordinate error next to plain LDP (Figure 3 setting)."""
    controls = {
        "epsilon": _log_slider("ε (overall LDP)", 2.0, 0.25, 16),
        "delta": _log_slider("δ of sensitive features", 0.2, 0.05, 4),
        "k": _int_slider("sensitive features k", 2, 0, 10),
        "q": _float_slider("correlation q", 0.01, 0.0, 1.0, 0.01),
        "zeta": _float_slider("ζ", 0.5, 0.05, 1.0, 0.05),
        "n": W.IntSlider(value=2000, min=500, max=10_000, step=500, description="n users",
                         continuous_update=False, style=SLIDER_STYLE),
        "d": _int_slider("d features", 10, 2, 20),
    }
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("budget per coordinate", "error per coordinate"))
    fig.add_trace(go.Bar(name="BCDP budget c_i (Theorem 2)", marker={"color": COLORS[0]}),
                  row=1, col=1)
    fig.add_trace(go.Scatter(mode="markers", name="required δ_i",
                             marker={"symbol": "line-ew-open", "size": 22, "color": COLORS[1],
                                     "line": {"width": 3}}), row=1, col=1)
    fig.add_trace(go.Scatter(mode="lines", name="BCDP, exact", line={"color": COLORS[0]}),
                  row=1, col=2)
    fig.add_trace(go.Scatter(mode="markers", name="BCDP, simulated", error_y={"type": "data"},
                             marker={"color": COLORS[0]}), row=1, col=2)
    fig.add_trace(go.Scatter(mode="lines", name="plain LDP, exact",
                             line={"color": COLORS[7], "dash": "dash"}), row=1, col=2)
    fig.add_trace(go.Scatter(mode="markers", name="plain LDP, simulated",
                             error_y={"type": "data"}, marker={"color": COLORS[7],
                                                               "symbol": "square"}),
                  row=1, col=2)
    fig.update_xaxes(title_text="coordinate i", row=1, col=1)
    fig.update_yaxes(title_text="privacy budget", row=1, col=1)
    fig.update_xaxes(title_text="coordinate i", row=1, col=2)
    fig.update_yaxes(title_text="MSE of the mean", type="log", dtick=1, row=1, col=2)  # decades
    fig = _layout(go.FigureWidget(fig), "Mean estimation with feature-specific guarantees")
    readout = W.HTML()

    def update():
        c = {k: w.value for k, w in controls.items()}
        k = min(c["k"], c["d"])
        out = bcdp.bcdp_explorer_data(epsilon=c["epsilon"], delta=c["delta"], k=k, q=c["q"],
                                      zeta=c["zeta"], n=c["n"], d=c["d"])
        coords = np.arange(1, c["d"] + 1)
        with fig.batch_update():
            fig.data[0].update(x=coords, y=out["c"])
            fig.data[1].update(x=coords, y=out["deltas"])
            for i, method in ((2, "bcdp"), (4, "ldp")):
                fig.data[i].update(x=coords, y=out[f"mse_{method}_closed"])
                fig.data[i + 1].update(x=coords, y=out[f"mse_{method}_mc"],
                                       error_y={"type": "data",
                                                "array": 2 * out[f"mse_{method}_mc_se"]})
        total = {m: float(np.sum(out[f"mse_{m}_closed"])) for m in ("bcdp", "ldp")}
        sensitive = {m: float(np.sum(out[f"mse_{m}_closed"][:k])) for m in ("bcdp", "ldp")}
        readout.value = _readout([
            ("total MSE: BCDP", f"{total['bcdp']:.3g}"), ("plain LDP", f"{total['ldp']:.3g}"),
            ("sensitive coordinates: BCDP", f"{sensitive['bcdp']:.3g}"),
            ("plain LDP", f"{sensitive['ldp']:.3g}"),
            ("LDP budget", f"{out['baseline_alpha']:.3g}")])

    return Explorer(controls, [fig], readout, update, "BCDP explorer")


# ----------------------------------------------------------------------------------------------
# 6. The methods side by side (a live miniature of Figure 2(a))
# ----------------------------------------------------------------------------------------------
def comparison_explorer():
    """HistOfTree against Hist, KRR, ParDT, LabelDT and DT at the chosen epsilon and s*."""
    controls = {
        "epsilon": _log_slider("ε", 4.0, 0.5, 32),
        "s_star": _int_slider("s* (private features)", 2, 0, views.D),
    }
    fig = go.FigureWidget(data=[go.Bar(marker={"color": COLORS[0]}, error_y={"type": "data"},
                                       name="best of a small grid")])
    fig.update_yaxes(type="log", title_text="MSE against f* (log scale)")
    fig = _layout(fig, "Semi-feature LDP between label LDP and LDP (mean of 2 samples)",
                  height=420)
    readout = W.HTML()

    def update():
        c = {k: w.value for k, w in controls.items()}
        out = views.comparison_view(epsilon=c["epsilon"], s_star=c["s_star"])
        colors = [COLORS[1] if m == "HistOfTree" else COLORS[7] if m == "DT" else COLORS[0]
                  for m in out["methods"]]
        with fig.batch_update():
            fig.data[0].update(x=out["methods"], y=out["mse"], marker={"color": colors},
                               error_y={"type": "data", "array": 2 * out["se"]})
        best = out["best"]["HistOfTree"]
        readout.value = _readout([
            ("HistOfTree uses", f"depth {best['depth']}, t = {best['t']}"),
            ("its rank", 1 + int(np.sum(out["mse"] < out["mse"][0])))])

    return Explorer(controls, [fig], readout, update, "Methods compared")


def dashboard():
    """The explorers in tabs, for app mode (Voila) and Binder.

    An explorer is built when its tab is first opened: each plotly FigureWidget makes the
    browser load and evaluate plotly's bundle, so building all of them up front slows the
    page down. ``tabs.explorers`` maps a tab index to the explorers built so far.
    """
    explorers = [("Partition", partition_explorer), ("Surface", surface_explorer),
                 ("λ* and masks", lambda_explorer), ("Trade-off", tradeoff_explorer),
                 ("BCDP (correlated)", bcdp_explorer)]
    panes = [W.VBox([W.HTML("<i>Loading the explorer…</i>")]) for _ in explorers]
    tabs = W.Tab(children=panes, titles=[title for title, _ in explorers])
    tabs.explorers = {}

    def open_tab(index):
        if index is not None and index not in tabs.explorers:
            token = FIGURE_WIDTH.set(APP_FIGURE_WIDTH)
            try:
                tabs.explorers[index] = explorers[index][1]()
            finally:
                FIGURE_WIDTH.reset(token)
            panes[index].children = [tabs.explorers[index]]

    tabs.observe(lambda change: open_tab(change["new"]), names="selected_index")
    open_tab(tabs.selected_index or 0)
    return tabs
