"""The histogram x tree partition: geometry, Algorithm 1, W-awareness, potential cells."""

import numpy as np
import pytest

from ldpviz.partition import Histogram, build_partition, grow_tree, reuse_trees


def _inside(x, lo, hi):
    return np.all((x >= lo) & ((x < hi) | (hi >= 1.0)), axis=-1)


def _data(rng, n=2000, d=4):
    X = rng.random((n, d))
    y = np.sin(4 * X[:, 1]) + 2 * (X[:, 2] > 0.6) + 0.1 * rng.standard_normal(n)
    return X, y


def test_histogram_cells_and_boxes(rng):
    X = rng.random((500, 3))
    X[:5] = [[0, 0, 0], [1, 1, 1], [0.5, 0.25, 1], [1 / 3, 2 / 3, 0.999], [0, 1, 0]]
    hist = Histogram(axes=(0, 2), t=3)
    lo, hi = hist.boxes()
    cells = hist.cell_index(X)
    assert hist.n_cells == 9 and lo.shape == (9, 2)
    assert np.all(_inside(X[:, [0, 2]], lo[cells], hi[cells]))
    assert np.prod(hi - lo, axis=1).sum() == pytest.approx(1.0)


def test_histogram_with_no_axes_is_one_cell(rng):
    hist = Histogram(axes=(), t=4)
    assert hist.n_cells == 1
    assert np.all(hist.cell_index(rng.random((10, 3))) == 0)


@pytest.mark.parametrize("depth", [0, 1, 2, 3, 5])
def test_max_edge_tree_is_full_and_splits_longest_edges_at_midpoints(rng, depth):
    X, y = _data(rng)
    W = np.zeros_like(X, dtype=bool)
    tree = grow_tree(X, y, W, axes=[1, 2, 3], depth=depth)
    assert tree.n_leaves == 2**depth
    assert tree.depth == depth
    lo, hi = tree.leaf_boxes()
    assert np.prod(hi - lo, axis=1).sum() == pytest.approx(1.0)
    for node in np.flatnonzero(tree.feature >= 0):
        a = list(tree.axes).index(tree.feature[node])
        edges = tree.hi[node] - tree.lo[node]
        assert edges[a] == pytest.approx(edges.max())  # a longest edge
        assert tree.threshold[node] == pytest.approx((tree.lo[node, a] + tree.hi[node, a]) / 2)
    leaves = tree.apply(X)
    assert np.all(_inside(X[:, tree.axes], lo[leaves], hi[leaves]))


def test_max_edge_picks_the_axis_with_the_largest_variance_reduction(rng):
    X, _ = _data(rng, n=5000)
    y = 3.0 * (X[:, 2] >= 0.5) + 0.1 * rng.standard_normal(len(X))
    tree = grow_tree(X, y, np.zeros_like(X, dtype=bool), axes=[1, 2, 3], depth=1)
    assert tree.feature[0] == 2 and tree.threshold[0] == 0.5


def test_cart_finds_an_off_center_step(rng):
    X, _ = _data(rng, n=5000)
    y = 2.0 * (X[:, 3] > 0.3) + 0.1 * rng.standard_normal(len(X))
    tree = grow_tree(X, y, np.zeros_like(X, dtype=bool), axes=[1, 2, 3], depth=1, rule="cart")
    assert tree.feature[0] == 3
    assert abs(tree.threshold[0] - 0.3) <= 1 / 256 + 1e-12


def test_cart_respects_min_samples_leaf(rng):
    X, y = _data(rng, n=300)
    tree = grow_tree(X, y, np.zeros_like(X, dtype=bool), axes=[1, 2], depth=6, rule="cart",
                     min_samples_leaf=40)
    counts = np.bincount(tree.apply(X), minlength=tree.n_leaves)
    assert counts.min() >= 40
    assert tree.n_leaves < 2**6


