"""The what-if analysis: grids that adapt to any table, the answer in numbers and words, the
per-column costs, the public choices, and a self-contained report."""

import dataclasses
import functools
import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from _whatif_tables import TARGET, Y_RANGE, assert_self_contained, make_table

from ldpviz import PrivacyWarning
from ldpviz.reproduce import grids as G
from ldpviz.reproduce import whatif_answers, whatif_data, whatif_report
from ldpviz.reproduce.whatif import METHODS, YARDSTICK, DecadeMask, whatif, whatif_summary

#: Tiny grids: the plumbing, not the science.
TINY = {"hot": {"depth": (0, 1), "t": (1, 2), "rho": (0.5,), "min_samples_leaf": (0,)},
        "adhot": {"c": (0.1,), "t_offset": (0,), "rho": (0.5,)},
        "hist": {"t": (1, 2), "zeta": (0.05,)},
        "tree": {"max_depth": (1, 2), "min_samples_leaf": (10,)}, "krr": {"k": (2,)}}


def _table(tmp_path, n, d, seed=0):
    frame, names = make_table(n, d, seed)
    path = tmp_path / f"table_{n}x{d}.csv"
    frame.to_csv(path, index=False)
    return whatif_data.load_table(path, TARGET, y_range=Y_RANGE), names


# ----------------------------------------------------------------------------------------------
# Grids
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "d", "s"), [(35, 1, 1), (140, 58, 3), (140, 58, 0), (700, 13, 2),
                                          (3500, 100, 5), (700_000, 10, 2)])
def test_every_grid_point_fits_the_table(n, d, s):
    grids = G.whatif_grids(n, d, s)
    for key, grid in grids.items():
        assert grid.applicable, (key, grid.notes)
        assert grid.size == len(grid.configs())
    for c in grids["hot"].configs():
        assert c["t"] ** s * 2 ** c["depth"] <= n / 2
    for c in grids["hot0"].configs():
        assert c["t"] == 1 and 2 ** c["depth"] <= n / 2
    for c in grids["tree"].configs() + grids["krr"].configs():
        assert 2 ** c["max_depth"] <= n / 2
    for c in grids["hist"].configs():
        assert float(c["t"]) ** d <= n / 2
    # at most one minimum leaf at or above n/2 (the constant fit)
    leaves = {c["min_samples_leaf"] for c in grids["tree"].configs()}
    assert sum(v >= n / 2 for v in leaves) <= 1


def test_hist_on_a_wide_table_keeps_one_bin_and_says_why():
    grid = G.whatif_grids(140, 58, 3)["hist"]
    assert {c["t"] for c in grid.configs()} == {1}
    assert any("t^58 cells" in note for note in grid.notes)
    assert any("privately estimated mean" in note for note in grid.notes)


def test_rho_varies_only_where_it_changes_a_fit():
    aligned = G.whatif_grids(1000, 5, 2)["hot"].configs()
    assert {c["rho"] for c in aligned if c["t"] == 1} == {0.5}
    assert {c["rho"] for c in aligned if c["t"] == 2} == {0.5, 0.7, 0.9}
    personal = G.whatif_grids(1000, 5, 2, personalized=True)["hot"].configs()
    assert {c["rho"] for c in personal if c["t"] == 1} == {0.5, 0.7, 0.9}
    # depth 0 has no tree: one minimum leaf
    assert {c["min_samples_leaf"] for c in aligned if c["depth"] == 0} == {0}


def test_the_bins_scale_with_the_table():
    """Appendix C.1's t <= 3 charged a lone protected column for the grid's coarseness."""
    def top_t(n, s):
        return max(c["t"] for c in G.whatif_grids(n, 5, s)["hot"].configs())
    assert top_t(1400, 1) == 16 and top_t(1400, 3) == 8 and top_t(140, 3) == 4
    assert top_t(G.LARGE_N + 1, 1) == 12 and top_t(G.LARGE_N + 1, 2) == 12


def test_a_column_a_fine_histogram_recovers_costs_little_at_a_loose_budget():
    rng = np.random.default_rng(0)
    x = rng.random(2000)
    y = np.sin(10 * x) + rng.normal(0, 0.3, 2000)
    out = whatif(pd.DataFrame({"x": x}), y, private=["x"], y_range=(-2, 2), epsilons=[1000],
                 reps=3, methods=["hot-me", "hot0"])
    ratio = out.summary.set_index("method")["ratio"]
    # With t <= 3 this was 2.5 x the label-only error (a +148% "cost" at epsilon 1000).
    assert ratio["HistOfTree ME"] < 1.3 * ratio["HistOfTree s=0"]


def test_large_tables_get_thinner_grids():
    small = G.whatif_grids(G.LARGE_N, 10, 2)
    large = G.whatif_grids(G.LARGE_N + 1, 10, 2)
    for key in ("hot", "tree", "krr", "adhot"):
        assert large[key].size < small[key].size


def test_overrides_replace_candidates_and_are_checked():
    grids = G.whatif_grids(1000, 5, 1, overrides={"hot": {"depth": (2,), "t": (3,)},
                                                  "tree": {"max_depth": [4]}})
    assert {(c["depth"], c["t"]) for c in grids["hot"].configs()} == {(2, 3)}
    assert {c["max_depth"] for c in grids["krr"].configs()} == {4}  # KRR follows the tree
    for bad, match in (({"hott": {"t": (1,)}}, "unknown method key 'hott'"),
                       ({"hot": {"bins": (1,)}}, "unknown parameter 'bins'"),
                       ({"hot": {"t": (0,)}}, r"grids\['hot'\]\['t'\]"),
                       ({"hot": {"t": (1.5,)}}, "integers"),
                       ({"hot": {"rho": (1.0,)}}, r"\['rho'\]"),
                       ({"tree": {"max_depth": ()}}, "at least one value"),
                       ({"hist": "t=1"}, "must map parameters")):
        with pytest.raises(ValueError, match=match):
            G.whatif_grids(1000, 5, 1, overrides=bad)
    # a grid the table cannot hold is reported as not applicable, not built
    grid = G.whatif_grids(100, 5, 4, overrides={"hot": {"t": (3,), "depth": (2,)}})["hot"]
    assert not grid.applicable and "not applicable" in grid.describe()


