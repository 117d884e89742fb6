"""Your own data from a CSV: read as text, every column parsed explicitly, nothing guessed."""

from __future__ import annotations

import csv
import difflib
import os
import re
import shlex
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .._validation import PrivacyWarning, check_choice, check_int
from ._common import (
    CATEGORICAL,
    MISSING,
    _bunch,
    _check_range,
    _ranking,
    _rows,
    describe_text,
    encoded_columns,
    formatted_numbers,
    name_list,
    parse_column,
    shortlist,
    warn_box_from_data,
)
from ._layout import ENCODING, RowLines, check_text_file, read_layout, utf8_errors


def _read_text(path, layout, drop=()):
    """The CSV as a frame of strings (missing entries NaN), with checked column names, without
    the columns named in ``drop`` ('' names the unnamed ones)."""
    header = layout.header
    if not header:
        raise ValueError(f"{Path(path).name} has no header row (it holds no line that is not "
                         "blank); a CSV starts with a row of column names.")
    try:
        frame = pd.read_csv(path, sep=layout.sep, dtype=str, skipinitialspace=True,
                            encoding=ENCODING, skiprows=layout.skip)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, csv.Error) as exc:
        raise ValueError(f"path {str(path)!r} could not be parsed as a CSV: {exc}") from None
    unknown = [c for c in drop if c not in header]
    if unknown:
        raise ValueError(f"drop names {unknown[0]!r}, which is not a column of "
                         f"{Path(path).name}; columns are {name_list(header)}.")
    keep = [j for j, c in enumerate(header) if c not in drop]
    frame, header = frame.iloc[:, keep], [header[j] for j in keep]
    unnamed = [j + 1 for j, c in enumerate(header) if not c]
    if unnamed:
        raise ValueError(f"{Path(path).name}: column {unnamed[0]} of the header has no name; "
                         "name every column, or leave the unnamed ones out with drop=[''] "
                         "(--drop '' on the command line).")
    repeated = sorted({c for c in header if header.count(c) > 1})
    if repeated:
        raise ValueError(f"{Path(path).name} repeats the column names {repeated}; rename them.")
    frame.columns = header
    return frame


def _check_sep(sep, decimal):
    """``sep``: None (found in the file) or one character that can separate fields."""
    if sep is None:
        return None
    if not isinstance(sep, str):
        raise TypeError(f"sep must be one character such as ',' or ';', or None to find it in "
                        f"the file, got {sep!r}.")
    if len(sep) != 1 or sep in '"\r\n':
        raise ValueError(f"sep must be one character such as ',', ';' or '\\t' (not a quote "
                         f"or a line break), or None to find it in the file, got {sep!r}.")
    if sep == decimal:
        raise ValueError(f"sep and decimal are both {sep!r}: a number such as 1{sep}5 could not "
                         "be told from two fields; pass sep=';' (the usual separator with a "
                         "decimal comma).")
    return sep


