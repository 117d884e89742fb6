"""Model selection under LDP: the released losses are epsilon-LDP, the budget adds up, the
server's averages are unbiased, and the split over users has the variance it claims."""

import itertools

import numpy as np
import pytest
from sklearn.tree import DecisionTreeRegressor

import ldpviz
from ldpviz import HistOfTree
from ldpviz.model_selection import (
    PrivateModelSelection,
    assign_candidates,
    clipped_losses,
    max_loss,
    mean_noise_std,
    release_log_density,
    release_losses,
    report_epsilon,
    select_candidate,
    select_model,
)

M = 3.0
B = max_loss(M)  # (2M)^2 = 36
EPSILONS = [0.5, 1.0, 2.0, 4.0]


@pytest.fixture(scope="module")
def fitted_candidates():
    """Three published candidates: HistOfTree fits of different depths (predictions in
    [-M, M]), on users who take no part in the validation below."""
    rng = np.random.default_rng(7)
    X = rng.random((3000, 3))
    y = np.sin(3 * X[:, 0]) + X[:, 1] + rng.normal(size=3000)
    return [HistOfTree(epsilon=2.0, s=1, t=2, depth=p, rho=0.5, y_bound=M,
                       random_state=p).fit(X, y, W=np.zeros((3000, 3), bool) | [1, 0, 0])
            for p in (1, 2, 3)]


def _records(rng, count):
    """Random records (x, y), labels sometimes far outside [-M, M] (their loss is clipped)."""
    X = rng.random((count, 3))
    y = rng.normal(0, 2 * M, size=count)
    return X, y


def test_max_loss_is_the_largest_loss_in_the_box():
    grid = np.linspace(-M, M, 61)
    pred, label = np.meshgrid(grid, grid)
    assert max_loss(M) == pytest.approx(np.max((pred - label) ** 2)) == 36.0
    assert max_loss(M, "absolute") == pytest.approx(np.max(np.abs(pred - label))) == 6.0


# ---------------------------------------------------------------------------------------------
# The budget adds up to epsilon
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0, 4.0, 7.0])
@pytest.mark.parametrize("k", [2, 3, 7])
@pytest.mark.parametrize("split", ["users", "sequential"])
def test_every_validation_users_budget_adds_up_to_epsilon(epsilon, k, split):
    rng = np.random.default_rng(k)
    n = 50
    reports = release_losses(rng.normal(size=(n, k)), rng.normal(size=n), epsilon, B, split,
                             random_state=1)
    per_user = np.bincount(reports.user, minlength=n)
    spent = np.array([sum([reports.epsilon] * c) for c in per_user])
    assert spent == pytest.approx(np.full(n, epsilon), rel=1e-15, abs=0)
    assert reports.epsilon == report_epsilon(epsilon, k, split)
    if split == "users":
        assert np.all(per_user == 1)  # one value, all of epsilon
    else:  # one value about each candidate, epsilon / k each
        assert np.all(per_user == k)
        for i in range(n):
            assert sorted(reports.candidate[reports.user == i]) == list(range(k))


@pytest.mark.parametrize("split", ["users", "sequential"])
def test_every_user_of_the_protocol_spends_epsilon_once(split):
    rng = np.random.default_rng(3)
    n, epsilon = 2000, 2.0
    X, y = rng.random((n, 3)), rng.normal(size=n)
    W = rng.random((n, 3)) < 0.3
    candidates = [HistOfTree(epsilon=epsilon, s=1, t=2, depth=p, y_bound=M) for p in (1, 2, 3)]
    model = PrivateModelSelection(candidates, epsilon=epsilon, split=split,
                                  random_state=0).fit(X, y, W=W)
    assert model.epsilon_spent_ == pytest.approx(np.full(n, epsilon), rel=1e-15, abs=0)
    # each training user is in exactly one candidate's fit, and only that one
    sizes = np.bincount(model.group_[model.group_ >= 0], minlength=3)
    assert [len(m.y_tilde_) for m in model.estimators_] == list(sizes)
    assert sizes.sum() + np.sum(model.group_ == -1) == n
    assert np.sum(model.group_ == -1) == round(0.2 * n)
    assert model.loss_bound_ == B  # from the candidates' public y_bound


