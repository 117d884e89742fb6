"""Bad input gets a clear error naming the argument; nothing is cast, dropped or guessed."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from sklearn.base import clone
from sklearn.exceptions import DataConversionWarning, NotFittedError

from ldpviz import AdHistOfTree, HistOfTree, PrivacyWarning, theory
from ldpviz._rng import as_generator
from ldpviz._validation import check_bool, check_int, check_mask
from ldpviz.baselines import DT, KRR, LPDT, Hist, LabelDT, ParDT
from ldpviz.bcdp import BCDPMean, LDPMean, ldp_ols
from ldpviz.classification import HistClassifier, HistOfTreeClassifier
from ldpviz.datasets import PAPER_Y_BOUND, make_paper_regression

M = PAPER_Y_BOUND
X, Y = make_paper_regression(300, random_state=0)
LABELS = (Y > 1).astype(int)

REGRESSORS = [HistOfTree(s=2, y_bound=M), AdHistOfTree(private_features=[0], y_bound=M),
              Hist(y_bound=M), KRR(s=1, y_bound=M), ParDT(s=1, y_bound=M), LabelDT(y_bound=M),
              DT(), LPDT(s=0, y_bound=M)]
CLASSIFIERS = [HistOfTreeClassifier(s=2, classes=[0, 1]), HistClassifier(classes=[0, 1])]


def _ids(estimators):
    return [type(e).__name__ for e in estimators]


def _fit(model, X_, y_=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        return model.fit(X_, (LABELS if hasattr(model, "classes") else Y) if y_ is None else y_)


# ----------------------------------------------------------------------------------------------
# Messages read well
# ----------------------------------------------------------------------------------------------
def test_integer_messages_read_well():
    with pytest.raises(ValueError, match=r"^t must be >= 1, got 0\.$"):
        check_int(0, "t", 1)
    with pytest.raises(ValueError, match=r"^s must be in \[0, 5\], got 7\.$"):
        check_int(7, "s", 0, 5)
    with pytest.raises(ValueError, match=r"^depth must be an integer, got 2\.5\.$"):
        check_int(2.5, "depth", 0)
    with pytest.raises(ValueError, match=r"^t must be >= 1, got 0\.$"):
        HistOfTree(s=2, t=0, y_bound=M).fit(X, Y)


@pytest.mark.parametrize("seed", [-1, 2.5, "seed", True])
def test_random_state_errors_name_random_state(seed):
    with pytest.raises(ValueError, match="random_state must be"):
        as_generator(seed)
    with pytest.raises(ValueError, match="random_state"):
        _fit(HistOfTree(s=2, y_bound=M, random_state=seed), X)


def test_parameters_of_the_wrong_type_get_value_errors_naming_them():
    with pytest.raises(ValueError, match=r"^c must be a positive finite number, got 'a'"):
        _fit(AdHistOfTree(c="a", y_bound=M), X)
    with pytest.raises(ValueError, match="rule must be one of"):
        _fit(HistOfTree(s=2, rule=["cart"], y_bound=M), X)  # unhashable: still a ValueError
    with pytest.raises(ValueError, match="min_samples_leaf must be >= 0, got -1"):
        _fit(HistOfTree(s=2, min_samples_leaf=-1, y_bound=M), X)



_CHOICES = ["rule", "mechanism", "cell_estimate", "fallback", "noise", "missing",
            "depth_search"]


@pytest.mark.parametrize("model", REGRESSORS + CLASSIFIERS, ids=_ids(REGRESSORS + CLASSIFIERS))
def test_a_choice_given_as_an_array_is_named(model):
    """rule=np.array(['cart', 'max-edge']) ended in numpy's "The truth value of an array with
    more than one element is ambiguous", naming nothing."""
    asked = [p for p in _CHOICES if p in model.get_params()]
    for param in asked:
        with pytest.raises(ValueError, match=rf"^{param} must be one of \[.*\], got "
                                             r"array\(\['cart', 'max-edge'\]"):
            _fit(clone(model).set_params(**{param: np.array(["cart", "max-edge"])}), X)
    assert asked or isinstance(model, (KRR, LabelDT, DT))


def test_bcdp_weights_given_as_an_array_are_named():
    with pytest.raises(ValueError, match=r"^weights must be one of \['paper', "):
        BCDPMean(deltas=1.0, weights=np.array(["paper", "paper"])).fit(2 * X - 1)


