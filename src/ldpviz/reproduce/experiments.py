"""Experiments: methods x parameter grids x replications -> one tidy pandas DataFrame.

An experiment is a list of :class:`Arm` objects. An arm is one method in one setting (a point of
a curve of Figure 2, a cell of Table 1): an estimator class, its fixed parameters, the grid it is
tuned over, the data it sees (:class:`SyntheticData` or :class:`SplitData`) and the privacy mask
(:class:`Mask`). :func:`run` fits every grid point of every arm on every replication and returns
one row per (arm, grid point, replication) with its MSE; :func:`best_over_grid` keeps, per arm,
the grid point with the lowest *mean* MSE over the replications, as in the paper (Section 5).
:func:`compare` adds the Wilcoxon signed-rank marks and ranks of Table 1.

Reproducibility: replication ``r`` is driven by ``SeedSequence(seed).spawn(reps)[r]``. Its first
child draws the data (the sample, or the train/test split), the same for every arm, so methods
are compared on paired data; its second child seeds the privacy noise of each grid point, keyed by
a hash of the method, its parameters and the grid point (less the arm's ``shared_noise``
parameters). Results therefore do not depend on the order of the tasks, on ``n_jobs``, on the
joblib backend, or on which other arms are run.

Parallelism: one task per (replication, data set), dispatched by joblib: its arms share one data
draw (read-only arrays) and masks, and arms with ``shared_noise`` reuse their public trees across
grid points. Any joblib backend works; on a cluster run the same call inside
``with joblib.parallel_config(backend="dask"):`` (install the ``dask`` extra). Finished
(arm, replication) results are cached on disk under a hash of everything that determines them
(``cache_dir``), so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
from scipy import stats
from tqdm.auto import tqdm

from .._config import check_budget, check_rows, get_config
from .._validation import check_int
from ..datasets import PAPER_Y_BOUND, make_paper_regression, paper_regression_function
from ..masks import decade_mask, gamma_mask
from ..partition import reuse_trees
from .runtime import check_n_jobs, fitted, read_only

__all__ = ["Arm", "Mask", "SplitData", "SyntheticData", "best_over_grid", "compare", "run"]

# Bump when a change alters what a cached task would compute.
CACHE_VERSION = 1
# Columns the runner writes; labels of an arm must not reuse them.
RESERVED = ("arm", "method", "config_id", "config", "rep", "mse")


def _canonical(obj):
    """JSON text that is the same for equal specifications (keys sorted, numpy -> Python)."""

    def default(value):
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, (tuple, set, np.ndarray)):
            return list(value)
        if isinstance(value, type):
            return f"{value.__module__}.{value.__qualname__}"
        raise TypeError(f"cannot describe {value!r} in an experiment key")

    return json.dumps(obj, sort_keys=True, default=default, separators=(",", ":"))


def _digest(obj):
    return hashlib.sha256(_canonical(obj).encode()).hexdigest()


# ----------------------------------------------------------------------------------------------
# Data and masks
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SyntheticData:
    """The simulation of Section 5.1: ``n`` training users and a fresh test sample.

    The metric is the MSE against the regression function f* on ``n_test`` fresh points (the
    excess risk the theory bounds; the MSE on noisy test labels adds the noise variance, 1).
    The public label bound is :data:`ldpviz.datasets.PAPER_Y_BOUND`.
    """

    n: int
    n_test: int = 2000

    def __post_init__(self):  # refuse sizes before any replication is scheduled
        check_rows("SyntheticData", check_int(self.n, "n", 1), 72)
        check_rows("SyntheticData", check_int(self.n_test, "n_test", 1), 56, param="n_test")

    @property
    def y_bound(self):
        return PAPER_Y_BOUND

    def key(self):
        return {"kind": "synthetic", "n": self.n, "n_test": self.n_test}

    def split(self, rng):
        """(X_train, y_train, X_test, target_test) drawn from ``rng``."""
        X, y = make_paper_regression(self.n, random_state=rng)
        X_test = rng.random((self.n_test, X.shape[1]))
        return X, y, X_test, paper_regression_function(X_test)


@dataclass(frozen=True, eq=False)
class SplitData:
    """Random train/test splits of a fixed dataset (the real-data protocol of Section 5.2).

    Features must already lie in [0, 1]. Labels are centred on the middle of the public range
    ``y_range``, so the public bound is ``M = (hi - lo) / 2`` (the estimators clip to [-M, M]);
    the MSE does not change under this shift.

    Parameters
    ----------
    X : (n, d) array in [0, 1]; y : (n,) array.
    y_range : (lo, hi), a public range of the label (never read off the data here).
    test_size : float in (0, 1), default=0.3
        Share of rows held out for testing in each replication.
    name : str, a label used in the cache key and in error messages.
    """

    X: np.ndarray
    y: np.ndarray
    y_range: tuple
    test_size: float = 0.3
    name: str = "data"

    def __post_init__(self):
        X, y = np.asarray(self.X, dtype=float), np.asarray(self.y, dtype=float)
        if X.ndim != 2 or y.shape != (X.shape[0],):
            raise ValueError(f"X must be 2-D and y have one entry per row of X, got shapes "
                             f"{X.shape} and {y.shape}.")
        if not 0 < self.test_size < 1 or round(self.test_size * len(y)) < 1 \
                or len(y) - round(self.test_size * len(y)) < 2:
            raise ValueError(f"test_size must leave at least 1 test and 2 training rows, got "
                             f"{self.test_size!r} with {len(y)} rows.")
        lo, hi = (float(v) for v in self.y_range)
        if not hi > lo:
            raise ValueError(f"y_range must be (lo, hi) with lo < hi, got {self.y_range!r}.")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "y_range", (lo, hi))

    @property
    def y_bound(self):
        return (self.y_range[1] - self.y_range[0]) / 2

    @cached_property
    def _fingerprint(self):
        h = hashlib.sha256(np.ascontiguousarray(self.X).tobytes())
        h.update(np.ascontiguousarray(self.y).tobytes())
        return h.hexdigest()

    def key(self):
        return {"kind": "split", "name": self.name, "data": self._fingerprint,
                "y_range": self.y_range, "test_size": self.test_size}

    def split(self, rng):
        """(X_train, y_train, X_test, y_test), labels centred on the public range."""
        n = len(self.y)
        order = rng.permutation(n)
        n_test = round(self.test_size * n)
        test, train = order[:n_test], order[n_test:]
        centre = (self.y_range[0] + self.y_range[1]) / 2
        return self.X[train], self.y[train] - centre, self.X[test], self.y[test] - centre


@dataclass(frozen=True)
class Mask:
    """How the n x d privacy mask W is built for a training sample (1 = protected).

    kind : {"aligned", "decade", "gamma"}
        "aligned": the ``s_star`` most sensitive features are protected by everyone (Section
        5.2). "decade": the personalized paradigm of Section 5.2,
        ``W[i, l] = 1 iff i <= n / 10**floor(l / s_star)`` with l the rank of the feature
        (:func:`ldpviz.masks.decade_mask`, 0-based l). "gamma": ``W_gamma`` of Section 5.1
        (:func:`ldpviz.masks.gamma_mask`).
    order : tuple of int or None
        Features from most to least sensitive; None is column order.

    Rows follow the training sample's order, which is random (a fresh sample or a random split),
    so the users who protect more are a random subset, as Section 3.1 assumes.
    """

    kind: str
    s_star: int = 0
    gamma: float = 1.0
    order: tuple | None = None

    def build(self, n, d):
        order = np.arange(d) if self.order is None else np.asarray(self.order, dtype=int)
        if sorted(order.tolist()) != list(range(d)):
            raise ValueError(f"order must be a permutation of 0..{d - 1}, got {self.order!r}.")
        if self.kind == "aligned":
            ranked = np.zeros((n, d), dtype=bool)
            ranked[:, :check_int(self.s_star, "s_star", 0, d)] = True
        elif self.kind == "decade":
            ranked = decade_mask(n, d, self.s_star)
        elif self.kind == "gamma":
            ranked = gamma_mask(n, d, self.gamma)
        else:
            raise ValueError(f"kind must be 'aligned', 'decade' or 'gamma', got {self.kind!r}.")
        W = np.empty_like(ranked)
        W[:, order] = ranked  # column k of the ranked mask belongs to feature order[k]
        return W


@dataclass
class Arm:
    """One method in one setting, tuned over a grid.

    Parameters
    ----------
    method : str
        Display name ("HistOfTree ME", "ParDT", ...).
    estimator : class
        A regressor with ``fit(X, y[, W=...])`` and ``predict(X)``. If its constructor takes
        ``y_bound`` (and ``params`` does not set it), the data's public bound is passed; if it
        takes ``random_state``, a Generator seeded as described in the module docstring is.
    data : SyntheticData or SplitData (anything with ``key()``, ``split(rng)``, ``y_bound``).
    labels : dict
        Columns that describe the setting in the results (epsilon, s_star, paradigm, ...).
    params : dict
        Fixed constructor parameters.
    grid : dict of sequences
        Tuned parameters; every combination is fitted (in the order given).
    mask : Mask or None
        The privacy mask passed to ``fit`` as ``W`` (None: not passed).
    shared_noise : tuple of str
        Parameters (fixed or tuned) left out of the key of the privacy noise: in a
        replication, grid points, and arms of the same method, that differ only in these see
        the same noise stream (common random numbers). Each grid point is still a run of its
        method with fresh noise; only the runs of one replication are correlated, which makes
        the comparison of grid points more precise and the best over the grid less optimistic.
        HistOfTree with ``("depth", "t")`` draws each user's label noise once per
        (replication, rho) for the whole (depth, t) grid: one deployment's release for every
        t >= 2 (its trees are then grown once and reused, :func:`ldpviz.partition.reuse_trees`);
        at t = 1 users whose cell is public spend all of epsilon on the label, so the same draw
        is released at a smaller scale.
    """

    method: str
    estimator: type
    data: object
    labels: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    grid: dict = field(default_factory=dict)
    mask: Mask | None = None
    shared_noise: tuple = ()

    def configs(self):
        names = list(self.grid)
        return [dict(zip(names, values, strict=True))
                for values in itertools.product(*(self.grid[k] for k in names))]

    def key(self):
        """Everything that determines this arm's numbers (labels excluded: they only name)."""
        key = {"method": self.method, "estimator": self.estimator, "params": self.params,
               "grid": self.grid, "mask": None if self.mask is None else vars(self.mask),
               "data": self.data.key()}
        if self.shared_noise:  # absent otherwise, so earlier cache entries stay valid
            key["shared_noise"] = sorted(self.shared_noise)
        return key

    def noise_key(self, config):
        """What seeds the privacy noise of one grid point (see ``shared_noise``)."""
        def own(values):
            return {k: v for k, v in values.items() if k not in self.shared_noise}

        return [self.method, own(self.params), own(config)]


