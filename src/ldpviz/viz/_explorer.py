"""What every explorer shares: the Explorer box, its controls, and figures that fit their box.

An explorer fits one screen: a tiny front-end probe (:class:`WidthProbe`, :mod:`._probe`)
reports the explorer's width and the height of the screen it is shown on; :mod:`._arrange`
puts the controls beside the figures or above them, and :class:`Panels` (:mod:`._panels`)
lays each figure's panels out in the room left, side by side or wrapped into rows, with every
gap in pixels so tick labels, axis titles, legends and colour bars keep their room.
"""

from __future__ import annotations

import html
import time
from copy import deepcopy

import ipywidgets as W
import numpy as np

from ._arrange import (
    COLUMN,
    COLUMN_GAP,
    CONTROL_STYLE,
    DEFAULT_HEIGHT,
    SIDE_GAP,
    SIDE_WIDTH,
    TOGGLE_STYLE,
    WIDE_STYLE,
    arrange,
    readout_items,
)
from ._lazy import LazyModule
from ._panels import AXIS_TITLE_SIZE, FONT_SIZE
from ._probe import WidthProbe
from .axis_ticks import log_ticks

FONT = {"size": FONT_SIZE}
TITLE_FONT = {"size": 17}
# Okabe-Ito: distinguishable under the common colour-vision deficiencies.
COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]
BLUE, VERMILLION, GREEN, PURPLE, ORANGE, SKY, YELLOW, BLACK = COLORS
GREY = "#7f7f7f"
HEATMAP_SCALE = "Viridis"
DEFAULT_WIDTH = 900  # until the first box reports its width

# ε with readable stops, about evenly spaced on a log scale
EPSILON_STOPS = (0.125, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)
GAMMA_STOPS = (0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4)
go = LazyModule("plotly.graph_objects")  # imported when an explorer first builds a trace


# ----------------------------------------------------------------------------------------------
# Figures (the plotly FigureWidget itself: :mod:`._figure`)
# ----------------------------------------------------------------------------------------------
def new_figure(panels, title, traces, **layout):
    """A :class:`._figure.Figure` with one axis pair (or scene) per panel, laid out by
    ``panels``."""
    from ._figure import Figure, explorer_template

    fig = Figure(layout={"template": explorer_template({trace.type for trace in traces})})
    for i, panel in enumerate(panels.panels):
        n = "" if i == 0 else str(i + 1)
        if panel.kind == "xy":
            anchors = {"anchor": f"y{n}"}
            fig.layout[f"xaxis{n}"] = {**anchors, "automargin": False}
            fig.layout[f"yaxis{n}"] = {"anchor": f"x{n}", "automargin": False}
    fig.add_traces(traces)
    fig.update_layout(title={"text": title, "font": TITLE_FONT}, font=FONT, showlegend=True,
                      **layout)
    axes = {"title_standoff": 6, "ticks": "outside", "ticklen": 4,
            "title_font_size": AXIS_TITLE_SIZE}
    fig.update_xaxes(**axes)
    fig.update_yaxes(**axes)
    fig._ldpviz_panels = panels
    fit(fig, WidthProbe.last_width or DEFAULT_WIDTH, DEFAULT_HEIGHT)
    return fig


def set_y_title(fig, text):
    """The y-axis title of the first panel, repeated on panels sharing it that start a row."""
    panels = fig._ldpviz_panels
    first = panels.first_in_row(*fig._ldpviz_size)
    for i, panel in enumerate(panels.panels):
        if i == 0 or panel.shared_y:
            axis = fig.layout[f"yaxis{'' if i == 0 else i + 1}"]
            retitle(axis, text if i in first else "")


def refit(fig):
    """Lay ``fig`` out again at its current size (after a panel's legend or note changed).

    It sends only what changed in the kernel's figure: it cannot repair a view that missed an
    edit (:func:`resend` does)."""
    fig._ldpviz_fitted = None
    fit(fig, *fig._ldpviz_size)


