"""The mechanism, BCDP and comparison explorers (notebooks 02, 08 and 06)."""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from . import views
from ._explorer import (
    BLACK,
    BLUE,
    SKY,
    VERMILLION,
    Explorer,
    choice_slider,
    epsilon_slider,
    float_slider,
    go,
    int_slider,
    new_figure,
    on_panel,
    readout_html,
    set_log_ticks,
    set_trace,
)
from ._panels import Panel, Panels


def log_error_bars(mean, half_width):
    """Error bars ``mean ± half_width`` that a log axis can show, and the axis range.

    A lower end at or below 0 has no place on a log axis: it is drawn down to the bottom of
    the axis, which sits a little below every mean and every positive lower end. Returns
    ``(minus, plus, floor, ceiling)``: the arms to draw and the extent of the data.
    """
    mean, half_width = np.asarray(mean, float), np.asarray(half_width, float)
    lower, upper = mean - half_width, mean + half_width
    positive = np.r_[mean[mean > 0], lower[lower > 0]]
    floor = 0.6 * positive.min() if len(positive) else 1e-6
    return mean - np.maximum(lower, floor), half_width, floor, float(upper.max())


def _log_range(floor, ceiling):
    """A log axis range in quarter decades, so it changes only when the data moves a lot."""
    return [float(np.floor(np.log10(floor) * 4) / 4), float(np.ceil(np.log10(ceiling) * 4) / 4)]


# ----------------------------------------------------------------------------------------------
# 0. One user's release (the first notebook)
# ----------------------------------------------------------------------------------------------
def mechanism_explorer():
    """The Laplace label release and the GRR cell report of one user as epsilon moves."""
    controls = {
        "epsilon": epsilon_slider(1.0, 0.125, 16),
        "rho": float_slider("ρ (label share)", 0.5, 0.1, 0.9, 0.1),
        "k": choice_slider("potential |V|", [(str(v), v) for v in K_STOPS], 6),
    }
    panels = Panels([Panel("released label Ỹ = clip(Y) + Laplace", legend=2, min_width=220),
                     Panel("GRR: which cell is reported", legend=2, min_width=220)])
    traces = [on_panel(go.Scatter(mode="lines", name=name,
                                  line={"color": color, "width": 3, "dash": dash}), 0)
              for name, color, dash in (("true label −1", BLUE, "solid"),
                                        ("true label +1", VERMILLION, "dash"))]
    traces += [on_panel(go.Bar(name="the user's true cell", marker={"color": BLUE}), 1),
               on_panel(go.Bar(name="each other potential cell", marker={"color": SKY}), 1)]
    fig = new_figure(panels, "What one user sends (labels in [−1, 1])", traces,
                     barmode="overlay")
    fig.layout.xaxis.title.text = "released label Ỹ"
    fig.layout.yaxis.title.text = "density"
    fig.layout.xaxis2.title.text = "reported cell (1 = the user's true cell)"
    fig.layout.yaxis2.update(title_text="probability", range=[0, 1])
    readout = W.HTML()

    def update():
        c = {k: w.value for k, w in controls.items()}
        out = views.mechanism_view(epsilon=c["epsilon"], rho=c["rho"], k=c["k"])
        probs = out["grr_probs"]
        with fig.batch_update():
            for trace, y0 in zip(fig.data[:2], out["labels"], strict=True):
                set_trace(trace, x=out["grid"], y=out["density"][y0])
            set_trace(fig.data[2], x=[1], y=probs[:1])
            set_trace(fig.data[3], x=np.arange(2, len(probs) + 1), y=probs[1:])
        readout.value = readout_html([
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
        "epsilon": epsilon_slider(2.0, 0.25, 16, description="ε (overall LDP)"),
        "delta": _delta_slider(),
        "k": int_slider("k (sensitive)", 2, 0, 10),
        "q": choice_slider("correlation q", [(f"{v:g}", v) for v in Q_STOPS], 0.01),
        "zeta": float_slider("ζ", 0.5, 0.1, 1.0, 0.1),
        "n": choice_slider("n users", [(f"{v:,}", v) for v in (500, 1_000, 2_000, 5_000, 10_000)],
                           2000),
        "d": choice_slider("d features", [(str(v), v) for v in D_STOPS], 10),
    }
    panels = Panels([Panel("budget per coordinate", legend=2, min_width=200),
                     Panel("error per coordinate (± 2 SE)", legend=4, min_width=200)])
    traces = [
        on_panel(go.Bar(name="BCDP budget c<sub>i</sub> (Theorem 2)", marker={"color": BLUE}), 0),
        on_panel(go.Scatter(mode="markers", name="required δ<sub>i</sub>",
                            marker={"symbol": "line-ew-open", "size": 22, "color": VERMILLION,
                                    "line": {"width": 3}}), 0),
        on_panel(go.Scatter(mode="lines", name="BCDP, exact",
                            line={"color": BLUE, "width": 2.5}), 1),
        on_panel(go.Scatter(mode="markers", name="BCDP, simulated",
                            error_y={"type": "data", "symmetric": False},
                            marker={"color": BLUE, "size": 8}), 1),
        on_panel(go.Scatter(mode="lines", name="plain LDP, exact",
                            line={"color": BLACK, "dash": "dash", "width": 2.5}), 1),
        on_panel(go.Scatter(mode="markers", name="plain LDP, simulated",
                            error_y={"type": "data", "symmetric": False},
                            marker={"color": BLACK, "symbol": "square", "size": 8}), 1),
    ]
    fig = new_figure(panels, "Mean estimation with feature-specific guarantees", traces)
    fig.layout.xaxis.title.text = fig.layout.xaxis2.title.text = "coordinate i"
    fig.layout.yaxis.title.text = "privacy budget"
    fig.layout.yaxis2.update(title_text="MSE of the mean", type="log")
    readout = W.HTML()

    def update():
        c = {k: w.value for k, w in controls.items()}
        k = min(c["k"], c["d"])
        out = views.bcdp_view(epsilon=c["epsilon"], delta=c["delta"], k=k, q=c["q"],
                              zeta=c["zeta"], n=c["n"], d=c["d"])
        coords = np.arange(1, c["d"] + 1)
        extent = []
        with fig.batch_update():
            set_trace(fig.data[0], x=coords, y=out["c"])
            set_trace(fig.data[1], x=coords, y=out["deltas"])
            for i, method in ((2, "bcdp"), (4, "ldp")):
                closed, mc = out[f"mse_{method}_closed"], out[f"mse_{method}_mc"]
                minus, plus, floor, ceiling = log_error_bars(mc, 2 * out[f"mse_{method}_mc_se"])
                extent += [floor, ceiling, closed.min(), closed.max()]
                set_trace(fig.data[i], x=coords, y=closed)
                set_trace(fig.data[i + 1], x=coords, y=mc)
                fig.data[i + 1].error_y.update(array=plus, arrayminus=minus)
            _fit_log_axis(fig.layout.yaxis2, min(extent), max(extent))
        total = {m: float(np.sum(out[f"mse_{m}_closed"])) for m in ("bcdp", "ldp")}
        sensitive = {m: float(np.sum(out[f"mse_{m}_closed"][:k])) for m in ("bcdp", "ldp")}
        readout.value = readout_html([
            ("total MSE: BCDP", f"{total['bcdp']:.3g}"), ("plain LDP", f"{total['ldp']:.3g}"),
            ("sensitive coordinates: BCDP", f"{sensitive['bcdp']:.3g}"),
            ("plain LDP", f"{sensitive['ldp']:.3g}"),
            ("LDP budget", f"{out['baseline_alpha']:.3g}")])

    return Explorer(controls, [fig], readout, update, "BCDP explorer")


K_STOPS = (2, 3, 4, 6, 8, 12, 16, 24, 30)
D_STOPS = (2, 3, 4, 5, 6, 8, 10, 12, 15, 20)
Q_STOPS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0)


