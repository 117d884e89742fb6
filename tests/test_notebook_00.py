"""Notebook 00's plan and tables follow from the notebooks.

The lecture plan states how long each row takes; ``ldpviz.viz.course_plan`` derives it from the
notebooks' length at one pace, and these tests recompute every row, the notebooks table and
the **Time.** lines of notebooks 01-08, so a notebook that grows makes the plan fail here
instead of silently overrunning a lecture.
"""

import itertools
import json
import re

import pytest
from _notebooks import NOTEBOOK_DIR, ROOT, notebook_path

from ldpviz.viz.course_plan import PACE, course_table, plan_minutes

LECTURE = 90  # minutes
_ROW = re.compile(r"^\|\s*(\d):(\d\d)[–-](\d):(\d\d)\s*\|\s*([^|]+?)\s*\|", re.MULTILINE)


def _markdown(prefix):
    cells = json.loads(notebook_path(prefix).read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]


def _section(prefix, heading):
    return next(text for text in _markdown(prefix) if text.startswith(heading))


def _lectures(text):
    """Rows of each lecture table: (start, end, what) in minutes, split at a start of 0:00."""
    lectures = []
    for h0, m0, h1, m1, what in _ROW.findall(text):
        start, end = 60 * int(h0) + int(m0), 60 * int(h1) + int(m1)
        if start == 0:
            lectures.append([])
        lectures[-1].append((start, end, what))
    return lectures


@pytest.fixture(scope="module")
def plan():
    return _section("00", "## Three 90-minute lectures")


def test_the_plan_has_three_lectures_and_a_two_lecture_variant(plan):
    lectures = _lectures(plan)
    assert len(lectures) == 5  # three lectures, then the two of the short variant
    for rows in lectures:
        assert rows[-1][1] == LECTURE and rows[-1][2] == "wrap-up"
        assert all(a[1] == b[0] for a, b in itertools.pairwise(rows))  # contiguous


def test_every_row_takes_the_time_its_sections_take(plan):
    for rows in _lectures(plan):
        for start, end, what in rows:
            if what != "wrap-up":
                assert end - start == plan_minutes(NOTEBOOK_DIR, what), (what, start, end)


def test_the_plan_states_the_pace_it_is_derived_at(plan):
    words = " ".join(plan.split())
    assert f"{PACE.words_per_minute:g} words a minute" in words
    assert f"{PACE.code_cell:g} minutes per code cell" in words
    assert f"{PACE.explorer:g} minutes per live explorer" in words
    assert f"in class ({PACE.exercise:g} minutes)" in words


def test_each_lecture_leaves_time_to_wrap_up(plan):
    for rows in _lectures(plan):
        assert LECTURE - rows[-1][0] >= 5


def test_the_plan_teaches_no_optional_section(plan):
    from ldpviz.viz.course_plan import notebook_sections, plan_sections

    for rows in _lectures(plan):
        for _, _, what in rows:
            if what != "wrap-up" and "Exercise" not in what:
                table = notebook_sections(notebook_path(what[:2]))
                chosen = plan_sections(table, what)
                assert not table.loc[chosen, "optional"].any(), what


def test_the_notebooks_table_gives_each_notebooks_derived_times():
    table = course_table(NOTEBOOK_DIR)
    text = _section("00", "## The notebooks")
    for nb, row in table.drop(index="00").iterrows():
        line = next(line for line in text.splitlines() if line.startswith(f"| {nb} |"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        full, short = row["class (all sections)"], row["class (optional skipped)"]
        assert cells[4] == (f"{full} / {short} min" if full != short else f"{full} min"), nb
        assert cells[5] == f"{row['alone']} min", nb


@pytest.mark.parametrize("prefix", ["01", "02", "03", "04", "05", "06", "07", "08"])
def test_each_notebooks_time_line_is_derived(prefix):
    row = course_table(NOTEBOOK_DIR).loc[prefix]
    opening = _markdown(prefix)[0]
    found = re.search(r"\*\*Time\.\*\* (\d+) minutes in class(?: \((\d+) without [^)]*\))?, "
                      r"(\d+) alone", opening)
    assert found, opening
    full, short, alone = found.groups()
    assert int(full) == row["class (all sections)"]
    assert int(short or full) == row["class (optional skipped)"]
    assert int(alone) == row["alone"]


def test_optional_sections_say_what_needs_them():
    for prefix in ("01", "02", "03", "04", "05", "06", "07", "08"):
        for text in _markdown(prefix):
            if text.startswith("## ") and text.splitlines()[0].endswith("*(optional)*"):
                first = text.split("\n\n", 2)[1]
                assert re.search(r"\bneed|\buse", first), (prefix, first)


def test_start_here_points_to_the_fundamentals_and_the_readme_lists_them():
    conventions = _section("00", "## Conventions")
    assert "**Start here:** [01 · " in conventions and "(01_local_dp_fundamentals.ipynb)" in \
        conventions
    readme = (ROOT / "README.md").read_text()
    for path in sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb")):
        assert f"| `{path.stem}` |" in readme, path.stem
