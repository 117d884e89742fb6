"""The runs behind the reproduction report: every figure and table of the HistOfTree paper that
ldpviz reproduces (Figure 2 (a)-(d), Tables 1-3, Table 1 under each label-range policy) and the
BCDP paper's Figure 3 setting, with their settings, times and what was missing.

:func:`run_reproduction` executes a :class:`Plan` (:data:`FULL` or :data:`QUICK`) and returns a
:class:`Reproduction`; :mod:`ldpviz.reproduce.reproduction_report` turns it into one HTML page.

Budget. The full plan must finish in 15 minutes on two cores. Measured on the 2-core
development machine (CPU seconds per replication, every grid of Appendix C.1): Figure 2
(a) 6, (b) 4, (c) 1, (d) 6; one table on the four local datasets 8.5. Fifty replications
everywhere would take about 2,900 CPU-seconds (24 minutes on two free cores), so the full plan
runs 30 replications of Figure 2 and 15 random splits per table (about 1,100 CPU-seconds); the
page states the replications used. Measured (``benchmarks/bench_report.py --full --n-jobs 2``):
1,094 CPU-seconds, so about 9 minutes on two free cores; 42 minutes of wall time while other
jobs kept the load of the 2-core machine near 9 (Figure 2 (a)-(d) 578, 381, 94, 328 s; Tables
1-3 709, 190, 245 s). ``--quick`` shrinks the samples and grids to test the
pipeline in well under 2 minutes: its numbers are not a reproduction, and the page says so.
"""

from __future__ import annotations

import inspect
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validation import PrivacyWarning
from ..datasets import LABEL_RANGE_POLICIES, label_range_sources, load_uci
from ..estimators import HistOfTree
from . import paper

__all__ = ["FULL", "QUICK", "Plan", "Reproduction", "run_reproduction"]

#: The correlations of the BCDP Figure 3 sweep.
BCDP_QS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0)


@dataclass(frozen=True)
class Plan:
    """What to run.

    figure_reps, table_reps : replications of Figure 2 and random splits of the tables.
    figures : panel -> keyword overrides of its arm builder (:data:`paper.FIGURES`).
    tables : table names; table1_policies : the label-range policies of Table 1 (the other
        tables use "declared").
    table_grids : replacement grids for :func:`paper.table` (None: Appendix C.1's).
    datasets : UCI names.
    bcdp : keyword arguments of :func:`ldpviz.bcdp.sweep_q` ({} leaves it out).
    cell_estimate : the cell estimate of every HistOfTree-family arm ("paper": eq (9) as
        printed, the estimator being reproduced; None: each estimator's default).
    """

    name: str
    figure_reps: int
    table_reps: int
    figures: dict = field(default_factory=lambda: {name: {} for name in paper.FIGURES})
    tables: tuple = tuple(paper.TABLE_EPSILON)
    table1_policies: tuple = tuple(LABEL_RANGE_POLICIES)
    table_grids: dict | None = None
    datasets: tuple = paper.TABLE_DATASETS
    bcdp: dict = field(default_factory=lambda: {"qs": BCDP_QS, "n": 10_000, "reps": 20})
    cell_estimate: str | None = "paper"

    def replace(self, **changes):
        """The same plan with ``changes``."""
        return Plan(**{**vars(self), **changes})

    def with_reps(self, reps):
        """The same plan with ``reps`` replications and splits everywhere."""
        return self.replace(figure_reps=reps, table_reps=reps)


FULL = Plan("full", figure_reps=30, table_reps=15)

_SMALL_HOT = {"rho": (0.5,), "depth": (1, 2, 4), "t": (1, 2)}
_SMALL_TREE = {"max_depth": (2, 4), "min_samples_leaf": (10,)}
QUICK = Plan(
    "quick", figure_reps=2, table_reps=2,
    figures={
        "fig2a": {"n": 2000, "epsilons": (1, 4, 1024), "hot_grid": _SMALL_HOT,
                  "tree_grid": _SMALL_TREE, "hist_grid": {"t": (1, 2), "zeta": (0.05,)},
                  "hot0_grid": {"depth": (1, 2, 4)}},
        "fig2b": {"ns": (500, 2000), "hot_grid": _SMALL_HOT},
        "fig2c": {"n": 2000, "ts": (1, 2, 3), "depths": (0, 1, 2, 4, 6),
                  "grid": {"rho": (0.5,)}},
        "fig2d": {"n": 2000, "gammas": (0.5, 2.0), "hot_grid": _SMALL_HOT,
                  "adhot_grid": {"rho": (0.5,), "c": (0.01, 0.1), "t_offset": (0,)}},
    },
    table_grids={"hot": _SMALL_HOT, "hot0": {"depth": (1, 2)},
                 "adhot": {"rho": (0.5,), "c": (0.1,), "t_offset": (0,)},
                 "hist": {"t": (1, 2), "zeta": (0.05,)}, "tree": _SMALL_TREE,
                 "krr": {"k": (2,), **_SMALL_TREE}},
    bcdp={"qs": (0.0, 0.1, 0.5, 1.0), "n": 2000, "reps": 3},
)