@pytest.mark.parametrize("value", ["no", "False", None, 2, 0, 1.0, np.int64(1)])
@pytest.mark.parametrize("model", [m for m in REGRESSORS if "clip" in m.get_params()],
                         ids=_ids([m for m in REGRESSORS if "clip" in m.get_params()]))
def test_boolean_parameters_take_true_or_false_only(model, value):
    """clip="no" used to clip (a non-empty string is truthy): now a TypeError naming it."""
    with pytest.raises(TypeError, match=r"^clip must be True or False, got "):
        _fit(clone(model).set_params(clip=value), X)
    with pytest.raises(TypeError, match=r"^public_in_estimate must be True or False, got "):
        _fit(LPDT(s=0, y_bound=M, public_in_estimate=value), X)
    assert check_bool(np.bool_(False), "clip") is False
    _fit(clone(model).set_params(clip=np.bool_(False)), X)


# ----------------------------------------------------------------------------------------------
# Features: sparse, complex, missing, text, shape
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", REGRESSORS + CLASSIFIERS, ids=_ids(REGRESSORS + CLASSIFIERS))
def test_every_estimator_refuses_bad_features_naming_x(model):
    with pytest.raises(TypeError, match="X is a sparse matrix; sparse data is not supported"):
        _fit(model, sparse.csr_matrix(X))
    with pytest.raises(ValueError, match="X holds complex numbers: Complex data not supported"):
        _fit(model, X + 0j)
    frame = pd.DataFrame(X, columns=list("abcde")).astype("Float64")
    frame.iloc[[3, 8], 1] = pd.NA
    frame.iloc[5, 4] = pd.NA
    with pytest.raises(ValueError, match=r"X has 3 missing values \(NaN, None or pd.NA\) in "
                                         r"columns 'b' \(2\), 'e' \(1\)"):
        _fit(model, frame)
    text = X.astype(object)
    text[4, 2] = "12.5kg"
    with pytest.raises(ValueError, match=r"X must hold numbers, but the entry at row, column "
                                         r"4, 2 is the text '12.5kg'"):
        _fit(model, text)
    text[4, 2] = "0.5"  # a number written as text is not parsed either: that is re-encoding
    with pytest.raises(ValueError, match=r"entry at row, column 4, 2 is the text '0.5'; "
                                         "ldpviz does not parse text"):
        _fit(model, text)
    with pytest.raises(ValueError, match=r"entry at row, column 0, 0 is the text '0.5'"):
        _fit(model, np.full(X.shape, "0.5"))  # a numpy string array
    holes = X.copy()
    holes[[2, 9], 0], holes[7, 3] = np.nan, np.inf
    with pytest.raises(ValueError, match=r"X contains 2 NaN \(column 0: 2\) and 1 inf "
                                         r"\(column 3: 1\), first at row 2"):
        _fit(model, holes)
    ragged = [list(row) for row in X]
    ragged[1] = ragged[1][:-1]
    with pytest.raises(ValueError, match="X must be an array of numbers of one shape"):
        _fit(model, ragged)
    with pytest.raises(ValueError, match="Reshape your data"):
        _fit(model, X[:, 0])
    with pytest.raises(ValueError, match=r"X has 0 feature\(s\)"):
        _fit(model, X[:, :0])
    with pytest.raises(ValueError, match="Negative values in data"):
        _fit(model, X - 0.5)


@pytest.mark.parametrize("model", REGRESSORS, ids=_ids(REGRESSORS))
def test_every_regressor_refuses_bad_labels_naming_y(model):
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        model.fit(X, None)
    with pytest.raises(ValueError, match="y holds complex numbers"):
        _fit(model, X, Y + 1j)
    bad = Y.copy()
    bad[[4, 6]] = np.inf
    with pytest.raises(ValueError, match=r"y contains 2 inf, first at index 4"):
        _fit(model, X, bad)
    with pytest.raises(ValueError, match="y has 299 entries but X has 300 rows"):
        _fit(model, X, Y[:-1])
    with pytest.raises(ValueError, match="y must be an array of numbers of one shape"):
        _fit(model, X, [Y[0], [Y[1], Y[2]], *Y[3:]])
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        _fit(model, X, Y[:, None])
    with pytest.raises(ValueError, match=r"y has 1 missing values"):
        _fit(model, X, pd.Series(Y).astype("Float64").mask(np.arange(300) == 3, pd.NA))
    with pytest.raises(ValueError, match=r"y must hold numbers, but the entry at index 0 is "
                                         "the text '1.25'"):
        _fit(model, X, pd.Series(Y).astype(str).mask(np.arange(300) == 0, "1.25"))


