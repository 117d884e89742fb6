"""What-if on your own data: "if my users protect these columns, what do I lose at epsilon?"

:func:`whatif` is the one entry point; the command line (``python -m ldpviz realdata``), notebook
06 and the HTML report (:mod:`ldpviz.reproduce.whatif_report`) all call it. It runs the
real-data protocol of the paper's Table 1 (Section 5.2: random 70/30 splits, every method at
every point of its grid, the best point chosen on the mean) and states the answer:

* **With protected columns** (``private``): per epsilon and paradigm, the cost of that
  protection relative to the non-private tree (DT) and to label-only privacy (the same
  HistOfTree with every feature public, s = 0, next to the paper's LabelDT), with +-2 SE error
  bars and a paired one-sided Wilcoxon signed-rank test over the splits; whether HistOfTree's
  private histogram helped (its best t); which method wins, and whether significantly; whether
  it beats the yardstick :data:`YARDSTICK` (the training mean: no feature, no privacy), said
  plainly when it does not; and, with two or more protected columns, which of them the cost
  comes from.
* **Without** (``private=None``): nothing is guessed. The per-column cost table says what
  protecting each column alone costs at each epsilon (ParDT, the CART tree on privatised labels
  that cannot see protected columns, against the same tree seeing every column, on the same
  noise), and a recommended ordering, cheapest to protect first.

Grids adapt to the table (:mod:`ldpviz.reproduce.grids`); the cost of the run is estimated from
a few timed pilot fits before it starts (``max_seconds`` refuses runs that would take longer).
"""

from __future__ import annotations

import functools
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.dummy import DummyRegressor

from .._validation import PrivacyWarning, check_features, check_int
from ..adhistoftree import AdHistOfTree
from ..baselines import DT, KRR, Hist, LabelDT, ParDT
from ..estimators import HistOfTree
from ..masks import decade_mask
from . import whatif_answers as answers
from .catalog import METHODS  # by key: (display name, role), as the command line lists them
from .experiments import Arm, Mask, SplitData, run
from .grids import GRID_RULE, whatif_grids
from .runtime import duration, estimate_seconds
from .whatif_data import box_message, copies_notes, resolve_columns
from .whatif_inputs import (  # noqa: F401 (MAX_*: the limits, documented here too)
    MAX_EPSILON,
    MAX_EPSILONS,
    MAX_LABEL,
    MAX_MINUTES,
    check_arguments,
    check_epsilons,
    check_labels,
    check_methods,
    check_options,
    column_names,
)

__all__ = ["METHODS", "REFERENCE", "YARDSTICK", "DecadeMask", "WhatIf", "plot_whatif", "whatif",
           "whatif_summary"]

REFERENCE = "DT"
#: The yardstick every answer is measured against: the training mean of the raw labels,
#: predicted for every test row. It uses no feature and no privacy (a server under label LDP
#: sees only noisy labels; this is what a researcher would get from the mean alone). A
#: protecting method that does not beat it has learnt nothing usable from the features.
YARDSTICK = answers.YARDSTICK
#: With more protected columns than this, the cost is not attributed column by column.
MAX_ATTRIBUTED = 12
NONE = "(none)"
#: Fewest training and test rows per split the analysis accepts.
MIN_TRAIN, MIN_TEST = 10, 3


@dataclass(frozen=True)
class DecadeMask:
    """The personalized paradigm with named columns (Section 5.2's decade rule, made explicit).

    Every user protects ``private`` (s* columns); in addition the first n/10 users (a random
    tenth: the training rows are in random order) protect the next s* columns of ``also``, the
    first n/100 the s* after, and so on. Columns in neither list are public for everyone.
    """

    private: tuple
    also: tuple = ()

    def build(self, n, d):
        s = len(self.private)
        columns = list(self.private) + list(self.also)
        W = np.zeros((n, d), dtype=bool)
        W[:, columns] = decade_mask(n, len(columns), s)
        return W

    def rule(self, names):
        s = len(self.private)
        text = f"every user protects {_names(names, self.private)}"
        for k, start in enumerate(range(0, len(self.also), s), start=1):
            text += (f"; 1 in {10**k:,} users also protects "
                     f"{_names(names, self.also[start:start + s])}")
        return text + "; every other column is public"


