"""What every explorer shares: the Explorer box, its controls, and figures that fit their box.

A figure follows the width of the box it is shown in: a tiny front-end probe (:class:`WidthProbe`)
reports the box's width to the kernel, and :class:`Panels` (:mod:`._panels`) lays the figure's
panels out for that width, side by side or wrapped into rows when they would be too narrow,
with every gap in pixels so tick labels, axis titles, legends and colour bars keep their room
at any width.
"""

from __future__ import annotations

import html
import time
from copy import deepcopy

import anywidget
import ipywidgets as W
import numpy as np
import plotly.graph_objects as go
import traitlets
from plotly.basedatatypes import Undefined
from plotly.serializers import custom_serializers

from . import views
from ._plotly_bundle import FIGURE_ESM, SHARED_BUNDLE, PlotlyBundle

FONT = {"size": 15}
TITLE_FONT = {"size": 18}
# Okabe-Ito: distinguishable under the common colour-vision deficiencies.
COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]
BLUE, VERMILLION, GREEN, PURPLE, ORANGE, SKY, YELLOW, BLACK = COLORS
GREY = "#7f7f7f"
HEATMAP_SCALE = "Viridis"
DEFAULT_WIDTH = 900  # until the first box reports its width
CONTROL_STYLE = {"description_width": "150px"}

# ε with readable stops, about evenly spaced on a log scale
EPSILON_STOPS = (0.125, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)
GAMMA_STOPS = (0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4)


# ----------------------------------------------------------------------------------------------
# The width of the box a figure is shown in
# ----------------------------------------------------------------------------------------------
class WidthProbe(anywidget.AnyWidget):
    """An invisible element that reports the width of the box it sits in, in CSS pixels.

    A ResizeObserver watches the box; a change is sent after 60 ms of quiet. Growing by less
    than 24 px is ignored: a scroll bar that comes and goes with the figure's height would
    otherwise make the figure oscillate between two widths. A report is numbered (``seq``) and
    sent again until the kernel acknowledges it (``ack``): a message sent before the page's
    connection to the kernel is up would otherwise be lost.
    """

    _esm = """
    export default {
      render({ model, el }) {
        el.style.cssText = "width: 100%; height: 0; overflow: hidden; margin: 0; padding: 0;";
        let timer = null, retry = null, sent = 0, seq = 0, tries = 0;
        const post = () => {
          clearTimeout(retry);
          if (model.get("ack") === seq || tries > 60) return;
          tries += 1;
          model.set("width", sent);
          model.set("seq", seq);
          model.save_changes();
          retry = setTimeout(post, 500);
        };
        const measure = () => {
          const width = Math.floor(el.getBoundingClientRect().width);
          if (width <= 0 || width === sent || (width > sent && sent && width - sent < 24)) return;
          sent = width; seq = Math.max(seq, model.get("ack")) + 1; tries = 0;
          post();
        };
        const observer = new ResizeObserver(() => {
          clearTimeout(timer);
          timer = setTimeout(measure, 60);
        });
        observer.observe(el);
        return () => { observer.disconnect(); clearTimeout(timer); clearTimeout(retry); };
      }
    };
    """
    width = traitlets.Int(0).tag(sync=True)
    seq = traitlets.Int(0).tag(sync=True)
    ack = traitlets.Int(0).tag(sync=True)
    last_width = 0  # the last width any probe reported: the first guess for a new figure

    @traitlets.observe("seq")
    def _acknowledge(self, change):
        self.ack = change["new"]


# ----------------------------------------------------------------------------------------------
# Figures (plotly's widget code comes once per page, :mod:`._plotly_bundle`)
# ----------------------------------------------------------------------------------------------
def _report_trait():
    return traitlets.Dict(allow_none=True).tag(sync=True, echo_update=False,
                                                **custom_serializers)