def test_grid_option_parses_and_refuses_clearly():
    assert G.parse_grid_option("hot.depth=1,2,4") == ("hot", "depth", (1, 2, 4))
    assert G.parse_grid_option("hot.rho=0.5, 0.9") == ("hot", "rho", (0.5, 0.9))
    for text in ("hot.depth", "depth=1", "hot.depth=", "hot.depth=a,b"):
        with pytest.raises(ValueError, match="--grid"):
            G.parse_grid_option(text)


# ----------------------------------------------------------------------------------------------
# Inputs and public choices
# ----------------------------------------------------------------------------------------------
def test_columns_resolve_by_name_index_and_one_hot_group():
    names = ["age", "smoker_no", "smoker_yes", "income"]
    assert whatif_data.resolve_columns(["smoker", 0], names, "private") == [1, 2, 0]
    with pytest.raises(ValueError, match="private names 'height'"):
        whatif_data.resolve_columns(["height"], names, "private")
    with pytest.raises(ValueError, match="twice"):
        whatif_data.resolve_columns(["age", 0], names, "private")
    with pytest.raises(ValueError, match="outside"):
        whatif_data.resolve_columns([4], names, "private")


def test_decade_mask_follows_the_stated_rule():
    W = DecadeMask(private=(3,), also=(0, 4)).build(1000, 6)
    np.testing.assert_array_equal(W.sum(axis=0), [100, 0, 0, 1000, 10, 0])
    rule = DecadeMask((3,), (0, 4)).rule(list("abcdef"))
    assert rule == ("every user protects d; 1 in 10 users also protects a; 1 in 100 users also "
                    "protects e; every other column is public")


def test_public_feature_bounds_scale_clip_and_are_recorded(tmp_path):
    frame = pd.DataFrame({"age": [20, 30, 40, 90], "x": [1.0, 2.0, 3.0, 4.0],
                          "y": [1.0, 2.0, 3.0, 4.0]})
    frame.to_csv(tmp_path / "t.csv", index=False)
    with pytest.warns(UserWarning, match="'age' clip 25.0%"):
        table = whatif_data.load_table(tmp_path / "t.csv", "y", y_range=(0, 5),
                                       x_bounds={"age": (20, 80)})
    np.testing.assert_allclose(table.X[:, 0], [0, 1 / 6, 2 / 6, 1])
    assert table.choices["feature_values_clipped"] == {"age": 0.25}
    assert table.data_bounds == ["x"]
    with pytest.warns(PrivacyWarning, match="protected column.* x was read off the data"):
        assert whatif_data.check_box(table, ["age", "x"]) == ["x"]
    for bounds, match in (({"height": (0, 1)}, "not feature columns"),
                          ({"age": (80, 20)}, "lo < hi"), ({"age": ("a", 1)}, "two numbers")):
        with pytest.raises(ValueError, match=match):
            whatif_data.load_table(tmp_path / "t.csv", "y", x_bounds=bounds)


