"""The reproduction report: one self-contained HTML page with every figure and table of the
HistOfTree paper that ldpviz reproduces, next to the paper's, and the BCDP paper's Figure 3.

``python -m ldpviz reproduce report --out DIR [--quick]`` calls :func:`write_report`, which runs
:func:`ldpviz.reproduce.reproduction.run_reproduction` and renders it with :func:`render`
(:class:`ldpviz.reproduce.report.HtmlReport`: plotly inline, no external URL, works offline).
For each figure: the paper's setting and claims (quoted; the seed text has no numbers for the
figures), ldpviz's plot, its numbers and a verdict per claim. For each table: the paper's
numbers typed in from the seed next to ldpviz's, cells more than 10% away highlighted; Table 1
under each label-range policy. Then one note per known discrepancy
(:mod:`ldpviz.reproduce.reproduction_notes`) and every setting: replications, cell estimate,
times.
"""

from __future__ import annotations

import platform
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .. import __version__
from . import paper
from . import reproduction_checks as checks
from . import reproduction_notes as notes
from .report import HtmlReport
from .reproduction import FULL, QUICK, run_reproduction

__all__ = ["ITEMS", "headlines", "notes_of", "render", "write_report"]

#: Every part of the page: (anchor, title). The figures and tables reproduced come first.
ITEMS = (
    ("fig2a", "Figure 2(a): privacy-utility trade-off"),
    ("fig2b", "Figure 2(b): consistency"),
    ("fig2c", "Figure 2(c): depth p and bins t"),
    ("fig2d", "Figure 2(d): selection of s"),
    ("table1", "Table 1 (epsilon = 2), under each label-range policy"),
    ("table2", "Table 2 (epsilon = 1)"),
    ("table3", "Table 3 (epsilon = 4)"),
    ("bcdp-fig3", "BCDP paper, Figure 3: BCDP against plain LDP"),
    ("notes", "Known discrepancies and their notes"),
    ("settings", "Settings: replications, cell estimate, times"),
)
TITLES = dict(ITEMS)
COLORS = ("#0072B2", "#56B4E9", "#009E73", "#E69F00", "#D55E00", "#CC79A7", "#000000",
          "#777777")
REPORT_FILE = "reproduction.html"


# ----------------------------------------------------------------------------------------------
# Figures
# ----------------------------------------------------------------------------------------------
def _style(series, k):
    if series.startswith("label LDP"):
        return ("#000000" if "HistOfTree" in series else "#777777"), "dash"
    if series.startswith("LDP") or series.startswith("adaptive"):
        return ("#E69F00" if series.startswith("LDP") else "#009E73"), "dot"
    return COLORS[k % 6], "solid"


def figure2_plotly(name, best):
    """One panel of Figure 2 (mean +- 2 SE over the replications, best over the grid)."""
    _, x, logx, title = paper.FIGURES[name]
    means = checks.panel_means(best, x)
    fig = go.Figure()
    for k, (series, group) in enumerate(means.groupby("series", sort=False)):
        color, dash = _style(series, k)
        fig.add_trace(go.Scatter(x=group[x], y=group["mean"], name=series,
                                 mode="lines+markers", line={"color": color, "dash": dash},
                                 marker={"color": color, "size": 8},
                                 error_y={"type": "data", "array": 2 * group["se"],
                                          "visible": True}))
    fig.update_xaxes(type="log" if logx else "linear", title_text=x,
                     tickvals=sorted(means[x].unique()))
    fig.update_yaxes(type="log", title_text="MSE against f* (± 2 SE)")  # ticks: readable_print
    fig.update_layout(title=title, height=460, template="plotly_white", margin={"t": 50},
                      legend={"orientation": "h", "y": -0.25})
    return fig