def test_tree_reads_only_published_coordinates(rng):
    """Changing a protected coordinate never changes the tree: it is built from public data."""
    X, y = _data(rng)
    W = rng.random(X.shape) < 0.4
    for rule in ("max-edge", "cart"):
        a = grow_tree(X, y, W, axes=[0, 1, 2, 3], depth=4, rule=rule)
        X2 = np.where(W, rng.random(X.shape), X)
        b = grow_tree(X2, y, W, axes=[0, 1, 2, 3], depth=4, rule=rule)
        assert np.array_equal(a.feature, b.feature)
        assert np.array_equal(a.threshold, b.threshold, equal_nan=True)
        assert np.allclose(a.leaf_label_mean, b.leaf_label_mean, equal_nan=True)


def test_users_protecting_the_split_axis_are_not_passed_down(rng):
    X, y = _data(rng, n=4000)
    W = np.zeros_like(X, dtype=bool)
    W[:1000, 2] = True  # these users hide axis 2
    y = 3.0 * (X[:, 2] >= 0.5)
    tree = grow_tree(X, y, W, axes=[2], depth=2)
    # only the 3000 users who publish axis 2 reach the leaves
    assert tree.leaf_count.sum() == 3000


def test_min_samples_leaf_refuses_small_children_max_edge(rng):
    X, y = _data(rng, n=200)
    tree = grow_tree(X, y, np.zeros_like(X, dtype=bool), axes=[1, 2], depth=8,
                     min_samples_leaf=10)
    counts = np.bincount(tree.apply(X), minlength=tree.n_leaves)
    assert counts.min() >= 10


def test_potential_cells_match_a_brute_force_definition(rng):
    """V_i = cells that some point agreeing with i's published coordinates falls in (Sec 3.3)."""
    X, y = _data(rng, n=800, d=4)
    W = rng.random(X.shape) < 0.5
    part = build_partition(X, y, W, hist_axes=(0, 3), t=3, depth=3)
    V = part.potential_cells(X[:60], W[:60])
    lo, hi = part.cell_boxes()
    for i in range(60):
        published = ~W[i]
        # the box intersects the affine set {x : x_l = X_il for published l}
        expect = np.all(~published | ((X[i] >= lo) & ((X[i] < hi) | (hi >= 1))), axis=1)
        assert np.array_equal(V[i], expect)
        assert V[i, part.cell_index(X[i:i + 1])[0]]


def test_aligned_potential_cells_are_all_histogram_cells_in_own_leaf(rng):
    X, y = _data(rng, n=500, d=4)
    W = np.zeros_like(X, dtype=bool)
    W[:, :2] = True
    part = build_partition(X, y, W, hist_axes=(0, 1), t=2, depth=2)
    H, T = part.potential(X, W)
    assert H.all()
    assert np.array_equal(T, np.eye(part.n_leaves, dtype=bool)[part.tree.apply(X)])


def test_cell_boxes_cover_the_cube_and_contain_their_points(rng):
    X, y = _data(rng, n=3000, d=4)
    part = build_partition(X, y, rng.random(X.shape) < 0.3, hist_axes=(1,), t=4, depth=3,
                           rule="cart")
    lo, hi = part.cell_boxes()
    assert np.prod(hi - lo, axis=1).sum() == pytest.approx(1.0)
    cells = part.cell_index(X)
    assert np.all(_inside(X, lo[cells], hi[cells]))


@pytest.mark.parametrize("hist_axes", [(), (0, 1, 2)])
def test_corner_cases_s_zero_and_s_equals_d(rng, hist_axes):
    X, y = _data(rng, n=500, d=3)
    part = build_partition(X, y, np.zeros_like(X, dtype=bool), hist_axes, t=2, depth=3)
    if hist_axes:  # s = d: a pure private histogram, the tree is one leaf
        assert part.n_leaves == 1 and part.n_cells == 8
    else:  # s = 0: label LDP, the tree does all the work
        assert part.histogram.n_cells == 1 and part.n_cells == 8
    lo, hi = part.cell_boxes()
    assert np.prod(hi - lo, axis=1).sum() == pytest.approx(1.0)
    means, counts = part.cell_means(X, y)
    cells = part.cell_index(X)
    for j in range(part.n_cells):
        if counts[j]:
            assert means[j] == pytest.approx(y[cells == j].mean())
        else:
            assert np.isnan(means[j])