def _names(names, columns):
    return ", ".join(str(names[j]) for j in columns)


@dataclass
class WhatIf:
    """The result of :func:`whatif`.

    Attributes
    ----------
    results : DataFrame
        Every grid point of every method on every split (the runner's tidy rows).
    best : DataFrame
        Best grid point per method (chosen on the mean over splits), one row per split, with
        ``mse_ratio`` (MSE over the mean MSE of the non-private tree DT).
    summary : DataFrame
        Per (epsilon, paradigm, method): mean ratio and its standard error, rank,
        significance marks (among the methods that respect the protection: see
        :func:`ldpviz.reproduce.whatif_answers.significant`), the chosen configuration. The
        rows of ``role`` "reference" (DT) and "yardstick" (:data:`YARDSTICK`, the training
        mean) have no epsilon: they use no privacy.
    answers : DataFrame
        Per (epsilon, paradigm): the numbers behind the answer and the ``sentence``
        (``yardstick_ratio``, ``yardstick_rmse`` and ``beats_yardstick``: the training mean
        and whether the best protecting method beats it significantly; with splits too few
        for any test to be significant, on average).
    costs : DataFrame or None
        Per (column, epsilon): the cost of protecting that column alone (see the module
        docstring), with ``se``, ``p_value``, ``significant`` and ``rank``.
    ranking : list of str or None
        Columns from cheapest to costliest to protect (when ``costs`` was computed for every
        column).
    grids : dict
        Method key -> :class:`ldpviz.reproduce.grids.MethodGrid` actually used.
    choices : dict
        Everything needed to repeat the run (columns, ranges, grids, epsilons, splits, seed,
        version) and what the data said about them (clipped shares).
    notes : list of str
        What was also issued as warnings about the inputs (a protected feature box read off
        the data, a protected column that protects nothing, a grid that cannot run); the
        report shows them.
    """

    results: pd.DataFrame
    best: pd.DataFrame
    summary: pd.DataFrame
    answers: pd.DataFrame
    costs: pd.DataFrame | None
    ranking: list | None
    grids: dict
    choices: dict
    notes: list = field(default_factory=list)

    @property
    def sentences(self):
        """The answer in words: one sentence per (epsilon, paradigm), then the ranking."""
        out = list(self.answers["sentence"]) if len(self.answers) else []
        if self.ranking is not None:
            out += answers.cost_sentences(self.costs, self.ranking)
        return out


# ----------------------------------------------------------------------------------------------
# Arms
# ----------------------------------------------------------------------------------------------
def _hot(rule=None, **params):
    return {**({"rule": rule} if rule else {}), "mechanism": "grr", **params}


def _arms_for(method, estimator, data, labels, params, grid, mask=None):
    """One Arm per sub-grid of ``grid`` (a MethodGrid); extra grid entries from ``params``."""
    extra = dict(params.pop("_grid", {}))
    return [Arm(method, estimator, data, labels, params, {**extra, **sub}, mask)
            for sub in grid.subgrids]