def fit(fig, width, height):
    """Lay ``fig`` out for a box ``width`` px wide and at most ``height`` px tall (a relayout
    only if something changed)."""
    fig._ldpviz_size = (int(width), int(height))
    panels = fig._ldpviz_panels
    layout, colorbars = panels.layout(width, height)
    key = (repr(layout), repr(colorbars))
    if getattr(fig, "_ldpviz_fitted", None) == key:
        return
    fig._ldpviz_fitted = key
    with fig.batch_update():
        fig.update_layout(layout)
        set_y_title(fig, fig.layout.yaxis.title.text)
        for trace in fig.data:
            if "colorbar" in trace and _panel_of(trace) in colorbars:
                trace.colorbar.update(colorbars[_panel_of(trace)])
    if not getattr(fig, "_ldpviz_drawn", False):
        sync_figure(fig)


def sync_figure(fig):
    """Copy the figure's current state into the traits a new browser view starts from.

    plotly's FigureWidget does this only when it is displayed itself (not inside a box or a
    tab), and a view misses the edits sent while its code was loading: it starts from this.
    """
    fig._widget_layout = deepcopy(fig._layout_obj._props)
    fig._widget_data = deepcopy(fig._data)


def _same(a, b):
    if a is None or b is None:
        return a is b
    try:
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.all((a == b) | ((a != a) & (b != b))))
    except (TypeError, ValueError):
        return False


def set_trace(trace, **props):
    """Update only the properties of ``trace`` that changed: an unchanged trace costs the
    browser nothing, and a figure whose data did not change at all is not recomputed."""
    changed = {k: v for k, v in props.items() if not _same(trace[k], v)}
    if changed:
        trace.update(changed)


def set_shapes(fig, shapes):
    """Replace the figure's shapes (plain dicts) only if they changed."""
    if getattr(fig, "_ldpviz_shapes", None) != shapes:
        fig.layout.shapes = shapes
        fig._ldpviz_shapes = shapes


def vline(index, name=None, color=BLACK, dash="dot"):
    """A vertical line on panel ``index``, as a trace (moving it redraws no layout); its
    legend entry below the panel if it has a ``name``."""
    return on_panel(go.Scatter(mode="lines", name=name or "", hoverinfo="skip",
                               line={"color": color, "dash": dash, "width": 2.5}),
                    index, "panel" if name else None)


