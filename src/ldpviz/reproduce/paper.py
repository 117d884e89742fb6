"""The paper's experiments as :mod:`ldpviz.reproduce.experiments` specifications: Figure 2 and
Tables 1-3.

Grids (Appendix C.1 of the HistOfTree paper):

* HistOfTree: ``rho`` in {0.5, 0.7, 0.9}, depth p in {1, 2, 4, 6}, bins t in {1, 2, 3}; GRR
  cell reports; s = s* (the features every user protects).
* AdHistOfTree: c in {0.01, 0.1, 1}, t in {t*-1, t*, t*+1}; ``rho`` as for HistOfTree (C.1 does
  not say; the protocol is HistOfTree's).
* Hist: t in {1, 2, 3, 4}, zeta in {0.01, 0.05} (on the density scale, see
  :class:`ldpviz.baselines.Hist`). On real data, the t whose t^d cells exceed ldpviz's
  resource budget are left out (t = 4 on the 11 wine features: 4.2 million cells for 1,100 to
  3,400 training rows, almost all empty, so that point cannot win).
* ParDT, LabelDT, DT: max_depth in {1, 2, 4, 6, 8}, min_samples_leaf in {1, 10, 100}; KRR also
  k in {2, 3, 4, 5}.

Figure 2 (Section 5.1) does not state its axes or grids; the choices here are:

* every HistOfTree / AdHistOfTree point is tuned over Appendix C.1's full grid: (p, t) or
  (c, t_offset), and ``rho`` in {0.5, 0.7, 0.9}; the max-edge rule (Algorithm 1, the estimator
  the theory is about). Within a replication, a HistOfTree arm draws each user's label noise
  once per ``rho`` and reuses the draw over its whole (p, t) grid (AdHistOfTree: its (c,
  t_offset) grid): ``Arm.shared_noise``. The release is then one deployment's for every t >= 2;
  at t = 1 a user whose cell is public spends all of epsilon on the label, so the same draw is
  released at a smaller scale (a second deployment, as the protocol prescribes). Every grid point is
  still a run of the protocol with fresh noise; the runs of one replication are correlated,
  which makes the best over the grid less optimistic, not more, and lets the runner grow each
  public tree once and cut it at every depth (:func:`ldpviz.partition.reuse_trees`).
* (a) n = 10,000, epsilon in {1, 2, 4, 8, 1024} (1024 stands for no privacy, as in the
  paper), aligned s* = 1..4, with LabelDT ("label LDP", s* = 0) and Hist ("LDP", s* = 5).
  Label LDP is also drawn as HistOfTree with every feature public (s = 0, depths
  {1, 2, 4, 6, 8}, LabelDT's), the same estimator as the other curves: LabelDT, CART on noisy
  labels, makes end-cut splits and understates label LDP (:data:`LABEL_LDP_SENTENCE`).
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
tree (DT) fitted on the whole training set. The label range follows a policy
(:data:`ldpviz.datasets.LABEL_RANGE_POLICIES`): the declared public scale (default), the range
of independent public data on the same scale, or the private labels' range (the paper's
choice; it leaks). Next to the methods of the paper, two label-only references are run and
shown, not ranked: HistOfTree with every feature public (s = 0; rule and depth tuned, depths
{1, 2, 4, 6, 8}) and LabelDT.

Measured on the 2-core development machine (``n_jobs=2``, 50 replications, full grids, the
stable cell estimate): the full Figure 2 took 241 s = 4.0 minutes on a quiet machine (90 + 59
+ 10 + 82 s for panels a-d, 132,100 fits; ``benchmarks/bench_figure2.py``); under load from
other jobs it takes several times longer. Table 1 on the four local datasets took 266 s on an
idle machine and 802 s while other jobs shared the cores (before the label-only references
were added; with them, 8.5 CPU-seconds per split).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .._config import check_grid_budget
from .._safe_text import write_csv
from .._validation import PrivacyWarning, check_choice
from ..adhistoftree import AdHistOfTree
from ..baselines import DT, KRR, Hist, LabelDT, ParDT
from ..datasets import LABEL_RANGE_POLICIES, load_uci
from ..estimators import HistOfTree
from ..viz import plots
from .catalog import TABLE_DATASETS, TABLE_EPSILON
from .experiments import Arm, Mask, SplitData, SyntheticData, best_over_grid, compare, run
from .runtime import effective_jobs

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
#: CPU seconds per replication on the 2-core development machine, full grids
#: (:mod:`ldpviz.reproduce.reproduction`): a Figure 2 panel; a table, per dataset and policy.
SECONDS_PER_REP = {"fig2a": 6.0, "fig2b": 4.0, "fig2c": 1.0, "fig2d": 6.0, "table": 8.5 / 4}


def estimate_seconds(name, reps, n_jobs=None, runs=1):
    """Rough wall time of a figure panel, or of a table over ``runs`` (dataset, label-range
    policy) pairs, on an otherwise idle machine (cached results not counted)."""
    tasks = reps * runs
    per_rep = SECONDS_PER_REP["table" if name in TABLE_EPSILON else name]
    return per_rep * tasks / effective_jobs(n_jobs, tasks)


ALIGNED_METHODS = ("HistOfTree ME", "HistOfTree CART", "ParDT", "Hist", "KRR")
PERSONALIZED_METHODS = ("HistOfTree ME", "HistOfTree CART", "AdHistOfTree ME",
                        "AdHistOfTree CART", "ParDT", "Hist", "KRR")
REFERENCE = "DT"
#: Label-only references (every feature public): the paper's estimator with s = 0, and the
#: paper's label-LDP baseline. Shown next to each other wherever privacy models are compared.
LABEL_ONLY = ("HistOfTree s=0", "LabelDT")
#: Their grid for HistOfTree s=0: LabelDT's depths. t and rho do nothing when every feature
#: is public (each user's cell is known, so all of epsilon goes to the label).
HOT0_GRID = {"depth": (1, 2, 4, 6, 8)}
#: How the UCI tables' features are scaled, and what that leaks (one sentence, table1's text).
FEATURE_BOX_SENTENCE = (
    "Features are min-max scaled to [0, 1] with bounds read off the data, as in the paper "
    "(Appendix C.2): the protected columns' extremes are not covered by the privacy "
    "guarantee; a deployment fixes the feature box in advance.")
#: Why the two label-only references differ (one sentence, used by the reports).
LABEL_LDP_SENTENCE = (
    "HistOfTree s=0 is the paper's own estimator with every feature public and LabelDT is "
    "the paper's label-LDP baseline, scikit-learn's CART fitted to Laplace-noised labels; they "
    "differ because CART on noisy labels makes end-cut splits (it cuts off the few users "
    "whose label noise is extreme), which HistOfTree's max-edge midpoint rule cannot do, so "
    "LabelDT understates what label LDP allows.")


def _hot(rule="max-edge", **params):
    return {"rule": rule, "mechanism": "grr", **params}


# ----------------------------------------------------------------------------------------------
# Figure 2
# ----------------------------------------------------------------------------------------------
def _shared(flag, names):
    return names if flag else ()


def fig2a_arms(n=10_000, epsilons=FIG2A_EPSILONS, s_stars=(1, 2, 3, 4), hot_grid=FIG2_HOT_GRID,
               tree_grid=TREE_GRID, hist_grid=HIST_GRID, n_test=2000, shared_noise=True,
               hot0_grid=HOT0_GRID):
    """Privacy-utility trade-off: MSE against epsilon for each number of private features.

    Label LDP (s* = 0) is drawn twice: the paper's LabelDT, and HistOfTree itself with every
    feature public (``hot0_grid``: its depths; None leaves it out), the fair label-LDP
    reference (:data:`LABEL_LDP_SENTENCE`). ``shared_noise``: one label release per
    (replication, rho) for HistOfTree's (p, t) grid (module docstring); False gives every grid
    point its own noise (slower, same law).
    """
    data, d = SyntheticData(n, n_test), 5
    arms = []
    for eps in epsilons:
        for s in s_stars:
            arms.append(Arm("HistOfTree", HistOfTree, data,
                            {"epsilon": eps, "s_star": s, "series": f"HistOfTree s*={s}"},
                            _hot(epsilon=eps, s=s), hot_grid, Mask("aligned", s),
                            _shared(shared_noise, HOT_SHARED)))
        if hot0_grid is not None:
            arms.append(Arm("HistOfTree", HistOfTree, data,
                            {"epsilon": eps, "s_star": 0,
                             "series": f"label LDP ({LABEL_ONLY[0]})"},
                            _hot(epsilon=eps, s=0), hot0_grid, Mask("aligned", 0),
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


def plot_figure2(name, best, title=None):
    """The panel from best-over-grid rows (mean +- 2 SE per series), via plots.figure2_panel;
    ``title`` replaces the panel's (e.g. to name the cell estimate it was measured with)."""
    _, x, logx, default = FIGURES[name]
    return plots.figure2_panel(best, x=x, series="series", y="mse", logx=logx, logy=True,
                               title=default if title is None else title)


