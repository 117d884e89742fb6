"""The paper's claims checked against a :class:`ldpviz.reproduce.reproduction.Reproduction`.

Each ``check_*`` returns rows (claim id, what ldpviz measured, verdict); the verdict is True
(agrees), False (differs) or None (cannot be decided from this run, e.g. a panel run on a
reduced grid that lacks the points the claim is about). A claimed order ("MSE falls with n",
"s* = 1 below s* = 2") differs only where the run reverses it significantly (by more than
:data:`Z` standard errors, paired over replications that share their data); orders that the
means merely fail to show are counted, not called a difference. The table helpers put
ldpviz's numbers next to the paper's (:data:`ldpviz.reproduce.paper.PAPER_TABLES`).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from . import paper
from .whatif_answers import paired_cost

#: Relative difference from the paper's number beyond which a table cell is highlighted.
HIGHLIGHT = 0.10
#: "Approximately the best" (Figure 2(d)): within this factor of the best fixed s.
NEAR_BEST = 1.10
#: A claimed order "a below b" is contradicted when a is above b by more than Z standard errors.
Z = 2.0
ADAPTIVE = "adaptive (AdHistOfTree)"
LABEL_SERIES = ("label LDP (LabelDT)", f"label LDP ({paper.LABEL_ONLY[0]})")


def panel_means(best, x):
    """Mean and standard error of the MSE per (series, x), best over the grid."""
    grouped = best.groupby(["series", x])["mse"]
    out = grouped.agg(["mean", "std", "count"]).reset_index()
    out["se"] = out["std"] / np.sqrt(out["count"])
    return out.drop(columns=["std", "count"])


def _wide(best, x):
    return best.groupby(["series", x])["mse"].mean().unstack()


def _fmt(values):
    return ", ".join(f"{v:.3g}" for v in values)


def _hot_series(m):
    return sorted(s for s in m.index if s.startswith("HistOfTree s*="))


def _per_rep(best, x):
    """MSE per (series, x) row and replication column."""
    return best.pivot_table(index=["series", x], columns="rep", values="mse")


def above(a, b, paired=True):
    """Whether the values ``a`` (one per replication) are significantly above ``b``: the mean
    difference exceeds :data:`Z` standard errors (of the paired differences when the two share
    their data draws, else of the difference of two independent means)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if paired:
        diff = a - b
        se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else 0.0
        return bool(diff.mean() > Z * se)
    se = np.sqrt(sum(v.var(ddof=1) / len(v) if len(v) > 1 else 0.0 for v in (a, b)))
    return bool(a.mean() - b.mean() > Z * se)


def _order(per, pairs, paired=True):
    """For claimed orders ``lo < hi`` (pairs of row keys of ``per``): (held by the means,
    significantly reversed)."""
    held, reversed_ = [], []
    for lo, hi in pairs:
        a, b = per.loc[lo].to_numpy(), per.loc[hi].to_numpy()
        if a.mean() < b.mean():
            held.append((lo, hi))
        if above(a, b, paired):
            reversed_.append((lo, hi))
    return held, reversed_


def _reversals(items):
    return "; significantly reversed: " + ", ".join(items) if items else \
        "; no order significantly reversed"


def check_fig2a(best):
    m = _wide(best, "epsilon")
    per = _per_rep(best, "epsilon")
    eps, hot = list(m.columns), _hot_series(m)
    private = [e for e in eps if e < 1000]
    falls = [((s, e2), (s, e1)) for s in m.index for e1, e2 in itertools.pairwise(eps)]
    held, rev = _order(per, falls)
    rows = [("eps", f"falls at {len(held)} of {len(falls)} steps in epsilon"
             + _reversals([f"{a[0]} from {b[1]:g} to {a[1]:g}" for a, b in rev]), not rev)]
    chain = [((a, e), (b, e)) for e in eps for a, b in itertools.pairwise(hot)]
    held, rev = _order(per, chain)
    rows.append(("public", f"s*=1 < s*=2 < ... < s*={len(hot)}: {len(held)} of {len(chain)} "
                           "neighbouring pairs in order"
                 + _reversals([f"{b[0]} below {a[0]} at epsilon {a[1]:g}" for a, b in rev]),
                 not rev))
    texts, verdict = [], None
    for label in (s for s in LABEL_SERIES if s in m.index and "LDP (Hist)" in m.index):
        claims = [((label, e), (h, e)) for e in private for h in hot] + \
                 [((h, e), ("LDP (Hist)", e)) for e in private for h in hot]
        held, rev = _order(per, claims)
        bad = sorted({a[1] for a, _ in rev})
        texts.append(f"label LDP < every HistOfTree < LDP, {label}: {len(held)} of "
                     f"{len(claims)} comparisons hold"
                     + (f"; significantly reversed at epsilon {_fmt(bad)}" if bad else
                        "; none significantly reversed"))
        verdict = not rev if label == LABEL_SERIES[0] else verdict
    rows.append(("between", "; ".join(texts) or "not run", verdict))
    return rows