def test_candidates_with_another_epsilon_are_refused():
    candidates = [HistOfTree(epsilon=2.0, y_bound=M), HistOfTree(epsilon=4.0, y_bound=M)]
    X, y = np.random.default_rng(0).random((200, 2)), np.zeros(200)
    with pytest.raises(ValueError, match=r"candidates\[1\].epsilon = 4.0 differs"):
        PrivateModelSelection(candidates, epsilon=2.0).fit(X, y, W=np.ones((200, 2)))
    with pytest.raises(ValueError, match=r"candidates\[0\] \(DecisionTreeRegressor\) has no "
                                         "epsilon"):
        PrivateModelSelection([DecisionTreeRegressor(), HistOfTree(epsilon=2.0)],
                              epsilon=2.0).fit(X, y)


# ---------------------------------------------------------------------------------------------
# Exact likelihood ratio of two users' records
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_users_split_exact_ratio_is_at_most_e_eps(fitted_candidates, epsilon):
    rng = np.random.default_rng(11)
    X, y = _records(rng, 40)
    losses = clipped_losses(np.column_stack([m.predict(X) for m in fitted_candidates]), y, B)
    outputs = np.linspace(-2 * B, 3 * B, 4001)
    worst = -np.inf
    for a, b in itertools.combinations(range(len(y)), 2):
        for j in range(3):  # the public assignment: the same under both records
            ratio = (release_log_density(outputs, losses[a], epsilon, B, candidate=j)
                     - release_log_density(outputs, losses[b], epsilon, B, candidate=j))
            worst = max(worst, np.max(np.abs(ratio)))
    assert worst <= epsilon + 1e-12
    # Tight: a record predicted exactly and one as far off as the bound allows.
    x = X[:1]
    f = fitted_candidates[0].predict(x)[0]
    pair = clipped_losses(np.column_stack([m.predict(np.vstack([x, x])) for m in
                                           fitted_candidates]), [f, f + 2 * M], B)
    assert pair[0, 0] == 0 and pair[1, 0] == B
    ratio = (release_log_density(outputs, pair[0], epsilon, B, candidate=0)
             - release_log_density(outputs, pair[1], epsilon, B, candidate=0))
    assert np.max(ratio) == pytest.approx(epsilon, rel=1e-9)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_sequential_split_exact_ratio_is_at_most_e_eps(fitted_candidates, epsilon):
    """The density of the whole released vector (three values), on a 3-D grid of outputs."""
    rng = np.random.default_rng(12)
    X, y = _records(rng, 12)
    far = np.vstack([X[:1], X[:1]])  # one x: labels on the prediction and very far from it
    X = np.vstack([X, far])
    y = np.concatenate([y, [fitted_candidates[0].predict(X[:1])[0], 100.0]])
    losses = clipped_losses(np.column_stack([m.predict(X) for m in fitted_candidates]), y, B)
    axis = np.linspace(-B, 2 * B, 49)
    outputs = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), axis=-1).reshape(-1, 3)
    logs = np.array([release_log_density(outputs, row, epsilon, B, "sequential")
                     for row in losses])
    worst = np.max(logs[:, None, :] - logs[None, :, :])
    assert worst <= epsilon + 1e-12
    # Exact for each pair: sum_j |l_j - l'_j| eps / (k B), reached where every output lies
    # outside both losses (the grid's corners); the far pair reaches nearly all of epsilon.
    for a, b in itertools.combinations(range(len(y)), 2):
        exact = np.sum(np.abs(losses[a] - losses[b])) * epsilon / (3 * B)
        assert np.max(logs[a] - logs[b]) == pytest.approx(exact, rel=1e-9, abs=1e-12)
    assert np.all(losses[-1] == B) and np.max(logs[-2] - logs[-1]) > 0.95 * epsilon


