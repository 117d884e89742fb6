"""Property-based tests of the public API (hypothesis).

Valid inputs give finite predictions within the public label bound [-M, M] (class labels in the
public set, probabilities that add up to 1), the same for the same random_state; invalid inputs
give a ValueError or TypeError naming the argument. Examples are few and small (derandomized, so
every run checks the same cases) to keep ``make test`` fast; ``LDPVIZ_HYPOTHESIS=thorough`` runs a
long random search.
"""

import math
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ldpviz import AdHistOfTree, HistOfTree, PrivacyWarning, theory
from ldpviz.baselines import DT, KRR, LPDT, Hist, LabelDT, ParDT
from ldpviz.bcdp import BCDPMean, LDPMean
from ldpviz.classification import HistClassifier, HistOfTreeClassifier
from ldpviz.datasets import scale_to_box
from ldpviz.masks import protection_counts

# Few small derandomized examples by default (the same cases every run, fast); set
# LDPVIZ_HYPOTHESIS=thorough for a long random search.
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile("ldpviz", max_examples=25, deadline=None, derandomize=True,
                          suppress_health_check=_QUIET)
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=_QUIET)
settings.load_profile(os.environ.get("LDPVIZ_HYPOTHESIS", "ldpviz"))

epsilons = st.one_of(st.floats(0.05, 1e3), st.just(math.inf))
unit = st.floats(0.0, 1.0, allow_nan=False)


@st.composite
def problems(draw):
    """(n, d, X, y, W, X_test, M): users in the box, labels, a 0/1 mask, test points."""
    n = draw(st.integers(2, 60))
    d = draw(st.integers(1, 4))
    X = draw(hnp.arrays(float, (n, d), elements=unit))
    y = draw(hnp.arrays(float, n, elements=st.floats(-50, 50, allow_nan=False)))
    W = draw(hnp.arrays(bool, (n, d)))
    X_test = draw(hnp.arrays(float, (draw(st.integers(1, 8)), d),
                             elements=st.floats(-2, 3, allow_nan=False)))
    M = draw(st.floats(0.5, 100))
    return n, d, X, y, W, X_test, M


@st.composite
def regressors(draw, n, d, M):
    """A valid regressor for n users with d features (depths the users can fill)."""
    fill = math.ceil(math.log2(n))
    common = {"epsilon": draw(epsilons), "y_bound": M, "random_state": draw(st.integers(0, 99))}
    rho = draw(st.floats(0.05, 0.95))
    name = draw(st.sampled_from(["HistOfTree", "AdHistOfTree", "Hist", "KRR", "ParDT",
                                 "LabelDT", "DT", "LPDT"]))
    if name == "HistOfTree":
        mechanism = draw(st.sampled_from(["grr", "rr", "auto"]))
        if mechanism == "auto" and 350 < (1 - rho) * common["epsilon"] < math.inf:
            # mechanisms.grr_is_better overflows (e^eps - 1)^2 there: reported, not ours to fix
            common["epsilon"] = 350 / (1 - rho)
        return HistOfTree(t=draw(st.integers(1, 3)), depth=draw(st.integers(0, fill)),
                          rule=draw(st.sampled_from(["max-edge", "cart"])),
                          mechanism=mechanism, rho=rho, **common)
    if name == "AdHistOfTree":
        return AdHistOfTree(c=draw(st.sampled_from([0.01, 0.1, 1.0])),
                            t_offset=draw(st.integers(-1, 1)), rho=rho, **common)
    if name == "Hist":
        return Hist(t=draw(st.integers(1, 3)), rho=rho,
                    noise=draw(st.sampled_from(["aggregate", "per-user"])), **common)
    tree = {"max_depth": draw(st.integers(1, 5)), "min_samples_leaf": draw(st.integers(1, 4))}
    if name == "KRR":
        return KRR(k=draw(st.integers(2, 4)), rho=rho, **tree, **common)
    if name == "ParDT":
        return ParDT(missing=draw(st.sampled_from(["nan", "drop"])), **tree, **common)
    if name == "LabelDT":
        return LabelDT(**tree, **common)
    if name == "DT":
        return DT(**tree, random_state=common["random_state"])
    return LPDT(rho=rho, mechanism=draw(st.sampled_from(["rr", "grr"])), **tree, **common)