def load_csv(path, target, private=None, categorical="ordinal", missing="error",
             max_categories=20, y_range=None, sep=None, categorical_columns=None, decimal=".",
             drop=None):
    """Load your own data from a CSV with a header row, for the what-if analysis.

    Every column is read as text and parsed explicitly; nothing is guessed silently:

    * a column whose entries are all numbers is numeric, min-max scaled to [0, 1];
    * a column with no number at all is categorical and encoded (levels in sorted order) if it
      has at most ``max_categories`` levels, else refused (an identifier, free text);
    * a column mixing numbers and text (a typo such as '12.5kg') is an error naming the
      column, the line and the value, unless ``categorical_columns`` lists it;
    * missing and infinite values are errors with their counts per column, or the rows holding
      them are dropped when ``missing="drop"``, and the number dropped is reported.

    The returned ``summary`` says which columns were encoded and how, what was dropped, and
    which numeric columns hold a different whole number on every row (an identifier?): they
    are kept as features, as asked, and named so that they can be left out (``drop``).

    Privacy note: the feature bounds are read off the data, as in the paper's preprocessing,
    with a PrivacyWarning naming the private columns so scaled; in a deployment the feature box
    and the label range must be public, fixed in advance.

    Parameters
    ----------
    path : str or Path
    target : str
        The label column (numeric: regression).
    private : list of str or None
        The protected columns, most sensitive first. The aligned paradigm protects exactly
        these; the personalized paradigm ranks them first. None: the first
        ``s* = ceil(log sqrt d)`` columns, in column order, are the private ones.
    categorical : {"ordinal", "onehot"}, default="ordinal"
        How categorical columns are encoded. "ordinal": one column of level codes scaled to
        [0, 1] (levels in sorted order). "onehot": one 0/1 column per level (a private
        categorical column makes all its 0/1 columns private).
    missing : {"error", "drop"}, default="error"
        Missing (empty, NA, NaN, ...) or infinite values. "error": a ValueError with the count
        per column. "drop": rows holding one are dropped; ``n_dropped`` says how many.
    max_categories : int, default=20
        A text column with more levels is refused.
    y_range : (float, float) or None
        Public range of the target. None reads it off the data, with a PrivacyWarning.
    sep : str or None
        Column separator; None picks the one of comma, semicolon, tab and bar that splits the
        first lines evenly (a file none splits has one column).
    categorical_columns : list of str or None
        Columns to encode as categories even though they hold numbers (codes, zip codes) or a
        mix of numbers and text.
    decimal : str, default="."
        Decimal mark of the numbers (',' for "1,5").
    drop : list of str or None
        Columns left out before anything is read from them (an identifier, a date, a pandas
        index column); names as in the header, '' for the columns with no name. An unknown
        name or the target is refused.

    Returns
    -------
    sklearn.utils.Bunch
        As :func:`load_uci`: ``X``, ``y``, ``feature_names``, ``target_name``, ``y_range``,
        ``y_bound``, ``ranking``, ``s_star`` (the number of private columns), ``feature_min``,
        ``feature_max``, plus ``n_dropped``, ``encoded`` ({column: (encoding, levels)}),
        ``box_from_data`` (the feature columns min-max scaled with bounds read off the data),
        ``summary`` (one paragraph saying what was encoded and dropped), ``identifier_like``
        (the columns named as possible identifiers), ``columns_left_out`` (``drop``) and
        ``path``.
    """
    check_choice(categorical, "categorical", CATEGORICAL)
    check_choice(missing, "missing", MISSING)
    max_categories = check_int(max_categories, "max_categories", 1)
    check_choice(decimal, "decimal", (".", ","))
    sep = _check_sep(sep, decimal)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be the path of a CSV file (a str or pathlib.Path), got "
                        f"{path!r}.")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"path {str(path)!r} does not exist or is not a file.")
    if not isinstance(target, str):
        raise TypeError(f"target must be the name of one column (a string), got {target!r}.")
    drop = _check_drop(drop, target)
    check_text_file(path)
    with utf8_errors(path):
        layout = read_layout(path, sep)
        frame = _read_text(path, layout, drop)
    lines = RowLines(path, layout)
    if target not in frame.columns:
        raise ValueError(f"target {target!r} is not a column of {path.name}; "
                         f"{_columns_are(frame.columns, target)}{_sep_hint(frame, sep)}.")
    if frame.shape[1] < 2:
        raise ValueError(f"path {str(path)!r} needs at least one feature besides the target.")
    if len(frame) < 2:
        raise ValueError(f"{path.name} has {len(frame)} data row{'' if len(frame) == 1 else 's'} "
                         "below its header; at least 2 are needed.")
    asked = _asked_categorical(categorical_columns, frame.columns, target)
    numbers, bad_rows, holes, missing_counts = {}, np.zeros(len(frame), dtype=bool), {}, {}
    for column in frame.columns:
        values = frame[column]
        parsed, empty, text = parse_column(values, decimal)
        no_number = np.isnan(parsed).all()
        if column == target and text.any():
            if no_number and (kind := _dates(values[text].str.strip().unique())):
                raise ValueError(f"{_not_numbers(f'target {target!r}', kind, values[text].iloc[0])}"
                                 "; ldpviz does regression on numbers.")
            if no_number:
                raise ValueError(f"target {target!r} is not numeric (e.g. "
                                 f"{values[text].iloc[0]!r}); ldpviz does regression.")
            raise ValueError(f"{describe_text(column, values, text, decimal, path.name, lines)}. "
                             "Fix the target column.")
        # a decimal comma or a formatted number is text: a column without text has none
        if text.any() and decimal == "." and column not in asked and \
                values.str.strip().str.fullmatch(r"[+-]?\d+,\d+").any():
            raise ValueError(f"{describe_text(column, values, text, decimal, path.name, lines)}.")
        formatted = text & formatted_numbers(values, decimal) if text.any() else text
        if column not in asked and formatted.any():
            raise ValueError(
                f"column {column!r} holds numbers written with thousands separators or percent "
                f"signs ({_rows(formatted, lines=lines)} of {path.name}, e.g. "
                f"{values[formatted].iloc[0].strip()!r}): they are not read as numbers, and as "
                "categories they would be ordered as text; clean the column first (remove the "
                "separators and '%' signs).")
        if column in asked or (text.any() and no_number):
            numbers[column] = None  # plainly text (or asked for): categorical, encoded below
            infinite = np.zeros(len(frame), dtype=bool)
        elif text.any():
            raise ValueError(f"{describe_text(column, values, text, decimal, path.name, lines)}. "
                             f"Fix the file, or pass categorical_columns=[{column!r}] "
                             f"(--categorical-columns {shlex.quote(column)} on the command "
                             "line) to encode the column as categories.")
        else:
            numbers[column] = parsed
            infinite = np.isinf(parsed)
        for kind, mask in (("missing", empty), ("infinite", infinite)):
            if mask.any():
                holes.setdefault(kind, []).append(f"{column} ({int(mask.sum())})")
                bad_rows |= mask
        missing_counts[column] = int((empty | infinite).sum())
    n_dropped = _check_holes(path.name, target, holes, missing_counts, bad_rows, missing,
                             lines)
    keep = ~bad_rows
    y = numbers[target][keep]
    if len(y) and np.all(y == y[0]):  # every ratio to the tree (error 0) would be inf or NaN
        kept = " kept" if n_dropped else ""
        raise ValueError(f"{path.name}: target {target!r} is constant ({y[0]:g} in all "
                         f"{len(y):,} rows{kept}): there is nothing to predict, and no error "
                         "can be compared with the non-private tree's (0); choose a target "
                         "column whose values vary.")
    features, encoded = _features(frame[keep].reset_index(drop=True), numbers, keep, target,
                                  categorical, max_categories)
    bunch = _finish(path, features, y, target, encoded, private, y_range, categorical,
                    n_dropped, holes)
    bunch.update(columns_left_out=drop)
    return bunch