def test_users_split_empirical_ratio(rng):
    """Audit: histograms of many releases of two records about the same candidate."""
    epsilon, n = 1.0, 400_000
    released = {}
    for name, label in (("a", 0.0), ("b", 100.0)):  # losses 0 and B for both candidates
        reports = release_losses(np.zeros((n, 2)), np.full(n, label), epsilon, B, "users",
                                 random_state=rng)
        released[name] = reports.value[reports.candidate == 0]
    edges = np.linspace(-4 * B / epsilon, B + 4 * B / epsilon, 25)
    ca, _ = np.histogram(released["a"], edges)
    cb, _ = np.histogram(released["b"], edges)
    ca, cb = ca / len(released["a"]), cb / len(released["b"])
    keep = (ca * len(released["a"]) > 2000) & (cb * len(released["b"]) > 2000)
    log_ratio = np.abs(np.log(ca[keep] / cb[keep]))
    se = np.sqrt(1 / (ca[keep] * len(released["a"])) + 1 / (cb[keep] * len(released["b"])))
    assert np.all(log_ratio <= epsilon + 5 * se)
    assert log_ratio.max() > 0.8 * epsilon  # the bound is nearly reached, not vacuous


def test_sequential_split_empirical_ratio(rng):
    """Audit of the joint release of two values (k = 2, eps / 2 each) on a 2-D histogram."""
    epsilon, n = 2.0, 400_000
    counts = {}
    edges = np.linspace(-3 * B, 4 * B, 8)
    for name, label in (("a", 0.0), ("b", 100.0)):
        reports = release_losses(np.zeros((n, 2)), np.full(n, label), epsilon, B,
                                 "sequential", random_state=rng)
        pairs = reports.value.reshape(n, 2)
        counts[name], _, _ = np.histogram2d(pairs[:, 0], pairs[:, 1], [edges, edges])
    ca, cb = counts["a"].ravel(), counts["b"].ravel()
    keep = (ca > 2000) & (cb > 2000)
    log_ratio = np.abs(np.log(ca[keep] / cb[keep]))
    se = np.sqrt(1 / ca[keep] + 1 / cb[keep])
    assert np.all(log_ratio <= epsilon + 5 * se)
    assert log_ratio.max() > 0.8 * epsilon


def test_the_assignment_is_public_randomness():
    """The same seed gives the same assignment whatever the data; it is balanced."""
    rng = np.random.default_rng(0)
    pred = rng.normal(size=(101, 4))
    a = release_losses(pred, rng.normal(size=101), 1.0, B, random_state=5)
    b = release_losses(pred * 3, rng.normal(size=101) + 9, 1.0, B, random_state=5)
    assert np.array_equal(a.candidate, b.candidate)
    assert np.array_equal(a.candidate, assign_candidates(101, 4, random_state=5))
    assert sorted(np.bincount(a.candidate)) == [25, 25, 25, 26]


# ---------------------------------------------------------------------------------------------
# The server's estimate: unbiased, with the variance the split promises
# ---------------------------------------------------------------------------------------------
def _validation_set(rng, n=300, k=3):
    pred = rng.uniform(-M, M, size=(n, k)) * np.array([0.2, 0.6, 1.0])[:k]
    y = rng.normal(0, 1.5, size=n)
    return pred, y, clipped_losses(pred, y, B)


