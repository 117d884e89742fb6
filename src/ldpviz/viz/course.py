"""Small tables and figures the course notebooks show, kept out of the notebooks' cells.

The notebooks state measured numbers only through cells, and claims of "better" or "worse"
with their uncertainty over several noise draws; these helpers compute those summaries
(mean and two standard errors over replications, paired gaps) and draw the by-hand pictures
(a user's potential cells) so that a student reads prose, a few lines of API and pictures.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._lazy import LazyModule
from .plots import COLORS, LEGEND_INSIDE_MAX, STYLE, figure2_panel, series_legend

plt = LazyModule("matplotlib.pyplot")  # imported when something is drawn


def _check_columns(results, columns, owner):
    """Refuse a table without the columns a helper reads, naming them (not a bare KeyError)."""
    wanted = [columns] if isinstance(columns, str) else list(columns)
    missing = [c for c in wanted if c not in getattr(results, "columns", ())]
    if missing:
        shown = list(getattr(results, "columns", []))[:12]
        raise ValueError(f"{owner}: results has no column {', '.join(map(repr, missing))}; "
                         f"its columns are {shown}.")


def _check_one_row_each(results, keys, owner):
    """Refuse a table with several rows per ``keys``: averaging them would mix settings."""
    if results.duplicated(keys).any():
        raise ValueError(f"{owner}: results has several rows per ({', '.join(keys)}); keep "
                         "one setting first (e.g. one epsilon), or these would be averaged.")


def mean_2se(results, by, y="mse"):
    """Mean of ``y`` over replications and two standard errors, per value of ``by``.

    Parameters
    ----------
    results : pandas.DataFrame
        One row per (group, replication), e.g. from :func:`ldpviz.reproduce.experiments.run`.
    by : str or list of str
        Columns that define a group.
    y : str, default="mse"

    Returns
    -------
    pandas.DataFrame
        ``mean``, ``2 SE`` (two standard errors of the mean, ``2 s / sqrt(reps)``), ``reps``
        and ``mean ± 2 SE`` as text (3 significant decimals), one row per group.
    """
    _check_columns(results, [*([by] if isinstance(by, str) else by), y], "mean_2se")
    stats = results.groupby(by, sort=True)[y].agg(["mean", "std", "count"])
    out = pd.DataFrame({"mean": stats["mean"],
                        "2 SE": 2 * stats["std"] / np.sqrt(stats["count"]),
                        "reps": stats["count"]})
    out["mean ± 2 SE"] = [f"{m:.3f} ± {e:.3f}" for m, e in zip(out["mean"], out["2 SE"],
                                                                strict=True)]
    return out


def paired_gap(results, by, first, second, y="mse", pair="rep"):
    """Mean of ``y[by == first] - y[by == second]`` over paired replications, and its 2 SE.

    The two groups must share replications (the same users and noise seeds in each, as
    :func:`ldpviz.reproduce.experiments.run` draws them), so the difference cancels what
    the groups have in common.

    Returns
    -------
    (float, float)
        The mean difference and two standard errors of it.
    """
    _check_columns(results, [pair, by, y], "paired_gap")
    _check_one_row_each(results[results[by].isin([first, second])], [pair, by], "paired_gap")
    wide = results.pivot_table(index=pair, columns=by, values=y)
    diff = (wide[first] - wide[second]).dropna()
    if len(diff) < 2:
        raise ValueError(f"paired_gap needs at least 2 paired replications, got {len(diff)}.")
    return float(diff.mean()), float(2 * diff.std(ddof=1) / np.sqrt(len(diff)))


def paired_verdicts(results, by, rivals, reference, per="epsilon", label=None, y="mse",
                    pair="rep"):
    """Each rival's paired gap to ``reference`` at each value of ``per``, with the course's
    verdict: a gap within two standard errors is noise.

    Parameters
    ----------
    results : pandas.DataFrame
        One row per (group, replication), the groups named in column ``by``.
    by : str
    rivals : list
        Values of ``by`` compared with ``reference``.
    reference : object
        A value of ``by``.
    per : str or list of str, default="epsilon"
        One comparison per value (or combination of values) of these columns.
    label : str or None
        How the verdict names the reference (default: ``str(reference)``).

    Returns
    -------
    pandas.DataFrame
        The ``per`` columns, ``versus`` (the rival), ``gap`` (mean of rival minus reference
        over paired replications, :func:`paired_gap`), ``2 SE``, ``gap ± 2 SE`` as text and
        ``verdict``: "within the noise" when ``|gap| <= 2 SE``, else "<label> better" (the
        rival's error is larger) or "<label> worse".
    """
    per = [per] if isinstance(per, str) else list(per)
    _check_columns(results, [by, *per, y, pair], "paired_verdicts")
    name = str(reference) if label is None else label
    rows = []
    for values, group in results.groupby(per, sort=True):
        for rival in rivals:
            gap, two_se = paired_gap(group, by, rival, reference, y=y, pair=pair)
            verdict = ("within the noise" if abs(gap) <= two_se else
                       f"{name} better" if gap > 0 else f"{name} worse")
            rows.append({**dict(zip(per, values, strict=True)), "versus": rival, "gap": gap,
                         "2 SE": two_se, "gap ± 2 SE": f"{gap:+.3f} ± {two_se:.3f}",
                         "verdict": verdict})
    return pd.DataFrame(rows)


@dataclass
class EstimateChange:
    """Two cell estimates of the same arms on the same users (:func:`estimate_change`).

    rows : both sets of best-over-grid rows, with an ``estimate`` column.
    means : mean MSE and 2 SE per (series, estimate, epsilon) (:func:`mean_2se`).
    change : the second estimate minus the first, paired by replication, with its verdict
        (:func:`paired_verdicts`, per (series, epsilon)).
    t : the bins t at the best grid point, per (series, estimate) and epsilon.
    """

    rows: pd.DataFrame
    means: pd.DataFrame
    change: pd.DataFrame
    t: pd.DataFrame


def estimate_change(first, second, names=("eq (9) as printed", "stable"), short="eq (9)"):
    """What a second cell estimate changes: best-over-grid rows of the same arms (``series``,
    ``epsilon``, ``rep``, ``mse``, ``t``), fitted on the same users with each estimate.

    ``names`` label the two estimates; the verdicts name the first ``short`` ("eq (9)
    worse": the second estimate's error is lower beyond two standard errors).
    """
    for table, arg in ((first, "first"), (second, "second")):
        _check_columns(table, ["series", "epsilon", "rep", "mse"], f"estimate_change {arg}")
    rows = pd.concat([first.assign(estimate=names[0]), second.assign(estimate=names[1])],
                     ignore_index=True)
    means = mean_2se(rows, ["series", "estimate", "epsilon"])
    change = paired_verdicts(rows, "estimate", [names[1]], names[0],
                             per=["series", "epsilon"], label=short)
    chosen = rows.drop_duplicates(["series", "estimate", "epsilon"])
    t = (chosen.pivot_table(index=["series", "estimate"], columns="epsilon", values="t")
         if "t" in rows else pd.DataFrame())
    return EstimateChange(rows, means, change, t)


def ranked_grid_points(results, group="series"):
    """The grid points of one method in one setting (one value of ``group``), ranked by
    their mean error.

    Runs :func:`ldpviz.reproduce.experiments.compare` (mean, standard error over the
    replications, the one-sided Wilcoxon signed-rank test of Table 1's stars) with one group
    per grid point, and adds each point's parameters and whether its mean is within two
    standard errors of the best point's.

    Returns
    -------
    (pandas.DataFrame, list of str)
        The table sorted by rank, and the notes ``compare`` gave (e.g. that too few
        replications cannot reach significance).
    """
    from ..reproduce.experiments import compare

    _check_columns(results, [group, "config", "rep", "mse"], "ranked_grid_points")
    if results[group].nunique() != 1:
        raise ValueError(f"ranked_grid_points: results must hold one {group}, got "
                         f"{sorted(results[group].unique())[:5]}.")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ranked = compare(results, groups=[group], method="config")
    ranked = ranked.sort_values("rank")
    params = pd.DataFrame(ranked["config"].map(json.loads).tolist(), index=ranked.index)
    ranked = ranked.join(params)
    winner = ranked.iloc[0]
    ranked["within 2 SE of the best"] = ranked["mean"] <= winner["mean"] + 2 * winner["se"]
    return ranked.reset_index(drop=True), [str(w.message) for w in caught]


def comparison_table(settings):
    """:func:`ldpviz.viz.views.comparison_view` at several (epsilon, s*) settings, as one
    table of "mean ± 2 SE" (the explorer's numbers): one row per method, one column per
    setting."""
    from . import views

    columns = {}
    for epsilon, s_star in settings:
        out = views.comparison_view(epsilon=epsilon, s_star=s_star)
        columns[epsilon, s_star] = [f"{m:.3f} ± {2 * e:.3f}"
                                    for m, e in zip(out["mse"], out["se"], strict=True)]
        methods = out["methods"]
    table = pd.DataFrame(columns, index=methods)
    table.columns.names = ["ε", "s*"]
    return table


def first_user_messages(X, y, W, epsilon, y_bound, user=0, k=4, t=2, depth=2,
                        random_state=0):
    """What one user sends under each method of notebook 06 (DT, LabelDT, ParDT, KRR,
    HistOfTree, Hist), as one table.

    Every baseline's ``privatize`` returns its users' messages. HistOfTree (the paper's
    rho = 1/2, ``t`` bins, a depth-``depth`` tree) is fitted, then its users' side is replayed
    from the same seed (one label release, eq 4, then one GRR cell report among the potential
    cells, eq 17), as notebook 03 does, to show the cell a user reports.

    Returns
    -------
    pandas.DataFrame
        One row per method; columns ``x1 ... xd`` and ``label`` (the values sent, NaN where
        nothing is sent), ``ε of the label`` (inf: in the clear) and ``also sent`` (text).
    """
    from ..baselines import KRR, Hist, LabelDT, ParDT
    from ..estimators import HistOfTree
    from ..mechanisms import cell_reports, privatize_labels

    X, y, W = np.asarray(X, dtype=float), np.asarray(y, dtype=float), np.asarray(W, bool)
    d = X.shape[1]
    names = [f"x{j + 1}" for j in range(d)]
    common = {"epsilon": epsilon, "y_bound": y_bound, "random_state": random_state}
    labeldt = LabelDT(**common).privatize(X, y)
    pardt = ParDT(**common).privatize(X, y, W)
    krr = KRR(k=k, **common).privatize(X, y, W)
    hist = Hist(t=t, **common).privatize(X, y)
    hot = HistOfTree(t=t, depth=depth, rho=0.5, cell_estimate="paper", **common).fit(X, y, W=W)
    rng = np.random.default_rng(random_state)  # HistOfTree's seed: replay its users' draws
    privatize_labels(y, hot.epsilon_label_, y_bound, rng)  # round 1, as the fit drew it
    report = cell_reports(hot.partition_, X, W, hot.epsilon_cells_, "grr", rng)
    i = user
    hidden = ", ".join(np.asarray(names)[W[i]])
    rows = {
        "DT": (X[i], y[i], np.inf, ""),
        "LabelDT": (labeldt.features[i], labeldt.labels[i], epsilon, ""),
        "ParDT": (pardt.features[i], pardt.labels[i], epsilon, ""),
        "KRR": (krr.features[i], krr.labels[i], krr.epsilon_label[i],
                f"{hidden}: {k}-level RR, ε = {krr.epsilon_feature[i]:g} each"),
        "HistOfTree": (np.where(W[i], np.nan, X[i]), hot.y_tilde_[i], hot.epsilon_label_,
                       f"cell {report.reported[i]} of V_i = "
                       f"{np.flatnonzero(report.potential[i]).tolist()}, GRR, "
                       f"ε = {hot.epsilon_cells_:g}"),
        "Hist": (np.full(d, np.nan), np.nan, np.nan,
                 f"{hist.z.shape[1] + hist.w.shape[1]} noisy numbers"),
    }
    return pd.DataFrame.from_dict(
        {m: [*map(float, features), float(label), float(eps), also]
         for m, (features, label, eps, also) in rows.items()},
        orient="index", columns=[*names, "label", "ε of the label", "also sent"])


def paired_table(results, by, reference, y="mse", pair="rep", order=None):
    """Each group's mean of ``y`` with two standard errors, and its paired difference to the
    ``reference`` group with two standard errors of that difference.

    Parameters
    ----------
    results : pandas.DataFrame
        One row per (group, replication), the groups sharing replications (see
        :func:`paired_gap`).
    by : str
        The column naming the groups; ``reference`` is one of its values.
    order : list or None
        The rows' order (default: sorted, the reference first).

    Returns
    -------
    pandas.DataFrame
        One row per group: ``mean``, ``2 SE``, ``difference`` and ``difference 2 SE`` (NaN for
        the reference), and the text columns ``mean ± 2 SE`` and ``difference ± 2 SE``.
    """
    table = mean_2se(results, by, y)
    if reference not in table.index:
        raise ValueError(f"paired_table: no group {reference!r} in column {by!r}; its groups "
                         f"are {list(table.index)}.")
    gaps = {g: paired_gap(results, by, g, reference, y, pair) if g != reference
            else (np.nan, np.nan) for g in table.index}
    table["difference"] = [gaps[g][0] for g in table.index]
    table["difference 2 SE"] = [gaps[g][1] for g in table.index]
    table["difference ± 2 SE"] = ["" if g == reference else f"{d:+.3f} ± {e:.3f}"
                                  for g, (d, e) in gaps.items()]
    if order is None:
        order = [reference, *(g for g in table.index if g != reference)]
    return table.loc[list(order)]


def plot_potential_cells(partition, x, w, names=("$x_1$", "$x_2$"), title=None):
    """A two-feature partition with one user's potential cells V_i shaded.

    Parameters
    ----------
    partition : ldpviz.partition.Partition
        Built on two features (``d = 2``).
    x : array of shape (2,)
        The user's true point (drawn as a cross: the server never sees the hidden coordinates).
    w : array of shape (2,) of bool
        The user's mask row (1 = protected).
    names : pair of str
        Axis labels.
    title : str or None

    Returns
    -------
    matplotlib.figure.Figure
    """
    x = np.asarray(x, dtype=float).reshape(1, -1)
    w = np.asarray(w, dtype=bool).reshape(1, -1)
    if x.shape[1] != 2 or w.shape != x.shape:
        raise ValueError(f"plot_potential_cells draws two features; got x of shape {x.shape} "
                         f"and w of shape {w.shape}.")
    lo, hi = partition.cell_boxes()
    potential = partition.potential_cells(x, w)[0]
    own = int(partition.cell_index(x)[0])
    with plt.rc_context(STYLE):
        fig = plt.figure(figsize=(4.6, 4.4), layout="constrained")
        plt.close(fig)
        ax = fig.subplots()
        for j, (a, b) in enumerate(zip(lo, hi, strict=True)):
            ax.add_patch(plt.Rectangle(a, *(b - a),
                                       facecolor=COLORS[5] if potential[j] else "white",
                                       alpha=0.55 if potential[j] else 1, edgecolor="black"))
            ax.text(*(a + b) / 2, str(j), ha="center", va="center",
                    fontweight="bold" if j == own else "normal")
        ax.plot(*x[0], marker="x", color=COLORS[1], markersize=12, mew=3)
        for axis, draw in ((0, ax.axvline), (1, ax.axhline)):
            if not w[0, axis]:  # a published coordinate is known exactly
                draw(x[0, axis], color=COLORS[1], linestyle="--")
        ax.set(xlim=(0, 1), ylim=(0, 1), aspect="equal",
               xlabel=f"{names[0]} ({'hidden' if w[0, 0] else 'published'})",
               ylabel=f"{names[1]} ({'hidden' if w[0, 1] else 'published'})",
               title=title or rf"$|\mathcal{{V}}_i| = {int(potential.sum())}$ potential cells")
    return fig


def plot_cell_noise(fits, reference, std_error, title=None, reference_name="reference"):
    """Each cell's value minus a reference value, against the cell's standard error.

    Shows why eq (9) explodes in sparse cells and what a variance-aware estimate does there.

    Parameters
    ----------
    fits : dict of str to fitted HistOfTree
        Estimates to compare on the same partition (e.g. ``cell_estimate="paper"`` and
        ``"stable"`` fitted with the same seed), keyed by legend label.
    reference : array of shape (n_cells,)
        Each cell's reference value, e.g. the non-private mean of eq (3).
    std_error : array of shape (n_cells,)
        Each cell's standard error (``cell_std_error_`` of the stable fit).
    title : str or None
    reference_name : str
        What the reference is, for the vertical axis (e.g. ``"eq (3)"``).

    Returns
    -------
    matplotlib.figure.Figure
    """
    markers = ["x", "o", "s", "^"]
    with plt.rc_context(STYLE):
        fig = plt.figure(figsize=(7.5, 3.8), layout="constrained")
        plt.close(fig)
        ax = fig.subplots()
        for i, (name, fit) in enumerate(fits.items()):
            ax.scatter(std_error, fit.cell_values_ - np.asarray(reference), s=16, label=name,
                       marker=markers[i % len(markers)], color=COLORS[(i + 1) % len(COLORS)],
                       alpha=1 if i == 0 else 0.6)
        ax.axhline(0, color="0.5", lw=0.8)
        ax.set(xlabel="standard error of the cell's ratio (9)",
               ylabel=f"cell value − {reference_name}",
               title=title)
        ax.legend(frameon=False, loc="lower left")
    return fig


def figure2_wide(results, x, title=None, logx=False, logy=False, width=8.5):
    """:func:`ldpviz.viz.plots.figure2_panel` with the legend beside the axes, ``width``
    inches wide, whatever the number of series."""
    fig = figure2_panel(results, x=x, logx=logx, logy=logy, title=title, legend="beside")
    fig.set_size_inches(width, fig.get_size_inches()[1])
    return fig


def best_per_value(results, param, y="mse", pair="rep"):
    """Best grid point for each value of one parameter, one column per value.

    Parameters
    ----------
    results : pandas.DataFrame
        Every grid point of *one* method on every replication (columns ``config_id`` and,
        when the grid spans several arms, ``arm``; ``param``, ``pair`` and ``y``), e.g. the
        rows of one method and one epsilon of :attr:`ldpviz.reproduce.whatif.WhatIf.results`.
    param : str
        The parameter to hold fixed (e.g. ``"t"``): for each of its values the grid point
        with the lowest mean ``y`` over replications is kept.

    Returns
    -------
    pandas.DataFrame
        One row per replication, one column per value of ``param``: ``y`` at that value's
        best grid point (paired by replication, so columns can be subtracted).
    """
    point = ["arm", "config_id"] if "arm" in results else ["config_id"]  # ids are per arm
    _check_columns(results, [param, *point, y, pair], "best_per_value")
    means = results.groupby([param, *point])[y].mean()
    chosen = {(value, *means.loc[value].idxmin()) if len(point) > 1 else
              (value, means.loc[value].idxmin()) for value in means.index.unique(level=0)}
    keep = [key in chosen for key in zip(*(results[c] for c in (param, *point)), strict=True)]
    _check_one_row_each(results[keep], [pair, param], "best_per_value")
    return results[keep].pivot_table(index=pair, columns=param, values=y)


def histogram_gain(result, methods=("HistOfTree ME", "HistOfTree CART")):
    """Did HistOfTree's private histogram help in a what-if run? Per method and epsilon, the
    best grid point with t = 2 against the best with t = 1 (:func:`best_per_value`), paired
    over the splits.

    Parameters
    ----------
    result : ldpviz.reproduce.whatif.WhatIf
        A run whose HistOfTree grid has t in {1, 2} (aligned paradigm).
    methods : the HistOfTree rows to compare.

    Returns
    -------
    pandas.DataFrame
        Indexed by (method, ε): ``best t`` (the t of the method's best grid point),
        ``t = 2 vs t = 1`` (the mean relative change of the MSE, as a fraction of the t = 1
        point's mean MSE) and ``2 SE``.
    """
    results = result.results
    _check_columns(results, ["method", "epsilon", "t", "paradigm"], "histogram_gain")
    summary = result.summary[result.summary["paradigm"] == "aligned"]
    chosen = summary.set_index(["method", "epsilon"])["t"]
    mine = results[results["method"].isin(methods) & (results["paradigm"] == "aligned")]
    rows = []
    for (method, eps), grid in mine.groupby(["method", "epsilon"]):
        best_t = best_per_value(grid, "t")
        if not {1, 2} <= set(best_t.columns):
            raise ValueError(f"histogram_gain: {method} at epsilon {eps:g} has no grid point "
                             f"with t = {1 if 1 not in best_t.columns else 2}.")
        change = (best_t[2] - best_t[1]) / best_t[1].mean()
        rows.append({"method": method, "ε": eps, "best t": int(chosen[method, eps]),
                     "t = 2 vs t = 1": change.mean(),
                     "2 SE": 2 * change.std(ddof=1) / np.sqrt(len(change))})
    return pd.DataFrame(rows).set_index(["method", "ε"])


def panel_with_floor(results, floor, floor_label="no privacy (DT)", colors=None, title=None):
    """A log-log Figure 2 panel against epsilon with a dotted horizontal floor (e.g. DT's MSE)."""
    beside = results["series"].nunique() > LEGEND_INSIDE_MAX  # as figure2_panel decides
    fig = figure2_panel(results, x="epsilon", logx=True, logy=True, colors=colors, title=title,
                        legend="beside" if beside else "inside")
    with plt.rc_context(STYLE):
        ax = fig.axes[0]
        ax.axhline(floor, color="black", ls=":", lw=1, label=floor_label)
        low, high = ax.get_ylim()
        ax.set_ylim(min(low, 0.8 * floor), high)  # the floor stays in view
        series_legend(ax, beside)
    return fig