def _check_holes(name, target, holes, counts, bad_rows, missing, lines):
    """Refuse missing and infinite values (``missing="error"``), or count the rows dropped
    ("drop"); either way refuse a table where no 2 complete rows would be left, naming the
    columns to leave out (dropping rows is then no way out)."""
    n = len(bad_rows)
    empty = [c for c, k in counts.items() if k == n]
    if target in empty:
        raise ValueError(f"target {target!r} of {name} has no value in any of its {n:,} rows.")
    if empty:
        raise ValueError(f"{name}: {_columns(empty)} {'has' if len(empty) == 1 else 'have'} no "
                         f"value in any of the {n:,} rows; {_leave_out(empty)}.")
    left = n - int(bad_rows.sum())
    worst = sorted((c for c in counts if counts[c]), key=lambda c: -counts[c])[:3]
    dead_end = (f"dropping the {int(bad_rows.sum()):,} rows holding them would leave {left} of "
                f"{n:,}, fewer than the 2 needed: the columns missing most are "
                + ", ".join(f"{c!r} ({counts[c]:,})" for c in worst)
                + f"; {_leave_out(worst)}, or impute them")
    if holes:
        listed = "; ".join(f"{kind} values in: {', '.join(cols)}" for kind, cols in
                           holes.items())
        if missing == "error":
            advice = (dead_end if left < 2 else "Fix or impute them, or pass missing='drop' "
                      "(--drop-missing on the command line) to drop those rows")
            raise ValueError(f"{name} has {listed} (first at {_rows(bad_rows, 1, lines)}). "
                             f"{advice[0].upper()}{advice[1:]}.")
        if left < 2:
            raise ValueError(f"{name} has {listed}: {dead_end}.")
    return int(bad_rows.sum())


def _columns(names):
    """"column 'a'" or "columns 'a', 'b' and 3 more"."""
    return f"column{'s' if len(names) > 1 else ''} {shortlist(names, quote=True)}"


def _sep_hint(frame, sep):
    """When a separator given by hand left the header one column that holds another one."""
    if sep is None or frame.shape[1] != 1:
        return ""
    found = [c for c in (",", ";", "\t", "|") if c != sep and c in str(frame.columns[0])]
    return (f" (read with sep={sep!r}, the header is one column; it holds {found[0]!r}: pass "
            f"sep={found[0]!r}, or sep=None to find it)") if found else ""