@pytest.mark.parametrize("split", ["users", "sequential"])
def test_mean_released_loss_is_unbiased_and_has_the_stated_variance(split):
    """Over many releases of the same users: the mean released loss of each candidate
    averages to the candidate's mean clipped loss over the users it is about, and its variance
    is that of the Laplace noise, k (2 B^2 / eps^2) / n_v ("users", given the assignment's
    balance) or 2 k^2 B^2 / eps^2 / n_v ("sequential")."""
    rng = np.random.default_rng(21)
    pred, y, losses = _validation_set(rng)
    epsilon, reps = 2.0, 3000
    means = np.empty((reps, 3))
    truth = np.empty((reps, 3))
    for r in range(reps):
        reports = release_losses(pred, y, epsilon, B, split, random_state=rng)
        means[r] = select_candidate(reports).mean_loss
        clean = losses[reports.user, reports.candidate]
        truth[r] = np.bincount(reports.candidate, clean, 3) / np.bincount(reports.candidate,
                                                                          minlength=3)
    noise = means - truth
    noise_sd = mean_noise_std(epsilon, B, 3, len(y), split)
    assert np.all(np.abs(noise.mean(axis=0)) < 5 * noise_sd / np.sqrt(reps))
    assert noise.std(axis=0) == pytest.approx(np.full(3, noise_sd), rel=0.08)
    if split == "sequential":  # every user reports every candidate: the truth is fixed
        assert np.allclose(truth, losses.mean(axis=0))


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0])
def test_split_over_users_has_less_variance_below_sqrt_8k(epsilon):
    """Total variance of each candidate's mean (the users' spread and the noise), measured:
    "users" is below "sequential" whenever eps < sqrt(8k), and about k times below where
    the noise dominates."""
    rng = np.random.default_rng(int(epsilon * 10))
    k, reps = 3, 2000
    pred, y, _ = _validation_set(rng, n=240, k=k)
    assert epsilon < np.sqrt(8 * k)
    var = {}
    for split in ("users", "sequential"):
        means = np.array([select_candidate(release_losses(pred, y, epsilon, B, split,
                                                          random_state=rng)).mean_loss
                          for _ in range(reps)])
        var[split] = means.var(axis=0)
    assert np.all(var["users"] < var["sequential"])
    if epsilon <= 1.0:
        assert np.all(var["sequential"] / var["users"] > 0.85 * k)


def test_the_smallest_mean_wins_and_infinite_epsilon_releases_the_losses():
    rng = np.random.default_rng(4)
    pred, y, losses = _validation_set(rng, n=400)
    reports = release_losses(pred, y, np.inf, B, "sequential", random_state=0)
    assert np.array_equal(reports.value, losses.ravel())
    assert select_candidate(reports).best == int(np.argmin(losses.mean(axis=0)))
    # With noise, the clear winner (candidate 0 predicts near 0, the labels' centre) is found
    # by 4,000 users (the gap to the next is about 2.4 noise standard deviations).
    pred, y, losses = _validation_set(rng, n=4000)
    picks = [select_candidate(release_losses(pred, y, 4.0, B, random_state=s)).best
             for s in range(40)]
    assert np.mean(np.array(picks) == np.argmin(losses.mean(axis=0))) > 0.9


def test_select_model_scores_published_candidates(fitted_candidates):
    rng = np.random.default_rng(8)
    X = rng.random((3000, 3))
    y = np.sin(3 * X[:, 0]) + X[:, 1] + rng.normal(size=3000)
    exact = select_model(fitted_candidates, X, y, np.inf, B, "sequential")
    errors = [np.mean(np.minimum((m.predict(X) - y) ** 2, B)) for m in fitted_candidates]
    assert exact.best == int(np.argmin(errors))
    assert exact.mean_loss == pytest.approx(errors, rel=1e-12)
    noisy = select_model(fitted_candidates, X, y, 2.0, B, random_state=3)
    assert noisy.n_reports.sum() == 3000 and noisy.epsilon == 2.0
    table = noisy.frame(["p = 1", "p = 2", "p = 3"])
    assert table["chosen"].sum() == 1 and list(table.index) == ["p = 1", "p = 2", "p = 3"]