def _build_arms(data, grids, epsilons, private, also, screen, methods, names):
    s = len(private or [])
    order = tuple(private or []) + tuple(j for j in range(data.X.shape[1])
                                         if j not in (private or []))
    aligned = Mask("aligned", s_star=s, order=order)
    public = Mask("aligned", s_star=0)
    arms = [*_arms_for(REFERENCE, DT, data, {"paradigm": "reference", "role": "reference"},
                       {}, grids["tree"]),
            Arm(YARDSTICK, DummyRegressor, data, {"paradigm": "reference", "role": "yardstick"},
                {"strategy": "mean"})]
    paradigms = []
    if private:
        paradigms.append(("aligned", aligned))
        if also is not None:
            paradigms.append(("personalized", DecadeMask(tuple(private), tuple(also))))
    for eps in epsilons:
        both = {"epsilon": eps, "paradigm": "both"}
        if private:
            if "hist" in methods:
                arms += _arms_for("Hist", Hist, data, {**both, "role": "protected"},
                                  {"epsilon": eps}, grids["hist"])
            if "hot0" in methods:
                arms += _arms_for(METHODS["hot0"][0], HistOfTree, data,
                                  {**both, "role": "label"},
                                  _hot(epsilon=eps, s=0, _grid={"rule": ("max-edge", "cart")}),
                                  grids["hot0"], public)
            if "labeldt" in methods:
                arms += _arms_for("LabelDT", LabelDT, data, {**both, "role": "label"},
                                  {"epsilon": eps}, grids["tree"])
        for paradigm, mask in paradigms:
            lab = {"epsilon": eps, "paradigm": paradigm, "role": "protected"}
            for rule, short in (("max-edge", "me"), ("cart", "cart")):
                if f"hot-{short}" in methods:
                    arms += _arms_for(METHODS[f"hot-{short}"][0], HistOfTree, data, lab,
                                      _hot(rule, epsilon=eps, s=s), grids["hot"], mask)
                if paradigm == "personalized" and f"adhot-{short}" in methods:
                    arms += _arms_for(METHODS[f"adhot-{short}"][0], AdHistOfTree, data, lab,
                                      _hot(rule, epsilon=eps), grids["adhot"], mask)
            if "pardt" in methods:
                arms += _arms_for("ParDT", ParDT, data, lab, {"epsilon": eps}, grids["tree"],
                                  mask)
            if "krr" in methods:
                arms += _arms_for("KRR", KRR, data, lab, {"epsilon": eps}, grids["krr"], mask)
        if screen:
            # Same method name and parameters: every column shares the noise of the reference
            # (common random numbers), so the paired differences measure the column alone.
            lab = {"epsilon": eps, "paradigm": "screen", "role": "screen"}
            arms += _arms_for("ParDT", ParDT, data, {**lab, "column": NONE}, {"epsilon": eps},
                              grids["tree"], public)
            for j in screen:
                arms += _arms_for("ParDT", ParDT, data, {**lab, "column": names[j]},
                                  {"epsilon": eps}, grids["tree"],
                                  Mask("aligned", s_star=1, order=_first(j, data.X.shape[1])))
    return arms


def _first(j, d):
    return (int(j), *(k for k in range(d) if k != j))


# ----------------------------------------------------------------------------------------------
# The cost of the run, estimated before it starts
# ----------------------------------------------------------------------------------------------
#: Splits run when ``reps`` is None, time permitting, and the fewest it then accepts (at 5
#: splits a one-sided Wilcoxon test can reach 0.05).
AUTO_REPS, MIN_AUTO_REPS = 20, 5


def _plan(arms, reps, n_jobs, max_seconds, say):
    """The number of splits to run (``reps``, or with None the most up to :data:`AUTO_REPS`
    that fit in ``max_seconds``, at least :data:`MIN_AUTO_REPS`) and the estimate's text."""
    wanted = AUTO_REPS if reps is None else reps
    seconds, n_fits, jobs = estimate_seconds(arms, wanted, n_jobs)
    idle = f"with {jobs} job(s) on an otherwise idle machine"
    text = f"{n_fits:,} fits, about {duration(seconds)} {idle}"
    fit = wanted if max_seconds is None or seconds <= max_seconds else \
        int(wanted * max_seconds / seconds)
    if reps is None and MIN_AUTO_REPS <= fit < wanted:
        say(f"plan: {wanted} splits would take {text}; running {fit} splits (about "
            f"{duration(seconds * fit / wanted)}) to stay within the time limit of "
            f"{duration(max_seconds)} (choose with reps / --reps)")
        return fit, f"{n_fits * fit // wanted:,} fits, about " \
            f"{duration(seconds * fit / wanted)} {idle}"
    if fit < wanted:
        one = duration(seconds / wanted)
        hint = (f"a run with {fit} split(s) takes about {duration(seconds * fit / wanted)}: "
                f"pass reps={fit} (--reps {fit})" if fit >= 1 else
                f"even 1 split takes about {one}: use fewer epsilons or smaller grids")
        raise ValueError(f"the run is estimated at {duration(seconds)} ({n_fits:,} fits for "
                         f"{wanted} splits), more than the time limit max_seconds="
                         f"{max_seconds:g} ({duration(max_seconds)}; --max-minutes on the "
                         f"command line): {hint}; more jobs or smaller grids also help, and "
                         "max_seconds=None lifts the limit.")
    say(f"plan: {wanted} split{'s' if wanted != 1 else ''}: {text}")
    return wanted, text


