"""The resource budget: the one place that says how large a fit may grow.

Every estimator estimates, before it allocates anything, the partition it will build (cells
``t^s x 2^depth``, tree nodes), the per-user report entries its randomizers will touch (a proxy
for time) and the bytes its working arrays will take, and refuses with a ``ValueError`` naming
the parameter, the size and a value that fits when one of them exceeds this budget
(:mod:`ldpviz._validation`, "Resource budget"). The data and mask generators check the bytes
of their ``n`` rows the same way (:func:`check_rows`). The defaults suit a 2-core laptop with
8 GB of memory: one fit stays under about a gigabyte and ten seconds.

Change the budget for the whole session with :func:`set_config`, or for a block of code with
:func:`config_context`::

    import ldpviz
    with ldpviz.config_context(max_cells=1 << 24, max_bytes=4 << 30):
        model.fit(X, y, W)

The budget is per process: joblib workers started by ``ldpviz.reproduce`` use the defaults
unless they set it themselves.
"""

from __future__ import annotations

import math
import numbers
from contextlib import contextmanager
from typing import NamedTuple

__all__ = ["config_context", "get_config", "set_config"]  # the public part

#: Defaults for a 2-core, 8 GB laptop (see the module docstring).
DEFAULTS = {
    # Cells of one partition (t^s histogram cells x tree leaves, or Hist's t^d grid).
    "max_cells": 1 << 20,
    # Per-user report entries the randomizers touch (users x cells or users x leaves, about
    # 10 ns each), the public tree's growth counted in the same units (growth_entries): a fit
    # may touch this many in all (about 5 s) ...
    "max_report_entries": 1 << 29,
    # ... or, with more users, this many per user (about 20 s per million users).
    "max_report_entries_per_user": 1 << 11,
    # Working memory of one fit: per-cell arrays, tree nodes, per-chunk report arrays.
    "max_bytes": 1 << 30,
}

_config = dict(DEFAULTS)


def get_config():
    """The current resource budget as a dict (a copy: change it with :func:`set_config`).

    Keys
    ----
    max_cells : int
        Largest partition one estimator may build: histogram cells times tree leaves
        (``t^s x 2^depth`` for HistOfTree, ``t^d`` for Hist).
    max_report_entries, max_report_entries_per_user : int
        The randomizers of one fit may touch at most ``max(max_report_entries, n *
        max_report_entries_per_user)`` per-user report entries (users x cells for binary RR,
        users x tree leaves for GRR, n = users reporting), the public tree's growth counted
        in the same units (about 10 ns each): a few seconds for any fit, or a bounded time per
        user for many users.
    max_bytes : int
        Largest working memory, in bytes, one fit may allocate.
    """
    return dict(_config)