def test_the_protocol_predicts_with_the_chosen_candidate_and_is_reproducible():
    rng = np.random.default_rng(5)
    X, y = rng.random((3000, 3)), rng.normal(size=3000)
    candidates = [HistOfTree(epsilon=4.0, s=1, depth=p, y_bound=M) for p in (0, 3)]
    a = PrivateModelSelection(candidates, epsilon=4.0, random_state=1).fit(X, y, W=None)
    b = PrivateModelSelection(candidates, epsilon=4.0, random_state=1).fit(X, y)
    assert np.array_equal(a.predict(X), a.best_estimator_.predict(X))
    assert np.array_equal(a.predict(X), b.predict(X))
    assert np.array_equal(a.reports_.value, b.reports_.value)
    assert a.best_estimator_ is a.estimators_[a.best_index_]


# ---------------------------------------------------------------------------------------------
# Input checks and the resource guard
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [0, -1.0, np.nan, "2", None, True])
def test_bad_epsilon_is_refused(bad):
    with pytest.raises(ValueError, match="epsilon"):
        release_losses(np.zeros((4, 2)), np.zeros(4), bad, B)


@pytest.mark.parametrize("bad", [0, -36.0, np.nan, np.inf, "36", None])
def test_bad_loss_bound_is_refused(bad):
    with pytest.raises(ValueError, match="loss_bound"):
        release_losses(np.zeros((4, 2)), np.zeros(4), 1.0, bad)


def test_bad_arguments_are_named():
    pred, y = np.zeros((4, 2)), np.zeros(4)
    with pytest.raises(ValueError, match="split must be one of"):
        release_losses(pred, y, 1.0, B, split="parallel")
    with pytest.raises(ValueError, match="loss must be one of"):
        release_losses(pred, y, 1.0, B, loss="hinge")
    with pytest.raises(ValueError, match="predictions contains 4 NaN"):
        release_losses(np.array([[0.0, np.nan]] * 4), y, 1.0, B)
    with pytest.raises(ValueError, match="y has 3 entries but X has 4 rows"):
        release_losses(pred, y[:3], 1.0, B)
    with pytest.raises(ValueError, match="at least one validation user per candidate"):
        release_losses(np.zeros((2, 3)), np.zeros(2), 1.0, B)
    with pytest.raises(ValueError, match="public candidate"):
        release_log_density(1.0, [0.0, 1.0], 1.0, B)
    with pytest.raises(ValueError, match="epsilon per report"):
        release_losses(np.zeros((4, 2)), np.zeros(4), 1e-13, B, "sequential")


def test_protocol_arguments_are_named():
    X, y = np.random.default_rng(0).random((100, 2)), np.zeros(100)
    two = [HistOfTree(epsilon=1.0, y_bound=M, s=1), HistOfTree(epsilon=1.0, y_bound=M, s=1)]
    with pytest.raises(ValueError, match="at least two estimators"):
        PrivateModelSelection(two[:1]).fit(X, y)
    with pytest.raises(ValueError, match="candidates must be a list"):
        PrivateModelSelection("HistOfTree").fit(X, y)
    with pytest.raises(ValueError, match=r"validation_size=0.01 gives 1 validation .* use "
                                         r"validation_size in \[0.02, 0.98\]"):
        PrivateModelSelection(two, validation_size=0.01).fit(X, y)
    with pytest.raises(ValueError, match="validation_size must be in"):
        PrivateModelSelection(two, validation_size=1.0).fit(X, y)
    no_bound = [HistOfTree(epsilon=1.0, s=1), HistOfTree(epsilon=1.0, s=1)]
    with pytest.raises(ValueError, match="loss_bound is None and the candidates do not share"):
        PrivateModelSelection(no_bound).fit(X, y)
    with pytest.raises(ValueError, match="W must have shape"):
        PrivateModelSelection(two).fit(X, y, W=np.zeros((5, 2)))


def test_too_many_entries_are_refused_before_allocating():
    message = (r"release_losses with 10 candidates with validation users=10000 would need "
               r"4,800,000 bytes .* use at most 2,184 validation users")
    with ldpviz.config_context(max_bytes=1 << 20), pytest.raises(ValueError, match=message):
        release_losses(np.zeros((10_000, 10)), np.zeros(10_000), 1.0, B)