def test_whatif_warns_about_protected_columns_whose_box_was_read_off_the_data(tmp_path):
    """The notebook's upload path (load_table, then whatif with provenance) warned nothing."""
    frame = pd.DataFrame({"age": [20, 30, 40, 90] * 10, "x": np.arange(40.0),
                          "z": np.arange(40.0) % 7, "y": np.arange(40.0) % 5})
    frame.to_csv(tmp_path / "t.csv", index=False)
    table = whatif_data.load_table(tmp_path / "t.csv", "y", y_range=(0, 5),
                                   x_bounds={"age": (20, 90)})
    run = functools.partial(whatif, table.X, table.y, feature_names=table.feature_names,
                            y_range=(0, 5), reps=2, grids=TINY, epsilons=(2,),
                            methods=["pardt"], provenance=table.choices)
    with pytest.warns(PrivacyWarning, match=r"^the feature box of protected column\(s\) x, z "
                      r"was read off the data \(min-max\): it leaks their extremes"):
        run(private=["age", "x"], personalized=["z"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        run(private=["age"])  # public bounds: nothing to say
        whatif(table.X, table.y, private=["x"], feature_names=table.feature_names,
               y_range=(0, 5), reps=2, grids=TINY, epsilons=(2,), methods=["pardt"])
        # a refused call says only why (the command line prints one line)
        with pytest.raises(ValueError, match="no label lies inside"):
            run(private=["x"], y_range=(10, 20))


def test_load_table_leaves_out_columns_by_name(tmp_path):
    (tmp_path / "t.csv").write_text(",id,when,x,y\n" + "".join(
        f"{i},{100 + i},2020-01-{i + 1:02d},{i % 4},{i % 3}\n" for i in range(20)))
    table = whatif_data.load_table(tmp_path / "t.csv", "y", y_range=(0, 3),
                                   drop=["", "id", "when"])
    assert table.feature_names == ["x"] and table.X.shape == (20, 1)
    assert table.choices["columns_left_out"] == ["", "id", "when"]
    for drop, error, match in ((["nope"], ValueError, r"^drop names 'nope', which is not a "
                                                      r"column of t.csv; columns are \['', 'id'"),
                               (["y"], ValueError, "^drop lists the target 'y'"),
                               (["id", "id"], ValueError, "^drop lists 'id' twice"),
                               ([3], TypeError, "drop must list column names")):
        with pytest.raises(error, match=match):
            whatif_data.load_table(tmp_path / "t.csv", "y", y_range=(0, 3), drop=drop)


def test_bounds_file_and_upload_helpers(tmp_path):
    (tmp_path / "b.csv").write_text("column,lo,hi\nage,0,120\n")
    assert whatif_data.read_bounds(tmp_path / "b.csv") == {"age": ("0", "120")}
    (tmp_path / "c.csv").write_text("name,low,high\nage,0,120\n")
    with pytest.raises(ValueError, match="column,lo,hi"):
        whatif_data.read_bounds(tmp_path / "c.csv")
    (tmp_path / "excel.csv").write_text("column,lo,hi\nage,0,120\n", encoding="utf-8-sig")
    assert whatif_data.read_bounds(tmp_path / "excel.csv") == {"age": ("0", "120")}
    (tmp_path / "binary.csv").write_bytes(bytes(range(128, 256)))
    with pytest.raises(ValueError, match=r"^feature bounds file binary\.csv is not a UTF-8"):
        whatif_data.read_bounds(tmp_path / "binary.csv")
    upload = ({"name": "../../evil.csv", "content": memoryview(b"a,b\n1,2\n")},)
    path = whatif_data.save_upload(upload, tmp_path)
    assert path == tmp_path / "evil.csv" and whatif_data.csv_columns(path) == ["a", "b"]
    upload = ({"name": "excel.csv", "content": b"\xef\xbb\xbfa,b\n1,2\n"},)
    assert whatif_data.csv_columns(whatif_data.save_upload(upload, tmp_path)) == ["a", "b"]
    with pytest.raises(ValueError, match="no file"):
        whatif_data.save_upload((), tmp_path)


def test_labels_range_warnings():
    rng = np.random.default_rng(0)
    X, y = rng.random((60, 2)), rng.normal(0, 1, 60)
    with pytest.warns(PrivacyWarning, match="read off the private labels"):
        out = whatif(X, y, private=[0], epsilons=(2,), reps=2, grids=TINY,
                     methods=["pardt", "labeldt"])
    assert out.choices["y_range_source"].startswith("read off")
    assert out.choices["labels_clipped"] == 0
    with pytest.warns(UserWarning, match="clips .*% of the labels .*: every private method "
                      "trains on the clipped labels, the non-private reference DT on the raw "
                      "ones, and all are tested on the raw labels"):
        out = whatif(X, y, private=[0], epsilons=(2,), reps=2, grids=TINY, y_range=(-1, 1),
                     methods=["pardt"])
    assert out.choices["labels_clipped"] == pytest.approx(np.mean(np.abs(y) > 1))
    assert "DT on the raw labels" in out.choices["label_clipping"]


def test_a_label_range_that_clips_most_labels_is_refused():
    """(100, 200) on labels in 15-31 ran and reported 2397 times DT's error: DT fits the raw
    labels, every private method the clipped ones."""
    rng = np.random.default_rng(0)
    X, y = rng.random((60, 2)), rng.uniform(15, 31, 60)
    run = functools.partial(whatif, X, y, private=[0], epsilons=(2,), reps=2, grids=TINY,
                            methods=["pardt"])
    with pytest.raises(ValueError, match=r"^no label lies inside y_range \(100, 200\): the "
                       r"labels span 15.\d+ to 30.\d+, so every private method would "
                       "estimate the clipped label"):
        run(y_range=(100, 200))
    lo = np.sort(y)[29]  # 29 of 60 labels below lo: kept; 31: refused
    with pytest.raises(ValueError, match=r"^31 of the 60 labels \(52%\) lie outside y_range"):
        run(y_range=(np.sort(y)[31] - 1e-9, 40))
    with pytest.warns(UserWarning, match="clips 48.3% of the labels"):
        assert run(y_range=(lo - 1e-9, 40)).choices["labels_clipped"] == pytest.approx(29 / 60)


def test_label_range_policies_are_recorded_and_checked():
    rng = np.random.default_rng(0)
    X, y = rng.random((60, 2)), rng.normal(0, 1, 60)
    run = functools.partial(whatif, X, y, private=[0], epsilons=(2,), reps=2, grids=TINY,
                            methods=["pardt"])
    given = run(y_range=(-4, 4))
    assert given.choices["label_range_policy"] == "given"
    out = run(y_range=(-4, 4), label_range="independent")
    assert out.choices["label_range_policy"] == "independent"
    assert "independent public data" in out.choices["y_range_source"]
    # the same range under another name is the same run: the policy only documents it
    pd.testing.assert_frame_equal(out.results, given.results)
    with pytest.warns(PrivacyWarning, match="label_range='private', so the label range"):
        out = run(label_range="private")
    assert out.choices["label_range_policy"] == "private"
    assert out.choices["y_range"] == [y.min(), y.max()]
    for kwargs, match in (({"label_range": "declared"}, "needs y_range"),
                          ({"label_range": "private", "y_range": (0, 1)}, "takes no y_range"),
                          ({"label_range": "public", "y_range": (0, 1)}, "label_range")):
        with pytest.raises(ValueError, match=match):
            run(**kwargs)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"private": ["z"]}, "private names 'z'"),
    ({"private": []}, "at least one column"),
    ({"personalized": [1]}, "personalized needs private"),
    ({"private": [0], "personalized": [0]}, "repeats columns"),
    ({"epsilons": (np.inf,)}, "at most 1000"),
    ({"epsilons": (np.nan,)}, "epsilons must be > 0"),
    ({"epsilons": ()}, "at least one value"),
    ({"epsilons": (1, 2, 1.0)}, "epsilons lists 1 twice"),  # was de-duplicated silently
    ({"epsilons": np.linspace(0.1, 10, 100_000)}, "at most 50"),  # was an O(n^2) hang
    ({"reps": 0}, "reps"), ({"seed": -1}, "seed"), ({"test_size": 1.0}, "test_size"),
    ({"methods": ["hot"]}, "unknown keys"),
    # AdHistOfTree runs in the personalized paradigm only: it ran nothing, silently
    ({"private": [0], "methods": ["adhot-me", "hot-me"]},
     r"methods asks for adhot-me, but AdHistOfTree runs in the personalized paradigm only: "
     r"pass personalized"),
    # without private only ParDT and DT run (the per-column costs): methods was ignored
    ({"methods": ["hot-me"]}, "methods chooses the methods compared under private"),
    ({"y_range": (1, 1)}, "lo < hi"), ({"y_range": (-1e300, 1e300)}, "too wide"),
    ({"y_range": (0, 1e-200)}, "too narrow"),
    ({"feature_names": ["a", "a", "b"]}, "distinct names"),
    ({"max_seconds": 1e-9}, "even 1 split takes about"),
    ({"test_size": 0.95}, "at least 10 and 3"),
    ({"grids": {"tree": {"max_depth": (12,)}}}, "reference tree DT"),
    # checked before the pilot fits, each by name; nothing parsed from text or guessed
    ({"n_jobs": "2"}, "n_jobs must be an integer"), ({"n_jobs": 2.5}, "n_jobs must be an int"),
    ({"n_jobs": 0}, "n_jobs must not be 0"), ({"n_jobs": 10_000}, "n_jobs <= "),
    ({"n_jobs": -10_000}, "n_jobs >= "),
    ({"max_seconds": "10"}, "max_seconds must be a real"), ({"max_seconds": -1}, "max_seconds"),
    ({"y_range": "03"}, "y_range must be two numbers"),
    ({"y_range": (False, True)}, "y_range must be two numbers"),
    ({"methods": []}, "at least one method"), ({"methods": ["pardt", "pardt"]}, "more than once"),
    ({"methods": "pardt"}, "list of keys"),
    ({"feature_names": "abc"}, "feature_names must be a list"),
])
def test_bad_arguments_are_refused_by_name(kwargs, match):
    rng = np.random.default_rng(0)
    X, y = rng.random((40, 3)), rng.random(40)
    kwargs = {"y_range": (0, 1), "reps": 2, "grids": TINY, **kwargs}
    with pytest.raises(ValueError, match=match):
        whatif(X, y, **kwargs)


