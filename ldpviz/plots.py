"""Static matplotlib figures for papers, slides and the reproduction commands.

Each function draws what a :mod:`ldpviz.views` function (or an experiment's results table)
returns and gives back the matplotlib Figure; nothing is shown or printed. Colours are the
Okabe-Ito palette and viridis, both readable with the common colour-vision deficiencies.
"""

from __future__ import annotations

import functools

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from . import views

COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
CMAP = "viridis"
STYLE = {"font.size": 12, "axes.titlesize": 13, "axes.labelsize": 12, "legend.fontsize": 10,
         "axes.spines.top": False, "axes.spines.right": False}


def _styled(draw):
    """Draw inside ldpviz's rc style, so fonts stay readable when projected."""

    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        with plt.rc_context(STYLE):
            return draw(*args, **kwargs)

    return wrapper


def _figure(ncols=1, width=5.2, height=4.2):
    """A pyplot-free Figure (nothing is shown until the caller displays or saves it)."""
    fig = Figure(figsize=(width * ncols, height), layout="constrained")
    return fig, fig.subplots(1, ncols, squeeze=False)[0]


def _feature(axis, private):
    return f"$x_{axis + 1}$ ({'private' if private else 'public'})"


# ----------------------------------------------------------------------------------------------
# The paper's Figure 2 from a results table
# ----------------------------------------------------------------------------------------------
@_styled
def figure2_panel(results, x, series="series", y="mse", ax=None, logx=False, logy=False,
                  title=None):
    """Mean of ``y`` over replications against ``x``, one line per ``series``, +-2 SE bars.

    Parameters
    ----------
    results : pandas.DataFrame
        Tidy results, one row per (series, x, replication), e.g. from
        :mod:`ldpviz.experiments`.
    x, series, y : str
        Column names: the horizontal axis, the legend groups and the metric.
    ax : matplotlib Axes or None
        Draw into this Axes; None makes a new Figure.
    logx, logy : bool
        Log scales (Figure 2(b) uses a log n axis).
    title : str or None

    Returns
    -------
    matplotlib.figure.Figure
    """
    if ax is None:
        fig, (ax,) = _figure()
    else:
        fig = ax.figure
    stats = results.groupby([series, x], sort=True)[y].agg(["mean", "std", "count"])
    for i, (name, group) in enumerate(stats.groupby(level=0, sort=False)):
        xs = group.index.get_level_values(1).to_numpy()
        se = (group["std"] / np.sqrt(group["count"])).fillna(0).to_numpy()
        ax.errorbar(xs, group["mean"], yerr=2 * se, label=str(name), capsize=3,
                    color=COLORS[i % len(COLORS)], marker=MARKERS[i % len(MARKERS)])
    ax.set_xlabel(x)
    ax.set_ylabel(f"{y.upper() if y == 'mse' else y} (mean ± 2 SE)")
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    if title:
        ax.set_title(title)
    ax.legend(frameon=False)
    return fig