def bcdp_plotly(table):
    """BCDP against plain LDP as q varies: total error (exact and simulated after projection)
    and the sensitive coordinates' error. q is drawn at equal spacing."""
    labels = [f"{q:g}" for q in table.index]
    fig = go.Figure()
    for column, name, color, dash in (
            ("bcdp_total", "BCDP, total, exact", "#0072B2", "solid"),
            ("ldp_total", "plain LDP, total, exact", "#000000", "solid"),
            ("bcdp_total_projected", "BCDP, total, projected (simulated)", "#0072B2", "dot"),
            ("ldp_total_projected", "plain LDP, total, projected (simulated)", "#000000",
             "dot"),
            ("bcdp_sensitive", "BCDP, 2 sensitive coordinates, exact", "#D55E00", "dash"),
            ("ldp_sensitive", "plain LDP, 2 sensitive coordinates, exact", "#777777",
             "dash")):
        fig.add_trace(go.Scatter(x=labels, y=table[column], name=name, mode="lines+markers",
                                 line={"color": color, "dash": dash}))
    fig.update_xaxes(type="category", title_text="correlation q")
    fig.update_yaxes(type="log", title_text="MSE of the mean")
    fig.update_layout(height=460, template="plotly_white", margin={"t": 30},
                      legend={"orientation": "h", "y": -0.25})
    return fig


def _claims(report, claims, measured):
    """The paper's claims against ldpviz's measurements, one row each, verdict highlighted."""
    found = {key: (text, verdict) for key, text, verdict in measured}
    rows, marks = [], []
    for key, quote in claims:
        text, verdict = found.get(key, ("not run", None))
        word = {True: "agrees", False: "differs", None: "not decided here"}[verdict]
        rows.append([quote, text, word])
        marks.append(["", "", {True: "agrees", False: "differs"}.get(verdict, "")])
    report.table(pd.DataFrame(rows, columns=["the paper says", "ldpviz measured", "verdict"]),
                 classes=marks, caption="Claims of the paper, checked.", align="auto")


def _figure_section(report, name, run):
    setting, claims = notes.FIGURE2_CLAIMS[name]
    report.heading(TITLES[name], anchor=name)
    report.paragraph(f"Paper's setting: {setting}", kind="note")
    report.figure(figure2_plotly(name, run["best"]),
                  caption=f"ldpviz: {run['reps']} replications, best over the grid per point; "
                          f"cell estimate {run['cell_estimate']}.")
    _claims(report, claims, checks.CHECKS[name](run["best"]))
    x = paper.FIGURES[name][1]
    report.table(run["best"].pivot_table(index="series", columns=x, values="mse",
                                         aggfunc="mean"),
                 index=True, caption=f"Mean MSE against f* by {x} (ldpviz).")


# ----------------------------------------------------------------------------------------------
# Tables
# ----------------------------------------------------------------------------------------------
def _missing(report, missing):
    for name, why in missing.items():
        report.paragraph(f"{name}: not run, no local copy of its data ({why}) Set "
                         "LDPVIZ_DATA or --data-home; 'python -m ldpviz reproduce table1' "
                         "downloads the data.", kind="warning")