@pytest.mark.parametrize("axes", [(), (2,), (0, 2, 3)])
def test_factored_histogram_potential_agrees_with_the_explicit_matrix(rng, axes):
    X = rng.random((400, 4))
    W = rng.random(X.shape) < 0.5
    hist = Histogram(axes=axes, t=3)
    H = hist.potential(X, W)
    own = hist.cell_index(X)
    assert np.array_equal(hist.potential_size(W), H.sum(1))
    cum = np.cumsum(H, axis=1)
    assert np.array_equal(hist.potential_rank(X, W), cum[np.arange(len(X)), own] - 1)
    nth = (rng.random(len(X)) * H.sum(1)).astype(int)
    assert np.array_equal(hist.potential_nth(X, W, nth), np.argmax(cum > nth[:, None], axis=1))
    weights = rng.standard_normal((len(X), 5))
    assert np.allclose(hist.potential_sum(X, W, weights), H.T.astype(float) @ weights)


def test_split_and_cell_tables_describe_the_partition(rng):
    X, y = _data(rng, n=1000, d=3)
    part = build_partition(X, y, np.zeros_like(X, dtype=bool), hist_axes=(0,), t=2, depth=2)
    splits = part.tree.split_table()
    assert len(splits) == 3 and list(splits.depth) == [0, 1, 1]
    assert set(splits.feature) <= {1, 2}
    assert sorted(set(splits.left_leaf) | set(splits.right_leaf)) == [-1, 0, 1, 2, 3]
    cells = part.cell_table(X, y)
    assert len(cells) == part.n_cells and cells["count"].sum() == len(X)
    means, _ = part.cell_means(X, y)
    assert np.allclose(cells["mean"], means, equal_nan=True)
    lo, hi = part.cell_boxes()
    assert np.array_equal(cells[["lo_0", "lo_1", "lo_2"]].to_numpy(), lo)
    assert np.array_equal(cells[["hi_0", "hi_1", "hi_2"]].to_numpy(), hi)


# ----------------------------------------------------------------------------------------------
# The level-wise tree against a plain per-node reference
# ----------------------------------------------------------------------------------------------
def _plain_sse(y):
    """Sum of squared deviations from the mean (two passes), per cut if ``y`` is masked."""
    return float(((y - y.mean(axis=0)) ** 2).sum()) if len(y) else 0.0


def _plain_tree(X, y, W, axes, depth, rule, min_samples_leaf=0):
    """Algorithm 1 / CART grown node by node, written for clarity, not speed.

    At each node and each axis (in order), the users who publish it score every admissible
    cut (max-edge: the midpoint, if the edge is a longest one; CART: k / 256, the first best
    one); an axis replaces the best so far only if it gains more than 1e-9 times the mean
    square label at the node, so ties go to the lowest feature index. Users hiding the split
    axis stop there. Returns feature, threshold, left, right, leaf_count, leaf means.
    """
    y = y[:, None] if y.ndim == 1 else y
    min_child = max(min_samples_leaf, 1 if rule == "cart" else 0)
    nodes = [{"users": np.arange(len(X)), "lo": np.zeros(len(axes)), "hi": np.ones(len(axes))}]
    feature, threshold, left, right = [-1], [np.nan], [-1], [-1]
    frontier = [0] if len(axes) else []
    for _ in range(depth):
        next_frontier = []
        for node in frontier:
            users, lo, hi = nodes[node]["users"], nodes[node]["lo"], nodes[node]["hi"]
            seen = [users[~W[users, a]] for a in axes]
            tie = 1e-9 * max([float((y[s] ** 2).sum(axis=1).mean()) for s in seen if len(s)]
                             + [0.0]) + 1e-15
            best_gain, best = -np.inf, None
            for j, a in enumerate(axes):
                x, yy = X[seen[j], a], y[seen[j]]
                if rule == "max-edge":
                    longest = hi[j] - lo[j] == np.max(hi - lo)
                    cuts = [(lo[j] + hi[j]) / 2] if longest else []
                else:
                    cuts = np.arange(1, 256) / 256
                axis_best = None
                for cut in cuts:
                    upper = x >= cut
                    if min(upper.sum(), (~upper).sum()) < min_child:
                        continue
                    gain = (_plain_sse(yy) - _plain_sse(yy[~upper]) - _plain_sse(yy[upper])) \
                        / len(yy) if len(yy) else 0.0
                    if axis_best is None or gain > axis_best[0]:
                        axis_best = (gain, cut)
                if axis_best is not None and axis_best[0] > best_gain + tie:
                    best_gain, best = axis_best[0], (j, axis_best[1])
            if best is None:
                continue
            j, cut = best
            feature[node], threshold[node] = axes[j], cut
            for side in (0, 1):
                box_lo, box_hi = lo.copy(), hi.copy()
                (box_hi if side == 0 else box_lo)[j] = cut
                kept = seen[j][(X[seen[j], axes[j]] >= cut) == side]
                nodes.append({"users": kept, "lo": box_lo, "hi": box_hi})
                feature.append(-1)
                threshold.append(np.nan)
                left.append(-1)
                right.append(-1)
                next_frontier.append(len(nodes) - 1)
            left[node], right[node] = len(nodes) - 2, len(nodes) - 1
        frontier = next_frontier
    leaves = [nodes[i]["users"] for i in range(len(nodes)) if feature[i] < 0]
    means = np.array([y[u].mean(axis=0) if len(u) else np.full(y.shape[1], np.nan)
                      for u in leaves])
    return (np.array(feature), np.array(threshold), np.array(left), np.array(right),
            np.array([len(u) for u in leaves], dtype=float), means)


