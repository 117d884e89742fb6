"""Static matplotlib figures for papers, slides and the reproduction commands.

Each function draws what a :mod:`ldpviz.viz.views` function (or an experiment's results table)
returns and gives back the matplotlib Figure; nothing is shown or printed. Colours are the
Okabe-Ito palette and viridis, both readable with the common colour-vision deficiencies.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import theory
from .._config import check_budget, get_config
from .._validation import check_choice, check_feature_indices, check_int, check_real
from ..masks import validate_mask
from . import views
from ._lazy import LazyModule

# imported when something is drawn: a notebook's first cell imports these functions
plt = LazyModule("matplotlib.pyplot")
mcolors = LazyModule("matplotlib.colors")
font_manager = LazyModule("matplotlib.font_manager")
ticker = LazyModule("matplotlib.ticker")

# Okabe-Ito, with yellow last: it is hard to see as a line on white.
COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]
BLACK = COLORS[6]
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


#: Widest figure (inches at the inline backend's 100 dpi). JupyterLab at 1024x768 with the file
#: browser open shows outputs 592 px wide and shrinks a wider PNG to fit. The smallest text drawn
#: here is 10 pt (13.9 px at 100 dpi; "small" legends, some titles), and it must stay >= 9 px:
#: a PNG of at most 13.9 * 592 / 9 = 913 px, that is 8.8 in plus the 0.1 in each side that
#: ``bbox_inches="tight"`` pads with (13.9 * 592 / 900 = 9.1 px).
MAX_WIDTH = 8.8


def _figure(ncols=1, width=5.2, height=4.2, extra=0.0):
    """A Figure with ``ncols`` panels (``width`` x ``height`` inches each) and a list of Axes.

    The one layout rule of this module: a row holds as many panels as fit in ``MAX_WIDTH``
    (``extra`` inches are kept for a colour bar or a legend beside the panels), and further
    panels wrap onto more rows, the last row centred. Callers choose the panel width their
    content needs; font sizes stay those of ``STYLE``.

    The Figure is one pyplot no longer tracks: shown once when returned to a notebook, never
    twice, and never left open. Creating it through pyplot sets up the notebook's inline
    display (a bare Figure() would print as text in a fresh kernel).
    """
    width = min(width, MAX_WIDTH - extra)
    per_row = max(1, min(ncols, int((MAX_WIDTH - extra) / width + 1e-9)))
    rows = -(-ncols // per_row)
    fig = plt.figure(figsize=(width * per_row + extra, height * rows), layout="constrained")
    plt.close(fig)
    if rows == 1:
        return fig, list(fig.subplots(1, ncols, squeeze=False)[0])
    grid = fig.add_gridspec(rows, 2 * per_row)  # half-panel columns, to centre a short row
    axes = []
    for k in range(ncols):
        row, col = divmod(k, per_row)
        start = per_row - min(per_row, ncols - row * per_row) + 2 * col
        axes.append(fig.add_subplot(grid[row, start:start + 2]))
    return fig, axes


def _feature(axis, private):
    return f"$x_{axis + 1}$ ({'private' if private else 'public'})"


# ----------------------------------------------------------------------------------------------
# The paper's Figure 2 from a results table
# ----------------------------------------------------------------------------------------------
#: A panel with more series than this gets its legend beside the axes: inside, it covered
#: lines (Figure 2(a)'s seven series: the LDP (Hist) curve ran through the labels).
LEGEND_INSIDE_MAX = 4
BESIDE_WIDTH = 3.3  # inches the figure widens by for a legend beside the axes


def series_legend(ax, beside):
    """The legend of a results panel: where it covers least inside the axes, or beside them."""
    if beside:
        return ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1, 1),
                         fontsize="small")
    return ax.legend(frameon=False, loc="best", fontsize="small")


@_styled
def figure2_panel(results, x, series="series", y="mse", ax=None, logx=False, logy=False,
                  title=None, colors=None, legend="auto"):
    """Mean of ``y`` over replications against ``x``, one line per ``series``, +-2 SE bars.

    Parameters
    ----------
    results : pandas.DataFrame
        Tidy results, one row per (series, x, replication), e.g. from
        :mod:`ldpviz.reproduce.experiments`.
    x, series, y : str
        Column names: the horizontal axis, the legend groups and the metric.
    ax : matplotlib Axes or None
        Draw into this Axes; None makes a new Figure.
    logx, logy : bool
        Log scales (Figure 2(b) uses a log n axis).
    title : str or None
    colors : dict or None
        Colour of each series (to keep a method's colour across panels); default: palette
        order.
    legend : {"auto", "inside", "beside"}
        Where the legend goes; "auto": beside the axes for more than ``LEGEND_INSIDE_MAX``
        series (a new Figure then widens by ``BESIDE_WIDTH`` inches), else inside.

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_choice(legend, "legend", ("auto", "inside", "beside"))
    stats = results.groupby([series, x], sort=True)[y].agg(["mean", "std", "count"])
    n_series = stats.index.get_level_values(0).nunique()
    beside = legend == "beside" or (legend == "auto" and n_series > LEGEND_INSIDE_MAX)
    if ax is None:
        fig, (ax,) = _figure(width=5.2, extra=BESIDE_WIDTH if beside else 0.0)
    else:
        fig = ax.figure
    for i, (name, group) in enumerate(stats.groupby(level=0, sort=False)):
        xs = group.index.get_level_values(1).to_numpy()
        se = (group["std"] / np.sqrt(group["count"])).fillna(0).to_numpy()
        color = (colors or {}).get(name, COLORS[i % len(COLORS)])
        ax.errorbar(xs, group["mean"], yerr=2 * se, label=str(name), capsize=3, color=color,
                    marker=MARKERS[i % len(MARKERS)])
    ax.set_xlabel(x)
    ax.set_ylabel(f"{y.upper() if y == 'mse' else y} (mean ± 2 SE)")
    if logx:  # label the values that were run, not log-decade ticks
        ax.set_xscale("log")
        values = np.unique(stats.index.get_level_values(1).to_numpy())
        ax.set_xticks(values, [f"{v:g}" for v in values])
        ax.minorticks_off()
    if logy:
        ax.set_yscale("log")
    if title:
        ax.set_title(title)
    series_legend(ax, beside)
    return fig


# ----------------------------------------------------------------------------------------------
# Static versions of the explorers' views
# ----------------------------------------------------------------------------------------------
def _heatmap(ax, z, vmin=-0.5, vmax=3.0):
    """z sampled on cell centres of a regular grid over the unit square."""
    return ax.imshow(z, origin="lower", extent=(0, 1, 0, 1), cmap=CMAP, vmin=vmin, vmax=vmax,
                     aspect="equal", interpolation="nearest")


def _estimate_name(view_kwargs, out=None):
    """Which HistOfTree estimate a view fitted, for a figure's title: eq (9) as printed or
    ldpviz's stable estimate, and the budget split rho when a view reports it."""
    paper = view_kwargs.get("cell_estimate", "stable") == "paper"
    name = "eq (9) as printed" if paper else "stable estimate"
    if out is not None and "rho" in out:
        auto = view_kwargs.get("rho", 0.5) == "auto"
        name += f", ρ = {out['rho']:.2g}" + (" (auto)" if auto else "")
    return name


@_styled
def plot_partition(**view_kwargs):
    """The combined partition on a 2-D slice, coloured by f~ (see views.partition_view)."""
    out = views.partition_view(**view_kwargs)
    x_axis, y_axis = view_kwargs.get("x_axis", 0), view_kwargs.get("y_axis", 4)
    fig, (ax,) = _figure(width=6.0, height=5.2)
    image = _heatmap(ax, out["z"])
    ax.plot(out["edge_x"], out["edge_y"], color=BLACK, lw=1.2, label="cell edges")
    ax.scatter(out["point_x"], out["point_y"], s=10, c="white", edgecolors=BLACK,
               linewidths=0.5, alpha=0.8, label="users (a protected coordinate at random)")
    ax.set_xlabel(_feature(x_axis, out["x_private"]))
    ax.set_ylabel(_feature(y_axis, out["y_private"]))
    ax.set_title(f"{out['n_cells']} cells, {_estimate_name(view_kwargs, out)}: "
                 f"MSE {out['mse']:.3f}\n(no privacy, same cells: {out['mse_nonprivate']:.3f})")
    fig.colorbar(image, ax=ax, label=r"$\tilde f(x)$")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), frameon=False, ncols=2,
              markerscale=2, fontsize="small")
    return fig


