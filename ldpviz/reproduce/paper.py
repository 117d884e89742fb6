"""The paper's experiments as :mod:`ldpviz.reproduce.experiments` specifications: Figure 2 and
Tables 1-3.

Grids (Appendix C.1 of the HistOfTree paper):

* HistOfTree: ``rho`` in {0.5, 0.7, 0.9}, depth p in {1, 2, 4, 6}, bins t in {1, 2, 3}; GRR
  cell reports; s = s* (the features every user protects).
* AdHistOfTree: c in {0.01, 0.1, 1}, t in {t*-1, t*, t*+1}; ``rho`` as for HistOfTree (C.1 does
  not say; the protocol is HistOfTree's).
* Hist: t in {1, 2, 3, 4}, zeta in {0.01, 0.05} (on the density scale, see
  :class:`ldpviz.baselines.Hist`).
* ParDT, LabelDT, DT: max_depth in {1, 2, 4, 6, 8}, min_samples_leaf in {1, 10, 100}; KRR also
  k in {2, 3, 4, 5}.

Figure 2 (Section 5.1) does not state its axes or grids; the choices here are:

* every HistOfTree / AdHistOfTree point is tuned over Appendix C.1's full grid: (p, t) or
  (c, t_offset), and ``rho`` in {0.5, 0.7, 0.9}; the max-edge rule (Algorithm 1, the estimator
  the theory is about). Within a replication, a HistOfTree arm releases each user's label once
  per ``rho`` and uses that release for its whole (p, t) grid (AdHistOfTree: its (c, t_offset)
  grid), as one deployment of the protocol would: ``Arm.shared_noise``. Every grid point is
  still a run of the protocol with fresh noise; the runs of one replication are correlated,
  which makes the best over the grid less optimistic, not more, and lets the runner grow each
  public tree once and cut it at every depth (:func:`ldpviz.partition.reuse_trees`).
* (a) n = 10,000, epsilon in {1, 2, 4, 8, 1024} (1024 stands for no privacy, as in the
  paper), aligned s* = 1..4, with LabelDT ("label LDP", s* = 0) and Hist ("LDP", s* = 5).
* (b) epsilon = 4, n in {500, 1000, 2000, 5000, 10000, 20000}, aligned s* = 1..4.
* (c) n = 10,000, epsilon = 4, aligned s* = 2, t in {1, 2, 3, 4} against p in {0, ..., 8}
  (p and t are the axes; only rho is tuned).
* (d) n = 10,000, epsilon = 4, W_gamma with gamma in {0.25, 0.5, 1, 1.5, 2, 3}: HistOfTree with
  s = 1, 2, 3 and AdHistOfTree.

The metric on simulated data is the MSE against f* on 2,000 fresh points (the excess risk; the
paper's MSE on noisy labels is this plus the noise variance 1).

Real data (Section 5.2, Tables 1-3): 50 random 70/30 train/test splits (the paper does not state
its ratio); labels centred on a public range (:func:`ldpviz.datasets.load_uci`); the first
s* = ceil(log sqrt d) features of the sensitivity ranking are private (aligned), or protected by
``n / 10**floor(l / s*)`` users (personalized); each method's best grid point on the mean; the
ratio is its mean MSE over the splits divided by the mean MSE of the best non-private decision
tree (DT) fitted on the whole training set.

Measured on the 2-core development machine (``n_jobs=2``, 50 replications): the full Figure 2
with the full rho grid used 860 CPU-seconds, about 7 minutes on two free cores (1554 s = 26 min
of wall time while other jobs shared the cores: 620 + 403 + 87 + 446 s for panels a-d;
``benchmarks/bench_figure2.py``); about 60% of it is HistOfTree's cell reports. Table 1 on the
four local datasets took 266 s on an idle machine and 802 s while other jobs shared the cores.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..baselines import DT, KRR, Hist, LabelDT, ParDT
from ..datasets import load_uci
from ..estimators import AdHistOfTree, HistOfTree
from ..viz import plots
from .experiments import Arm, Mask, SplitData, SyntheticData, best_over_grid, compare, run

# Appendix C.1 grids.
HOT_GRID = {"rho": (0.5, 0.7, 0.9), "depth": (1, 2, 4, 6), "t": (1, 2, 3)}
ADHOT_GRID = {"rho": (0.5, 0.7, 0.9), "c": (0.01, 0.1, 1.0), "t_offset": (-1, 0, 1)}
HIST_GRID = {"t": (1, 2, 3, 4), "zeta": (0.01, 0.05)}
TREE_GRID = {"max_depth": (1, 2, 4, 6, 8), "min_samples_leaf": (1, 10, 100)}
KRR_GRID = {"k": (2, 3, 4, 5), **TREE_GRID}
# Figure 2: the same grids (module docstring).
FIG2_RHO = {"rho": HOT_GRID["rho"]}
FIG2_HOT_GRID = HOT_GRID
FIG2_ADHOT_GRID = ADHOT_GRID
# Parameters whose grid points share one label release per (replication, rho) in Figure 2.
HOT_SHARED = ("depth", "t")
ADHOT_SHARED = ("c", "t_offset")

FIG2A_EPSILONS = (1, 2, 4, 8, 1024)
FIG2B_NS = (500, 1000, 2000, 5000, 10_000, 20_000)
FIG2C_TS = (1, 2, 3, 4)
FIG2C_DEPTHS = tuple(range(9))
FIG2D_GAMMAS = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0)
TABLE_EPSILON = {"table1": 2, "table2": 1, "table3": 4}
#: The four datasets with local copies (/work/shared/data); "qsar-fish" can be added.
TABLE_DATASETS = ("abalone", "qsar-aquatic", "wine-red", "wine-white")
ALIGNED_METHODS = ("HistOfTree ME", "HistOfTree CART", "ParDT", "Hist", "KRR")
PERSONALIZED_METHODS = ("HistOfTree ME", "HistOfTree CART", "AdHistOfTree ME",
                        "AdHistOfTree CART", "ParDT", "Hist", "KRR")
REFERENCE = "DT"


def _hot(rule="max-edge", **params):
    return {"rule": rule, "mechanism": "grr", **params}


# ----------------------------------------------------------------------------------------------
# Figure 2
# ----------------------------------------------------------------------------------------------
def _shared(flag, names):
    return names if flag else ()


def fig2a_arms(n=10_000, epsilons=FIG2A_EPSILONS, s_stars=(1, 2, 3, 4), hot_grid=FIG2_HOT_GRID,
               tree_grid=TREE_GRID, hist_grid=HIST_GRID, n_test=2000, shared_noise=True):
    """Privacy-utility trade-off: MSE against epsilon for each number of private features.

    ``shared_noise``: one label release per (replication, rho) for HistOfTree's (p, t) grid
    (module docstring); False gives every grid point its own noise (slower, same law).
    """
    data, d = SyntheticData(n, n_test), 5
    arms = []
    for eps in epsilons:
        for s in s_stars:
            arms.append(Arm("HistOfTree", HistOfTree, data,
                            {"epsilon": eps, "s_star": s, "series": f"HistOfTree s*={s}"},
                            _hot(epsilon=eps, s=s), hot_grid, Mask("aligned", s),
                            _shared(shared_noise, HOT_SHARED)))
        arms.append(Arm("LabelDT", LabelDT, data,
                        {"epsilon": eps, "s_star": 0, "series": "label LDP (LabelDT)"},
                        {"epsilon": eps}, tree_grid))
        arms.append(Arm("Hist", Hist, data,
                        {"epsilon": eps, "s_star": d, "series": "LDP (Hist)"},
                        {"epsilon": eps}, hist_grid))
    return arms


def fig2b_arms(ns=FIG2B_NS, epsilon=4, s_stars=(1, 2, 3, 4), hot_grid=FIG2_HOT_GRID,
               n_test=2000, shared_noise=True):
    """Consistency: MSE against n for each number of private features (``shared_noise``: as
    in :func:`fig2a_arms`)."""
    return [Arm("HistOfTree", HistOfTree, SyntheticData(n, n_test),
                {"n": n, "epsilon": epsilon, "s_star": s, "series": f"HistOfTree s*={s}"},
                _hot(epsilon=epsilon, s=s), hot_grid, Mask("aligned", s),
                _shared(shared_noise, HOT_SHARED))
            for n in ns for s in s_stars]


def fig2c_arms(n=10_000, epsilon=4, s_star=2, ts=FIG2C_TS, depths=FIG2C_DEPTHS, grid=FIG2_RHO,
               n_test=2000, shared_noise=True):
    """Parameter analysis: MSE against the depth p for each number of bins t (``shared_noise``:
    the (p, t) arms of a replication share one label release per rho, as in
    :func:`fig2a_arms`)."""
    data = SyntheticData(n, n_test)
    return [Arm("HistOfTree", HistOfTree, data,
                {"p": p, "series": f"t={t}", "epsilon": epsilon, "s_star": s_star},
                _hot(epsilon=epsilon, s=s_star, t=t, depth=p), grid,
                Mask("aligned", s_star), _shared(shared_noise, HOT_SHARED))
            for t in ts for p in depths]


def fig2d_arms(n=10_000, epsilon=4, gammas=FIG2D_GAMMAS, ss=(1, 2, 3), hot_grid=FIG2_HOT_GRID,
               adhot_grid=FIG2_ADHOT_GRID, n_test=2000, shared_noise=True):
    """Selection of s: MSE against gamma (W_gamma) for fixed s and for AdHistOfTree
    (``shared_noise``: as in :func:`fig2a_arms`; AdHistOfTree shares over (c, t_offset))."""
    data = SyntheticData(n, n_test)
    arms = []
    for gamma in gammas:
        mask = Mask("gamma", gamma=gamma)
        for s in ss:
            arms.append(Arm("HistOfTree", HistOfTree, data,
                            {"gamma": gamma, "s": s, "series": f"HistOfTree s={s}",
                             "epsilon": epsilon},
                            _hot(epsilon=epsilon, s=s), hot_grid, mask,
                            _shared(shared_noise, HOT_SHARED)))
        arms.append(Arm("AdHistOfTree", AdHistOfTree, data,
                        {"gamma": gamma, "series": "adaptive (AdHistOfTree)",
                         "epsilon": epsilon},
                        _hot(epsilon=epsilon), adhot_grid, mask,
                        _shared(shared_noise, ADHOT_SHARED)))
    return arms


#: name -> (arm builder, x column, log x axis, title)
FIGURES = {
    "fig2a": (fig2a_arms, "epsilon", True, "(a) privacy-utility trade-off, n = 10,000"),
    "fig2b": (fig2b_arms, "n", True, "(b) consistency, epsilon = 4"),
    "fig2c": (fig2c_arms, "p", False, "(c) depth p and bins t, s* = 2, epsilon = 4"),
    "fig2d": (fig2d_arms, "gamma", False, "(d) selection of s under W_gamma, epsilon = 4"),
}


def figure2(name, reps=50, seed=0, n_jobs=None, progress=True, cache_dir=None, **overrides):
    """Run one panel of Figure 2; returns (all rows, best-over-grid rows).

    ``overrides`` are keyword arguments of the panel's arm builder (e.g. ``n=2000,
    epsilons=(1, 4)`` for :func:`fig2a_arms`), for quick runs and tests.
    """
    if name not in FIGURES:
        raise ValueError(f"name must be one of {sorted(FIGURES)}, got {name!r}.")
    builder = FIGURES[name][0]
    results = run(builder(**overrides), reps=reps, seed=seed, n_jobs=n_jobs, progress=progress,
                  cache_dir=cache_dir)
    return results, best_over_grid(results)


def plot_figure2(name, best):
    """The panel from best-over-grid rows (mean +- 2 SE per series), via plots.figure2_panel."""
    _, x, logx, title = FIGURES[name]
    return plots.figure2_panel(best, x=x, series="series", y="mse", logx=logx, logy=True,
                               title=title)


# ----------------------------------------------------------------------------------------------
# Real data: Tables 1-3 and the what-if analysis
# ----------------------------------------------------------------------------------------------
def realdata_arms(data, epsilon, s_star, order=None, labels=None, grids=None):
    """Every method of Table 1 on ``data`` at one epsilon, both paradigms.

    Hist ignores W, so one Hist arm (``paradigm="both"``) serves both paradigms. ``grids`` maps
    "hot", "adhot", "hist", "tree", "krr" to replacement grids (for quick runs).
    """
    g = {"hot": HOT_GRID, "adhot": ADHOT_GRID, "hist": HIST_GRID, "tree": TREE_GRID,
         "krr": KRR_GRID, **(grids or {})}
    labels = {**(labels or {}), "epsilon": epsilon}
    order = None if order is None else tuple(int(j) for j in order)
    aligned = Mask("aligned", s_star=s_star, order=order)
    personal = Mask("decade", s_star=s_star, order=order)
    arms = [Arm("Hist", Hist, data, {**labels, "paradigm": "both"}, {"epsilon": epsilon},
                g["hist"])]
    for paradigm, mask in (("aligned", aligned), ("personalized", personal)):
        lab = {**labels, "paradigm": paradigm}
        for rule, short in (("max-edge", "ME"), ("cart", "CART")):
            arms.append(Arm(f"HistOfTree {short}", HistOfTree, data, lab,
                            _hot(rule, epsilon=epsilon, s=s_star), g["hot"], mask))
        if paradigm == "personalized":
            for rule, short in (("max-edge", "ME"), ("cart", "CART")):
                arms.append(Arm(f"AdHistOfTree {short}", AdHistOfTree, data, lab,
                                _hot(rule, epsilon=epsilon), g["adhot"], mask))
        arms.append(Arm("ParDT", ParDT, data, lab, {"epsilon": epsilon}, g["tree"], mask))
        arms.append(Arm("KRR", KRR, data, lab, {"epsilon": epsilon}, g["krr"], mask))
    return arms


def reference_arm(data, labels=None, grid=TREE_GRID):
    """The non-private decision tree on the whole training set (Table 1's denominator)."""
    return Arm(REFERENCE, DT, data, {**(labels or {}), "paradigm": "reference"}, {}, grid)


def _with_ratio(best, by):
    """Expand Hist's 'both' rows into each paradigm; add mse_ratio = mse / mean DT mse."""
    both = best[best["paradigm"] == "both"]
    best = pd.concat([best[best["paradigm"] != "both"],
                      both.assign(paradigm="aligned"), both.assign(paradigm="personalized")],
                     ignore_index=True)
    ref = best[best["method"] == REFERENCE].groupby(by)["mse"].mean().rename("reference_mse")
    best = best.join(ref, on=by)
    return best.assign(mse_ratio=best["mse"] / best["reference_mse"])


def table(name="table1", reps=50, seed=0, n_jobs=None, progress=True, cache_dir=None,
          datasets=TABLE_DATASETS, data_home=None, rankings=None, grids=None, test_size=0.3):
    """Run Table 1 (epsilon = 2), 2 (epsilon = 1) or 3 (epsilon = 4) on the UCI datasets.

    ``datasets`` holds names for :func:`ldpviz.datasets.load_uci` or bunches it returned;
    ``rankings`` maps a name to its sensitivity ranking (default: column order). Returns
    (best-over-grid rows with ``mse_ratio``, summary from :func:`table_summary`).
    """
    if name not in TABLE_EPSILON:
        raise ValueError(f"name must be one of {sorted(TABLE_EPSILON)}, got {name!r}.")
    epsilon = TABLE_EPSILON[name]
    arms = []
    for dataset in datasets:
        bunch = dataset if hasattr(dataset, "X") else load_uci(
            dataset, data_home=data_home, ranking=(rankings or {}).get(dataset))
        data = SplitData(bunch.X, bunch.y, bunch.y_range, test_size, bunch.name)
        labels = {"dataset": bunch.paper_name}
        arms += realdata_arms(data, epsilon, bunch.s_star, bunch.ranking, labels, grids)
        arms.append(reference_arm(data, labels, (grids or {}).get("tree", TREE_GRID)))
    results = run(arms, reps=reps, seed=seed, n_jobs=n_jobs, progress=progress,
                  cache_dir=cache_dir)
    best = _with_ratio(best_over_grid(results), ["dataset"])
    return best, table_summary(best)


def table_summary(best, row="dataset"):
    """Mean ratios, Wilcoxon stars and ranks per (row, paradigm, method), DT excluded."""
    methods = best[best["method"] != REFERENCE]
    return compare(methods, [row, "paradigm"], metric="mse_ratio")


def _cell(r):
    text = f"{r['mean']:.2f}" if r["mean"] < 100 else f"{r['mean']:.0e}"
    text += "*" if r["significant"] else ""
    return f"**{text}**" if r["best"] else text


def table_markdown(summary, row="dataset", paper=None):
    """Table 1's layout: rows per ``row``, columns per (paradigm, method), rank sums last."""
    order = [("aligned", m) for m in ALIGNED_METHODS] + \
            [("personalized", m) for m in PERSONALIZED_METHODS]
    cols = [c for c in order if ((summary["paradigm"] == c[0]) & (summary["method"] == c[1])).any()]
    head = "| " + row + " | " + " | ".join(f"{p[:4]}. {m}" for p, m in cols) + " |"
    lines = [head, "|" + "---|" * (len(cols) + 1)]
    cells = summary.set_index([row, "paradigm", "method"])
    for key in sorted(summary[row].unique(), key=str):
        lines.append(f"| {key} | " + " | ".join(
            _cell(cells.loc[(key, p, m)]) if (key, p, m) in cells.index else "" for p, m in cols)
            + " |")
        if paper is not None and key in paper:
            lines.append(f"| {key} (paper) | " + " | ".join(
                str(v) for v in paper[key]) + " |")
    sums = summary.groupby(["paradigm", "method"])["rank"].sum()
    lines.append("| Rank sum | " + " | ".join(f"{sums.get(c, float('nan')):g}" for c in cols)
                 + " |")
    return "\n".join(lines)


#: Table 1 of the paper (epsilon = 2), rows with local data, columns as in ``table_markdown``.
PAPER_TABLE1 = {
    "ABA": ("1.85", "1.65", "1.63", "1.98", "1.81", "1.61*", "1.80", "1.61", "1.78", "1.65",
            "1.98", "1.77"),
    "AQU": ("1.55", "1.47*", "1.71", "1.63", "2.05", "1.60*", "1.60", "1.60*", "1.60", "1.75",
            "1.63", "2.05"),
    "RED": ("1.44", "1.37*", "1.45", "1.55", "1.67", "1.44", "1.43", "1.44", "1.44", "1.46",
            "1.55", "1.67"),
    "WHI": ("1.42", "1.41", "1.41", "1.53", "1.50", "1.42", "1.39*", "1.44", "1.44", "1.42",
            "1.53", "1.49"),
}


def write_outputs(out, stem, frames=None, text=None, figure=None):
    """Write ``stem.csv`` (and other frames), ``stem.md`` and ``stem.png`` into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for suffix, frame in (frames or {}).items():
        path = out / f"{stem}{suffix}.csv"
        frame.to_csv(path, index=False)
        written.append(path)
    if text is not None:
        path = out / f"{stem}.md"
        path.write_text(text + "\n")
        written.append(path)
    if figure is not None:
        path = out / f"{stem}.png"
        figure.savefig(path, dpi=120)
        written.append(path)
    return written
