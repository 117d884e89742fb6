"""The histogram x tree partition: geometry, Algorithm 1, W-awareness, potential cells."""

import numpy as np
import pytest

from ldpviz.partition import Histogram, build_partition, grow_tree


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
