"""The checks of :func:`ldpviz.reproduce.whatif.whatif`'s arguments, all made before the pilot
fits: each error names the argument; nothing is guessed, parsed from text or dropped."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping

import numpy as np

from .._array_kinds import refuse_non_numbers
from .._validation import (
    MIN_Y_BOUND,
    PrivacyWarning,
    check_bool,
    check_choice,
    check_epsilon,
    check_real,
    is_real_number,
    real_or_infinite,
    shown,
)
from ..datasets import LABEL_RANGE_POLICIES, PRIVATE_RANGE_SOURCE
from .catalog import MAX_MINUTES  # noqa: F401 (the default time limit, the command line's)
from .experiments import check_cache_dir
from .runtime import check_n_jobs

#: Largest epsilon accepted: beyond it the noise is negligible and AdHistOfTree's selection
#: grows without bound.
MAX_EPSILON = 1000.0
#: Most values of epsilons in one run: each runs every method's grid on every split.
MAX_EPSILONS = 50
#: Largest |label| and label-range half-width: the estimators refuse label bounds above 1e70
#: (ldpviz._validation.MAX_Y_BOUND) and noise scales 2M/eps above it; 1e50 leaves room for
#: every epsilon down to about 1e-19.
MAX_LABEL = 1e50


def check_options(test_size, n_jobs, progress, cache_dir, max_seconds, log):
    """The run's options, checked before anything is fitted."""
    test_size = check_real(test_size, "test_size", 0, 1, low_open=True, high_open=True)
    if max_seconds is not None:
        max_seconds = check_real(max_seconds, "max_seconds", 0, low_open=True)
    if log is not None and not callable(log):
        raise TypeError(f"log must be a callable taking one line of text (e.g. print) or "
                        f"None, got {log!r}.")
    return (test_size, check_n_jobs(n_jobs), check_bool(progress, "progress"),
            check_cache_dir(cache_dir), max_seconds)


def check_arguments(grids, provenance, name, target_name):
    """The what-if's arguments of the wrong type, refused by name before anything runs (a list
    of grids or a string as provenance used to end in an AttributeError)."""
    if grids is not None and not isinstance(grids, Mapping):
        raise TypeError(f"grids must be a dict {{method: {{parameter: values}}}}, e.g. "
                        f"{{'hot': {{'depth': [1, 2, 4]}}}}, or None (the rule's grids), got "
                        f"{shown(grids)}.")
    if provenance is not None:
        if not isinstance(provenance, Mapping) or not all(isinstance(k, str)
                                                           for k in provenance):
            raise TypeError(f"provenance must be a dict of the choices made before this call "
                            f"with names as keys (e.g. load_table(...).choices) or None, got "
                            f"{shown(provenance)}.")
        read_off = provenance.get("feature_bounds_read_off_data")
        if read_off is not None and (isinstance(read_off, str) or not isinstance(
                read_off, (Mapping, list, tuple, set, frozenset))):
            raise TypeError("provenance['feature_bounds_read_off_data'] must name the columns "
                            "whose bounds were read off the data (a dict {column: [lo, hi]} "
                            f"or a list of names), got {shown(read_off)}.")
    if not isinstance(name, str):
        raise TypeError(f"name must be a string naming the data (in the report and the cache "
                        f"key), got {shown(name)}.")
    if target_name is not None and not isinstance(target_name, str):
        raise TypeError(f"target_name must be a string (the label's name) or None, got "
                        f"{shown(target_name)}.")


