"""Your table for the what-if analysis, with every public choice explicit.

:func:`load_table` reads a CSV with :func:`ldpviz.datasets.load_csv` (which refuses what it
cannot read unambiguously) and then makes the two public choices visible:

* **The label range** is the caller's (``y_range``); None is passed on, and
  :func:`ldpviz.reproduce.whatif.whatif` warns that it will be read off the labels.
* **The feature box.** Every feature is scaled to [0, 1]. A column with public bounds
  (``x_bounds``) is scaled with them and clipped to them (the share clipped is reported); any
  other column is min-max scaled with bounds read off the data, as in the paper's Appendix C.2,
  and ``choices`` lists those columns. For a public column this is harmless; for a protected
  one it leaks its extremes, so :func:`ldpviz.reproduce.whatif.whatif` (given these
  ``choices`` as ``provenance``) and :func:`check_box` warn when a protected column has no
  public bounds.
"""

from __future__ import annotations

import csv
import difflib
import warnings
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from .._validation import PrivacyWarning, check_bool, shown
from ..datasets import load_csv
from ..datasets._common import name_list, shortlist
from ..datasets._layout import ENCODING, check_text_file, read_layout, utf8_errors

__all__ = ["box_message", "check_box", "copies_notes", "csv_columns", "load_table",
           "read_bounds", "resolve_columns", "save_upload"]


def read_bounds(path):
    """Public feature bounds from a CSV with a header ``column,lo,hi``: {column: (lo, hi)}."""
    path = Path(path)
    if path.is_dir():  # any other readable path will do: a pipe such as <(...) is no file
        raise ValueError(f"feature bounds file {str(path)!r} is a folder, not a file.")
    if not path.exists():
        raise FileNotFoundError(f"feature bounds file {str(path)!r} does not exist.")
    if path.is_file():  # a pipe can be read once only
        check_text_file(path, f"feature bounds file {path.name}")
    bounds = {}
    with utf8_errors(path, f"feature bounds file {path.name}"), \
            path.open(newline="", encoding=ENCODING) as handle:
        reader = csv.reader(handle)
        header = [h.strip().lower() for h in next(reader, [])]
        if header[:3] != ["column", "lo", "hi"]:
            raise ValueError(f"feature bounds file {path.name} must start with the header "
                             f"'column,lo,hi', got {','.join(header)!r}.")
        for line, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) < 3:
                raise ValueError(f"feature bounds file {path.name}, line {line}: expected "
                                 f"column,lo,hi, got {','.join(row)!r}.")
            name = row[0].strip()
            if name in bounds:
                raise ValueError(f"feature bounds file {path.name} lists {name!r} twice.")
            bounds[name] = (row[1].strip(), row[2].strip())
    return bounds


def _check_bounds(name, pair):
    try:
        lo, hi = (float(v) for v in pair)
    except (TypeError, ValueError):
        raise ValueError(f"x_bounds[{name!r}] must be two numbers (lo, hi), got {pair!r}.") \
            from None
    if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo and np.isfinite(hi - lo)):
        raise ValueError(f"x_bounds[{name!r}] must be finite with lo < hi, got {pair!r}.")
    return lo, hi


