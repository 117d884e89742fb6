"""The what-if result as something to read and to send: text, figures, CSV, PNG and HTML.

:func:`write_whatif` writes, into one folder, the tidy CSV files (best grid points per split,
every grid point, the summary, the answers, the per-column costs), static PNG figures, a
markdown summary and a self-contained HTML report (:class:`ldpviz.reproduce.report.HtmlReport`:
plotly embedded inline, no external URL) with the answers, the tables, the figures and every
choice made.

Names from the table (columns, categories, the file and the target) reach every output inert
(:mod:`ldpviz._safe_text`): no formula in a CSV cell, no markup in the HTML or a plotly label,
no link or broken row in the markdown, no mathtext in a PNG.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .._safe_text import markdown_text, mpl_text, plotly_text, write_csv
from ..datasets._common import shortlist
from .paper import LABEL_LDP_SENTENCE, LABEL_ONLY
from .report import HtmlReport
from .whatif_answers import YARDSTICK, in_units, pct, units, wide_summary

__all__ = [
    "answer_markdown",
    "answers_display",
    "console_text",
    "costs_figure",
    "markdown_table",
    "matplotlib_figure",
    "output_names",
    "plotly_costs",
    "plotly_ratios",
    "write_whatif",
]

# One colour and marker per method, the same in every panel and figure.
STYLE = {
    "HistOfTree ME": ("#0072B2", "o", "-"), "HistOfTree CART": ("#56B4E9", "s", "-"),
    "AdHistOfTree ME": ("#009E73", "^", "-"), "AdHistOfTree CART": ("#00C08B", "v", "-"),
    "ParDT": ("#D55E00", "D", "-"), "KRR": ("#CC79A7", "P", "-"), "Hist": ("#E69F00", "X", "-"),
    "HistOfTree s=0": ("#000000", "*", "--"), "LabelDT": ("#777777", "h", "--"),
}
#: The training mean's line (the yardstick) in every ratio figure.
YARDSTICK_STYLE = ("#555555", "-.")
YARDSTICK_LABEL = f"{YARDSTICK} (no feature, no privacy)"
PLOTLY_SYMBOLS = {"o": "circle", "s": "square", "^": "triangle-up", "v": "triangle-down",
                  "D": "diamond", "P": "cross", "X": "x", "*": "star", "h": "hexagon"}
PARADIGMS = ("aligned", "personalized")
#: One colour per epsilon in the cost charts: the report's palette (Okabe-Ito, as :data:`STYLE`).
EPSILON_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
                   "#000000", "#777777")


def _epsilon_colour(i):
    return EPSILON_COLOURS[i % len(EPSILON_COLOURS)]


#: What the ratio table's star, ± and rows mean (the console, the markdown and the HTML).
RATIO_LEGEND = (
    "mean ± 2 SE over the splits; * = the best method that respects the protection, "
    "significantly better than each other one (paired over the splits: a one-sided Wilcoxon "
    "signed-rank test at 0.05 and a mean paired difference beyond 2 SE; the ± shown is each "
    "method's own spread over the splits, wider than the paired differences). HistOfTree s=0 "
    f"and LabelDT protect the label only. Under 'no privacy': DT, the reference, and the "
    f"yardstick to beat, the {YARDSTICK.lower()} (the mean of the training labels predicted "
    "for every row: no feature, no privacy)")
COSTS_LEGEND = (
    "* = significant: paired over the splits, a one-sided Wilcoxon signed-rank test at 0.05 "
    "and a mean paired difference beyond 2 SE; 0% (unused) = the same test error on every "
    "split: the tree seeing every column did not use that column")


def _rows(result):
    summary = result.summary
    return summary[summary["role"].isin(["protected", "label"])]


def yardstick_ratio(result):
    """The training mean's MSE over DT's (:data:`YARDSTICK`), or None if it did not run."""
    rows = result.summary[result.summary["method"] == YARDSTICK]
    return float(rows["ratio"].iloc[0]) if len(rows) else None


def label_only_note(result):
    """Why the two label-only references differ (:data:`ldpviz.reproduce.paper.
    LABEL_LDP_SENTENCE`), when the analysis ran both; else None."""
    methods = set(result.summary["method"]) if len(result.summary) else set()
    return LABEL_LDP_SENTENCE if set(LABEL_ONLY) <= methods else None


def markdown_table(frame, index=True, escape=None):
    """A DataFrame as a markdown table (no optional dependency). ``escape``: applied to every
    header and cell, e.g. :func:`ldpviz._safe_text.markdown_text` for a markdown file (a ``|``
    in a name then stays inside its cell)."""
    escape = escape or str
    frame = frame.reset_index() if index else frame
    head = "| " + " | ".join(escape(c) for c in frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join(escape(f"{v:.4g}" if isinstance(v, float) else v) for v in row)
            + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body])


# ----------------------------------------------------------------------------------------------
# Figures
# ----------------------------------------------------------------------------------------------
def _new_figure(ncols, width=5.6, height=4.4, sharey=False):
    fig = plt.figure(figsize=(width * ncols, height), layout="constrained")
    plt.close(fig)  # shown once when returned to a notebook, never left open
    return fig, fig.subplots(1, ncols, squeeze=False, sharey=sharey)[0]


def reference_rmse(result):
    """The non-private tree DT's test RMSE (root of its mean test MSE over the splits)."""
    mse = result.best.loc[result.best["method"] == "DT", "mse"]
    return float(np.sqrt(mse.mean())) if len(mse) else None


