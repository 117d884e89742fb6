"""``import ldpviz`` is light; the estimators load the numerical stack on first use.

The package's ``__getattr__`` (PEP 562) must stay invisible to users: ``from ldpviz import
HistOfTree`` and ``from ldpviz import *`` work, the names are the modules' own objects, they
pickle, and ``dir(ldpviz)`` lists them.
"""

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ldpviz

HEAVY = ("numpy", "scipy", "pandas", "sklearn", "matplotlib", "plotly")


def _modules_after(code):
    """Top-level packages loaded by a fresh interpreter after running ``code``."""
    out = subprocess.run([sys.executable, "-c", f"{code}\nimport sys\nprint(' '.join("
                          "sorted({m.split('.')[0] for m in sys.modules})))"],
                         capture_output=True, text=True, timeout=120, check=True,
                         env={**os.environ, "MPLBACKEND": "Agg"})
    return set(out.stdout.split())


def test_import_ldpviz_loads_no_numerical_library():
    loaded = _modules_after("import ldpviz")
    assert "ldpviz" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_the_first_use_loads_what_the_estimator_needs():
    loaded = _modules_after("import ldpviz\nldpviz.HistOfTree")
    assert {"numpy", "sklearn"} <= loaded


def test_lazy_names_are_the_modules_own():
    from ldpviz._validation import PrivacyWarning
    from ldpviz.adhistoftree import AdHistOfTree
    from ldpviz.estimators import HistOfTree

    assert ldpviz.HistOfTree is HistOfTree
    assert ldpviz.AdHistOfTree is AdHistOfTree
    assert ldpviz.PrivacyWarning is PrivacyWarning
    namespace = {}
    exec("from ldpviz import *", namespace)
    assert set(ldpviz.__all__) <= set(namespace)
    assert namespace["HistOfTree"] is HistOfTree
    assert set(ldpviz.__all__) <= set(dir(ldpviz))


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'HistOfTrees'"):
        ldpviz.HistOfTrees  # noqa: B018
    with pytest.raises(ImportError):
        exec("from ldpviz import HistOfTrees", {})
    assert not hasattr(ldpviz, "histoftree")


def test_an_estimator_reached_lazily_pickles():
    rng = np.random.default_rng(0)
    X, y = rng.random((200, 3)), rng.random(200)
    model = ldpviz.HistOfTree(epsilon=2, s=1, t=2, depth=1, y_bound=1, random_state=0)
    model.fit(X, y, W=np.tile([1, 0, 0], (200, 1)))
    again = pickle.loads(pickle.dumps(model))
    assert type(again) is ldpviz.HistOfTree
    assert np.array_equal(again.predict(X), model.predict(X))


def test_mechanisms_partitions_and_datasets_load_neither_scipy_nor_sklearn():
    # The course's first cells use these; in the browser (Pyodide) scikit-learn and scipy take
    # seconds to import from source, so they load with the estimators that use them.
    loaded = _modules_after("import ldpviz.mechanisms, ldpviz.partition, ldpviz.datasets")
    assert {"ldpviz", "numpy", "pandas"} <= loaded
    assert not loaded & {"scipy", "sklearn"}, sorted(loaded & {"scipy", "sklearn"})


# The course's first steps in a browser tab (JupyterLite) compile every module they import:
# they must not pull in the estimator stack (scikit-learn, scipy) or the drawing libraries
# (matplotlib, plotly) before the student sees anything. The estimators load with the first
# fit, matplotlib with the first figure, plotly with the first explorer.
ESTIMATOR_STACK = {"sklearn", "scipy"}


def _first_cell(notebook):
    """The import cell of a course notebook, without its IPython magics."""
    path = Path(__file__).resolve().parents[1] / "notebooks" / notebook
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    return "".join(line for line in cells[0]["source"] if not line.startswith("%"))


@pytest.mark.parametrize("notebook, uses", [
    ("01_local_dp_fundamentals.ipynb", ("plot_neighbouring_counts", "repeated_collection")),
    ("02_semi_feature_ldp.ipynb", ("mechanism_explorer", "plot_mechanisms")),
])
def test_the_first_notebooks_first_cell_loads_no_estimator_stack(notebook, uses):
    code = _first_cell(notebook)
    assert all(name in code for name in uses)  # what is checked
    loaded = _modules_after(code)
    assert {"numpy", "pandas"} <= loaded
    late = ESTIMATOR_STACK | {"matplotlib", "plotly"}  # with the first drawing (tests below)
    assert not loaded & late, sorted(loaded & late)