@_styled
def plot_surface(**view_kwargs):
    """Truth, privatised and non-private estimates side by side (see views.surface_view)."""
    out = views.surface_view(**view_kwargs)
    # three maps in one row (2.6 in each, the colour bar beside): titles on two lines
    # and ticks at 0, 0.5, 1 (0.25 steps ran into each other), y tick labels on the first only
    fig, axes = _figure(ncols=3, width=2.6, height=3.6, extra=0.95)
    estimate = _estimate_name(view_kwargs)
    titles = ("truth $f^*$\n", rf"$\tilde f$, {estimate}" f"\n(MSE {out['mse']:.3f})",
              f"no privacy, same cells\n(MSE {out['mse_nonprivate']:.3f})")
    for ax, key, title in zip(axes, ("truth", "private", "nonprivate"), titles, strict=True):
        image = _heatmap(ax, out[key])
        ax.set_title(title)
        ax.set_xlabel(r"$x_1$")
        ax.set_xticks([0, 0.5, 1], ["0", "0.5", "1"])
        ax.set_yticks([0, 0.5, 1], ["0", "0.5", "1"] if ax is axes[0] else [])
    axes[0].set_ylabel(r"$x_5$")
    fig.get_layout_engine().set(w_pad=0.1)  # a gap between one map's "1" and the next one's "0"
    fig.colorbar(image, ax=axes, label="f(x)", shrink=0.8)
    return fig


