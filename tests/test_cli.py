"""The command line: help, reproduce a small Figure 2(a), realdata end to end on generated tables
of 1 to 100 features, and about forty bad invocations that must each end in one line, exit 2."""

import functools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _shared_data import SHARED, needs_shared
from _whatif_tables import TARGET, Y_RANGE, assert_self_contained, make_table

from ldpviz import datasets
from ldpviz.__main__ import _parser, main
from ldpviz.reproduce import paper
from ldpviz.reproduce.whatif import METHODS

# Tiny grids on the command line: the plumbing, not the science.
TINY = ["--grid", "hot.depth=0,1", "--grid", "hot.t=1,2", "--grid", "hot.rho=0.5",
        "--grid", "hot.min_samples_leaf=0", "--grid", "adhot.c=0.1", "--grid",
        "adhot.t_offset=0", "--grid", "adhot.rho=0.5", "--grid", "hist.zeta=0.05",
        "--grid", "tree.max_depth=1,2", "--grid", "tree.min_samples_leaf=10",
        "--grid", "krr.k=2"]


def _cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "ldpviz", *args], capture_output=True,
                          text=True, timeout=timeout)


def test_help_lists_the_subcommands(capsys):
    out = _cli("--help")  # through python -m, as a user runs it
    assert out.returncode == 0
    assert "reproduce" in out.stdout and "realdata" in out.stdout
    for command, expected in (("reproduce", ("fig2a", "fig2d", "table1", "table3", "report",
                                             "--quick", "--label-range", "independent",
                                             "--reps", "--n-jobs", "--out", "--data-home")),
                              ("realdata", ("--target", "--private", "--personalized",
                                            "--epsilon", "--y-range", "--x-range",
                                            "--feature-bounds", "--grid", "--methods",
                                            "--max-minutes", "--reps", "--out"))):
        with pytest.raises(SystemExit) as info:
            main([command, "--help"])
        assert info.value.code == 0
        printed = capsys.readouterr().out
        assert all(word in printed for word in expected)


@pytest.fixture
def small_fig2a(monkeypatch):
    """Figure 2(a) on a small grid: the command's plumbing, not the science (tested elsewhere)."""
    builder = functools.partial(paper.fig2a_arms, n=400, epsilons=(1, 8), s_stars=(1, 3),
                                hot_grid={"depth": (1, 2), "t": (2,)},
                                tree_grid={"max_depth": (2,), "min_samples_leaf": (10,)},
                                hist_grid={"t": (1, 2), "zeta": (0.05,)})
    monkeypatch.setitem(paper.FIGURES, "fig2a", (builder, *paper.FIGURES["fig2a"][1:]))


def test_reproduce_fig2a_writes_csv_and_png(tmp_path, small_fig2a, capsys):
    code = main(["reproduce", "fig2a", "--reps", "2", "--out", str(tmp_path),
                 "--no-progress"])
    assert code == 0
    best = pd.read_csv(tmp_path / "fig2a.csv")
    assert {"method", "epsilon", "s_star", "mse"} <= set(best.columns)
    assert set(best["epsilon"]) == {1, 8} and set(best["rep"]) == {0, 1}
    # one best grid point per (series, epsilon): 5 series (s*=1, s*=3, label LDP twice, LDP)
    # x 2 epsilons x 2 replications
    assert len(best) == 5 * 2 * 2
    grid = pd.read_csv(tmp_path / "fig2a_grid.csv")
    assert len(grid) > len(best)
    png = (tmp_path / "fig2a.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    printed = capsys.readouterr().out
    assert "HistOfTree s*=1" in printed and "fig2a.png" in printed
    assert "fig2a: 2 replications, estimated at about" in printed  # said before it starts
    # the second run reads the cache and gives the same numbers
    assert main(["reproduce", "fig2a", "--reps", "2", "--out", str(tmp_path),
                 "--no-progress"]) == 0
    pd.testing.assert_frame_equal(best, pd.read_csv(tmp_path / "fig2a.csv"))


@needs_shared
def test_reproduce_table1_under_every_label_range_policy(tmp_path, capsys, monkeypatch):
    # Tiny grids: the command's plumbing, not the science (tests/test_label_ranges.py).
    for name, grid in (("HOT_GRID", {"rho": (0.5,), "depth": (1, 2), "t": (1, 2)}),
                       ("HOT0_GRID", {"depth": (1, 2)}),
                       ("ADHOT_GRID", {"rho": (0.5,), "c": (0.1,), "t_offset": (0,)}),
                       ("HIST_GRID", {"t": (1, 2), "zeta": (0.05,)}),
                       ("TREE_GRID", {"max_depth": (2,), "min_samples_leaf": (10,)}),
                       ("KRR_GRID", {"k": (2,), "max_depth": (2,), "min_samples_leaf": (10,)})):
        monkeypatch.setattr(paper, name, grid)
    code = main(["reproduce", "table1", "--datasets", "wine-red", "--label-range", "all",
                 "--reps", "2", "--out", str(tmp_path), "--no-progress",
                 "--data-home", str(SHARED)])
    assert code == 0
    captured = capsys.readouterr()
    for row in ("| RED (declared) |", "| RED (independent) |", "| RED (private) |",
                "| RED (paper) | 1.44 | 1.37* |", "label only: LabelDT", "end-cut"):
        assert row in captured.out, row
    assert "RED independent: (3, 9), the white-wine sample" in captured.out
    assert "RED private: (3, 8), read off the private labels (leaks)" in captured.out
    # the leak is said once, loudly; too few splits for a star is said once too
    assert captured.err.count("WARNING (privacy)") == 1 and "--label-range private" in \
        captured.err
    assert captured.err.count("no result is starred") == 1
    summary = pd.read_csv(tmp_path / "table1_summary.csv")
    assert set(summary["label_range"]) == {"declared", "independent", "private"}
    assert set(summary.loc[summary["role"] == "label", "method"]) == {"HistOfTree s=0",
                                                                      "LabelDT"}


@pytest.mark.parametrize(("text", "value"), [("-1e3", -1000.0), ("-.5e1", -5.0), ("-1E+3", -1000.0),
                                             ("-2.5e-1", -0.25), ("-.5", -0.5), ("-3", -3.0)])
def test_negative_numbers_in_scientific_notation_are_numbers(text, value):
    """argparse took "-1e3" for an option: "argument --y-range: expected 2 arguments"."""
    args = _parser().parse_args(["realdata", "t.csv", "--target", "y", "--y-range", text, "10",
                                 "--x-range", "a", text, "1"])
    assert args.y_range == [value, 10.0]
    assert args.x_range == [["a", text, "1"]]


# ----------------------------------------------------------------------------------------------
# realdata end to end
# ----------------------------------------------------------------------------------------------
def _user_csv(tmp_path, n=160):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"income": rng.random(n), "smoker": rng.choice(["no", "yes"], n),
                          "age": rng.integers(20, 70, n), "steps": rng.random(n)})
    frame["cost"] = 2 * frame["income"] + (frame["smoker"] == "yes") + 0.3 * rng.random(n)
    path = tmp_path / "users.csv"
    frame.to_csv(path, index=False)
    return path


