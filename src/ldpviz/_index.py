"""Index and count arrays numpy takes on every platform, 64-bit and wasm32 (Pyodide).

``np.intp`` is int32 on wasm32, and there ``np.bincount``, ``np.repeat`` (array counts) and
``np.take`` refuse int64 input ("Cannot cast array data from dtype('int64') to dtype('int32')
according to the rule 'safe'"). The library calls these through the functions below, which
cast to the platform's index type once, and refuses a value that does not fit rather than
let it wrap around. ``tests/test_wasm32.py`` emulates the wasm32 rules on x86-64.
"""

import numpy as np

#: numpy's index type here (read at call time, so tests can emulate wasm32's int32).
INDEX = np.intp


def index_dtype(largest):
    """``INDEX`` when every value up to ``largest`` fits in it, else int64."""
    return np.dtype(INDEX) if int(largest) <= np.iinfo(INDEX).max else np.dtype(np.int64)


def as_index(values):
    """``values`` as an ``INDEX`` array (no copy when they already are one); OverflowError,
    not a silent wrap-around, for a value beyond the platform's index range."""
    values = np.asarray(values)
    if values.dtype == INDEX:
        return values
    if values.dtype.kind not in "biu":
        raise TypeError(f"index arrays hold integers, got dtype {values.dtype}")
    info = np.iinfo(INDEX)
    if values.dtype.itemsize >= info.bits // 8 and values.size and (
            values.max() > info.max or (values.dtype.kind == "i" and values.min() < info.min)):
        raise OverflowError(f"an index of {int(values.max()):,} exceeds this platform's index "
                            f"range (np.intp is {np.dtype(INDEX).name})")
    return values.astype(INDEX)


def bincount(index, weights=None, minlength=0):
    """``np.bincount`` on any platform: ``index`` in the platform's index type."""
    return np.bincount(as_index(index), weights=weights, minlength=minlength)


def repeat(values, counts, axis=None):
    """``np.repeat`` with an array of counts, on any platform."""
    return np.repeat(values, as_index(counts) if np.ndim(counts) else int(counts), axis=axis)