@_styled
def plot_mask(W, hist_axes=(), ax=None, max_rows=200, title=None, n_users=None):
    """A privacy mask as a users x features image (Figure 1 style); histogram axes outlined.

    ``W`` may be a strided sample of a sorted mask's rows; ``n_users`` then gives the full
    number of users for the axis.
    """
    W = validate_mask(W)
    hist_axes = check_feature_indices(hist_axes, W.shape[1], "hist_axes")
    max_rows = check_int(max_rows, "max_rows", 1)
    n_users = len(W) if n_users is None else check_int(n_users, "n_users", len(W))
    if ax is None:
        fig, (ax,) = _figure(width=3.2, height=4.2)
    else:
        fig = ax.figure
    rows = np.unique(np.linspace(0, len(W) - 1, min(max_rows, len(W))).astype(int))
    ax.imshow(W[rows].astype(int), aspect="auto", interpolation="nearest",
              cmap=mcolors.ListedColormap(["#f4f4f4", COLORS[0]]), vmin=0, vmax=1,
              extent=(-0.5, W.shape[1] - 0.5, n_users, 0))
    for a in hist_axes:
        ax.add_patch(plt.Rectangle((a - 0.5, 0), 1, n_users, fill=False, lw=2.5,
                                   edgecolor=COLORS[4]))
    ax.set_xticks(range(W.shape[1]), [f"$x_{j + 1}$" for j in range(W.shape[1])])
    ax.set_ylabel("user")
    ax.set_title(title or "blue = protected")
    return fig


@_styled
def plot_masks(masks, hist_axes=None):
    """Several masks side by side, e.g. the aligned, concentrated and spread cases of Figure 1.

    ``masks`` maps a title to a mask; ``hist_axes`` maps a title to the axes to outline.
    """
    fig, axes = _figure(ncols=len(masks), width=2.9, height=4.0)  # three to a row
    for ax, (title, W) in zip(axes, masks.items(), strict=True):
        plot_mask(W, (hist_axes or {}).get(title, ()), ax=ax, title=title)
    return fig


@_styled
def plot_lambda(**view_kwargs):
    """Mask, delta(p) and the objective (11) against p (see views.lambda_view)."""
    out = views.lambda_view(**view_kwargs)
    fig, axes = _figure(ncols=3, width=4.4, height=3.3)  # two to a row, p on the second
    plot_mask(out["mask"], out["hist_axes"], ax=axes[0], n_users=out["mask_rows"][-1] + 1)
    axes[1].semilogy(out["p"], out["delta"], marker="o", color=COLORS[4])
    axes[1].set(xlabel="depth p", ylabel=r"$\delta(p)$, eq (12)")
    _objective_axes(axes[2], out)
    axes[2].set_title(rf"$\lambda^* = {out['lambda_star']:.2f}$, rate exponent "
                      f"{out['exponent']:.3f}")
    return fig