def figure_title(result, width):
    """What a figure shows, wrapped to ``width`` characters: the table and its target, the
    protected columns, epsilons, splits and the non-private tree's RMSE in the label's units."""
    c = result.choices
    target = c.get("target")
    lines = [f"What-if on {c['data']}" + (f", predicting {target}" if target else "")]
    if c.get("private"):
        lines.append(f"protected by every user: {shortlist(c['private'])}"
                     + (f"; by some users also: {shortlist(c['personalized'])}"
                        if c.get("personalized") else ""))
    else:
        lines.append("no column assumed private: each column protected alone")
    test = c.get("test_size", 0.3)
    lines.append(f"ε = {', '.join(f'{e:g}' for e in c['epsilons'])}; {c['splits']} random "
                 f"{1 - test:.0%}/{test:.0%} train/test splits")
    rmse = reference_rmse(result)
    if rmse is not None:
        lines.append(f"non-private tree's test RMSE {units(rmse)} ({in_units(target)})")
    return "\n".join(textwrap.fill(line, width) for line in lines)


def _title_chars(fig):
    """Characters of 10-point text a title line may hold: 11 per inch of figure width (a
    lower-case 'a' is 6.1 pt wide; 13 per inch ran 'aaa...' and long titles off the edge)."""
    return int(11 * fig.get_figwidth())


def _no_math():
    """matplotlib settings under which no text is TeX (a user's rcParams may ask for it)."""
    return plt.rc_context({"text.usetex": False})


def matplotlib_figure(result):
    """MSE ratio to DT against epsilon (mean +- 2 SE), one panel per paradigm, titled with what
    it shows (:func:`figure_title`)."""
    rows = _rows(result)
    paradigms = [p for p in PARADIGMS if (rows["paradigm"] == p).any()] or ["aligned"]
    with _no_math():
        return _ratio_figure(result, rows, paradigms)


def _ratio_figure(result, rows, paradigms):
    fig, axes = _new_figure(len(paradigms), height=5.0, sharey=True)
    fig.suptitle(mpl_text(figure_title(result, _title_chars(fig))), fontsize=10)
    epsilons = sorted(rows["epsilon"].dropna().unique())
    yardstick = yardstick_ratio(result)
    handles = {}
    with plt.rc_context({"font.size": 11}):
        for ax, paradigm in zip(axes, paradigms, strict=True):
            groups = list(rows[rows["paradigm"] == paradigm].groupby("method", sort=False))
            for i, (method, group) in enumerate(groups):
                color, marker, line = STYLE.get(method, ("#333333", "o", "-"))
                group = group.sort_values("epsilon")
                # Methods side by side at each epsilon, so error bars do not hide each other.
                dodge = 2.0 ** (0.05 * (i - (len(groups) - 1) / 2))
                handles[method] = ax.errorbar(
                    group["epsilon"] * dodge, group["ratio"], yerr=2 * group["ratio_se"],
                    label=method, color=color, marker=marker, ls=line, capsize=3)
            ax.axhline(1.0, color="grey", lw=0.8, ls=":")
            if yardstick is not None:
                handles[YARDSTICK_LABEL] = ax.axhline(yardstick, color=YARDSTICK_STYLE[0],
                                                      lw=1.2, ls=YARDSTICK_STYLE[1])
            ax.set_xscale("log")
            ax.set_xticks(epsilons, [f"{e:g}" for e in epsilons])
            if len(epsilons) == 1:  # centre a lone epsilon instead of pinning it to an edge
                ax.set_xlim(epsilons[0] / 2, epsilons[0] * 2)
            ax.minorticks_off()
            ax.set_xlabel("ε")
            ax.set_title(paradigm)
        axes[0].set_ylabel("MSE / MSE of the non-private tree (± 2 SE)")
        order = [m for m in STYLE if m in handles] + [m for m in handles if m not in STYLE]
        # About three entries fit across one panel; more would run off the figure's edges.
        fig.legend([handles[m] for m in order], [m.replace(" (", "\n(") for m in order],
                   loc="outside lower center", ncol=min(len(order), 3 * len(paradigms)),
                   fontsize=9, frameon=False)
    return fig


