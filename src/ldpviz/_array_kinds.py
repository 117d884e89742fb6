"""Data numpy would turn into numbers although they are not numbers: dates, durations, masked
entries, sparse or record arrays, containers that are not arrays.

``np.asarray(x).astype(float)`` reads a date as seconds since 1970, a duration as a count of its
unit, a masked entry as whatever lies under the mask, a dict as one object. Each is refused here
with a TypeError (a masked entry: a ValueError, it is a missing value) naming the argument and,
for a DataFrame, the column, and saying what to pass instead; nothing is converted behind the
user's back. :mod:`ldpviz._validation` calls :func:`refuse_non_numbers` before it reads an
array, and :func:`date_entry_error` for the first entry of an object array that is no number.
"""

from __future__ import annotations

import datetime

import numpy as np

#: What each argument must hold, by role: the advice of the messages.
ROLES = {
    "numbers": "convert them to numbers in a unit you choose",
    "mask": "the mask holds 0/1 or True/False (1 = protected)",
    "labels": "class labels must be numbers or strings: convert them first (e.g. "
              "y.astype(str) makes each value a class)",
}
_DATE_ADVICE = ("e.g. days since a date you fix: (d - np.datetime64('2000-01-01')) / "
                "np.timedelta64(1, 'D')")
_DURATION_ADVICE = "e.g. hours: d / np.timedelta64(1, 'h')"


def _what(dtype):
    """('dates' | 'durations' | 'periods' | 'intervals' | 'sparse' | 'records' | None) for a
    numpy or pandas dtype (pandas is not imported: its dtypes are told by their class name)."""
    kind = getattr(dtype, "kind", None)
    cls = type(dtype).__name__
    if cls == "CategoricalDtype":
        return _what(dtype.categories.dtype)
    if cls == "SparseDtype":
        return "sparse"
    if cls in ("PeriodDtype", "IntervalDtype"):
        return cls[:-5].lower() + "s"
    if kind == "M":
        return "dates"
    if kind == "m":
        return "durations"
    if getattr(dtype, "names", None) or kind == "V":
        return "records"
    return None


def _message(what, where, detail, role):
    """The message for ``where`` ("X", "X column 'a'") holding ``what``; ``detail`` (the dtype,
    or the first such entry) goes in parentheses."""
    if what == "sparse":
        return (f"{where} holds pandas sparse values ({detail}); sparse data is not supported: "
                "pass a dense copy (.sparse.to_dense() if it fits in memory).")
    if what == "records":
        return (f"{where} is a structured (record) array ({detail}); pass a plain array of "
                "numbers (numpy.lib.recfunctions.structured_to_unstructured, or a DataFrame).")
    if role != "numbers":
        return f"{where} holds {what} ({detail}); {ROLES[role]}."
    reads = {"dates": "counts of their unit since 1970-01-01",
             "durations": "counts of their unit"}.get(what, "their internal codes")
    example = {"dates": _DATE_ADVICE, "durations": _DURATION_ADVICE}.get(
        what, "e.g. the start of each period as days since a date you fix")
    return (f"{where} holds {what} ({detail}): numpy would read them as {reads} without a "
            f"word, so ldpviz refuses them; {ROLES[role]}, {example}.")


def refuse_non_numbers(data, name, role="numbers"):
    """Refuse ``data`` (an array, a pandas object, a list...) holding dates, durations, periods,
    intervals, pandas sparse values or records, masked entries, or a container that is no
    array (a dict, a set, a generator). ``role`` ("numbers", "mask" or "labels") words the
    advice."""
    if isinstance(data, (dict, set, frozenset)) or _is_iterator(data):
        raise TypeError(f"{name} must be an array (a numpy array, a DataFrame or a list of "
                        f"rows), got a {type(data).__name__}.")
    dtypes = getattr(data, "dtypes", None)  # a DataFrame: one dtype per column
    if dtypes is not None and hasattr(dtypes, "items"):
        for column, dtype in dtypes.items():
            what = _what(dtype)
            if what:
                raise TypeError(_message(what, f"{name} column {str(column)!r}", dtype, role))
    else:
        dtype = getattr(data, "dtype", None)
        what = None if dtype is None else _what(dtype)
        if what:
            raise TypeError(_message(what, name, dtype, role))
    mask = np.ma.getmask(data) if isinstance(data, np.ma.MaskedArray) else np.ma.nomask
    if mask is not np.ma.nomask and mask.any():
        first = tuple(int(i) for i in np.argwhere(mask)[0])
        raise ValueError(f"{name} is a masked array with {int(mask.sum())} masked entries (the "
                         f"first at {first[0] if len(first) == 1 else first}); ldpviz does not "
                         "read what lies under the mask: fill them (.filled(value)) or drop "
                         "those rows explicitly first.")


def _is_iterator(data):
    return hasattr(data, "__next__") and not hasattr(data, "__len__")


_DATE_TYPES = (datetime.date, datetime.time, np.datetime64)  # pandas' Timestamp is a datetime
_DURATION_TYPES = (datetime.timedelta, np.timedelta64)  # and its Timedelta a timedelta


def date_entry_error(value, where, name, role="numbers"):
    """The TypeError for an entry of an object array that is a date or a duration (else None);
    ``where`` is its position as words (' at index 3')."""
    what = ("dates" if isinstance(value, _DATE_TYPES) else
            "durations" if isinstance(value, _DURATION_TYPES) else
            "periods" if type(value).__name__ == "Period" else None)
    if what is None:
        return None
    return TypeError(_message(what, name, f"the entry{where} is {value!r}", role))
