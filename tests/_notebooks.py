"""Run a course notebook top to bottom in a fresh kernel and hand its variables to a test.

The notebooks show a student prose, a few lines of API and pictures; the checks that keep their
numbers honest live in ``tests/test_notebook_*.py`` and read the variables a notebook leaves
behind::

    from _notebooks import notebook_namespace

    def test_the_replay_is_exact():
        ns = notebook_namespace("02")
        assert np.array_equal(ns["y_tilde"], ns["model"].y_tilde_)

Each notebook runs once per test session (a real IPython kernel, as nbval and a student use),
then every picklable top-level variable is copied out. Objects that do not pickle (widgets,
functions defined in the notebook) are left behind; a test asking for one gets a KeyError that
names them.
"""

import functools
import os
import pickle
import tempfile
from pathlib import Path

from jupyter_client.manager import start_new_kernel

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
CELL_TIMEOUT = 600  # seconds; generous so that a busy machine slows a run but never fails it

_DUMP = """
import pickle as _pickle, types as _types
_kept = {}
for _name, _value in list(globals().items()):
    if _name.startswith("_") or _name in ("In", "Out") or isinstance(_value, _types.ModuleType):
        continue
    try:
        _kept[_name] = _pickle.dumps(_value)
    except Exception:
        pass
with open(DUMP_PATH, "wb") as _file:
    _pickle.dump(_kept, _file)
"""


class NotebookError(AssertionError):
    """A cell of a course notebook raised."""


class Namespace(dict):
    """The variables a notebook left, unpickled on first use."""

    def __init__(self, name, pickled):
        super().__init__()
        self.name = name
        self._pickled = pickled

    def __missing__(self, key):
        if key not in self._pickled:
            raise KeyError(f"{self.name} leaves no picklable variable {key!r}")
        value = self[key] = pickle.loads(self._pickled[key])
        return value

    def __contains__(self, key):
        return key in self._pickled


def notebook_path(prefix):
    """notebooks/NN_*.ipynb for a two-digit prefix such as "02"."""
    (path,) = NOTEBOOK_DIR.glob(f"{prefix}_*.ipynb")
    return path


def _code_cells(path):
    import json

    cells = json.loads(path.read_text())["cells"]
    return [(i, "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "code"]


@functools.cache
def notebook_namespace(prefix):
    """Execute notebook ``prefix`` (e.g. "02") in a fresh kernel; return its variables."""
    path = notebook_path(prefix)
    env = {**os.environ, "MPLBACKEND": "agg"}
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(NOTEBOOK_DIR), env=env)
    try:
        for index, source in _code_cells(path):
            errors = []

            def hook(msg, errors=errors):
                if msg["msg_type"] == "error":
                    errors.append(msg["content"])

            reply = kc.execute_interactive(source, timeout=CELL_TIMEOUT, output_hook=hook,
                                           allow_stdin=False)
            if reply["content"]["status"] != "ok":
                error = (errors or [reply["content"]])[0]
                raise NotebookError(f"{path.name}, cell {index}: {error.get('ename')}: "
                                    f"{error.get('evalue')}")
        with tempfile.TemporaryDirectory() as tmp:
            dump = Path(tmp) / "namespace.pickle"
            code = _DUMP.replace("DUMP_PATH", repr(str(dump)))
            reply = kc.execute_interactive(code, timeout=CELL_TIMEOUT,
                                           output_hook=lambda msg: None, allow_stdin=False)
            assert reply["content"]["status"] == "ok", reply["content"]
            pickled = pickle.loads(dump.read_bytes())
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return Namespace(path.stem, pickled)