def costs_figure(result, top=20):
    """Cost of protecting each column alone (+- 2 SE), the ``top`` costliest, per epsilon."""
    with _no_math():
        return _costs_figure(result, top)


def _costs_figure(result, top):
    costs = result.costs
    order = costs.groupby("column")["cost"].mean().sort_values(ascending=False).index[:top]
    epsilons = sorted(costs["epsilon"].unique())
    ticks = [_tick(c) for c in order]
    # Room below the axes for the longest tick label, slanted at 60 degrees.
    height = 3.2 + 0.07 * max(len(t) for t in ticks)
    fig, (ax,) = _new_figure(1, width=max(6.0, 0.45 * len(order) + 2), height=height)
    width = 0.8 / len(epsilons)
    x = np.arange(len(order))
    for i, eps in enumerate(epsilons):
        sub = costs[costs["epsilon"] == eps].set_index("column").reindex(order)
        ax.bar(x + i * width - 0.4 + width / 2, 100 * sub["cost"], width,
               yerr=200 * sub["se"], capsize=2, label=f"ε = {eps:g}", color=_epsilon_colour(i),
               ecolor="#333333")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xticks(x, [mpl_text(t) for t in ticks], rotation=60, ha="right")
    ax.set_ylabel("extra error (%, ± 2 SE)")
    c = result.choices
    # Over the whole figure: centred over the axes (right of the y label) it ran off the edge.
    fig.suptitle(mpl_text(textwrap.fill(
        f"cost of protecting one column alone: {c['data']}"
        + (f", predicting {c['target']}" if c.get("target") else "")
        + f"; {c['splits']} splits", _title_chars(fig))), fontsize=10)
    ax.legend(fontsize=8)
    return fig


#: Longest tick label of the static cost chart; a longer name is cut with "…" there (the
#: tables, the HTML and its interactive chart show it whole).
MAX_TICK = 60


def _tick(name):
    name = str(name)
    return name if len(name) <= MAX_TICK else name[:MAX_TICK - 1] + "…"


def plotly_ratios(result):
    """The ratio figure in plotly, for the HTML report (same colours and markers)."""
    rows = _rows(result)
    paradigms = [p for p in PARADIGMS if (rows["paradigm"] == p).any()] or ["aligned"]
    fig = make_subplots(rows=1, cols=len(paradigms), subplot_titles=paradigms,
                        shared_yaxes=True)
    for col, paradigm in enumerate(paradigms, start=1):
        for method, group in rows[rows["paradigm"] == paradigm].groupby("method", sort=False):
            color, marker, line = STYLE.get(method, ("#333333", "o", "-"))
            group = group.sort_values("epsilon")
            fig.add_trace(go.Scatter(
                x=group["epsilon"], y=group["ratio"], name=method, legendgroup=method,
                showlegend=col == 1, mode="lines+markers",
                marker={"symbol": PLOTLY_SYMBOLS.get(marker, "circle"), "size": 9,
                        "color": color},
                line={"color": color, "dash": "dash" if line == "--" else "solid"},
                error_y={"type": "data", "array": 2 * group["ratio_se"], "visible": True}),
                row=1, col=col)
        yardstick = yardstick_ratio(result)
        if yardstick is not None:
            epsilons = sorted(rows["epsilon"].unique())
            fig.add_trace(go.Scatter(
                x=[epsilons[0] / 1.2, epsilons[-1] * 1.2], y=[yardstick] * 2,
                name=YARDSTICK_LABEL, legendgroup=YARDSTICK, showlegend=col == 1, mode="lines",
                line={"color": YARDSTICK_STYLE[0], "dash": "dashdot", "width": 1.5},
                hovertemplate=f"{YARDSTICK}: %{{y:.2f}} × DT<extra></extra>"), row=1, col=col)
        fig.update_xaxes(type="log", title_text="ε", row=1, col=col,
                         tickvals=sorted(rows["epsilon"].unique()))
    fig.update_yaxes(title_text="MSE / non-private tree's MSE (± 2 SE)", row=1, col=1)
    fig.add_hline(y=1.0, line_dash="dot", line_color="grey")
    fig.update_layout(height=460, template="plotly_white", margin={"t": 40},
                      legend={"orientation": "h", "y": -0.25})
    return fig