def _table_section(report, name, run):
    report.heading(TITLES[name], anchor=name)
    eps = paper.TABLE_EPSILON[name]
    report.paragraph(
        f"MSE ratio to the non-private decision tree, epsilon = {eps}, {run['reps']} random "
        "70/30 splits (the paper: 50), best over Appendix C.1's grids; * = Wilcoxon "
        "signed-rank p < 0.05 against every other method of the paradigm; bold = best. Cells "
        f"more than {checks.HIGHLIGHT:.0%} above the paper's number are red, more than "
        f"{checks.HIGHLIGHT:.0%} below green. The label-only references (every feature "
        "public) are not ranked. The paper's numbers are typed in from its "
        + ("Table 1." if name == "table1" else "Appendix C.3.")
        + " The paper reports 10 datasets; ldpviz has local copies of 4.", kind="note")
    _missing(report, run["missing"])
    if run["summary"] is None:
        report.paragraph(f"{TITLES[name]} was not run: no dataset has a local copy.",
                         kind="warning")
        return
    summary, rows = run["summary"], paper.PAPER_TABLES[name]
    frame, marks = checks.comparison_frame(summary, rows, run["policies"])
    report.table(frame, classes=marks, align="auto", compact=True,
                 caption=f"{TITLES[name]}: the paper and ldpviz. HOT = HistOfTree, AdHOT = "
                         "AdHistOfTree; al. = aligned, pe. = personalized; label: every "
                         "feature public (not ranked).")
    wins = checks.table_checks(summary, rows)
    report.table(wins.assign(verdict=wins["verdict"].map({True: "agrees", False: "differs"})),
                 classes=_verdict_classes(wins), align="auto",
                 caption="Who wins, on the datasets run (the paper's winners from its printed "
                         "numbers).")
    report.table(checks.rank_sums(summary, rows, run["policies"]), align="auto",
                 caption="Rank sums over the datasets run (the paper's ranks recomputed on "
                         "these datasets from its printed means).")
    labels = checks.label_only_frame(run["best"])
    if len(labels):
        report.table(labels, align="auto",
                     caption="Label-only privacy, two ways (declared label range): ratio to "
                             "DT, and LabelDT's extra error over HistOfTree s=0, paired over "
                             "the splits (± 2 SE). " + paper.LABEL_LDP_SENTENCE)
    if name == "table1":
        ranges = run["ranges"]
        report.table(ranges.assign(clipped=ranges["clipped"].map("{:.1%}".format)),
                     align="auto",
                     caption="The label range under each policy, where it comes from, the "
                             "labels' own range and the share of labels the range clips.")


def _verdict_classes(frame):
    marks = pd.DataFrame("", index=frame.index, columns=frame.columns)
    marks["verdict"] = frame["verdict"].map({True: "agrees", False: "differs"})
    return marks


# ----------------------------------------------------------------------------------------------
# Notes: their fields, measured in this run
# ----------------------------------------------------------------------------------------------
def _adhot_fields(rep):
    run = rep.figures.get("fig2d")
    ratios = checks.adaptive_ratios(run["best"]) if run else pd.Series(dtype=float)
    tables = ""
    table1 = rep.tables.get("table1", {})
    if table1.get("summary") is not None and "declared" in table1["policies"]:
        summary = table1["summary"]
        hot = checks.best_hot(summary, "personalized")
        ad = checks.best_hot(summary, "personalized", ("AdHistOfTree ME", "AdHistOfTree CART"))
        pairs = (ad / hot).xs("declared", level="label_range")
        tables = ("In Table 1's personalized paradigm, AdHistOfTree / HistOfTree (best of ME "
                  "and CART each) = " + ", ".join(f"{k} {v:.2f}" for k, v in pairs.items())
                  + ".")
    return {"reps": run["reps"] if run else 0, "tables": tables,
            "ratios": ", ".join(f"{r:.2f} at gamma = {g:g}" for g, r in ratios.items())
            or "not run", "worst": f"{ratios.max():.2f}" if len(ratios) else "n/a"}


def _paper_best_hot(key):
    published = dict(zip(paper.PAPER_COLUMNS, paper.PAPER_TABLE1.get(key, ()), strict=False))
    values = [checks._paper_value(published[c]) for c in published
              if c[0] == "aligned" and c[1].startswith("HistOfTree")]
    return min(values, default=np.nan)


def _label_range_fields(rep):
    table1 = rep.tables.get("table1", {})
    if table1.get("summary") is None:
        return {"rows": "not run (no data)", "short": "not run (no data)"}
    best = checks.best_hot(table1["summary"])
    rows, short = [], []
    for key in sorted({k for k, _ in best.index}):
        mine = [(p, best[key, p]) for p in table1["policies"] if (key, p) in best.index]
        rows.append(f"{key}: paper {_paper_best_hot(key):.2f}; "
                    + ", ".join(f"{p} {v:.2f}" for p, v in mine))
        short.append(f"{key} " + " / ".join(f"{v:.2f}" for _, v in mine)
                     + f" (paper {_paper_best_hot(key):.2f})")
    return {"rows": "; ".join(rows), "short": ", ".join(short)}