def _objective_axes(ax, out):
    ax.semilogy(out["p"], out["term1"], "--", color=COLORS[1], label="privatised error")
    ax.semilogy(out["p"], out["term2"], "--", color=COLORS[2], label="approximation")
    ax.semilogy(out["p"], out["total"], color=COLORS[0], label="sum")
    # p* marked from the axis up to the sum's minimum only: a full-height line would cross the
    # legend in the top corner wherever p* lies.
    p_star = out["p_star"]
    bottom, top = ax.get_ylim()
    ax.vlines(p_star, bottom, np.interp(p_star, out["p"], out["total"]), color=COLORS[3],
              ls=":", label=f"p* = {p_star:.0f}")
    ax.set_ylim(bottom, top)
    ax.set(xlabel="depth p", ylabel="bound (up to constants)")
    ax.legend(frameon=False)


@_styled
def plot_tradeoff(**view_kwargs):
    """Terms of (15) vs p, the rate (13) vs s, bounds (13) vs (10) in epsilon."""
    out = views.tradeoff_view(**view_kwargs)
    fig, axes = _figure(ncols=3, width=4.4, height=3.3)  # two to a row, epsilon on the second
    _objective_axes(axes[0], out)
    axes[1].plot(out["s_values"], out["exponents"], marker="o", color=COLORS[4])
    sel = out["s_selected"]
    axes[1].plot([sel], [out["exponents"][sel]], "*", ms=16, color=COLORS[3],
                 label=f"(15) selects s = {sel}")
    axes[1].set(xlabel="s", ylabel="rate exponent (13)")
    axes[1].legend(frameon=False)
    eps, upper, eps_max = out["epsilons"], out["upper"], out["epsilon_max"]
    claimed = eps <= eps_max * 1.0001
    axes[2].loglog(eps[claimed], upper[claimed], color=COLORS[3],
                   label=f"upper bound (13), w.h.p., ε ≲ {eps_max:.3g}")
    beyond = slice(max(int(claimed.sum()) - 1, 0), None)
    axes[2].loglog(eps[beyond], upper[beyond], ":", color=COLORS[3],
                   label="(13) where it is not claimed")
    axes[2].loglog(eps, out["lower"], "--", color=BLACK, label="lower bound (10)")
    axes[2].axvspan(min(eps_max, eps[-1]), eps[-1], color="0.9", zorder=0)
    axes[2].set(xlabel=r"$\varepsilon$", ylabel="excess risk (constants dropped)")
    axes[2].set_title("constants dropped: compare slopes, not heights", fontsize=10)
    ticks, text = views.log_ticks(np.r_[upper, out["lower"]])
    axes[2].set_yticks(ticks, text)  # one tick style (as in the explorers)
    axes[2].yaxis.set_minor_formatter(ticker.NullFormatter())
    axes[2].set_ylim(0.8 * min(upper.min(), out["lower"].min()),
                     2.4 * max(upper.max(), out["lower"].max()))  # room for the legend
    axes[2].set_xticks([0.25, 1, 4, 16, 64], ["0.25", "1", "4", "16", "64"])
    axes[2].xaxis.set_minor_formatter(ticker.NullFormatter())
    axes[2].legend(frameon=False, fontsize="small", loc="upper right")
    return fig


@_styled
def plot_mechanisms(**view_kwargs):
    """What one user sends at a given epsilon (see views.mechanism_view)."""
    out = views.mechanism_view(**view_kwargs)
    fig, axes = _figure(ncols=2, width=4.4, height=3.6)
    for y0, color in zip(out["labels"], COLORS, strict=False):
        axes[0].plot(out["grid"], out["density"][y0], color=color, label=f"true label {y0:+g}")
    axes[0].set(xlabel=r"released label $\tilde Y$", ylabel="density",
                title=f"Laplace, scale {out['scale']:.2f}")
    axes[0].legend(frameon=False)
    k = np.arange(1, len(out["grr_probs"]) + 1)
    axes[1].bar(k, out["grr_probs"], color=[COLORS[0]] + [COLORS[5]] * (len(k) - 1))
    axes[1].set(xlabel="reported cell (1 = true cell)", ylabel="probability",
                title=f"GRR over {len(k)} cells")
    axes[1].xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    return fig