def plotly_costs(result, top=30):
    """The per-column costs in plotly (+- 2 SE), the ``top`` costliest columns."""
    costs = result.costs
    order = list(costs.groupby("column")["cost"].mean().sort_values(ascending=False)
                 .index[:top])
    fig = go.Figure()
    shown = [plotly_text(c) for c in order]  # names are data: plotly would render markup
    for i, eps in enumerate(sorted(costs["epsilon"].unique())):
        sub = costs[costs["epsilon"] == eps].set_index("column").reindex(order)
        fig.add_trace(go.Bar(x=shown, y=100 * sub["cost"], name=f"ε = {eps:g}",
                             marker_color=_epsilon_colour(i),
                             error_y={"type": "data", "array": 200 * sub["se"],
                                      "color": "#333333"}))
    # Slanted names take their length's room below the bars out of the height: at a fixed
    # 440 px, 16 long names left a plot shorter than its y title, which was cut.
    longest = max((len(str(c)) for c in order), default=0)
    fig.update_layout(barmode="group", height=360 + 5 * min(longest, 120),
                      template="plotly_white", yaxis_title="extra error (%, ± 2 SE)",
                      margin={"t": 40}, legend={"orientation": "h", "y": 1.02,
                                                "yanchor": "bottom"})  # above: names below
    return fig


# ----------------------------------------------------------------------------------------------
# Text
# ----------------------------------------------------------------------------------------------
def _by_epsilon(wide):
    """A table with one column per epsilon, headed "ε = 2" rather than "2.0"."""
    return wide.rename(columns=lambda e: f"ε = {e:g}" if isinstance(e, float) else e)


def _costs_table(costs):
    unused = costs["unused"] if "unused" in costs else [False] * len(costs)
    wide = costs.assign(cell=["0% (unused)" if no else
                              pct(c, s if np.isfinite(s) else None) + ("*" if sig else "")
                              for c, s, sig, no in zip(costs["cost"], costs["se"],
                                                       costs["significant"], unused,
                                                       strict=True)])
    return wide.pivot(index="column", columns="epsilon", values="cell")


def answers_display(table):
    """The answers' numbers, one readable row per (epsilon, paradigm)."""
    rows = []
    for r in table.to_dict("records"):
        row = {"ε": f"{r['epsilon']:g}", "paradigm": r["paradigm"]}
        if isinstance(r.get("winner"), str):
            row["best method"] = r["winner"] + ("*" if r["winner_significant"] else "")
            row["× DT"] = f"{r['winner_ratio']:.2f} ± {2 * r['winner_ratio_se']:.2f}"
            row["test RMSE: DT → best"] = (f"{units(r['reference_rmse'])} → "
                                          f"{units(r['winner_rmse'])}")
        if np.isfinite(r.get("yardstick_ratio", np.nan)):
            row[f"{YARDSTICK}: × DT, RMSE"] = (
                f"{r['yardstick_ratio']:.2f} ± {2 * r['yardstick_ratio_se']:.2f}, "
                f"{units(r['yardstick_rmse'])}")
            if isinstance(r.get("winner"), str):
                row["best beats the mean?"] = "yes" if r["beats_yardstick"] else "no"
        if isinstance(r.get("label_method"), str):
            row["best label-only"] = r["label_method"]
            row["× DT (label-only)"] = f"{r['label_ratio']:.2f} ± {2 * r['label_ratio_se']:.2f}"
            row["cost beyond label-only"] = pct(r["cost_vs_label"], r["cost_vs_label_se"])
            row["p"] = f"{r['cost_p_value']:.2g}"
        if np.isfinite(r.get("hot_t", np.nan)):
            row["HistOfTree's t"] = int(r["hot_t"])
        rows.append(row)
    return pd.DataFrame(rows)