class Figure(go.FigureWidget):
    """A plotly FigureWidget for the explorers: lighter on the kernel, and never left behind.

    After every redraw the browser reports the defaults plotly filled in (``traceDeltas``);
    plotly's handler merges them into Python-side defaults, which takes the kernel tens to
    hundreds of milliseconds per redraw, during which it cannot take the next slider value,
    and ipywidgets echoes each report back to the browser. The explorers never read those
    defaults: here a report only closes the edit it answers, and nothing is echoed.
    Interactions (rotating a 3-D scene, zooming) still reach Python.

    Its front-end code is plotly's, shared through :class:`PlotlyBundle`.
    """

    if SHARED_BUNDLE is not None:
        _esm = FIGURE_ESM

    _js2py_traceDeltas = _report_trait()
    _js2py_relayout = _report_trait()
    _js2py_restyle = _report_trait()
    _js2py_update = _report_trait()

    def __init__(self, *args, **kwargs):
        PlotlyBundle.shared()  # the page gets plotly's code before (or with) this figure
        super().__init__(*args, **kwargs)
        self._ldpviz_drawn = False

    @traitlets.observe("_js2py_traceDeltas")
    def _handler_js2py_traceDeltas(self, change):
        if not change["new"]:
            return
        if not self._ldpviz_drawn:
            # A view's first drawing: it may have started from a state that was still arriving
            # or missed edits sent while it was loading (see resend). Send it the whole figure;
            # from now on edits reach the view as messages.
            self._ldpviz_drawn = True
            resend(self)
        self._ldpviz_drawn = True
        if change["new"]["trace_edit_id"] == self._last_trace_edit_id:
            self._trace_edit_in_process = False


def new_figure(panels, title, traces, **layout):
    """A :class:`Figure` with one axis pair (or scene) per panel, laid out by ``panels``."""
    fig = Figure()
    for i, panel in enumerate(panels.panels):
        n = "" if i == 0 else str(i + 1)
        if panel.kind == "xy":
            anchors = {"anchor": f"y{n}"}
            fig.layout[f"xaxis{n}"] = {**anchors, "automargin": False}
            fig.layout[f"yaxis{n}"] = {"anchor": f"x{n}", "automargin": False}
    fig.add_traces(traces)
    fig.update_layout(title={"text": title, "font": TITLE_FONT}, font=FONT,
                      template="plotly_white", showlegend=True, **layout)
    fig.update_xaxes(title_standoff=6, ticks="outside", ticklen=4)
    fig.update_yaxes(title_standoff=6, ticks="outside", ticklen=4)
    fig._ldpviz_panels = panels
    fit_width(fig, WidthProbe.last_width or DEFAULT_WIDTH)
    return fig


def set_y_title(fig, text):
    """The y-axis title of the first panel, repeated on panels sharing it that start a row."""
    panels = fig._ldpviz_panels
    first = panels.first_in_row(fig._ldpviz_width)
    for i, panel in enumerate(panels.panels):
        if i == 0 or panel.shared_y:
            axis = fig.layout[f"yaxis{'' if i == 0 else i + 1}"]
            retitle(axis, text if i in first else "")


def refit(fig):
    """Lay ``fig`` out again at its current width (after a panel's legend or note changed).

    It sends only what changed in the kernel's figure: it cannot repair a view that missed an
    edit (:func:`resend` does)."""
    fig._ldpviz_fitted = None
    fit_width(fig, fig._ldpviz_width)


def fit_width(fig, width):
    """Lay ``fig`` out for ``width`` px (a relayout only if something changed)."""
    fig._ldpviz_width = width
    panels = fig._ldpviz_panels
    layout, colorbars = panels.layout(width)
    key = (int(width), tuple((p.legend, p.title, p.note) for p in panels.panels),
           panels.legend)
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


def resend(fig):
    """Send the figure's views its whole current state: every layout and trace property,
    replaced whole, in one update.

    A view starts from ``_widget_layout`` and ``_widget_data`` (:func:`sync_figure`), which
    reach the page as two messages, and it applies only the edits that arrive after its code
    has loaded. When the first width report is answered while a view is loading, the view can
    start between the two messages (axes laid out for the box, colour bar still where the
    900 px first guess put it: inside the heat map at 1920 px), or before both after missing
    the edit itself (the whole figure at 900 px). Nothing the kernel does later repairs that:
    plotly sends only properties that changed in the kernel's figure, so laying it out again
    at the same width sends nothing. Called when a view reports its first drawing.
    """
    traces = fig._data
    keys = sorted({key for trace in traces for key in trace} - {"type", "uid"})
    style = {key: [trace.get(key, Undefined) for trace in traces] for key in keys}
    fig._send_update_msg(style, dict(fig._layout_obj._props),
                         trace_indexes=list(range(len(traces))))


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
    ticks, text = views.log_ticks(values)
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
                               continuous_update=continuous, style=CONTROL_STYLE,
                               layout=_control_layout(wide))
    slider.wide = wide
    return slider