def _quiet(fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        return fit()


def _uses_mask(model):
    return not isinstance(model, (Hist, LabelDT, DT))


@given(data=st.data(), problem=problems())
def test_valid_regressions_predict_finite_values_in_the_bound_deterministically(data, problem):
    n, d, X, y, W, X_test, M = problem
    model = data.draw(regressors(n, d, M))
    mask = W if _uses_mask(model) else None
    first = _quiet(lambda: model.fit(X, y, W=mask)).predict(X_test)
    again = _quiet(lambda: model.fit(X, y, W=mask)).predict(X_test)
    assert first.shape == (len(X_test),) and np.all(np.isfinite(first))
    np.testing.assert_array_equal(first, again)  # the same random_state, the same fit
    if isinstance(model, DT):
        assert y.min() - 1e-9 <= first.min() and first.max() <= y.max() + 1e-9
    else:
        assert np.all(np.abs(first) <= M)


@given(problem=problems(), epsilon=epsilons, K=st.integers(2, 4), seed=st.integers(0, 99),
       which=st.sampled_from(["HistOfTreeClassifier", "HistClassifier"]))
def test_valid_classifications_predict_public_labels_and_probabilities(problem, epsilon, K,
                                                                       seed, which):
    n, _, X, _, W, X_test, _ = problem
    labels = np.arange(K) * 10
    y = labels[np.arange(n) % K]
    if which == "HistOfTreeClassifier":
        depth = min(2, math.ceil(math.log2(n)))
        model = HistOfTreeClassifier(epsilon=epsilon, depth=depth, classes=labels,
                                     random_state=seed)
        mask = W
    else:
        model, mask = HistClassifier(epsilon=epsilon, classes=labels, random_state=seed), None
    predicted = model.fit(X, y, W=mask).predict(X_test)
    assert set(predicted) <= set(labels.tolist())
    np.testing.assert_array_equal(predicted, model.fit(X, y, W=mask).predict(X_test))
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(X_test)
        assert np.all(np.isfinite(proba)) and np.all((proba >= 0) & (proba <= 1))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)


# ----------------------------------------------------------------------------------------------
# Invalid inputs: the error names the argument
# ----------------------------------------------------------------------------------------------
BAD_VALUES = {
    "epsilon": [0, -1.0, math.nan, "1", None, True],
    "t": [0, -2, 2.5, "2", None],
    "depth": [-1, 1.5, "3"],
    "rho": [0, 1, -0.5, 1.5, math.nan, "half"],
    "y_bound": [0, -3.0, math.inf, math.nan, "10"],
    "rule": ["gini", 3, None],
    "mechanism": ["laplace", 1],
    "min_samples_leaf": [-1, 0.5],
    "random_state": [-1, "seed", 1.5],
}


@given(problem=problems(), param=st.sampled_from(sorted(BAD_VALUES)), data=st.data())
def test_invalid_parameters_give_errors_naming_them(problem, param, data):
    _, _, X, y, W, _, M = problem
    value = data.draw(st.sampled_from(BAD_VALUES[param]))
    model = HistOfTree(y_bound=M).set_params(**{param: value})
    with pytest.raises((ValueError, TypeError)) as info:
        _quiet(lambda: model.fit(X, y, W=W))
    assert param in str(info.value)


@given(problem=problems(), defect=st.sampled_from(
    ["X nan", "X inf", "X outside", "X 1-D", "X complex", "X text", "y nan", "y short",
     "y complex", "W values", "W shape", "W nan"]), data=st.data())