def check_fig2b(best):
    m = _wide(best, "n")
    per = _per_rep(best, "n")
    ns, hot = list(m.columns), _hot_series(m)
    falls = [((s, n2), (s, n1)) for s in hot for n1, n2 in itertools.pairwise(ns)]
    held, rev = _order(per, falls, paired=False)  # each n is its own sample
    logn = np.log(np.asarray(ns, dtype=float))
    slopes = pd.DataFrame({s: [np.polyfit(logn, np.log(per.loc[s][r].to_numpy()), 1)[0]
                               for r in per.columns] for s in hot})
    faster = [(a, b) for a, b in itertools.pairwise(hot)
              if slopes[a].mean() < slopes[b].mean()]
    slower = [(a, b) for a, b in itertools.pairwise(hot) if above(slopes[a], slopes[b])]
    return [("n", f"falls at {len(held)} of {len(falls)} steps in n"
             + _reversals([f"{a[0]} from n = {b[1]:g} to {a[1]:g}" for a, b in rev]),
             not rev),
            ("rate", "slope of log MSE against log n (mean over replications): "
             + ", ".join(f"{s.split()[-1]} {slopes[s].mean():.2f}" for s in hot)
             + f"; steeper for the smaller s* in {len(faster)} of {len(hot) - 1} neighbouring "
               "pairs" + _reversals([f"{b} steeper than {a}" for a, b in slower]),
             not slower)]


def best_depths(best):
    """Figure 2(c): the depth p of the smallest mean MSE for each t."""
    m = _wide(best, "p")
    return {int(s.split("=")[1]): int(m.loc[s].idxmin()) for s in m.index}


def check_fig2c(best):
    m = _wide(best, "p")
    interior = [s for s in m.index if 0 < int(np.argmin(m.loc[s].to_numpy())) < m.shape[1] - 1]
    depths = best_depths(best)
    ts = sorted(depths)
    best_t = int(m.min(axis=1).idxmin().split("=")[1])
    p = [depths[t] for t in ts]
    grows = all(a <= b for a, b in itertools.pairwise(p)) and p[-1] > p[0]
    return [("u", f"an interior minimum in p for {len(interior)} of {len(m)} t", len(interior)
             == len(m)),
            ("t2", f"the best t is {best_t} (MSE {m.min(axis=1).min():.3g})",
             best_t == 2 if 2 in ts else None),
            ("p_grows", "best p = " + ", ".join(f"{d} at t = {t}" for t, d in zip(ts, p,
                                                                                 strict=True)),
             grows)]


def adaptive_ratios(best):
    """Figure 2(d): AdHistOfTree's mean MSE over the best fixed s's, per gamma."""
    m = _wide(best, "gamma")
    if ADAPTIVE not in m.index:
        return pd.Series(dtype=float)
    return m.loc[ADAPTIVE] / m.drop(index=ADAPTIVE).min()


def check_fig2d(best):
    m = _wide(best, "gamma")
    falls = [s for s in m.index if m.loc[s].iloc[-1] < m.loc[s].iloc[0]]
    fixed = m.drop(index=ADAPTIVE, errors="ignore")
    best_s = fixed.idxmin().map(lambda s: int(s.split("=")[1]))
    ratios = adaptive_ratios(best)
    return [("gamma", f"lower at gamma = {m.columns[-1]:g} than at {m.columns[0]:g} for "
                      f"{len(falls)} of {len(m)} series", len(falls) == len(m)),
            ("best_s", "best fixed s: " + ", ".join(f"{v} at gamma = {g:g}"
                                                    for g, v in best_s.items()),
             bool(best_s.isin([1, 2]).all())),
            ("adaptive", "AdHistOfTree / best fixed s: " + ", ".join(
                f"{r:.2f} at gamma = {g:g}" for g, r in ratios.items()),
             bool((ratios <= NEAR_BEST).all()) if len(ratios) else None)]