def _table_csv(tmp_path, n, d, seed=0):
    frame, names = make_table(n, d, seed)
    path = tmp_path / f"table_{n}x{d}.csv"
    frame.to_csv(path, index=False)
    return path, names


def _check_outputs(out):
    for name in ("realdata.csv", "realdata_summary.csv", "realdata.png", "realdata.md",
                 "realdata.html"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    assert (out / "realdata.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert_self_contained((out / "realdata.html").read_text())


@pytest.mark.slow
def test_realdata_answers_with_every_method(tmp_path, capsys):
    path = _user_csv(tmp_path)
    out = tmp_path / "out"
    code = main(["realdata", str(path), "--target", "cost", "--private", "smoker", "income",
                 "--personalized", "age", "--categorical", "onehot", "--epsilon", "2",
                 "--reps", "3", "--out", str(out), "--y-range", "0", "4", "--n-jobs", "2",
                 "--no-progress", "--x-range", "age", "18", "80"])
    assert code == 0
    result = pd.read_csv(out / "realdata.csv")
    methods = set(zip(result["paradigm"], result["method"], strict=True))
    for key, (name, _) in METHODS.items():
        assert ("personalized", name) in methods
        assert key.startswith("adhot") or ("aligned", name) in methods
    assert ("reference", "DT") in methods
    _check_outputs(out)
    printed = capsys.readouterr().out
    assert "every user protects smoker_no, smoker_yes, income" in printed
    assert "1 in 10 users also protects age" in printed
    assert "label range (0, 4), given (public): clips 0.0% of the labels" in printed
    assert "1 column(s) scaled with public bounds" in printed
    assert "plan: 3 splits: " in printed and "At ε = 2" in printed
    page = (out / "realdata.html").read_text()
    assert "--x-range age 18 80" in page and "public_feature_bounds" in page


@pytest.mark.parametrize(("n", "d"), [(50, 1), (400, 13), (200, 58),
                                      pytest.param(300, 100, marks=pytest.mark.slow)])
def test_realdata_runs_on_any_numeric_table(tmp_path, capsys, n, d):
    path, _ = _table_csv(tmp_path, n, d)
    out = tmp_path / "out"
    private = ["signal"] if d == 1 else ["signal", "weak"]
    code = main(["realdata", str(path), "--target", TARGET, "--private", *private,
                 "--epsilon", "1", "4", "--reps", "2", "--out", str(out), "--no-progress",
                 "--y-range", *map(str, Y_RANGE), *TINY])
    assert code == 0, capsys.readouterr().err
    _check_outputs(out)
    printed = capsys.readouterr().out
    assert printed.count("At ε = ") == 2 and "Best method that protects" in printed
    if d == 58:
        assert "only t = 1 remains" in (out / "realdata.html").read_text()


def test_realdata_without_private_measures_each_column(tmp_path, capsys):
    path, names = _table_csv(tmp_path, 400, 6)
    out = tmp_path / "out"
    code = main(["realdata", str(path), "--target", TARGET, "--epsilon", "4", "--reps", "3",
                 "--out", str(out), "--no-progress", "--y-range", *map(str, Y_RANGE), *TINY])
    assert code == 0
    captured = capsys.readouterr()
    printed = captured.out
    assert "no private columns given, so none is assumed" in printed
    assert "No --private was given" in printed and "Cost of protecting one column" in printed
    costs = pd.read_csv(out / "realdata_costs.csv")
    assert sorted(costs["column"]) == sorted(names)
    assert (out / "realdata_costs.png").is_file()
    assert_self_contained((out / "realdata.html").read_text())


def test_realdata_without_y_range_warns_loudly(tmp_path, capsys):
    path, _ = _table_csv(tmp_path, 120, 3)
    code = main(["realdata", str(path), "--target", TARGET, "--private", "signal",
                 "--epsilon", "2", "--reps", "2", "--out", str(tmp_path / "o"),
                 "--no-progress", "--methods", "pardt", "labeldt", *TINY])
    assert code == 0
    captured = capsys.readouterr()
    assert "WARNING: no --y-range" in captured.out
    assert "read off the private labels (leaks)" in captured.out
    assert "WARNING (privacy): the feature box of protected column(s) signal" in captured.err
    assert "label range" not in captured.err  # said once, on stdout
    # the same leak chosen by name is said the same way; a public source is recorded
    for policy, said in (("private", "WARNING: --label-range private"),
                         ("independent", "given: the range of independent public data")):
        extra = ["--y-range", *map(str, Y_RANGE)] if policy != "private" else []
        code = main(["realdata", str(path), "--target", TARGET, "--private", "signal",
                     "--epsilon", "2", "--reps", "2", "--out", str(tmp_path / policy),
                     "--no-progress", "--methods", "pardt", "--label-range", policy, *extra,
                     *TINY])
        captured = capsys.readouterr()
        assert code == 0 and said in captured.out and "label range" not in captured.err
        assert policy in (tmp_path / policy / "realdata.html").read_text()


def test_realdata_warns_once_about_a_protected_box_read_off_the_data(tmp_path, capsys):
    path = _user_csv(tmp_path)
    code = main(["realdata", str(path), "--target", "cost", "--private", "income",
                 "--personalized", "age", "--categorical", "onehot", "--y-range", "0", "4",
                 "--epsilon", "2", "--reps", "2", "--out", str(tmp_path / "o"), "--no-progress",
                 "--methods", "pardt", *TINY])
    err = capsys.readouterr().err
    assert code == 0, err
    assert err.count("feature box of protected") == 1, err
    assert "column(s) income, age was read off the data" in err


def test_realdata_in_a_reused_folder_removes_the_earlier_run_s_files(tmp_path, capsys):
    path = _user_csv(tmp_path)
    argv = ["realdata", str(path), "--target", "cost", "--categorical", "onehot", "--y-range",
            "0", "4", "--epsilon", "2", "--reps", "2", "--out", str(tmp_path / "o"),
            "--no-progress", "--methods", "pardt", *TINY]
    assert main([*argv, "--private", "income", "age"]) == 0
    assert (tmp_path / "o" / "realdata_costs.csv").is_file()
    capsys.readouterr()
    assert main([*argv, "--private", "income"]) == 0
    out = capsys.readouterr().out
    assert "ldpviz realdata: removed 2 file(s) of an earlier run from " in out
    assert "realdata_costs.csv, realdata_costs.png" in out
    assert not (tmp_path / "o" / "realdata_costs.csv").exists()
    assert not (tmp_path / "o" / "realdata_costs.png").exists()
    assert (tmp_path / "o" / ".ldpviz_cache").is_dir()  # the cache is kept


def test_realdata_leaves_out_the_columns_given_to_drop(tmp_path, capsys):
    """A date column and a pandas index column were refused with advice the command line could
    not follow (no option to leave a column out)."""
    rng = np.random.default_rng(0)
    frame = pd.read_csv(_user_csv(tmp_path))
    frame["visit date"] = pd.date_range("2020-01-01", periods=len(frame)).astype(str)
    frame["id"] = np.arange(len(frame))
    frame.sample(frac=1, random_state=rng.integers(1000)).to_csv(tmp_path / "dated.csv")
    argv = ["realdata", str(tmp_path / "dated.csv"), "--target", "cost", "--private", "income",
            "--categorical", "onehot", "--y-range", "0", "4", "--epsilon", "2", "--reps", "2",
            "--out", str(tmp_path / "o"), "--no-progress", "--methods", "pardt", *TINY]
    assert main([*argv, "--drop", "visit date"]) == 2  # the unnamed index column remains
    assert "--drop '' on the command line" in capsys.readouterr().err
    assert main([*argv, "--drop", "visit date", "", "id"]) == 0
    out = capsys.readouterr().out
    assert "5 feature columns (left out: 'visit date', '', 'id')" in out
    page = (tmp_path / "o" / "realdata.html").read_text()
    assert "columns_left_out" in page and "visit date" in page


def test_realdata_reads_feature_bounds_from_a_pipe(tmp_path, capsys):
    """--feature-bounds <(printf ...) was refused: '/dev/fd/63' does not exist (is_file())."""
    path = _user_csv(tmp_path)
    read, write = os.pipe()
    os.write(write, b"column,lo,hi\nincome,0,1\n")
    os.close(write)
    try:
        code = main(["realdata", str(path), "--target", "cost", "--private", "income",
                     "--categorical", "onehot", "--feature-bounds", f"/dev/fd/{read}",
                     "--y-range", "0", "4", "--epsilon", "2", "--reps", "2", "--out",
                     str(tmp_path / "o"), "--no-progress", "--methods", "pardt", *TINY])
    finally:
        os.close(read)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "1 column(s) scaled with public bounds" in captured.out


def test_realdata_takes_public_feature_bounds_from_a_file(tmp_path, capsys):
    path = _user_csv(tmp_path)
    (tmp_path / "bounds.csv").write_text("column,lo,hi\nincome,0,1\nage,0,120\n")
    code = main(["realdata", str(path), "--target", "cost", "--private", "income", "age",
                 "--categorical", "onehot", "--feature-bounds", str(tmp_path / "bounds.csv"),
                 "--x-range", "age", "18", "80", "--y-range", "0", "4", "--epsilon", "2",
                 "--reps", "2", "--out", str(tmp_path / "o"), "--no-progress",
                 "--methods", "pardt", "labeldt", *TINY])
    assert code == 0
    captured = capsys.readouterr()
    assert "2 column(s) scaled with public bounds" in captured.out
    assert "feature box of protected" not in captured.err  # both have public bounds
    page = (tmp_path / "o" / "realdata.html").read_text()
    assert "income: 0, 1; age: 18, 80" in page  # the command line's range wins over the file


def test_realdata_reads_csv_files_with_a_byte_order_mark(tmp_path, capsys):
    """Excel's "CSV UTF-8" starts with a byte-order mark: --private named the first column
    but found only '\\ufeffincome'."""
    path = _user_csv(tmp_path)
    path.write_text(path.read_text(), encoding="utf-8-sig")
    (tmp_path / "bounds.csv").write_text("column,lo,hi\nincome,0,1\n", encoding="utf-8-sig")
    code = main(["realdata", str(path), "--target", "cost", "--private", "income",
                 "--categorical", "onehot", "--feature-bounds", str(tmp_path / "bounds.csv"),
                 "--y-range", "0", "4", "--epsilon", "2", "--reps", "2", "--out",
                 str(tmp_path / "o"), "--no-progress", "--methods", "pardt", *TINY])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "1 column(s) scaled with public bounds" in captured.out


def test_realdata_reads_decimal_commas_codes_and_many_levels(tmp_path, capsys):
    """The loader's options had no command-line spelling: such a file could not be analysed."""
    rows = "".join(f"{i % 7},{i:02d};{'x9' if i % 5 == 0 else 1000 + i % 3};w{i % 30};"
                   f"{i % 4},5\n" for i in range(60))
    path = tmp_path / "semi.csv"
    path.write_text("a;zip;word;y\n" + rows)
    argv = ["realdata", str(path), "--target", "y", "--y-range", "0", "4", "--private", "a",
            "--epsilon", "2", "--reps", "2", "--out", str(tmp_path / "o"), "--no-progress",
            "--methods", "pardt", *TINY]
    code, err = _run_main(argv, capsys)
    assert code == 2 and "--decimal ," in err
    code, err = _run_main([*argv, "--decimal", ","], capsys)
    assert code == 2 and "--categorical-columns zip" in err
    code, err = _run_main([*argv, "--decimal", ",", "--categorical-columns", "zip"], capsys)
    assert code == 2 and "--max-categories" in err
    code, err = _run_main([*argv, "--decimal", ",", "--categorical-columns", "zip",
                           "--max-categories", "30"], capsys)
    assert code == 0, err


@pytest.mark.slow
def test_realdata_on_200000_rows(tmp_path):
    path, _ = _table_csv(tmp_path, 200_000, 10)
    out = _cli("realdata", str(path), "--target", TARGET, "--private", "signal", "--epsilon",
               "2", "--reps", "2", "--out", str(tmp_path / "out"), "--no-progress",
               "--y-range", *map(str, Y_RANGE), "--methods", "hot-me", "pardt", "hot0",
               "--n-jobs", "2", *TINY, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and "At ε = 2" in out.stdout
    _check_outputs(tmp_path / "out")


# ----------------------------------------------------------------------------------------------
# Bad invocations: one line on stderr, exit 2, never a traceback
# ----------------------------------------------------------------------------------------------
def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _bad_files(tmp_path):
    """Name -> path of each defective input file."""
    good = _user_csv(tmp_path)
    frame = pd.read_csv(good)
    files = {"good": str(good)}
    rows = "a,b,y\n" + "".join(f"{i},{i % 3},{i * 0.5}\n" for i in range(30))
    files["inf feature"] = _write(tmp_path, "inf_x.csv", rows.replace("5,2,2.5", "inf,2,2.5"))
    files["inf target"] = _write(tmp_path, "inf_y.csv", rows.replace("5,2,2.5", "5,2,inf"))
    files["huge feature"] = _write(tmp_path, "huge_x.csv",
                                   rows.replace("5,2,2.5", "1e308,2,2.5")
                                   .replace("6,0,3.0", "-1e308,0,3.0"))
    files["huge target"] = _write(tmp_path, "huge_y.csv",
                                  rows.replace("5,2,2.5", "5,2,1e308")
                                  .replace("6,0,3.0", "6,0,-1e308"))
    files["empty"] = _write(tmp_path, "empty.csv", "")
    files["header only"] = _write(tmp_path, "header.csv", "a,b,y\n")
    files["target only"] = _write(tmp_path, "target_only.csv", "y\n1\n2\n3\n")
    files["three rows"] = _write(tmp_path, "three.csv", "a,y\n1,2\n2,3\n3,4\n")
    files["constant target"] = _write(tmp_path, "constant.csv",
                                      "a,y\n" + "".join(f"{i},5\n" for i in range(20)))
    files["text target"] = _write(tmp_path, "text_y.csv",
                                  "a,y\n" + "".join(f"{i},v{i}\n" for i in range(20)))
    frame.assign(notes=[f"free text {i}" for i in range(len(frame))]).to_csv(
        tmp_path / "text.csv", index=False)
    files["text column"] = str(tmp_path / "text.csv")
    frame.assign(income=frame["income"].mask(frame.index == 3)).to_csv(
        tmp_path / "holes.csv", index=False)
    files["missing"] = str(tmp_path / "holes.csv")
    (tmp_path / "binary.csv").write_bytes(bytes(range(256)) * 8)
    files["binary"] = str(tmp_path / "binary.csv")
    files["bounds header"] = _write(tmp_path, "bounds.csv", "name,low,high\nincome,0,1\n")
    files["reversed bounds"] = _write(tmp_path, "reversed.csv", "column,lo,hi\nage,80,18\n")
    files["a file"] = _write(tmp_path, "a_file.txt", "not a folder")
    files["unnamed column"] = _write(tmp_path, "unnamed.csv", rows.replace("a,b,y", "a,,y"))
    frame.assign(**{"visit date": [f"2020-01-{i % 28 + 1:02d} {i}" for i in range(len(frame))]}
                 ).to_csv(tmp_path / "dates.csv", index=False)
    files["date column"] = str(tmp_path / "dates.csv")
    # issue 32: a workbook, an empty column, a column missing almost everywhere
    (tmp_path / "costs.xlsx").write_bytes(b"PK\x03\x04garbage" + bytes(range(256)))
    files["xlsx"] = str(tmp_path / "costs.xlsx")
    frame.assign(notes=np.nan).to_csv(tmp_path / "empty_column.csv", index=False)
    files["empty column"] = str(tmp_path / "empty_column.csv")
    frame.assign(notes=[1.0] + [np.nan] * (len(frame) - 1)).to_csv(
        tmp_path / "mostly_missing.csv", index=False)
    files["mostly missing"] = str(tmp_path / "mostly_missing.csv")
    return files


# (name, argv built from the files, words the message must contain)
BAD = [
    ("no command", lambda f, o: [], "needs a COMMAND: reproduce (the paper's figures"),
    ("reproduce without a name", lambda f, o: ["reproduce"],
     "needs a NAME: fig2a, fig2b, fig2c or fig2d (a panel of Figure 2), table1, table2 or "
     "table3"),  # said only "the following arguments are required: name"
    ("realdata without a target", lambda f, o: ["realdata", f["good"]],
     "needs --target COLUMN (the label column"),
    ("unknown command", lambda f, o: ["simulate"], "invalid choice"),
    ("unknown figure", lambda f, o: ["reproduce", "fig9"], "fig9"),
    ("negative seed", lambda f, o: ["reproduce", "fig2a", "--seed", "-1"], "--seed"),
    ("reps 0 (reproduce)", lambda f, o: ["reproduce", "fig2a", "--reps", "0"], "--reps"),
    ("unknown dataset", lambda f, o: ["reproduce", "table1", "--datasets", "iris",
                                      "--out", o], "iris"),
    ("no data", lambda f, o: ["reproduce", "table1", "--data-home", o + "/none", "--reps", "1",
                              "--out", o], "data_home"),
    ("quick for a table", lambda f, o: ["reproduce", "table1", "--quick", "--out", o],
     "--quick"),
    ("label range for a figure", lambda f, o: ["reproduce", "fig2a", "--label-range",
                                               "private", "--out", o], "--label-range"),
    ("label range for the report", lambda f, o: ["reproduce", "report", "--label-range",
                                                 "declared", "--out", o], "--label-range"),
    ("label range unknown", lambda f, o: ["reproduce", "table1", "--label-range", "leaky",
                                          "--out", o], "leaky"),
    ("label range twice", lambda f, o: ["reproduce", "table1", "--label-range", "private",
                                        "private", "--out", o], "twice"),
    ("datasets for a figure", lambda f, o: ["reproduce", "fig2b", "--datasets", "abalone",
                                            "--out", o], "--datasets"),
    ("dataset twice", lambda f, o: ["reproduce", "table1", "--datasets", "abalone", "abalone",
                                    "--out", o], "abalone twice"),
    ("report unknown dataset", lambda f, o: ["reproduce", "report", "--quick", "--datasets",
                                             "iris", "--out", o], "iris"),
    ("reps 0 (report)", lambda f, o: ["reproduce", "report", "--reps", "0"], "--reps"),
    ("report out is a file", lambda f, o: ["reproduce", "report", "--quick", "--out",
                                           f["a file"]], "is a file"),
    ("reproduce too long", lambda f, o: ["reproduce", "table1", "--reps", "1000", "--out", o],
     "is estimated at 2.4 h, more than --max-minutes 120: --reps 847 fits"),  # started silently
    ("reproduce over the limit", lambda f, o: ["reproduce", "fig2c", "--reps", "50",
                                               "--max-minutes", "0.1", "--out", o],
     "--reps 6 fits"),
    ("max minutes for the report", lambda f, o: ["reproduce", "report", "--max-minutes", "5",
                                                 "--out", o], "--max-minutes applies to"),
    ("out empty", lambda f, o: ["reproduce", "fig2a", "--out", ""], "--out"),  # wrote to .
    ("data home empty", lambda f, o: ["reproduce", "table1", "--data-home", " "],
     "--data-home"),
    ("unnamed column", lambda f, o: ["realdata", f["unnamed column"], "--target", "y",
                                     "--out", o], "column 2 of the header has no name"),
    ("date column", lambda f, o: ["realdata", f["date column"], "--target", "cost", "--out", o],
     "leave it out with drop=['visit date'] (--drop 'visit date' on the command line)"),
    ("unnamed column, the advice", lambda f, o: ["realdata", f["unnamed column"], "--target",
                                                 "y", "--out", o],
     "leave the unnamed ones out with drop=[''] (--drop '' on the command line)"),
    ("drop unknown", lambda f, o: ["realdata", f["good"], "--target", "cost", "--drop", "id",
                                   "--out", o], "--drop names 'id', which is not a column"),
    ("drop the target", lambda f, o: ["realdata", f["good"], "--target", "cost", "--drop",
                                      "cost", "--out", o], "--drop lists the target 'cost'"),
    ("drop a private column", lambda f, o: [
        "realdata", f["good"], "--target", "cost", "--private", "age", "--drop", "age",
        "--out", o], "--drop and --private both name 'age'"),
    ("drop a personalized column", lambda f, o: [
        "realdata", f["good"], "--target", "cost", "--private", "age", "--personalized",
        "steps", "--drop", "income", "steps", "--out", o],
     "--drop and --personalized both name 'steps'"),
    ("drop twice", lambda f, o: ["realdata", f["good"], "--target", "cost", "--drop", "age",
                                 "age", "--out", o], "--drop gives 'age' twice"),
    ("missing target option", lambda f, o: ["realdata", f["good"]], "--target"),
    ("label range declared without y range", lambda f, o: [
        "realdata", f["good"], "--target", "cost", "--label-range", "declared"], "--y-range"),
    ("label range private with y range", lambda f, o: [
        "realdata", f["good"], "--target", "cost", "--label-range", "private", "--y-range",
        "0", "4"], "drop --y-range"),
    ("label range unknown (realdata)", lambda f, o: [
        "realdata", f["good"], "--target", "cost", "--label-range", "public"],
     "--label-range"),
    ("epsilon nan", lambda f, o: ["realdata", f["good"], "--target", "cost", "--epsilon",
                                  "nan"], "--epsilon"),
    ("epsilon inf", lambda f, o: ["realdata", f["good"], "--target", "cost", "--epsilon", "1",
                                  "inf"], "--epsilon"),
    ("epsilon 0", lambda f, o: ["realdata", f["good"], "--target", "cost", "--epsilon", "0"],
     "(0, 1000]"),
    ("epsilon negative", lambda f, o: ["realdata", f["good"], "--target", "cost", "--epsilon",
                                       "-2"], "--epsilon"),
    ("epsilon huge", lambda f, o: ["realdata", f["good"], "--target", "cost", "--epsilon",
                                   "1e6"], "(0, 1000]"),
    ("epsilon text", lambda f, o: ["realdata", f["good"], "--target", "cost", "--epsilon",
                                   "two"], "expected a number"),
    ("reps 0", lambda f, o: ["realdata", f["good"], "--target", "cost", "--reps", "0"],
     "--reps"),
    ("reps text", lambda f, o: ["realdata", f["good"], "--target", "cost", "--reps", "ten"],
     "--reps"),
    ("n-jobs 0", lambda f, o: ["realdata", f["good"], "--target", "cost", "--n-jobs", "0"],
     "--n-jobs"),
    ("n-jobs above the cores", lambda f, o: ["reproduce", "fig2a", "--n-jobs", "64"],
     "--n-jobs <= "),  # 64 started 66 processes on 2 cores
    ("n-jobs far below", lambda f, o: ["realdata", f["good"], "--target", "cost", "--n-jobs",
                                       "-1000"], "--n-jobs >= "),
    ("seed text", lambda f, o: ["realdata", f["good"], "--target", "cost", "--seed", "x"],
     "--seed"),
    ("test size 0", lambda f, o: ["realdata", f["good"], "--target", "cost", "--test-size",
                                  "0"], "--test-size"),
    ("test size 1.5", lambda f, o: ["realdata", f["good"], "--target", "cost", "--test-size",
                                    "1.5"], "--test-size"),
    ("max minutes 0", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                    "--max-minutes", "0"], "--max-minutes"),
    ("y-range reversed", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                       "--y-range", "5", "1", "--out", o],
     "--y-range must be finite with lo < hi"),  # named the Python argument y_range
    ("y-range nan", lambda f, o: ["realdata", f["good"], "--target", "cost", "--y-range",
                                  "nan", "1"], "--y-range"),
    ("y-range inf", lambda f, o: ["realdata", f["good"], "--target", "cost", "--y-range",
                                  "0", "inf"], "--y-range"),
    ("categorical bogus", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                        "--categorical", "hash"], "--categorical"),
    ("adhot without personalized", lambda f, o: [
        "realdata", f["good"], "--target", "cost", "--private", "age", "--methods", "adhot-me",
        "adhot-cart", "--out", o],
     "--methods adhot-me adhot-cart needs --personalized"),  # ran nothing, exit 0
    ("methods without private", lambda f, o: [
        "realdata", f["good"], "--target", "cost", "--methods", "hot-me", "--out", o],
     "--methods chooses the methods compared under --private"),  # was ignored, exit 0
    ("y-range misses every label", lambda f, o: [
        "realdata", f["good"], "--target", "cost", "--private", "income", "--y-range", "100",
        "200", "--out", o], "no label lies inside"),  # ran: 2397 x DT's error
    ("methods bogus", lambda f, o: ["realdata", f["good"], "--target", "cost", "--methods",
                                    "xgboost"], "--methods"),
    ("missing file", lambda f, o: ["realdata", f["good"] + ".missing", "--target", "cost",
                                   "--out", o], "missing"),
    ("a folder as the file", lambda f, o: ["realdata", os.path.dirname(f["a file"]), "--target",
                                          "cost"],
     "is a folder, not a file"),
    ("unknown target", lambda f, o: ["realdata", f["good"], "--target", "price", "--out", o],
     "price"),
    ("unknown private", lambda f, o: ["realdata", f["good"], "--target", "cost", "--private",
                                      "height", "--categorical", "onehot", "--out", o],
     "height"),
    ("private twice", lambda f, o: ["realdata", f["good"], "--target", "cost", "--private",
                                    "age", "age", "--categorical", "onehot", "--out", o],
     "twice"),
    ("target as private", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                        "--private", "cost", "--categorical", "onehot",
                                        "--out", o], "cost"),
    ("personalized overlaps", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                            "--private", "age", "--personalized", "age",
                                            "--categorical", "onehot", "--out", o],
     "repeats"),
    ("personalized alone", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                         "--personalized", "age", "--categorical", "onehot",
                                         "--out", o], "--personalized needs --private"),
    ("x-range unknown column", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                             "--x-range", "height", "0", "1",
                                             "--categorical", "onehot", "--out", o], "height"),
    ("x-range reversed", lambda f, o: ["realdata", f["good"], "--target", "cost", "--x-range",
                                       "age", "80", "18", "--categorical", "onehot",
                                       "--out", o],
     "--x-range age must be finite with lo < hi"),  # was x_bounds['age']
    ("bounds file reversed", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                           "--feature-bounds", f["reversed bounds"],
                                           "--categorical", "onehot", "--out", o],
     "the --feature-bounds row 'age' must be finite with lo < hi"),
    ("y-range refused, by its option", lambda f, o: [
        "realdata", f["good"], "--target", "cost", "--private", "income", "--y-range", "3",
        "100", "--categorical", "onehot", "--out", o], "lie outside --y-range (3, 100)"),
    ("grid on the command line", lambda f, o: [
        "realdata", f["good"], "--target", "cost", "--grid", "xgb.t=2", "--out", o],
     "--grid has unknown method key 'xgb'"),
    ("test size, by its option", lambda f, o: [
        "realdata", f["good"], "--target", "cost", "--test-size", "0.99", "--out", o],
     "with --test-size 0.99 that leaves"),
    ("x-range twice", lambda f, o: ["realdata", f["good"], "--target", "cost", "--x-range",
                                    "age", "0", "1", "--x-range", "age", "0", "2",
                                    "--categorical", "onehot", "--out", o],
     "--x-range gives bounds for 'age' twice"),  # the last one won silently
    ("grid key twice", lambda f, o: ["realdata", f["good"], "--target", "cost", "--grid",
                                     "hot.t=2", "--grid", "hot.t=3", "--out", o],
     "--grid gives hot.t twice"),  # only t=3 ran
    ("epsilon value twice", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                          "--epsilon", "1", "1", "--out", o],
     "--epsilon gives 1 twice"),  # de-duplicated silently
    ("epsilon option twice", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                           "--epsilon", "1", "--epsilon", "2", "--out", o],
     "argument --epsilon: given twice"),  # only 2 ran
    ("methods twice", lambda f, o: ["realdata", f["good"], "--target", "cost", "--methods",
                                    "pardt", "pardt", "--out", o], "--methods gives pardt twice"),
    ("x-range text", lambda f, o: ["realdata", f["good"], "--target", "cost", "--x-range",
                                   "age", "low", "80", "--categorical", "onehot", "--out", o],
     "two numbers"),
    ("bounds file missing", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                          "--feature-bounds", o + "/none.csv", "--out", o],
     "does not exist"),
    ("bounds file is a folder", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                              "--feature-bounds", o, "--out", o],
     "is a folder, not a file"),
    ("bounds file header", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                         "--feature-bounds", f["bounds header"], "--out", o],
     "column,lo,hi"),
    ("bounds file binary", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                         "--feature-bounds", f["binary"], "--out", o],
     "--feature-bounds: feature bounds file binary.csv is not a CSV file: it is binary data"),
    ("grid syntax", lambda f, o: ["realdata", f["good"], "--target", "cost", "--grid",
                                  "hot.depth", "--out", o], "--grid"),
    ("grid unknown method", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                          "--grid", "xgb.depth=1", "--categorical", "onehot",
                                          "--out", o], "xgb"),
    ("grid unknown parameter", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                             "--grid", "hot.bins=2", "--categorical",
                                             "onehot", "--out", o], "bins"),
    ("grid t = 0", lambda f, o: ["realdata", f["good"], "--target", "cost", "--grid",
                                 "hot.t=0", "--categorical", "onehot", "--out", o],
     "--grid hot.t must be integers in [1, 64], got 0"),  # was grids['hot']['t']
    ("grid rho 1.5", lambda f, o: ["realdata", f["good"], "--target", "cost", "--grid",
                                   "hot.rho=1.5", "--categorical", "onehot", "--out", o],
     "--grid hot.rho must be numbers"),
    ("out is a file", lambda f, o: ["realdata", f["good"], "--target", "cost", "--out",
                                    f["a file"]], "is a file"),
    ("out under a file", lambda f, o: ["realdata", f["good"], "--target", "cost", "--out",
                                       f["a file"] + "/results"], "cannot be written"),
    ("out unwritable", lambda f, o: ["realdata", f["good"], "--target", "cost", "--out",
                                     "/proc/ldpviz-results"], "cannot be written"),
    ("inf feature", lambda f, o: ["realdata", f["inf feature"], "--target", "y", "--out", o],
     "inf"),
    ("inf target", lambda f, o: ["realdata", f["inf target"], "--target", "y", "--y-range",
                                 "0", "20", "--out", o], "inf"),
    ("huge feature", lambda f, o: ["realdata", f["huge feature"], "--target", "y",
                                   "--y-range", "0", "20", "--out", o], "a"),
    ("huge target", lambda f, o: ["realdata", f["huge target"], "--target", "y", "--out", o],
     "--y-range"),
    ("huge target in range", lambda f, o: ["realdata", f["huge target"], "--target", "y",
                                           "--y-range", "0", "20",
                                           "--out", o], "y has values too large"),
    ("empty file", lambda f, o: ["realdata", f["empty"], "--target", "y", "--out", o],
     "empty"),
    ("header only", lambda f, o: ["realdata", f["header only"], "--target", "y", "--out", o],
     "header"),
    ("target only", lambda f, o: ["realdata", f["target only"], "--target", "y", "--out", o],
     "target_only.csv"),
    ("three rows", lambda f, o: ["realdata", f["three rows"], "--target", "y", "--y-range",
                                 "0", "5", "--out", o], "rows"),
    ("constant target", lambda f, o: ["realdata", f["constant target"], "--target", "y",
                                      "--private", "a", "--out", o],
     "target 'y' is constant (5 in all 20 rows)"),
    ("text target", lambda f, o: ["realdata", f["text target"], "--target", "y", "--out", o],
     "numeric"),
    ("text column", lambda f, o: ["realdata", f["text column"], "--target", "cost", "--out",
                                  o], "notes"),
    ("missing values", lambda f, o: ["realdata", f["missing"], "--target", "cost",
                                     "--categorical", "onehot", "--out", o], "income"),
    ("binary file", lambda f, o: ["realdata", f["binary"], "--target", "y", "--out", o],
     "binary.csv"),
    # issue 32: each says what is wrong and what to do
    ("private is the target", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                            "--private", "cost", "--out", o],
     "--private names 'cost', the target: the label is always private"),
    ("private typo", lambda f, o: ["realdata", f["good"], "--target", "cost", "--private",
                                   "incom", "--out", o], "(did you mean 'income'?)"),
    ("an excel workbook", lambda f, o: ["realdata", f["xlsx"], "--target", "V14", "--out", o],
     "costs.xlsx is not a csv file: it is a zip archive (an excel .xlsx"),
    ("an empty column", lambda f, o: ["realdata", f["empty column"], "--target", "cost",
                                      "--out", o],
     "column 'notes' has no value in any of the 160 rows; leave it out with drop=['notes'] "
     "(--drop notes on the command line)"),
    ("an empty column, rows dropped", lambda f, o: ["realdata", f["empty column"], "--target",
                                                    "cost", "--drop-missing", "--out", o],
     "--drop notes"),  # was: "fewer than 2 complete rows", a dead end
    ("a column missing almost everywhere", lambda f, o: [
        "realdata", f["mostly missing"], "--target", "cost", "--drop-missing", "--out", o],
     "would leave 1 of 160, fewer than the 2 needed: the columns missing most are 'notes'"),
    ("epsilon beyond the floats", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                                "--epsilon", "1e400", "--out", o],
     "--epsilon"),
    ("a number of 332 digits", lambda f, o: ["realdata", f["good"], "--target", "cost",
                                             "--reps", str(2**1100), "--out", o],
     "argument --reps: must be in [1, 10000], got 135829... (332 digits)"),
    ("run too long", lambda f, o: ["realdata", f["good"], "--target", "cost", "--private",
                                   "income", "--categorical", "onehot", "--y-range", "0", "4",
                                   "--max-minutes", "1e-6", "--out", o], "even 1 split takes"),
]


