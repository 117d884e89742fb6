"""The what-if answer in numbers and in words (used by :func:`ldpviz.reproduce.whatif.whatif`).

Every comparison is paired over the same random splits: a difference of MSEs per split, its
mean relative to the reference's mean MSE, +-2 standard errors, and a one-sided Wilcoxon
signed-rank test at level 0.05 (the test of Table 1's stars). A difference is called
*significant* only when both agree (:func:`significant`): the Wilcoxon p-value is below 0.05
and the paired mean difference lies more than 2 SE from zero, so a starred number never has
an error bar that covers no difference.

Every answer has a yardstick: :data:`YARDSTICK`, the training mean of the raw labels predicted
for every test row (no feature, no privacy), next to the non-private tree DT.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats

from .experiments import compare

ALPHA = 0.05
REFERENCE = "DT"
#: The method name of the constant predictor (see the module docstring).
YARDSTICK = "Training mean"
NONE = "(none)"
HOT_METHODS = ("HistOfTree ME", "HistOfTree CART")


def wilcoxon_greater(diff):
    """p-value of the one-sided signed-rank test that the paired differences tend to be > 0."""
    diff = np.asarray(diff, dtype=float)
    if len(diff) < 2 or np.all(diff == 0):
        return 1.0
    return float(stats.wilcoxon(diff, alternative="greater").pvalue)


def paired_cost(mse, reference):
    """Relative cost of ``mse`` over ``reference`` (two per-split arrays, paired).

    Returns ``(cost, se, p_value)``: ``mean(mse - reference) / mean(reference)``, its standard
    error, and the one-sided Wilcoxon p-value that ``mse`` is larger.
    """
    mse, reference = np.asarray(mse, dtype=float), np.asarray(reference, dtype=float)
    scale = reference.mean()
    diff = mse - reference
    # Two fits that agree up to floating-point rounding (the same tree reached by another
    # order of operations) differ by nothing: such dust must not look like a signed effect.
    diff = np.where(np.abs(diff) <= 1e-9 * abs(scale), 0.0, diff)
    se = diff.std(ddof=1) / np.sqrt(len(diff)) / scale if len(diff) > 1 else np.nan
    return float(diff.mean() / scale), float(se), wilcoxon_greater(diff)


def significant(diff, se, p_value):
    """The one criterion for "significant" everywhere in the answer: the one-sided Wilcoxon
    test (``p_value``) below :data:`ALPHA` and the mean paired difference ``diff`` more than
    2 standard errors ``se`` above zero (the error bar shown then excludes no difference)."""
    return bool(p_value < ALPHA and np.isfinite(se) and diff > 2 * se)


def paired_lead(worse, better):
    """How far ``better`` is ahead of ``worse`` (per-split arrays in the same units, paired):
    ``(mean difference, its SE, one-sided Wilcoxon p, significant)``."""
    worse, better = np.asarray(worse, dtype=float), np.asarray(better, dtype=float)
    diff = worse - better
    diff = np.where(np.abs(diff) <= 1e-9 * np.abs(better).mean(), 0.0, diff)  # rounding dust
    se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else np.nan
    p = wilcoxon_greater(diff)
    return float(diff.mean()), float(se), p, significant(diff.mean(), se, p)


def _per_split(rows):
    return rows.sort_values("rep")["mse"].to_numpy()


# ----------------------------------------------------------------------------------------------
# Tables
# ----------------------------------------------------------------------------------------------
def summarize(best):
    """Per (epsilon, paradigm, method): mean ratio to DT +- SE, rank and significance marks.

    Ranks and marks compare the methods that respect the protection (role "protected"):
    ``significant`` marks the best of them when it is significantly better (:func:`significant`,
    paired over the splits) than each other one; ``lead``, ``lead_se`` and ``lead_p`` give its
    paired lead (in multiples of DT's error) over its closest rival ``lead_over``, the one it
    is least surely ahead of. Label-only methods, DT and the training mean
    (:data:`YARDSTICK`) get their mean and SE only.
    """
    params = [c for c in ("t", "depth", "max_depth", "min_samples_leaf", "rho", "k", "c",
                          "t_offset", "zeta", "rule") if c in best.columns]
    rows = []
    protected = best[best["role"] == "protected"]
    if not protected.empty:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # too few splits: said in the answer
            marks = compare(protected, ["epsilon", "paradigm"], metric="mse_ratio")
        rows.append(_leads(protected, marks).assign(role="protected"))
    others = best[best["role"] != "protected"]
    if not others.empty:
        grouped = others.groupby(["epsilon", "paradigm", "method", "role"], dropna=False)
        agg = grouped["mse_ratio"].agg(["mean", "std", "count"]).reset_index()
        agg["se"] = agg["std"] / np.sqrt(agg["count"])
        rows.append(agg.drop(columns=["std", "count"]).assign(rank=np.nan, best=False,
                                                               significant=False))
    summary = pd.concat(rows, ignore_index=True).rename(columns={"mean": "ratio",
                                                                 "se": "ratio_se"})
    first = best.drop_duplicates(["epsilon", "paradigm", "method"])
    config = first.set_index(["epsilon", "paradigm", "method"])[["config", *params]]
    summary = summary.join(config, on=["epsilon", "paradigm", "method"])
    mse = best.groupby(["epsilon", "paradigm", "method"], dropna=False)["mse"].mean()
    summary = summary.join(mse.rename("mse"), on=["epsilon", "paradigm", "method"])
    summary = summary[summary["paradigm"] != "screen"]
    summary = summary.assign(**{c: summary.get(c, np.nan) for c in ("lead", "lead_se",
                                                                   "lead_p", "lead_over")})
    order = {"protected": 0, "label": 1, "yardstick": 2, "reference": 3}
    summary = summary.assign(_o=summary["role"].map(order)).sort_values(
        ["epsilon", "paradigm", "_o", "ratio"], na_position="last").drop(columns="_o")
    first = ["epsilon", "paradigm", "method", "role", "ratio", "ratio_se", "rank", "best",
             "significant", "lead", "lead_se", "lead_p", "lead_over", "mse"]
    return summary[first + [c for c in summary.columns if c not in first]].reset_index(
        drop=True)


def _leads(protected, marks):
    """``marks`` (:func:`~ldpviz.reproduce.experiments.compare`'s) with the winner's
    ``significant`` judged by :func:`significant` against each rival, and its ``lead``."""
    marks = marks.assign(significant=False, lead=np.nan, lead_se=np.nan, lead_p=np.nan,
                         lead_over=None)
    for (eps, paradigm), group in protected.groupby(["epsilon", "paradigm"]):
        wide = group.pivot_table(index="rep", columns="method", values="mse_ratio")
        winner = wide.mean().idxmin()
        tests = [(*paired_lead(wide[other], wide[winner]), other) for other in wide
                 if other != winner]
        if not tests:
            continue
        # The closest rival: the one the winner is least surely ahead of.
        lead, se, p, _, rival = min(tests, key=lambda t: (
            t[3], t[0] / t[1] if t[1] > 0 else np.inf * np.sign(t[0])))  # smallest z
        at = (marks["epsilon"] == eps) & (marks["paradigm"] == paradigm) \
            & (marks["method"] == winner)
        marks.loc[at, ["significant", "lead", "lead_se", "lead_p", "lead_over"]] = [
            all(t[3] for t in tests), lead, se, p, rival]
    marks["significant"] = marks["significant"].astype(bool)
    return marks


def wide_summary(summary):
    """Mean MSE ratio to DT per (paradigm, method) and epsilon, as "1.52 ± 0.08*" (2 SE).

    The last two rows, under paradigm "no privacy", are the yardsticks (the same at every
    epsilon): DT itself (1 on average; its ± is its own spread over the splits) and
    :data:`YARDSTICK`, the training mean.
    """
    rows = summary[summary["role"].isin(["protected", "label"])]
    if rows.empty:
        return pd.DataFrame()
    text = [_times(r, s) + ("*" if sig else "")
            for r, s, sig in zip(rows["ratio"], rows["ratio_se"], rows["significant"],
                                 strict=True)]
    wide = rows.assign(cell=text).pivot(index=["paradigm", "method"], columns="epsilon",
                                        values="cell")
    for method in (REFERENCE, YARDSTICK):
        mine = summary[summary["method"] == method]
        if len(mine):
            wide.loc[("no privacy", method), :] = _times(mine["ratio"].iloc[0],
                                                         mine["ratio_se"].iloc[0])
    return wide


def column_costs(best, names, n_train):
    """Per (column, epsilon): the cost of protecting that column alone (screen rows).

    ParDT with only that column protected against ParDT seeing every column, on the same
    privatised labels; ``cost`` is the relative increase in MSE, ``rank`` 1 the costliest.
    ``constant_fit`` marks the epsilons at which the tree seeing every column did best as a
    constant (a minimum leaf of at least half the ``n_train`` training rows): there no column
    can cost anything, because the tree learns nothing from any of them. ``unused`` marks a
    cost of exactly 0 on every split: hiding the column changed no test error, because the
    chosen tree seeing every column made no use of it.
    """
    screen = best[best["role"] == "screen"]
    ref_mse = best.loc[best["method"] == REFERENCE, "mse"].mean()
    rows = []
    for eps, group in screen.groupby("epsilon"):
        reference = group[group["column"] == NONE]
        none = _per_split(reference)
        constant = bool(reference["min_samples_leaf"].iloc[0] >= n_train / 2)
        for column in [c for c in names if c in set(group["column"])]:
            mse = _per_split(group[group["column"] == column])
            cost, se, p = paired_cost(mse, none)
            rows.append({"column": column, "epsilon": eps, "cost": cost, "se": se,
                         "p_value": p, "significant": significant(cost, se, p),
                         "ratio": mse.mean() / ref_mse, "ratio_public": none.mean() / ref_mse,
                         "constant_fit": constant, "unused": cost == 0 and se == 0})
    costs = pd.DataFrame(rows)
    if costs.empty:
        return costs
    costs["rank"] = costs.groupby("epsilon")["cost"].rank(ascending=False, method="min")
    return costs


def cheapest_first(costs):
    """Columns ordered by their mean cost over the epsilons, cheapest to protect first."""
    if costs is None or costs.empty:
        return None
    mean = costs.groupby("column", sort=False)["cost"].mean()
    return list(mean.sort_values(kind="stable").index)


# ----------------------------------------------------------------------------------------------
# Sentences
# ----------------------------------------------------------------------------------------------
def pct(value, se=None):
    """A relative change as "+18% ± 6%" (the error bar is 2 SE); exactly zero is "0%"."""
    def one(v, sign):
        if abs(v) < 5e-4:  # what rounds to 0.0% is shown as 0 (floating-point dust included)
            return "0%"
        text = f"{v:.0%}" if abs(v) >= 0.1 else f"{v:.1%}"
        return ("+" if sign and v > 0 else "") + text

    text = one(value, True)
    if se is not None and np.isfinite(se):
        text += f" ± {one(2 * se, False)}"
    return text


def units(value):
    """An error in the label's units: 3 significant digits, whole numbers from 100 on."""
    value = float(value)
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def in_units(target):
    return f"in units of {target}" if target else "in the label's units"


def _rmse_sentence(row, target):
    """The test RMSE of the non-private tree, of the best protecting method and of the
    training mean, in the label's units."""
    dt, best = units(row["reference_rmse"]), units(row["winner_rmse"])
    if dt == best:
        text = (f"{in_units(target).capitalize()}, the test RMSE stays at {dt} (the "
                f"non-private tree's and {row['winner']}'s)")
    else:
        verb = "rises" if row["winner_rmse"] > row["reference_rmse"] else "falls"
        text = (f"{in_units(target).capitalize()}, the test RMSE {verb} from {dt} (the "
                f"non-private tree) to {best} ({row['winner']})")
    if np.isfinite(row.get("yardstick_rmse", np.nan)):
        text += f"; predicting the training mean gives {units(row['yardstick_rmse'])}"
    return text + "."


def _yardstick_sentence(row, cols):
    """Plain words when the best protecting method does not beat the training mean."""
    if row.get("beats_yardstick", True):
        return None
    mean = (f"the training mean (a constant that uses no feature and no privacy: "
            f"{_times(row['yardstick_ratio'], row['yardstick_ratio_se'])} × DT's error)")
    if row["winner_ratio"] >= row["yardstick_ratio"]:
        verdict = f"no better than predicting {mean}"
    else:
        verdict = (f"not significantly better than predicting {mean}: paired over the "
                   f"splits, {row['winner']}'s error is "
                   f"{pct(row['yardstick_lead'], row['yardstick_lead_se']).lstrip('+')} "
                   "below the mean's, "
                   f"{_not_significant(row['yardstick_p'])}")
    if not row.get("reference_beats_yardstick", True):
        return (f"With {cols} protected, the best method is {verdict}; neither is the "
                "non-private tree: in this table the features carry little a tree can use to "
                "predict the label, private or not.")
    return (f"With {cols} protected, the best method is {verdict}. At this ε no method that "
            "respects this protection learns anything usable from the features.")


def _splits(reps, verb=True):
    text = "1 split" if reps == 1 else f"{reps} splits"
    return text + (" is" if reps == 1 else " are") if verb else text


def _times(ratio, se):
    return f"{ratio:.2f} ± {2 * se:.2f}" if np.isfinite(se) else f"{ratio:.2f}"


def _histogram(main, results, eps, paradigm, summary):
    """Best HistOfTree's t and, when t > 1, ``hot_gain``: the share of the error of its best
    t = 1 grid point that the histogram removed (paired over the splits, with its SE and the
    one-sided Wilcoxon p-value that the chosen point is better)."""
    hot = summary[(summary["epsilon"] == eps) & (summary["paradigm"] == paradigm)
                  & summary["method"].isin(HOT_METHODS)]
    if hot.empty or "t" not in hot:
        return None
    row = hot.sort_values("ratio").iloc[0]
    out = {"hot_method": row["method"], "hot_t": int(row["t"])}
    if out["hot_t"] == 1:
        return out
    mine = results[(results["method"] == row["method"]) & (results["epsilon"] == eps)
                   & (results["paradigm"] == paradigm) & (results["t"] == 1)]
    if mine.empty:
        return out
    means = mine.groupby(["arm", "config_id"])["mse"].mean()
    arm, config = means.idxmin()
    t1 = _per_split(mine[(mine["arm"] == arm) & (mine["config_id"] == config)])
    chosen = _per_split(main[(main["method"] == row["method"]) & (main["epsilon"] == eps)
                             & (main["paradigm"] == paradigm)])
    change, se, _ = paired_cost(chosen, t1)  # relative to the t = 1 error
    p = paired_cost(t1, chosen)[2]
    out.update(hot_gain=-change, hot_gain_se=se, hot_gain_p=p,
               hot_gain_significant=significant(-change, se, p))
    return out


def _attribution(costs, eps, private):
    """Which protected column the cost comes from (each alone, from the per-column costs)."""
    if costs is None or costs.empty:
        return None
    mine = costs[(costs["epsilon"] == eps) & costs["column"].isin(private)]
    if len(mine) < 2:
        return None
    mine = mine.sort_values("cost", ascending=False)
    top = mine.iloc[0]
    positive = mine["cost"].clip(lower=0).sum()
    alone = f"each protected alone, for ParDT: {listed_costs(mine)}"
    if top["significant"] and positive > 0 and top["cost"] >= 0.5 * positive:
        return f"mostly from {top['column']} ({alone})"
    if not mine["significant"].any():
        return f"no single column accounts for it ({alone})"
    return f"spread over several columns ({alone})"


def listed_costs(rows, star=False):
    """Per-column costs as "x4 +12% ± 3%, x1 0%", saying why a cost is exactly 0 (the
    ``unused`` and ``constant_fit`` marks of :func:`column_costs`)."""
    rows = rows.assign(unused=rows.get("unused", False),
                       constant_fit=rows.get("constant_fit", False))
    text = ", ".join(f"{r.column} {pct(r.cost, r.se)}" + ("*" if star and r.significant else "")
                     if not r.unused else f"{r.column} 0%" for r in rows.itertuples())
    unused = [str(c) for c in rows.loc[rows["unused"], "column"]]
    if unused and rows["constant_fit"].all():
        text += ("; 0% exactly: the tree on privatised labels did best as a constant even "
                 "seeing every column, so no column changed a prediction")
    elif unused:
        them = "it" if len(unused) == 1 else "any of them"
        text += (f"; {' and '.join(unused) if len(unused) <= 3 else f'{len(unused)} columns'} "
                 f"cost{'s' * (len(unused) == 1)} 0% exactly (the same test error on every "
                 f"split): the tree seeing every column did not use {them}")
    return text


#: Tuned sizes whose largest offered value may cap a method (more bins, deeper trees, ...).
EDGE_PARAMS = ("t", "depth", "max_depth", "t_offset", "k")


def grid_maxima(grid):
    """{parameter: largest value} of a MethodGrid, for the :data:`EDGE_PARAMS` it varies."""
    values = {}
    for sub in grid.subgrids:
        for param, vals in sub.items():
            if param in EDGE_PARAMS:
                values.setdefault(param, set()).update(v for v in vals if v is not None)
    return {p: max(v) for p, v in values.items() if len(v) > 1}


def _edges(rows, edges):
    """The sentence naming the chosen values that are the largest their grid offered.

    ``rows``: summary rows of the methods the answer names; ``edges``: method -> (the grid's
    key for ``--grid``, {parameter: largest value offered}).
    """
    found, options = [], []
    for _, row in rows.iterrows():
        key, maxima = edges.get(row["method"], (None, {}))
        hits = [(p, top) for p, top in maxima.items()
                if np.isfinite(row.get(p, np.nan)) and row[p] == top]
        if hits:
            found.append(f"{row['method']}'s " + " and ".join(f"{p} = {top:g}"
                                                              for p, top in hits))
            options += [f"--grid {key}.{p}=…" for p, _ in hits
                        if f"--grid {key}.{p}=…" not in options]
    if not found:
        return None
    one = len(found) == 1 and " and " not in found[0]
    return (f"{', '.join(found)} {'is' if one else 'are'} the largest "
            f"{'value its grid' if one else 'values the grids'} offered: a larger one may do "
            f"better (widen with {', '.join(options)}; in Python, grids=).")


def answer_table(summary, main, results, costs, choices, edges=None):
    """Per (epsilon, paradigm): the numbers of the answer and its sentence.

    ``edges``: method -> (grid key, {parameter: largest value offered}); a chosen value at
    the largest is said (for the winner, the best HistOfTree, the best label-only method, and
    in the first sentence for DT, the same in every one).
    """
    rows = []
    dt = summary[summary["method"] == REFERENCE]
    private = choices["private"] or []
    reps = choices["splits"]
    reference_rmse = float(np.sqrt(main.loc[main["method"] == REFERENCE, "mse"].mean()))
    yard = main[main["method"] == YARDSTICK]
    testable = 0.5**reps < ALPHA  # else no test can be significant: compare the means

    def beats_mean(mse):
        lead, se, p, sig = paired_lead(_per_split(yard), mse)
        return (sig if testable else lead > 0), lead, se, p

    yardstick = {"yardstick_ratio": yard["mse_ratio"].mean(),
                 "yardstick_ratio_se": yard["mse_ratio"].std(ddof=1) / np.sqrt(len(yard))
                 if len(yard) > 1 else np.nan,
                 "yardstick_rmse": float(np.sqrt(yard["mse"].mean())),
                 "reference_beats_yardstick": beats_mean(
                     _per_split(main[main["method"] == REFERENCE]))[0]
                 } if len(yard) else {}
    for (eps, paradigm), group in summary[summary["role"] != "reference"].groupby(
            ["epsilon", "paradigm"], sort=True):
        prot = group[group["role"] == "protected"].sort_values("ratio")
        label = group[group["role"] == "label"].sort_values("ratio")
        row = {"epsilon": eps, "paradigm": paradigm, "reference_rmse": reference_rmse,
               **yardstick}
        if not prot.empty:
            win = prot.iloc[0]
            row.update(winner=win["method"], winner_rmse=float(np.sqrt(win["mse"])),
                       winner_ratio=win["ratio"],
                       winner_ratio_se=win["ratio_se"], winner_significant=win["significant"],
                       winner_lead=win["lead"], winner_lead_se=win["lead_se"],
                       winner_lead_p=win["lead_p"], winner_lead_over=win["lead_over"],
                       runner_up=prot.iloc[1]["method"] if len(prot) > 1 else None)
            if len(yard):
                mine = main[(main["epsilon"] == eps) & (main["paradigm"] == paradigm)
                            & (main["method"] == win["method"])]
                sig, lead, se, p = beats_mean(_per_split(mine))
                row.update(beats_yardstick=sig, yardstick_lead=lead / yard["mse"].mean(),
                           yardstick_lead_se=se / yard["mse"].mean(), yardstick_p=p)
        if not prot.empty and not label.empty:
            lab = label.iloc[0]
            sel = main[(main["epsilon"] == eps) & (main["paradigm"] == paradigm)]
            cost, se, p = paired_cost(_per_split(sel[sel["method"] == win["method"]]),
                                      _per_split(sel[sel["method"] == lab["method"]]))
            row.update(label_method=lab["method"], label_ratio=lab["ratio"],
                       label_ratio_se=lab["ratio_se"], cost_vs_label=cost,
                       cost_vs_label_se=se, cost_p_value=p,
                       cost_significant=significant(cost, se, p))
        row.update(_histogram(main, results, eps, paradigm, summary) or {})
        row["attribution"] = _attribution(costs, eps, private) if paradigm == "aligned" \
            else None
        named = [row.get(k) for k in ("winner", "hot_method", "label_method")]
        row["grid_edge"] = _edges(pd.concat([group[group["method"].isin(named)],
                                             dt.iloc[:0] if rows else dt]),  # DT's: once
                                  edges or {})
        row["sentence"] = _sentence(row, prot, choices, reps)
        rows.append(row)
    return pd.DataFrame(rows)


def _sentence(row, prot, choices, reps):
    """A paragraph: the cost, the winner, the histogram; plain about losses."""
    eps, paradigm = row["epsilon"], row["paradigm"]
    private = choices["private"]
    cols = " and ".join(private) if len(private) <= 3 else f"these {len(private)} columns"
    extra = choices.get("personalized") or []
    extra = " and ".join(extra) if len(extra) <= 3 else \
        f"{', '.join(extra[:3])} and {len(extra) - 3} more column{'s' * (len(extra) > 4)}"
    where = "" if paradigm == "aligned" else \
        f" in the personalized paradigm (some users also protect {extra})"
    out = []
    if "cost_vs_label" in row:
        cost, se = row["cost_vs_label"], row["cost_vs_label_se"]
        label = (f"label-only privacy ({row['label_method']}, "
                 f"{_times(row['label_ratio'], row['label_ratio_se'])} × DT's error)")
        if row["cost_significant"]:
            text = (f"At ε = {eps:g}{where}, protecting {cols} costs {pct(cost, se)} error "
                    f"beyond {label}, a significant loss (Wilcoxon p = "
                    f"{row['cost_p_value']:.2g})")
            text += f", {row['attribution']}." if row.get("attribution") else "."
        elif 0.5**reps >= ALPHA:
            verdict = f"costs {pct(cost, se)} error" if cost > 0 else \
                f"costs nothing ({pct(cost, se)} error)"
            text = (f"At ε = {eps:g}{where}, protecting {cols} {verdict} beyond {label} on "
                    f"these splits; {_splits(reps)} too few to test whether that is more than "
                    "noise.")
        else:
            text = (f"At ε = {eps:g}{where}, protecting {cols} costs nothing detectable "
                    f"beyond {label}: {pct(cost, se)}, "
                    f"{_not_significant(row['cost_p_value'])}.")
        out.append(text)
    else:
        out.append(f"At ε = {eps:g}{where}:")
    if "winner" in row:
        # The rows it is best among, in the sentence: a label-only row shown may do better.
        others = f"that protects {cols}" if paradigm == "aligned" else \
            "that respects this protection"
        text = (f"Best method {others}: {row['winner']}, "
                f"{_times(row['winner_ratio'], row['winner_ratio_se'])} × the error of the "
                "non-private tree")
        lead = (f"{row['winner_lead']:.2f} ± {2 * row['winner_lead_se']:.2f} × DT's error"
                if np.isfinite(row.get("winner_lead_se", np.nan)) else "")
        if row["winner_significant"]:
            text += (", significantly better than every other method that does (paired over "
                     f"the splits: ahead of the closest, {row['winner_lead_over']}, by {lead}, "
                     f"Wilcoxon p = {row['winner_lead_p']:.2g})")
        elif isinstance(row.get("winner_lead_over"), str):
            other = prot[prot["method"] == row["winner_lead_over"]].iloc[0]
            text += (f" (not significantly ahead of {row['winner_lead_over']}, "
                     f"{_times(other['ratio'], other['ratio_se'])}: paired over the splits "
                     f"ahead by {lead}, {_not_significant(row['winner_lead_p'])})")
        if row["winner"] == "Hist" and prot.iloc[0].get("t") == 1:
            text += "; Hist with t = 1 is a privately estimated mean: nothing beat the average"
        out.append(text + ".")
        out.append(_yardstick_sentence(row, cols))
        out.append(_rmse_sentence(row, choices.get("target")))
    if np.isfinite(row.get("hot_t", np.nan)):
        if row["hot_t"] == 1:
            out.append("HistOfTree's private histogram did not help: its best grid point has "
                       "t = 1, so it ignored the protected columns and used the public ones "
                       "only.")
        elif "hot_gain" in row:
            verdict = "helped" if row["hot_gain_significant"] else "may have helped (not " \
                "significant)"
            out.append(f"HistOfTree's private histogram {verdict}: {row['hot_method']} chose "
                       f"t = {row['hot_t']}, {pct(-row['hot_gain'], row['hot_gain_se'])} "
                       f"error relative to its best t = 1 point (p = "
                       f"{row['hot_gain_p']:.2g}).")
    if row.get("grid_edge"):
        out.append(row["grid_edge"])
    if 0.5**reps >= ALPHA:
        out.append(f"(With {_splits(reps, False)} no difference can be significant at {ALPHA}: use "
                   "at least 5, better 20.)")
    return " ".join(text for text in out if text)


def _not_significant(p_value):
    """Why a difference is not called significant (:func:`significant`): the test's p-value,
    or, when that is below the level, the error bar that still covers no difference."""
    if p_value < ALPHA:
        return f"not significant: Wilcoxon p = {p_value:.2g}, but ± 2 SE includes 0"
    return f"p = {p_value:.2g}"


def cost_sentences(costs, ranking):
    """The per-column cost table in words."""
    if costs is None or costs.empty:
        return []
    out = []
    for eps, group in costs.groupby("epsilon"):
        top = group[group["cost"] >= 5e-4].sort_values("cost", ascending=False).head(5)
        if group["constant_fit"].all():
            out.append(f"At ε = {eps:g} the tree on privatised labels does best as a constant "
                       "even when it sees every column: the label noise hides what any column "
                       "carries, so protecting one column alone costs nothing measurable here "
                       "(a method that learns more at this ε may still lose something).")
            continue
        if top.empty:
            out.append(f"At ε = {eps:g}, protecting any one column alone costs nothing.")
            continue
        listed = listed_costs(top, star=True)
        legend = " (* significant)" if top["significant"].any() else ""
        out.append(f"At ε = {eps:g}, protecting one column alone costs most for {listed}"
                   f"{legend}.")
    free = [c for c in (ranking or []) if not costs.loc[costs["column"] == c,
                                                        "significant"].any()]
    costly = [c for c in (ranking or []) if c not in free]
    if ranking:
        shown = ranking if len(ranking) <= 20 else [*ranking[:20], "..."]
        out.append("Recommended ordering, cheapest to protect first (by the mean cost over the "
                   "epsilons; among columns that cost nothing detectable the order is noise): "
                   + ", ".join(shown) + ".")
    if free:
        shown = free if len(free) <= 15 else [*free[:15], f"... ({len(free)} in all)"]
        out.append("Protecting any one of these alone costs nothing detectable at any ε: "
                   + ", ".join(shown) + ".")
    if costly:
        shown = costly if len(costly) <= 15 else [*costly[:15], "..."]
        out.append("These cost something, cheapest first: " + ", ".join(shown) + ".")
    return out