def test_invalid_data_give_errors_naming_the_argument(problem, defect, data):
    n, d, X, y, W, _, M = problem
    model = data.draw(regressors(n, d, M))
    argument, what = defect.split()
    X, y, W = X.astype(object if what == "text" else float), y.copy(), W.astype(float)
    row, col = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, d - 1))
    if argument == "X":
        X = {"nan": lambda: _set(X, row, col, math.nan), "inf": lambda: _set(X, row, col, -np.inf),
             "outside": lambda: _set(X, row, col, 1.5), "1-D": lambda: X[:, 0],
             "complex": lambda: X + 1j, "text": lambda: _set(X, row, col, "12.5kg")}[what]()
    elif argument == "y":
        y = {"nan": lambda: _set(y, row, None, math.nan), "short": lambda: y[:-1],
             "complex": lambda: y + 1j}[what]()
    else:
        if not _uses_mask(model):
            return  # W is not read (Hist, LabelDT, DT check it only when it matters)
        W = {"values": lambda: _set(W, row, col, 2), "shape": lambda: W[:, :-1] if d > 1
             else W[:-1], "nan": lambda: _set(W, row, col, math.nan)}[what]()
    with pytest.raises((ValueError, TypeError)) as info:
        _quiet(lambda: model.fit(X, y, W=W if _uses_mask(model) else None))
    assert f"{argument} " in str(info.value) or str(info.value).startswith(argument)


def _set(array, row, col, value):
    array = array.copy()
    array[row if col is None else (row, col)] = value
    return array


# ----------------------------------------------------------------------------------------------
# Formulas, masks, scaling, BCDP
# ----------------------------------------------------------------------------------------------
@given(n=st.floats(2, 1e12), epsilon=st.floats(1e-300, 1e300), d=st.integers(1, 30),
       data=st.data())
def test_bounds_are_finite_wherever_the_true_value_is(n, epsilon, d, data):
    s = data.draw(st.integers(0, d))
    lam = data.draw(st.floats(0, 1))
    upper = theory.upper_bound(n, epsilon, d, s, lam)
    lower = theory.lower_bound(n, epsilon, d, s)
    log_expm1 = epsilon + np.log(-np.expm1(-epsilon))
    log_lower = max(-2 / (2 + d + s) * (np.log(n) + 2 * log_expm1), -2 / (2 + d) * np.log(n))
    if abs(log_lower) < 700:  # a normal double (not overflowing, not subnormal)
        assert np.isclose(np.log(lower), log_lower, atol=1e-9)
    log_upper = theory.upper_rate_exponent(d, s, lam) * (
        np.log(np.log(n)) - np.log(n) - 2 * np.log(epsilon))
    if abs(log_upper) < 700:  # the true value is a double: the computed one must be it
        assert np.isclose(np.log(upper), log_upper, atol=1e-9)


@given(p=st.floats(0, 1e5), d=st.integers(1, 10), data=st.data())
def test_optimal_t_is_an_int_or_a_clear_error(p, d, data):
    s = data.draw(st.integers(0, d - 1))
    try:
        t = theory.optimal_t(p, d, s)
    except ValueError as exc:
        assert "p=" in str(exc) and p / (d - s) > 62
    else:
        assert isinstance(t, int) and t >= 1


@given(W=hnp.arrays(float, st.tuples(st.integers(1, 6), st.integers(1, 4)),
                    elements=st.sampled_from([0.0, 1.0, 2.0, -1.0, math.nan])))
def test_protection_counts_count_only_zero_one_masks(W):
    if np.all((W == 0) | (W == 1)):
        np.testing.assert_array_equal(protection_counts(W), W.sum(axis=0))
    else:
        with pytest.raises(ValueError, match="W must contain only 0 and 1"):
            protection_counts(W)


@given(X=hnp.arrays(float, st.tuples(st.integers(1, 5), st.integers(1, 3)),
                    elements=st.floats(-1e300, 1e300)),
       lower=st.floats(-1e300, 1e300), width=st.floats(1e-300, 1e300))