@dataclass
class Reproduction:
    """What :func:`run_reproduction` measured.

    figures : panel -> dict with "results" (every grid point), "best" (best over the grid),
        "seconds", "reps", "cell_estimate".
    tables : table -> dict with "best", "summary" (None when no data), "seconds", "reps",
        "policies", "missing" (dataset -> why it was not run), "ranges" (rows: dataset,
        policy, range, source, leaks).
    bcdp : the :func:`ldpviz.bcdp.sweep_q` table and its settings and time.
    """

    plan: Plan
    seed: int
    n_jobs: int
    figures: dict = field(default_factory=dict)
    tables: dict = field(default_factory=dict)
    bcdp: dict = field(default_factory=dict)
    seconds: float = 0.0


def _estimate_of(estimator, params, grid=None):
    """The cell estimates one arm uses: its grid's, else its parameter, else the default."""
    if grid and "cell_estimate" in grid:
        return list(grid["cell_estimate"])
    return [params.get("cell_estimate",
                       estimator().get_params().get("cell_estimate", "paper"))]


def cell_estimate(arms):
    """The cell estimate of the HistOfTree arms (tuned in their grid, else their
    ``cell_estimate`` parameter, else the estimator's default; "paper", eq (9) as printed,
    where the estimator has no such parameter). Several values are joined by ", "."""
    found = []
    for arm in arms:
        if "HistOfTree" in arm.estimator.__name__:
            found += [v for v in _estimate_of(arm.estimator, arm.params, arm.grid)
                      if v not in found]
    return ", ".join(str(v) for v in found) or "(no HistOfTree)"


#: The arguments of each panel's arm builder that hold a HistOfTree-family grid.
_FIGURE_HOT_GRIDS = {"fig2a": ("hot_grid", "hot0_grid"), "fig2b": ("hot_grid",),
                     "fig2c": ("grid",), "fig2d": ("hot_grid", "adhot_grid")}
#: The same for the tables (keys of :func:`paper.realdata_arms`'s ``grids``).
_TABLE_HOT_GRIDS = {"hot": paper.HOT_GRID, "hot0": paper.HOT0_GRID, "adhot": paper.ADHOT_GRID}


def _pinned(grid, estimate):
    return grid if grid is None or estimate is None else {**grid, "cell_estimate": (estimate,)}


def _figure_overrides(name, overrides, estimate):
    """``overrides`` with ``estimate`` added to the panel's HistOfTree-family grids."""
    defaults = inspect.signature(paper.FIGURES[name][0]).parameters
    return {**overrides, **{arg: _pinned(overrides.get(arg, defaults[arg].default), estimate)
                            for arg in _FIGURE_HOT_GRIDS[name]}}


def table_grids(plan):
    """The grids the plan's tables run (None: Appendix C.1's), its cell estimate pinned."""
    grids = dict(plan.table_grids or {})
    if plan.cell_estimate is not None:
        grids.update({key: _pinned(grids.get(key, default), plan.cell_estimate)
                      for key, default in _TABLE_HOT_GRIDS.items()})
    return grids or None


def _figure(name, overrides, reps, seed, n_jobs, progress, cache_dir, estimate):
    start = time.perf_counter()
    pinned = _figure_overrides(name, overrides, estimate)
    arms = paper.FIGURES[name][0](**pinned)
    results, best = paper.figure2(name, reps=reps, seed=seed, n_jobs=n_jobs, progress=progress,
                                  cache_dir=cache_dir, **pinned)
    return {"results": results, "best": best, "seconds": time.perf_counter() - start,
            "reps": reps, "cell_estimate": cell_estimate(arms), "overrides": overrides}