def test_argument_checks_come_before_any_fit(tmp_path, monkeypatch):
    from ldpviz.reproduce import whatif as module

    def no_pilot(*args):
        raise AssertionError("the pilot ran")

    monkeypatch.setattr(module, "estimate_seconds", no_pilot)
    rng = np.random.default_rng(0)
    X, y = rng.random((40, 3)), rng.random(40)
    (tmp_path / "file").write_text("x")
    for kwargs, error, match in (
            ({"log": 5}, TypeError, "log must be a callable"),
            ({"cache_dir": tmp_path / "file"}, ValueError, "cache_dir .* is a file"),
            ({"max_seconds": "10"}, ValueError, "max_seconds"),
            ({"n_jobs": 1000}, ValueError, "n_jobs=1000 asks for more workers"),
            ({"y": np.array(["1.5"] * 40)}, ValueError, "y must hold numbers"),
            ({"y": [True] * 40}, ValueError, "y must hold numbers")):
        kwargs = {"y": y, "private": [0], "y_range": (0, 2), "reps": 2, "grids": TINY,
                  **kwargs}
        with pytest.raises(error, match=match):
            whatif(X, **kwargs)


def test_an_aligned_run_lists_only_the_methods_it_ran():
    rng = np.random.default_rng(0)
    X, y = rng.random((60, 3)), rng.random(60)
    said = []
    out = whatif(X, y, private=[0], y_range=(0, 1), reps=2, grids=TINY, epsilons=(2,),
                 log=said.append)
    assert out.choices["methods"] == [m for m in METHODS if not m.startswith("adhot-")]
    assert "adhot" not in out.choices["grids"] and "adhot" not in out.grids
    assert not any("AdHistOfTree:" in line for line in said)  # its grid was logged
    assert "adhot-me, adhot-cart not run: AdHistOfTree runs in the personalized paradigm " \
        "only" in said
    assert out.choices["methods_not_run"] in said
    assert not out.summary["method"].str.startswith("AdHistOfTree").any()
    # with the personalized paradigm it runs, and is listed
    out = whatif(X, y, private=[0], personalized=[1], y_range=(0, 1), reps=2, grids=TINY,
                 epsilons=(2,), methods=["adhot-me", "hot-me"])
    assert out.choices["methods"] == ["adhot-me", "hot-me"] and "adhot" in out.grids
    assert "AdHistOfTree ME" in set(out.summary["method"])


def test_numpy_scalars_are_numbers():
    rng = np.random.default_rng(0)
    X, y = rng.random((40, 3)), rng.random(40)
    out = whatif(X, y, private=[0], y_range=(np.float32(0), np.int64(1)), reps=2, grids=TINY,
                 test_size=np.float32(0.3), methods=["pardt"], epsilons=(2,))
    assert out.choices["test_size"] == pytest.approx(0.3)


def test_a_dataframe_names_its_columns():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((40, 3)), columns=["age", "income", "score"])
    y = rng.random(40)
    run = functools.partial(whatif, y=y, y_range=(0, 1), reps=2, grids=TINY, methods=["pardt"],
                            epsilons=(2,))
    assert run(X, private=["age"]).choices["private"] == ["age"]
    assert run(X, private=["age"], feature_names=["age", "income", "score"]).choices[
        "feature_names"] == ["age", "income", "score"]
    # reordered columns with the old names: "score" would have been protected silently
    with pytest.raises(ValueError, match=r"feature_names .* differ from the columns"):
        run(X[["score", "income", "age"]], private=["age"],
            feature_names=["age", "income", "score"])


