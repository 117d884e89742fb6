"""Modules the drawing code imports at its first use, not when it is imported itself.

A notebook's first cell imports the plotting functions and explorers; in a browser tab
(JupyterLite) matplotlib and plotly are packages of tens of megabytes that the kernel loads
only when something draws (lite/pyodide_dist.py, DEFERRED), so that the first cell's output
comes sooner. ``importlib.util.LazyLoader`` does not serve here: it finds the module, and so
imports its parent package, at once.
"""

from __future__ import annotations

import importlib


class LazyModule:
    """Stands for the module ``name``: the first attribute read imports it."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attribute):
        return getattr(importlib.import_module(self._name), attribute)

    def __repr__(self):
        return f"<module {self._name!r}, imported at first use>"