def _label_ldp_fields(rep):
    run = rep.figures.get("fig2a")
    if run is None:
        return {"numbers": "not run", "hot0": "not run", "labeldt": "not run"}
    m = run["best"].groupby(["series", "epsilon"])["mse"].mean().unstack()
    eps = min(m.columns, key=lambda e: abs(np.log(e / 4)))
    hot = [s for s in m.index if s.startswith("HistOfTree s*=")]
    value = {s: f"{m.loc[s, eps]:.3f}" if s in m.index else "not run"
             for s in checks.LABEL_SERIES}
    numbers = (f"(epsilon = {eps:g}) HistOfTree s* = 1..4 from {m.loc[hot, eps].min():.3f} "
               f"to {m.loc[hot, eps].max():.3f}; "
               + "; ".join(f"{s} {v}" for s, v in value.items()))
    return {"numbers": numbers, "labeldt": value[checks.LABEL_SERIES[0]],
            "hot0": value[checks.LABEL_SERIES[1]]}


def _cell_estimates(rep):
    used = {f"Figure 2{k[-2:]}" if k.startswith("fig") else k: v["cell_estimate"]
            for k, v in rep.figures.items()}
    used.update({k: v["cell_estimate"] for k, v in rep.tables.items() if v["cell_estimate"]})
    values = set(used.values())
    if len(values) == 1:
        return f"{values.pop()} everywhere"
    return "; ".join(f"{k}: {v}" for k, v in used.items())


def note_fields(rep):
    """Every field the notes of :mod:`reproduction_notes` may use, from this run."""
    run = rep.figures.get("fig2c")
    depths = checks.best_depths(run["best"]) if run else {}
    return {"best_p": ", ".join(f"best p = {p} at t = {t}" for t, p in sorted(depths.items()))
            or "not run",
            "crossing": checks.bcdp_crossing(rep.bcdp["table"]) if rep.bcdp else "not run",
            "used": _cell_estimates(rep), "sentence": paper.LABEL_LDP_SENTENCE,
            **_adhot_fields(rep), **_label_range_fields(rep), **_label_ldp_fields(rep)}


def notes_of(rep):
    """The known discrepancies of this run: a list of (headline, body)."""
    fields = note_fields(rep)
    return [(head.format(**fields), body.format(**fields)) for head, body in notes.NOTES]


def headlines(rep):
    """One line per known discrepancy (what the command prints)."""
    return [head for head, _ in notes_of(rep)]


# ----------------------------------------------------------------------------------------------
# The page
# ----------------------------------------------------------------------------------------------
def _settings(rep):
    rows = [{"part": TITLES[k], "replications": v["reps"], "cell estimate": v["cell_estimate"],
             "seconds": round(v["seconds"], 1),
             "settings": "Appendix C.1's grids" if not v["overrides"] else
             "; ".join(f"{a}={b}" for a, b in v["overrides"].items())}
            for k, v in rep.figures.items()]
    for k, v in rep.tables.items():
        rows.append({"part": TITLES[k], "replications": v["reps"],
                     "cell estimate": v["cell_estimate"] or "", "seconds": round(v["seconds"], 1),
                     "settings": f"label ranges: {', '.join(v['policies'])}; "
                                 + ("Appendix C.1's grids" if rep.plan.table_grids is None
                                    else "reduced grids")})
    if rep.bcdp:
        rows.append({"part": TITLES["bcdp-fig3"], "replications": rep.bcdp["reps"],
                     "cell estimate": "", "seconds": round(rep.bcdp["seconds"], 1),
                     "settings": f"n = {rep.bcdp['n']}, q in {_join(rep.bcdp['qs'])}"})
    return pd.DataFrame(rows)


def _join(values):
    return ", ".join(f"{v:g}" for v in values)