def _delta_slider():
    stops = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 4)
    return choice_slider("δ (sensitive)", [(f"{v:g}", float(v)) for v in stops], 0.2)


def _fit_log_axis(axis, floor, ceiling):
    """A log axis that shows [floor, ceiling] whole, with :func:`set_log_ticks` labels."""
    span = _log_range(floor, ceiling)
    if list(axis.range or ()) != span:
        axis.range = span
    set_log_ticks(axis, [10 ** span[0], 10 ** span[1]])


# ----------------------------------------------------------------------------------------------
# 6. The methods side by side (a live miniature of Figure 2(a))
# ----------------------------------------------------------------------------------------------
COMPARISON_NOTE = (f"Updates when you let go of a slider: a new setting refits "
                   f"{views.N_COMPARISON_SETTINGS} grid points on two samples (about half a "
                   f"second); settings already seen come back at once. {views.LABEL_LDP_NOTE}")


def comparison_explorer():
    """HistOfTree against Hist, KRR, ParDT, label LDP (HistOfTree with s = 0 and LabelDT) and
    DT at the chosen epsilon and s*."""
    controls = {
        "epsilon": epsilon_slider(4.0, 0.5, 32, continuous=False),
        "s_star": int_slider("s* (private)", 2, 0, views.D, continuous=False),
    }
    # Two-line tick labels, never rotated: rotated labels at 1024 px ran into the axis title.
    panels = Panels([Panel("", legend=1, min_width=300, aspect=2.2)], tick_lines=2)
    traces = [on_panel(go.Bar(name="best of a small grid, mean of 2 samples (± 2 SE)",
                              marker={"color": BLUE},
                              error_y={"type": "data", "symmetric": False}), 0)]
    fig = new_figure(panels, "Semi-feature LDP between label LDP and LDP", traces)
    fig.layout.yaxis.update(type="log", title_text="MSE against f*")
    fig.layout.xaxis.update(title_text="method (orange: HistOfTree, black: no privacy)",
                            tickangle=0)
    readout = W.HTML()

    def update():
        c = {k: w.value for k, w in controls.items()}
        out = views.comparison_view(epsilon=c["epsilon"], s_star=c["s_star"])
        colors = ["#E69F00" if m == "HistOfTree" else BLACK if m == "DT" else BLUE
                  for m in out["methods"]]
        minus, plus, floor, ceiling = log_error_bars(out["mse"], 2 * out["se"])
        with fig.batch_update():
            set_trace(fig.data[0], x=[m.replace(" ", "<br>") for m in out["methods"]],
                      y=out["mse"])
            fig.data[0].marker.color = colors
            fig.data[0].error_y.update(array=plus, arrayminus=minus)
            _fit_log_axis(fig.layout.yaxis, min(floor, out["mse"].min()), ceiling)
        best = out["best"]["HistOfTree"]
        readout.value = readout_html([
            ("HistOfTree uses", f"depth {best['depth']}, t = {best['t']}; the stable "
                                "estimate, ρ = auto"),
            ("its rank", 1 + int(np.sum(out["mse"] < out["mse"][0])))])

    return Explorer(controls, [fig], readout, update, "Methods compared", note=COMPARISON_NOTE)
