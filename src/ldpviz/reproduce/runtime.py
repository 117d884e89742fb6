"""What a run will cost before it starts: the workers it may start and how long it takes.

:func:`estimate_seconds` times a few pilot fits of each method on the CPU clock (what a fit
takes on an idle core, whatever else the machine is doing) and scales them to the whole run;
``benchmarks/bench_whatif.py`` prints the estimate against the measured time.
"""

from __future__ import annotations

import inspect
import math
import sys
import time
import warnings

import joblib
import numpy as np
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


#: Training rows of the pilot fits; above, they are timed at this many and a quarter of it
#: (beyond twice as many, the costliest point also at up to four times as many) and
#: extrapolated to the table's size (:func:`_grid_seconds`).
PILOT_ROWS = 20_000
#: Pilot fits per (method, sub-grid): grid points in random order, each timed, until at least
#: :data:`PILOT_MIN` are and they took :data:`PILOT_BUDGET` CPU seconds or, for a costly
#: grid, :data:`PILOT_SHARE` of what its fits in the run are estimated to take (every point of
#: a grid of fast fits is timed; a costly grid's mean is not left to three random points).
PILOT_MIN, PILOT_BUDGET, PILOT_SHARE = 3, 0.5, 0.03
#: Passes over a grid of fast fits, timed whole before its budget (:func:`_timed`).
PILOT_PASSES = 10
#: Seconds to start the worker processes of a parallel run (measured: 1-2 s each).
WORKER_START = 2.0


def fitted(arm, config, X, y, W, random_state):
    """``arm``'s estimator at grid point ``config``, fitted as every run fits it: the data's
    public ``y_bound`` unless the grid sets one, and ``random_state()`` (called only then) for
    an estimator that takes a seed."""
    accepted = inspect.signature(arm.estimator).parameters
    params = {**arm.params, **config}
    if "y_bound" in accepted and "y_bound" not in params:
        params["y_bound"] = arm.data.y_bound
    if "random_state" in accepted:
        params["random_state"] = random_state()
    model = arm.estimator(**params)
    return model.fit(X, y) if W is None else model.fit(X, y, W=W)


def _fit_seconds(arm, config, X, y, X_test, W):
    """CPU seconds of one grid point as the runner fits it (a seeded Generator, fit, predict,
    test error). A costly point is timed once: repeating a fit on the same data warms caches
    the run's fits, which go from one grid point to the next, do not find warm (a repeated
    pilot ran 10-25% faster than the run); only grids of fast fits are timed again
    (:func:`_timed`)."""
    start = time.process_time()
    seed = np.random.SeedSequence(0, spawn_key=(0, 1))  # as the runner seeds a fit
    model = fitted(arm, config, X, y, W, lambda: np.random.default_rng(seed))
    np.mean((np.asarray(model.predict(X_test)) - 1.0) ** 2)
    return time.process_time() - start


def read_only(array):
    """A read-only view: the data of a replication are shared by its arms, none may edit them
    (a view, so the caller's own arrays keep their flags); the pilot fits get the same."""
    view = np.asarray(array).view()
    view.flags.writeable = False
    return view


def _timed(arm, order, size, data, W, fits, first=(), at_most=None):
    """{grid point: CPU seconds} at ``size`` rows: ``first``, then the points of ``order``,
    until :data:`PILOT_MIN` are timed and they took the pilot's budget (see
    :data:`PILOT_SHARE`; ``fits``: the grid's fits in the run), or ``at_most`` are timed.

    A grid timed whole before its budget is timed again, up to :data:`PILOT_PASSES` passes,
    while the pilot costs less than :data:`PILOT_SHARE` of the grid's run, and each point
    gets its median: one pass of millisecond fits gave estimates from 0.70 to 2.33 times the
    run, repeated passes 0.65 to 1.33 (benchmarks/bench_whatif.py's per-column case, 17 and
    16 runs at load 2-4)."""
    X, y, X_test = data
    configs, times = arm.configs(), {}
    points = [*first, *(i for i in order if i not in first)]
    spent = n_fits = 0
    for _ in range(PILOT_PASSES):
        for i in points:
            times.setdefault(i, []).append(
                _fit_seconds(arm, configs[i], X[:size], y[:size], X_test[:size], W))
            spent, n_fits = spent + times[i][-1], n_fits + 1
            if n_fits == at_most or (len(times) >= PILOT_MIN and spent >= max(
                    PILOT_BUDGET, PILOT_SHARE * fits * spent / n_fits)):
                return {i: float(np.median(t)) for i, t in times.items()}
        if spent >= min(PILOT_BUDGET, PILOT_SHARE * fits * spent / n_fits):
            break
    return {i: float(np.median(t)) for i, t in times.items()}


def _growth(sizes, means):
    """Exponent b of ``time ~ n**b`` fitted (least squares in log-log) to the pilot means, at
    least 1: every fit reads every row, and a smaller slope only says a fixed overhead still
    weighs at the pilot sizes."""
    b = np.polyfit(np.log(sizes), np.log(np.maximum(means, 1e-12)), 1)[0]
    return max(float(b), 1.0)


