"""Drive every explorer headless: each control changes what is drawn, readouts update."""

import itertools
import json

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go
import pytest

from ldpviz import adaptive_rule
from ldpviz.datasets import PAPER_Y_BOUND
from ldpviz.masks import aligned_mask
from ldpviz.viz import _arrange as arrange
from ldpviz.viz import views, widgets
from ldpviz.viz._arrange import SIDE_GAP, SIDE_WIDTH

EXPLORERS = [widgets.partition_explorer, widgets.surface_explorer, widgets.lambda_explorer,
             widgets.tradeoff_explorer, widgets.mechanism_explorer, widgets.bcdp_explorer,
             widgets.comparison_explorer]


def _drawn(explorer):
    """Everything the figures show, as plain data."""
    return [fig.to_plotly_json() for fig in explorer.figures]


def _changed(a, b):
    return repr(a) != repr(b)


def _other_value(widget):
    if isinstance(widget, (W.Dropdown, W.ToggleButtons, W.SelectionSlider)):
        values = [o[1] if isinstance(o, tuple) else o for o in widget.options]
        return values[(values.index(widget.value) + 1) % len(values)]
    if isinstance(widget, W.FloatLogSlider):
        return widget.base ** (np.log(widget.value) / np.log(widget.base) + 2)
    span = widget.max - widget.min
    step = max(widget.step, round(0.3 * span / widget.step) * widget.step)
    return widget.value + step if widget.value + step <= widget.max else widget.value - step


@pytest.mark.parametrize("make", EXPLORERS, ids=lambda f: f.__name__)
def test_every_control_changes_the_figure(make):
    explorer = make()
    assert isinstance(explorer, W.VBox)
    assert all(isinstance(fig, go.FigureWidget) for fig in explorer.figures)
    assert explorer.readout.value  # filled at start
    for name, widget in explorer.controls.items():
        if name == "y_axis" and _other_value(widget) == explorer.controls["x_axis"].value:
            widget.value = _other_value(widget)
        before, readout = _drawn(explorer), explorer.readout.value
        widget.value = _other_value(widget)
        after = _drawn(explorer)
        assert _changed(before, after), f"{make.__name__}: moving {name} changed nothing drawn"
        assert np.isfinite(explorer.last_update_seconds)
        assert readout or explorer.readout.value


def test_new_draw_button_redraws_only_the_privatised_surface():
    explorer = widgets.surface_explorer()
    heat = explorer.figures[0]
    truth, private = np.array(heat.data[0].z), np.array(heat.data[1].z)
    explorer.buttons["new_draw"].click()
    assert np.array_equal(truth, np.array(heat.data[0].z))
    assert not np.array_equal(private, np.array(heat.data[1].z))


def test_same_axes_are_refused_with_a_message():
    explorer = widgets.partition_explorer()
    explorer.controls["y_axis"].value = explorer.controls["x_axis"].value
    assert "different" in explorer.readout.value


REFUSED = [(widgets.partition_explorer, "hold", float("nan")),
           (widgets.partition_explorer, "x_axis", None),
           (widgets.partition_explorer, "y_axis", None),
           (widgets.partition_explorer, "mask", None),
           (widgets.partition_explorer, "cell_estimate", None),
           (widgets.surface_explorer, "mask", None),
           (widgets.surface_explorer, "cell_estimate", None),
           (widgets.surface_explorer, "kind", None),
           (widgets.bcdp_explorer, "zeta", float("nan")),
           (widgets.mechanism_explorer, "rho", float("nan"))]