def _random_case(rng, n, d):
    X = rng.random((n, d))
    X[:, -1] = np.round(X[:, -1] * 6) / 6  # a discrete feature: many empty bins, 0 and 1
    y = np.sin(5 * X[:, 0]) + 2 * (X[:, 1] > 0.4) + rng.standard_normal(n)
    return X, y


@pytest.mark.parametrize("rule", ["max-edge", "cart"])
@pytest.mark.parametrize("min_samples_leaf", [0, 1, 15])
@pytest.mark.parametrize("hidden", [0.0, 0.4])
def test_tree_equals_a_plain_per_node_reference(rng, rule, min_samples_leaf, hidden):
    """The level-wise growth is a faster way to the same tree: structure, thresholds, means."""
    for case in range(3):
        n, d = (300, 4) if rule == "cart" else (700, 5)
        X, y = _random_case(rng, n, d)
        W = rng.random(X.shape) < hidden
        axes = [0, 1, 2, 3, 4][:d] if case == 0 else [1, 3, d - 1]
        depth = 4 if rule == "cart" else 6
        if case == 2:  # two label columns, as the classifier's debiased one-hot labels
            y = np.column_stack([y, rng.standard_normal(n)])
        tree = grow_tree(X, y, W, axes, depth, rule, min_samples_leaf)
        feature, threshold, left, right, count, means = _plain_tree(
            X, y, W, axes, depth, rule, min_samples_leaf)
        assert np.array_equal(tree.feature, feature)
        assert np.array_equal(tree.threshold, threshold, equal_nan=True)
        assert np.array_equal(tree.left, left) and np.array_equal(tree.right, right)
        assert np.array_equal(tree.leaf_count, count)
        assert np.allclose(tree.leaf_label_mean, means.reshape(tree.leaf_label_mean.shape),
                           rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("rule", ["max-edge", "cart"])
def test_ties_between_axes_go_to_the_lowest_feature_index(rng, rule):
    """Two copies of a feature split a node identically: the first copy wins the tie."""
    X, _ = _data(rng, n=400, d=4)
    X[:, 3] = X[:, 1]
    y = 3.0 * (X[:, 1] >= 0.5) + rng.standard_normal(len(X))
    tree = grow_tree(X, y, np.zeros(X.shape, dtype=bool), [1, 2, 3], depth=5, rule=rule)
    assert tree.feature[0] == 1
    if rule == "cart":  # every node sees the two copies alike
        assert 3 not in set(tree.feature)


@pytest.mark.parametrize("rule", ["max-edge", "cart"])
def test_ties_up_to_rounding_go_to_the_lowest_feature_index(rng, rule):
    """Deep trees on few users with large (very noisy) labels: nodes of two or three users
    split alike on several axes, whose gains then differ only by the order of summation."""
    for _ in range(5):
        X, y = _random_case(rng, 80, 4)
        y = 40 * y
        W = rng.random(X.shape) < 0.2
        tree = grow_tree(X, y, W, [0, 1, 2, 3], 6, rule)
        feature, threshold, *_ = _plain_tree(X, y, W, [0, 1, 2, 3], 6, rule)
        assert np.array_equal(tree.feature, feature)
        assert np.array_equal(tree.threshold, threshold, equal_nan=True)


def test_very_small_boxes_follow_the_midpoint_rule(rng):
    """Boxes narrower than 2^-50 (only from points that close together) still split exactly."""
    X = np.column_stack([2.0 ** -np.arange(1, 71), rng.random(70)])
    y = rng.standard_normal(len(X))
    W = np.zeros(X.shape, dtype=bool)
    tree = grow_tree(X, y, W, [0], depth=70, min_samples_leaf=1)
    feature, threshold, *_ = _plain_tree(X, y, W, [0], 70, "max-edge", 1)
    assert tree.depth > 60
    assert np.array_equal(tree.feature, feature)
    assert np.array_equal(tree.threshold, threshold, equal_nan=True)
    assert np.array_equal(tree.apply(X), tree._descend(X))


@pytest.mark.parametrize("rule", ["max-edge", "cart"])
def test_grid_lookup_agrees_with_walking_down_the_tree(rng, rule):
    X, y = _random_case(rng, 3000, 4)
    W = rng.random(X.shape) < 0.3
    tree = grow_tree(X, y, W, [0, 1, 3], depth=6, rule=rule)
    assert tree._grid is not None
    # points on every threshold, on the faces 0 and 1, and just below each threshold
    internal = np.flatnonzero(tree.feature >= 0)
    probe = rng.random((3 * len(internal), 4))
    rows = np.arange(len(internal))
    probe[rows, tree.feature[internal]] = tree.threshold[internal]
    probe[rows + len(internal), tree.feature[internal]] = np.nextafter(
        tree.threshold[internal], 0)
    probe[2 * len(internal):] = rng.integers(0, 2, (len(internal), 4))
    points = np.vstack([X, probe])
    assert np.array_equal(tree.apply(points), tree._descend(points))
    Wp = rng.random(points.shape) < 0.4
    T = tree.potential(points, Wp)
    lo, hi = tree.leaf_boxes()
    x = points[:, tree.axes][:, None, :]
    inside = (x >= lo) & ((x < hi) | (hi >= 1.0)) | Wp[:, tree.axes][:, None, :]
    assert np.array_equal(T, inside.all(axis=2))


def test_trees_with_other_thresholds_are_walked_down(rng):
    """A tree built by hand with a non-dyadic threshold has no grid; lookups still work."""
    tree = grow_tree(rng.random((50, 2)), rng.random(50), np.zeros((50, 2), dtype=bool), [0, 1],
                     depth=1)
    threshold = tree.threshold.copy()
    threshold[0] = 0.3
    hi = tree.hi.copy()
    lo = tree.lo.copy()
    a = list(tree.axes).index(tree.feature[0])
    hi[1, a] = lo[2, a] = 0.3
    odd = type(tree)(**{**vars(tree), "threshold": threshold, "lo": lo, "hi": hi})
    assert odd._grid is None
    X = rng.random((200, 2))
    X[:5, tree.feature[0]] = 0.3
    assert np.array_equal(odd.apply(X), (X[:, tree.feature[0]] >= 0.3).astype(int))
    W = rng.random(X.shape) < 0.5
    T = odd.potential(X, W)
    assert np.array_equal(T[:, 1], W[:, tree.feature[0]] | (X[:, tree.feature[0]] >= 0.3))


def _same_tree(a, b):
    return all(np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True) and
               getattr(a, f).dtype == getattr(b, f).dtype
               for f in ("axes", "feature", "threshold", "left", "right", "lo", "hi", "leaf_id",
                         "leaf_count", "leaf_label_mean"))