def test_the_first_explorer_and_figure_load_no_estimator_stack():
    loaded = _modules_after(f"{_first_cell('02_semi_feature_ldp.ipynb')}\n"
                            "explorer = mechanism_explorer()\n"
                            "explorer.controls['epsilon'].value = 2.0\n"
                            "plot_mechanisms(epsilon=2.0)\n")
    assert not loaded & ESTIMATOR_STACK, sorted(loaded & ESTIMATOR_STACK)


@pytest.mark.parametrize("module, draw, library", [
    ("ldpviz.viz.widgets", "mechanism_explorer()", "plotly"),
    ("ldpviz.viz.plots", "plot_mechanisms(epsilon=2.0)", "matplotlib"),
    ("ldpviz.viz.course", "plot_mechanisms(epsilon=2.0)", "matplotlib"),
    ("ldpviz.viz.fundamentals", "plot_mechanisms(epsilon=2.0)", "matplotlib"),
])
def test_the_drawing_library_loads_with_the_first_drawing(module, draw, library):
    # In the browser matplotlib and plotly are packages of tens of MB that JupyterLite installs
    # when an import needs them (lite/pyodide_dist.py, DEFERRED): importing what draws must
    # not need them yet.
    loaded = _modules_after(f"from {module} import *\n"
                            "from ldpviz.viz.plots import plot_mechanisms\n"
                            "import sys\n"
                            f"assert {library!r} not in sys.modules, 'imported too soon'\n"
                            f"{draw}\n")
    assert library in loaded


def test_explorers_that_fit_or_simulate_load_the_stack_when_built():
    loaded = _modules_after("from ldpviz.viz.widgets import bcdp_explorer, partition_explorer\n"
                            "import sys\n"
                            "assert 'sklearn' not in sys.modules\n"
                            "partition_explorer(); bcdp_explorer()\n")
    assert ESTIMATOR_STACK <= loaded


# An explorer's figure gets plotly_white cut to its own trace types: plotly builds a template
# whole, and its full templates style every trace type (about 170 plotly modules).
UNDRAWN = ("plotly.graph_objs.table", "plotly.graph_objs.scatter3d", "plotly.graph_objs.pie",
           "plotly.graph_objs.layout.polar", "plotly.graph_objs.layout.geo")


def test_building_an_explorer_loads_only_the_plotly_types_it_draws():
    out = subprocess.run([sys.executable, "-c", "import sys\n"
                          "from ldpviz.viz.widgets import mechanism_explorer\n"
                          "mechanism_explorer()\n"
                          f"print([m for m in {UNDRAWN!r} if m in sys.modules])"],
                         capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_the_cut_template_is_plotly_white_for_what_each_explorer_draws():
    import plotly.io as pio

    from ldpviz.viz import widgets
    from ldpviz.viz._figure import UNUSED_SUBPLOTS

    white = pio.templates["plotly_white"].to_plotly_json()
    surface = widgets.surface_explorer()
    surface.controls["kind"].value = "surface"  # its 3-D figure is built on first use
    figures = [fig for explorer in (widgets.partition_explorer(), surface,
                                    widgets.lambda_explorer(), widgets.tradeoff_explorer(),
                                    widgets.bcdp_explorer(), widgets.mechanism_explorer(),
                                    widgets.comparison_explorer())
               for fig in explorer.figures]
    drawn = set()
    for fig in figures:
        template = fig.layout.template.to_plotly_json()
        types = {trace.type for trace in fig.data}
        drawn |= types
        assert template["data"] == {t: white["data"][t] for t in types}
        assert template["layout"] == {k: v for k, v in white["layout"].items()
                                      if k not in UNUSED_SUBPLOTS}
        assert not any(key.startswith(UNUSED_SUBPLOTS) for key in fig.layout.to_plotly_json())
    assert drawn == {"bar", "heatmap", "scatter", "surface"}  # all four were compared