def _grid_seconds(arm, data, W, sizes, n_train, fits):
    """CPU seconds of an average grid point of ``arm`` at ``n_train`` rows.

    With one pilot size, the mean over the timed points. With more, every point is first
    timed at the smallest size as far as the budget goes, then at each larger size the
    costliest of them first and others in random order while the budget lasts (at the third
    size, the costliest alone, when its fit fits the pilot's share): a size's mean is the
    previous one's scaled by the ratio of their sums over the points timed at both (the
    costly points, which dominate the run, also dominate that ratio). Beyond the largest
    size the mean grows as a power of n fitted to the sizes' means (:func:`_growth`).
    Measured (``benchmarks/bench_whatif.py``): from 20,000 to 700,000 rows a fit's time grows
    as n^1.2-1.3 (sorts, and arrays that leave the caches), while from 5,000 to 20,000 it
    grows as n^1.0 or less (fixed costs): a line through those two underestimated a
    1,000,000-row run by half; the third size sees the steeper part.
    """
    order = np.random.default_rng(0).permutation(len(arm.configs())).tolist()
    small = _timed(arm, order, sizes[0], data, W(sizes[0]), fits)
    means = [float(np.mean(list(small.values())))]
    if len(sizes) == 1:
        return means[0]
    costliest = max(small, key=small.get)
    large = _timed(arm, [i for i in order if i in small], sizes[1], data, W(sizes[1]), fits,
                   first=(costliest,))
    means.append(means[0] * sum(large.values()) / max(sum(small[i] for i in large), 1e-12))
    used = sizes[:2]
    if len(sizes) > 2:
        # One fit of the costliest point at a third size: the largest up to sizes[2] that
        # its pilot's share allows (linear guess), if at least twice the second.
        share = max(PILOT_BUDGET, PILOT_SHARE * fits * means[1]
                    * (n_train / sizes[1]) ** _growth(used, means))
        third = min(sizes[2], int(sizes[1] * share / max(large[costliest], 1e-12)))
        if third >= 2 * sizes[1]:
            timed = _timed(arm, [], third, data, W(third), fits, first=(costliest,),
                           at_most=1)
            means.append(means[1] * timed[costliest] / max(large[costliest], 1e-12))
            used = [*sizes[:2], third]
    return means[-1] * (n_train / used[-1]) ** _growth(used, means)


def estimate_seconds(arms, reps, n_jobs):
    """Estimated wall time of :func:`ldpviz.reproduce.experiments.run` ``(arms, reps)`` on an
    otherwise idle machine.

    Each distinct (method, sub-grid) is timed on one split, on the CPU clock, at its grid
    points in random order until :data:`PILOT_MIN` are timed and the pilot spent
    :data:`PILOT_BUDGET` seconds, or :data:`PILOT_SHARE` of the grid's estimated share of the
    run, on it (a grid's cost varies with more than its depth: a tree with a large minimum
    leaf is cheap at any depth). Tables with more than :data:`PILOT_ROWS` training rows are
    timed at that many rows and at a quarter of it (beyond twice that many, the costliest
    point also at up to four times as many, within the pilot's share), and the time is
    extrapolated to n as a power of n fitted to the pilot sizes (:func:`_grid_seconds`).
    The runner sends one task per split to the workers, so ``jobs`` workers take
    ``ceil(reps / jobs)`` rounds. Returns ``(seconds, n_fits, jobs)``.
    """
    X, y, X_test, _ = (read_only(a) for a in arms[0].data.split(np.random.default_rng(0)))
    n_train = len(y)
    rows = min(n_train, PILOT_ROWS)
    sizes = [rows] if n_train <= PILOT_ROWS else [rows // 4, rows]
    if n_train > 2 * PILOT_ROWS:
        sizes.append(min(n_train, 4 * PILOT_ROWS))

    def key_of(arm):
        return arm.method, arm.estimator, repr(arm.grid), arm.mask is None

    fits = {}  # per pilot key, its fits in the whole run
    for arm in arms:
        fits[key_of(arm)] = fits.get(key_of(arm), 0) + len(arm.configs()) * reps
    pilot, masks, total = {}, {}, 0.0

    def mask_of(arm):
        def at(m):  # the arm's mask at m rows, built once per (mask, m)
            if arm.mask is None:
                return None
            if (repr(arm.mask), m) not in masks:
                masks[repr(arm.mask), m] = arm.mask.build(m, X.shape[1])
            return masks[repr(arm.mask), m]
        return at

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for arm in arms:
            key = key_of(arm)
            if key not in pilot:
                pilot[key] = _grid_seconds(arm, (X, y, X_test), mask_of(arm), sizes, n_train,
                                           fits[key])
            total += len(arm.configs()) * reps * pilot[key]
    jobs = effective_jobs(n_jobs, reps)
    seconds = total / reps * math.ceil(reps / jobs)
    return seconds + (WORKER_START if jobs > 1 else 0.0), sum(fits.values()), jobs
