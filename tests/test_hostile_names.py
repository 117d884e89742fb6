"""A stranger's table whose names are formulas, markup, script and mathtext, through
``python -m ldpviz realdata``: every output file shows each name literally and runs none of it
(the HTML in Chromium: tests/browser/test_report.py)."""

import csv
import html
import html.parser
import re

import matplotlib
import pandas as pd
import pytest
from _hostile_table import (
    CATEGORY,
    FORMULA,
    IMAGE,
    LINK,
    MATH,
    PRIVATE,
    SCRIPT,
    Y_RANGE,
    feature_names,
    run_realdata,
    write_table,
)

from ldpviz._safe_text import FORMULA_START
from ldpviz.reproduce import whatif_data, whatif_report
from ldpviz.reproduce.whatif import whatif

NAMES = feature_names()
PLAIN_NUMBER = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """{"private": folder, "costs": folder}: the command with --private (three hostile
    names protected) and without (every column's cost); both must exit 0."""
    folder = tmp_path_factory.mktemp("hostile")
    path = write_table(folder)
    out = {}
    for kind, extra in (("private", ["--private", *PRIVATE]), ("costs", [])):
        done = run_realdata(path, folder / kind, *extra)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "Traceback" not in done.stderr
        out[kind] = folder / kind
    return out


