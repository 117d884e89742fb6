"""The explorers' plotly figure: a FigureWidget lighter on the kernel, and never left behind.

Apart from the rest of the explorers' code (:mod:`._explorer`) because it subclasses plotly's
FigureWidget: importing plotly waits until the first explorer builds a figure (in the browser,
JupyterLite loads the plotly package then, not at the kernel's start).
"""

from __future__ import annotations

import json
import pkgutil

import plotly.graph_objects as go
import traitlets
from plotly.basedatatypes import Undefined
from plotly.serializers import custom_serializers

from ._plotly_bundle import FIGURE_ESM, SHARED_BUNDLE, PlotlyBundle


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


#: Subplot kinds plotly_white styles that no explorer has.
UNUSED_SUBPLOTS = ("geo", "polar", "ternary")


def explorer_template(trace_types):
    """plotly's "plotly_white" template cut to a figure's ``trace_types`` (a new dict).

    A figure builds its template whole, and plotly's templates hold defaults for every trace
    type: the default template every new figure gets, then plotly_white, built about 170
    plotly modules for the first explorer (in the browser, where Python compiles each from
    source, about 3.5 s). For the figure's traces and subplots this is plotly_white itself
    (tests/test_widgets.py compares them), read from the file plotly builds it from.
    """
    white = json.loads(pkgutil.get_data("plotly", "package_data/templates/plotly_white.json"))
    return {"layout": {k: v for k, v in white["layout"].items() if k not in UNUSED_SUBPLOTS},
            "data": {k: v for k, v in white["data"].items() if k in trace_types}}


def resend(fig):
    """Send the figure's views its whole current state: every layout and trace property,
    replaced whole, in one update.

    A view starts from ``_widget_layout`` and ``_widget_data`` (:func:`._explorer.sync_figure`),
    which reach the page as two messages, and it applies only the edits that arrive after its
    code has loaded. When the first width report is answered while a view is loading, the view
    can start between the two messages (axes laid out for the box, colour bar still where the
    900 px first guess put it: inside the heat map at 1920 px), or before both after missing the
    edit itself (the whole figure at 900 px). Nothing the kernel does later repairs that: plotly
    sends only properties that changed in the kernel's figure, so laying it out again at the
    same width sends nothing. Called when a view reports its first drawing.
    """
    traces = fig._data
    keys = sorted({key for trace in traces for key in trace} - {"type", "uid"})
    style = {key: [trace.get(key, Undefined) for trace in traces] for key in keys}
    fig._send_update_msg(style, dict(fig._layout_obj._props),
                         trace_indexes=list(range(len(traces))))
