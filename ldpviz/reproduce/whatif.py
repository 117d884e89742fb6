"""What-if on your own data: Table 1's protocol, every method at every epsilon."""

from __future__ import annotations

import warnings

import numpy as np

from .._validation import PrivacyWarning, check_epsilon, check_int
from ..masks import aligned_s_star
from ..viz import plots
from .experiments import SplitData, best_over_grid, run
from .paper import REFERENCE, TREE_GRID, _with_ratio, realdata_arms, reference_arm


def whatif(X, y, private=None, epsilons=(1, 2, 4), reps=20, y_range=None, test_size=0.3,
           seed=0, n_jobs=None, progress=False, cache_dir=None, grids=None, name="data",
           feature_names=None):
    """Table 1's protocol on your own data: what does each method cost at each epsilon?

    Parameters
    ----------
    X : (n, d) array in [0, 1] (e.g. ``load_csv(...).X``); y : (n,) labels.
    private : list of int (or of names, with ``feature_names``) or None
        Protected columns, most sensitive first. Aligned paradigm: exactly these are private
        (s* = len(private)). Personalized paradigm: they are protected by every user, the next
        s* columns (in column order) by n/10 users, the next by n/100, ... (Section 5.2). None:
        the first s* = ceil(log sqrt d) columns.
    epsilons : sequence of float, default=(1, 2, 4)
    reps : int, default=20
        Random train/test splits (the paper uses 50).
    y_range : (lo, hi) or None
        Public label range. None reads it off ``y`` with a PrivacyWarning.
    test_size, seed, n_jobs, progress, cache_dir : see :func:`ldpviz.reproduce.experiments.run`.
    grids : dict or None
        Grid replacements for :func:`realdata_arms` (quick runs).
    feature_names : list of str or None
        Column names, so that ``private`` may name columns (e.g.
        ``load_diabetes().feature_names``).

    Returns
    -------
    pandas.DataFrame
        Best-over-grid rows (per method, paradigm, epsilon; chosen on the mean):
        ``method, paradigm, epsilon, rep, mse, mse_ratio, config`` and the grid parameters.
        ``mse_ratio`` is the MSE over the mean MSE of the best non-private decision tree
        (method "DT", paradigm "reference"), so its mean is Table 1's ratio.
    """
    X = np.asarray(X, dtype=float)
    d = X.shape[1] if X.ndim == 2 else 0
    if d < 2:
        raise ValueError(f"X must be 2-D with at least 2 features, got shape {X.shape}.")
    if private is None:
        private = list(range(aligned_s_star(d)))
    names = list(feature_names) if feature_names is not None else []
    unknown = [j for j in private if isinstance(j, str) and j not in names]
    if unknown:
        raise ValueError(f"private names columns not in feature_names: {unknown!r} "
                         f"(known: {names!r}).")
    private = [names.index(j) if isinstance(j, str) else int(j) for j in private]
    if not private or len(set(private)) != len(private) or not all(0 <= j < d for j in private):
        raise ValueError(f"private must list distinct column indices in 0..{d - 1}, got "
                         f"{private!r}.")
    epsilons = [check_epsilon(e, "epsilons") for e in np.atleast_1d(epsilons).tolist()]
    if not epsilons:
        raise ValueError("epsilons must contain at least one value.")
    if y_range is None:
        warnings.warn("y_range was not given, so the label range was read off y; a deployment "
                      "must fix it in advance.", PrivacyWarning, stacklevel=2)
        y_range = (float(np.min(y)), float(np.max(y)))
    data = SplitData(X, y, tuple(y_range), test_size, name)
    order = private + [j for j in range(d) if j not in private]
    arms = [a for eps in epsilons for a in realdata_arms(data, eps, len(private), order,
                                                          grids=grids)]
    arms.append(reference_arm(data, grid=(grids or {}).get("tree", TREE_GRID)))
    results = run(arms, reps=check_int(reps, "reps", 1), seed=seed, n_jobs=n_jobs,
                  progress=progress, cache_dir=cache_dir)
    best = best_over_grid(results)
    best["_all"] = 0
    best = _with_ratio(best, ["_all"]).drop(columns=["_all", "arm"])
    first = ["method", "paradigm", "epsilon", "rep", "mse", "mse_ratio", "reference_mse"]
    return best[first + [c for c in best.columns if c not in first]]


def whatif_summary(best):
    """Mean MSE ratio per (paradigm, method) and epsilon: a wide table for printing."""
    rows = best[best["method"] != REFERENCE]
    return rows.pivot_table(index=["paradigm", "method"], columns="epsilon", values="mse_ratio",
                            aggfunc="mean").round(3)


def plot_whatif(best):
    """MSE ratio against epsilon, one panel per paradigm (mean +- 2 SE); a method keeps its
    colour in both panels."""
    fig, axes = plots._figure(ncols=2, width=5.6, height=4.4)
    rows = best[best["method"] != REFERENCE]
    colors = dict(zip(sorted(rows["method"].unique()), plots.COLORS * 2, strict=False))
    for ax, paradigm in zip(axes, ("aligned", "personalized"), strict=True):
        plots.figure2_panel(rows[rows["paradigm"] == paradigm], x="epsilon", series="method",
                            y="mse_ratio", ax=ax, logx=True, title=paradigm, colors=colors)
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    return fig