@pytest.mark.parametrize("model", REGRESSORS + CLASSIFIERS, ids=_ids(REGRESSORS + CLASSIFIERS))
def test_unfitted_estimators_raise_not_fitted_error(model):
    from sklearn.base import clone

    with pytest.raises(NotFittedError):
        clone(model).predict(X)


@pytest.mark.parametrize("model", REGRESSORS + CLASSIFIERS, ids=_ids(REGRESSORS + CLASSIFIERS))
def test_feature_names_are_recorded_and_checked_as_scikit_learn_does(model):
    frame = pd.DataFrame(X, columns=["age", "bmi", "bp", "s1", "s2"])
    fitted = _fit(model, frame)
    assert list(fitted.feature_names_in_) == list(frame.columns) and fitted.n_features_in_ == 5
    fitted.predict(frame)
    with pytest.raises(ValueError, match="Feature names must be in the same order"):
        fitted.predict(frame[frame.columns[::-1]])  # reversed columns used to change predictions
    with pytest.raises(ValueError, match="Feature names unseen at fit time"):
        fitted.predict(frame.rename(columns={"bp": "pressure"}))
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        fitted.predict(X)
    with pytest.raises(ValueError, match=r"X has 4 features, but .* is expecting 5 features"):
        fitted.predict(X[:, :4])
    plain = _fit(model, X)
    assert not hasattr(plain, "feature_names_in_")
    with pytest.warns(UserWarning, match="X has feature names, but"):
        plain.predict(frame)


# ----------------------------------------------------------------------------------------------
# Classification labels
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [HistOfTreeClassifier, HistClassifier])
def test_classifiers_refuse_continuous_and_mixed_labels(cls):
    kwargs = {"s": 2} if cls is HistOfTreeClassifier else {}
    with pytest.raises(ValueError, match=r"Unknown label type: continuous.*300 distinct"):
        cls(**kwargs).fit(X, Y)  # used to make one class per value
    mixed = np.array(["a", 1] * 150, dtype=object)
    with pytest.raises(ValueError, match=r"y mixes strings and numbers.*'a' and 1"):
        cls(**kwargs).fit(X, mixed)
    with pytest.raises(ValueError, match="classes mixes strings and numbers"):
        cls(classes=["a", 1], **kwargs).fit(X, np.array(["a", "b"] * 150))
    with pytest.raises(ValueError, match="y mixes strings and numbers"):
        cls(**kwargs).fit(X, ["a", 1] * 150)  # a list: numpy alone would make 1 into "1"
    with pytest.raises(ValueError, match="at least two classes"), pytest.warns(PrivacyWarning):
        cls(**kwargs).fit(X, np.zeros(300, dtype=int))
    # explicit public classes may be any labels, floats included
    model = cls(classes=[0.5, 1.5], random_state=0, **kwargs).fit(X, LABELS + 0.5)
    assert set(model.predict(X)) <= {0.5, 1.5}


# ----------------------------------------------------------------------------------------------
# Tiny budgets, huge bounds: a clear error, never inf or NaN
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", [KRR(s=1), HistOfTree(s=2), Hist(), ParDT(s=1), LPDT(s=0),
                                   LabelDT()], ids=lambda m: type(m).__name__)
def test_epsilon_too_small_to_simulate_is_refused(model):
    model.set_params(epsilon=5e-324, y_bound=M)
    with pytest.raises(ValueError, match=r"epsilon=5e-324 is too small to simulate.*use "
                                         r"epsilon >= "):
        _fit(model, X)
    model.set_params(epsilon=1e-10, y_bound=1e62)
    with pytest.raises(ValueError, match="label noise scale"):
        _fit(model, X)
    model.set_params(epsilon=1.0, y_bound=1e300)  # its square's square overflows
    with pytest.raises(ValueError, match=r"y_bound=1e\+300 is above 1e\+70"):
        _fit(model, X)
    # so small that M^2 underflows: HistOfTree's budget rule divided 0 by 0
    model.set_params(y_bound=1e-200)
    with pytest.raises(ValueError, match=r"y_bound=1e-200 is below 1e-100"):
        _fit(model, X)
    model.set_params(y_bound=1e-100)
    assert np.all(np.isfinite(_fit(model, X).predict(X)))