def test_the_default_time_limit_is_the_command_line_s(monkeypatch):
    from ldpviz.__main__ import _parser
    from ldpviz.reproduce import whatif as module

    assert _parser().parse_args(["realdata", "x.csv", "--target", "y"]).max_minutes == \
        module.MAX_MINUTES
    monkeypatch.setattr(module, "estimate_seconds",
                        lambda arms, reps, n_jobs: (7.1 * 3600 * reps / 20, 552 * reps, 1))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"max_seconds=7200 .*pass reps=5 \(--reps 5\)"):
        whatif(rng.random((40, 3)), rng.random(40), y_range=(0, 1), grids=TINY)


def test_the_time_limit_runs_fewer_splits_or_refuses(monkeypatch):
    from ldpviz.reproduce import whatif as module

    monkeypatch.setattr(module, "estimate_seconds", lambda arms, reps, n_jobs: (3.0 * reps,
                                                                                 10 * reps, 2))
    said = []
    # 20 splits would take 60 s: with reps=None and a 30 s limit, 10 splits run
    assert module._plan([], None, 2, 30, said.append) == (
        10, "100 fits, about 30 s with 2 job(s) on an otherwise idle machine")
    assert "running 10 splits" in said[0] and "choose with reps" in said[0]
    assert module._plan([], 20, 2, None, said.append)[0] == 20
    with pytest.raises(ValueError, match=r"a run with 10 split\(s\) takes about 30 s"):
        module._plan([], 20, 2, 30, said.append)  # an explicit reps is never changed
    with pytest.raises(ValueError, match="a run with 3 split"):
        module._plan([], None, 2, 9, said.append)  # fewer than 5 fit: refused, not run


def test_bad_data_is_refused():
    X = np.random.default_rng(0).random((40, 3))
    for bad_X, bad_y, match in ((X * 2, np.ones(40), "outside the public feature box"),
                                (X, np.r_[np.ones(39), np.inf], "NaN or infinite"),
                                (X, np.ones(39), "one value per row"),
                                # squares overflowed: "attempt to get argmin of an empty sequence"
                                (X, np.linspace(0, 1e160, 40), r"^y has values too large"),
                                (X, -np.full(40, 1e100), r"^y has values too large")):
        with pytest.raises(ValueError, match=match):
            whatif(bad_X, bad_y, private=[0], y_range=(0, 2), reps=2, grids=TINY)


# ----------------------------------------------------------------------------------------------
# End to end through Python, on generated tables
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "d"), [(50, 1), (500, 13), (200, 58), (300, 100)])
def test_any_numeric_table_gets_an_answer(tmp_path, n, d):
    table, _ = _table(tmp_path, n, d)
    private = ["signal"] if d == 1 else ["signal", "weak"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = whatif(table.X, table.y, private=private, feature_names=table.feature_names,
                        y_range=table.y_range, epsilons=(1, 4), reps=3, grids=TINY,
                        personalized=None if d < 4 else ["noise2"], provenance=table.choices)
    assert [str(w.message) for w in caught] == result.notes  # every note is also a warning
    # the table's box was read off the data (load_table without x_bounds): said first
    assert result.notes[0].startswith(f"the feature box of protected column(s) {private[0]}")
    result.notes.pop(0)
    paradigms = ["aligned"] + (["personalized"] if d >= 4 else [])
    methods = set(zip(result.summary["paradigm"], result.summary["method"], strict=True))
    for paradigm in paradigms:
        for key, (name, _) in METHODS.items():
            if (key.startswith("adhot") and paradigm == "aligned") or (key == "hist" and d > 64):
                continue
            assert (paradigm, name) in methods, (paradigm, name)
    assert ("reference", "DT") in methods
    dt = result.best[result.best["method"] == "DT"]["mse_ratio"]
    assert dt.mean() == pytest.approx(1.0)
    assert len(result.answers) == 2 * len(paradigms)
    for sentence in result.sentences:
        assert sentence.startswith("At ε = ") and "non-private tree" in sentence
    assert np.isfinite(result.summary["ratio"]).all()
    wide = whatif_summary(result)
    assert set(wide.columns) == {1.0, 4.0}
    c = result.choices
    assert c["private"] == private and c["splits"] == 3 and c["seed"] == 0
    assert c["features"] == d and "feature_box" in c and c["version"]
    if d == 58:  # Hist cannot bin 58 features at 140 training rows: it keeps t = 1 and says so
        assert {*result.best.loc[result.best["method"] == "Hist", "t"]} == {1}
        assert any("t^58" in note for note in c["grid_notes"]["hist"])
    if d > 64:  # numpy indexes at most 64 axes; Hist's grid over 100 features is indexed by hand
        assert {*result.best.loc[result.best["method"] == "Hist", "t"]} == {1}
        assert not result.notes
    elif d >= 4:  # the copy of a public column, protected, protects nothing
        assert not result.notes
        with pytest.warns(UserWarning, match="copy of the public column"):
            out = whatif(table.X, table.y, private=["noise2_copy"],
                         feature_names=table.feature_names, y_range=table.y_range,
                         epsilons=(2,), reps=2, grids=TINY, methods=["pardt"])
        assert "copy of the public column 'noise2'" in out.notes[0]


def test_the_same_seed_gives_the_same_answer():
    rng = np.random.default_rng(1)
    X = rng.random((120, 3))
    y = X[:, 0] + rng.normal(0, 0.3, 120)
    runs = [whatif(X, y, private=[0], y_range=(-1, 2), epsilons=(2,), reps=2, grids=TINY,
                   seed=5) for _ in range(2)]
    pd.testing.assert_frame_equal(runs[0].best, runs[1].best)
    assert runs[0].sentences == runs[1].sentences


def test_paired_cost_and_the_test():
    ref = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    cost, se, p = whatif_answers.paired_cost(ref * 1.1, ref)
    assert cost == pytest.approx(0.1) and se > 0 and p == pytest.approx(1 / 64)
    assert whatif_answers.paired_cost(ref, ref)[2] == 1.0
    cost, _, p = whatif_answers.paired_cost(ref * 0.9, ref)
    assert cost == pytest.approx(-0.1) and p > 0.5
    assert whatif_answers.pct(0.183, 0.03) == "+18% ± 6.0%"
    assert whatif_answers.pct(0.0, 0.0) == "0% ± 0%"


def _planted(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 4))
    y = 3 * X[:, 0] + rng.normal(0, 0.5, n)  # column 0 informative, columns 1-3 noise
    return X, y, ["signal", "noise_a", "noise_b", "noise_c"]


