"""Input checks shared by every estimator: each error names the argument it is about."""

from __future__ import annotations

import math
import numbers
import sys
import warnings
from collections import Counter
from decimal import Decimal

import numpy as np

from ._array_kinds import date_entry_error, refuse_non_numbers


class PrivacyWarning(UserWarning):
    """A public parameter was read off private data, so the release leaks beyond epsilon."""


def is_sparse(data) -> bool:
    """Whether ``data`` is a scipy sparse matrix or array. Data can only be one once
    scipy.sparse is loaded, so the checks of ``import ldpviz.mechanisms`` and friends do not
    load scipy and scikit-learn (seconds on a first visit of the browser course)."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(data)


def shown(value):
    """``value`` for a message: an integer too long to read as its number of digits, any other
    value as its repr cut to 80 characters."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) \
            and abs(int(value)) >= 10**20:
        return f"an integer of {len(str(abs(int(value))))} digits"
    text = repr(_plain(value))
    return text if len(text) <= 80 else text[:77] + "..."


def real_or_none(value, name):
    """``value`` as a float if it is a real number (a Decimal too; not a bool, not a string),
    else None. An integer beyond the largest float (about 1.8e308) is refused by name: Python
    would raise a bare OverflowError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, Decimal)):
        return None
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{name} is {shown(value)}, too large for a float (the largest is "
                         "about 1.8e308).") from None
    except ValueError:  # Decimal('sNaN')
        return math.nan


def check_epsilon(epsilon, name="epsilon"):
    """Return epsilon as a float in (0, inf]; inf means no privacy (the non-private limit)."""
    try:
        value = real_or_none(epsilon, name)
    except ValueError as exc:
        raise ValueError(f"{str(exc)[:-1]}; pass a number such as 8 (np.inf means no "
                         "privacy).") from None
    if value is None:
        raise ValueError(f"{name} must be a positive number (np.inf means no privacy), got "
                         f"{shown(epsilon)}.")
    if np.isnan(value) or value <= 0:
        raise ValueError(f"{name} must be > 0 (np.inf means no privacy), got {shown(epsilon)}.")
    return value


#: Smallest share of epsilon one release may get: below it double precision cannot simulate the
#: randomizer (``1 - e^-eps`` rounds to 0 and debiasing divides by it).
MIN_RELEASE_EPSILON = 1e-12
#: Largest Laplace label scale ``2M / eps``, and largest label bound M: the stable cell
#: estimate multiplies variances of the noisy labels (powers up to 4 of the scale), which
#: overflow double precision beyond about 1e75 (measured: 1e75 fits, 1e80 does not).
MAX_NOISE_SCALE = MAX_Y_BOUND = 1e70
#: Largest tree depth and count (min_samples_leaf) a parameter may take: far beyond any data,
#: small enough that every size computed from them stays exact (2**1100 was an OverflowError).
MAX_DEPTH, MAX_COUNT = 10**6, 2**62
#: Smallest label bound M: M^2 and the noise variances stay normal doubles (M = 1e-200 made
#: the budget rule divide 0 by 0).
MIN_Y_BOUND = 1e-100


def check_simulable(epsilon, shares=(1.0,), y_bound=None, label_share=1.0, name="epsilon",
                    split=None):
    """Refuse a budget whose noise double precision cannot simulate (it would give inf or NaN).

    ``shares`` are the fractions of epsilon the releases get (e.g. ``(rho, 1 - rho)``, then
    ``split="rho"`` names the parameter that sets them); the Laplace label release gets
    ``label_share`` and has scale ``2 y_bound / (label_share eps)``.
    """
    epsilon = check_epsilon(epsilon, name)
    if math.isinf(epsilon):
        return epsilon
    smallest = min(shares)
    if epsilon * smallest < MIN_RELEASE_EPSILON:
        need = MIN_RELEASE_EPSILON / smallest
        options = [f"{name} >= {need:.3g}"] if need <= 1e300 else []
        if split and len(shares) == 2 and epsilon >= 2 * MIN_RELEASE_EPSILON:
            low = MIN_RELEASE_EPSILON / epsilon
            options.insert(0, f"{split} in [{low:.3g}, 1 - {low:.3g}]")
        raise ValueError(
            f"{name}={epsilon!r} is too small to simulate: a release gets {smallest:.3g} of it"
            f"{f' ({split}={shares[0]!r})' if split else ''}, {epsilon * smallest:.3g}, below "
            f"{MIN_RELEASE_EPSILON:g}, where double precision loses the randomizer (1 - e^-eps "
            f"rounds to 0, noise scales overflow); use {' or '.join(options)}.")
    if y_bound is not None and not 2.0 * y_bound / (label_share * epsilon) <= MAX_NOISE_SCALE:
        largest = MAX_NOISE_SCALE * label_share * epsilon / 2.0
        need = 2.0 * y_bound / (label_share * MAX_NOISE_SCALE)
        also = f" (or {name} >= {need:.3g})" if need <= 1e300 else ""
        raise ValueError(
            f"{name}={epsilon!r} with y_bound={y_bound!r} gives a label noise scale "
            f"2*y_bound/epsilon above {MAX_NOISE_SCALE:g}, beyond what double precision can sum "
            f"and square; rescale the labels (e.g. to thousands) so that y_bound <= "
            f"{largest:.3g}{also}.")
    return epsilon


def check_rho(rho, name="rho"):
    """Return the label's share of the budget, a float strictly inside (0, 1)."""
    value = real_or_none(rho, name)
    if value is None or not 0 < value < 1:
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got "
                         f"{shown(rho)}.")
    return value