# ----------------------------------------------------------------------------------------------
# The analysis
# ----------------------------------------------------------------------------------------------
def _best(results):
    """Per (method, epsilon, paradigm, column): the rows of the grid point with the lowest
    mean MSE over the splits, across the method's sub-grid arms."""
    keys = ["method", "epsilon", "paradigm", "role", "column"]
    results = results.assign(**{k: results.get(k, np.nan) for k in keys if k not in results})
    means = results.groupby([*keys, "arm", "config_id"], dropna=False)["mse"].mean()
    means = means.reset_index().sort_values(["arm", "config_id"], kind="stable")
    chosen = means.loc[means.groupby(keys, dropna=False)["mse"].idxmin(), ["arm", "config_id"]]
    best = results.merge(chosen, on=["arm", "config_id"])
    return best.sort_values([*keys[:3], "rep"], kind="stable").reset_index(drop=True)


def _expand(best, paradigms):
    """Paradigm-free rows ("both": Hist and the label-only methods) into each paradigm run."""
    both = best[best["paradigm"] == "both"]
    parts = [best[best["paradigm"] != "both"]] + [both.assign(paradigm=p) for p in paradigms]
    best = pd.concat(parts, ignore_index=True)
    ref = best.loc[best["method"] == REFERENCE, "mse"].mean()
    if not ref > 0:
        raise ValueError("the non-private tree DT predicted every test label exactly (test "
                         "MSE 0 on every split), so the error of a method relative to it is "
                         "undefined: the label is a function the tree finds without error; "
                         "a what-if needs a label the features do not determine exactly.")
    return best.assign(reference_mse=ref, mse_ratio=best["mse"] / ref)


