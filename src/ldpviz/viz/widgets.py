"""Live explorers: ipywidgets controls wired to plotly FigureWidgets.

Each explorer is an :class:`Explorer` (an ipywidgets VBox) whose plots are updated in place;
the numbers come from the pure functions of :mod:`ldpviz.viz.views`. Every explorer can be
called with no arguments. ``explorer.controls`` maps control names to widgets,
``explorer.figures`` lists the FigureWidgets and ``explorer.readout`` is the HTML readout, so
tests and notebooks can drive them without a browser. The figures follow the width of the box
they are shown in (side by side, or stacked when too narrow) and the sliders update while they
move, except the comparison explorer's, which refit many models and wait for the release.
"""

from __future__ import annotations

import ipywidgets as W

from ._explorer import Explorer
from ._model_explorers import partition_explorer, surface_explorer
from ._more_explorers import bcdp_explorer, comparison_explorer, mechanism_explorer
from ._panels import Panel, Panels
from ._probe import WidthProbe
from ._theory_explorers import lambda_explorer, tradeoff_explorer
from .axis_ticks import log_ticks

__all__ = [
    "Explorer", "Panel", "Panels", "WidthProbe", "bcdp_explorer", "comparison_explorer",
    "dashboard", "lambda_explorer", "log_ticks", "mechanism_explorer", "partition_explorer",
    "surface_explorer", "tradeoff_explorer",
]


def dashboard():
    """The explorers in tabs, for app mode (Voila) and Binder.

    An explorer is built when its tab is first opened: each plotly FigureWidget makes the
    browser load and evaluate plotly's bundle, so building all of them up front slows the
    page down. ``tabs.explorers`` maps a tab index to the explorers built so far.
    """
    explorers = [("Partition", partition_explorer), ("Surface", surface_explorer),
                 ("λ* and masks", lambda_explorer), ("Trade-off", tradeoff_explorer),
                 ("BCDP (correlated)", bcdp_explorer)]
    panes = [W.VBox([W.HTML("<i>Loading the explorer…</i>")], layout=W.Layout(width="100%"))
             for _ in explorers]
    tabs = W.Tab(children=panes, titles=[title for title, _ in explorers],
                 layout=W.Layout(width="100%"))
    tabs.explorers = {}

    def open_tab(index):
        if index is not None and index not in tabs.explorers:
            tabs.explorers[index] = explorers[index][1]()
            panes[index].children = [tabs.explorers[index]]

    tabs.observe(lambda change: open_tab(change["new"]), names="selected_index")
    open_tab(tabs.selected_index or 0)
    return tabs
