"""The command line: help, reproduce a small Figure 2(a), realdata on a CSV, input errors."""

import functools
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from ldpviz import datasets
from ldpviz.__main__ import main
from ldpviz.reproduce import paper


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "ldpviz", *args], capture_output=True,
                          text=True, timeout=120)


def test_help_lists_the_subcommands(capsys):
    out = _cli("--help")  # through python -m, as a user runs it
    assert out.returncode == 0
    assert "reproduce" in out.stdout and "realdata" in out.stdout
    for command, expected in (("reproduce", ("fig2a", "fig2d", "table1", "table3", "--reps",
                                             "--n-jobs", "--out", "--data-home")),
                              ("realdata", ("--target", "--private", "--epsilon", "--reps",
                                            "--out"))):
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
    # one best grid point per (series, epsilon): 4 series x 2 epsilons x 2 replications
    assert len(best) == 4 * 2 * 2
    grid = pd.read_csv(tmp_path / "fig2a_grid.csv")
    assert len(grid) > len(best)
    png = (tmp_path / "fig2a.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    printed = capsys.readouterr().out
    assert "HistOfTree s*=1" in printed and "fig2a.png" in printed
    # the second run reads the cache and gives the same numbers
    assert main(["reproduce", "fig2a", "--reps", "2", "--out", str(tmp_path),
                 "--no-progress"]) == 0
    pd.testing.assert_frame_equal(best, pd.read_csv(tmp_path / "fig2a.csv"))


def _user_csv(tmp_path, n=160):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"income": rng.random(n), "smoker": rng.choice(["no", "yes"], n),
                          "age": rng.integers(20, 70, n), "steps": rng.random(n)})
    frame["cost"] = 2 * frame["income"] + (frame["smoker"] == "yes") + 0.3 * rng.random(n)
    path = tmp_path / "users.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_realdata_writes_ratios_for_every_method(tmp_path, capsys):
    path = _user_csv(tmp_path)
    out = tmp_path / "out"
    code = main(["realdata", str(path), "--target", "cost", "--private", "smoker", "income",
                 "--epsilon", "2", "--reps", "2", "--out", str(out), "--y-range", "0", "4",
                 "--n-jobs", "2", "--no-progress"])
    assert code == 0
    result = pd.read_csv(out / "realdata.csv")
    assert {"method", "epsilon", "mse_ratio", "paradigm"} <= set(result.columns)
    methods = set(zip(result["paradigm"], result["method"], strict=True))
    assert {("aligned", m) for m in paper.ALIGNED_METHODS} <= methods
    assert {("personalized", m) for m in paper.PERSONALIZED_METHODS} <= methods
    assert ("reference", "DT") in methods
    assert (result["mse_ratio"] > 0).all()
    assert (out / "realdata.png").is_file() and (out / "realdata.md").is_file()
    printed = capsys.readouterr().out
    assert "private: smoker, income" in printed and "HistOfTree ME" in printed


def _error(capsys, *argv):
    code = main(list(argv))
    err = capsys.readouterr().err.strip()
    return code, err


def test_input_errors_exit_2_with_one_line(tmp_path, capsys, monkeypatch):
    path = _user_csv(tmp_path)
    code, err = _error(capsys, "realdata", str(tmp_path / "missing.csv"), "--target", "cost")
    assert code == 2 and "missing.csv" in err and err.count("\n") == 0
    code, err = _error(capsys, "realdata", str(path), "--target", "price")
    assert code == 2 and "target 'price'" in err and err.count("\n") == 0
    frame = pd.read_csv(path)
    frame["notes"] = [f"free text {i}" for i in range(len(frame))]
    frame.to_csv(tmp_path / "text.csv", index=False)
    code, err = _error(capsys, "realdata", str(tmp_path / "text.csv"), "--target", "cost")
    assert code == 2 and "'notes'" in err and "cannot be encoded" in err
    code, err = _error(capsys, "realdata", str(path), "--target", "cost", "--reps", "0")
    assert code == 2 and "--reps" in err
    code, err = _error(capsys, "realdata", str(path), "--target", "cost", "--private", "x")
    assert code == 2 and "private" in err
    # a table whose data is neither local nor downloadable
    monkeypatch.setattr(datasets, "_download", lambda url, path: (_ for _ in ()).throw(
        OSError("offline")))
    code, err = _error(capsys, "reproduce", "table1", "--data-home", str(tmp_path / "none"),
                       "--reps", "1")
    assert code == 2 and "data_home" in err and err.count("\n") == 0


def test_errors_print_no_traceback(tmp_path):
    out = _cli("realdata", str(tmp_path / "absent.csv"), "--target", "y")
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and out.stderr.strip().startswith("ldpviz: error:")


def test_argument_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["reproduce", "fig9"])
    assert info.value.code == 2 and "fig9" in capsys.readouterr().err