#: Peak bytes per point of plot_objective_vs_side (about 40 measured with tracemalloc; drawing
#: copies the points) and points per curve.
_SIDE_POINT_BYTES = 64
_SIDE_CURVE_POINTS = 200


def _check_side_points(q_max, d, s_values):
    """Refuse curves and integer depths (about q_max (d - s) per s) beyond max_bytes, naming
    q_max, or s_values when even the smallest q_max would not fit."""
    limit = get_config()["max_bytes"] / _SIDE_POINT_BYTES
    curves, per_q = _SIDE_CURVE_POINTS * len(s_values), sum(d - s for s in s_values)
    size = {"max_bytes": int(_SIDE_POINT_BYTES * (curves + q_max * per_q))}
    fits = (limit - curves) / max(per_q, 1)
    if fits > 0.05:
        step = 10.0 ** (math.floor(math.log10(fits)) - 2)  # 3 significant digits, rounded down
        check_budget("plot_objective_vs_side", "q_max", q_max, size,
                     fits=f"{step * math.floor(fits / step):.3g}")
    check_budget("plot_objective_vs_side", "len(s_values)", len(s_values), size,
                 fits=int(limit // (_SIDE_CURVE_POINTS + q_max * d)))


@_styled
def plot_objective_vs_side(W, n, epsilon, s_values=None, q_max=1.6):
    """(15) against the cell side exponent q = p / (d - s), one curve and integer-p points per s.

    Shows why the search over integer depths can pick different s than the continuous
    optimum: each s sees its own grid q = 1/(d-s), 2/(d-s), ...
    """
    W = validate_mask(W)
    d = W.shape[1]
    s_values = [check_int(s, "s_values", 0, d - 1) for s in (range(d) if s_values is None
                                                              else s_values)]
    _check_side_points(check_real(q_max, "q_max", low=0.05, low_open=True), d, s_values)
    fig, (ax,) = _figure(width=7.0, height=4.4)
    q = np.linspace(0.05, q_max, 200)
    for i, s in enumerate(s_values):
        color, marker = COLORS[i % len(COLORS)], MARKERS[i % len(MARKERS)]
        ax.semilogy(q, theory.objective_curve(W, s, n, epsilon, p=q * (d - s)).total,
                    color=color, alpha=0.6, label=f"s = {s}")
        p_int = np.arange(1, int(q_max * (d - s)) + 1)
        ax.semilogy(p_int / (d - s), theory.objective(W, s, p_int, n, epsilon).total, marker,
                    color=color, ls="none", ms=7, mfc="none")
    ax.set(xlabel=r"q = p / (d - s)   (cell side $2^{-q}$)", ylabel="(15), up to constants",
           title=f"lines: any depth; markers: integer p (n = {n:,}, ε = {epsilon:g})")
    ax.legend(frameon=False, fontsize="small")
    return fig


@_styled
def plot_attack(table):
    """Attacker's accuracy on a private bit against its correlation with a public one.

    ``table`` is :func:`ldpviz.bcdp.attack_table`'s result: exact values as lines, simulated
    ones as dots.
    """
    fig, (ax,) = _figure(width=7.0, height=4.2)
    names = {"public": "from the public feature", "release": "from the private release",
             "both": "from both"}
    for i, (key, label) in enumerate(names.items()):
        ax.plot(table.index, table[f"{key}_exact"], color=COLORS[i], label=label)
        ax.plot(table.index, table[key], "o", color=COLORS[i])
    ax.axhline(0.5, color="grey", ls=":", label="guessing without data")
    ax.set(xlabel="correlation between the public and the private feature",
           ylabel="attacker's accuracy", title="lines: exact, dots: simulated users")
    ax.legend(frameon=False)
    return fig


def _value_ticks(ax, values, per_line=6):
    """A tick per value at equal spacing, labelled with the value; beyond ``per_line`` values
    every second label sits on a second line, so neighbours never touch (twelve q values on
    one line read as "0.010.020.05")."""
    labels = [f"{v:g}" for v in values]
    if len(labels) <= per_line:
        ax.set_xticks(np.arange(len(labels)), labels)
        return
    at = np.arange(len(labels))
    ax.set_xticks(at[::2], labels[::2])
    ax.set_xticks(at[1::2], labels[1::2], minor=True)  # the second line: minor ticks, as long
    label = font_manager.FontProperties(size=plt.rcParams["xtick.labelsize"])
    line = label.get_size_in_points() * 1.4
    ax.tick_params(axis="x", which="minor", length=plt.rcParams["xtick.major.size"],
                   width=plt.rcParams["xtick.major.width"],
                   pad=plt.rcParams["xtick.major.pad"] + line)


@_styled
def plot_bcdp_sweep(table):
    """BCDP against plain LDP as the correlation q varies (:func:`ldpviz.bcdp.sweep_q`)."""
    fig, axes = _figure(ncols=2, width=4.4, height=4.4)
    xs = np.arange(len(table))
    panels = ((axes[0], "total", "all coordinates"),
              (axes[1], "sensitive", "the sensitive coordinates"))
    for ax, key, title in panels:
        ax.semilogy(xs, table[f"bcdp_{key}"], "-o", color=COLORS[0], label="BCDP, exact")
        ax.semilogy(xs, table[f"ldp_{key}"], "--o", color=BLACK, label="plain LDP, exact")
        if key == "total":
            ax.semilogy(xs, table["bcdp_total_projected"], ":s", mfc="none", color=COLORS[0],
                        label="BCDP, projected (simulated)")
            ax.semilogy(xs, table["ldp_total_projected"], ":s", mfc="none", color=BLACK,
                        label="plain LDP, projected (simulated)")
        _value_ticks(ax, table.index)
        ax.set(xlabel="correlation q (equally spaced)", ylabel="MSE of the mean", title=title)
    # one legend for both panels, below them: inside, it covered the curves of narrow panels
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=2,
               frameon=False, fontsize="small")
    return fig


#: Line style of each oracle: OLH dashed over OUE, whose variance it nearly equals.
_ORACLE_STYLE = {"grr": (COLORS[1], "-"), "sue": (COLORS[2], "-"), "oue": (COLORS[0], "-"),
                 "olh": (BLACK, "--")}


@_styled
def plot_oracle_variance(**view_kwargs):
    """Variance of a share's estimate per frequency oracle, against k and against epsilon.

    Draws :func:`ldpviz.viz.views.oracle_variance_view` (same keyword arguments): left, against
    the number of values k at the given epsilon, with GRR's crossover ``k = 3 e^eps + 2``;
    right, against epsilon at the given k.
    """
    out = views.oracle_variance_view(**view_kwargs)
    fig, axes = _figure(ncols=2, width=4.4, height=3.6)
    for name in out["oracles"]:
        color, style = _ORACLE_STYLE[name]
        label = out["labels"][name]
        axes[0].loglog(out["k_values"], out["by_k"][name], style, color=color, label=label)
        axes[1].semilogy(out["epsilons"], out["by_epsilon"][name], style, color=color,
                         label=label)
    cross = out["crossover_k"]
    if cross <= out["k_values"][-1]:
        axes[0].axvline(cross, color="grey", ls=":", lw=1)
        axes[0].annotate(rf"$k = 3e^\varepsilon + 2$ ≈ {cross:.3g}", (cross, 0.97),
                         xycoords=("data", "axes fraction"), xytext=(4, 0),
                         textcoords="offset points", ha="left", va="top", fontsize=10,
                         color="0.3")
    n_text = f"n = {out['n']:,.0f}"
    axes[0].set(xlabel="number of values k", ylabel="variance of a share's estimate",
                title=f"ε = {out['epsilon']:g}, {n_text}")
    axes[1].axvline(out["epsilon"], color="grey", ls=":", lw=1)
    axes[1].set(xlabel="ε", title=f"k = {out['k']:,}, {n_text}")
    # one legend below both panels: inside, it covered the flat lines of SUE, OUE and OLH
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=4,
               frameon=False)
    return fig