def check_int(value, name, low=0, high=None):
    """Return value as an int in [low, high] ("t must be >= 1, got 0.")."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {shown(value)}.")
    if value < low or (high is not None and value > high):
        # a bound far beyond any data (MAX_COUNT) is named only to a value beyond it
        named = high is not None and (high < MAX_DEPTH or value > high)
        bound = f"in [{low}, {high}]" if named else f">= {low}"
        raise ValueError(f"{name} must be {bound}, got {shown(value)}.")
    return int(value)


def check_bool(value, name):
    """Return value as a Python bool: only True and False (Python or numpy) are accepted, not
    strings such as "no", None or numbers, which would be read by their truthiness."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}.")
    return bool(value)


def check_choice(value, name, choices):
    """Return ``value`` if it is one of ``choices``."""
    try:
        ok = bool(value in choices)
    except (TypeError, ValueError):  # unhashable asked of a set; an array compared elementwise
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {shown(value)}.")
    return value


# ----------------------------------------------------------------------------------------------
# Arrays: features, labels and the privacy mask
# ----------------------------------------------------------------------------------------------
def _plain(value):
    """A numpy scalar as the Python value it holds (for messages: 2.0, not np.float64(2.0))."""
    return value.item() if isinstance(value, np.generic) else value


def _column_names(data):
    """Column labels of a DataFrame-like input, else None."""
    columns = getattr(data, "columns", None)
    return None if columns is None else [str(c) for c in columns]


def _check_unique_columns(data, name):
    """Refuse a DataFrame-like input naming two columns alike: which one is meant is a guess."""
    repeated = [c for c, k in Counter(getattr(data, "columns", ())).items() if k > 1]
    if repeated:
        raise ValueError(f"{name} has duplicate column names {[_plain(c) for c in repeated]}; "
                         "give every column its own name.")


def _check_missing(data, name):
    """Refuse missing values (NaN, None, pd.NA) of a pandas input, with counts per column."""
    _check_unique_columns(data, name)  # counts per column need one column per name
    isna = getattr(data, "isna", None)
    if isna is None:
        return
    missing = isna()
    counts = missing.sum() if missing.ndim == 2 else {name: int(missing.sum())}
    counts = {str(k): int(v) for k, v in dict(counts).items() if v}
    if counts:
        listed = ", ".join(f"{k!r} ({v})" if missing.ndim == 2 else f"{v}"
                           for k, v in counts.items())
        where = "in columns " if missing.ndim == 2 else ""
        raise ValueError(f"{name} has {sum(counts.values())} missing values (NaN, None or pd.NA) "
                         f"{where}{listed}; impute them or drop those rows explicitly first.")


def _first_entry(arr, bad):
    """(index, value) of the first entry of ``arr`` for which ``bad(value)`` holds, else
    (None, None)."""
    for index, value in np.ndenumerate(arr):
        if bad(value):
            return index, _plain(value)
    return None, None


def _is_text(value):
    return isinstance(value, (str, bytes))