def render(rep, command=None):
    """The page for a :class:`ldpviz.reproduce.reproduction.Reproduction` (an HtmlReport)."""
    reps = sorted({v["reps"] for v in rep.figures.values()})
    splits = sorted({v["reps"] for v in rep.tables.values()})
    report = HtmlReport(
        "HistOfTree (Ma, Jia and Yang, AISTATS 2025), reproduced by ldpviz",
        subtitle=f"Figure 2 with {_ints(reps)} replications, Tables 1-3 with {_ints(splits)} "
                 f"random splits (the paper: 50 each); run in {rep.seconds / 60:.1f} minutes "
                 f"with n_jobs = {rep.n_jobs}, seed {rep.seed}; ldpviz {__version__}.")
    if rep.plan.name == QUICK.name:
        report.paragraph(notes.QUICK_WARNING, kind="warning")
    report.contents(ITEMS)
    found = notes_of(rep)
    report.heading("What differs from the paper, in short")
    report.bullets([head for head, _ in found], kind="answer")
    report.paragraph(notes.FIGURE2_SOURCE, kind="note")
    sections = [(name, rep.figures, _figure_section) for name in paper.FIGURES] + \
        [(name, rep.tables, _table_section) for name in paper.TABLE_EPSILON]
    for name, runs, draw in sections:
        if name in runs:
            draw(report, name, runs[name])
        else:
            report.heading(TITLES[name], anchor=name)
            report.paragraph("Not run in this plan.", kind="warning")
    report.heading(TITLES["bcdp-fig3"], anchor="bcdp-fig3")
    setting, claims = notes.BCDP_CLAIMS
    report.paragraph(f"Paper's setting: {setting} ldpviz: the exact expected MSE of the "
                     "unprojected mean (no trials needed) and a simulation after projection "
                     "onto the box.", kind="note")
    if rep.bcdp:
        report.figure(bcdp_plotly(rep.bcdp["table"]),
                      caption=f"n = {rep.bcdp['n']}, {rep.bcdp['reps']} simulated runs per q "
                              "for the projected curves.")
        _claims(report, claims, checks.check_bcdp(rep.bcdp["table"]))
        report.table(rep.bcdp["table"], index=True, caption="MSE of the mean estimate.")
    report.heading(TITLES["notes"], anchor="notes")
    for _, body in found:
        report.paragraph(body)
    report.heading("Typos and gaps in the papers", level=3)
    report.bullets(notes.TYPOS)
    report.heading(TITLES["settings"], anchor="settings")
    report.table(_settings(rep), align="auto",
                 caption="Every part: replications, cell estimate, time.")
    choices = {"plan": rep.plan.name, "seed": rep.seed, "n_jobs": rep.n_jobs,
               "minutes": round(rep.seconds / 60, 2), "ldpviz": __version__,
               "python": platform.python_version(), "metric (figures)": "MSE against f* on "
               "2,000 fresh points", "metric (tables)": "MSE / mean MSE of the non-private "
               "decision tree"}
    if command:
        report.code(command)
    report.choices(choices)
    return report


def _ints(values):
    return " / ".join(str(v) for v in values) or "0"


def write_report(out, quick=False, reps=None, seed=0, n_jobs=1, data_home=None, cache=True,
                 progress=True, log=None, command=None, datasets=None):
    """Run the reproduction and write ``out/reproduction.html``; return (path, Reproduction).

    ``quick`` runs :data:`ldpviz.reproduce.reproduction.QUICK` (seconds; not a reproduction)
    instead of :data:`~ldpviz.reproduce.reproduction.FULL`; ``reps`` overrides the plan's
    replications and splits; ``datasets`` its UCI datasets. ``cache`` keeps finished runs
    under ``out/.ldpviz_cache``.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    plan = QUICK if quick else FULL
    if reps is not None:
        plan = plan.with_reps(reps)
    if datasets is not None:
        plan = plan.replace(datasets=tuple(datasets))
    rep = run_reproduction(plan, seed=seed, n_jobs=n_jobs, data_home=data_home,
                           cache_dir=out / ".ldpviz_cache" if cache else None,
                           progress=progress, log=log)
    return render(rep, command).write(out / REPORT_FILE), rep