@pytest.mark.parametrize("rule", ["max-edge", "cart"])
def test_reused_trees_are_the_trees_grown_at_each_depth(rng, rule):
    """Inside reuse_trees, a tree cut from a deeper growth equals the tree of that depth."""
    X, y = _random_case(rng, 1500, 4)
    W = rng.random(X.shape) < 0.3
    y2 = y + rng.standard_normal(len(y))
    requests = [(y, 1, 0), (y, 2, 0), (y, 6, 0), (y, 1, 0), (y, 4, 0), (y2, 3, 0), (y, 6, 0),
                (y2, 0, 0), (y, 5, 20), (y, 2, 20), (y2, 6, 0)]
    with reuse_trees() as memo:
        reused = [grow_tree(X, labels, W, [0, 1, 3], depth, rule, msl)
                  for labels, depth, msl in requests]
    assert len(memo._kept) == 5  # y grown at depths 1, 2, 6; y2 once; min_samples_leaf 20 once
    for tree, (labels, depth, msl) in zip(reused, requests, strict=True):
        assert _same_tree(tree, grow_tree(X, labels, W, [0, 1, 3], depth, rule, msl))
        assert tree.depth <= depth


@pytest.mark.parametrize("rule", ["max-edge", "cart"])
@pytest.mark.parametrize("grid", [True, False])
def test_factored_tree_potential_agrees_with_the_explicit_matrix(rng, rule, grid):
    """Sizes, ranks, n-th leaves and sums over the potential leaves T_i, and the sums over
    V_i = H_i x T_i, from groups of users, equal those read off the (n, cells) matrices."""
    X, y = _random_case(rng, 2000, 4)
    W = rng.random(X.shape) < 0.4
    part = build_partition(X, y, W, hist_axes=(2,), t=3, depth=5, rule=rule)
    tree = part.tree
    if not grid:  # the same tree without its grid: the generic (n, n_leaves) path
        object.__setattr__(tree, "_grid", None)
    T = tree.potential(X, W)
    own = tree.apply(X)
    cum = np.cumsum(T, axis=1)
    assert np.array_equal(tree.potential_size(X, W), T.sum(axis=1))
    assert np.array_equal(tree.potential_rank(X, W, own), cum[np.arange(len(X)), own] - 1)
    nth = (rng.random(len(X)) * T.sum(axis=1)).astype(int)
    assert np.array_equal(tree.potential_nth(X, W, nth), np.argmax(cum > nth[:, None], axis=1))
    weights = rng.standard_normal((len(X), 3))
    assert np.allclose(tree.potential_sum(X, W, weights), T.T @ weights)
    V = part.potential_cells(X, W)
    assert np.allclose(part.potential_sum(X, W, weights), V.T.astype(float) @ weights)
    assert np.allclose(part.potential_sum(X, W, weights[:, 0]), V.T @ weights[:, :1])