def column_names(X, names, d):
    """The names of the d columns of X: a DataFrame's own, else ``names``, else x0, x1, ..."""
    if isinstance(names, str) or not (names is None or isinstance(names, Iterable)):
        raise ValueError(f"feature_names must be a list of names, one per column, got "
                         f"{shown(names)}.")
    given = None if names is None else [str(c) for c in names]
    columns = getattr(X, "columns", None)
    if columns is not None:
        own = [str(c) for c in columns]
        if given is not None and given != own:
            raise ValueError(f"feature_names {given[:12]} differ from the columns of the "
                             f"DataFrame X {own[:12]}: drop feature_names (X's columns name "
                             "the features) or give them in X's order.")
        given = own
    names = given if given is not None else [f"x{j}" for j in range(d)]
    if len(names) != d or len(set(names)) != d:
        raise ValueError(f"feature_names must hold {d} distinct names, one per column of X, "
                         f"got {len(names)} ({len(set(names))} distinct).")
    return names


def check_methods(methods, known):
    """The method keys to run: all of ``known`` for None, else each known key once."""
    if methods is None:
        return list(known)
    if isinstance(methods, str):
        raise ValueError(f"methods must be a list of keys, e.g. [{methods!r}], got {methods!r}.")
    if isinstance(methods, (Mapping, set, bytes)) or not isinstance(methods, Iterable):
        raise TypeError(f"methods must be a list of keys, e.g. {list(known)[:2]}, or None (all "
                        f"of them), got {shown(methods)}.")
    keys = list(methods)
    unknown = [m for m in keys if m not in known]
    if unknown:
        raise ValueError(f"methods has unknown keys {unknown}; known: {list(known)}.")
    if not keys:
        raise ValueError("methods must name at least one method (None: all of them; DT, the "
                         "reference, always runs).")
    twice = sorted({m for m in keys if keys.count(m) > 1})
    if twice:
        raise ValueError(f"methods lists {twice} more than once; give each method once.")
    return keys


def check_epsilons(epsilons):
    values = np.atleast_1d(np.asarray(epsilons, dtype=object)).tolist()
    if not values:
        raise ValueError("epsilons must contain at least one value.")
    if len(values) > MAX_EPSILONS:
        raise ValueError(f"epsilons has {len(values):,} values; at most {MAX_EPSILONS} (each "
                         "one runs every method's whole grid on every split).")
    out = set()
    for e in values:
        if real_or_infinite(e, "epsilons") == math.inf:  # np.inf or an integer beyond floats
            raise ValueError(f"epsilons must be finite and at most {MAX_EPSILON:g} (the "
                             f"non-private tree DT is the no-privacy reference), got {shown(e)}.")
        e = check_epsilon(e, "epsilons")
        if not e <= MAX_EPSILON:
            raise ValueError(f"epsilons must be finite and at most {MAX_EPSILON:g} (the "
                             f"non-private tree DT is the no-privacy reference), got {e!r}.")
        if e in out:  # not dropped silently
            raise ValueError(f"epsilons lists {e:g} twice; give each budget once.")
        out.add(e)
    return sorted(out)


#: Where a given label range comes from, per label-range policy (as in ``reproduce table1``).
_GIVEN_SOURCES = {None: "given (public)",
                  "declared": "given: the public scale the label is declared on",
                  "independent": "given: the range of independent public data on the same "
                                 "scale"}


def _numeric_labels(y):
    """y as floats: numbers only (text such as '3', booleans, dates are refused, not
    converted)."""
    refuse_non_numbers(y, "y")
    arr = np.asarray(y)
    refuse_non_numbers(arr, "y")
    if arr.dtype.kind in "iuf":
        return arr.astype(float)
    flat = arr.ravel()
    bad = next((i for i, v in enumerate(flat) if not is_real_number(v)), None) \
        if arr.dtype.kind == "O" else 0
    if bad is None:
        return arr.astype(float)
    value = flat[bad] if len(flat) else None
    value = value.item() if isinstance(value, np.generic) else value
    raise ValueError(f"y must hold numbers (ldpviz does regression), but entry {bad} is "
                     f"{value!r} (dtype {arr.dtype}); convert the labels explicitly first.")