def test_labels_too_small_to_square_are_refused_when_the_bound_is_read_off():
    with pytest.raises(ValueError, match=r"below 1e-100.*rescale the labels"), \
            pytest.warns(PrivacyWarning):
        HistOfTree(s=2).fit(X, np.full(len(X), 1e-200))


def test_classifier_and_bcdp_refuse_tiny_budgets():
    with pytest.raises(ValueError, match="too small to simulate"):
        HistOfTreeClassifier(epsilon=1e-300, s=2, classes=[0, 1]).fit(X, LABELS)
    with pytest.raises(ValueError, match="too small to simulate"):
        LDPMean(epsilon=5e-324).fit(X * 2 - 1)
    with pytest.raises(ValueError, match="too small to simulate"):
        BCDPMean(epsilon=1e-20, deltas=1e-20).fit(X * 2 - 1)


def test_theory_is_finite_where_the_truth_is():
    for eps in (1e-160, 1e-300, 5e-324):
        upper = theory.upper_bound(10_000, eps, 5, 2, 0.3)
        lower = theory.lower_bound(10_000, eps, 5, 2)
        assert np.isfinite(upper) and np.isfinite(lower) and upper > 1e60 and lower > 1e60
    # in logs, the formula itself: (log n / (n eps^2))^e
    e = theory.upper_rate_exponent(5, 2, 0.3)
    expected = np.exp(e * (np.log(np.log(1e4)) - np.log(1e4) - 2 * np.log(1e-300)))
    np.testing.assert_allclose(theory.upper_bound(1e4, 1e-300, 5, 2, 0.3), expected)
    assert theory.upper_bound(1e4, np.inf, 5, 2, 0.3) == 0.0
    assert theory.lower_bound(1e4, np.inf, 5, 2) == 1e4 ** (-2 / 7)
    with pytest.raises(ValueError, match=r"p=10000 gives t\* .* use p <= 62"):
        theory.optimal_t(1e4, 2, 1)
    with pytest.raises(ValueError, match=r"p_max must be in \[1, 62\]"):
        theory.select_s_p(np.ones((10, 3)), 10, 1.0, p_max=10**9)


def test_ldp_ols_stays_finite_for_a_huge_public_radius():
    rng = np.random.default_rng(0)
    Z = rng.uniform(-1, 1, (200, 2))
    y = np.clip(Z @ [0.3, 0.2], -1, 1)
    small = ldp_ols(Z, y, 1.0, radius=1e10, random_state=0).coef
    huge = ldp_ols(Z, y, 1.0, radius=1e300, random_state=0).coef
    assert np.all(np.isfinite(huge))
    np.testing.assert_allclose(huge / 1e300, small / 1e10, rtol=1e-3)  # the same direction
    np.testing.assert_allclose(np.linalg.norm(huge / 1e300), 1.0, rtol=1e-9)  # on the sphere


# ----------------------------------------------------------------------------------------------
# Privacy meaning said at run time
# ----------------------------------------------------------------------------------------------
def test_lpdt_says_all_zero_rows_are_public_and_labeldt_that_w_is_ignored():
    W = np.zeros(X.shape, dtype=int)
    W[:100] = 1
    with pytest.warns(PrivacyWarning, match="200 rows whose mask W is all zero as public "
                                            "data: their features and raw labels"):
        LPDT(y_bound=M, random_state=0).fit(X, Y, W=W)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        LPDT(y_bound=M, random_state=0).fit(X, Y, W=np.ones(X.shape))  # no public row: quiet
        LabelDT(y_bound=M, random_state=0).fit(X, Y)
        LabelDT(y_bound=M, random_state=0).fit(X, Y, W=np.zeros(X.shape))  # nothing protected
    with pytest.warns(PrivacyWarning, match="ignores W: the 500 entries W marks as protected"):
        LabelDT(y_bound=M, random_state=0).fit(X, Y, W=W)
    with pytest.warns(PrivacyWarning, match="ignores W"):
        LabelDT(y_bound=M, random_state=0).privatize(X, Y, W=W)