# ----------------------------------------------------------------------------------------------
# Real data: Tables 1-3 and the what-if analysis
# ----------------------------------------------------------------------------------------------
def _hist_grid_within_budget(grid, data):
    """Hist's grid less the t whose t^d cells exceed ldpviz's resource budget (t = 4 on the 11
    wine features needs 4^11 = 4.2 million cells for 1,100 to 3,400 training rows: almost
    every cell is empty and its estimate pure noise, so that grid point cannot win). Returns
    the grid and the t left out."""
    n_train = len(data.y) - round(data.test_size * len(data.y))
    d = data.X.shape[1]
    kept, dropped = [], []
    for t in grid["t"]:
        try:
            check_grid_budget("Hist", n_train, int(t), d)
        except ValueError:
            dropped.append(t)
        else:
            kept.append(t)
    if not kept:
        raise ValueError(f"no t of Hist's grid {grid['t']} fits the resource budget on "
                         f"{d} features.")
    return {**grid, "t": tuple(kept)}, tuple(dropped)


def realdata_arms(data, epsilon, s_star, order=None, labels=None, grids=None,
                  label_only=True):
    """Every method of Table 1 on ``data`` at one epsilon, both paradigms.

    Hist ignores W, so one Hist arm (``paradigm="both"``) serves both paradigms, as do the
    label-only references (``label_only``): HistOfTree with every feature public
    ("HistOfTree s=0", the rule and the depth tuned) and the paper's LabelDT. Each arm's
    ``role`` label says whether it respects the protection ("protected") or protects the
    label only ("label"). ``grids`` maps "hot", "hot0", "adhot", "hist", "tree", "krr" to
    replacement grids (for quick runs). Hist's t beyond the resource budget are left out
    (:func:`_hist_grid_within_budget`).
    """
    g = {"hot": HOT_GRID, "hot0": HOT0_GRID, "adhot": ADHOT_GRID, "hist": HIST_GRID,
         "tree": TREE_GRID, "krr": KRR_GRID, **(grids or {})}
    labels = {**(labels or {}), "epsilon": epsilon}
    order = None if order is None else tuple(int(j) for j in order)
    aligned = Mask("aligned", s_star=s_star, order=order)
    personal = Mask("decade", s_star=s_star, order=order)
    both = {**labels, "paradigm": "both"}
    hist_grid, _ = _hist_grid_within_budget(g["hist"], data)
    arms = [Arm("Hist", Hist, data, {**both, "role": "protected"}, {"epsilon": epsilon},
                hist_grid)]
    if label_only:
        arms.append(Arm(LABEL_ONLY[0], HistOfTree, data, {**both, "role": "label"},
                        {"mechanism": "grr", "epsilon": epsilon, "s": 0},
                        {"rule": ("max-edge", "cart"), **g["hot0"]}, Mask("aligned", 0),
                        ("depth",)))
        arms.append(Arm(LABEL_ONLY[1], LabelDT, data, {**both, "role": "label"},
                        {"epsilon": epsilon}, g["tree"]))
    for paradigm, mask in (("aligned", aligned), ("personalized", personal)):
        lab = {**labels, "paradigm": paradigm, "role": "protected"}
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
    return Arm(REFERENCE, DT, data, {**(labels or {}), "paradigm": "reference",
                                     "role": "reference"}, {}, grid)