def _available(datasets, data_home):
    """(names with a local copy, {name: why not}); an unknown name is a ValueError."""
    for name in datasets:
        label_range_sources(name)  # refuses unknown names before anything runs
    found, missing = [], {}
    for name in datasets:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PrivacyWarning)  # the page says what leaks
                load_uci(name, data_home=data_home, download=False)
        except OSError as exc:
            missing[name] = str(exc)
        else:
            found.append(name)
    return found, missing


def label_ranges(datasets, policies, data_home):
    """One row per (dataset, policy): the range, where it comes from, whether it leaks."""
    rows = []
    for name in datasets:
        for policy in policies:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PrivacyWarning)  # the page says it leaks
                bunch = load_uci(name, data_home=data_home, y_range=policy, download=False)
            rows.append({"dataset": bunch.paper_name, "policy": policy,
                         "range": f"({bunch.y_range[0]:g}, {bunch.y_range[1]:g})",
                         "labels": f"{bunch.y.min():g} to {bunch.y.max():g}",
                         "clipped": float(np.mean((bunch.y < bunch.y_range[0])
                                                  | (bunch.y > bunch.y_range[1]))),
                         "leaks": bunch.y_range_leaks, "source": bunch.y_range_source})
    return pd.DataFrame(rows)


def _table(name, plan, available, missing, seed, n_jobs, progress, cache_dir, data_home):
    policies = plan.table1_policies if name == "table1" else ("declared",)
    out = {"reps": plan.table_reps, "policies": policies, "missing": missing, "best": None,
           "summary": None, "seconds": 0.0, "ranges": None, "cell_estimate": None}
    if not available:
        return out
    start, grids = time.perf_counter(), table_grids(plan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)  # "private" is marked as leaking
        warnings.simplefilter("ignore", UserWarning)  # too few splits for a star: said
        best, summary = paper.table(name, reps=plan.table_reps, seed=seed, n_jobs=n_jobs,
                                    progress=progress, cache_dir=cache_dir,
                                    datasets=available, data_home=data_home,
                                    grids=grids, label_range=policies)
    out.update(best=best, summary=summary, seconds=time.perf_counter() - start,
               ranges=label_ranges(available, policies, data_home),
               cell_estimate=", ".join(_estimate_of(HistOfTree, paper._hot(),
                                                    (grids or {}).get("hot"))))
    return out


def run_reproduction(plan=FULL, seed=0, n_jobs=1, data_home=None, cache_dir=None,
                     progress=True, log=None):
    """Run every figure and table of ``plan``; return a :class:`Reproduction`.

    ``data_home`` is where the UCI copies are looked for (default $LDPVIZ_DATA, then
    ~/ldpviz_data); nothing is downloaded: a dataset without a local copy is reported as
    missing in its tables. ``cache_dir`` makes an interrupted run resume (the runner's cache).
    ``log`` (e.g. ``print``) receives one line per finished part.
    """
    from ..bcdp import sweep_q

    say = log or (lambda text: None)
    start = time.perf_counter()
    available, missing = _available(plan.datasets, data_home)
    rep = Reproduction(plan=plan, seed=seed, n_jobs=n_jobs)
    for name, overrides in plan.figures.items():
        rep.figures[name] = _figure(name, overrides, plan.figure_reps, seed, n_jobs, progress,
                                    cache_dir, plan.cell_estimate)
        say(f"{name}: {rep.figures[name]['seconds']:.0f} s")
    for name in plan.tables:
        rep.tables[name] = _table(name, plan, available, missing, seed, n_jobs, progress,
                                  cache_dir, data_home)
        say(f"{name}: {rep.tables[name]['seconds']:.0f} s"
            + (f" ({len(missing)} dataset(s) missing)" if missing else ""))
    if plan.bcdp:  # {} leaves it out
        t0 = time.perf_counter()
        settings = dict(plan.bcdp)
        qs = settings.pop("qs")
        rep.bcdp = {"table": sweep_q(qs, random_state=seed, **settings), "qs": qs, **settings}
        rep.bcdp["seconds"] = time.perf_counter() - t0
        say(f"BCDP Figure 3: {rep.bcdp['seconds']:.0f} s")
    rep.seconds = time.perf_counter() - start
    return rep