def _leave_out(names):
    """How to leave columns out, in Python and on the command line."""
    return (f"leave {'it' if len(names) == 1 else 'them'} out with drop={list(names)!r} (--drop "
            f"{' '.join(shlex.quote(c) for c in names)} on the command line)")


def _columns_are(columns, wanted):
    """"columns are 'a', 'b' ... and 4 more", with the closest name to ``wanted`` if any."""
    close = difflib.get_close_matches(wanted, [str(c) for c in columns], n=1)
    return (f"columns are {name_list(columns)}"
            + (f" (did you mean {close[0]!r}?)" if close else ""))


def column_list(value, name):
    """``value`` (None, a name or a list of names) as a list of strings, or None; anything else
    is refused naming ``name`` (a number is no column name here: numbers would be read as
    text)."""
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, (list, tuple, np.ndarray, pd.Index)):
        raise TypeError(f"{name} must be a column name or a list of column names, got "
                        f"{value!r}.")
    bad = [(i, v) for i, v in enumerate(value) if not isinstance(v, str)]
    if bad:
        raise TypeError(f"{name} must list column names (strings), but entry {bad[0][0]} is "
                        f"{bad[0][1]!r}.")
    return [str(v) for v in value]


def _check_drop(drop, target):
    """``drop`` as a list of distinct column names, none of them the target."""
    drop = column_list(drop, "drop") or []
    twice = next((c for c in drop if drop.count(c) > 1), None)
    if twice is not None:
        raise ValueError(f"drop lists {twice!r} twice; give each column once.")
    if target in drop:
        raise ValueError(f"drop lists the target {target!r}; the label cannot be left out.")
    return drop


def _asked_categorical(columns, present, target):
    columns = column_list(columns, "categorical_columns")
    if columns is None:
        return set()
    unknown = [c for c in columns if c not in present]
    if unknown or target in columns:
        raise ValueError(f"categorical_columns must name feature columns of the file, got "
                         f"{unknown or [target]}; columns are {list(present)}.")
    return set(columns)


def _features(text, numbers, keep, target, categorical, max_categories):
    """The feature frame (numbers, categorical columns encoded) and {column: encoding}, built
    in one piece (inserting columns one by one took 20 s for 200 one-hot columns)."""
    columns, encoded, origin = {}, {}, {}
    for column in text.columns.drop(target):
        if numbers[column] is not None:
            new = {column: numbers[column][keep]}
        else:
            values = text[column].astype(str).str.strip()
            levels = sorted(values.unique())
            if len(levels) > max_categories and (kind := _dates(levels)):
                raise ValueError(f"{_not_numbers(f'column {column!r}', kind, levels[0])}, or "
                                 f"{_leave_out([column])}.")
            if len(levels) > max_categories:
                raise ValueError(
                    f"column {column!r} is not numeric and has {len(levels)} distinct values "
                    f"(more than max_categories={max_categories}), so it cannot be encoded; "
                    f"{_leave_out([column])} or raise max_categories (--max-categories on the "
                    "command line).")
            new = encoded_columns(column, values, levels, categorical)
            encoded[column] = (categorical, levels)
        for name in new:
            if name in origin:
                raise ValueError(f"{_origin(name, origin[name])} and {_origin(name, column)} "
                                 f"would both be named {name!r}; rename one of them, or use "
                                 "categorical='ordinal' (--categorical ordinal).")
            origin[name] = column
        columns.update(new)
    return pd.DataFrame(columns), encoded


#: Dates and times as text: 2020-01-31, 2020/01/31, 31.01.2020, 1/31/20, 2020-01-31T08:30...
_DATE = re.compile(r"(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})"
                   r"([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?Z?|\d{1,2}:\d{2}(:\d{2})?")
#: Durations as pandas writes them ('1 days 02:00:00') or ISO 8601 ('PT30M', 'P1DT2H').
_DURATION = re.compile(r"-?\d+ days?( [+-]?\d{1,2}:\d{2}:\d{2}(\.\d+)?)?"
                       r"|P(?=\d|T\d)(\d+[YMWD])*(T(\d+(\.\d+)?[HMS])+)?")


