"""What a run will cost before it starts: the workers it may start and how long it takes."""

from __future__ import annotations

import sys

import joblib
from joblib.parallel import LokyBackend, MultiprocessingBackend, ThreadingBackend

from .._validation import check_int

_LOCAL_BACKENDS = (LokyBackend, MultiprocessingBackend, ThreadingBackend)


def check_n_jobs(n_jobs, name="n_jobs"):
    """``n_jobs`` as joblib reads it: None, k >= 1, or -k (every core but k - 1). On a local
    backend (processes or threads) it may not exceed this machine's cores: each worker holds
    its own copy of the data (n_jobs=1000 started 1000 processes). A remote backend (Dask)
    is not capped by local cores."""
    if n_jobs is None:
        return None
    n_jobs = check_int(n_jobs, name, -(2**63))
    if n_jobs == 0:
        raise ValueError(f"{name} must not be 0: use 1 (no parallelism) or -1 (every core).")
    backend = joblib.parallel.get_active_backend()[0]
    cores = joblib.cpu_count()
    if sys.platform == "emscripten" and n_jobs not in (1, -1):  # JupyterLite's Pyodide
        raise ValueError(f"{name}={n_jobs}: Python in the browser (JupyterLite) runs one job at "
                         f"a time; use {name}=1, or run this in JupyterLab or on Binder for "
                         "parallel jobs.")
    if isinstance(backend, _LOCAL_BACKENDS) and not -cores <= n_jobs <= cores:
        raise ValueError(f"{name}={n_jobs} asks for more workers than this machine's {cores} "
                         f"cores; use {name} <= {cores} (or -1 for every core)."
                         if n_jobs > 0 else
                         f"{name}={n_jobs} leaves no core of this machine's {cores}; use "
                         f"{name} >= {-cores} (-1 is every core).")
    return n_jobs


def effective_jobs(n_jobs, n_tasks):
    """Workers a run of ``n_tasks`` tasks keeps busy on this machine (None: 1)."""
    cores = joblib.cpu_count()
    if n_jobs is None:
        n_jobs = 1
    n_jobs = cores + 1 + n_jobs if n_jobs < 0 else n_jobs
    return max(1, min(n_jobs, cores, n_tasks))


def duration(seconds):
    """'45 s', '12.5 min', '2.4 h'."""
    if seconds < 1:
        return f"{seconds:.2g} s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"