@pytest.mark.parametrize(("make", "name", "bad"), REFUSED,
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_a_refused_control_value_is_shown_and_the_explorer_recovers(make, name, bad):
    explorer = make()
    widget, good = explorer.controls[name], explorer.controls[name].value
    drawn, n_figures = _drawn(explorer), len(explorer.figures)
    widget.value = bad  # from code: no front end stops it; nothing may raise into the kernel
    assert name in explorer.error and name in explorer.readout.value
    assert "\n" not in explorer.readout.value
    assert not _changed(drawn, _drawn(explorer))  # the last picture stays
    assert len(explorer.figures) == n_figures
    epsilon = explorer.controls["epsilon"]
    epsilon.value = _other_value(epsilon)
    assert name in explorer.error and not _changed(drawn, _drawn(explorer))  # no raise
    widget.value = good
    assert explorer.error is None and "Not redrawn" not in explorer.readout.value
    assert _changed(drawn, _drawn(explorer))  # the new epsilon is drawn now
    assert np.isfinite(explorer.last_update_seconds)


def test_a_bug_in_an_update_still_raises(monkeypatch):
    explorer = widgets.mechanism_explorer()

    def broken(**kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(views, "mechanism_view", broken)
    with pytest.raises(RuntimeError, match="a bug"):
        explorer.controls["rho"].value = 0.3


def test_a_bad_argument_of_an_explorer_raises():
    with pytest.raises(ValueError, match="n"):
        widgets.partition_explorer(n=1)


def test_dashboard_builds_each_explorer_when_its_tab_is_opened():
    tabs = widgets.dashboard()
    assert isinstance(tabs, W.Tab)
    assert len(tabs.children) == 5 and len(tabs.titles) == 5
    assert list(tabs.explorers) == [0]
    for index in range(1, 5):
        tabs.selected_index = index
        assert isinstance(tabs.children[index].children[0], widgets.Explorer)
    assert sorted(tabs.explorers) == [0, 1, 2, 3, 4]
    tabs.selected_index = 0
    assert len(tabs.explorers) == 5  # built once


def test_surface_view_is_built_only_when_asked_for():
    explorer = widgets.surface_explorer()
    assert len(explorer.figures) == 1
    explorer.controls["kind"].value = "surface"
    assert len(explorer.figures) == 2
    assert np.array(explorer.figures[1].data[1].z).shape == np.array(
        explorer.figures[0].data[1].z).shape


# ----------------------------------------------------------------------------------------------
# One screen: controls beside or above the figures, the figures in the room left
# ----------------------------------------------------------------------------------------------
MAIN = [widgets.partition_explorer, widgets.surface_explorer, widgets.lambda_explorer,
        widgets.tradeoff_explorer, widgets.mechanism_explorer, widgets.bcdp_explorer]
# (explorer width, height to fit) as the browser reports them: JupyterLab with the file browser
# collapsed and the app (Voila) at 1024 x 768 and 1366 x 768, the lab at 1024 px with the file
# browser open, a 1920 x 1080 screen.
PROJECTOR = [(844, 639), (1186, 639), (962, 688), (1304, 688)]
SCREENS = [*PROJECTOR, (592, 639), (1740, 951)]


def _report(explorer, width, height, chrome=0, side=False):
    """What the browser's probe reports."""
    with explorer.probe.hold_trait_notifications():
        explorer.probe.width, explorer.probe.height = width, height
        explorer.probe.chrome, explorer.probe.side = chrome, side


def _boxes(fig):
    """Each panel's plot box in px (x0, x1, y0, y1 from the top left), from the layout."""
    width, height = fig.layout.width, fig.layout.height
    m = fig.layout.margin
    pw, ph = width - m.l - m.r, height - m.t - m.b
    out = []
    for i in range(len(fig._ldpviz_panels.panels)):
        n = "" if i == 0 else str(i + 1)
        if fig._ldpviz_panels.panels[i].kind == "scene":
            dx, dy = fig.layout[f"scene{n}"].domain.x, fig.layout[f"scene{n}"].domain.y
        else:
            dx, dy = fig.layout[f"xaxis{n}"].domain, fig.layout[f"yaxis{n}"].domain
        out.append((m.l + dx[0] * pw, m.l + dx[1] * pw, m.t + (1 - dy[1]) * ph,
                    m.t + (1 - dy[0]) * ph))
    return out


@pytest.mark.parametrize("make", MAIN, ids=lambda f: f.__name__)
@pytest.mark.parametrize(("width", "height"), SCREENS)
def test_figures_take_the_room_left_and_keep_their_panels_apart(make, width, height):
    explorer = make()
    _report(explorer, width, height)
    room = explorer.arrangement
    assert room.figure_width == (width - SIDE_WIDTH - SIDE_GAP if room.side else width)
    for fig in explorer.figures:
        assert fig.layout.width == room.figure_width
        panels = fig._ldpviz_panels.panels
        boxes = _boxes(fig)
        for (x0, x1, y0, y1), panel in zip(boxes, panels, strict=True):
            assert 60 <= x0 < x1 <= fig.layout.width - 15 and y0 < y1 <= fig.layout.height
            assert x1 - x0 >= (80 if panel.fill else 110), "a panel too narrow to read"
        for a, b in itertools.pairwise(boxes):
            apart_x = b[0] - a[1] >= 20
            apart_y = b[2] - a[3] >= 60  # stacked: room for x labels and the next title
            assert apart_x or apart_y, f"panels {a} and {b} too close"


@pytest.mark.parametrize("make", [*MAIN, widgets.comparison_explorer], ids=lambda f: f.__name__)
@pytest.mark.parametrize(("width", "height"), PROJECTOR)
def test_an_explorer_fits_a_projector_screen(make, width, height):
    """Title, controls and figure within the height (as estimated here: the browser tests
    measure it), the figure as tall as the room left at most."""
    explorer = make()
    _report(explorer, width, height)
    room = explorer.arrangement
    n_wide, n_grid = explorer._counts
    items = arrange.readout_items(explorer.readout.value)
    header = arrange.header_height(explorer._note_chars, width)
    for fig in explorer.figures:
        assert fig.layout.height <= room.figure_height
    if room.side:
        assert header + arrange.controls_height(n_wide, n_grid, items, SIDE_WIDTH, True) <= height
        assert header + explorer.figures[0].layout.height <= height
    else:
        above = header + arrange.controls_height(n_wide, n_grid, items, width, False)
        assert above + explorer.figures[0].layout.height <= height


def test_controls_stand_beside_the_figures_where_the_width_allows():
    partition = widgets.partition_explorer()
    _report(partition, 1186, 639)  # JupyterLab at 1366 px: a bigger heat map beside
    assert partition.arrangement.side
    _report(partition, 844, 639)  # at 1024 px: too narrow for a column beside
    assert not partition.arrangement.side
    surface = widgets.surface_explorer()
    _report(surface, 1186, 639)  # three heat maps side by side want the whole width
    assert not surface.arrangement.side


def test_the_browser_s_measurement_of_the_controls_sets_the_figure_height():
    explorer = widgets.lambda_explorer()
    _report(explorer, 844, 639)
    assert not explorer.arrangement.side
    _report(explorer, 844, 639, chrome=300)  # taller controls than estimated (a big font)
    assert explorer.arrangement.figure_height == 339
    assert explorer.figures[0].layout.height <= 339
    _report(explorer, 844, 639, chrome=250, side=True)  # measured in the other arrangement
    assert explorer.arrangement.figure_height != 639 - 250


@pytest.mark.parametrize(("width", "height"), SCREENS)
def test_the_three_heat_maps_share_a_row_at_equal_width(width, height):
    explorer = widgets.surface_explorer()
    _report(explorer, width, height)
    boxes = _boxes(explorer.figures[0])
    assert len({round(b[2]) for b in boxes}) == 1  # one row
    widths = [b[1] - b[0] for b in boxes]
    assert max(widths) - min(widths) < 1  # the third, with the colour bar, as wide
    assert [explorer.figures[0].layout[f"yaxis{n}"].showticklabels for n in (2, 3)] == \
        [False, False]  # one y axis for the three: labelled on the first


def test_panels_wrap_or_stack_when_a_row_is_too_narrow():
    P = widgets.Panels([widgets.Panel("a", legend=4), widgets.Panel("b", legend=3),
                        widgets.Panel("c", legend=4, shared_y=True)])
    assert P.geometry(1300, 700).rows == [[0, 1, 2]]
    for width in (560, 700):
        g = P.geometry(width, 1400)  # tall enough for more rows
        assert len(g.rows) > 1 and g.wide
        assert all(b[1] - b[0] >= 170 for b in g.boxes)
    layout, _ = P.layout(560, 1400)
    first = {row[0] for row in P.geometry(560, 1400).rows}
    assert layout["yaxis3"]["showticklabels"] == (2 in first)


def test_a_figure_is_never_taller_than_its_room_when_some_arrangement_fits():
    P = widgets.Panels([widgets.Panel("a", legend=4), widgets.Panel("b", legend=3),
                        widgets.Panel("c", legend=4, note="one<br>two<br>three")])
    for width in range(560, 2000, 37):
        for height in range(300, 1100, 53):
            g = P.geometry(width, height)
            assert not g.fits or g.height <= height
            layout, _ = P.layout(width, height)
            assert layout["height"] == round(g.height)


def test_a_new_explorer_starts_at_the_last_reported_size():
    _report(widgets.partition_explorer(), 1111, 700)
    explorer = widgets.lambda_explorer()
    assert explorer.width == 1111 and explorer.height == 700
    assert explorer.figures[0].layout.width == explorer.arrangement.figure_width


def test_the_width_probe_acknowledges_each_report():
    probe = widgets.WidthProbe()
    probe.width, probe.seq = 900, 3
    assert probe.ack == 3


def _sent_updates(fig):
    """The update messages the figure sends its views from now on."""
    sent = []
    fig.observe(lambda change: change["new"] and sent.append(change["new"]), names="_py2js_update")
    return sent


def _first_drawing(fig):
    """What a view reports when it has drawn (plotly's defaults, ignored here)."""
    fig._js2py_traceDeltas = {"trace_deltas": [], "trace_edit_id": fig._last_trace_edit_id}


def test_a_view_s_first_drawing_gets_the_whole_figure_again():
    """A view starts from the layout and the data sent as two messages, and misses the edits
    sent while its code loads: in Voila at 1920 px it could start with the axes laid out for
    the box and the colour bar still placed for the 900 px first guess, inside the heat map.
    Laying the figure out again sends nothing (plotly sends only what changed), so a view's
    first drawing brings it every layout and trace property, as the kernel has them."""
    explorer = widgets.partition_explorer()
    fig = explorer.figures[0]
    _report(explorer, 1858, 951)  # the box's size, answered while the view loads
    sent = _sent_updates(fig)
    _first_drawing(fig)
    assert len(sent) == 1, "the view's first drawing was not answered with the whole figure"
    style, layout = sent[0]["style_data"], sent[0]["layout_data"]
    assert sent[0]["style_traces"] == list(range(len(fig.data)))
    heat = next(i for i, t in enumerate(fig.data) if t.name == "f̃")
    assert style["colorbar"][heat]["x"] == fig.data[heat].colorbar.x
    assert fig.data[heat].colorbar.x > fig.layout.xaxis2.domain[1]  # right of the heat map
    assert list(layout["xaxis2"]["domain"]) == list(fig.layout.xaxis2.domain)
    assert layout["width"] == explorer.arrangement.figure_width and style["z"][heat] is not None
    _first_drawing(fig)
    assert len(sent) == 1, "only a view's first drawing gets the whole figure"


def test_the_3d_view_is_laid_out_for_the_box_with_one_z_range():
    explorer = widgets.surface_explorer()
    _report(explorer, 1300, 688)
    explorer.controls["kind"].value = "surface"
    surf = explorer.figures[1]
    assert surf.layout.width == explorer.arrangement.figure_width
    ranges = {tuple(surf.layout[name].zaxis.range) for name in ("scene", "scene2", "scene3")}
    assert len(ranges) == 1
    low, high = ranges.pop()
    for trace in surf.data:
        assert low <= np.min(trace.z) and np.max(trace.z) <= high
    eye = surf.layout.scene.camera.eye
    assert min(abs(eye.x), abs(eye.y), abs(eye.z)) > 0.5  # oblique, not edge-on


def test_rotating_one_scene_rotates_the_others():
    explorer = widgets.surface_explorer()
    explorer.controls["kind"].value = "surface"
    surf = explorer.figures[1]
    camera = {"eye": {"x": -1.2, "y": 1.7, "z": 0.6}}
    surf.layout.scene2.camera = camera  # what a drag in the browser sends
    for name in ("scene", "scene3"):
        assert surf.layout[name].camera.eye.x == -1.2


# ----------------------------------------------------------------------------------------------
# Sliders: live while dragging, readable stops
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", MAIN, ids=lambda f: f.__name__)
def test_sliders_update_while_they_move(make):
    explorer = make()
    sliders = [w for w in explorer.controls.values() if hasattr(w, "continuous_update")]
    assert sliders and all(w.continuous_update for w in sliders)


def test_the_comparison_explorer_waits_for_release_and_says_so():
    explorer = widgets.comparison_explorer()
    sliders = [w for w in explorer.controls.values() if hasattr(w, "continuous_update")]
    assert sliders and not any(w.continuous_update for w in sliders)
    assert "let go" in explorer.children[1].value  # the note under the title


@pytest.mark.parametrize("make", [m for m in MAIN if m is not widgets.lambda_explorer],
                         ids=lambda f: f.__name__)
def test_epsilon_moves_in_readable_log_steps(make):
    slider = make().controls["epsilon"]
    values = [v for _, v in slider.options]
    ratios = np.diff(np.log2(values))
    assert len(values) >= 10 and ratios.max() <= 1.0 and ratios.min() >= 0.4
    assert all(f"{v:g}" == label and len(label) <= 5 for label, v in slider.options)
    assert slider.wide and slider.layout.width == "100%"  # a row of its own: a long track


# ----------------------------------------------------------------------------------------------
# Personalized privacy on the partition and the surface
# ----------------------------------------------------------------------------------------------
def test_partition_explorer_shows_the_personalized_protocol():
    explorer = widgets.partition_explorer()
    fig = explorer.figures[0]
    assert explorer.controls["gamma"].disabled and explorer.controls["user"].disabled
    assert not fig.data[6].visible  # no potential cells in the aligned case
    explorer.controls["mask"].value = "gamma"
    assert not explorer.controls["gamma"].disabled and explorer.controls["hold"].disabled
    assert "hist. axes" in explorer.controls["s_star"].description
    assert fig.data[6].visible and len(fig.data[6].x) >= 6  # V_i outlined
    assert "|V<sub>i</sub>|" in explorer.readout.value
    assert "protect it" in fig.layout.xaxis2.title.text
    before = np.array(fig.data[3].z)
    explorer.controls["gamma"].value = 0.25
    assert not np.array_equal(before, np.array(fig.data[3].z))  # gamma redraws the estimate
    users = []
    for k in range(1, 6):
        explorer.controls["user"].value = k
        users.append(int(explorer.readout.value.split("| = ")[1].split()[0]))
    assert users == sorted(users) and users[0] < users[-1]


def test_partition_explorer_offers_the_default_budget_rule():
    """The ρ slider ends at "auto" (HistOfTree's default); the readout says which share the
    public rule chose, and at ε = 1 it is not the slider's 0.5."""
    explorer = widgets.partition_explorer()
    explorer.controls["epsilon"].value = 1.0
    assert "<b>ρ</b> 0.50<" in explorer.readout.value
    explorer.controls["rho"].value = "auto"
    rule = adaptive_rule.choose_rho(aligned_mask(10_000, 5, 2), 10_000, 1.0, "grr",
                                    PAPER_Y_BOUND, 2, 2, 2)
    assert rule != 0.5 and f"<b>ρ</b> {rule:.2f} (public rule)<" in explorer.readout.value


def test_surface_explorer_shows_the_personalized_estimate():
    explorer = widgets.surface_explorer()
    heat = explorer.figures[0]
    aligned = np.array(heat.data[1].z)
    explorer.controls["mask"].value = "gamma"
    personal = np.array(heat.data[1].z)
    assert not np.array_equal(aligned, personal)
    explorer.controls["gamma"].value = 4.0
    assert not np.array_equal(personal, np.array(heat.data[1].z))
    assert np.array_equal(np.array(heat.data[0].z), np.array(explorer.figures[0].data[0].z))


# ----------------------------------------------------------------------------------------------
# Readable details
# ----------------------------------------------------------------------------------------------
def _log_axes(fig):
    return [fig.layout[k] for k in fig.layout if k.startswith("yaxis") or k.startswith("xaxis")
            if fig.layout[k].type == "log"]


@pytest.mark.parametrize("make", [*MAIN, widgets.comparison_explorer], ids=lambda f: f.__name__)
def test_log_axes_use_one_tick_style(make):
    for fig in make().figures:
        for axis in _log_axes(fig):
            assert axis.tickvals and len(axis.tickvals) == len(axis.ticktext)
            text = "".join(axis.ticktext)
            assert not set(text) & set("μnkMGBT"), axis.ticktext  # no SI suffixes
            powers = ["10⁻" in t or any(c in t for c in "⁰¹²³⁴⁵⁶⁷⁸⁹") for t in axis.ticktext]
            assert all(powers) or not any(powers), axis.ticktext


def test_log_ticks_are_powers_or_decimals_never_both():
    assert widgets.log_ticks([1e-8, 10])[1][:3] == ["10⁻⁸", "10⁻⁷", "10⁻⁶"]
    assert widgets.log_ticks([0.002, 30])[1] == ["0.001", "0.01", "0.1", "1", "10", "100"]
    ticks, text = widgets.log_ticks([0.05, 0.3])
    assert {"0.05", "0.1", "0.2"} <= set(text) and all(t > 0 for t in ticks)
    for low, high in ((1e-30, 1e30), (1e-9, 1e37), (1.0, 1e11), (5e-324, 1.7e308)):
        ticks, text = widgets.log_ticks([low, high])
        inside = [t for t in ticks if low <= t <= high]
        assert 3 <= len(inside) <= len(ticks) <= 11, text  # a label every k-th decade when wide
        assert all(np.isfinite(ticks))


def test_log_axes_keep_their_labels_apart_at_extreme_settings():
    explorer = widgets.tradeoff_explorer()  # s = 4, gamma = 0.25, eps = 12 spanned 46 decades
    for name, value in (("s", 4), ("gamma", 0.25), ("epsilon", 12.0), ("n", 300_000)):
        explorer.controls[name].value = value
    for fig in explorer.figures:
        for axis in _log_axes(fig):
            assert len(axis.tickvals) <= 11, axis.ticktext


@pytest.mark.parametrize("make", [*MAIN, widgets.comparison_explorer], ids=lambda f: f.__name__)
def test_lines_in_one_panel_differ_in_colour_or_dash(make):
    for fig in make().figures:
        seen = {}
        for trace in fig.data:
            if trace.type != "scatter" or "lines" not in (trace.mode or ""):
                continue
            key = (trace.xaxis, trace.line.color, trace.line.dash)
            assert key not in seen, f"{trace.name!r} looks like {seen.get(key)!r}"
            seen[key] = trace.name


def test_legend_swatches_are_visible_on_white():
    for make in (*MAIN, widgets.comparison_explorer):
        for fig in make().figures:
            for trace in fig.data:
                if trace.showlegend is False or trace.type in ("heatmap", "surface"):
                    continue
                color = (trace.line.color if "lines" in (trace.mode or "") else
                         trace.marker.color) if trace.type == "scatter" else trace.marker.color
                if isinstance(color, str):
                    assert color.lower() not in ("white", "#fff", "#ffffff"), trace.name


def test_symbols_are_typeset():
    text = []
    for make in MAIN:
        for fig in make().figures:
            text.append(str(fig.layout.title.text))
            text += [a.text for a in fig.layout.annotations]
            text += [t.colorbar.title.text for t in fig.data if "colorbar" in t
                     and t.colorbar.title.text]
    joined = " ".join(text)
    assert "f~" not in joined and "lambda" not in joined and "eps" not in joined
    assert "f̃" in joined and "λ*" in joined


def test_the_bounds_panel_says_constants_are_dropped_and_where_13_holds():
    explorer = widgets.tradeoff_explorer()
    fig = explorer.figures[0]
    note = explorer.children[1].value  # under the title
    assert "constants dropped" in note and "high probability" in note
    assert "(13) claimed up to ε ≈" in explorer.readout.value
    shaded = [s for s in fig.layout.shapes if s.type == "rect"]
    assert shaded and shaded[0].x0 == pytest.approx(views.tradeoff_view()["epsilon_max"])


def test_bcdp_error_bars_stay_on_the_log_axis():
    explorer = widgets.bcdp_explorer()
    fig = explorer.figures[0]
    explorer.controls["n"].value = 500  # noisy: some lower ends would be <= 0
    low = 10 ** fig.layout.yaxis2.range[0]
    for trace in (fig.data[3], fig.data[5]):
        bottoms = np.asarray(trace.y) - np.asarray(trace.error_y.arrayminus)
        assert np.all(bottoms >= low * 0.999) and np.all(bottoms > 0)


def test_plotly_code_travels_once_per_kernel():
    from ldpviz.viz import _plotly_bundle as bundles

    figures = [fig for make in (widgets.lambda_explorer, widgets.tradeoff_explorer)
               for fig in make().figures]
    assert bundles.SHARED_BUNDLE is not None, "plotly's bundle no longer ends as expected"
    assert all(len(fig._esm) < 2_000 for fig in figures)  # not plotly's 5 MB each
    bundle = bundles.PlotlyBundle.shared()
    assert len(bundle._esm) < 2_000 and bundle.key == bundles.PLOTLY_KEY
    assert len(json.dumps(bundle.get_state(), default=str)) < 10_000  # not in the page's state
    sent = []
    bundle.send = lambda content, buffers=None: sent.append((content, buffers))
    bundle._handle_custom_msg({"request": "code"}, [])  # what the page asks once
    (content, (code,)), = sent
    assert content == {"key": bundles.PLOTLY_KEY} and len(code) > 1_000_000
    assert bundles.PLOTLY_KEY.encode() in code
    assert bundles.PLOTLY_KEY in figures[0]._esm


@pytest.mark.parametrize("make", [*MAIN, widgets.comparison_explorer], ids=lambda f: f.__name__)
def test_a_small_drag_is_a_small_change(make):
    """Every slider has few enough positions for its track (about 90 px in a three-column
    grid at 844 px, about 120 px for a wide one in the column beside the figures): a step is
    at least 8 px long (tests/browser measures the tracks)."""
    for name, widget in make().controls.items():
        if isinstance(widget, W.SelectionSlider):
            positions = len(widget.options)
        elif isinstance(widget, (W.IntSlider, W.FloatSlider)):
            positions = round((widget.max - widget.min) / widget.step) + 1
        else:
            continue
        track = arrange.WIDE_TRACK if getattr(widget, "wide", False) else arrange.TRACK
        assert track / (positions - 1) >= 8, f"{name}: {positions} positions"