def set_vline(trace, x, values, log=False):
    """Place a :func:`vline` at ``x``, spanning the finite (on a ``log`` axis: positive)
    ``values`` of its panel."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & ((values > 0) | (not log))]
    set_trace(trace, x=[x, x], y=[float(values.min()), float(values.max())])


def _panel_of(trace):
    ref = (trace.scene if isinstance(trace, go.Surface) else trace.xaxis) or ""
    digits = ref.removeprefix("scene").removeprefix("x")
    return int(digits) - 1 if digits else 0


def on_panel(trace, index, legend="panel"):
    """Put ``trace`` on panel ``index``; its legend entry goes below that panel ("panel"),
    in the figure-wide legend ("figure") or nowhere (None)."""
    n = "" if index == 0 else str(index + 1)
    if isinstance(trace, go.Surface):
        trace.scene = f"scene{n}"
    else:
        trace.xaxis, trace.yaxis = f"x{n}", f"y{n}"
    if legend == "panel":
        trace.legend = f"legend{n}"
    elif legend is None:
        trace.showlegend = False
    return trace


# ----------------------------------------------------------------------------------------------
# Log axes: one tick style everywhere
# ----------------------------------------------------------------------------------------------
def set_log_ticks(axis, values):
    """Apply :func:`log_ticks` to a plotly axis (no relayout when they are unchanged)."""
    ticks, text = log_ticks(values)
    if tuple(axis.tickvals or ()) != tuple(ticks):
        axis.update(type="log", tickmode="array", tickvals=ticks, ticktext=text)


# ----------------------------------------------------------------------------------------------
# Controls
# ----------------------------------------------------------------------------------------------
def _stops_slider(description, value, stops, wide=False, continuous=True):
    """A slider over a few readable values (ε, γ): evenly spaced stops on a log-like scale."""
    return choice_slider(description, [(f"{v:g}", float(v)) for v in stops], float(value),
                         continuous, wide)


def epsilon_slider(value, low=0.25, high=64, description="ε (privacy budget)",
                   continuous=True):
    stops = [e for e in EPSILON_STOPS if low <= e <= high]
    return _stops_slider(description, value, stops, wide=True, continuous=continuous)


def gamma_slider(value=1.0):
    return _stops_slider("γ (tail of W)", value, GAMMA_STOPS)


def choice_slider(description, options, value, continuous=True, wide=False):
    """A slider over labelled values, e.g. ``[("1,000", 1000), ...]``; a ``wide`` one gets a
    row of its own in an explorer (a long track)."""
    slider = W.SelectionSlider(options=options, value=value, description=description,
                               continuous_update=continuous,
                               style=WIDE_STYLE if wide else CONTROL_STYLE,
                               layout=_control_layout(wide))
    slider.wide = wide
    return slider


def int_slider(description, value, low, high, step=1, continuous=True, wide=False):
    """An integer slider; a ``wide`` one (many positions) gets a row of its own."""
    slider = W.IntSlider(value=value, min=low, max=high, step=step, description=description,
                         continuous_update=continuous,
                         style=WIDE_STYLE if wide else CONTROL_STYLE,
                         layout=_control_layout(wide))
    slider.wide = wide
    return slider


def float_slider(description, value, low, high, step, continuous=True):
    return W.FloatSlider(value=value, min=low, max=high, step=step, description=description,
                         continuous_update=continuous, style=CONTROL_STYLE,
                         readout_format=".2f", layout=_control_layout())


def dropdown(description, options, value):
    return W.Dropdown(options=options, value=value, description=description,
                      style=CONTROL_STYLE, layout=_control_layout())


def toggle(description, options, value, tooltips=None):
    """Buttons for a few choices; short labels (a compact explorer gives them 160 px), the
    long explanation in ``tooltips``."""
    return W.ToggleButtons(options=options, value=value, description=description,
                           tooltips=list(tooltips or []),
                           style=TOGGLE_STYLE,  # label and buttons on one line
                           layout=W.Layout(width="auto", min_width="0", display="flex",
                                           align_items="center"))


def _control_layout(wide=False):
    return W.Layout(width="100%" if wide else "auto", min_width="0")


READOUT_STYLE = "font-size:14px;line-height:1.6;white-space:normal"
# ipywidgets gives a slider's number 72 px, and its track what is left: in a compact column of
# controls the track shrank to 30 px. Scoped to the explorers.
EXPLORER_CSS = """<style>
.ldpviz-explorer .jupyter-widget-inline-hbox .jupyter-widget-readout,
.ldpviz-explorer .widget-inline-hbox .widget-readout {
  min-width: 40px; margin-left: 4px; flex-shrink: 0; }