#: Bookkeeping and result bytes per (arm, replication) and per result row (grid point),
#: measured with tracemalloc: reps = 10**9 used to fill 24 GB before the first fit.
ARM_REP_BYTES, ROW_BYTES = 1000, 600


def _check_arms(arms):
    arms = list(arms)
    if not arms:
        raise ValueError("arms must contain at least one Arm.")
    for arm in arms:
        if not isinstance(arm, Arm):
            raise ValueError(f"arms must be Arm objects, got {type(arm).__name__}.")
        clash = (set(arm.labels) & set(RESERVED)) | (set(arm.labels) & set(arm.grid))
        if clash:
            raise ValueError(f"arm {arm.method!r}: labels {sorted(clash)} clash with the grid "
                             f"or with the columns {RESERVED}.")
        if not all(len(v) for v in arm.grid.values()):
            raise ValueError(f"arm {arm.method!r}: every grid entry needs at least one value.")
        if isinstance(arm.shared_noise, str) or not all(
                isinstance(k, str) for k in arm.shared_noise):
            raise ValueError(f"arm {arm.method!r}: shared_noise must be a tuple of parameter "
                             f"names, got {arm.shared_noise!r}.")
    return arms


# ----------------------------------------------------------------------------------------------
# One task: one arm on one replication, every grid point
# ----------------------------------------------------------------------------------------------
def _stream(seq, key):
    """A child of ``seq`` addressed by ``key`` (stable across runs, independent of order)."""
    word = int(_digest(key)[:16], 16)
    return np.random.default_rng(np.random.SeedSequence(seq.entropy,
                                                        spawn_key=(*seq.spawn_key, word)))