def load_table(path, target, y_range=None, x_bounds=None, categorical=None,
               drop_missing=False, decimal=".", categorical_columns=None, max_categories=20,
               drop=None):
    """A CSV as features in [0, 1] and raw labels, with the public choices recorded.

    Parameters
    ----------
    path : str or Path
    target : str
        The label column.
    y_range : (lo, hi) or None
        Public label range, passed on to the analysis (None: it will be read off the labels,
        with a PrivacyWarning there).
    x_bounds : dict or None
        Public bounds per column name, ``{"age": (18, 100)}``; see :func:`read_bounds`.
    categorical : str or None
        Passed to :func:`ldpviz.datasets.load_csv` when given (how to encode non-numeric
        columns); None keeps its default.
    drop_missing : bool, default=False
        Drop rows with missing values (their number is reported) instead of refusing them.
    decimal, categorical_columns, max_categories, drop
        Passed to :func:`ldpviz.datasets.load_csv` (the decimal mark, columns of numbers to
        encode as categories, the most levels of a text column, columns to leave out before
        anything is read from them; recorded in ``choices["columns_left_out"]``).

    Returns
    -------
    sklearn.utils.Bunch
        ``X`` (n, d) in [0, 1], ``y``, ``feature_names``, ``target_name``, ``y_range``
        (as given), ``choices`` (the feature box, clipped shares, rows dropped) and
        ``data_bounds`` (the columns whose bounds were read off the data).
    """
    options = {"missing": "drop" if check_bool(drop_missing, "drop_missing") else "error",
               "decimal": decimal, "categorical_columns": categorical_columns,
               "max_categories": max_categories, "drop": drop}
    if categorical is not None:
        options["categorical"] = categorical
    if y_range is not None:
        options["y_range"] = y_range
    with warnings.catch_warnings():
        # The label range is whatif's to warn about (it records where it came from).
        # So are the feature bounds: whatif (given choices as provenance) names the protected
        # columns left without public bounds once x_bounds are applied.
        warnings.filterwarnings("ignore", message=".*y_range.*", category=PrivacyWarning)
        warnings.filterwarnings("ignore", message=".*feature box.*", category=PrivacyWarning)
        with np.errstate(all="ignore"):  # what the scaling made of inf is checked below
            bunch = load_csv(path, target, **options)
    names = [str(c) for c in bunch.feature_names]
    X = np.asarray(bunch.X, dtype=float)
    low = np.asarray(bunch.feature_min, dtype=float)
    high = np.asarray(bunch.feature_max, dtype=float)
    with np.errstate(over="ignore"):  # an overflowing span is reported by name below
        span = high - low
    infinite = [names[j] for j in range(len(names))
                if not (np.isfinite(low[j]) and np.isfinite(high[j]))]
    if infinite:
        raise ValueError(f"columns {infinite[:10]} hold infinite values; replace or drop them.")
    bad = [names[j] for j in range(len(names)) if not np.isfinite(span[j])
           or not np.all(np.isfinite(X[:, j]))]
    if bad:
        raise ValueError(f"columns {bad[:10]} hold values too large to scale to [0, 1] in "
                         "floating point (their range overflows); rescale them.")
    x_bounds = dict(x_bounds or {})
    unknown = [k for k in x_bounds if k not in names]
    if unknown:
        raise ValueError(f"x_bounds names {unknown[:10]}, which are not feature columns; "
                         f"columns are {names[:20]}.")
    clipped = {}
    for name, pair in x_bounds.items():
        lo, hi = _check_bounds(name, pair)
        j = names.index(name)
        raw = low[j] + X[:, j] * (span[j] if span[j] > 0 else 1.0)
        clipped[name] = float(np.mean((raw < lo) | (raw > hi)))
        X[:, j] = np.clip((raw - lo) / (hi - lo), 0.0, 1.0)
        x_bounds[name] = (lo, hi)
    for name, share in clipped.items():
        if share > 0.01:
            warnings.warn(f"the public bounds of column {name!r} clip {share:.1%} of its "
                          "values (more than 1%).", UserWarning, stacklevel=2)
    from_data = [n for n in bunch.box_from_data if n not in x_bounds]
    encoded = len(names) - len(bunch.box_from_data)  # boxes fixed by their categories
    box = (f"{len(x_bounds)} column(s) scaled with public bounds, {len(from_data)} min-max "
           "scaled with bounds read off the data (Appendix C.2)"
           + (f", {encoded} column(s) encoded from categories" if encoded else ""))
    choices = {"csv": str(path), "target": target,
               "columns_left_out": list(bunch.columns_left_out), "feature_box": box,
               "public_feature_bounds": {k: list(v) for k, v in x_bounds.items()},
               "feature_bounds_read_off_data": {
                   n: [float(low[names.index(n)]), float(high[names.index(n)])]
                   for n in from_data},
               "feature_values_clipped": clipped,
               "rows_dropped": int(getattr(bunch, "n_dropped", 0) or 0),
               "identifier_like": list(bunch.identifier_like),
               "loader_summary": str(getattr(bunch, "summary", "") or "")
               if encoded or getattr(bunch, "n_dropped", 0) or bunch.identifier_like else ""}
    return Bunch(X=X, y=np.asarray(bunch.y, dtype=float), feature_names=names,
                 target_name=target, y_range=None if y_range is None else tuple(y_range),
                 choices=choices, data_bounds=from_data)