def test_scale_to_box_lands_in_the_box(X, lower, width):
    upper = lower + width
    if not upper > lower:
        with pytest.raises(ValueError, match="upper must be larger than lower"):
            scale_to_box(X, lower, upper)
        return
    Z = scale_to_box(X, lower, upper)
    assert np.all(np.isfinite(Z)) and Z.min() >= 0 and Z.max() <= 1


@given(X=hnp.arrays(float, st.tuples(st.integers(1, 30), st.integers(1, 3)),
                    elements=st.floats(-1, 1)),
       epsilon=st.floats(1e-6, 1e3), seed=st.integers(0, 99), bcdp=st.booleans())
def test_bcdp_means_are_finite_projected_and_seeded(X, epsilon, seed, bcdp):
    model = (BCDPMean(epsilon=epsilon, deltas=epsilon, random_state=seed) if bcdp
             else LDPMean(epsilon=epsilon, random_state=seed))
    mean = model.fit(X).mean_
    assert mean.shape == (X.shape[1],) and np.all(np.abs(mean) <= 1)
    np.testing.assert_array_equal(mean, model.fit(X).mean_)


# ----------------------------------------------------------------------------------------------
# Data of other kinds, numbers beyond the floats (issue 32)
# ----------------------------------------------------------------------------------------------
KINDS = ["datetime64", "timedelta64", "masked", "pandas sparse", "record", "dict"]


def _other_kind(array, kind, unit):
    import pandas as pd

    if kind == "datetime64":
        return array.astype(f"datetime64[{unit}]")
    if kind == "timedelta64":
        return array.astype(f"timedelta64[{unit}]")
    if kind == "masked":
        return np.ma.masked_array(array, mask=np.arange(array.size).reshape(array.shape) == 0)
    if kind == "pandas sparse":
        frame = pd.DataFrame(array) if array.ndim == 2 else pd.Series(array)
        return frame.astype(pd.SparseDtype(float, 0.0))
    if kind == "record":
        return np.zeros(len(array), dtype=[("a", float), ("b", float)])
    return {"a": array}


@given(problem=problems(), data=st.data(), kind=st.sampled_from(KINDS),
       argument=st.sampled_from(["X", "y", "W"]),
       unit=st.sampled_from(["s", "ms", "ns", "D", "h"]))
def test_data_numpy_would_read_as_numbers_are_refused_naming_the_argument(problem, data, kind,
                                                                           argument, unit):
    """Dates were read as seconds since 1970, masked entries as what lies under the mask."""
    n, d, X, y, W, _, M = problem
    model = data.draw(regressors(n, d, M))
    if argument == "W" and not _uses_mask(model):
        return
    if argument == "W" and kind in ("datetime64", "timedelta64"):
        W = W.astype(float)  # dates of 0 and 1 s: still not a mask
    given_ = {"X": X, "y": y, "W": W}
    given_[argument] = _other_kind(given_[argument], kind, unit)
    with pytest.raises((ValueError, TypeError)) as info:
        _quiet(lambda: model.fit(given_["X"], given_["y"],
                                 W=given_["W"] if _uses_mask(model) else None))
    assert str(info.value).startswith(argument), str(info.value)


@given(problem=problems(), param=st.sampled_from(["epsilon", "y_bound", "rho", "t", "depth",
                                                  "min_samples_leaf"]),
       exponent=st.integers(1024, 4000), sign=st.sampled_from([1, -1]))
def test_integers_beyond_the_floats_are_refused_naming_the_parameter(problem, param, exponent,
                                                                     sign):
    """epsilon=2**1100 raised a bare OverflowError."""
    _, _, X, y, W, _, M = problem
    model = HistOfTree(y_bound=M, depth=0).set_params(**{param: sign * 2**exponent})
    with pytest.raises(ValueError) as info:
        _quiet(lambda: model.fit(X, y, W=W))
    message = str(info.value)
    assert message.startswith(param) and "digits" in message and len(message) < 400, message