def _run_group(arms, rep, seed):
    """Every grid point of ``arms`` (which see the same data) on replication ``rep``.

    Returns one list of (config_id, mse) per arm. The data are drawn once and shared, as are
    the masks; arms with ``shared_noise`` reuse their public trees across grid points.
    """
    # SeedSequence(seed, spawn_key=(rep,)) is SeedSequence(seed).spawn(reps)[rep].
    data_seq, noise_seq = np.random.SeedSequence(seed, spawn_key=(rep,)).spawn(2)
    X, y, X_test, target = (read_only(a) for a in
                            arms[0].data.split(np.random.default_rng(data_seq)))
    masks, memo, out = {}, None, []
    for arm in arms:
        W = None
        if arm.mask is not None:
            key = _canonical(vars(arm.mask))  # also for an order given as a list
            if key not in masks:
                masks[key] = read_only(arm.mask.build(*X.shape))
            W = masks[key]
        if arm.shared_noise:
            with reuse_trees(memo) as memo:
                out.append(_fit_grid(arm, X, y, X_test, target, W, noise_seq))
        else:
            out.append(_fit_grid(arm, X, y, X_test, target, W, noise_seq))
    return out


def _fit_grid(arm, X, y, X_test, target, W, noise_seq):
    """Fit every grid point of ``arm``: a list of (config_id, mse)."""
    out = []
    for config_id, config in enumerate(arm.configs()):
        model = fitted(arm, config, X, y, W,
                       lambda config=config: _stream(noise_seq, arm.noise_key(config)))
        error = float(np.mean((np.asarray(model.predict(X_test)) - target) ** 2))
        out.append((config_id, error))
    return out