CHECKS = {"fig2a": check_fig2a, "fig2b": check_fig2b, "fig2c": check_fig2c,
          "fig2d": check_fig2d}


def check_bcdp(table):
    """The BCDP Figure 3 claims against the exact MSE of :func:`ldpviz.bcdp.sweep_q`."""
    ratio = table["bcdp_total"] / table["ldp_total"]
    inner = ratio[(ratio.index > 0) & (ratio.index < 1)]
    wins = list(inner.index[inner < 1])
    at_one = ratio.get(1.0)
    return [("q1", "BCDP / LDP total MSE at q = 1: "
                   + ("not run" if at_one is None else f"{at_one:.3f}"),
             None if at_one is None else bool(abs(at_one - 1) < 0.01)),
            ("better", f"BCDP's exact total MSE below the baseline's at {len(wins)} of "
                       f"{len(inner)} q in (0, 1) ({_fmt(wins) or 'none'}); projected "
                       "(simulated): at " + _fmt(table.index[(table["bcdp_total_projected"]
                                                             < table["ldp_total_projected"])
                                                            & (table.index > 0)
                                                            & (table.index < 1)]),
             len(wins) == len(inner) if len(inner) else None)]


def bcdp_crossing(table):
    """Words: where BCDP's exact total MSE stops beating the baseline's (q < 1)."""
    ratio = table["bcdp_total"] / table["ldp_total"]
    inner = ratio[ratio.index < 1]
    losing = inner[inner >= 1]
    if losing.empty:
        return "BCDP's exact total MSE is below the baseline's at every q < 1 run here"
    first = losing.index[0]
    winning = inner[inner.index < first]
    above = f"above it from q = {first:g} ({inner.loc[first]:.2f} times)"
    if winning.empty:
        return f"BCDP's exact total MSE is {above}"
    return (f"BCDP's exact total MSE is below the baseline's only for q < {first:g} "
            f"({winning.iloc[-1]:.2f} times at q = {winning.index[-1]:g}) and {above}")


# ----------------------------------------------------------------------------------------------
# Tables against the paper
# ----------------------------------------------------------------------------------------------
def _paper_value(text):
    return float(text.rstrip("*"))  # "1.47*", "1e4"


def comparison_frame(summary, paper_rows, policies):
    """Rows per dataset: the paper's, then ldpviz's per label-range policy; columns as in
    Table 1 plus the label-only references. Returns (frame, CSS classes)."""
    cols = paper.table_columns(summary)
    names = [_short(*c) for c in cols]
    cells = summary.set_index(["dataset", "label_range", "paradigm", "method"])
    rows, marks = [], []
    for key in sorted(summary["dataset"].unique()):
        published = dict(zip(paper.PAPER_COLUMNS, paper_rows.get(key, ()), strict=False))
        if published:
            rows.append([key, "paper"] + [published.get(c, "") for c in cols])
            marks.append(["", "paper"] + ["paper"] * len(cols))
        for policy in policies:
            row, mark = [key, f"ldpviz, {policy}"], ["", ""]
            for c in cols:
                index = (key, policy, *c)
                if index not in cells.index:
                    row.append("")
                    mark.append("")
                    continue
                r = cells.loc[index]
                row.append(paper._cell(r).replace("**", ""))
                mark.append(_mark(r, published.get(c)))
            rows.append(row)
            marks.append(mark)
    frame = pd.DataFrame(rows, columns=["dataset", "source", *names])
    return frame, pd.DataFrame(marks)


def _short(paradigm, method):
    """A narrow column name: "al. HOT ME", "pe. AdHOT CART", "label: LabelDT"."""
    name = method.replace("AdHistOfTree", "AdHOT").replace("HistOfTree", "HOT")
    return f"label: {name}" if method in paper.LABEL_ONLY else f"{paradigm[:2]}. {name}"


def _mark(row, published):
    mark = "best" if row["best"] else ""
    if published:
        ratio = row["mean"] / _paper_value(published)
        if ratio > 1 + HIGHLIGHT:
            mark += " higher"
        elif ratio < 1 / (1 + HIGHLIGHT):
            mark += " lower"
    return mark.strip()