def _csv_cells(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return [cell for row in csv.reader(handle) for cell in row]


@pytest.mark.parametrize("kind", ["private", "costs"])
def test_no_csv_cell_is_a_formula_and_numbers_stay_numbers(runs, kind):
    files = sorted(runs[kind].glob("realdata*.csv"))
    assert len(files) >= 4
    for path in files:
        for cell in _csv_cells(path):
            live = cell.lstrip(" ").startswith(FORMULA_START) and not PLAIN_NUMBER.fullmatch(cell)
            assert not live, (path.name, cell)
    costs = pd.read_csv(runs[kind] / "realdata_costs.csv")
    assert costs["cost"].dtype == float and costs["se"].dtype == float
    shown = {c.removeprefix("'") if c.startswith("'") else c for c in costs["column"]}
    expected = set(PRIVATE) if kind == "private" else set(NAMES)
    assert shown == expected
    for column in costs["column"]:  # the apostrophe only where a formula would start
        assert column.startswith("'") == column[1:].lstrip(" ").startswith(FORMULA_START) \
            if column.startswith("'") else not column.startswith(FORMULA_START)
    best = pd.read_csv(runs[kind] / "realdata.csv")
    assert best["mse"].dtype == float and (best["mse"] >= 0).all()


class _Page(html.parser.HTMLParser):
    """Every start tag and the text outside <script> of an HTML page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.text, self.urls, self.scripts, self._in_script = [], [], [], 0, False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.urls += [v or "" for k, v in attrs if k in ("src", "href", "action", "srcset")]
        self._in_script = tag == "script"
        self.scripts += tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False if tag == "script" else self._in_script

    def handle_data(self, data):
        if not self._in_script:
            self.text.append(data)


@pytest.mark.parametrize("kind", ["private", "costs"])
def test_the_html_report_holds_no_markup_from_the_data(runs, kind):
    page = (runs[kind] / "realdata.html").read_text(encoding="utf-8")
    for raw in (LINK, SCRIPT, IMAGE, "<b>bold</b>", "<span style", "<i>x</i>"):
        assert raw not in page, raw  # not as markup, and not inside the figures' JSON
    parsed = _Page()
    parsed.feed(page)
    assert not {"a", "img", "b", "i", "span", "iframe", "object", "link"} & set(parsed.tags)
    assert all(u.startswith(("data:", "#")) for u in parsed.urls), parsed.urls
    figures = page.count('class="figure"')
    assert parsed.scripts == 1 + figures  # plotly.js, then one per figure: none from data
    text = "".join(parsed.text)
    names = PRIVATE if kind == "private" else [n for n in NAMES if n != "lead"]
    for name in names:  # every name literally, in the answer, the tables or the choices
        assert name in text, name


@pytest.mark.parametrize("kind", ["private", "costs"])
def test_the_html_report_has_no_empty_field_and_no_none(runs, kind):
    """columns_left_out, identifier_like, loader_summary and methods showed empty or None."""
    page = (runs[kind] / "realdata.html").read_text(encoding="utf-8")
    cells = re.findall(r"<(td|dd)[^>]*>(.*?)</\1>", page, re.S)
    assert cells and all(text.strip() for _, text in cells), [t for t in cells if not t[1]]
    assert not [text for _, text in cells if text.strip() in ("None", "nan", "NaN", "[]", "{}")]


mistune = pytest.importorskip("mistune")


@pytest.mark.parametrize("kind", ["private", "costs"])
def test_the_markdown_shows_every_name_literally_and_keeps_its_rows(runs, kind):
    source = (runs[kind] / "realdata.md").read_text(encoding="utf-8")
    page = mistune.create_markdown(plugins=["table", "strikethrough", "url"])(source)
    tags = set(re.findall(r"<([a-z0-9]+)", page))
    assert tags <= {"h1", "p", "ul", "li", "table", "thead", "tbody", "tr", "th", "td"}, tags
    for table in re.findall(r"<table>.*?</table>", page, re.S):
        rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
        widths = {len(re.findall(r"<t[hd]>", row)) for row in rows}
        assert len(widths) == 1, widths  # a "|" in a name no longer splits its row
    cells = {html.unescape(c).strip() for c in re.findall(r"<td>(.*?)</td>", page, re.S)}
    expected = PRIVATE if kind == "private" else [n for n in NAMES if n != "lead"]
    assert set(expected) <= cells  # the per-column cost table names each column literally


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    """The per-column costs of the hostile table, in Python (the file named like mathtext)."""
    table = whatif_data.load_table(write_table(tmp_path_factory.mktemp("t"), n=120), "cost",
                                   y_range=tuple(map(float, Y_RANGE)), categorical="onehot")
    return whatif(table.X, table.y, feature_names=table.feature_names, epsilons=(2,),
                  reps=2, y_range=table.y_range, name=MATH, target_name="income ($)",
                  grids={"tree": {"max_depth": (1,), "min_samples_leaf": (10,)}})


def test_the_answer_as_markdown_for_a_notebook_shows_every_name_literally(result):
    text = whatif_report.answer_markdown(result)
    page = mistune.create_markdown(plugins=["table", "strikethrough", "url"])(text)
    assert set(re.findall(r"<([a-z0-9]+)", page)) <= {"ul", "li"}, page
    shown = html.unescape(re.sub(r"<[^>]+>", "", page))
    for sentence in result.sentences:
        assert sentence in shown


def test_figures_draw_every_name_without_mathtext(result):
    """A "$" in a name made the command exit 2 after the whole computation; "income ($)"
    rendered as math in the PNG titles."""
    from matplotlib import cbook

    fig = whatif_report.costs_figure(result, top=len(NAMES))
    fig.canvas.draw()
    texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_text()]
    assert not any(cbook.is_math_text(t.get_text()) for t in texts)
    shown = {t._preprocess_math(t.get_text())[0] for t in texts}
    assert set(NAMES) <= shown  # each tick label is the name itself
    title = fig._suptitle._preprocess_math(fig.get_suptitle())[0]
    assert MATH in title and "income ($)" in title.replace("\n", " ")
    assert {f"{CATEGORY}_$y$", FORMULA} <= shown


def test_the_cost_chart_draws_every_text_inside_the_figure(result):
    """The chart's title, centred over the axes, ran off the right edge of realdata_costs.png
    ("... predicting income ($); 3" cut mid-word) for a table named like mathtext."""
    import dataclasses

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    costs = result.costs
    cases = [(data, columns) for data in ("income.csv", MATH, "a" * 200)
             for columns in (PRIVATE, NAMES)]
    for data, columns in cases:  # a title line of 77 characters, 81, 250; a narrow or wide
        # chart (the command's with --private: the link's slanted label moves the axes right)
        shown = dataclasses.replace(result, choices={**result.choices, "data": data},
                                    costs=costs[costs["column"].isin(columns)])
        top = len(columns)
        fig = whatif_report.costs_figure(shown, top=top)
        canvas = FigureCanvasAgg(fig)  # as savefig draws the PNG
        canvas.draw()
        ax, = fig.axes
        texts = [ax.title, *fig.texts, ax.yaxis.label, *ax.get_xticklabels(),
                 *ax.get_legend().get_texts()]
        extents = [(t.get_text(), t.get_window_extent(canvas.get_renderer())) for t in texts
                   if t.get_text()]
        box = fig.bbox.expanded(1.001, 1.001)
        outside = [text for text, e in extents
                   if not (box.contains(*e.p0) and box.contains(*e.p1))]
        assert len(extents) > top and not outside, (data, top, outside)