def _run_task(arm, rep, seed):
    """Fit every grid point of ``arm`` on replication ``rep``: a list of (config_id, mse)."""
    return _run_group([arm], rep, seed)[0]


def _cache_path(cache_dir, arm, rep, seed):
    key = _digest({"version": CACHE_VERSION, "seed": seed, "rep": rep, "arm": arm.key()})
    return Path(cache_dir) / key[:2] / f"{key}.json"


def _read_cache(path):
    try:
        return [tuple(row) for row in json.loads(path.read_text())]
    except (OSError, ValueError):
        return None  # missing or half-written: compute again


def _write_cache(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as handle:
        json.dump(rows, handle)
    os.replace(tmp, path)  # atomic: a crash never leaves a truncated entry


def check_cache_dir(cache_dir):
    """``cache_dir`` as a Path (None: no cache), refusing an existing file."""
    if cache_dir is None:
        return None
    if not isinstance(cache_dir, (str, os.PathLike)) or not str(cache_dir):
        raise ValueError(f"cache_dir must be a folder path or None, got {cache_dir!r}.")
    if Path(cache_dir).exists() and not Path(cache_dir).is_dir():
        raise ValueError(f"cache_dir {str(cache_dir)!r} is a file, not a folder.")
    return Path(cache_dir)


def run(arms, reps=50, seed=0, n_jobs=None, progress=True, cache_dir=None):
    """Fit every grid point of every arm on ``reps`` replications; return a tidy DataFrame.

    Parameters
    ----------
    arms : list of Arm
    reps : int, default=50
        Replications (the paper uses 50). Refused before anything runs when the results and
        their bookkeeping (about 1 kB per arm and replication, 600 B per grid point) would
        exceed the ``max_bytes`` budget (:func:`ldpviz.set_config`).
    seed : int, default=0
        Root of all randomness (see the module docstring).
    n_jobs : int or None
        joblib's ``n_jobs``; None uses joblib's default (1, or what ``parallel_config`` sets,
        e.g. every Dask worker). With local workers at most the machine's cores
        (:func:`check_n_jobs`); 0 is refused.
    progress : bool, default=True
        Show a tqdm progress bar (a widget in notebooks, text in terminals).
    cache_dir : str, Path or None
        Folder of per-(arm, replication) results; a rerun reads them instead of fitting.
        None disables the cache.

    Returns
    -------
    pandas.DataFrame
        One row per (arm, grid point, replication): ``arm`` (index in ``arms``), ``method``,
        the arm's labels, ``config_id`` (index in the grid), ``config`` (JSON of the grid
        point), one column per grid parameter, ``rep``, ``mse``. Rows are sorted by arm, grid
        point and replication. ``attrs`` holds ``n_computed``, ``n_cached`` and
        ``wall_seconds`` (kept out of the columns so the same seed gives an identical frame).
    """
    arms = _check_arms(arms)
    reps = check_int(reps, "reps", 1)
    seed = check_int(seed, "seed", 0)
    n_jobs = check_n_jobs(n_jobs)
    cache_dir = check_cache_dir(cache_dir)
    per_rep = sum(ROW_BYTES * len(arm.configs()) + ARM_REP_BYTES for arm in arms)
    check_budget("run", "reps", reps, {"max_bytes": reps * per_rep},
                 fits=get_config()["max_bytes"] // per_rep)
    if not isinstance(progress, bool):
        raise ValueError(f"progress must be True or False, got {progress!r}.")
    start = time.perf_counter()
    results, todo = {}, []
    for i, arm in enumerate(arms):
        for rep in range(reps):
            hit = _read_cache(_cache_path(cache_dir, arm, rep, seed)) if cache_dir else None
            if hit is not None:
                results[i, rep] = hit
            else:
                todo.append((i, rep))
    n_cached = len(results)
    # One task per (replication, data set): its arms share the data draw (and trees).
    groups = {}
    for i, rep in todo:
        groups.setdefault((rep, _canonical(arms[i].data.key())), []).append(i)
    with tqdm(total=len(arms) * reps, initial=n_cached, disable=not progress,
              desc="fits (arm x replication)") as bar:
        if groups:
            parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered")
            tasks = (joblib.delayed(_indexed)(members, rep, [arms[i] for i in members], seed)
                     for (rep, _), members in groups.items())
            for members, rep, rows_per_arm in parallel(tasks):
                for i, rows in zip(members, rows_per_arm, strict=True):
                    results[i, rep] = rows
                    if cache_dir:
                        _write_cache(_cache_path(cache_dir, arms[i], rep, seed), rows)
                bar.update(len(members))
    frame = _assemble(arms, reps, results)
    frame.attrs.update(n_computed=len(todo), n_cached=n_cached,
                       wall_seconds=time.perf_counter() - start)
    return frame


def _indexed(members, rep, arms, seed):
    return members, rep, _run_group(arms, rep, seed)


def _assemble(arms, reps, results):
    records = []
    for i, arm in enumerate(arms):
        configs = arm.configs()
        for config_id, config in enumerate(configs):
            text = _canonical(config)
            for rep in range(reps):
                cid, error = results[i, rep][config_id]
                assert cid == config_id
                records.append({"arm": i, "method": arm.method, **arm.labels,
                                "config_id": config_id, "config": text, **config,
                                "rep": rep, "mse": error})
    return pd.DataFrame.from_records(records)


# ----------------------------------------------------------------------------------------------
# Summaries: best over the grid, Wilcoxon marks, ranks
# ----------------------------------------------------------------------------------------------
def best_over_grid(results, metric="mse"):
    """Per arm, the rows of the grid point with the lowest mean ``metric`` over replications.

    This is the paper's protocol (Section 5): "the best result over its parameter grids, with
    the best result determined based on the average" of the replications. Ties go to the first
    grid point.
    """
    means = results.groupby(["arm", "config_id"])[metric].mean()
    best = set(means.groupby(level="arm").idxmin())
    keep = [pair in best for pair in zip(results["arm"], results["config_id"], strict=True)]
    return results[keep].reset_index(drop=True)


def compare(best, groups, metric="mse", alpha=0.05, method="method", pair="rep"):
    """Table 1's marks: mean, rank, best and significance per method within each group.

    Parameters
    ----------
    best : DataFrame
        One row per (group, method, replication), e.g. from :func:`best_over_grid`.
    groups : list of str
        Columns that define a comparison (e.g. ``["dataset", "paradigm"]``).
    metric : str
        Lower is better. Replications are paired by the ``pair`` column.
    alpha : float, default=0.05
        Level of the one-sided Wilcoxon signed-rank tests (scipy.stats.wilcoxon).

    Returns
    -------
    DataFrame
        One row per (group, method): ``mean``, ``se``, ``rank`` (1 = lowest mean; ties share
        the average rank), ``best`` (lowest mean) and ``significant``: the best method beats
        every other in its group by a Wilcoxon signed-rank test at level ``alpha`` (Table 1's
        star). Rank sums: ``summary.groupby([..., method])["rank"].sum()``.
    """
    rows = []
    for key, group in best.groupby(list(groups), sort=True):
        wide = group.pivot_table(index=pair, columns=method, values=metric)
        if wide.isna().any().any():
            raise ValueError(f"group {key}: methods were not run on the same replications.")
        if 0.5 ** len(wide) >= alpha:  # smallest possible one-sided signed-rank p-value
            warnings.warn(f"group {key}: with {len(wide)} replications no Wilcoxon test can "
                          f"reach level {alpha}; 'significant' will be False everywhere.",
                          UserWarning, stacklevel=2)
        means = wide.mean()
        ranks = means.rank(method="average")
        winner = means.idxmin()
        significant = len(means) > 1 and all(
            _wilcoxon_less(wide[winner], wide[other]) < alpha
            for other in wide.columns if other != winner)
        key = key if isinstance(key, tuple) else (key,)
        for name in wide.columns:
            rows.append({**dict(zip(groups, key, strict=True)), method: name,
                         "mean": means[name],
                         "se": wide[name].std(ddof=1) / np.sqrt(len(wide)) if len(wide) > 1
                         else np.nan,
                         "rank": ranks[name], "best": name == winner,
                         "significant": bool(name == winner and significant)})
    return pd.DataFrame(rows)


def _wilcoxon_less(x, y):
    """p-value of the one-sided signed-rank test that x tends to be below y (paired)."""
    diff = np.asarray(x) - np.asarray(y)
    if np.all(diff == 0):
        return 1.0
    return float(stats.wilcoxon(diff, alternative="less").pvalue)