# ----------------------------------------------------------------------------------------------
# The privacy mask
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("W", "match"), [
    ([[2, -1], [np.nan, 0]], r"3 entries are not, the first at \(0, 0\): 2\.0"),
    ([["0", "1"], ["1", "0"]], "strings do not count as protected"),
    ([[0.5, 1], [1, 0]], r"the first at \(0, 0\): 0\.5"),
])
def test_masks_refuse_anything_but_zero_and_one(W, match):
    with pytest.raises(ValueError, match=match):
        check_mask(W, (2, 2))
    with pytest.raises(TypeError, match="sparse"):
        check_mask(sparse.csr_matrix(np.eye(2)), (2, 2))
    assert check_mask([[True, 0], [1.0, False]], (2, 2)).tolist() == [[True, False],
                                                                      [True, False]]


ESTIMATORS = REGRESSORS + CLASSIFIERS
NAMES = ["age", "bmi", "bp", "s1", "s2"]


def _fit_with_mask(model, X_, W):
    model = clone(model)
    if getattr(model, "private_features", None) is not None:
        model.set_params(private_features=None)  # W instead
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        return model.fit(X_, LABELS if hasattr(model, "classes") else Y, W)


@pytest.mark.parametrize("model", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_a_dataframe_mask_must_name_the_columns_of_x_in_order(model):
    frame = pd.DataFrame(X, columns=NAMES)
    W = pd.DataFrame(np.zeros(X.shape, dtype=bool), columns=NAMES)
    W["age"] = True
    _fit_with_mask(model, frame, W)
    _fit_with_mask(model, frame, W.to_numpy())  # an array is read by position
    _fit_with_mask(model, X, pd.DataFrame(W.to_numpy()))  # default labels 0..d-1: positions
    # reordered columns used to protect s2 instead of age, without a word
    with pytest.raises(ValueError, match=r"W's columns must be X's columns in X's order, "
                                         r"\['age', 'bmi', 'bp', 's1', 's2'\], got \['s2'"):
        _fit_with_mask(model, frame, W[NAMES[::-1]])
    with pytest.raises(ValueError, match="W's columns must be X's columns"):
        _fit_with_mask(model, frame, W.set_axis(list("vwxyz"), axis=1))
    with pytest.raises(ValueError, match="W's columns must be X's columns"):
        _fit_with_mask(model, frame, pd.DataFrame(W.to_numpy()))
    with pytest.raises(ValueError, match=r"W has column names .* but X has none"):
        _fit_with_mask(model, X, W)


def test_a_dataframe_mask_protects_the_features_it_names():
    frame = pd.DataFrame(X, columns=NAMES)
    W = pd.DataFrame(np.zeros(X.shape, dtype=bool), columns=NAMES)
    W["age"] = True
    model = HistOfTree(epsilon=2, y_bound=M, random_state=0).fit(frame, Y, W)
    assert model.hist_axes_ == (0,)


@pytest.mark.parametrize("model", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_duplicate_column_names_are_refused_naming_them(model):
    names = ["age", "age", "bp", "s1", "s1"]
    with pytest.raises(ValueError, match=r"X has duplicate column names \['age', 's1'\]"):
        _fit(model, pd.DataFrame(X, columns=names))  # used to fail in pandas' truth value
    W = pd.DataFrame(np.ones(X.shape, dtype=bool), columns=names)
    with pytest.raises(ValueError, match=r"W has duplicate column names \['age', 's1'\]"):
        _fit_with_mask(model, pd.DataFrame(X, columns=NAMES), W)


# ----------------------------------------------------------------------------------------------
# private_features by name
# ----------------------------------------------------------------------------------------------
WITH_PRIVATE = [m for m in REGRESSORS + CLASSIFIERS if "private_features" in m.get_params()]


@pytest.mark.parametrize("model", WITH_PRIVATE, ids=_ids(WITH_PRIVATE))
def test_private_features_may_name_a_dataframe_s_columns(model):
    frame = pd.DataFrame(X, columns=["age", "income", "bmi", "score", "zip"])
    params = {"private_features": [2, 0], "random_state": 0}
    if "s" in model.get_params():
        params["s"] = None  # private_features decides
    by_index = _fit(clone(model).set_params(**params), frame)
    by_name = _fit(clone(model).set_params(**{**params, "private_features": ["bmi", "age"]}),
                   frame)
    np.testing.assert_array_equal(by_name.predict(frame), by_index.predict(frame))
    named = clone(model).set_params(**{**params, "private_features": ["bmi", "weight"]})
    with pytest.raises(ValueError, match=r"private_features names \['weight'\], which X does "
                                         r"not have; its columns are \['age', 'income'"):
        _fit(named, frame)
    with pytest.raises(ValueError, match="X has no column names: pass X as a DataFrame"):
        _fit(clone(named), X)
    with pytest.raises(ValueError, match="list of column indices"):
        _fit(clone(model).set_params(**{**params, "private_features": ["bmi", 0]}), frame)


# ----------------------------------------------------------------------------------------------
# Dates, durations and other data numpy would read as numbers
# ----------------------------------------------------------------------------------------------
DATES = "holds dates \\(datetime64\\[s\\]\\)"
DURATIONS = "holds durations \\(timedelta64\\[s\\]\\)"


@pytest.mark.parametrize("model", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_dates_and_durations_are_refused_not_read_as_seconds(model):
    """y.astype("datetime64[s]") used to fit all 8 regressors on seconds since 1970."""
    labels = LABELS if hasattr(model, "classes") else Y
    with pytest.raises(TypeError, match=rf"^y {DATES}"):
        _fit(model, X, labels.astype("datetime64[s]"))
    with pytest.raises(TypeError, match=rf"^y {DURATIONS}"):
        _fit(model, X, labels.astype("timedelta64[s]"))
    # features that are dates within [0, 1] s of 1970 passed the box check
    with pytest.raises(TypeError, match=rf"^X {DATES}: numpy would read them as counts of "
                                        r"their unit since 1970-01-01.*np\.timedelta64\(1, 'D'\)"):
        _fit(model, np.zeros(X.shape).astype("datetime64[s]"))
    with pytest.raises(TypeError, match=rf"^X {DURATIONS}: .*convert them to numbers in a "
                                        "unit you choose"):
        _fit(model, X.astype("timedelta64[s]"))
    frame = pd.DataFrame(X, columns=NAMES).assign(bp=pd.to_datetime(X[:, 2], unit="s"))
    with pytest.raises(TypeError, match=r"^X column 'bp' holds dates \(datetime64\[ns\]\)"):
        _fit(model, frame)
    stamps = X.astype(object)
    stamps[2, 1] = pd.Timestamp(0)
    with pytest.raises(TypeError, match=r"^X holds dates \(the entry at row, column 2, 1 is "
                                        r"Timestamp\('1970-01-01 00:00:00'\)\)"):
        _fit(model, stamps)
    with pytest.raises(TypeError, match=r"^W holds durations \(timedelta64\[s\]\); the mask "
                                        r"holds 0/1 or True/False \(1 = protected\)\.$"):
        _fit_with_mask(model, X, np.ones(X.shape).astype("timedelta64[s]"))


@pytest.mark.parametrize("model", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_masked_sparse_and_record_data_are_refused_naming_the_argument(model):
    masked = np.ma.masked_array(X, mask=np.zeros(X.shape, dtype=bool))
    _fit(model, masked)  # nothing masked: the values are the data
    masked[4, 1] = np.ma.masked  # used to fit on the value under the mask
    with pytest.raises(ValueError, match=r"^X is a masked array with 1 masked entries \(the "
                                         r"first at \(4, 1\)\)"):
        _fit(model, masked)
    with pytest.raises(TypeError, match=r"^X column 'age' holds pandas sparse values"):
        _fit(model, pd.DataFrame(X, columns=NAMES).astype({"age": pd.SparseDtype(float, 0.0)}))
    records = np.zeros(len(X), dtype=[("a", float), ("b", float)])
    with pytest.raises(TypeError, match=r"^X is a structured \(record\) array"):
        _fit(model, records)
    for container in ({"a": X}, {1, 2}, (row for row in X)):
        with pytest.raises(TypeError, match=r"^X must be an array \(a numpy array, a "
                                            r"DataFrame or a list of rows\), got a"):
            _fit(model, container)
    with pytest.raises(TypeError, match=r"^X is None; pass an array of numbers\.$"):
        _fit(model, None)


@pytest.mark.parametrize("model", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_masks_of_numbers_in_objects_are_read_and_others_named(model):
    """A mask of 0/1 objects (pandas' nullable columns give them) was refused as strings."""
    W = np.zeros(X.shape, dtype=object)
    W[:, 0] = True
    _fit_with_mask(model, X, W)
    W[3, 2] = None
    with pytest.raises(ValueError, match=r"^W has a missing entry \(None\) at row, column 3, 2"):
        _fit_with_mask(model, X, W)
    W[3, 2] = "1"
    with pytest.raises(ValueError, match="the entry at row, column 3, 2 is '1'; strings do not "
                                         "count as protected"):
        _fit_with_mask(model, X, W)
    ragged = [[0] * X.shape[1] for _ in range(len(X))]
    ragged[5] = [0]
    with pytest.raises(ValueError, match=r"^W must be a 0/1 array of shape \(300, 5\)"):
        _fit_with_mask(model, X, ragged)


# ----------------------------------------------------------------------------------------------
# Numbers too large for a float, shares too small to simulate, bounds too wide
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_integers_beyond_the_floats_are_refused_by_name(model):
    """epsilon=2**1100 raised a bare OverflowError ("int too large to convert to float")."""
    params = model.get_params()
    for param in ("epsilon", "y_bound", "rho", "zeta", "c"):
        if param not in params:
            continue
        with pytest.raises(ValueError, match=rf"^{param}\b.*an integer of 332 digits") as info:
            _fit(clone(model).set_params(**{param: 2**1100}), X)
        assert len(str(info.value)) < 300  # not the 332 digits
    for param in ("min_samples_leaf", "max_depth", "depth", "t"):
        if param in params:
            with pytest.raises(ValueError, match=rf"^{param} must be .*, got an integer of 332 "
                                                 r"digits\.$"):
                _fit(clone(model).set_params(**{param: -(2**1100)}), X)


def test_advice_for_budgets_and_bounds_is_advice_that_works():
    """y_bound=1e308 advised "use epsilon >= inf"; rho=1e-320 named only epsilon."""
    with pytest.raises(ValueError, match=r"^y_bound=1e\+308 is above 1e\+70.* so that "
                                         r"y_bound <= 1e\+70\.$"):
        _fit(HistOfTree(s=2, y_bound=1e308), X)
    huge = HistOfTree(s=2, y_bound=1e70, epsilon=np.inf)
    assert np.all(np.isfinite(_fit(huge, X, Y * 1e69).predict(X)))
    with pytest.raises(ValueError, match=r"label noise scale .* so that y_bound <= 2\.5e\+59 "
                                         r"\(or epsilon >= 4e-10\)\.$"):
        _fit(HistOfTree(s=2, y_bound=1e60, epsilon=1e-10), X)
    _fit(HistOfTree(s=2, y_bound=2.5e59, epsilon=1e-10), X)  # the bound advised fits
    _fit(HistOfTree(s=2, y_bound=1e60, epsilon=4e-10), X)  # and so does the budget
    with pytest.raises(ValueError, match=r"\(rho=1e-320\).*use rho in \[1e-12, 1 - 1e-12\]\.$"):
        _fit(Hist(y_bound=M, rho=1e-320), X)
    _fit(Hist(y_bound=M, rho=1e-12), X)
    from ldpviz._validation import check_real
    with pytest.raises(ValueError, match=r"test_size must be finite, in \(0, 1\), got "
                                         "an integer of 332 digits"):
        check_real(2**1100, "test_size", 0, 1, low_open=True, high_open=True)


# ----------------------------------------------------------------------------------------------
# The what-if's arguments of the wrong type (AttributeError, OverflowError before)
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"grids": [1, 2]}, TypeError, r"^grids must be a dict \{method: \{parameter: values\}\}, "
                                   r"e\.g\. \{'hot': \{'depth': \[1, 2, 4\]\}\}.*got \[1, 2\]"),
    ({"grids": "hot"}, TypeError, "^grids must be a dict"),
    ({"provenance": "x"}, TypeError, r"^provenance must be a dict .* got 'x'"),
    ({"provenance": {"feature_bounds_read_off_data": 3}}, TypeError,
     r"^provenance\['feature_bounds_read_off_data'\] must name the columns"),
    ({"name": 3}, TypeError, "^name must be a string"),
    ({"target_name": [1]}, TypeError, "^target_name must be a string"),
    ({"feature_names": 3}, ValueError, "^feature_names must be a list of names"),
    ({"epsilons": 2**1100}, ValueError, r"^epsilons must be finite and at most 1000 .* got an "
                                        "integer of 332 digits"),
    ({"test_size": 2**1100}, ValueError, r"^test_size must be finite, in \(0, 1\)"),
    ({"y_range": (0, 2**1100)}, ValueError, r"^y_range must be finite with lo < hi"),
    ({"y": Y[:60].astype("datetime64[s]")}, TypeError, r"^y holds dates \(datetime64\[s\]\)"),
    ({"private": ["target"]}, ValueError, r"^private names 'target', the target: the label is "
                                          "always private"),
    ({"private": 3.5}, TypeError, r"^private must be a list of column names or indices, got "
                                  r"3\.5\.$"),  # was "'float' object is not iterable"
    ({"personalized": {"x1"}}, TypeError, r"^personalized must be a list of column names"),
    ({"methods": 3}, TypeError, r"^methods must be a list of keys, e\.g\. \['hot-me', "
                                r"'hot-cart'\], or None \(all of them\), got 3\.$"),
    ({"methods": {"pardt": 1}}, TypeError, r"^methods must be a list of keys"),
])
def test_whatif_refuses_arguments_of_the_wrong_kind_by_name(kwargs, error, match):
    from ldpviz.reproduce.whatif import whatif

    args = {"private": [0], "reps": 2, "y_range": (-4, 4), "target_name": "target", **kwargs}
    y = args.pop("y", Y[:60])
    with pytest.raises(error, match=match):
        whatif(X[:60], y, **args)


@pytest.mark.parametrize("model", CLASSIFIERS, ids=_ids(CLASSIFIERS))
def test_labels_outside_the_classes_are_counted_not_all_listed(model):
    """Continuous labels given to a classifier were all listed: a message of 200 numbers."""
    with pytest.raises(ValueError, match=r"^y has labels outside classes: 300 values, e\.g\. "
                                         r"-?\d\.\d+, .*\(classes are \[0, 1\]\)\.$") as info:
        _fit(clone(model), X, Y)
    assert len(str(info.value)) < 300
    with pytest.raises(ValueError, match=r"outside classes: \[77\] \(classes are 50 values from "
                                         r"0 to 49\)"):
        _fit(clone(model).set_params(classes=list(range(50))), X, np.r_[LABELS[:-1], 77])


@pytest.mark.parametrize(("value", "error", "match"), [
    (None, TypeError, r"^X is None"),
    (3.5, ValueError, r"^X must be 2-D"),  # was numpy's IndexError "too many indices"
    ([0.1, 0.2, 0.3, 0.4, 0.5], ValueError, r"^X must be 2-D"),
    (np.zeros((4, 3)), ValueError, r"^X needs at least 5 columns .*got shape \(4, 3\)"),
    (2**1100, ValueError, r"^X "),  # was a bare OverflowError
    ({}, TypeError, r"^X "),
])
def test_the_paper_regression_function_names_x(value, error, match):
    from ldpviz.datasets import paper_regression_function

    with pytest.raises(error, match=match):
        paper_regression_function(value)
    np.testing.assert_allclose(paper_regression_function(X[:3]),
                               np.sin(X[:3, 0]) + np.sin(X[:3, 1]) + np.sin(X[:3, 4]))


@pytest.mark.parametrize("exact", [np.array([1, 2]), "yes", 1, None])
def test_random_mask_exact_is_true_or_false(exact):
    """An array gave numpy's "truth value of an array ... is ambiguous"; "no" meant True."""
    from ldpviz.masks import random_mask

    with pytest.raises(TypeError, match=r"^exact must be True or False"):
        random_mask(10, 3, 0.5, random_state=0, exact=exact)


@pytest.mark.parametrize("d", [5, 1024, 2000])
def test_the_whatif_grids_take_a_table_of_a_thousand_columns(d):
    """Hist's grid compared float(t) ** d with n / 2: an OverflowError from 1,024 columns on."""
    from ldpviz.reproduce.grids import whatif_grids

    hist = whatif_grids(300, d, 2, personalized=True)["hist"]
    ts = sorted({t for grid in hist.subgrids for t in grid["t"]})
    assert ts == ([1, 2] if d == 5 else [1])  # t^d <= 150 cells
    assert d == 5 or any("only t = 1" in note for note in hist.notes)