def _paper_long(paper_rows, datasets):
    rows = []
    for key in datasets:
        for (paradigm, method), text in zip(paper.PAPER_COLUMNS, paper_rows.get(key, ()),
                                            strict=False):
            rows.append({"dataset": key, "paradigm": paradigm, "method": method,
                         "mean": _paper_value(text)})
    return pd.DataFrame(rows)


def _winners(frame):
    """Per dataset and paradigm: does a HistOfTree-family method beat ParDT, Hist and KRR?"""
    out = {}
    for (key, paradigm), group in frame.groupby(["dataset", "paradigm"]):
        means = group.set_index("method")["mean"]
        ours = means[[m for m in means.index if "HistOfTree" in m and m in
                      paper.ALIGNED_METHODS + paper.PERSONALIZED_METHODS]].min()
        others = means[[m for m in ("ParDT", "Hist", "KRR") if m in means.index]].min()
        out[key, paradigm] = bool(ours < others)
    return out


def table_checks(summary, paper_rows, policy="declared"):
    """Rows: the share of datasets where HistOfTree (or AdHistOfTree) beats ParDT, Hist and
    KRR, per paradigm, ldpviz against the paper, on the datasets run."""
    mine = summary[(summary["label_range"] == policy) & (summary["role"] == "protected")]
    datasets = sorted(mine["dataset"].unique())
    published = _paper_long(paper_rows, datasets)
    ours, theirs = _winners(mine), _winners(published) if len(published) else {}
    rows = []
    for paradigm in ("aligned", "personalized"):
        a = sum(v for (k, p), v in ours.items() if p == paradigm)
        b = sum(v for (k, p), v in theirs.items() if p == paradigm)
        rows.append({"claim": f"{paradigm}: a HistOfTree method beats ParDT, Hist and KRR",
                     "ldpviz": f"{a} of {len(datasets)}", "paper": f"{b} of {len(datasets)}",
                     "verdict": a == b})
    return pd.DataFrame(rows)


def rank_sums(summary, paper_rows, policies):
    """Rank sums over the datasets run: ldpviz per policy and the paper's (ranks recomputed on
    these datasets from its printed means)."""
    mine = summary[summary["role"] == "protected"]
    datasets = sorted(mine["dataset"].unique())
    published = _paper_long(paper_rows, datasets)
    out = {}
    for policy in policies:
        out[f"ldpviz ({policy})"] = mine[mine["label_range"] == policy].groupby(
            ["paradigm", "method"])["rank"].sum()
    if len(published):
        published["rank"] = published.groupby(["dataset", "paradigm"])["mean"].rank()
        out["paper"] = published.groupby(["paradigm", "method"])["rank"].sum()
    frame = pd.DataFrame(out)
    order = [c for c in paper.PAPER_COLUMNS if c in frame.index]
    return frame.loc[order].reset_index()


def label_only_frame(best, policy="declared"):
    """Per dataset: the two label-only references (ratio to DT) and their paired difference."""
    rows = []
    sel = best[(best["label_range"] == policy) & (best["paradigm"] == "aligned")]
    for key, group in sel.groupby("dataset"):
        per = {m: group[group["method"] == m].sort_values("rep") for m in paper.LABEL_ONLY}
        if any(f.empty for f in per.values()):
            continue
        hot0, labeldt = (per[m] for m in paper.LABEL_ONLY)
        diff, se, p = paired_cost(labeldt["mse"].to_numpy(), hot0["mse"].to_numpy())
        rows.append({"dataset": key, paper.LABEL_ONLY[0]: hot0["mse_ratio"].mean(),
                     paper.LABEL_ONLY[1]: labeldt["mse_ratio"].mean(),
                     "LabelDT's extra error": f"{diff:+.1%} ± {2 * se:.1%}",
                     "Wilcoxon p": p})
    return pd.DataFrame(rows)


def best_hot(summary, paradigm="aligned", methods=("HistOfTree ME", "HistOfTree CART")):
    """Per (dataset, policy): the smaller mean ratio of ``methods`` in ``paradigm``."""
    sel = summary[(summary["paradigm"] == paradigm) & summary["method"].isin(methods)]
    return sel.groupby(["dataset", "label_range"])["mean"].min()