def _run_main(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's errors
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.err.strip()


@pytest.mark.parametrize(("name", "argv", "words"), BAD, ids=[b[0] for b in BAD])
def test_bad_invocations_end_in_one_line_and_exit_2(tmp_path, capsys, monkeypatch, name,
                                                   argv, words):
    monkeypatch.setattr(datasets, "_download", lambda url, path: (_ for _ in ()).throw(
        OSError("offline")))
    files = _bad_files(tmp_path)
    out = str(tmp_path / "out")
    code, err = _run_main(argv(files, out), capsys)
    lines = [line for line in err.splitlines() if not line.startswith("ldpviz: warning")
             and not line.startswith("ldpviz: WARNING")]
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("ldpviz: error:"), err
    assert "Traceback" not in err
    assert "encountered in" not in err, err  # numpy's floating-point warnings are noise here
    assert words.lower() in lines[0].lower(), lines[0]


def test_bad_invocations_print_no_traceback_through_python_m(tmp_path):
    files = _bad_files(tmp_path)
    for argv in (["reproduce", "fig2a", "--seed", "-1"],
                 ["realdata", files["good"], "--target", "cost", "--epsilon", "nan"],
                 ["realdata", files["inf feature"], "--target", "y", "--out",
                  str(tmp_path / "o")],
                 ["realdata", files["good"], "--target", "cost", "--out", files["a file"]]):
        out = _cli(*argv)
        assert out.returncode == 2, (argv, out.stderr)
        assert "Traceback" not in out.stderr
        assert out.stderr.strip().splitlines()[-1].startswith("ldpviz: error:")
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr


# ----------------------------------------------------------------------------------------------
# A command line that answers at once: --help and usage errors load no numerical library
# ----------------------------------------------------------------------------------------------
NUMERICAL = ("numpy", "scipy", "pandas", "sklearn", "matplotlib", "plotly", "joblib")
USAGE = [["--help"], [], ["reproduce", "--help"], ["realdata", "--help"], ["reproduce"],
         ["reproduce", "fig9"], ["simulate"], ["reproduce", "fig2a", "--n-jobs", "64"],
         ["reproduce", "fig2a", "--seed", "-1"], ["reproduce", "table1", "--quick"],
         ["reproduce", "table1", "--label-range", "leaky"],
         ["realdata", "missing.csv", "--target", "y"], ["realdata", "README.md"],
         ["realdata", "README.md", "--target", "y", "--epsilon", "nan"],
         ["realdata", "README.md", "--target", "y", "--methods", "hot-me"],
         ["realdata", "README.md", "--target", "y", "--grid", "hot.t=2", "--grid", "hot.t=3"],
         ["realdata", "README.md", "--target", "y", "--x-range", "a", "0", "1", "--x-range",
          "a", "0", "2"],
         ["realdata", "README.md", "--target", "y", "--feature-bounds", "missing.csv"]]


def _imports(*argv):
    """Run ``python -X importtime -m ldpviz ARGV``; return it and the top-level packages it
    imported."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "ldpviz", *argv],
                         capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[1])
    names = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in out.stderr.splitlines()
             if line.startswith("import time:") and "|" in line}
    return out, names


@pytest.mark.parametrize("argv", USAGE, ids=[" ".join(a) or "(nothing)" for a in USAGE])
def test_help_and_usage_errors_load_no_numerical_library(argv):
    """--help took 5-13 s on a busy two-core machine, and so did every one-line usage error:
    the parser imported the whole stack (bench_cli.py times it)."""
    out, names = _imports(*argv)
    errors = [line for line in out.stderr.splitlines() if not line.startswith("import time:")]
    assert out.returncode == (0 if "--help" in argv else 2), errors
    if out.returncode:
        assert len(errors) == 1 and errors[0].startswith("ldpviz: error:"), errors
    assert "importtime" not in " ".join(errors)
    assert names, "python -X importtime printed no imports: the check would see nothing"
    assert not names & set(NUMERICAL), f"{' '.join(argv)} imported {names & set(NUMERICAL)}"


def test_a_command_still_loads_what_it_needs(tmp_path):
    """The check above would also pass if nothing ran: a real command imports the stack."""
    out, names = _imports("reproduce", "fig2a", "--reps", "1", "--max-minutes", "1e-6",
                          "--out", str(tmp_path))
    assert out.returncode == 2 and "is estimated at" in out.stderr
    assert {"numpy", "pandas", "sklearn"} <= names


def test_the_parser_offers_what_the_commands_run():
    """The parser reads names from ldpviz.reproduce.catalog (no imports); the modules that
    run them use the same objects or agree with them."""
    from ldpviz.reproduce import catalog, whatif, whatif_inputs

    assert tuple(paper.FIGURES) == catalog.FIGURE_NAMES
    assert paper.TABLE_EPSILON is catalog.TABLE_EPSILON
    assert paper.TABLE_DATASETS is catalog.TABLE_DATASETS
    assert tuple(datasets.LABEL_RANGE_POLICIES) == catalog.LABEL_RANGE_POLICIES
    assert whatif.METHODS is catalog.METHODS
    assert whatif.MAX_MINUTES == whatif_inputs.MAX_MINUTES == catalog.MAX_MINUTES
    for name in catalog.TABLE_DATASETS:
        assert name in datasets.UCI_DATASETS
