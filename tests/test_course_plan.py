"""The lecture plan's arithmetic: sections, words, cells and minutes read off a notebook."""

import json

import pytest

from ldpviz.viz.course_plan import PACE, course_table, minutes, notebook_sections, section_range


def _notebook(path, cells):
    nb = {"cells": [{"cell_type": kind, "metadata": meta, "source": source,
                     **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                    for kind, source, meta in cells],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb))
    return path


@pytest.fixture
def notebook(tmp_path):
    words = " ".join(["word"] * 100)
    return _notebook(tmp_path / "09_demo.ipynb", [
        ("markdown", "# 09 · Demo\n\n**Learning goal.** one two three", {}),
        ("code", "import numpy", {}),
        ("markdown", f"## 1. First\n\n{words}", {}),
        ("code", "x = 1", {}),
        ("code", "partition_explorer()", {}),
        ("markdown", f"## 2. Second *(optional)*\n\nThe later sections do not need it. {words}"
                     "\n\n## 2b. Same cell, next heading\n\nfive words in this one", {}),
        ("code", "y = 2", {"tags": ["hide-input"], "jupyter": {"source_hidden": True}}),
        ("markdown", "## Exercises\n\n**Exercise 1 (a).** Do it.\n\n<details><summary>Answer"
                     f"</summary>\n\n{words}\n\n</details>", {}),
        ("markdown", "**Exercise 2 (b).** Again.", {}),
        ("code", "print(2)", {"tags": ["solution"], "jupyter": {"source_hidden": True}}),
        ("markdown", "## What you should take away\n\n* one", {}),
    ])


def test_sections_words_cells_and_minutes(notebook):
    table = notebook_sections(notebook)
    assert list(table.index) == ["opening", "1", "2", "2b", "exercises",
                                 "what you should take away"]
    assert table.loc["2", "optional"] and not table.loc["1", "optional"]
    assert table.loc["2", "title"] == "2. Second"
    assert table.loc["1", "words"] == 102  # "1." "First" and 100 words ("##" is no word)
    assert table.loc["1", "code_cells"] == 1 and table.loc["1", "explorers"] == 1
    assert table.loc["2b", "code_cells"] == 1  # a hidden table still runs in class
    assert table.loc["2b", "words"] == 10
    assert table.loc["exercises", "exercises"] == 2 and table.loc["exercises", "homework"]
    assert table.loc["exercises", "answer_words"] == 102  # with <details><summary>Answer
    assert table.loc["exercises", "class_minutes"] == 0  # homework
    expected = 102 / PACE.words_per_minute + PACE.code_cell + PACE.explorer
    assert table.loc["1", "class_minutes"] == pytest.approx(expected)
    alone = table.loc["exercises", "alone_minutes"]
    assert alone == pytest.approx((table.loc["exercises", "words"] + 102)
                                  / PACE.words_per_minute + PACE.alone_code_cell
                                  + 2 * PACE.exercise)


def test_ranges_and_rounded_minutes(notebook):
    table = notebook_sections(notebook)
    assert section_range(table, "1", "2b") == ["1", "2", "2b"]
    assert section_range(table, "2") == ["2"]
    assert minutes(table, ["1"]) == 9  # 1.02 + 1.5 + 6 = 8.52, rounded up
    with pytest.raises(ValueError, match="no section '7'"):
        section_range(table, "7")
    with pytest.raises(ValueError, match="comes before"):
        section_range(table, "2b", "1")


def test_course_table_skips_the_optional_sections(notebook):
    row = course_table(notebook.parent).loc["09"]
    table = notebook_sections(notebook)
    assert row["class (all sections)"] == minutes(table, table.index)
    assert row["class (optional skipped)"] == minutes(table, ["opening", "1", "2b", "exercises",
                                                              "what you should take away"])
    assert row["optional sections"] == "§2"


def test_two_sections_with_one_key_are_refused(tmp_path):
    path = _notebook(tmp_path / "10_twice.ipynb", [("markdown", "## 1. A", {}),
                                                   ("markdown", "## 1. B", {})])
    with pytest.raises(ValueError, match="share a key"):
        notebook_sections(path)
