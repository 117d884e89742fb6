"""What the real-data loaders share: category encoding, feature ranking, min-max scaling."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd

from .._validation import PrivacyWarning, is_real_number, real_or_infinite, shown
from ..masks import aligned_s_star

CATEGORICAL = ("ordinal", "onehot")
MISSING = ("error", "drop")


def encoded_columns(column, values, levels, categorical):
    """{name: values} replacing a categorical column: its codes scaled to [0, 1] (ordinal), or
    one 0/1 column ``{column}_{level}`` per level (onehot)."""
    if categorical == "ordinal":
        codes = pd.Categorical(values, categories=levels).codes
        return {column: codes / max(len(levels) - 1, 1)}
    values = np.asarray(values)
    return {f"{column}_{level}": (values == level).astype(float) for level in levels}


def _encode(features, column, values, levels, categorical):
    """Replace a categorical column of ``features`` by :func:`encoded_columns`, in place."""
    at = list(features.columns).index(column)
    new = encoded_columns(column, values, levels, categorical)
    columns = list(features.columns)
    parts = {**{c: features[c] for c in columns[:at]}, **new,
             **{c: features[c] for c in columns[at + 1:]}}
    return pd.DataFrame(parts, index=features.index)


def _ranking(ranking, names, argname):
    """Feature indices, the listed features first, the others in column order."""
    if ranking is None:
        return list(range(len(names)))
    if isinstance(ranking, (str, int, np.integer)):
        ranking = [ranking]
    if not isinstance(ranking, (list, tuple, np.ndarray, pd.Index)) or np.ndim(ranking) != 1:
        raise TypeError(f"{argname} must be a column name or index, or a list of them, got "
                        f"{shown(ranking)}.")
    first = []
    for item in ranking:
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            if not 0 <= item < len(names):
                raise ValueError(f"{argname} has index {item} outside 0..{len(names) - 1}.")
            index = int(item)
        elif item in names:
            index = names.index(item)
        else:
            raise ValueError(f"{argname} names {item!r}, which is not a feature; features are "
                             f"{names}.")
        if index in first:
            raise ValueError(f"{argname} lists {item!r} twice.")
        first.append(index)
    return first + [j for j in range(len(names)) if j not in first]


def _bunch(X, y, names, target, y_range, ranking, s_star):
    """Min-max scale X (bounds read off the data, as in Appendix C.2) and package the result."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    # Halves keep the span finite for values near the float limits; a constant column carries
    # nothing and maps to 0.
    span = hi / 2 - lo / 2
    Xs = np.clip((X / 2 - lo / 2) / np.where(span > 0, span, 1.0), 0.0, 1.0)
    y_range = (float(y_range[0]), float(y_range[1]))
    if s_star is None:
        s_star = aligned_s_star(len(names))
    from sklearn.utils import Bunch  # here: scikit-learn takes seconds to load in the browser

    return Bunch(X=Xs, y=np.asarray(y, dtype=float), feature_names=list(names),
                 target_name=target, y_range=y_range,
                 y_bound=max(abs(y_range[0]), abs(y_range[1])), ranking=list(ranking),
                 s_star=int(s_star), feature_min=lo, feature_max=hi)


def warn_box_from_data(columns, advice, stacklevel=3, how="min-max scaling to [0, 1]"):
    """Warn that the feature box of the protected ``columns`` was read off the data: their
    min and max are statistics of private values, released without noise. ``stacklevel``
    counts from the loader (2: its caller)."""
    if columns:
        warnings.warn(f"the feature box of private column(s) {shortlist(columns)} was read off "
                      f"the data ({how}): it leaks their extremes; a "
                      f"deployment must fix it in advance ({advice}).", PrivacyWarning,
                      stacklevel=stacklevel + 1)


def _check_range(y_range, name="y_range"):
    """(lo, hi) from two real numbers (text such as '10' and booleans are refused, not read)."""
    try:
        pair = list(y_range) if not isinstance(y_range, (str, bytes)) else []
    except TypeError:  # not iterable
        pair = []
    if len(pair) != 2 or not all(is_real_number(v) for v in pair):
        raise ValueError(f"{name} must be two numbers (lo, hi), got {shown(y_range)}.")
    lo, hi = (real_or_infinite(v, name) for v in pair)
    if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
        raise ValueError(f"{name} must be finite with lo < hi, got {shown(y_range)}.")
    return lo, hi