</style>"""


def readout_html(items):
    cells = "".join(f"<span style='display:inline-block;margin-right:18px'><b>{k}</b> {v}</span>"
                    for k, v in items)
    return f"<div style='{READOUT_STYLE}'>{cells}</div>"


def refusal_html(error):
    """The readout for a control value the library refuses: its message."""
    text = html.escape(" ".join(str(error).split()))
    return f"<div style='{READOUT_STYLE};color:#b00020'><b>Not redrawn:</b> {text}</div>"


# ----------------------------------------------------------------------------------------------
# The explorer box
# ----------------------------------------------------------------------------------------------
class Explorer(W.VBox):
    """A VBox with named ``controls``, its ``figures``, a ``readout`` and an ``update`` hook.

    It fits one screen (:mod:`._arrange`): the controls stand in a column beside the figures
    where the width allows, else in a grid above them (the ε slider has a row of its own: a
    long track), and the figures take the room left. Sliders update while they move: the
    front end keeps at most one change of a slider in flight and merges the later ones into
    the next message, so the kernel never works through a backlog and the latest value always
    wins. ``last_update_seconds`` is the kernel-side time of the last recompute and redraw;
    ``arrangement`` says where the controls stand and the figures' size.
    """

    def __init__(self, controls, figures, readout, update, title, extra=None, panels=None,
                 note=None):
        self.controls = controls
        self.figures = figures
        self.readout = readout
        self._update = update
        self.last_update_seconds = float("nan")
        self.arrangement = None
        self.probe = WidthProbe()
        header = W.HTML(f"{EXPLORER_CSS}<h3 style='margin:2px 0 4px 0;line-height:1.3'>{title}</h3>"
                        + (f"<div style='font-size:14px;color:#444'>{note}</div>" if note
                           else ""), layout=W.Layout(margin="0"))
        header.add_class("ldpviz-header")
        self._note_chars = len(readout_items(note)[0]) if note else 0
        wide = [w for w in controls.values() if getattr(w, "wide", False)]
        narrow = [w for w in controls.values() if w not in wide] + list(extra or [])
        self._grid = W.GridBox(narrow,
                               layout=W.Layout(grid_gap=f"0 {COLUMN_GAP}px", width="100%"))
        self._counts = (len(wide), len(narrow))
        self._controls = W.VBox([*wide, self._grid, readout],
                                layout=W.Layout(min_width="0", flex="0 0 auto"))
        self._controls.add_class("ldpviz-controls")
        self._figure_box = W.VBox(list(panels or figures), layout=W.Layout(min_width="0"))
        self._figure_box.add_class("ldpviz-figures")
        self._body = W.Box([self._controls, self._figure_box],
                           layout=W.Layout(display="flex", width="100%",
                                           align_items="flex-start"))
        self._body.add_class("ldpviz-body")
        super().__init__([self.probe, header, self._body],
                         layout=W.Layout(width="100%", min_width="0"))
        self.add_class("ldpviz-explorer")
        for widget in controls.values():
            if hasattr(widget, "value"):
                widget.observe(self.update, names="value")
        self.probe.observe(self._fit, names=["width", "height", "chrome", "side"])
        self._redraw()  # a bad argument of the explorer itself raises, as for any function
        self._arrange()
        self._sync_figures()

    @property
    def width(self):
        return self.probe.width or WidthProbe.last_width or DEFAULT_WIDTH

    @property
    def height(self):
        return self.probe.height or WidthProbe.last_height or DEFAULT_HEIGHT

    @property
    def figure_size(self):
        """(width, height) the figures are laid out for."""
        return self.arrangement.figure_width, self.arrangement.figure_height

    def _fit(self, change):
        if self.probe.width:
            WidthProbe.last_width = self.probe.width
        if self.probe.height:
            WidthProbe.last_height = self.probe.height
        self._arrange()

    def _arrange(self):
        """Choose where the controls stand and lay the figures out for the room left."""
        chrome = (self.probe.side, self.probe.chrome) if self.probe.chrome else None
        new = arrange(self.figures[0]._ldpviz_panels, self.width, self.height, *self._counts,
                      readout_items(self.readout.value), self._note_chars, chrome)
        self._place(new.side)
        self.arrangement = new
        for fig in self.figures:
            fit(fig, new.figure_width, new.figure_height)

    def _place(self, side):
        """The controls in a column beside the figures (``side``) or in a grid above them."""
        if side == getattr(self, "_placed", None):
            return
        self._placed = side
        self._body.layout.flex_flow = "row" if side else "column"
        self._controls.layout.width = f"{SIDE_WIDTH}px" if side else "100%"
        self._controls.layout.margin = f"0 {SIDE_GAP}px 0 0" if side else "0"
        self._grid.layout.grid_template_columns = (
            "100%" if side else f"repeat(auto-fill, minmax({COLUMN}px, 1fr))")
        self._figure_box.layout.flex = "1 1 0%" if side else "0 0 auto"
        self._figure_box.layout.width = "auto" if side else "100%"

    def _sync_figures(self):
        for fig in self.figures:
            sync_figure(fig)

    def _repr_mimebundle_(self, **kwargs):
        self._sync_figures()
        return super()._repr_mimebundle_(**kwargs)

    def update(self, change=None):
        """Recompute and redraw after a control changed. A value the library refuses (ValueError,
        TypeError) goes to the readout and ``error``, not into the kernel; the figures keep the
        last picture until a valid combination. Other errors are bugs: they raise."""
        try:
            self._redraw()
        except (ValueError, TypeError) as error:
            self.error = str(error)
            self.readout.value = refusal_html(error)

    def _redraw(self):
        start = time.perf_counter()
        self._update()
        self.error = None
        for fig in self.figures:
            if not fig._ldpviz_drawn:  # not drawn yet: a view to come starts from this
                sync_figure(fig)
        self.last_update_seconds = time.perf_counter() - start


def retitle(obj, text):
    """Set a title only if it changed: any relayout makes plotly redraw the whole figure."""
    if obj.title.text != text:
        obj.title.text = text