def _pair(y_range):
    """(lo, hi) from two numbers; a string ('03') or booleans are refused."""
    try:
        ok = not isinstance(y_range, (str, bytes)) and len(y_range) == 2 \
            and all(is_real_number(v) for v in y_range)
    except TypeError:
        ok = False
    if not ok:
        raise ValueError(f"y_range must be two numbers (lo, hi), got {shown(y_range)}.")
    return real_or_infinite(y_range[0], "y_range"), real_or_infinite(y_range[1], "y_range")


def check_labels(y, n, y_range, policy=None):
    y = _numeric_labels(y)
    if y.shape != (n,):
        raise ValueError(f"y must have one value per row of X ({n}), got shape {y.shape}.")
    if not np.all(np.isfinite(y)):
        raise ValueError(f"y has {int(np.sum(~np.isfinite(y)))} NaN or infinite values.")
    if not np.max(np.abs(y), initial=0.0) < MAX_LABEL:  # errors were inf: "empty argmin"
        raise ValueError(f"y has values too large (|y| >= {MAX_LABEL:g}): the estimates' "
                         "variances would overflow; rescale the label (and y_range), e.g. to "
                         "thousands.")
    if policy is not None:
        check_choice(policy, "label_range", tuple(LABEL_RANGE_POLICIES))
    if policy == "private" and y_range is not None:
        raise ValueError("label_range='private' reads the range off the labels: it takes no "
                         f"y_range, got {y_range!r}.")
    if policy in ("declared", "independent") and y_range is None:
        raise ValueError(f"label_range={policy!r} needs y_range: the (lo, hi) of that public "
                         "source.")
    source, y_range_given = _GIVEN_SOURCES.get(policy), y_range is not None
    if y_range is None:
        warnings.warn(("label_range='private'" if policy else "y_range was not given")
                      + ", so the label range was read off the private labels: this leaks, "
                      "and a deployment must fix it in advance.", PrivacyWarning, stacklevel=3)
        y_range, source = (float(y.min()), float(y.max())), PRIVATE_RANGE_SOURCE
    lo, hi = _pair(y_range)
    if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
        raise ValueError(f"y_range must be finite with lo < hi, got {shown(y_range)}"
                         + (" (the labels are constant)" if source.startswith("read") else "")
                         + ".")
    if not (hi - lo) / 2 < MAX_LABEL:
        raise ValueError(f"y_range {y_range!r} is too wide (half-width above {MAX_LABEL:g}) for "
                         "the estimates' variances in floating point; rescale the label (for "
                         "example to thousands).")
    if (hi - lo) / 2 < MIN_Y_BOUND:
        raise ValueError(f"y_range {y_range!r} is too narrow for squared errors in floating "
                         f"point (half-width below {MIN_Y_BOUND:g}); rescale the label.")
    outside = int(np.sum((y < lo) | (y > hi)))
    if outside > len(y) / 2:
        inside = ("no label lies inside" if outside == len(y) else
                  f"{outside:,} of the {len(y):,} labels ({outside / len(y):.0%}) lie outside")
        raise ValueError(f"{inside} y_range ({lo:g}, {hi:g}): the labels span {y.min():g} to "
                         f"{y.max():g}, so every private method would estimate the clipped "
                         "label, not yours; give the label's public range, on its own scale "
                         "(more than half of the labels outside is refused).")
    clipped = outside / len(y)
    if clipped > 0.01:
        warnings.warn(f"the label range ({lo:g}, {hi:g}) clips {clipped:.1%} of the labels "
                      "(more than 1%): every private method trains on the clipped labels, the "
                      "non-private reference DT on the raw ones, and all are tested on the raw "
                      "labels, so the ratios to DT include what the clipping costs (the cost "
                      "beyond label-only privacy does not: both sides clip).", UserWarning,
                      stacklevel=3)
    return y, (lo, hi), {"y_range": [lo, hi], "y_range_source": source,
                         "label_range_policy": policy or ("given" if y_range_given else
                                                          "private"),
                         "labels_clipped": clipped,
                         "label_clipping": "the private methods train on labels clipped to "
                         "y_range, the non-private reference DT on the raw labels; every method "
                         "is tested on the raw labels"}
