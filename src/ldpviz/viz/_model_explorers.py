"""The partition and surface explorers: HistOfTree's cells and estimate, aligned or personalized."""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from .._validation import check_choice
from . import views
from ._explorer import (
    BLACK,
    BLUE,
    HEATMAP_SCALE,
    ORANGE,
    VERMILLION,
    Explorer,
    choice_slider,
    dropdown,
    epsilon_slider,
    fit,
    float_slider,
    gamma_slider,
    go,
    int_slider,
    new_figure,
    on_panel,
    readout_html,
    refit,
    retitle,
    set_trace,
    set_y_title,
    toggle,
)
from ._panels import Panel, Panels

FEATURES = [(f"x{j + 1}", j) for j in range(views.D)]
MASK_CHOICES = [("aligned", "aligned"), ("γ-mask", "gamma")]
MASK_TIPS = ["aligned: the same s* features are private for every user",
             "personalized: W_γ, each user protects x1..xk, k drawn with tail γ"]
# W_gamma: the user protecting k features protects x1..xk (features are ranked x1 first)
USER_CHOICES = [(f"protects x1{f'–x{k}' if k > 1 else ''}", k) for k in range(1, views.D + 1)]
N_STOPS = (1_000, 2_000, 5_000, 10_000, 20_000, 40_000)
#: The label's share: Appendix C.1's values and beyond, then HistOfTree's default public rule.
RHO_STOPS = [(f"{r / 10:.1f}", r / 10) for r in range(1, 10)] + [("auto", "auto")]
LEGEND_WIDTH = 300  # the partition's legend when it stands right of the heat map
Z_RANGE = (-0.5, 3.0)  # colour scale of every f: f* lies in [0.48, 2.5]


def _privacy_controls():
    """Who protects what: the mask (aligned s* or personalized W_gamma) and its gamma."""
    return {"mask": toggle("who protects", MASK_CHOICES, "aligned", MASK_TIPS),
            "gamma": gamma_slider(1.0)}


ESTIMATE_CHOICES = [("stable", "stable"), ("eq (9)", "paper")]
ESTIMATE_TIPS = ["stable: variance-aware, shrinks sparse cells (the default)",
                 "eq (9) as printed: explodes in sparse cells"]


def _estimate_control():
    """HistOfTree's cell estimate: eq (9) explodes in sparse cells, the stable one shrinks them."""
    return {"cell_estimate": toggle("cell estimate", ESTIMATE_CHOICES, "stable", ESTIMATE_TIPS)}


def _model_controls(s_max=views.D):
    return {
        "epsilon": epsilon_slider(4.0),
        "s_star": int_slider("s* (private)", 2, 0, s_max),
        "depth": int_slider("depth p (tree)", 2, 0, 8),
        "t": int_slider("t (bins per axis)", 2, 1, 6),
    }


def _personalized(controls):
    """Adapt the controls to the mask; True for W_gamma."""
    personal = controls["mask"].value == "gamma"
    controls["gamma"].disabled = not personal
    controls["s_star"].description = "s (hist. axes)" if personal else "s* (private)"
    return personal


def _axis_title(axis, out, personal, short=False):
    share = out["protect_share"][axis]
    kind = "histogram axis" if axis in out["hist_axes"] else "tree axis"
    if short:
        return f"x{axis + 1} ({kind})"
    if personal:
        return f"x{axis + 1}: {kind} ({share:.0%} protect it)"
    return f"x{axis + 1}: {kind} ({'private' if share else 'public'})"


# ----------------------------------------------------------------------------------------------
# 1. The combined partition
# ----------------------------------------------------------------------------------------------
def _mask_traces():
    return [
        on_panel(go.Heatmap(colorscale=[[0, "#eeeeee"], [1, BLUE]], zmin=0, zmax=1,
                            showscale=False, name="W", hoverinfo="skip"), 0, None),
        on_panel(go.Scatter(mode="lines", line={"color": ORANGE, "width": 4},
                            name="histogram axes", hoverinfo="skip"), 0, "figure"),
        on_panel(go.Scatter(mode="lines", line={"color": VERMILLION, "width": 3, "dash": "dot"},
                            name="the user shown", hoverinfo="skip"), 0, "figure"),
    ]