def answer_markdown(result):
    """The answer as a markdown bullet list that shows every name literally (for a notebook's
    ``display(Markdown(...))``: a column named ``[x](https://...)`` is no link)."""
    return "\n".join(f"* {markdown_text(sentence)}" for sentence in result.sentences)


def console_text(result, max_columns=25, markdown=False):
    """What the command prints: the answer in words, then the tables. ``markdown``: every
    piece of text escaped for a markdown file (:func:`ldpviz._safe_text.markdown_text`), so
    that it renders as printed."""
    text = markdown_text if markdown else str
    lines = ["Answer:"] + [f"  - {text(s)}" for s in result.sentences]
    table = wide_summary(result.summary)
    if not table.empty:
        lines += ["", text(f"MSE ratio to the non-private tree DT ({RATIO_LEGEND}):"), "",
                  markdown_table(_by_epsilon(table), escape=text)]
        rmse = reference_rmse(result)
        if rmse is not None:
            lines += ["", text(f"The non-private tree DT's test RMSE is {units(rmse)} "
                               f"({in_units(result.choices.get('target'))}); a ratio r above "
                               "is a test RMSE √r times DT's.")]
        if label_only_note(result):
            lines += ["", text(label_only_note(result))]
    if result.costs is not None:
        costs = _costs_table(result.costs)
        if result.ranking:
            costs = costs.reindex(list(reversed(result.ranking)))
        note = f" (the {max_columns} costliest)" if len(costs) > max_columns else ""
        lines += ["", text(f"Cost of protecting one column alone{note}: extra error of ParDT "
                           "with that column protected, against the same tree seeing every "
                           f"column (same privatised labels; ± 2 SE; {COSTS_LEGEND}):"), "",
                  markdown_table(_by_epsilon(costs.head(max_columns)), escape=text)]
    return "\n".join(lines)


#: What an unset choice means, said in the report instead of "None" or an empty field.
UNSET = {
    "private": "none: each column's cost was measured alone",
    "personalized": "none: the aligned paradigm only",
    "aligned_rule": "not run (no protected columns given)",
    "personalized_rule": "not run (no columns some users also protect)",
    "methods": "ParDT and DT only (the per-column costs)",
    "columns_left_out": "none",
    "public_feature_bounds": "none given",
    "feature_bounds_read_off_data": "none",
    "feature_values_clipped": "none",
    "identifier_like": "none found",
    "loader_summary": "nothing to add",
    "grid_notes": "none",
    "target": "not named",
}


def _choices_for_report(choices):
    """Every choice, with words for the unset ones (:data:`UNSET`, else "none")."""
    keep = {k: v for k, v in choices.items() if k != "feature_names"}
    return {k: UNSET.get(k, "none") if v is None or (hasattr(v, "__len__") and len(v) == 0)
            else v for k, v in keep.items()}


# ----------------------------------------------------------------------------------------------
# Files
# ----------------------------------------------------------------------------------------------
#: What :func:`write_whatif` may write, as suffixes of its ``stem``.
OUTPUTS = ("", "_grid", "_summary", "_answers", "_costs")
FIGURES = ("", "_costs")


def output_names(stem="realdata"):
    """Names of every file :func:`write_whatif` may write with ``stem`` (and nothing else)."""
    return ([f"{stem}{s}.csv" for s in OUTPUTS] + [f"{stem}{s}.png" for s in FIGURES]
            + [f"{stem}.md", f"{stem}.html"])


def _remove_earlier(out, stem):
    """Delete this tool's own files from an earlier run in ``out`` (by their exact names:
    :func:`output_names`); a run that writes fewer files left the others looking current."""
    removed = []
    for name in output_names(stem):
        path = out / name
        if path.is_file() or path.is_symlink():
            path.unlink()
            removed.append(path)
    return removed