def int_slider(description, value, low, high, step=1, continuous=True):
    return W.IntSlider(value=value, min=low, max=high, step=step, description=description,
                       continuous_update=continuous, style=CONTROL_STYLE,
                       layout=_control_layout())


def float_slider(description, value, low, high, step, continuous=True):
    return W.FloatSlider(value=value, min=low, max=high, step=step, description=description,
                         continuous_update=continuous, style=CONTROL_STYLE,
                         readout_format=".2f", layout=_control_layout())


def dropdown(description, options, value):
    return W.Dropdown(options=options, value=value, description=description,
                      style=CONTROL_STYLE, layout=_control_layout())


def toggle(description, options, value):
    return W.ToggleButtons(options=options, value=value, description=description,
                           style={**CONTROL_STYLE, "button_width": "auto"},
                           layout=_control_layout())


def _control_layout(wide=False):
    return W.Layout(width="100%" if wide else "auto", min_width="0")


def readout_html(items):
    cells = "".join(f"<span style='display:inline-block;margin-right:22px'><b>{k}</b> {v}</span>"
                    for k, v in items)
    return f"<div style='font-size:15px;line-height:1.6;white-space:normal'>{cells}</div>"


def refusal_html(error):
    """The readout for a control value the library refuses: its message, on one line."""
    text = html.escape(" ".join(str(error).split()))
    return f"<div style='font-size:15px;color:#b00020'><b>Not redrawn:</b> {text}</div>"


# ----------------------------------------------------------------------------------------------
# The explorer box
# ----------------------------------------------------------------------------------------------
class Explorer(W.VBox):
    """A VBox with named ``controls``, its ``figures``, a ``readout`` and an ``update`` hook.

    Controls sit in a grid that wraps with the width (the ε slider has a row of its own: a
    long track); the figures follow the width of the box (:class:`WidthProbe`). Sliders update
    while they move: the front end keeps at most one change of a slider in flight and merges
    the later ones into the next message, so the kernel never works through a backlog and the
    latest value always wins. ``last_update_seconds`` is the kernel-side time of the last
    recompute and redraw.
    """

    def __init__(self, controls, figures, readout, update, title, extra=None, panels=None,
                 note=None):
        self.controls = controls
        self.figures = figures
        self.readout = readout
        self._update = update
        self.last_update_seconds = float("nan")
        self.probe = WidthProbe()
        header = W.HTML(f"<h3 style='margin:4px 0'>{title}</h3>"
                        + (f"<div style='font-size:14px;color:#444'>{note}</div>" if note
                           else ""))
        wide = [w for w in controls.values() if getattr(w, "wide", False)]
        grid = W.GridBox([w for w in controls.values() if w not in wide] + list(extra or []),
                         layout=W.Layout(grid_template_columns="repeat(auto-fill, minmax(330px,"
                                                               " 1fr))",
                                         grid_gap="2px 18px", width="100%"))
        body = [header, *wide, grid, readout, self.probe, *(panels or figures)]
        super().__init__(body, layout=W.Layout(width="100%", min_width="0"))
        for widget in controls.values():
            if hasattr(widget, "value"):
                widget.observe(self.update, names="value")
        self.probe.observe(self._fit, names="width")
        self._redraw()  # a bad argument of the explorer itself raises, as for any function
        self._sync_figures()

    @property
    def width(self):
        return self.probe.width or WidthProbe.last_width or DEFAULT_WIDTH

    def _fit(self, change):
        WidthProbe.last_width = change["new"]
        for fig in self.figures:
            fit_width(fig, change["new"])

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
