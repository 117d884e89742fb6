"""Classification: HistOfTreeClassifier (GRR labels) and the rule of 002 (HistClassifier)."""

import itertools
import warnings

import numpy as np
import pytest
from _bad_data import DEFECTS, with_defect
from sklearn.base import clone, is_classifier
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

import ldpviz.classification as classification
from ldpviz import PrivacyWarning
from ldpviz.classification import HistClassifier, HistOfTreeClassifier
from ldpviz.datasets import make_paper_regression, paper_regression_function
from ldpviz.masks import aligned_mask, gamma_mask
from ldpviz.mechanisms import cell_reports, grr_probabilities
from ldpviz.partition import Histogram


def make_two_class(n, seed):
    """X ~ U[0,1]^3; P(Y = 1 | x) = 0.9 above the diagonal x0 + x1 = 1, else 0.1."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    p = np.where(X[:, 0] + X[:, 1] > 1, 0.9, 0.1)
    return X, (rng.random(n) < p).astype(int)


@pytest.fixture(scope="module")
def data():
    X, y = make_two_class(3000, 0)
    X_test, y_test = make_two_class(3000, 1)
    return X, y, X_test, y_test


def _accuracy(make_model, n, reps, X_test, y_test):
    acc = []
    for rep in range(reps):
        X, y = make_two_class(n, 10 + rep)
        model = make_model(rep).fit(X, y)
        acc.append(np.mean(model.predict(X_test) == y_test))
    return np.mean(acc), np.std(acc, ddof=1) / np.sqrt(reps)


def _assert_increasing(means, ses):
    for (m0, s0), (m1, s1) in itertools.pairwise(zip(means, ses, strict=True)):
        assert m1 > m0 + np.hypot(s0, s1), (means, ses)


# ---------------------------------------------------------------------------------------------
# Accuracy rises with epsilon and with n
# ---------------------------------------------------------------------------------------------
def test_histoftree_classifier_accuracy_rises_with_epsilon_and_n(data):
    *_, X_test, y_test = data

    def model(eps):
        return lambda rep: HistOfTreeClassifier(epsilon=eps, s=1, t=2, depth=2, rule="cart",
                                                classes=[0, 1], random_state=rep)

    by_eps = [_accuracy(model(eps), 10_000, 6, X_test, y_test) for eps in (0.5, 1.0, 4.0)]
    _assert_increasing(*zip(*by_eps, strict=True))
    by_n = [_accuracy(model(1.0), n, 6, X_test, y_test) for n in (1000, 10_000, 100_000)]
    _assert_increasing(*zip(*by_n, strict=True))
    bayes = np.mean((X_test[:, 0] + X_test[:, 1] > 1) == y_test)
    assert by_n[-1][0] > bayes - 0.15  # t = 2 on the private axis: a coarse but useful rule


def test_hist_classifier_accuracy_rises_with_epsilon_and_n(data):
    *_, X_test, y_test = data

    def model(eps):
        return lambda rep: HistClassifier(epsilon=eps, t=4, classes=[0, 1], random_state=rep)

    by_eps = [_accuracy(model(eps), 10_000, 6, X_test, y_test) for eps in (1.0, 2.0, 8.0)]
    _assert_increasing(*zip(*by_eps, strict=True))
    by_n = [_accuracy(model(2.0), n, 6, X_test, y_test) for n in (1000, 10_000, 100_000)]
    _assert_increasing(*zip(*by_n, strict=True))


# ---------------------------------------------------------------------------------------------
# Privacy
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("epsilon", "rho", "K"), [(1.0, 0.5, 2), (3.0, 0.7, 4)])
def test_histoftree_classifier_exact_and_empirical_privacy(epsilon, rho, K):
    n = 60_000
    rng = np.random.default_rng(0)
    X_pub = rng.random((n, 3))
    y_pub = rng.integers(0, K, n)
    W = aligned_mask(n, 3, 1)
    model = HistOfTreeClassifier(epsilon=epsilon, rho=rho, s=1, t=2, depth=1,
                                 classes=list(range(K)), random_state=0).fit(X_pub, y_pub, W)
    assert model.epsilon_label_ + model.epsilon_cells_ == pytest.approx(epsilon)
    # Two records: same public features, different private feature (other histogram bin)
    # and different class. Label report (GRR, rho eps) and cell report (GRR over V_i,
    # (1 - rho) eps) are independent given the record.
    x_a, x_b = np.array([0.1, 0.3, 0.6]), np.array([0.9, 0.3, 0.6])
    y_a, y_b = 0, K - 1
    Xa, Xb = np.tile(x_a, (n, 1)), np.tile(x_b, (n, 1))
    lab_a = model.set_params(random_state=1).fit(Xa, np.full(n, y_a), W).y_reported_
    lab_b = model.set_params(random_state=2).fit(Xb, np.full(n, y_b), W).y_reported_
    model.set_params(random_state=0).fit(X_pub, y_pub, W)  # the partition the records face
    part = model.partition_
    cells_a = cell_reports(part, Xa, W, model.epsilon_cells_, "grr", rng).reported
    cells_b = cell_reports(part, Xb, W, model.epsilon_cells_, "grr", rng).reported
    H, T = part.potential(x_a[None], W[:1])
    potential = np.flatnonzero((H[:, :, None] & T[:, None, :]).ravel())
    assert len(potential) == 2  # the private axis has 2 bins, the public leaf is known
    true_a, true_b = part.cell_index(np.vstack([x_a, x_b]))
    assert true_a != true_b
    q_true, q_other = grr_probabilities(K, model.epsilon_label_)
    c_true, c_other = grr_probabilities(len(potential), model.epsilon_cells_)
    outcomes = list(itertools.product(range(K), potential))
    p_a = np.array([(q_true if y == y_a else q_other) * (c_true if c == true_a else c_other)
                    for y, c in outcomes])
    p_b = np.array([(q_true if y == y_b else q_other) * (c_true if c == true_b else c_other)
                    for y, c in outcomes])
    assert p_a.sum() == pytest.approx(1) and p_b.sum() == pytest.approx(1)
    freq_a = np.array([np.mean((lab_a == y) & (cells_a == c)) for y, c in outcomes])
    freq_b = np.array([np.mean((lab_b == y) & (cells_b == c)) for y, c in outcomes])
    for f, p in ((freq_a, p_a), (freq_b, p_b)):
        assert np.all(np.abs(f - p) < 5 * np.sqrt(p * (1 - p) / n))
    worst = np.max(np.log(p_a / p_b))
    assert worst <= epsilon + 1e-12
    assert worst == pytest.approx(epsilon)  # tight: both parts at their extremes
    keep = (freq_a * n > 500) & (freq_b * n > 500)
    se = np.sqrt(1 / (freq_a[keep] * n) + 1 / (freq_b[keep] * n))
    assert np.all(np.abs(np.log(freq_a[keep] / freq_b[keep])) <= epsilon + 5 * se)


def test_each_label_is_reported_once(monkeypatch, data):
    X, y, *_ = data
    calls = []
    real = classification.grr

    def counting(values, k, epsilon, rng):
        calls.append(len(values))
        return real(values, k, epsilon, rng)

    monkeypatch.setattr(classification, "grr", counting)
    HistOfTreeClassifier(epsilon=1, s=1, classes=[0, 1], random_state=0).fit(X, y)
    assert calls == [len(X)]


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_hist_classifier_exact_and_empirical_privacy(epsilon):
    n = 100_000
    model = HistClassifier(epsilon=epsilon, t=2, classes=[-1, 1])
    x_a, x_b = np.array([[0.1, 0.2]]), np.array([[0.8, 0.9]])  # cells 0 and 3
    z_a = model.set_params(random_state=1).privatize(np.repeat(x_a, n, 0), np.full(n, 1))
    z_b = model.set_params(random_state=2).privatize(np.repeat(x_b, n, 0), np.full(n, -1))
    assert z_a.shape == (n, 4)
    b = 2 / epsilon
    mean_a, mean_b = np.array([1.0, 0, 0, 0]), np.array([0, 0, 0, -1.0])

    def tail(c, mu):
        z = (c - mu) / b
        return np.where(z >= 0, 0.5 * np.exp(-np.abs(z)), 1 - 0.5 * np.exp(-np.abs(z)))

    for c0, c3 in itertools.product([-1.0, 0.5, 2.0], [-2.0, 0.0, 1.0]):
        for z, mu in ((z_a, mean_a), (z_b, mean_b)):
            p = tail(c0, mu[0]) * tail(c3, mu[3])
            f = np.mean((z[:, 0] > c0) & (z[:, 3] > c3))
            assert abs(f - p) < 5 * np.sqrt(p * (1 - p) / n)
        p_a = tail(c0, mean_a[0]) * tail(c3, mean_a[3])
        p_b = tail(c0, mean_b[0]) * tail(c3, mean_b[3])
        assert max(p_a / p_b, p_b / p_a) <= np.exp(epsilon) * (1 + 1e-12)
    # Exact density ratio: l1 distance of the means is 2, so the worst case is eps, attained.
    outputs = np.random.default_rng(0).normal(0, 4 * b, (5000, 4))
    log_a = -np.abs(outputs - mean_a).sum(1) / b
    log_b = -np.abs(outputs - mean_b).sum(1) / b
    assert np.max(log_a - log_b) <= epsilon + 1e-9
    far = np.array([[10 * b, 0, 0, 10 * b]])
    assert (-np.abs(far - mean_a).sum() + np.abs(far - mean_b).sum()) / b == pytest.approx(
        epsilon)


def test_hist_classifier_noise_modes_agree(data):
    X, y, *_ = data
    X, y = X[:200, :2], y[:200]
    sums = {}
    for noise in ("aggregate", "per-user"):
        sums[noise] = np.array([
            HistClassifier(epsilon=1.0, t=2, classes=[0, 1], noise=noise,
                           random_state=r + 7919 * (noise == "per-user")).fit(X, y).cell_sums_
            for r in range(800)])
    cell = Histogram((0, 1), 2).cell_index(X)
    truth = np.bincount(cell, weights=2.0 * y - 1, minlength=4)
    var = 2 * len(X) * 2.0**2  # n Laplace(2 / eps) draws per cell
    for s in sums.values():
        assert np.all(np.abs(s.mean(0) - truth) < 5 * np.sqrt(var / 800))
        assert np.all(np.abs(s.var(0, ddof=1) - var) < 5 * var * np.sqrt(2 / 800))


# ---------------------------------------------------------------------------------------------
# Correctness without noise, probabilities, label sets
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mechanism", ["grr", "rr"])
def test_without_noise_the_scores_are_class_counts(data, mechanism):
    X, y, *_ = data
    y3 = np.where(X[:, 2] > 0.7, 2, y)
    W = gamma_mask(len(X), 3, 1.0)
    model = HistOfTreeClassifier(epsilon=np.inf, s=1, t=2, depth=2, mechanism=mechanism,
                                 classes=[0, 1, 2], random_state=0).fit(X, y3, W)
    cell = model.partition_.cell_index(X)
    counts = np.stack([np.bincount(cell[y3 == c], minlength=model.n_cells_)
                       for c in range(3)], axis=1)
    assert np.allclose(model.cell_scores_, counts)
    assert np.allclose(model.cell_denominator_, counts.sum(1))
    occupied = counts.sum(1) > 0
    assert np.array_equal(model.cell_proba_.argmax(1)[occupied], counts.argmax(1)[occupied])
    hist = HistClassifier(epsilon=np.inf, t=2, classes=[0, 1, 2]).fit(X, y3)
    grid = Histogram((0, 1, 2), 2).cell_index(X)
    counts = np.stack([np.bincount(grid[y3 == c], minlength=8) for c in range(3)], axis=1)
    assert np.allclose(hist.cell_sums_, counts)


def test_predict_proba_and_classes_follow_scikit_learn(data):
    X, y, X_test, _ = data
    labels = np.array(["no", "yes"])[y]
    model = HistOfTreeClassifier(epsilon=0.5, s=1, t=3, depth=3, classes=["yes", "no"],
                                 random_state=0).fit(X, labels)
    assert list(model.classes_) == ["no", "yes"]
    proba = model.predict_proba(X_test)
    assert proba.shape == (len(X_test), 2)
    assert np.all(proba >= 0) and np.allclose(proba.sum(1), 1)
    assert np.array_equal(model.predict(X_test), model.classes_[proba.argmax(1)])
    assert set(model.predict(X_test)) <= {"no", "yes"}
    assert is_classifier(model) and is_classifier(HistClassifier())
    hist = HistClassifier(epsilon=1, classes=["yes", "no"], random_state=0).fit(X, labels)
    assert set(hist.predict(X_test)) <= {"no", "yes"}


@pytest.mark.parametrize("fallback", ["leaf", "prior"])
def test_fallback_fills_cells_with_no_positive_score(data, fallback):
    X, y, *_ = data
    model = HistOfTreeClassifier(epsilon=0.2, s=2, t=4, depth=3, fallback=fallback,
                                 cell_estimate="paper", classes=[0, 1],
                                 random_state=3).fit(X[:500], y[:500])
    empty = np.clip(model.cell_scores_, 0, None).sum(1) == 0
    assert empty.any()  # small epsilon and many cells: some cells have no positive score
    assert np.allclose(model.cell_proba_.sum(1), 1) and np.all(model.cell_proba_ >= 0)
    # Debiased one-hot labels add up to 1, so the class scores add up to the cell count.
    assert np.allclose(model.cell_scores_.sum(1), model.cell_denominator_)
    ok = ~empty
    scores = np.clip(model.cell_scores_[ok], 0, None)
    assert np.allclose(model.cell_proba_[ok], scores / scores.sum(1, keepdims=True))
    if fallback == "prior":
        assert np.allclose(model.cell_proba_[empty], model.cell_proba_[empty][0])
    else:
        leaf_mean = model.partition_.tree.leaf_label_mean
        leaf = np.flatnonzero(empty) % model.partition_.n_leaves
        expected = np.clip(leaf_mean[leaf], 0, None)
        usable = np.isfinite(expected).all(1) & (expected.sum(1) > 0)
        assert usable.any()
        expected = expected[usable] / expected[usable].sum(1, keepdims=True)
        assert np.allclose(model.cell_proba_[empty][usable], expected)


def test_label_set_is_a_public_choice(data):
    X, y, *_ = data
    with pytest.warns(PrivacyWarning, match="classes"):
        HistOfTreeClassifier(epsilon=1, s=1, random_state=0).fit(X, y)
    with pytest.warns(PrivacyWarning, match="classes"):
        HistClassifier(epsilon=1, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        HistOfTreeClassifier(epsilon=1, s=1, classes=[0, 1], random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="outside classes"):
        HistOfTreeClassifier(epsilon=1, s=1, classes=[0, 2]).fit(X, y)
    with pytest.raises(ValueError, match="two classes"):
        HistClassifier(epsilon=1, classes=[1]).fit(X, np.ones(len(X), dtype=int))


@pytest.mark.parametrize("cls", [HistClassifier, HistOfTreeClassifier])
@pytest.mark.parametrize(("classes", "match"), [
    ([None, 1, 2], r"^classes contains missing values \(None or NaN\)"),  # was "'<' not
    ([np.nan, 1, 2], r"^classes contains NaN"),                        # supported"
    ([{}, {1: 2}], r"^classes must hold numbers or strings"),
    ([], r"^classes must list at least two classes, got 0: \[\]"),  # was "got 1 class: []"
    ([1], r"^classes must list at least two classes, got 1: \[1\]"),
])
def test_a_bad_label_set_is_refused_naming_classes(cls, classes, match):
    X, y = make_two_class(60, 0)
    with pytest.raises(ValueError, match=match):
        cls(classes=classes, **({"s": 1} if cls is HistOfTreeClassifier else {})).fit(X, y)


@pytest.mark.parametrize("cls", [HistClassifier, HistOfTreeClassifier])
@pytest.mark.parametrize(("classes", "error", "match"), [
    ({0, 1}, TypeError, r"^classes is a set, which has no order; .* classes=\[0, 1\]"),
    (frozenset({1, 0}), TypeError, r"^classes is a set, which has no order"),
    ("ab", TypeError, r"^classes must be a list of labels, not a string: got 'ab'"),
    (b"ab", TypeError, r"^classes must be a list of labels, not a string"),
    (1, ValueError, r"^classes must be a 1-D list of distinct labels, got 1\."),
    ({0: "a", 1: "b"}, ValueError, r"^classes must be a 1-D list of distinct labels"),
])
def test_a_label_set_of_the_wrong_kind_is_refused_naming_classes(cls, classes, error, match):
    X, y = make_two_class(60, 0)  # a set used to give "iteration over a 0-d array"
    with pytest.raises(error, match=match):
        cls(classes=classes, **({"s": 1} if cls is HistOfTreeClassifier else {})).fit(X, y)


# ---------------------------------------------------------------------------------------------
# Input checks and scikit-learn conventions
# ---------------------------------------------------------------------------------------------
BASE = {
    HistOfTreeClassifier: dict(epsilon=1.0, s=1, classes=[0, 1], random_state=0),
    HistClassifier: dict(epsilon=1.0, classes=[0, 1], random_state=0),
}
BAD_INPUTS = [
    ("epsilon", dict(epsilon=0), {}),
    ("epsilon", dict(epsilon=-2.0), {}),
    ("rho", dict(rho=1.0), {}),
    ("rho", dict(rho=0), {}),
    ("t", dict(t=0), {}),
    ("depth", dict(depth=-1), {}),
    ("s", dict(s=4), {}),
    ("rule", dict(rule="gini"), {}),
    ("mechanism", dict(mechanism="laplace"), {}),
    ("noise", dict(noise="central"), {}),
    ("classes", dict(classes=[0, 0, 1]), {}),
]
BAD_INPUTS += [(argument, {}, (argument, defect)) for argument, defect in DEFECTS]
CASES = [pytest.param(cls, name, params, corrupt, id=f"{cls.__name__}-{name}-{i}")
         for cls in BASE for i, (name, params, corrupt) in enumerate(BAD_INPUTS)
         if set(params) <= set(cls().get_params())]


@pytest.mark.parametrize(("cls", "name", "params", "corrupt"), CASES)
def test_bad_input_gets_a_clear_error(data, cls, name, params, corrupt):
    X, y, *_ = data
    X, y = X[:200].copy(), y[:200].astype(float)
    W = aligned_mask(200, 3, 1).astype(int)
    if corrupt:
        X, y, W = with_defect(X, y, W, *corrupt)
    with pytest.raises(ValueError, match=name):
        cls(**{**BASE[cls], **params}).fit(X, y, W=W)


@pytest.mark.parametrize("cls", list(BASE))
def test_scikit_learn_conventions(data, cls):
    X, y, X_test, y_test = data
    model = cls(**BASE[cls])
    params = model.get_params()
    twin = clone(model).set_params(t=3)
    assert twin.t == 3 and model.t == params["t"]
    model.fit(X, y)
    assert model.n_features_in_ == 3
    assert 0 <= model.score(X_test, y_test) <= 1
    with pytest.raises(ValueError, match="features"):
        model.predict(X_test[:, :2])


@pytest.mark.parametrize("cls", list(BASE))
def test_pipeline_and_grid_search_pass_W_through(data, cls):
    X, y, *_ = data
    W = gamma_mask(len(X), 3, 1.0)
    perm = np.random.default_rng(0).permutation(len(X))
    X, y, W = X[perm], y[perm], W[perm]
    step = cls.__name__.lower()
    pipe = make_pipeline(FunctionTransformer(), cls(**BASE[cls]))
    pipe.fit(X, y, **{f"{step}__W": W})
    assert list(pipe.classes_) == [0, 1]
    search = GridSearchCV(cls(**BASE[cls]), {"t": [1, 2]}, cv=StratifiedKFold(3))
    search.fit(X, y, W=W)
    assert search.best_params_["t"] in (1, 2)
    assert np.all((search.cv_results_["mean_test_score"] >= 0)
                  & (search.cv_results_["mean_test_score"] <= 1))


# ---------------------------------------------------------------------------------------------
# The stable cell estimate (issue 17): accuracy never below eq (9) as printed
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("epsilon", "t", "depth", "sparse"),
                         [(1, 2, 0, False), (4, 2, 2, False), (1, 3, 4, True), (4, 4, 6, True)])
def test_the_stable_estimate_does_not_lower_accuracy(epsilon, t, depth, sparse):
    """Section 5.1 users, label 1{Y > 1.38}: test accuracy against the sign of f* - 1.38.

    Where every cell is well filled the two estimates predict nearly alike; with sparse cells
    (many cells at a small budget) eq (9) votes by noise and the stable estimate does not.
    """
    X_test, _ = make_paper_regression(4000, random_state=777)
    truth = paper_regression_function(X_test) > 1.38
    diff = []
    for rep in range(4):
        X, y = make_paper_regression(10_000, random_state=300 + rep)
        labels = (y > 1.38).astype(int)
        acc = [np.mean(HistOfTreeClassifier(epsilon=epsilon, s=2, t=t, depth=depth,
                                            classes=[0, 1], cell_estimate=estimate,
                                            random_state=rep).fit(X, labels).predict(X_test)
                       == truth) for estimate in ("stable", "paper")]
        diff.append(acc[0] - acc[1])
    se = np.std(diff, ddof=1) / np.sqrt(len(diff))
    assert np.mean(diff) > -3 * se - 0.01
    if sparse:
        assert np.mean(diff) > 0.05


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32])
def test_numpy_integer_parameters_fit_as_the_python_ints(dtype):
    """A small numpy depth is checked and used as a Python int (int8 overflowed before)."""
    X, y = make_two_class(300, 0)
    W = gamma_mask(300, X.shape[1], 1.0)
    for params in ({"depth": 2}, {"min_samples_leaf": 1}):
        plain = HistOfTreeClassifier(s=1, classes=[0, 1], random_state=0, **params).fit(X, y, W)
        small = HistOfTreeClassifier(s=1, classes=[0, 1], random_state=0,
                                     **{k: dtype(v) for k, v in params.items()}).fit(X, y, W)
        np.testing.assert_array_equal(small.cell_proba_, plain.cell_proba_)