def check_box(table, protected):
    """Warn (PrivacyWarning, :func:`box_message`) when protected columns were scaled with bounds
    read off the data; return those columns."""
    message = box_message(table.data_bounds, protected)
    if message:
        warnings.warn(message, PrivacyWarning, stacklevel=2)
    return [c for c in protected if c in table.data_bounds]


def box_message(read_off, protected):
    """The warning for the protected columns among ``read_off`` (the columns whose bounds were
    read off the data, e.g. ``load_table(...).choices["feature_bounds_read_off_data"]``), or
    None when there are none."""
    leaking = [c for c in protected if c in read_off]
    if not leaking:
        return None
    return (f"the feature box of protected column(s) {shortlist(leaking)} was read off the data "
            "(min-max): it leaks their extremes; pass public bounds (--x-range or "
            "--feature-bounds, or x_bounds).")


def resolve_columns(requested, names, argname, target=None):
    """Column indices for names or indices; a one-hot group name ("smoker") selects all of its
    0/1 columns ("smoker_no", "smoker_yes"). ``target`` (the label's name) is refused as such:
    the label is always private."""
    if requested is None:
        return None
    if isinstance(requested, (str, int, np.integer)):
        requested = [requested]
    if isinstance(requested, (dict, set, bytes)) or not hasattr(requested, "__iter__"):
        raise TypeError(f"{argname} must be a list of column names or indices, got "
                        f"{shown(requested)}.")
    out = []
    for item in requested:
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            if not 0 <= item < len(names):
                raise ValueError(f"{argname} has column index {item}, outside 0..{len(names) - 1}.")
            found = [int(item)]
        elif isinstance(item, str) and item in names:
            found = [names.index(item)]
        elif isinstance(item, str) and any(str(n).startswith(item + "_") for n in names):
            found = [j for j, n in enumerate(names) if str(n).startswith(item + "_")]
        elif target is not None and item == target:
            raise ValueError(f"{argname} names {item!r}, the target: the label is always "
                             "private (every method releases it with noise), so name feature "
                             f"columns only; columns are {name_list(names)}.")
        else:
            close = difflib.get_close_matches(str(item), [str(n) for n in names], n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"{argname} names {item!r}, which is not a column{hint}; columns "
                             f"are {name_list(names)}.")
        for j in found:
            if j in out:
                raise ValueError(f"{argname} lists column {names[j]!r} twice.")
            out.append(j)
    return out


def copies_notes(X, names, private):
    """Notes on protected columns that protect nothing: constant, or a copy of a public one."""
    public = {}
    for j in range(X.shape[1]):
        if j not in private:
            public.setdefault(np.ascontiguousarray(X[:, j]).tobytes(), names[j])
    notes = []
    for j in private:
        column = X[:, j]
        twin = public.get(np.ascontiguousarray(column).tobytes())
        if np.ptp(column) == 0:
            notes.append(f"protected column {names[j]!r} is constant: protecting it changes "
                         "nothing.")
        elif twin is not None:
            notes.append(f"protected column {names[j]!r} is a copy of the public column "
                         f"{twin!r} (after scaling to [0, 1]): protecting it protects nothing "
                         "unless that column is protected too.")
    return notes


def save_upload(files, folder):
    """Write the first file of an ipywidgets ``FileUpload`` value into ``folder``; its path.

    ``files`` is the widget's ``value``: a sequence of dicts with "name" and "content" (bytes
    or a memoryview). Only the base name is kept, so an upload cannot write elsewhere.
    """
    files = list(files or [])
    if not files:
        raise ValueError("no file was uploaded.")
    item = files[0]
    name = Path(str(item.get("name") or "upload.csv")).name or "upload.csv"
    path = Path(folder) / name
    path.write_bytes(bytes(item["content"]))
    return path


def csv_columns(path):
    """The header of a CSV (column names, stripped), to choose the target from; as
    :func:`ldpviz.datasets.load_csv` reads it (a ``sep=`` line honoured, blank lines skipped)."""
    check_text_file(path)
    try:
        with utf8_errors(path):
            return read_layout(path).header
    except csv.Error as exc:
        raise ValueError(f"{Path(path).name} could not be read as a CSV: {exc}") from None
