"""Module paths of ldpviz 0.1, kept importable for one release with a DeprecationWarning.

``import ldpviz.plots`` (say) returns the module object of ``ldpviz.viz.plots`` itself, so
both names share one module and its state.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

MOVED = {
    "ldpviz.views": "ldpviz.viz.views",
    "ldpviz.plots": "ldpviz.viz.plots",
    "ldpviz.widgets": "ldpviz.viz.widgets",
    "ldpviz.experiments": "ldpviz.reproduce.experiments",
    "ldpviz.paper": "ldpviz.reproduce.paper",
}


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} moved to {new}; the old path will be removed in ldpviz 0.3.",
                      DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module):
        pass  # the new module is already executed


def install():
    if not any(isinstance(f, _MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedModuleFinder())