def _with_ratio(best, by):
    """Expand the 'both' rows (Hist, label-only) into each paradigm; add mse_ratio = mse /
    mean DT mse."""
    both = best[best["paradigm"] == "both"]
    best = pd.concat([best[best["paradigm"] != "both"],
                      both.assign(paradigm="aligned"), both.assign(paradigm="personalized")],
                     ignore_index=True)
    ref = best[best["method"] == REFERENCE].groupby(by)["mse"].mean().rename("reference_mse")
    best = best.join(ref, on=by)
    return best.assign(mse_ratio=best["mse"] / best["reference_mse"])


def _policies(label_range):
    policies = (label_range,) if isinstance(label_range, str) else tuple(label_range)
    if not policies:
        raise ValueError("label_range must name at least one policy.")
    for policy in policies:
        check_choice(policy, "label_range", tuple(LABEL_RANGE_POLICIES))
    if len(set(policies)) < len(policies):
        raise ValueError(f"label_range lists a policy twice: {list(policies)}.")
    return policies


def table(name="table1", reps=50, seed=0, n_jobs=None, progress=True, cache_dir=None,
          datasets=TABLE_DATASETS, data_home=None, rankings=None, grids=None, test_size=0.3,
          label_range="declared", label_only=True):
    """Run Table 1 (epsilon = 2), 2 (epsilon = 1) or 3 (epsilon = 4) on the UCI datasets.

    ``datasets`` holds names for :func:`ldpviz.datasets.load_uci` or bunches it returned (a
    bunch keeps its own label range); ``rankings`` maps a name to its sensitivity ranking
    (default: column order). ``label_range`` is a label-range policy or a list of them
    ("declared", "independent", "private": :data:`ldpviz.datasets.LABEL_RANGE_POLICIES`);
    each dataset is run under each, in one parallel run ("private" leaks and warns: for
    comparison with the paper only). ``label_only`` adds the label-only references
    (HistOfTree s=0 and LabelDT; not ranked). A policy that gives a dataset the same range as
    an earlier one (abalone's "independent" is its declared scale) reuses its runs. Returns
    (best-over-grid rows with ``mse_ratio`` and ``label_range`` / ``y_range`` columns,
    summary from :func:`table_summary`).
    """
    if name not in TABLE_EPSILON:
        raise ValueError(f"name must be one of {sorted(TABLE_EPSILON)}, got {name!r}.")
    epsilon = TABLE_EPSILON[name]
    policies = _policies(label_range)
    arms, same = [], {}  # same: (dataset, policy) -> earlier policy with the same range
    for dataset in datasets:
        seen = {}
        for policy in ((None,) if hasattr(dataset, "X") else policies):
            with warnings.catch_warnings():  # as the paper; the table's text says so
                warnings.filterwarnings("ignore", message="the feature box",
                                        category=PrivacyWarning)
                bunch = dataset if policy is None else load_uci(
                    dataset, data_home=data_home, ranking=(rankings or {}).get(dataset),
                    y_range=policy)
            policy = bunch.get("y_range_policy", "given")
            if bunch.y_range in seen:  # e.g. abalone: no independent source, declared range
                same[bunch.paper_name, policy] = seen[bunch.y_range]
                continue
            seen[bunch.y_range] = policy
            data = SplitData(bunch.X, bunch.y, bunch.y_range, test_size, bunch.name)
            labels = {"dataset": bunch.paper_name, "label_range": policy,
                      "y_range": f"({bunch.y_range[0]:g}, {bunch.y_range[1]:g})"}
            arms += realdata_arms(data, epsilon, bunch.s_star, bunch.ranking, labels, grids,
                                  label_only)
            arms.append(reference_arm(data, labels, (grids or {}).get("tree", TREE_GRID)))
    results = run(arms, reps=reps, seed=seed, n_jobs=n_jobs, progress=progress,
                  cache_dir=cache_dir)
    best = best_over_grid(results)
    copies = [best[(best["dataset"] == dataset) & (best["label_range"] == earlier)]
              .assign(label_range=policy) for (dataset, policy), earlier in same.items()]
    best = _with_ratio(pd.concat([best, *copies], ignore_index=True),
                       ["dataset", "label_range"])
    return best, table_summary(best)