def _draw_mask(fig, out, n):
    """Traces 0-2: the mask, its histogram axes and the chosen user's row."""
    set_trace(fig.data[0], z=out["mask_image"], x=list(range(views.D)), y=out["mask_rows"])
    xs, ys = [], []
    for a in out["hist_axes"]:
        xs += [a - 0.5, a + 0.5, a + 0.5, a - 0.5, a - 0.5, None]
        ys += [0, 0, n - 1, n - 1, 0, None]
    set_trace(fig.data[1], x=xs, y=ys)
    user = out["user"]
    set_trace(fig.data[2], x=[-0.5, views.D - 0.5] if user else [],
              y=[user["index"]] * 2 if user else [], visible=user is not None)


def partition_explorer(n=10_000):
    """Histogram bins on the histogram axes x tree splits on the others, coloured by f~.

    Aligned: the first s* features are private for every user. Personalized (W_gamma,
    Section 3.3): the s most protected features become histogram axes; the user shown is the
    first one protecting x1..xk, with their potential cells V_i, and the slice passes
    through their point.
    """
    controls = {
        **_model_controls(),
        "rho": choice_slider("ρ (label share)", RHO_STOPS, 0.5),
        "hold": float_slider("other features", 0.5, 0.0, 1.0, 0.1),
        "x_axis": dropdown("horizontal axis", FEATURES, 0),
        "y_axis": dropdown("vertical axis", FEATURES, 4),
        **_privacy_controls(),
        "user": dropdown("user shown", USER_CHOICES, 2),
        **_estimate_control(),
    }
    panels = Panels([Panel("who protects (blue)", weight=0.3, fill=True, min_width=90),
                     Panel("f̃ on the slice", square=True, colorbar=True, min_width=220)],
                    legend=6, legend_width=LEGEND_WIDTH)
    traces = [
        *_mask_traces(),
        on_panel(go.Heatmap(colorscale=HEATMAP_SCALE, zmin=Z_RANGE[0], zmax=Z_RANGE[1],
                            name="f̃", colorbar={"title": {"text": "f̃(x)", "side": "right"}}),
                 1, None),
        on_panel(go.Scatter(mode="lines", line={"color": BLACK, "width": 1.5},
                            name="cell edges", hoverinfo="skip"), 1, "figure"),
        on_panel(go.Scatter(mode="markers", name="users (hidden value at random)",
                            marker={"size": 6, "color": "rgba(255,255,255,0.75)",
                                    "line": {"color": BLACK, "width": 0.8}}), 1, "figure"),
        on_panel(go.Scatter(mode="lines", line={"color": VERMILLION, "width": 4},
                            name="the user's potential cells V<sub>i</sub>",
                            hoverinfo="skip"), 1, "figure"),
        on_panel(go.Scatter(mode="markers", name="the user's point (never sent whole)",
                            marker={"size": 18, "symbol": "star", "color": VERMILLION,
                                    "line": {"color": "white", "width": 1.5}}), 1, "figure"),
    ]
    fig = new_figure(panels, "Combined partition", traces)
    fig.layout.xaxis.update(tickvals=list(range(views.D)), ticktext=[f for f, _ in FEATURES],
                            range=[-0.5, views.D - 0.5], title_text="feature")
    fig.layout.yaxis.update(range=[n, 0], title_text="user", tickformat=",")
    fig.layout.xaxis2.range = fig.layout.yaxis2.range = [0, 1]
    readout = W.HTML()

    def update():
        c = {k: w.value for k, w in controls.items()}
        personal = _personalized(controls)
        controls["user"].disabled = not personal
        controls["hold"].disabled = personal
        entries = 6 if personal else 3  # the user's row, cells and point join the legend
        if panels.legend != entries:
            panels.legend = entries
            refit(fig)
        if c["x_axis"] == c["y_axis"]:
            readout.value = "<b>Pick two different features for the axes.</b>"
            return
        out = views.partition_view(
            epsilon=c["epsilon"], s_star=c["s_star"], depth=c["depth"], t=c["t"], rho=c["rho"],
            n=n, x_axis=c["x_axis"], y_axis=c["y_axis"], hold=c["hold"], mask=c["mask"],
            gamma=c["gamma"], user=c["user"] if personal else None,
            cell_estimate=c["cell_estimate"])
        user = out["user"]
        with fig.batch_update():
            _draw_mask(fig, out, n)
            set_trace(fig.data[3], x=out["u"], y=out["v"], z=out["z"])
            set_trace(fig.data[4], x=out["edge_x"], y=out["edge_y"])
            set_trace(fig.data[5], x=out["point_x"], y=out["point_y"])
            set_trace(fig.data[6], x=user["edge_x"] if user else [],
                      y=user["edge_y"] if user else [], visible=user is not None)
            point = user["point"] if user else None
            set_trace(fig.data[7], x=[point[c["x_axis"]]] if user else [],
                      y=[point[c["y_axis"]]] if user else [], visible=user is not None)
            others = [a for a in range(views.D) if a not in (c["x_axis"], c["y_axis"])]
            at = ", ".join(f"x{a + 1} = {out['slice_at'][a]:.2f}" for a in others)
            retitle(fig.layout, f"Combined partition on the slice {at}")
            retitle(fig.layout.xaxis2, _axis_title(c["x_axis"], out, personal))
            retitle(fig.layout.yaxis2, _axis_title(c["y_axis"], out, personal))
        items = [("cells", out["n_cells"]), ("in this slice", out["cells_in_slice"]),
                 ("pinned at ±M", out["n_pinned"]),
                 ("MSE (private)", f"{out['mse']:.3f}"),
                 ("MSE (same cells, no privacy)", f"{out['mse_nonprivate']:.3f}"),
                 ("histogram axes", ", ".join(f"x{a + 1}" for a in out["hist_axes"]) or "none"),
                 ("ρ", f"{out['rho']:.2f}" + (" (public rule)" if c["rho"] == "auto" else ""))]
        if user:
            hidden = ", ".join(f"x{a + 1}" for a in user["protects"])
            items.append((f"user {user['index'] + 1:,} hides {hidden}:",
                          f"|V<sub>i</sub>| = {user['n_potential']} potential cells "
                          f"({user['n_potential_in_slice']} in this slice)"))
        readout.value = readout_html(items)

    return Explorer(controls, [fig], readout, update, "Partition explorer")