def whatif(X, y, private=None, *, personalized=None, feature_names=None, epsilons=(1, 2, 4),
           reps=20, y_range=None, label_range=None, test_size=0.3, seed=0, n_jobs=None,
           progress=False, cache_dir=None, grids=None, methods=None,
           max_seconds=60 * MAX_MINUTES, name="data", target_name=None, provenance=None,
           log=None):
    """What does protecting these columns cost at each epsilon, and which method wins?

    Parameters
    ----------
    X : (n, d) array in the public box [0, 1] (e.g. ``load_table(...).X``); y : (n,) labels.
    private : list of str or int, or None
        Columns every user protects (names need ``feature_names``; a one-hot group's name
        selects all its columns). None: no column is assumed private; the per-column cost
        table and a recommended ordering are computed instead.
    personalized : list of str or int, or None
        Adds the personalized paradigm (:class:`DecadeMask`): on top of ``private``, 1 in 10
        users also protects the first ``len(private)`` of these columns, 1 in 100 the next,
        and so on. None: the aligned paradigm only.
    feature_names : list of str or None
        None: a DataFrame X's columns, else x0, x1, ... (given with a DataFrame, they must
        equal its columns).
    epsilons : sequence of float in (0, 1000], default=(1, 2, 4)
    reps : int or None, default=20
        Random train/test splits (the paper uses 50). None: 20, or as many as fit in
        ``max_seconds`` (at least 5; the choice is logged and recorded).
    y_range : (lo, hi) or None
        Public label range. None reads it off ``y`` with a PrivacyWarning (it leaks). Every
        private method trains on labels clipped to it; the non-private reference DT trains on
        the raw labels, and every method is tested on the raw labels (so ratios to DT include
        the clipping's cost). Above 1% clipped a UserWarning says so; a range that leaves more
        than half of the labels outside is refused.
    label_range : {"declared", "independent", "private"} or None
        Where the label range comes from (the policies of ``reproduce table1``), recorded in
        ``choices``: "declared" (the label's declared scale) and "independent" (the range of
        independent public data on the same scale) need ``y_range``; "private" reads it off
        ``y`` (leaks; for comparison only) and takes none. None: "given" or "private".
    test_size : float, default=0.3
    seed, n_jobs, progress, cache_dir : see :func:`ldpviz.reproduce.experiments.run`
        (with local workers, n_jobs is at most the machine's cores).
    grids : dict or None
        Candidate values replacing the rule's (:func:`ldpviz.reproduce.grids.whatif_grids`).
    methods : list of str or None
        Keys of :data:`METHODS` to run, each once (default all); DT, the reference, always
        runs. AdHistOfTree ("adhot-me", "adhot-cart") runs in the personalized paradigm only:
        asking for it without ``personalized`` is refused, and the default list leaves it out
        of an aligned-only run (``choices["methods"]`` lists the methods that ran). Without
        ``private`` (the per-column costs: ParDT and DT) methods is refused.
    max_seconds : float or None, default=7200 (:data:`MAX_MINUTES`, as the command line)
        Refuse (ValueError) a run estimated to take longer, naming a number of splits that
        fits (with ``reps=None``, run fewer splits instead when at least 5 fit). None: no
        limit.
    name : str
        Names the data in the cache key and the report.
    target_name : str or None
        Names the label, whose units the answer's errors (RMSE) are in. None: the "target" of
        ``provenance`` (``load_table``'s), else the name of a pandas Series ``y``, else none.
    provenance : dict or None
        Choices made before this call (e.g. ``load_table(...).choices``: the feature box),
        recorded in ``choices``. A PrivacyWarning names the protected columns (``private`` and
        ``personalized``) it lists under "feature_bounds_read_off_data": their bounds were
        read off the data, which leaks their extremes.
    log : callable or None
        Called with a line of text for each step (the command line prints them).

    Returns
    -------
    WhatIf
    """
    test_size, n_jobs, progress, cache_dir, max_seconds = check_options(
        test_size, n_jobs, progress, cache_dir, max_seconds, log)
    check_arguments(grids, provenance, name, target_name)
    say = log or (lambda text: None)
    target_name = target_name or (provenance or {}).get("target") or getattr(y, "name", None)
    table, X = X, check_features(X, "X")  # the table as given names its columns
    n, d = X.shape
    names = column_names(table, feature_names, d)
    private = resolve_columns(private, names, "private", target_name)
    if private == []:
        raise ValueError("private must name at least one column (None: the per-column costs).")
    also = resolve_columns(personalized, names, "personalized", target_name)
    if also is not None:
        if not private:
            raise ValueError("personalized needs private: the columns every user protects.")
        if set(also) & set(private):
            raise ValueError(f"personalized repeats columns of private: "
                             f"{_names(names, sorted(set(also) & set(private)))}.")
    # Protected columns min-max scaled with bounds read off the data (load_table's provenance).
    box = box_message((provenance or {}).get("feature_bounds_read_off_data") or {},
                      [names[j] for j in (private or []) + (also or [])])
    epsilons = check_epsilons(epsilons)
    reps = None if reps is None else check_int(reps, "reps", 1, 10_000)
    seed = check_int(seed, "seed", 0, 2**63 - 1)
    keys = check_methods(methods, METHODS)
    adhot = [m for m in keys if m.startswith("adhot-")]
    if methods is not None and private is None:
        raise ValueError("methods chooses the methods compared under private; without private "
                         "the per-column costs are measured with ParDT and DT alone, so "
                         "leave methods out (or name the protected columns in private).")
    if methods is not None and adhot and also is None:
        raise ValueError(f"methods asks for {', '.join(adhot)}, but AdHistOfTree runs in the "
                         "personalized paradigm only: pass personalized (the columns some "
                         "users also protect), or leave adhot-* out of methods.")
    running = [] if private is None else [m for m in keys if also is not None
                                          or not m.startswith("adhot-")]
    y, y_range, label_choices = check_labels(y, n, y_range, label_range)
    if np.ptp(y) == 0:  # every error would be 0 or a ratio to 0: no answer to give
        raise ValueError(f"y is constant (every label is {y[0]:g}): there is nothing to "
                         "predict, and every error ratio to the non-private tree (whose error "
                         "would be 0) is undefined; the what-if needs a label that varies.")
    n_train = n - round(test_size * n)
    if n_train < MIN_TRAIN or n - n_train < MIN_TEST:
        raise ValueError(f"X has {n} rows: with test_size={test_size:g} that leaves "
                         f"{n_train} training and {n - n_train} test rows per split; the "
                         f"analysis needs at least {MIN_TRAIN} and {MIN_TEST}.")
    data = SplitData(X, y, y_range, float(test_size), name)
    grid = whatif_grids(n_train, d, len(private or []), also is not None, grids)
    if not grid["tree"].applicable:
        raise ValueError("the reference tree DT has no grid point that fits: "
                         + "; ".join(grid["tree"].notes) + " (change grids['tree']).")
    screen = list(range(d)) if private is None else (
        private if 2 <= len(private) <= MAX_ATTRIBUTED else [])
    if box:  # after every argument check: a refused call prints its one error line alone
        warnings.warn(box, PrivacyWarning, stacklevel=2)
    arms = _build_arms(data, grid, epsilons, private, also, screen, running, names)
    serving = {_METHOD_GRID[m] for m in [*running, REFERENCE]}  # DT always runs on "tree"
    used = {key: g for key, g in grid.items() if key in serving}
    choices = {
        "data": name, "rows": n, "features": d, "feature_names": names,
        "private": None if private is None else [names[j] for j in private],
        "personalized": None if also is None else [names[j] for j in also],
        "aligned_rule": None if not private else
        f"every user protects {_names(names, private)}; every other column is public",
        "personalized_rule": None if also is None else
        DecadeMask(tuple(private), tuple(also)).rule(names),
        "epsilons": epsilons, "splits": reps, "test_size": float(test_size), "seed": seed,
        "training_rows": n_train, "methods": running, "grid_rule": GRID_RULE,
        "grids": {k: g.describe() for k, g in used.items()},
        "grid_notes": {k: list(g.notes) for k, g in used.items() if g.notes},
        **label_choices, **(provenance or {}),
    }
    if private and adhot and also is None:
        choices["methods_not_run"] = (f"{', '.join(adhot)} not run: AdHistOfTree runs in the "
                                      "personalized paradigm only")
    from .. import __version__

    choices["version"] = __version__
    choices["target"] = None if target_name is None else str(target_name)
    notes = copies_notes(X, names, private or [])
    for key, g in used.items():
        if not g.applicable:
            notes.append(f"{_grid_name(key, running, screen)} not run: "
                         + "; ".join(g.notes) + ".")
    for note in notes:
        warnings.warn(note, UserWarning, stacklevel=2)
    notes = ([box] if box else []) + notes  # the report shows the privacy warning too
    say(f"label range ({y_range[0]:g}, {y_range[1]:g}), {label_choices['y_range_source']}: "
        f"clips {label_choices['labels_clipped']:.1%} of the labels")
    if private is None:
        say("no private columns given, so none is assumed: measuring what protecting each "
            "column alone costs (the per-column cost table), to choose from")
    else:
        say(f"aligned paradigm: {choices['aligned_rule']}")
        say("personalized paradigm: " + (choices["personalized_rule"] or
                                         "not run (name the columns some users also protect "
                                         "with personalized / --personalized)"))
        if adhot and also is None:
            say(f"{choices['methods_not_run']}")
    say("grids: " + GRID_RULE)
    for key, text in choices["grids"].items():
        say(f"  {_grid_name(key, running, screen)}: {text}")
    reps, choices["estimate"] = _plan(arms, reps, n_jobs, max_seconds, say)
    choices["splits"] = reps
    start = time.perf_counter()
    results = run(arms, reps=reps, seed=seed, n_jobs=n_jobs, progress=progress,
                  cache_dir=cache_dir)
    choices["wall_seconds"] = round(time.perf_counter() - start, 1)
    paradigms = [p for p, on in (("aligned", private), ("personalized", also is not None)) if on]
    best = _expand(_best(results), paradigms)
    main = best[best["role"] != "screen"]
    summary = answers.summarize(main)
    costs = answers.column_costs(best, names, n_train) if screen else None
    ranking = answers.cheapest_first(costs) if private is None else None
    widen = functools.partial(_widenable, n_train=n_train, d=d, s=len(private or []),
                              personalized=also is not None, overrides=grids)
    tops = {key: widen(key, g) for key, g in used.items()}  # once per grid, not per method
    edges = {}  # method -> (its --grid key, the largest value offered per tuned size)
    for k in [*running, REFERENCE]:
        key = _METHOD_GRID[k]
        edges[METHODS[k][0] if k in METHODS else k] = ("hot" if key == "hot0" else key,
                                                       tops[key])
    table = answers.answer_table(summary, main, results, costs, choices, edges) if private else \
        pd.DataFrame(columns=["epsilon", "paradigm", "sentence"])
    return WhatIf(results, best, summary, table, costs, ranking, used, choices, notes)


