"""What a student sees of any notebook, in any front-end, holds no test code.

JupyterLab collapses a cell whose source is hidden; VS Code, Colab and GitHub show it. So a
notebook may hold no test code at all: no assert (nor ``np.testing.assert_*``), no cell tagged
``check``, no verdict that a visible cell computes by comparing numbers and printing words such
as "within the noise", no ``np.allclose`` or ``np.array_equal`` that prints True. The checks of
what the prose claims run in ``tests/test_notebook_NN.py`` on the variables a notebook leaves
(``tests/_notebooks.py``), and still fail when a number drifts. Every code line fits a cell at
1024 px: ruff enforces 88 characters in code cells (``notebooks/ruff.toml``, E501), this test
in the code blocks of the answers, which ruff does not read.

This test covers every notebook in ``notebooks/``: the course (00-08) and the app.
"""

import json
import re
import tomllib

import pytest
from _notebooks import NOTEBOOK_DIR

MAX_LINE = 88  # characters: a code line fits a notebook cell at 1024 px
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))

_ASSERT = re.compile(r"^\s*assert\b|\bassert_\w+\(|\bassert\s*\(", re.MULTILINE)
_CODE_BLOCK = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)
# Words that pass judgement on numbers. A package function may return them in a table (a
# verdict column computed and tested in ldpviz); a cell's own string literal may not.
_VERDICT = re.compile(r"""(["'])[^"'\n]*(?:within the noise|within noise|beyond the noise|"""
                      r"""beyond two|not significant|is significant|\bpass(?:es|ed)?\b|"""
                      r"""\bfail(?:s|ed)?\b)[^"'\n]*\1""", re.IGNORECASE)
# A comparison whose only output is True or False is a check, whatever prints it.
_CHECK_CALL = re.compile(r"\b(?:allclose|array_equal|array_equiv|isclose)\(")


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def front_end_problems(path):
    """Test code and overlong code lines in one notebook: [] when there are none."""
    problems = []
    for index, cell in enumerate(_cells(path)):
        source = "".join(cell["source"])
        tags = set(cell["metadata"].get("tags", ()))
        if "check" in tags:
            problems.append(f"cell {index} is tagged check")
        code = source if cell["cell_type"] == "code" else "\n".join(_CODE_BLOCK.findall(source))
        if _ASSERT.search(code):
            problems.append(f"cell {index} asserts")
        if cell["cell_type"] == "code" and "solution" not in tags:
            problems += [f"cell {index} computes a verdict: {m.group(0)}"
                         for m in [*_VERDICT.finditer(source), *_CHECK_CALL.finditer(source)]]
        if cell["cell_type"] == "markdown":  # ruff reads the code cells
            problems += [f"cell {index}: a code line of {len(line)} characters"
                         for line in code.split("\n") if len(line) > MAX_LINE]
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_no_test_code_and_lines_that_fit(path):
    assert front_end_problems(path) == []


def test_ruff_holds_notebook_code_lines_to_88_characters():
    config = tomllib.loads((NOTEBOOK_DIR / "ruff.toml").read_text(encoding="utf-8"))
    assert config["line-length"] == MAX_LINE
    ignored = config["lint"]["per-file-ignores"]
    assert not any("E501" in codes or "E" in codes for codes in ignored.values())


def test_every_course_notebook_is_covered():
    names = {p.name[:2] for p in NOTEBOOKS}
    assert {f"{k:02d}" for k in range(9)} <= names and "ap" in names


@pytest.mark.parametrize("source, problem", [
    ("assert x == 1", "asserts"),
    ("np.testing.assert_allclose(a, b)", "asserts"),
    ('print(f"{gap:.3f} is within the noise")', "verdict"),
    ("verdict = lambda g, s: 'significant' if g > s else 'not significant'", "verdict"),
    ("print(np.allclose(counts, expected))", "verdict"),
    ("x = 1  # " + "y" * 90, "characters"),
])
def test_the_scanner_catches_test_code(tmp_path, source, problem):
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "source": [source]}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(notebook))
    found = front_end_problems(path)
    if problem == "characters":
        assert found == []  # in a code cell, ruff's E501
    else:
        assert found and problem in found[0]
    notebook["cells"][0]["cell_type"] = "markdown"
    notebook["cells"][0]["source"] = [f"**Answer.**\n\n```python\n{source}\n```\n"]
    path.write_text(json.dumps(notebook))
    if problem != "verdict":  # an answer's code block shows the same code
        assert problem in front_end_problems(path)[0]
    notebook["cells"][0]["metadata"] = {"tags": ["check"]}
    path.write_text(json.dumps(notebook))
    assert "tagged check" in front_end_problems(path)[0]