def _dates(levels):
    """'dates or times' or 'durations' when most values of a text column are written as
    such, else ''."""
    for kind, pattern in (("dates or times", _DATE), ("durations", _DURATION)):
        if sum(bool(pattern.fullmatch(v)) for v in levels) > 0.9 * len(levels):
            return kind
    return ""


def _not_numbers(what, kind, example):
    """Why dates, times or durations are not read as numbers, and what to write instead."""
    unit = "days since a date you fix" if kind == "dates or times" else "hours"
    return (f"{what} holds {kind} (e.g. {example!r}), which are not read as numbers (a count "
            f"of seconds would be a guess at the unit): write them as numbers in a unit you "
            f"choose (e.g. {unit})")


def _origin(name, column):
    return f"column {column!r}" if name == column else f"the one-hot encoding of {column!r}"


def _finish(path, features, y, target, encoded, private, y_range, categorical, n_dropped,
            holes):
    names = list(features.columns)
    expand = {c: [f"{c}_{level}" for level in levels] for c, (_, levels) in encoded.items()
              if categorical == "onehot"}
    if private is not None:
        private = column_list(private, "private")
        if target in private:
            raise ValueError(f"private lists the target {target!r}; the label is always "
                             "private.")
        private = [name for p in private for name in expand.get(p, [p])]
    ranking = _ranking(private, names, "private")
    if y_range is None:
        warnings.warn("y_range was not given, so the label range was read off the data; a "
                      "deployment must fix it in advance (it is not covered by the privacy "
                      "guarantee).", PrivacyWarning, stacklevel=3)
        y_range = (float(y.min()), float(y.max()))
    y_range = _check_range(y_range)
    bunch = _bunch(features.to_numpy(dtype=float), y, names, target, y_range, ranking,
                   len(private) if private is not None else None)
    # Encoded categorical columns have a box fixed by their levels, not by extreme values.
    fixed = {name for column, (how, levels) in encoded.items()
             for name in (expand.get(column, [column]))}
    from_data = [name for name in names if name not in fixed]
    leaking = [names[j] for j in bunch.ranking[:bunch.s_star] if names[j] in from_data]
    warn_box_from_data(leaking, "the what-if takes public bounds: x_bounds, --x-range or "
                       "--feature-bounds", stacklevel=3)
    ids = _identifier_like(features, fixed)
    bunch.update(n_dropped=n_dropped, encoded=encoded, path=str(path), box_from_data=from_data,
                 identifier_like=ids, summary=_summary(path, bunch, encoded, n_dropped, holes,
                                                       ids))
    return bunch


#: Rows from which a whole number different on every row reads as an identifier.
IDENTIFIER_ROWS = 20


def _identifier_like(features, encoded):
    """Numeric columns holding a different whole number on every row (an ID, a row number):
    kept as features, as asked, but named in the summary (they carry no signal, and a row
    number sorted like the label would look like one)."""
    if len(features) < IDENTIFIER_ROWS:
        return []
    out = []
    for name in features.columns:
        values = features[name].to_numpy(dtype=float)
        if name not in encoded and np.all(values == np.round(values)) \
                and np.ptp(values) + 1 >= len(values) \
                and len(np.unique(values)) == len(values):  # the range first: no sort
            out.append(name)
    return out


def _summary(path, bunch, encoded, n_dropped, holes, identifiers=()):
    d = len(bunch.feature_names)
    text = (f"{path.name}: {len(bunch.y)} rows, {d} feature{'' if d == 1 else 's'}, target "
            f"{bunch.target_name}.")
    for column, (how, levels) in encoded.items():
        if how == "ordinal":
            codes = ", ".join(f"{lv}={i / max(len(levels) - 1, 1):g}"
                              for i, lv in enumerate(levels))
            text += f" Column {column!r} encoded as categories, ordinal: {codes}."
        else:
            text += (f" Column {column!r} encoded as categories, one-hot: "
                     f"{', '.join(f'{column}_{lv}' for lv in levels)}.")
    if n_dropped:
        listed = "; ".join(f"{kind} values in {', '.join(cols)}" for kind, cols in holes.items())
        text += f" Dropped {n_dropped} rows holding {listed}."
    if identifiers:
        listed = ", ".join(repr(c) for c in identifiers)
        text += (f" Column(s) {listed} hold a different whole number on every row (an "
                 "identifier?); they are used as features: leave them out with drop=[...] "
                 "(--drop on the command line) if they carry no information.")
    return text