def _not_a_float(value):
    try:
        float(value)
    except (TypeError, ValueError, OverflowError):
        return True
    return False


def _where(index):
    """' at row, column 4, 2' (or ' at index 3') for an entry's position; '' for a scalar."""
    return (f" at {'row, column' if len(index) == 2 else 'index'} "
            f"{', '.join(map(str, index))}" if index else "")


def as_float_array(data, name="X"):
    """``data`` as a float array: no sparse matrix, no complex numbers, no missing entries.

    Sparse input is refused (TypeError) rather than densified behind the user's back; complex
    numbers are refused (their imaginary part would be dropped); a pandas input with missing
    values (NaN, None, pd.NA) is refused with the count per column, a masked array with masked
    entries likewise; dates, durations and records are refused (TypeError): numpy would read
    them as counts of their unit (:mod:`ldpviz._array_kinds`); text ("1.5" as much as "abc")
    and any other entry that is not a number are refused, named with their position: parsing
    text would re-encode the data behind the user's back (scikit-learn refuses it too).
    """
    if data is None:
        raise TypeError(f"{name} is None; pass an array of numbers.")
    if is_sparse(data):
        raise TypeError(f"{name} is a sparse matrix; sparse data is not supported: pass a dense "
                        f"array ({name}.toarray() if it fits in memory).")
    refuse_non_numbers(data, name)
    _check_missing(data, name)
    try:
        arr = np.asarray(data)
    except ValueError as exc:  # ragged nested lists: numpy's message does not name the argument
        raise ValueError(f"{name} must be an array of numbers of one shape (nested lists of "
                         f"equal lengths); numpy could not read it: {exc}") from None
    refuse_non_numbers(arr, name)  # e.g. a list of np.datetime64
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} holds complex numbers: Complex data not supported (pass the "
                         "real part explicitly if that is what you mean).")
    if arr.dtype.kind in "biuf":
        return arr.astype(float, copy=False)
    index, text = _first_entry(arr, _is_text)
    if text is not None:
        raise ValueError(f"{name} must hold numbers, but the entry{_where(index)} is the text "
                         f"{shown(text)}; ldpviz does not parse text: convert it explicitly "
                         "first (e.g. pandas.to_numeric, or ldpviz.datasets.load_csv for a "
                         "file).")
    try:
        return arr.astype(float)
    except (TypeError, ValueError, OverflowError) as exc:
        index, value = _first_entry(arr, _not_a_float)
        if isinstance(value, complex):
            raise ValueError(f"{name} holds complex numbers: Complex data not supported.") \
                from None
        error = date_entry_error(value, _where(index), name)
        if error is not None:
            raise error from None
        if isinstance(exc, OverflowError):
            raise ValueError(f"{name} must hold numbers a float can hold (up to about 1.8e308), "
                             f"but the entry{_where(index)} is {shown(value)}.") from None
        raise type(exc)(f"{name} must hold numbers, but the entry{_where(index)} is "
                        f"{shown(value)} ({exc}).") from None


