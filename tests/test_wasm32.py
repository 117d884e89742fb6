"""wasm32 (Pyodide, JupyterLite) without Pyodide: numpy's 32-bit index rules emulated on x86-64.

Where ``np.intp`` is int32, ``np.bincount``, ``np.take``, ``np.repeat`` (array counts),
``np.put`` and ``np.choose`` refuse int64, uint32 and uint64 input (``Cannot cast array data
from dtype('int64') to dtype('int32') according to the rule 'safe'``), and numpy's default
integer (``np.arange``, ``np.prod`` and sums of small integers) is int32, which wraps around
silently. The first rule is emulated here for calls made by ldpviz's own code; the second is
kept out by a source check. ``make lite-check`` runs the core tests under Pyodide itself and
compares a fingerprint of seeded fits with this platform's (lite/wasm32_check.py).
"""

import ast
import functools
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lite"))
import wasm32_check  # noqa: E402

# What these functions cast their index or count argument to intp with, on wasm32 (measured
# under Pyodide 0.27.7, numpy 2.0.2): 'safe' casting, so only these dtypes pass.
WASM32_SAFE = (np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16)
STRICT = {"bincount": 0, "take": 1, "repeat": 1, "put": 1, "choose": 0}


def _from_ldpviz():
    frame = sys._getframe(2)
    return frame.f_globals.get("__name__", "").startswith("ldpviz")


def _strict(name, position, original):
    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        arg = args[position] if len(args) > position else None
        if _from_ldpviz() and isinstance(arg, (np.ndarray, np.generic)) and arg.dtype.kind in \
                "iu" and not any(arg.dtype == t for t in WASM32_SAFE):
            raise TypeError(f"np.{name}: Cannot cast array data from {arg.dtype!r} to "
                            "dtype('int32') according to the rule 'safe' (as on wasm32)")
        return original(*args, **kwargs)
    return wrapper


@pytest.fixture
def wasm32_numpy(monkeypatch):
    """numpy's wasm32 index rules for ldpviz's calls, and ldpviz's index type int32."""
    from ldpviz import _index

    for name, position in STRICT.items():
        monkeypatch.setattr(np, name, _strict(name, position, getattr(np, name)))
    monkeypatch.setattr(_index, "INDEX", np.int32)


def test_the_emulation_refuses_what_wasm32_refuses(wasm32_numpy):
    """Called from an ldpviz module, np.bincount refuses int64 as on wasm32, takes int32."""
    namespace = {"__name__": "ldpviz.emulated", "np": np}
    exec("def count(index):\n    return np.bincount(index)\n", namespace)
    with pytest.raises(TypeError, match="int32"):
        namespace["count"](np.array([0, 2, 2], dtype=np.int64))
    assert namespace["count"](np.array([0, 2, 2], dtype=np.int32)).tolist() == [1, 0, 2]
    assert np.bincount(np.array([0, 2, 2], dtype=np.int64)).tolist() == [1, 0, 2]  # not ldpviz


@pytest.fixture(scope="module")
def reference():
    return wasm32_check.fingerprint()


def test_fits_mechanisms_and_oracles_run_with_wasm32_index_rules(reference, wasm32_numpy):
    """Every estimator's fit and predict, the mechanisms and the frequency oracles run under
    wasm32's index rules, and draw and predict exactly what they do here."""
    assert wasm32_check.compare(reference, wasm32_check.fingerprint()) == []


def test_fingerprint_compare_catches_a_changed_draw():
    a = {"grr": {"kind": "int", "shape": [3], "values": [0, 1, 2]},
         "fit": {"kind": "float", "shape": [2], "values": [0.5, 1.0]}}
    b = {"grr": {"kind": "int", "shape": [3], "values": [0, 1, 3]},
         "fit": {"kind": "float", "shape": [2], "values": [0.5 + 1e-14, 1.0]}}
    assert wasm32_check.compare(a, a) == []
    problems = wasm32_check.compare(a, b)
    assert len(problems) == 1 and problems[0].startswith("grr: 1 of 3 differ")
    b["fit"]["values"][1] = 1.0 + 1e-9
    assert len(wasm32_check.compare(a, b)) == 2


def _calls(tree, attr):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == attr:
            yield node


def test_no_platform_int_size_arithmetic_in_the_library():
    """np.bincount refuses int64 on wasm32: the library calls ldpviz._index.bincount, which
    casts once (the emulation above sees only the paths it runs). np.prod of a shape is int32
    on wasm32 and wraps around (70,000 x 70,000 gives 605,032,704 there): sizes are Python
    ints (math.prod). Array methods .take/.repeat/.put with int64 arguments fail on wasm32
    and cannot be emulated above, so the library calls the np.* functions instead."""
    offenders = []
    for path in sorted((ROOT / "src" / "ldpviz").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in _calls(tree, "prod"):
            if isinstance(node.func.value, ast.Name) and node.func.value.id == "np":
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} np.prod (math.prod)")
        if path.name != "_index.py":
            for node in _calls(tree, "bincount"):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} np.bincount "
                                 "(ldpviz._index.bincount)")
        for attr in ("take", "repeat", "put", "choose"):
            for node in _calls(tree, attr):
                if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "np"):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} .{attr}(...)")
    assert offenders == []


def test_in_the_browser_parallel_jobs_and_downloads_are_refused_with_a_message(monkeypatch,
                                                                             tmp_path):
    """Pyodide runs one job at a time and has no sockets: the package says so, naming what
    to do, instead of a traceback from joblib or urllib."""
    import ldpviz.datasets
    from ldpviz.datasets import load_uci
    from ldpviz.reproduce.runtime import check_n_jobs

    monkeypatch.setattr(sys, "platform", "emscripten")
    monkeypatch.setattr(ldpviz.datasets, "_download", lambda *a: pytest.fail("downloaded"))
    assert check_n_jobs(1) == 1 and check_n_jobs(None) is None and check_n_jobs(-1) == -1
    with pytest.raises(ValueError, match=r"n_jobs=2: .*browser.*one job at a time"):
        check_n_jobs(2)
    with pytest.raises(OSError, match=r"cannot be downloaded .*browser.*Upload"):
        load_uci("abalone", data_home=tmp_path)