def write_whatif(result, out, stem="realdata", command=None, log=None):
    """Write the CSV files, PNG figures, markdown and the HTML report; return their paths.

    Files of an earlier run with the same ``stem`` in ``out`` (only the names this function
    writes, :func:`output_names`) are removed first; those this run does not write again are
    named in one line to ``log`` (a callable, e.g. print), if given.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    removed = _remove_earlier(out, stem)
    written = []

    def save_csv(frame, suffix):
        if frame is not None and len(frame):
            path = out / f"{stem}{suffix}.csv"
            write_csv(frame, path)  # no cell a spreadsheet runs
            written.append(path)

    save_csv(result.best, "")
    save_csv(result.results, "_grid")
    save_csv(result.summary, "_summary")
    save_csv(result.answers, "_answers")
    save_csv(result.costs, "_costs")
    has_ratios = not _rows(result).empty
    figures = {}
    if has_ratios:
        figures[""] = matplotlib_figure(result)
    if result.costs is not None and len(result.costs):
        figures["_costs"] = costs_figure(result)
    for suffix, fig in figures.items():
        path = out / f"{stem}{suffix}.png"
        fig.savefig(path, dpi=120)
        written.append(path)
    text = console_text(result, markdown=True)
    path = out / f"{stem}.md"
    path.write_text(f"# What-if: {markdown_text(result.choices['data'])}\n\n{text}\n",
                    encoding="utf-8")
    written.append(path)
    written.append(html_report(result, command).write(out / f"{stem}.html"))
    stale = [p.name for p in removed if p.name not in {Path(w).name for w in written}]
    if stale and log is not None:
        log(f"removed {len(stale)} file(s) of an earlier run from {out} that this run does not "
            f"write: {', '.join(stale)}")
    return written


def html_report(result, command=None):
    """The self-contained HTML report (an :class:`HtmlReport`)."""
    c = result.choices
    report = HtmlReport(f"What-if: {c['data']}",
                        subtitle=(f"target {c['target']}; " if c.get("target") else "")
                        + f"{c['rows']:,} rows, {c['features']} features; "
                                 f"{c['splits']} random splits; ε in "
                                 f"{', '.join(f'{e:g}' for e in c['epsilons'])}.")
    report.heading("The answer")
    for sentence in result.sentences:
        report.paragraph(sentence, kind="answer")
    for note in result.notes:
        report.paragraph(note, kind="warning")
    if not _rows(result).empty:
        report.heading("Every method, relative to the non-private tree")
        report.figure(plotly_ratios(result), caption="Mean MSE over the splits divided by the "
                      "mean MSE of the best non-private decision tree (DT); bars: ± 2 SE. "
                      "Dashed: label-only privacy (every feature public). Dash-dotted: the "
                      f"{YARDSTICK.lower()}, a constant that uses no feature and no privacy: "
                      "a method above that line predicts worse than the mean.")
        report.table(_by_epsilon(wide_summary(result.summary)), index=True,
                     caption="MSE ratio to DT, mean ± 2 SE (read the legend below).")
        report.paragraph(f"{RATIO_LEGEND[0].upper()}{RATIO_LEGEND[1:]}.", kind="note")
        if label_only_note(result):
            report.paragraph(label_only_note(result), kind="note")
        report.table(answers_display(result.answers),
                     caption="The numbers behind the answer (± 2 SE; cost: extra error of "
                             "the best method over the best label-only one, paired over the "
                             "splits; p: one-sided Wilcoxon signed-rank).")
    if result.costs is not None and len(result.costs):
        report.heading("What each column costs to protect, alone")
        report.figure(plotly_costs(result), caption="ParDT with only that column protected, "
                      "against the same tree seeing every column, on the same privatised "
                      "labels and splits; ± 2 SE.")
        report.table(_by_epsilon(_costs_table(result.costs).reindex(
            list(reversed(result.ranking or [])) or None)), index=True,
            caption="Extra error when protected alone, ± 2 SE.")
        report.paragraph(f"{COSTS_LEGEND[0].upper()}{COSTS_LEGEND[1:]}.", kind="note")
    report.heading("Every choice made (to repeat the run)")
    if command:
        report.code(command)
    report.choices(_choices_for_report(c))
    return report