def test_hiding_patterns_group_users_for_any_number_of_axes():
    from ldpviz._tree_grid import hiding_patterns

    rng = np.random.default_rng(0)
    for k in (3, 62, 63, 100):
        hidden = rng.random((50, k)) < 0.02
        hidden[:10] = False  # a shared pattern
        groups = hiding_patterns(hidden)
        rows = np.concatenate([np.arange(50) if r is None else r for _, r in groups])
        assert sorted(rows) == list(range(50))  # every user in exactly one group
        codes = [c for c, _ in groups]
        assert codes == sorted(codes)
        for code, r in groups:
            members = np.arange(50) if r is None else r
            bits = [(code >> j) & 1 for j in range(k)]
            assert (hidden[members] == np.array(bits, dtype=bool)).all()


def test_a_tree_on_a_hundred_public_axes_finds_leaves_and_potential_sets():
    rng = np.random.default_rng(1)
    n, d = 400, 100
    X = rng.random((n, d))
    y = X[:, 0] + X[:, 50] + rng.normal(scale=0.1, size=n)
    W = rng.random((n, d)) < 0.01
    for rule in ("max-edge", "cart"):
        part = build_partition(X, y, W, (), 1, 3, rule)
        leaves = part.tree.apply(X)
        assert leaves.min() >= 0 and leaves.max() < part.n_leaves
        T = part.tree.potential(X, W)
        assert T[np.arange(n), leaves].all()  # a user's own leaf is always potential