def test_per_column_costs_rank_an_informative_column_above_a_noise_column():
    X, y, names = _planted()
    grids = {"tree": {"max_depth": (2, 4), "min_samples_leaf": (10, 100)}}
    result = whatif(X, y, feature_names=names, y_range=(-1.5, 4.5), epsilons=(2, 8), reps=8,
                    grids=grids)
    costs = result.costs.set_index(["column", "epsilon"])
    for eps in (2.0, 8.0):
        signal, noise = costs.loc[("signal", eps)], costs.loc[("noise_a", eps)]
        assert signal["significant"] and signal["cost"] > 0.2
        assert signal["cost"] > noise["cost"] + 2 * signal["se"]
        assert signal["rank"] == 1
        assert not noise["significant"]
    assert result.ranking[-1] == "signal"
    assert result.answers.empty  # nothing was assumed private
    text = " ".join(result.sentences)
    assert "cheapest first: signal" in text or "These cost something" in text
    assert "costs nothing detectable at any ε: noise_a" in text


def test_costs_say_when_the_tree_learns_nothing_from_any_column():
    rng = np.random.default_rng(0)
    X, y = rng.random((120, 3)), rng.normal(0, 1, 120)  # the label ignores every column
    result = whatif(X, y, y_range=(-3, 3), epsilons=(1,), reps=6,
                    grids={"tree": {"max_depth": (2, 4), "min_samples_leaf": (5, 100)}})
    assert result.costs["constant_fit"].all() and (result.costs["cost"] == 0).all()
    assert "does best as a constant even when it sees every column" in result.sentences[0]


def test_the_answer_attributes_the_cost_to_the_informative_column():
    X, y, names = _planted()
    grids = {**TINY, "tree": {"max_depth": (2, 4), "min_samples_leaf": (10,)},
             "hot": {"depth": (1, 2), "t": (1,), "rho": (0.5,), "min_samples_leaf": (0,)}}
    result = whatif(X, y, private=["signal", "noise_a"], feature_names=names,
                    y_range=(-1.5, 4.5), epsilons=(8,), reps=8, grids=grids)
    row = result.answers.iloc[0]
    assert row["cost_significant"] and row["cost_vs_label"] > 0.2
    assert row["attribution"].startswith("mostly from signal")
    sentence = row["sentence"]
    assert "protecting signal and noise_a costs +" in sentence and "mostly from signal" in sentence
    assert "a significant loss" in sentence
    assert f"Best method that protects signal and noise_a: {row['winner']}" in sentence
    assert "did not help" in sentence  # t = 1 is the only choice in this grid


@pytest.mark.slow
def test_the_histogram_helps_when_the_protected_column_carries_the_signal():
    rng = np.random.default_rng(0)
    X = rng.random((20_000, 3))
    y = 2 * (X[:, 0] > 0.5) + 0.5 * X[:, 1] + rng.normal(0, 0.3, 20_000)
    grids = {"hot": {"depth": (1, 2), "t": (1, 2), "rho": (0.5, 0.9), "min_samples_leaf": (0,)}}
    result = whatif(X, y, private=[0], y_range=(-1, 4), epsilons=(8,), reps=6, grids=grids,
                    methods=["hot-me", "pardt", "hot0"], n_jobs=2)
    row = result.answers.iloc[0]
    assert row["hot_t"] == 2 and row["hot_gain"] > 0.1 and row["hot_gain_p"] < 0.05
    assert "private histogram helped" in row["sentence"]
    assert row["winner"] == "HistOfTree ME" and row["winner_significant"]