# ----------------------------------------------------------------------------------------------
# 2. The privatised regression surface
# ----------------------------------------------------------------------------------------------
SURFACE_TITLES = ("truth f*", "privatised f̃", "no privacy, same cells")


def _heat_figure():
    # one y axis for the three: its labels on the first panel only, small gaps between them
    panels = Panels([Panel(SURFACE_TITLES[0], square=True, min_width=115, gap=22),
                     Panel(SURFACE_TITLES[1], square=True, min_width=115, gap=22,
                           shared_y=True),
                     Panel(SURFACE_TITLES[2], square=True, colorbar=True, min_width=115,
                           shared_y=True)])
    traces = [on_panel(go.Heatmap(colorscale=HEATMAP_SCALE, zmin=Z_RANGE[0], zmax=Z_RANGE[1],
                                  showscale=i == 2, name=SURFACE_TITLES[i],
                                  colorbar={"title": {"text": "f(x)", "side": "right"}}),
                       i, None) for i in range(3)]
    fig = new_figure(panels, "Regression surfaces on the slice x2 = x3 = x4 = 0.5", traces)
    for i in range(3):
        n = "" if i == 0 else str(i + 1)
        fig.layout[f"xaxis{n}"].update(range=[0, 1])
        fig.layout[f"yaxis{n}"].update(range=[0, 1])
    return fig


CAMERA = {"eye": {"x": 1.65, "y": -1.65, "z": 1.0}, "center": {"x": 0, "y": 0, "z": -0.1}}


def _surface_figure():
    """The 3-D view: three scenes on one z range, seen from an oblique camera, rotated
    together (a rotation of one is copied to the others)."""
    panels = Panels([Panel(SURFACE_TITLES[0], kind="scene", square=True, min_width=180,
                           gap=12),
                     Panel(SURFACE_TITLES[1], kind="scene", square=True, min_width=180,
                           gap=12),
                     Panel(SURFACE_TITLES[2], kind="scene", square=True, colorbar=True,
                           min_width=180)], axis_titles=False)
    traces = [on_panel(go.Surface(colorscale=HEATMAP_SCALE, cmin=Z_RANGE[0], cmax=Z_RANGE[1],
                                  showscale=i == 2, name=SURFACE_TITLES[i],
                                  colorbar={"title": {"text": "f(x)", "side": "right"}}),
                       i, None) for i in range(3)]
    fig = new_figure(panels, "Regression surfaces (drag one to rotate all three)", traces)
    scene = {"xaxis": {"title": {"text": "x1"}, "range": [0, 1]},
             "yaxis": {"title": {"text": "x5"}, "range": [0, 1]},
             "zaxis": {"title": {"text": "f"}}, "aspectmode": "manual",
             "aspectratio": {"x": 1, "y": 1, "z": 0.75}, "camera": CAMERA}
    fig.update_layout(scene=scene, scene2=scene, scene3=scene)
    _link_cameras(fig)
    return fig