#: The grid each method key (and DT) runs on.
_METHOD_GRID = {"hot-me": "hot", "hot-cart": "hot", "adhot-me": "adhot", "adhot-cart": "adhot",
                "pardt": "tree", "krr": "krr", "hist": "hist", "hot0": "hot0",
                "labeldt": "tree", REFERENCE: "tree"}
_GRID_NAMES = {"hot": "HistOfTree (ME, CART)", "hot0": "HistOfTree s=0 (label only)",
               "adhot": "AdHistOfTree", "hist": "Hist", "krr": "KRR"}


def _widenable(key, grid, n_train, d, s, personalized, overrides):
    """{parameter: largest value} of ``grid`` (:func:`whatif_answers.grid_maxima`) for the
    sizes a wider candidate list could push further: one more (t + 1, depth + 1, ...) must
    survive the grid rule (not, e.g., a depth whose 2^p cells exceed n/2)."""
    option = "hot" if key == "hot0" else key  # HistOfTree s=0 takes HistOfTree's candidates
    out = {}
    for param, top in answers.grid_maxima(grid).items():
        wider = {k: dict(v) for k, v in (overrides or {}).items()}
        wider.setdefault(option, {})[param] = (top + 1,)
        try:
            probe = whatif_grids(n_train, d, s, personalized, wider)[key]
        except ValueError:  # beyond the parameter's range
            continue
        if any(c.get(param) == top + 1 for c in probe.configs()):
            out[param] = top
    return out


def _grid_name(key, running, screen):
    """The methods a grid serves in this run ("tree": DT always, ParDT and LabelDT if run)."""
    if key != "tree":
        return _GRID_NAMES[key]
    trees = [name for k, name in (("pardt", "ParDT"), ("labeldt", "LabelDT"))
             if k in running or (k == "pardt" and screen)]
    return ", ".join([*trees, "DT"])


# ----------------------------------------------------------------------------------------------
# Printing and the static figure
# ----------------------------------------------------------------------------------------------
def whatif_summary(result):
    """Mean MSE ratio to DT per (paradigm, method) and epsilon, "1.52 ± 0.08*" (2 SE; * the
    winner is significantly better than every other method that respects the protection)."""
    return answers.wide_summary(result.summary if isinstance(result, WhatIf) else result)


def plot_whatif(result):
    """MSE ratio to DT against epsilon (mean +- 2 SE), one panel per paradigm; each method
    keeps its colour and marker in every panel; label-only methods are dashed."""
    from .whatif_report import matplotlib_figure

    return matplotlib_figure(result)