# ----------------------------------------------------------------------------------------------
# The report
# ----------------------------------------------------------------------------------------------
def test_report_files_and_a_self_contained_html(tmp_path):
    table, _ = _table(tmp_path, 300, 6)
    result = whatif(table.X, table.y, private=["signal"], personalized=["weak"],
                    feature_names=table.feature_names, y_range=table.y_range, epsilons=(2, 4),
                    reps=3, grids=TINY, provenance=table.choices)
    files = whatif_report.write_whatif(result, tmp_path / "out", command="ldpviz realdata x")
    names = {f.name for f in files}
    assert {"realdata.csv", "realdata_grid.csv", "realdata_summary.csv", "realdata_answers.csv",
            "realdata.png", "realdata.md", "realdata.html"} <= names
    for f in files:
        assert f.stat().st_size > 0
    assert (tmp_path / "out" / "realdata.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (tmp_path / "out" / "realdata.html").read_text()
    assert_self_contained(page)
    assert page.count("Plotly.newPlot(") == 1 and "plotly.js" in page.lower()
    for sentence in result.sentences:
        assert sentence.replace("'", "&#x27;") in page
    for word in ("ldpviz realdata x", "seed", "splits", "epsilons", "y_range", "grids",
                 "feature_box", "version", "personalized_rule", "test_size"):
        assert word in page
    # label-only privacy both ways, with the sentence on why they differ, in page and console
    assert {"HistOfTree s=0", "LabelDT"} <= set(result.summary["method"])
    assert "end-cut splits" in page and "end-cut splits" in whatif_report.console_text(result)
    without = dataclasses.replace(result, summary=result.summary[result.summary["method"]
                                                                 != "LabelDT"])
    assert whatif_report.label_only_note(without) is None
    back = pd.read_csv(tmp_path / "out" / "realdata.csv")
    assert math.isclose(back.loc[back["method"] == "DT", "mse_ratio"].mean(), 1.0)


def test_the_report_removes_its_own_files_of_an_earlier_run(tmp_path):
    """A reused folder kept realdata_costs.csv/.png of an earlier run, looking current."""
    table, _ = _table(tmp_path, 200, 4)
    run = functools.partial(whatif, table.X, table.y, feature_names=table.feature_names,
                            y_range=table.y_range, epsilons=(2,), reps=2, grids=TINY,
                            methods=["pardt"])
    out = tmp_path / "out"
    first = whatif_report.write_whatif(run(private=["signal", "weak"]), out)
    assert {"realdata_costs.csv", "realdata_costs.png"} <= {f.name for f in first}
    keep = ["notes.txt", "realdata_costs_old.csv", "mine.png", "realdata.csv.bak"]
    for name in keep:  # not this tool's names: never touched
        (out / name).write_text("mine")
    (out / ".ldpviz_cache").mkdir()
    said = []
    second = whatif_report.write_whatif(run(private=["signal"]), out, log=said.append)
    names = {f.name for f in second}
    assert "realdata_costs.csv" not in names  # one protected column: no per-column costs
    assert sorted(p.name for p in out.iterdir()) == sorted([*names, *keep, ".ldpviz_cache"])
    assert said == [f"removed 2 file(s) of an earlier run from {out} that this run does not "
                    "write: realdata_costs.csv, realdata_costs.png"]
    said.clear()
    whatif_report.write_whatif(run(private=["signal"]), out, log=said.append)
    assert said == []  # nothing stale: nothing to say


def test_the_answer_and_the_figure_say_the_error_in_the_label_s_units(tmp_path):
    """Only ratios to DT were shown: "1.48 x" could not be read as "RMSE 62 -> 75"; the PNG
    named no table, target, protected column, epsilon or split count."""
    table, _ = _table(tmp_path, 300, 6)
    result = whatif(table.X, table.y, private=["signal", "weak"], personalized=["noise2"],
                    feature_names=table.feature_names, y_range=table.y_range, epsilons=(2, 4),
                    reps=3, grids=TINY, provenance=table.choices, name="table.csv")
    assert result.choices["target"] == TARGET
    dt = np.sqrt(result.best.loc[result.best["method"] == "DT", "mse"].mean())
    mean = np.sqrt(result.best.loc[result.best["method"] == YARDSTICK, "mse"].mean())
    for row in result.answers.itertuples():
        assert row.reference_rmse == pytest.approx(dt)
        assert row.yardstick_rmse == pytest.approx(mean)
        win = result.summary[(result.summary["epsilon"] == row.epsilon)
                             & (result.summary["paradigm"] == row.paradigm)
                             & (result.summary["method"] == row.winner)]
        assert row.winner_rmse == pytest.approx(np.sqrt(win["mse"].iloc[0]))
        verb = "rises" if row.winner_rmse > dt else "falls"
        assert (f"In units of {TARGET}, the test RMSE {verb} from "
                f"{whatif_answers.units(dt)} (the non-private tree) to "
                f"{whatif_answers.units(row.winner_rmse)} ({row.winner}); predicting the "
                f"training mean gives {whatif_answers.units(mean)}.") in row.sentence
    assert f"DT's test RMSE is {whatif_answers.units(dt)} (in units of {TARGET})" in \
        whatif_report.console_text(result)
    assert "test RMSE: DT → best" in whatif_report.answers_display(result.answers)
    fig = whatif_report.matplotlib_figure(result)
    title = fig._suptitle.get_text()
    for words in (f"What-if on table.csv, predicting {TARGET}", "protected by every user: signal, "
                  "weak; by some users also: noise2", "ε = 2, 4; 3 random 70%/30% train/test "
                  f"splits\nnon-private tree's test RMSE {whatif_answers.units(dt)} (in units "
                  f"of {TARGET})"):
        assert words in title, title
    # the title stays inside the figure (drawn, then measured)
    fig.canvas.draw()
    box = fig._suptitle.get_window_extent()
    assert 0 <= box.x0 and box.x1 <= fig.bbox.width and box.y1 <= fig.bbox.height
    # without a name for the label, the units are the label's
    plain = whatif(table.X, table.y, private=[0], y_range=table.y_range, epsilons=(2,),
                   reps=2, grids=TINY, methods=["pardt", "hot0"])
    assert plain.choices["target"] is None
    assert "In the label's units, the test RMSE" in plain.sentences[0]
    named = whatif(table.X, pd.Series(table.y, name="cost"), private=["x0"], y_range=table.y_range,
                   epsilons=(2,), reps=2, grids=TINY, methods=["pardt"])
    assert named.choices["target"] == "cost" and "In units of cost," in named.sentences[0]


def test_the_answer_says_when_a_chosen_value_is_the_largest_its_grid_offered():
    """HistOfTree chose t = 3, the top of its grid, and the answer called the cost significant
    without a word that a larger t might do better."""
    rng = np.random.default_rng(0)
    X = rng.random((600, 2))
    y = 3 * (X[:, 0] > 0.5) + X[:, 1] + rng.normal(0, 0.3, 600)
    tree = {"max_depth": (1, 2, 4, 6), "min_samples_leaf": (10,)}

    def run(ts):
        hot = {"t": ts, "depth": (0, 1, 2), "rho": (0.5,), "min_samples_leaf": (0,)}
        return whatif(X, y, private=[0], y_range=(-1, 5), epsilons=(1000,), reps=3,
                      grids={"hot": hot, "tree": tree}, methods=["hot-me", "hot0"])

    row = run((1, 2)).answers.iloc[0]
    assert row["hot_t"] == 2
    assert "HistOfTree ME's t = 2" in row["grid_edge"] and "--grid hot.t=…" in row["grid_edge"]
    assert "offered: a larger one may do better (widen with " in row["grid_edge"]
    assert "in Python, grids=)." in row["sentence"] and row["grid_edge"] in row["sentence"]
    row = run((1, 2, 3)).answers.iloc[0]  # t = 2 splits at 0.5; t = 3 cannot
    assert row["hot_t"] == 2 and "t = " not in (row["grid_edge"] or "")
    # DT (the same in every sentence) is said once, in the first
    wiggly = np.sin(12 * X[:, 1]) + X[:, 0]
    out = whatif(X, wiggly, private=[0], y_range=(-1, 2), epsilons=(2, 8), reps=3,
                 grids={"tree": {"max_depth": (1, 2), "min_samples_leaf": (10,)}},
                 methods=["pardt"])
    said = [bool(re.search(r"(?<![A-Za-z])DT's max_depth = 2", edge or ""))
            for edge in out.answers["grid_edge"]]
    assert said == [True, False]
    # the rule, on made-up rows: only the named methods, only values at their grid's largest
    grid = G.MethodGrid("hot", ({"t": (1,), "depth": (0,)}, {"t": (1, 2, 3), "depth": (1, 4)}))
    assert whatif_answers.grid_maxima(grid) == {"t": 3, "depth": 4}
    assert whatif_answers.grid_maxima(G.MethodGrid("hot0", ({"t": (1,), "depth": (2,)},))) == {}
    rows = pd.DataFrame({"method": ["HistOfTree ME", "DT"], "t": [3, np.nan],
                         "depth": [2, np.nan], "max_depth": [np.nan, 12]})
    edges = {"HistOfTree ME": ("hot", {"t": 3, "depth": 4}),
             "DT": ("tree", {"max_depth": 12, "min_samples_leaf": 100})}
    assert whatif_answers._edges(rows, edges) == (
        "HistOfTree ME's t = 3, DT's max_depth = 12 are the largest values the grids offered: a "
        "larger one may do better (widen with --grid hot.t=…, --grid tree.max_depth=…; in "
        "Python, grids=).")
    assert whatif_answers._edges(rows.assign(t=2, max_depth=8), edges) is None
    # a value the grid rule caps is no edge to widen: depth 9 has 2^9 cells > n/2 = 350
    from ldpviz.reproduce.whatif import _widenable

    over = {"hot": {"t": (1, 2, 3)}, "tree": {"max_depth": (1, 2, 4, 6, 8)}}
    for n, tree_top in ((1400, {"max_depth": 8}), (700, {})):
        grid = G.whatif_grids(n, 8, 1, overrides=over)
        assert _widenable("tree", grid["tree"], n, 8, 1, False, over) == tree_top
        assert _widenable("hot", grid["hot"], n, 8, 1, False, over)["t"] == 3
    grid = G.whatif_grids(700, 8, 1, overrides={"hot": {"t": (1, 2)}})["hot"]
    assert _widenable("hot", grid, 700, 8, 1, False, {"hot": {"t": (1, 2)}}) == {"t": 2}


def test_the_per_column_legend_appears_only_with_a_star():
    costs = pd.DataFrame({"column": ["f0", "f1"], "epsilon": 2.0, "cost": [0.061, 0.01],
                          "se": [0.06, 0.01], "p_value": [0.2, 0.4], "significant": False,
                          "constant_fit": False})
    text = whatif_answers.cost_sentences(costs, None)[0]
    assert text == "At ε = 2, protecting one column alone costs most for f0 +6.1% ± 12%, f1 " \
        "+1.0% ± 2.0%."  # ended in "(* significant)" with nothing starred
    costs.loc[0, "significant"] = True
    assert whatif_answers.cost_sentences(costs, None)[0].endswith(
        "f0 +6.1% ± 12%*, f1 +1.0% ± 2.0% (* significant).")


def test_the_personalized_sentence_names_the_columns_some_users_also_protect():
    rng = np.random.default_rng(0)
    X, y = rng.random((80, 6)), rng.random(80)
    names = ["a", "b", "c", "d", "e", "f"]
    run = functools.partial(whatif, X, y, feature_names=names, y_range=(0, 1), reps=2,
                            grids=TINY, epsilons=(2,), methods=["hot-me", "hot0"])
    out = run(private=["a"], personalized=["b", "c"])
    sentence = out.answers.set_index("paradigm").loc["personalized", "sentence"]
    assert sentence.startswith("At ε = 2 in the personalized paradigm (some users also protect "
                               "b and c), protecting a costs")
    out = run(private=["a"], personalized=["b", "c", "d", "e", "f"])
    assert "(some users also protect b, c, d and 2 more columns)" in \
        out.answers.set_index("paradigm").loc["personalized", "sentence"]
    out = run(private=["a"], personalized=["b", "c", "d", "e"])
    assert "(some users also protect b, c, d and 1 more column)" in \
        out.answers.set_index("paradigm").loc["personalized", "sentence"]