def check_epsilon_array(epsilon, name="epsilon"):
    """Budgets as a float array in (0, inf]; inf = no privacy."""
    if np.ndim(epsilon) == 0:
        return np.asarray(check_epsilon(epsilon, name))
    arr = as_real_array(epsilon, name, "positive numbers")
    if np.any(np.isnan(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0 (np.inf means no privacy), got {epsilon!r}.")
    return arr


def is_real_number(value):
    """A real number, not a bool (True is not 1 here) nor a string."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def as_real_array(value, name, what="a number or an array of numbers"):
    """``value`` as a float array of the numbers given: strings ("1") and booleans are refused
    (ValueError naming ``name``), not parsed or read as 0 and 1 as ``np.asarray(value, float)``
    would."""
    try:
        arr = np.asarray(value)
        if arr.dtype.kind == "O" or isinstance(value, (list, tuple)):  # [True, 2] gives ints
            ok = all(is_real_number(v) for v in np.asarray(value, dtype=object).ravel())
        else:
            ok = arr.dtype.kind in "iuf" and not np.ma.is_masked(value)
    except (TypeError, ValueError):  # ragged nesting
        ok = False
    if not ok:
        raise ValueError(f"{name} must be {what}, got {shown(value)}.")
    try:
        return arr.astype(float)
    except OverflowError:
        raise ValueError(f"{name} must be {what} a float can hold (up to about 1.8e308), got "
                         f"{shown(value)}.") from None


def _nonfinite_summary(arr, columns=None):
    """'2 NaN (column 'a': 2) and 1 inf (column 1: 1), first at row 3' for a 2-D array."""
    parts = []
    for label, bad in (("NaN", np.isnan(arr)), ("inf", np.isinf(arr))):
        total = int(bad.sum())
        if not total:
            continue
        per_column = bad.sum(axis=0) if arr.ndim == 2 else None
        if per_column is not None:
            names = columns or [str(j) for j in range(arr.shape[1])]
            quote = (lambda c: repr(c)) if columns else (lambda c: c)
            cols = ", ".join(f"column {quote(names[j])}: {int(k)}"
                             for j, k in enumerate(per_column) if k)
            parts.append(f"{total} {label} ({cols})")
        else:
            parts.append(f"{total} {label}")
    first = np.argwhere(~np.isfinite(arr))[0]
    return " and ".join(parts) + f", first at {'row ' if arr.ndim == 2 else 'index '}{first[0]}"


def check_2d_finite(X, name):
    """A finite 2-D float array with at least one row and one column."""
    columns = _column_names(X)
    X = as_float_array(X, name)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}. "
                         f"Reshape your data: {name}.reshape(-1, 1) for a single feature, "
                         f"{name}.reshape(1, -1) for a single sample.")
    if X.shape[0] == 0:
        raise ValueError(f"{name} has 0 sample(s) (shape={X.shape}) while a minimum of 1 is "
                         "required.")
    if X.shape[1] == 0:
        raise ValueError(f"{name} has 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
                         "required.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains {_nonfinite_summary(X, columns)}; impute or drop "
                         "those entries explicitly first.")
    return X


def check_features(X, name="X", box=True):
    """A finite 2-D float array; with box=True its entries must lie in the public box [0, 1]."""
    X = check_2d_finite(X, name)
    if box and (X.min() < 0.0 or X.max() > 1.0):
        low, high = int(np.sum(X < 0.0)), int(np.sum(X > 1.0))
        parts = ([f"{low} Negative values in data (min {X.min():.3g})"] if low else []) + (
            [f"{high} values above 1 (max {X.max():.3g})"] if high else [])
        raise ValueError(
            f"{name} has values outside the public feature box [0, 1]: {' and '.join(parts)}; "
            "scale with bounds fixed in advance, e.g. ldpviz.datasets.scale_to_box."
        )
    return X


def check_label_shape(y, n_samples, name="y", dtype=None):
    """``y`` as a 1-D array of ``n_samples`` entries.

    An (n, 1) column is flattened with scikit-learn's DataConversionWarning; ``y=None`` and
    sparse or complex labels are refused.
    """
    if y is None:
        raise ValueError(f"this estimator requires {name} to be passed, but the target "
                         f"{name} is None.")
    y = as_float_array(y, name) if dtype is float else _as_label_array(y, name)
    if y.ndim == 2 and y.shape[1] == 1:
        from sklearn.exceptions import DataConversionWarning

        warnings.warn("A column-vector y was passed when a 1d array was expected. Please change "
                      "the shape of y to (n_samples, ), for example using ravel().",
                      DataConversionWarning, stacklevel=4)
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"{name} should be a 1d array, got an array of shape {y.shape} "
                         "instead.")
    if y.shape[0] != n_samples:
        raise ValueError(f"{name} has {y.shape[0]} entries but X has {n_samples} rows.")
    return y


def _as_label_array(y, name):
    """Class labels as an array: not sparse, not complex, no pandas missing values."""
    if is_sparse(y):
        raise TypeError(f"{name} is a sparse matrix; sparse data is not supported: pass a dense "
                        "array.")
    refuse_non_numbers(y, name, "labels")
    _check_missing(y, name)
    try:
        y = np.asarray(y)
    except ValueError as exc:  # ragged nesting
        raise ValueError(f"{name} must be a 1-D array of labels; numpy could not read it: "
                         f"{exc}") from None
    refuse_non_numbers(y, name, "labels")
    if y.dtype.kind == "c":
        raise ValueError(f"{name} holds complex numbers: Complex data not supported.")
    return y


def check_target(y, n_samples, name="y"):
    """Regression labels: a finite 1-D float array of ``n_samples`` entries."""
    y = check_label_shape(y, n_samples, name, dtype=float)
    if not np.all(np.isfinite(y)):
        raise ValueError(f"{name} contains {_nonfinite_summary(y)}; drop or impute those "
                         "labels explicitly first.")
    return y


def check_mask(W, shape, name="W"):
    """The n x d privacy mask: 1 = the user protects that feature, 0 = publishes it.

    Only booleans and the numbers 0 and 1 are accepted: strings ('0', 'yes'), NaN and any
    other number are refused with the position of the first offending entry.
    """
    if is_sparse(W):
        raise TypeError(f"{name} is a sparse matrix; sparse data is not supported: pass a dense "
                        "0/1 array.")
    refuse_non_numbers(W, name, "mask")
    _check_missing(W, name)
    try:
        W = np.asarray(W)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(f"{name} must be a 0/1 array of shape {tuple(shape)} (n_samples, "
                         f"n_features); numpy could not read it: {exc}") from None
    refuse_non_numbers(W, name, "mask")
    if W.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)} (n_samples, n_features), "
                         f"got {W.shape}.")
    if W.dtype == bool:
        return W
    if W.dtype.kind == "O":
        W = _object_mask(W, name)
    if W.dtype.kind == "c":
        raise ValueError(f"{name} holds complex numbers; the mask holds 0/1 or True/False "
                         "(1 = protected).")
    if W.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be numeric 0/1 or boolean, got dtype {W.dtype} "
                         f"(e.g. {shown(W.flat[0])}); strings do not count as protected.")
    bad = ~((W == 0) | (W == 1))
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name} must contain only 0 and 1 (1 = protected); {int(bad.sum())} "
                         f"entries are not, the first at {first}: {_plain(W[first])!r}.")
    return W.astype(bool)


def _object_mask(W, name):
    """An object mask as floats when every entry is a bool or a real number (pandas' nullable
    columns give such arrays), else the error naming the first other entry."""
    index, value = _first_entry(W, lambda v: not isinstance(v, (numbers.Real, np.bool_,
                                                                 Decimal)))
    if index is None:
        return W.astype(float)
    error = date_entry_error(value, _where(index), name, "mask")
    if error is not None:
        raise error
    if value is None:
        raise ValueError(f"{name} has a missing entry (None){_where(index)}; the mask holds 0/1 "
                         "or True/False (1 = protected).")
    if isinstance(value, complex):
        raise ValueError(f"{name} holds complex numbers; the mask holds 0/1 or True/False "
                         "(1 = protected).")
    raise ValueError(f"{name} must be numeric 0/1 or boolean, but the entry{_where(index)} is "
                     f"{shown(value)}; strings do not count as protected.")


def check_mask_columns(W, x_columns, name="W"):
    """Refuse a DataFrame mask whose column names are not X's, in X's order.

    W is read by position: a W with X's names in another order, or with other names, would
    protect the wrong features without a word, and reordering it by name would be a guess.
    ``x_columns`` are X's column labels (None for an array: then only the default labels
    0..d-1 of ``pd.DataFrame(array)`` match).
    """
    if getattr(W, "columns", None) is None:
        return
    _check_unique_columns(W, name)
    got = [_plain(c) for c in W.columns]
    if x_columns is None:
        if got != list(range(len(got))):
            raise ValueError(f"{name} has column names {got} but X has none to match them "
                             f"against; pass X as a DataFrame with these names, or {name} as "
                             "an array (its columns in X's order).")
        return
    expected = [_plain(c) for c in x_columns]
    if got != expected:
        raise ValueError(f"{name}'s columns must be X's columns in X's order, {expected}, got "
                         f"{got}: {name} is read by position, so another order would protect "
                         f"the wrong features. Select them explicitly: {name}[X.columns].")


def check_feature_indices(indices, n_features, name="private_features", columns=None):
    """Column indices; with ``columns`` (a DataFrame's columns) the entries may be their names."""
    listed = isinstance(indices, (list, tuple, np.ndarray)) and np.ndim(indices) == 1
    entries = list(indices) if listed else None
    if entries and all(isinstance(v, str) for v in entries):
        columns = None if columns is None else [str(c) for c in columns]
        if columns is None:
            raise ValueError(f"{name} names columns {entries!r}, but X has no column names: "
                             "pass X as a DataFrame, or give column indices.")
        unknown = [v for v in entries if v not in columns]
        if unknown:
            raise ValueError(f"{name} names {unknown!r}, which X does not have; its columns "
                             f"are {columns!r}.")
        indices = [columns.index(v) for v in entries]
    idx = np.asarray(indices)
    if idx.ndim != 1 or (idx.size and not np.issubdtype(idx.dtype, np.integer)):
        raise ValueError(f"{name} must be a list of column indices (or, with a DataFrame X, "
                         f"of its column names), got {indices!r}.")
    if np.any(idx < 0) or np.any(idx >= n_features):
        raise ValueError(f"{name} has indices outside 0..{n_features - 1}: {indices!r}.")
    if len(np.unique(idx)) != len(idx):
        raise ValueError(f"{name} has repeated indices: {indices!r}.")
    return idx.astype(int)


def resolve_y_bound(y_bound, y, name="y_bound"):
    """Return the public label bound M; reading it off the labels warns that this leaks."""
    if y_bound is None:
        warnings.warn(
            f"{name} was not set, so it was read off the private labels (max |y|). "
            "That choice depends on private data and is not covered by the privacy "
            f"guarantee; pass {name} as a public bound fixed in advance.",
            PrivacyWarning,
            stacklevel=3,
        )
        bound = float(np.max(np.abs(y)))
        if bound > MAX_Y_BOUND:
            raise ValueError(f"the labels' largest magnitude {bound:.3g} (read off for {name}) is "
                             f"above {MAX_Y_BOUND:g}, where the estimates' variances overflow "
                             f"double precision; rescale the labels (e.g. to thousands) and "
                             f"pass {name}.")
        if 0 < bound < MIN_Y_BOUND:
            raise ValueError(f"the labels' largest magnitude {bound:.3g} (read off for {name}) is "
                             f"below {MIN_Y_BOUND:g}, where its square underflows in double "
                             f"precision; rescale the labels or pass {name} >= {MIN_Y_BOUND:g}.")
        return bound if bound > 0 else 1.0
    value = real_or_infinite(y_bound, name)
    if value is None or not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {shown(y_bound)}.")
    y_bound = value
    if y_bound > MAX_Y_BOUND:
        raise ValueError(f"{name}={y_bound!r} is above {MAX_Y_BOUND:g}, where the estimates' "
                         "variances overflow double precision; rescale the labels (and "
                         f"{name}), e.g. to thousands, so that {name} <= {MAX_Y_BOUND:g}.")
    if y_bound < MIN_Y_BOUND:
        raise ValueError(f"{name}={y_bound!r} is below {MIN_Y_BOUND:g}, where its square "
                         f"underflows in double precision; rescale the labels (and {name}) so "
                         f"that {name} >= {MIN_Y_BOUND:g}.")
    return float(y_bound)


def real_or_infinite(value, name):
    """As :func:`real_or_none`, an integer beyond the floats read as +-inf (it is beyond every
    finite bound, and the message says so)."""
    try:
        return real_or_none(value, name)
    except ValueError:
        return math.inf if value > 0 else -math.inf


def _interval(low, high, low_open, high_open):
    """'[0, 1)' and the like; an unbounded side is open."""
    lo = "-inf" if low is None else f"{low:g}"
    hi = "inf" if high is None else f"{high:g}"
    return (f"{'(' if low_open or low is None else '['}{lo}, "
            f"{hi}{')' if high_open or high is None else ']'}")


def check_real(value, name, low=None, high=None, low_open=False, high_open=False, allow_inf=False):
    """Return value as a float inside the stated interval (finite unless ``allow_inf``)."""
    number = real_or_infinite(value, name)
    if number is None or math.isnan(number):
        raise ValueError(f"{name} must be a real number, got {shown(value)}.")
    interval = _interval(low, high, low_open, high_open)
    if not allow_inf and not math.isfinite(number):
        inside = f", in {interval}" if low is not None or high is not None else ""
        raise ValueError(f"{name} must be finite{inside}, got {shown(value)}.")
    too_low = low is not None and (number <= low if low_open else number < low)
    too_high = high is not None and (number >= high if high_open else number > high)
    if too_low or too_high:
        raise ValueError(f"{name} must be in {interval}, got {shown(value)}.")
    return number