# ----------------------------------------------------------------------------------------------
# Reading columns of text: numbers, missing values, infinities, each reported where it is
# ----------------------------------------------------------------------------------------------
def _rows(mask, limit=3, lines=None):
    """'lines 3, 7 and 9' for the first rows of ``mask``: their lines in the file, ``lines[i]``
    for row i (default i + 2: the header is line 1)."""
    lines = [str(int(i) + 2 if lines is None else lines[int(i)])
             for i in np.flatnonzero(mask)[:limit]]
    more = "" if mask.sum() <= limit else f" (and {int(mask.sum()) - limit} more)"
    text = lines[0] if len(lines) == 1 else ", ".join(lines[:-1]) + " and " + lines[-1]
    return f"line{'s' if len(lines) > 1 else ''} {text}{more}"


def name_list(names, most=8):
    """"['a', 'b']" for a few names, "['a', ..., 'h'] and 4 more" for many (messages stay one
    line)."""
    names = [str(c) for c in names]
    return str(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def shortlist(names, most=8, quote=False):
    """'a, b, c' for a few names, 'a, ..., h and 4 more' for many (messages stay one line);
    with ``quote`` each name as its repr ('a', 'b')."""
    names = [repr(str(c)) if quote else str(c) for c in names]
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most
                                      else "")


def parse_column(values, decimal="."):
    """(numbers, missing, text) for a column read as strings.

    numbers : float array, NaN where the entry is missing or not a number (inf stays inf).
    missing : bool array, empty or a missing-value token (pandas' defaults: '', NA, NaN...).
    text : bool array, present but not a number (a typo such as '12.5kg', or a category).
    """
    missing = values.isna().to_numpy()
    if decimal == ".":  # most entries read as they are; only those that do not are cleaned
        numbers = _to_floats(values)  # (stripping every entry took half of a wide table's load)
        again = np.isnan(numbers) & ~missing
        if again.any():
            numbers[again] = _to_floats(values[again].astype("string").str.strip())
    else:
        numbers = _to_floats(values.astype("string").str.strip()
                             .str.replace(decimal, ".", regex=False))
    return numbers, missing, ~missing & np.isnan(numbers)


def _to_floats(values):
    """Floats of a column of strings, NaN where an entry is not a number (a writable copy)."""
    return np.array(pd.to_numeric(values, errors="coerce").to_numpy(dtype=float,
                                                                    na_value=np.nan))


#: Numbers written for people: thousands separators ("48,910.85", "1.234,5") or a percent sign.
_FORMATTED = {".": r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?|[+-]?(\d+\.?\d*|\.\d+)\s*%",
              ",": r"[+-]?\d{1,3}([. ]\d{3})+(,\d*)?|[+-]?(\d+,?\d*|,\d+)\s*%"}


def formatted_numbers(values, decimal="."):
    """Where a column of text holds numbers with thousands separators or a percent sign (read
    as categories they would be ordered as text: they must be cleaned, not guessed at)."""
    pattern = _FORMATTED.get(decimal, _FORMATTED["."])
    return values.astype("string").str.strip().str.fullmatch(pattern).fillna(False) \
        .to_numpy(dtype=bool)


def describe_text(column, values, text, decimal=".", source="the file", lines=None):
    """The error for a numeric column holding text: the column, the line and the value
    (``lines``: as :func:`_rows`)."""
    first = int(np.flatnonzero(text)[0])
    value = str(values.iloc[first]).strip()
    hint = ""
    if decimal == "." and re.fullmatch(r"[+-]?\d+,\d+", value):
        hint = " (a decimal comma? pass decimal=',', --decimal , on the command line)"
    return (f"column {column!r} should hold numbers but {_rows(text, lines=lines)} of {source} "
            f"{'hold' if text.sum() > 1 else 'holds'} text, e.g. {value!r}{hint}")
