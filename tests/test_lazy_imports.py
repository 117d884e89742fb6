"""``import ldpviz`` is light; the estimators load the numerical stack on first use.

The package's ``__getattr__`` (PEP 562) must stay invisible to users: ``from ldpviz import
HistOfTree`` and ``from ldpviz import *`` work, the names are the modules' own objects, they
pickle, and ``dir(ldpviz)`` lists them.
"""

import pickle
import subprocess
import sys

import numpy as np
import pytest

import ldpviz

HEAVY = ("numpy", "scipy", "pandas", "sklearn", "matplotlib", "plotly")


def _modules_after(code):
    """Top-level packages loaded by a fresh interpreter after running ``code``."""
    out = subprocess.run([sys.executable, "-c", f"{code}\nimport sys\nprint(' '.join("
                          "sorted({m.split('.')[0] for m in sys.modules})))"],
                         capture_output=True, text=True, timeout=120, check=True)
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