def table_summary(best, row="dataset"):
    """Per (row, label range, paradigm, method): the mean ratio and its standard error; for the
    methods that respect the protection also Table 1's rank and Wilcoxon marks (DT excluded;
    the label-only references are not ranked)."""
    groups = [row, *(["label_range"] if "label_range" in best else []), "paradigm"]
    role = best["role"] if "role" in best else pd.Series("protected", index=best.index)
    methods = best[(best["method"] != REFERENCE) & (role == "protected")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        summary = compare(methods, groups, metric="mse_ratio").assign(role="protected")
    if caught:  # one per group: said once
        warnings.warn(f"with {best['rep'].nunique()} splits no Wilcoxon test can reach level "
                      "0.05: no result is starred.", UserWarning, stacklevel=2)
    label = best[role == "label"]
    if not label.empty:
        agg = label.groupby([*groups, "method"])["mse_ratio"].agg(["mean", "std", "count"])
        agg = agg.reset_index().assign(se=lambda f: f["std"] / np.sqrt(f["count"]),
                                       rank=np.nan, best=False, significant=False,
                                       role="label")
        summary = pd.concat([summary, agg.drop(columns=["std", "count"])], ignore_index=True)
    return summary


def _cell(r):
    text = f"{r['mean']:.2f}" if r["mean"] < 100 else f"{r['mean']:.0e}"
    text += "*" if r["significant"] else ""
    return f"**{text}**" if r["best"] else text


def table_columns(summary):
    """Table 1's columns present in ``summary``: (paradigm, method), label-only ones last."""
    order = [("aligned", m) for m in ALIGNED_METHODS] + \
            [("personalized", m) for m in PERSONALIZED_METHODS] + \
            [("aligned", m) for m in LABEL_ONLY]
    return [c for c in order
            if ((summary["paradigm"] == c[0]) & (summary["method"] == c[1])).any()]


def _column_name(paradigm, method):
    return f"label only: {method}" if method in LABEL_ONLY else f"{paradigm[:4]}. {method}"


def table_markdown(summary, row="dataset", paper=None):
    """Table 1's layout: rows per ``row`` (and label-range policy, when there are several),
    the paper's row below, columns per (paradigm, method), the label-only references last
    (not ranked), rank sums last."""
    cols = table_columns(summary)
    policies = list(dict.fromkeys(summary["label_range"])) if "label_range" in summary \
        else [None]
    head = "| " + row + " | " + " | ".join(_column_name(*c) for c in cols) + " |"
    lines = [head, "|" + "---|" * (len(cols) + 1)]
    keys = [row] + (["label_range"] if policies != [None] else [])
    cells = summary.set_index([*keys, "paradigm", "method"])
    for key in sorted(summary[row].unique(), key=str):
        for policy in policies:
            index = (key,) if policy is None else (key, policy)
            name = key if len(policies) == 1 else f"{key} ({policy})"
            lines.append(f"| {name} | " + " | ".join(
                _cell(cells.loc[(*index, p, m)]) if (*index, p, m) in cells.index else ""
                for p, m in cols) + " |")
        if paper is not None and key in paper:
            values = dict(zip(PAPER_COLUMNS, paper[key], strict=True))
            lines.append(f"| {key} (paper) | " + " | ".join(values.get(c, "") for c in cols)
                         + " |")
    protected = summary[summary["role"] == "protected"] if "role" in summary else summary
    for policy in policies:
        mine = protected if policy is None else protected[protected["label_range"] == policy]
        sums = mine.groupby(["paradigm", "method"])["rank"].sum()
        name = "Rank sum" + ("" if len(policies) == 1 else f" ({policy})")
        lines.append(f"| {name} | " + " | ".join(
            f"{sums[c]:g}" if c in sums.index else "" for c in cols) + " |")
    return "\n".join(lines)


#: The columns of the paper's Tables 1-3, in order (aligned, then personalized).
PAPER_COLUMNS = tuple([("aligned", m) for m in ALIGNED_METHODS]
                      + [("personalized", m) for m in PERSONALIZED_METHODS])
#: Table 1 of the paper (epsilon = 2), rows with local data, columns as ``PAPER_COLUMNS``.
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
#: Table 2 of the paper (epsilon = 1, Appendix C.3), same rows and columns.
PAPER_TABLE2 = {
    "ABA": ("2.04", "1.80*", "2.04", "2.02", "2.74", "1.85*", "2.04", "1.86", "2.00", "2.26",
            "2.02", "2.71"),
    "AQU": ("1.71*", "1.71*", "2.86", "1.80", "3.35", "1.71", "1.73", "1.69*", "1.69*", "3.03",
            "1.80", "3.35"),
    "RED": ("1.48*", "1.48*", "2.02", "1.81", "2.53", "1.48*", "1.52", "1.48*", "1.48*",
            "2.08", "1.81", "2.53"),
    "WHI": ("1.46*", "1.46*", "1.61", "1.61", "1.85", "1.47", "1.47", "1.46", "1.46", "1.70",
            "1.61", "1.84"),
}
#: Table 3 of the paper (epsilon = 4, Appendix C.3), same rows and columns.
PAPER_TABLE3 = {
    "ABA": ("1.72", "1.59", "1.58", "1.97", "1.64", "1.54", "1.63", "1.55", "1.62", "1.61",
            "1.97", "1.97"),
    "AQU": ("1.45", "1.35*", "1.56", "1.58", "1.64", "1.50", "1.47", "1.54", "1.45*", "1.68",
            "1.58", "1.65"),
    "RED": ("1.27", "1.47", "1.29", "1.49", "1.44", "1.27", "1.26", "1.30", "1.27", "1.28",
            "1.49", "1.44"),
    "WHI": ("1.24", "1.24", "1.26", "1.51", "1.42", "1.24", "1.23", "1.43", "1.37", "1.30",
            "1.51", "1.42"),
}
PAPER_TABLES = {"table1": PAPER_TABLE1, "table2": PAPER_TABLE2, "table3": PAPER_TABLE3}


def write_outputs(out, stem, frames=None, text=None, figure=None):
    """Write ``stem.csv`` (and other frames), ``stem.md`` and ``stem.png`` into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for suffix, frame in (frames or {}).items():
        path = out / f"{stem}{suffix}.csv"
        write_csv(frame, path)  # no cell a spreadsheet runs
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
