"""Tuning grids of the what-if analysis, adapted to the table by one documented rule.

Appendix C.1 of the HistOfTree paper fixes one grid per method for tables of 6 to 12 features
and a few thousand rows. On other tables those grids either cannot be built (Hist's ``t**d``
cells at d = 58) or are unfair (a minimum leaf of 100 that HistOfTree's grid lacks). The rule
below, :data:`GRID_RULE`, adapts every grid to the number of training rows ``n`` (per split),
the number of features ``d`` and the number of protected columns ``s``:

1. **Candidates.** Appendix C.1's values, extended: depths p in {1, 2, 4, 6, 8, 10, 12} (and
   p = 0 for HistOfTree: the constant fit), minimum leaf sizes in {1, 10, 100, 1000}
   (HistOfTree: {0, 100}; 0 is its "no minimum", 100 ParDT's largest in C.1), HistOfTree
   bins t in {1, 2, 3, 4, 6, 8, 12, 16} and rho in {0.5, 0.7, 0.9}, AdHistOfTree c in
   {0.01, 0.1, 1} and t offsets {-1, 0, 1}, Hist bins t in {1, 2, 3, 4, 6, 8, 12, 16} and zeta
   in {0.01, 0.05}, KRR levels k in {2, 3, 4, 5}. C.1's bins stop at t = 3 (Hist 4) for its
   tables; with few protected columns or many rows the best histogram is finer, and a grid
   stopped at 3 charged the protected columns for its own coarseness (one protected column,
   1,400 training rows, epsilon 1000: +148% with t <= 3, -0.3% with t up to 32). Rule 2 keeps
   the finer bins to the tables that can hold them.
2. **A partition never has more cells than half the training rows**: ``2**p <= n / 2`` for
   the trees, ``t**s * 2**p <= n / 2`` for HistOfTree, ``t**d <= n / 2`` for Hist (so Hist
   never asks for more cells than it can store; at worst it keeps t = 1, a privately
   estimated mean, and the grid says so; above 64 features Hist cannot index its grid and is
   reported as not applicable).
3. **Minimum leaf sizes** below n / 2, plus, for the scikit-learn trees, the first candidate
   at or above n / 2 (a tree that may not split: the constant fit HistOfTree gets from p = 0).
4. **No duplicate fits.** Parameters that cannot change a fit are not varied: rho when every
   user's cell is fixed by what they publish (aligned masks with t = 1, and s = 0), the
   minimum leaf at p = 0, zeta at t = 1.
5. **Large tables** (more than :data:`LARGE_N` training rows): tree depths {4, 8, 12},
   HistOfTree depths {0, 4, 8} and bins t {1, 2, 3, 6, 12} (Hist {1, 2, 3, 4, 6, 12}), one
   minimum leaf (100; HistOfTree 0: with leaves of thousands of rows it rarely binds), rho
   {0.5, 0.9}, zeta 0.05, k {2, 4}, c {0.01, 0.1} and t offset 0. Each fit costs seconds
   there (at 700,000 rows: scikit-learn's tree about 6 s at depth 6, HistOfTree 3-10 s at
   depth 4-8), and the tuning noise is small.

Any candidate list can be replaced (``overrides``, or ``--grid`` on the command line); rules 2-4
still apply and every value they remove is listed in :attr:`MethodGrid.notes`.
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass

__all__ = ["GRID_RULE", "LARGE_N", "MethodGrid", "parse_grid_option", "whatif_grids"]

#: Above this many training rows the grids are thinned (rule 5).
LARGE_N = 20_000

GRID_RULE = (
    "Grids adapt to the table: partitions have at most n/2 cells for n training rows "
    "(2^p for trees, t^s 2^p for HistOfTree, t^d for Hist), minimum leaves stay below n/2 "
    "(trees keep one at or above it: the constant fit), parameters that cannot change a fit "
    "are not varied, and above 20,000 training rows the grids are thinned "
    "(ldpviz.reproduce.grids).")

CANDIDATES = {
    "hot": {"rho": (0.5, 0.7, 0.9), "depth": (0, 1, 2, 4, 6, 8, 10, 12),
            "t": (1, 2, 3, 4, 6, 8, 12, 16), "min_samples_leaf": (0, 100)},
    "adhot": {"rho": (0.5, 0.7, 0.9), "c": (0.01, 0.1, 1.0), "t_offset": (-1, 0, 1)},
    "hist": {"t": (1, 2, 3, 4, 6, 8, 12, 16), "zeta": (0.01, 0.05)},
    "tree": {"max_depth": (1, 2, 4, 6, 8, 10, 12), "min_samples_leaf": (1, 10, 100, 1000)},
    "krr": {"k": (2, 3, 4, 5)},
}
LARGE_CANDIDATES = {
    "hot": {"rho": (0.5, 0.9), "depth": (0, 4, 8), "t": (1, 2, 3, 6, 12),
            "min_samples_leaf": (0,)},
    "adhot": {"rho": (0.5, 0.9), "c": (0.01, 0.1), "t_offset": (0,)},
    "hist": {"t": (1, 2, 3, 4, 6, 12), "zeta": (0.05,)},
    "tree": {"max_depth": (4, 8, 12), "min_samples_leaf": (100,)},
    "krr": {"k": (2, 4)},
}
# What each value must be: (kind, lowest, highest, open interval).
_KINDS = {"rho": (float, 0.0, 1.0, True), "depth": (int, 0, 30, False),
          "t": (int, 1, 64, False), "min_samples_leaf": (int, 0, 10**9, False),
          "c": (float, 0.0, 1e6, True), "t_offset": (int, -10, 10, False),
          "zeta": (float, 0.0, 1e6, False), "max_depth": (int, 1, 30, False),
          "k": (int, 2, 64, False)}


@dataclass(frozen=True)
class MethodGrid:
    """One method family's grid: a union of product grids, and what the rule left out.

    ``subgrids`` maps each parameter to its values; every combination within a sub-grid is
    fitted. An empty tuple means the method is not applicable; ``notes`` says why.
    """

    key: str
    subgrids: tuple
    notes: tuple = ()

    @property
    def size(self):
        """Number of grid points (fits per replication)."""
        return sum(math.prod(len(v) for v in g.values()) for g in self.subgrids)

    @property
    def applicable(self):
        return bool(self.subgrids)

    def configs(self):
        """Every grid point as a dict, sub-grid by sub-grid."""
        out = []
        for grid in self.subgrids:
            names = list(grid)
            out += [dict(zip(names, v, strict=True)) for v in itertools.product(*grid.values())]
        return out

    def describe(self):
        """One line: the sub-grids, e.g. ``t=1: depth {0, 1, 2}; t=2: ...``."""
        if not self.subgrids:
            return "not applicable: " + "; ".join(self.notes)
        parts = []
        for grid in self.subgrids:
            parts.append(", ".join(f"{k} {_fmt(v)}" for k, v in grid.items()))
        return "; ".join(parts) + f" ({self.size} points)"


def _fmt(values):
    text = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)
    return text if len(values) == 1 else "{" + text + "}"


def _check_values(key, param, values):
    kind, low, high, open_ = _KINDS[param]
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        values = (values,)
    values = tuple(values)
    if not values:
        raise ValueError(f"grids[{key!r}][{param!r}] must list at least one value.")
    out = []
    for v in values:
        ok = isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)
        if ok and kind is int:
            ok = float(v).is_integer()
        if ok:
            v = kind(v)
            ok = (low < v < high) if open_ else (low <= v <= high)
        if not ok:
            bound = f"({low:g}, {high:g})" if open_ else f"[{low:g}, {high:g}]"
            what = "integers" if kind is int else "numbers"
            raise ValueError(f"grids[{key!r}][{param!r}] must be {what} in {bound}, got {v!r}.")
        if v not in out:
            out.append(v)
    return tuple(sorted(out))


def _candidates(n_train, overrides):
    base = LARGE_CANDIDATES if n_train > LARGE_N else CANDIDATES
    merged = {key: dict(grid) for key, grid in base.items()}
    merged["krr"].update({"max_depth": None, "min_samples_leaf": None})  # default: the tree's
    for key, grid in (overrides or {}).items():
        if key not in merged:
            raise ValueError(f"grids has unknown method key {key!r}; known: {sorted(merged)}.")
        if not isinstance(grid, dict):
            raise ValueError(f"grids[{key!r}] must map parameters to values, got {grid!r}.")
        for param, values in grid.items():
            if param not in merged[key]:
                raise ValueError(f"grids[{key!r}] has unknown parameter {param!r}; known: "
                                 f"{sorted(merged[key])}.")
            merged[key][param] = _check_values(key, param, values)
    return merged


def _leaves(values, n_train, keep_first_above):
    """Rule 3: minimum leaves below n/2 (and, for trees, the first at or above it)."""
    below = [v for v in values if v < n_train / 2]
    above = [v for v in values if v >= n_train / 2]
    kept = below + (above[:1] if keep_first_above and above else [])
    return tuple(kept) or (min(values),), [v for v in values if v not in kept]


def _tree_grid(key, cand, n_train):
    depths = [p for p in cand["max_depth"] if 2**p <= n_train / 2]
    notes = []
    dropped = [p for p in cand["max_depth"] if p not in depths]
    if dropped:
        notes.append(f"max_depth {_fmt(dropped)} left out (2^p cells > n/2 = {n_train / 2:g})")
    leaves, gone = _leaves(cand["min_samples_leaf"], n_train, keep_first_above=True)
    if gone:
        notes.append(f"min_samples_leaf {_fmt(gone)} left out (rule 3)")
    if not depths:
        return MethodGrid(key, (), (f"no depth p >= 1 has 2^p <= n/2 = {n_train / 2:g} "
                                    "cells",))
    return MethodGrid(key, ({"max_depth": tuple(depths), "min_samples_leaf": leaves},),
                      tuple(notes))


def _hot_grid(cand, n_train, s, rho_matters_at_t1):
    """HistOfTree with s histogram axes (s = 0: every feature public, t plays no role)."""
    leaves, gone = _leaves(cand["min_samples_leaf"], n_train, keep_first_above=False)
    notes = [f"min_samples_leaf {_fmt(gone)} left out (rule 3)"] if gone else []
    subgrids, no_depth, shallower = [], [], []
    ts = (1,) if s == 0 else cand["t"]
    for t in ts:
        depths = [p for p in cand["depth"] if t**s * 2**p <= n_train / 2]
        dropped = [p for p in cand["depth"] if p not in depths]
        if not depths:
            no_depth.append(t)
            continue
        if dropped:
            shallower.append(f"t={t}: {_fmt(dropped)}")
        rhos = cand["rho"] if (t > 1 or rho_matters_at_t1) and s > 0 else cand["rho"][:1]
        if 0 in depths:
            subgrids.append({"t": (t,), "rho": rhos, "depth": (0,),
                             "min_samples_leaf": leaves[:1]})
        deeper = tuple(p for p in depths if p > 0)
        if deeper:
            subgrids.append({"t": (t,), "rho": rhos, "depth": deeper,
                             "min_samples_leaf": leaves})
    cells = f"t^{s} 2^p" if s else "2^p"
    if shallower:
        notes.append(f"depths left out where {cells} cells > n/2 = {n_train / 2:g}: "
                     + "; ".join(shallower))
    if no_depth:
        notes.append(f"t {_fmt(no_depth)} left out ({cells} cells > n/2 = {n_train / 2:g} at "
                     "every depth)")
    if not subgrids:
        notes.append("no (t, depth) fits: lower t or depth")
    return MethodGrid("hot" if s else "hot0", tuple(subgrids), tuple(notes))


def _hist_grid(cand, n_train, d):
    ts = [t for t in cand["t"] if t**d <= n_train / 2]
    dropped = [t for t in cand["t"] if t not in ts]
    notes = []
    if dropped:
        notes.append(f"t {_fmt(dropped)} left out (t^{d} cells > n/2 = {n_train / 2:g})")
    if ts == [1]:
        notes.append("only t = 1 remains: Hist is a privately estimated mean here")
    subgrids = []
    if 1 in ts:
        subgrids.append({"t": (1,), "zeta": cand["zeta"][:1]})
    if [t for t in ts if t > 1]:
        subgrids.append({"t": tuple(t for t in ts if t > 1), "zeta": cand["zeta"]})
    return MethodGrid("hist", tuple(subgrids), tuple(notes))


def whatif_grids(n_train, d, s, personalized=False, overrides=None):
    """Every method family's grid for a table with ``n_train`` training rows (rule above).

    Parameters
    ----------
    n_train : int
        Training rows per split.
    d : int
        Number of features.
    s : int
        Number of columns every user protects (the histogram axes of HistOfTree).
    personalized : bool, default=False
        Whether the grids serve the personalized paradigm too (then rho matters at t = 1).
    overrides : dict or None
        Replacement candidate lists, e.g. ``{"hot": {"depth": (1, 2)}, "tree":
        {"min_samples_leaf": (10,)}}``. Keys: "hot" (rho, depth, t, min_samples_leaf),
        "adhot" (rho, c, t_offset), "hist" (t, zeta), "tree" (max_depth, min_samples_leaf:
        ParDT, LabelDT, DT and the per-column costs), "krr" (k, and max_depth /
        min_samples_leaf, by default the tree's).

    Returns
    -------
    dict
        "hot", "hot0" (HistOfTree with every feature public), "adhot", "hist", "tree", "krr"
        -> :class:`MethodGrid`.
    """
    cand = _candidates(n_train, overrides)
    tree = _tree_grid("tree", cand["tree"], n_train)
    krr_tree = {k: cand["krr"][k] or cand["tree"][k] for k in ("max_depth", "min_samples_leaf")}
    krr_base = _tree_grid("krr", krr_tree, n_train)
    krr = MethodGrid("krr", tuple({"k": cand["krr"]["k"], **g} for g in krr_base.subgrids),
                     krr_base.notes)
    adhot = MethodGrid("adhot", ({"rho": cand["adhot"]["rho"], "c": cand["adhot"]["c"],
                                  "t_offset": cand["adhot"]["t_offset"]},))
    return {"hot": _hot_grid(cand["hot"], n_train, s, personalized),
            "hot0": _hot_grid(cand["hot"], n_train, 0, False),
            "adhot": adhot, "hist": _hist_grid(cand["hist"], n_train, d), "tree": tree,
            "krr": krr}


def parse_grid_option(text):
    """``"hot.depth=1,2,4"`` -> ``("hot", "depth", (1.0, 2.0, 4.0))`` (the ``--grid`` option)."""
    name, sep, values = str(text).partition("=")
    key, dot, param = name.strip().partition(".")
    if not sep or not dot or not key or not param or not values.strip():
        raise ValueError(f"--grid must look like METHOD.PARAM=V1,V2 (e.g. hot.depth=1,2,4), "
                         f"got {text!r}.")
    try:
        parsed = tuple(float(v) for v in values.split(","))
    except ValueError:
        raise ValueError(f"--grid {text!r}: values must be numbers separated by commas.") \
            from None
    parsed = tuple(int(v) if v.is_integer() and param not in ("rho", "c", "zeta") else v
                   for v in parsed)
    return key, param, parsed