def _link_cameras(fig):
    """Rotating one scene in the browser rotates the other two (through the kernel)."""
    names = ("scene", "scene2", "scene3")
    busy = {"on": False}

    def follow(layout, camera):
        if busy["on"]:
            return
        busy["on"] = True
        try:
            source = next(name for name in names if fig.layout[name].camera is camera)
            with fig.batch_update():
                for name in names:
                    if name != source:
                        fig.layout[name].camera = camera.to_plotly_json()
        except StopIteration:
            pass
        finally:
            busy["on"] = False

    for name in names:
        fig.layout.on_change(follow, f"{name}.camera")


def _z_range(out):
    """One z range for the three scenes, in steps of 0.5 so it rarely changes."""
    values = np.concatenate([out[k].ravel() for k in ("truth", "private", "nonprivate")])
    return [float(np.floor(values.min() * 2) / 2), float(np.ceil(values.max() * 2) / 2)]


KINDS = ("heatmap", "surface")


def surface_explorer():
    """f* next to the privatised f~ and the non-private partition estimate on one slice,
    for the aligned or the personalized (W_gamma) protocol; heat maps or 3-D surfaces."""
    controls = {
        **_model_controls(),
        "n": choice_slider("n users", [(f"{v:,}", v) for v in N_STOPS], 10_000),
        "kind": toggle("show as", list(zip(("heat maps", "3-D"), KINDS, strict=True)),
                       "heatmap", ["three heat maps", "three 3-D surfaces (drag to rotate)"]),
        **_privacy_controls(),
        **_estimate_control(),
    }
    new_draw = W.Button(description="new draw", icon="refresh", tooltip="fresh privacy noise",
                        layout=W.Layout(width="auto"))
    heat = _heat_figure()
    heat_box, surf_box = W.Box([heat], layout=W.Layout(width="100%")), W.Box(
        [], layout=W.Layout(width="100%"))
    readout = W.HTML()
    noise = {"seed": 0}
    figures = [heat]

    def update():
        c = {k: w.value for k, w in controls.items()}
        check_choice(c["kind"], "kind", KINDS)  # anything else would draw 3-D surfaces
        personal = _personalized(controls)
        out = views.surface_view(epsilon=c["epsilon"], s_star=c["s_star"], depth=c["depth"],
                                 t=c["t"], n=c["n"], noise_seed=noise["seed"], mask=c["mask"],
                                 gamma=c["gamma"], cell_estimate=c["cell_estimate"])
        show_heat = c["kind"] == "heatmap"
        new = not show_heat and len(figures) == 1
        if new:
            figures.append(_surface_figure())
            fit(figures[1], *explorer.figure_size)
        fig = heat if show_heat else figures[1]
        xtitle, ytitle = (_axis_title(a, out, personal, short=True) for a in (0, 4))
        with fig.batch_update():
            for trace, key in zip(fig.data, ("truth", "private", "nonprivate"), strict=True):
                set_trace(trace, x=out["u"], y=out["v"], z=out[key])
            if show_heat:
                for i in range(3):
                    n = "" if i == 0 else str(i + 1)
                    retitle(fig.layout[f"xaxis{n}"], xtitle)
                set_y_title(fig, ytitle)
            else:
                z_range = _z_range(out)
                for name in ("scene", "scene2", "scene3"):
                    if list(fig.layout[name].zaxis.range or ()) != z_range:
                        fig.layout[name].zaxis.range = z_range
                    retitle(fig.layout[name].xaxis, xtitle.split(" (")[0])
                    retitle(fig.layout[name].yaxis, ytitle.split(" (")[0])  # room is short
        if new:
            explorer._sync_figures()
            surf_box.children = [fig]
        heat_box.layout.display = None if show_heat else "none"
        surf_box.layout.display = "none" if show_heat else None
        readout.value = readout_html([
            ("cells", out["n_cells"]), ("pinned at ±M", out["n_pinned"]),
            ("MSE (private)", f"{out['mse']:.3f}"),
            ("MSE (same cells, no privacy)", f"{out['mse_nonprivate']:.3f}"),
            ("histogram axes", ", ".join(f"x{a + 1}" for a in out["hist_axes"]) or "none"),
            ("noise draw", noise["seed"])])

    def redraw(_button):
        noise["seed"] += 1
        explorer.update()

    explorer = Explorer(controls, figures, readout, update, "Surface explorer",
                        extra=[new_draw], panels=[heat_box, surf_box])
    new_draw.on_click(redraw)
    explorer.buttons = {"new_draw": new_draw}
    return explorer
