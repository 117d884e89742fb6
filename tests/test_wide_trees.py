"""Wide tables of few users grow the same public tree on the cheap paths (issue 32).

A tree level counts its statistics per (axis, node, state). The dense paths fill tables of
nodes x 3^5 joint codes (max-edge) or nodes x 257 bins (CART); with a deep tree over few users
most entries are empty, and AdHistOfTree's depth search on 300 users and 2,000 features took
minutes. The cheap paths (per axis for max-edge, the occupied triples for CART) must grow the
same tree: CART bit for bit, max-edge with the same splits (its sums are added in another
order).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldpviz import _tree_growth
from ldpviz.partition import grow_tree


@st.composite
def wide_problems(draw):
    """(X, labels, W, depth, min_samples_leaf): ties in X and in the labels on purpose."""
    n = draw(st.integers(2, 60))
    k = draw(st.integers(1, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    levels = draw(st.sampled_from([2, 5, 256, 0]))  # 0: continuous
    X = rng.random((n, k)) if levels == 0 else rng.integers(0, levels, (n, k)) / levels
    columns = draw(st.integers(1, 3))
    y = rng.normal(0, 3, (n, columns))
    if draw(st.booleans()):
        y = np.round(y)  # equal gains across axes: the tie rule decides
    labels = y[:, 0] if columns == 1 else y
    W = rng.random((n, k)) < draw(st.sampled_from([0.0, 0.2, 0.6]))
    return X, labels, W, draw(st.integers(0, 8)), draw(st.integers(0, 3))


def _grow(monkeypatch, problem, rule, cheap):
    X, labels, W, depth, leaf = problem
    monkeypatch.setattr(_tree_growth, "joint_is_wasteful", lambda *a: cheap)
    monkeypatch.setattr(_tree_growth, "bins_outnumber_users", lambda *a: cheap)
    return grow_tree(X, labels, W, list(range(X.shape[1])), depth, rule, leaf)


def _fields(tree):
    return {name: getattr(tree, name) for name in ("feature", "threshold", "left", "right",
                                                   "leaf_count", "leaf_label_mean")}


@settings(max_examples=60, deadline=None, derandomize=True)
@given(problem=wide_problems(), rule=st.sampled_from(["max-edge", "cart"]))
def test_the_cheap_paths_grow_the_same_tree(problem, rule):
    with pytest.MonkeyPatch.context() as monkeypatch:
        dense = _fields(_grow(monkeypatch, problem, rule, cheap=False))
        cheap = _fields(_grow(monkeypatch, problem, rule, cheap=True))
    for name, value in dense.items():
        np.testing.assert_array_equal(cheap[name], value, err_msg=name)


def test_the_axis_scan_keeps_the_first_of_equal_gains():
    """Axis 0 and 2 tie within tol: the first stays; axis 3 beats it by more than tol."""
    gain = np.array([[1.0, 5.0], [0.5, -np.inf], [1.0 + 1e-12, 5.0], [1.1, 4.0]])
    tol = np.array([1e-9, 1e-9])
    np.testing.assert_array_equal(_tree_growth._best_axes(gain, tol), [3, 0])
    assert list(_tree_growth._best_axes(np.full((3, 2), -np.inf), tol)) == [-1, -1]


def test_cart_running_sums_add_one_bin_at_a_time_as_cumsum_does():
    rng = np.random.default_rng(0)
    stats = rng.normal(size=(50, 3)) * 10.0 ** rng.integers(-8, 8, (50, 1))
    size = np.array([1, 7, 20, 2, 20])
    start = np.r_[0, np.cumsum(size)[:-1]]
    out = _tree_growth._running_sums(stats, start, size)
    for first, length in zip(start, size, strict=True):
        np.testing.assert_array_equal(out[first:first + length],
                                      np.cumsum(stats[first:first + length], axis=0))