def _check_limit(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    return int(value)


def set_config(max_cells=None, max_report_entries=None, max_report_entries_per_user=None,
               max_bytes=None):
    """Change the resource budget for the rest of the session (None leaves a key unchanged).

    Parameters
    ----------
    max_cells, max_report_entries, max_report_entries_per_user, max_bytes : int >= 1 or None
        See :func:`get_config`. Raise them on a larger machine; a fit that exceeds them is
        refused before anything is allocated, with the size it would have built.
    """
    updates = {"max_cells": max_cells, "max_report_entries": max_report_entries,
               "max_report_entries_per_user": max_report_entries_per_user,
               "max_bytes": max_bytes}
    checked = {k: _check_limit(k, v) for k, v in updates.items() if v is not None}
    _config.update(checked)


@contextmanager
def config_context(**budget):
    """Within the ``with`` block use this budget (keys as :func:`set_config`), then restore.

    Examples
    --------
    >>> import ldpviz
    >>> with ldpviz.config_context(max_cells=1 << 22):
    ...     ldpviz.get_config()["max_cells"]
    4194304
    """
    unknown = sorted(set(budget) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"config_context got unknown keys {unknown}; the budget has "
                         f"{sorted(DEFAULTS)}.")
    saved = get_config()
    set_config(**budget)
    try:
        yield get_config()
    finally:
        _config.clear()
        _config.update(saved)


# ----------------------------------------------------------------------------------------------
# Checks against the budget: estimate first, refuse before allocating
# ----------------------------------------------------------------------------------------------
# Cap on the users x cells entries of the cell reports' work arrays (ldpviz.mechanisms), and
# users per block of their per-user arrays: bounded memory at any n.
_CHUNK_ENTRIES = 1 << 22
_USER_BLOCK = 1 << 19
# Bytes per tree node while the public tree grows: two per-node box arrays in Python lists, their
# stacked copies and the node's split fields.
_NODE_BYTES = 400
# The tree growth's work, in report entries (about 10 ns each): each level passes over every
# (user, tree axis) once per statistic (count, label sums, square), and every (tree axis, node)
# costs about _NODE_COST such entries per statistic (the tables of both halves or of the 256
# bins, their squared deviations and gains). Counted by users alone, wide tables of few users
# and deep trees ran at up to 16 times the time of a cell report's entry; counted with the
# nodes, 0.6 to 2.5 times (13 growths from 100 users x 3,000 axes to a million users x 3 axes,
# depth 4 to 20, and whole AdHistOfTree and classifier fits, in one run at load 2.3: growth
# 2.1 to 8.1 ns per entry, cell reports 3.3; at load 5, where timings spread, 10 to 37 against
# 7.9; another run at load 2.4: 4.1 to 13.3 against 4.6, 0.9 to 2.9 times).
# benchmarks/bench_inputs.py --calibrate prints these ratios. A CART level
# costs about _CART_LEVEL_COST max-edge levels: it sorts the users' 256 bins on every axis.
_NODE_COST = 20
_CART_LEVEL_COST = 4
# Beyond 2^_LOG2_CAP everything exceeds any budget: sizes are compared in log2 up to there.
_LOG2_CAP = 200


class PartitionPlan(NamedTuple):
    """What a HistOfTree-type fit will build, estimated before anything is allocated.

    cells : histogram cells x tree leaves (an upper bound on the leaves).
    leaves : tree leaves (2^depth for a full max-edge tree, else at most n / min_child).
    nodes : tree nodes (2 leaves - 1).
    report_entries : users x cells (binary RR: one bit per cell) or users x leaves x (1 + label
        columns) (GRR) entries the cell reports touch, plus the per-chunk passes over all cells
        and the tree growth's work (:func:`growth_entries`): a proxy for time, about 10 ns
        each.
    nbytes : working memory of the fit in bytes (an upper bound: per-cell arrays, tree nodes,
        the chunks of the cell reports and the per-user arrays besides the data).
    """

    cells: int
    leaves: int
    nodes: int
    report_entries: int
    nbytes: int


def _pow(base, exponent):
    """base**exponent as an int, or a number above every budget when it has > 200 bits."""
    if base <= 1 or exponent == 0:
        return 1 if exponent == 0 or base == 1 else 0
    if exponent * math.log2(base) > _LOG2_CAP:
        return 1 << (_LOG2_CAP + 1)
    return int(base) ** int(exponent)


def partition_plan(n_tree, n_report, t, s, depth, n_tree_axes, rule="max-edge",
                   min_samples_leaf=0, n_outputs=1, mechanism="grr", n_patterns=1, growths=1):
    """Estimate the partition, the report work and the memory of one HistOfTree-type fit.

    Parameters
    ----------
    n_tree : users whose published coordinates grow the tree.
    n_report : users who send a cell report.
    t, s, depth : bins per histogram axis, histogram axes, tree depth.
    n_tree_axes : axes the tree may split on (0: no tree, one leaf).
    rule, min_samples_leaf : the tree rule; a full max-edge tree (``min_samples_leaf = 0``) has
        2^depth leaves whatever the data, otherwise each leaf holds at least one user.
    n_outputs : label columns (1 for regression, K classes for the classifier).
    mechanism : "grr" touches each user's potential leaves; "rr" and "auto" one bit per cell.
    n_patterns : distinct sets of hidden histogram axes among the users (groups of the sums).
    growths : public trees grown (AdHistOfTree's depth search grows one per fold besides the
        fit's), each counted by :func:`growth_entries` with the report's entries.
    """
    full = _pow(2, depth if n_tree_axes else 0)
    min_child = max(min_samples_leaf, 1 if rule == "cart" else 0)
    leaves = full if min_child == 0 else min(full, max(1, n_tree // min_child))
    cells = _pow(t, s) * leaves
    m = n_outputs
    # GRR: each user's potential leaves, per label column; binary RR: one bit per potential
    # cell, summed over all label columns at once (ldpviz._cell_groups.rr_bit_sums).
    touched = leaves * (1 + m) if mechanism == "grr" else cells
    chunks = -(-n_report * cells * m // _CHUNK_ENTRIES) if n_report else 0
    nodes = 2 * leaves - 1
    # each user also walks the tree: at most min(depth, leaves) levels
    entries = (n_report * (touched + min(depth, leaves))
               + chunks * cells * (1 + m) * n_patterns
               + growths * growth_entries(n_tree, depth, n_tree_axes, nodes, rule, m))
    # Per cell: the report sums, their moments and the estimate's per-level arrays, about
    # 250 + 330 m bytes (measured with tracemalloc: 16,384 to 1,048,576 cells, 1 to 20 label
    # columns, either estimate; 580 bytes for regression). Binary RR's work arrays hold up to
    # _CHUNK_ENTRIES (user, cell) entries whatever m (the label columns are gathered one at a
    # time). Per user: the labels and their release; per user of a block, the per-column
    # weights and group sums: each class beyond the first costs up to about 120 bytes there
    # (measured: HistOfTreeClassifier, 2 to 500 classes, 100 to 2 million users).
    users = max(n_tree, n_report)
    nbytes = (cells * (256 + 384 * m) + nodes * (_NODE_BYTES + 32 * n_tree_axes)
              + 48 * min(_CHUNK_ENTRIES, n_report * cells)
              + users * (24 + 8 * m + 2 * (s + n_tree_axes))
              + 128 * (m - 1) * min(users, _USER_BLOCK))
    return PartitionPlan(cells, leaves, nodes, entries, nbytes)


def growth_entries(n_tree, depth, n_tree_axes, nodes, rule="max-edge", n_outputs=1):
    """The work of growing one public tree of ``nodes`` nodes, in report entries (about 10 ns
    each): ``(m + 2) k (depth n + _NODE_COST nodes)``, times ``_CART_LEVEL_COST`` for CART
    (the constants' comment gives the measurement)."""
    if not (depth and n_tree_axes):
        return 0
    return ((n_outputs + 2) * n_tree_axes * (depth * n_tree + _NODE_COST * nodes)
            * (_CART_LEVEL_COST if rule == "cart" else 1))


def report_entries_allowed(n_report, config=None):
    """The report entries one fit with ``n_report`` reporting users may touch."""
    config = get_config() if config is None else config
    return max(config["max_report_entries"], n_report * config["max_report_entries_per_user"])


def exceeds_budget(plan, n_report, config=None):
    """(key, size, limit) of the first budget ``plan`` exceeds, or None if it fits."""
    return _exceeded(plan, get_config() if config is None else config, n_report)


def _exceeded(plan, config, n_report):
    """(key, size, limit) of the first budget the plan exceeds, or None."""
    for key, size, limit in (
            ("max_cells", plan.cells, config["max_cells"]),
            ("max_bytes", plan.nbytes, config["max_bytes"]),
            ("max_report_entries", plan.report_entries,
             report_entries_allowed(n_report, config))):
        if size > limit:
            return key, size, limit
    return None


def _shown(value):
    """An integer as itself, or as its number of digits when too long to read."""
    from ._validation import shown  # here, not at the top: `import ldpviz` stays light

    return shown(value) if isinstance(value, int) else value


def describe_excess(key, size, limit):
    """'3,000 cells, more than the budget max_cells = 1,024' for an exceeded budget key."""
    what = {"max_cells": "cells", "max_bytes": "bytes of working memory",
            "max_report_entries": "per-user report entries"}[key]
    shown = f"{size:,}" if size < 1 << _LOG2_CAP else f"more than 2^{_LOG2_CAP}"
    if key == "max_report_entries":
        key = "max_report_entries (or max_report_entries_per_user x users)"
    return f"{shown} {what}, more than the budget {key} = {limit:,}"


def check_partition_budget(owner, n_tree, n_report, t, s, depth, n_tree_axes, rule="max-edge",
                           min_samples_leaf=0, n_outputs=1, mechanism="grr", n_patterns=1,
                           depth_name="depth", t_name="t", tree_users="users", growths=1):
    """Refuse a partition the data cannot fill or the budget cannot hold; return its plan.

    A full max-edge tree (``min_samples_leaf = 0``) has ``2^depth`` leaves whatever the data, so
    ``depth`` may not exceed ``ceil(log2 n)``: deeper, most leaves are empty by construction.
    Then the plan (:func:`partition_plan`) must fit :func:`get_config`. The ``ValueError`` names
    the parameter to change (``depth_name`` or ``t_name``) and the largest value that fits;
    ``tree_users`` says who grows the tree ("users", or LPDT's "public rows").
    """
    fill = math.ceil(math.log2(n_tree)) if n_tree > 1 else 0
    full_tree = n_tree_axes and rule == "max-edge" and min_samples_leaf == 0
    if full_tree and depth > fill:
        leaves = f"2^{depth}" if depth > 62 else f"2^{depth} = {2 ** depth:,}"
        raise ValueError(
            f"{depth_name}={depth} grows a max-edge tree with {leaves} leaves, more than the "
            f"n_samples = {n_tree:,} {tree_users} can fill; use {depth_name} <= {fill} "
            f"(ceil(log2 n)), or min_samples_leaf >= 1 to stop splitting where the data end.")
    config = get_config()

    def plan(t_, depth_):
        return partition_plan(n_tree, n_report, t_, s, depth_, n_tree_axes, rule,
                              min_samples_leaf, n_outputs, mechanism, n_patterns, growths)

    def fits(t_, depth_):
        return _exceeded(plan(t_, depth_), config, n_report) is None

    result = plan(t, depth)
    over = _exceeded(result, config, n_report)
    if over is None:
        return result
    classes = f" and {n_outputs:,} classes" if n_outputs > 1 else ""
    head = (f"{owner} with {t_name}={_shown(t)} on {s} histogram axes, {depth_name}="
            f"{_shown(depth)}{classes} would need {describe_excess(*over)}")
    fits_depth = next((p for p in range(min(depth, _LOG2_CAP) - 1, -1, -1) if fits(t, p)),
                      None)
    if fits_depth is not None and n_tree_axes:
        advice = f"use {depth_name} <= {fits_depth}"
    elif (fits_t := _largest_fitting(lambda v: fits(v, depth), t)) >= 2:
        advice = f"use {t_name} <= {fits_t}"
    elif (fits_t := _largest_fitting(lambda v: fits(v, 0), t)) >= 2:
        advice = f"use {t_name} <= {fits_t} with {depth_name}=0"
    else:
        fits_s = next((k for k in range(s - 1, -1, -1)
                       if _exceeded(partition_plan(n_tree, n_report, max(t, 2), k, 0,
                                                   n_tree_axes, rule, min_samples_leaf,
                                                   n_outputs, mechanism, n_patterns, growths),
                                    config, n_report) is None), None)
        advice = (f"use at most s = {fits_s} histogram axes (the s most protected features)"
                  if fits_s else None)
    if n_outputs > 1:  # the classifier: one label column per class
        fits_m = _largest_fitting(lambda m: _exceeded(partition_plan(
            n_tree, n_report, t, s, depth, n_tree_axes, rule, min_samples_leaf, m, mechanism,
            n_patterns, growths), config, n_report) is None, n_outputs)
        if fits_m >= 2:
            fewer = f"at most {fits_m:,} classes (a shorter classes list)"
            advice = f"{advice} or {fewer}" if advice else f"use {fewer}"
    advice = advice or "use fewer users"
    raise ValueError(f"{head}; {advice}, or raise the budget with "
                     f"ldpviz.set_config({over[0]}=...).")


def _largest_fitting(fits, high):
    """Largest integer v in [1, high) with fits(v) (fits is monotone), or 0 if none."""
    lo, hi = 0, int(high)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo if lo >= 1 and fits(lo) else 0


def _limit(key, n_report, config):
    return report_entries_allowed(n_report, config) if key == "max_report_entries" else config[key]


def within_budget(sizes, n_report=0):
    """Whether every size ({budget key: estimated size}) fits the budget (see check_budget)."""
    config = get_config()
    return all(size <= _limit(key, n_report, config) for key, size in sizes.items())


def check_sizes(owner, values, sizes, order, low=None, n_report=None):
    """Refuse ``values`` ({parameter: value}) whose ``sizes(**values)`` ({budget key: size})
    exceed the budget, before anything is built. The message names the first parameter of
    ``order`` whose reduction alone would fit (to at least ``low[parameter]``, default 1) and
    its largest value that does; ``n_report`` is the parameter counting the users the report
    entries are spread over (None: none)."""
    def spread(given):
        return given[n_report] if n_report else 0

    def fits(**change):
        given = {**values, **change}
        return within_budget(sizes(**given), spread(given))

    if fits():
        return
    low = low or {}
    best = {k: _largest_fitting(lambda v, k=k: fits(**{k: v}), values[k]) for k in order}
    name = next((k for k in order if best[k] >= low.get(k, 1)), order[0])
    check_budget(owner, name, values[name], sizes(**values), fits=best[name],
                 n_report=spread(values))


def check_budget(owner, param, value, sizes, fits=None, n_report=0, advice=None):
    """Refuse when any of ``sizes`` ({budget key: estimated size}) exceeds the budget.

    ``fits`` (optional) is the largest value of ``param`` that fits, named in the message;
    ``n_report`` is the number of users the report entries are spread over; ``advice``
    (optional) replaces the message's "use {param} <= {fits}".
    """
    config = get_config()
    for key, size in sizes.items():
        limit = _limit(key, n_report, config)
        if size > limit:
            if advice is None:
                advice = f"use {param} <= {fits}" if fits else f"lower {param}"
            raise ValueError(f"{owner} with {param}={_shown(value)} would need "
                             f"{describe_excess(key, size, limit)}; {advice}, or raise the budget "
                             f"with ldpviz.set_config({key}=...).")


def check_rows(owner, n, bytes_per_row, param="n", d=None, bytes_per_entry=0):
    """Refuse to build ``n`` rows of about ``bytes_per_row`` bytes each (outputs and
    temporaries) beyond the ``max_bytes`` budget, before anything is allocated: a data or mask
    generator asked for a billion users would otherwise fill the machine's memory.

    An n x d output (``d`` given) takes ``bytes_per_entry`` more bytes per row and column; the
    message then also names the largest ``d`` that fits with these ``n`` rows, first when d is
    the larger of the two (a billion columns, not ten rows, is the likely mistake).
    """
    max_bytes = get_config()["max_bytes"]
    per_row = bytes_per_row + bytes_per_entry * (d or 0)
    size, fits = n * per_row, max_bytes // per_row
    shown, advice = n, None
    fits_d = (max_bytes // n - bytes_per_row) // bytes_per_entry if d and bytes_per_entry else 0
    if size > max_bytes and fits_d >= 1:
        options = [f"{param} <= {fits}"] if fits else []
        options.insert(0 if d > n else len(options), f"d <= {fits_d} (with {param}={n})")
        shown, advice = f"{n} and d={d}", "use " + " or ".join(options)
    check_budget(owner, param, shown, {"max_bytes": size}, fits=fits, advice=advice)


def check_mask_tables(owner, n, d):
    """Refuse a mask of ``d`` features whose tables of tail counts (``(d + 1)^2`` entries:
    :func:`ldpviz.theory.mask_profile`, AdHistOfTree's selection) and per-user running counts
    (``n (d + 1)``) exceed ``max_bytes``: 300 users with 20,000 features asked for 3.2 GB."""
    def nbytes(d_):
        return 8 * ((d_ + 1) ** 2 + 2 * n * (d_ + 1))

    max_bytes = get_config()["max_bytes"]
    if nbytes(d) > max_bytes:
        fits = _largest_fitting(lambda v: nbytes(v) <= max_bytes, d)
        check_budget(owner, "d", f"{d:,} features", {"max_bytes": nbytes(d)},
                     advice=f"use at most {fits:,} features (leave out those no model needs)")


def check_grid_budget(owner, n, t, d, n_outputs=1, per_user=False, classes=None):
    """Refuse a cubic grid of ``t^d`` cells (Hist, HistClassifier) beyond the budget.

    With ``per_user`` every user's noise vector over all cells is drawn (``n x t^d x (m + 1)``
    report entries); otherwise only per-cell sums are drawn. ``classes`` (the classifier's
    number of classes, ``n_outputs`` label columns) adds fewer classes to the advice.
    """
    def sizes(t, n, m=n_outputs, per_user=per_user):
        cells = _pow(t, d)
        draws = n * cells if per_user else n + cells
        return {"max_cells": cells,
                "max_bytes": 8 * cells * (4 + 3 * m) + (16 * _CHUNK_ENTRIES if per_user else 0),
                "max_report_entries": draws * (m + 1)}

    many = classes is not None and classes > 2
    owner = f"{owner} on d={d} features" + (f" and {classes:,} classes" if many else "")
    if not many or within_budget(sizes(t, n), n):
        check_sizes(owner, {"t": t, "n": n}, sizes, ("t",), n_report="n")
        return
    # the classes, not the grid, are the likely cause: say what else fits
    fits_t = _largest_fitting(lambda v: within_budget(sizes(v, n), n), t)
    fits_m = _largest_fitting(lambda m: within_budget(sizes(t, n, m), n), n_outputs)
    # K classes take K label columns, 2 classes one (signs): one column fitting is 2 classes
    fewer = fits_m if fits_m >= 3 else 2 if fits_m >= 1 and classes > 2 else 0
    options = ([f"at most {fewer:,} classes"] if fewer else []) \
        + ([f"t <= {fits_t}"] if fits_t >= 2 or (fits_t == 1 and not fewer) else [])
    if per_user and within_budget(sizes(t, n, per_user=False), n):
        options.append("noise='aggregate' (the same distribution)")
    check_budget(owner, "t", t, sizes(t, n), n_report=n,
                 advice="use " + " or ".join(options) if options else "use fewer classes")
