"""Drive every explorer headless: each control changes what is drawn, readouts update."""

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go
import pytest

from ldpviz.viz import widgets

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
