"""The what-if HTML report in headless Chromium: works with every request to the network
blocked, draws its plotly figures, and fits the window at 1024, 1366 and 1920 px; a report on a
table of hostile names shows them as text, with no link, markup or script of theirs live."""

import numpy as np
import pytest
from _browser import serve_static
from _hostile_table import COLUMNS, LINK, MATH, PRIVATE, run_realdata, write_table

from ldpviz.reproduce.whatif import whatif
from ldpviz.reproduce.whatif_report import html_report

pytestmark = pytest.mark.browser

# Each drawn plot: its width and how many markers or bars it shows (the report's figures are
# encoded as typed arrays, so gd.data does not hold plain lists).
DRAWN = """Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => ({
  width: gd.clientWidth, marks: gd.querySelectorAll('.point, .bars .point path').length}))"""

TINY = {"hot": {"depth": (0, 1), "t": (1, 2), "rho": (0.5,), "min_samples_leaf": (0,)},
        "tree": {"max_depth": (1, 2), "min_samples_leaf": (10,)}, "krr": {"k": (2,)},
        "adhot": {"c": (0.1,), "t_offset": (0,), "rho": (0.5,)}}


@pytest.fixture(scope="module")
def report_html():
    rng = np.random.default_rng(0)
    X = rng.random((300, 5))
    y = 3 * X[:, 0] + X[:, 1] + rng.normal(0, 0.5, 300)
    names = ["income", "age", "steps", "sleep", "visits"]
    screen = whatif(X, y, feature_names=names, y_range=(-2, 6), epsilons=(2, 4), reps=3,
                    grids=TINY)
    result = whatif(X, y, private=["income", "age"], personalized=["steps"],
                    feature_names=names, y_range=(-2, 6), epsilons=(1, 2, 4), reps=3,
                    grids=TINY)
    return {"answer": html_report(result, "ldpviz realdata x.csv").render(),
            "costs": html_report(screen).render()}


@pytest.mark.parametrize("kind", ["answer", "costs"])
@pytest.mark.parametrize("width", [1024, 1366, 1920])
def test_report_works_offline_and_fits(page, report_html, kind, width):
    p = page.page
    p.set_viewport_size({"width": width, "height": 900})
    p.set_content(report_html[kind], wait_until="load")
    expected = 1 if kind == "costs" else 2  # the answer adds the columns it comes from
    p.wait_for_function(f"(n) => ({DRAWN}).length >= n", arg=expected, timeout=30_000)
    plots = p.evaluate(DRAWN)
    assert len(plots) == expected and all(x["marks"] > 0 for x in plots), plots
    assert not page.external, f"the report fetched {page.external}"
    assert not page.console_errors, page.console_errors
    assert p.evaluate("document.documentElement.scrollWidth") <= width
    body = p.evaluate("document.body.clientWidth")
    container = min(body, 1100) * 0.85  # the page is at most 1100 px wide (its style sheet)
    assert all(x["width"] >= container - 48 for x in plots), (plots, body)


# ----------------------------------------------------------------------------------------------
# A table of hostile names (tests/_hostile_table.py), through the command line
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    """The reports of ``realdata`` on the hostile table (with --private, and without: every
    column's cost), served over HTTP from 127.0.0.1 so that a live relative link or image of
    the data would make a request the test sees."""
    folder = tmp_path_factory.mktemp("hostile")
    path = write_table(folder)
    for kind, extra in (("private", ["--private", *PRIVATE]), ("costs", [])):
        done = run_realdata(path, folder / kind, *extra)
        assert done.returncode == 0, done.stderr[-3000:]
    with serve_static(folder) as url:
        yield url


# Elements the data could have made live: links and images anywhere (plotly draws <a> in its
# SVG for an <a href> label; its own tool bar is the only place links belong), bold, italic
# and styled text in the figures, and every script that is not the page's own.
LIVE = """() => ({
  links: Array.from(document.querySelectorAll('a')).filter(a => !a.closest('.modebar'))
    .map(a => a.outerHTML.slice(0, 120)),
  images: document.querySelectorAll('img, image').length,
  styled: Array.from(document.querySelectorAll('.js-plotly-plot tspan[style]'))
    .map(t => t.getAttribute('style')).filter(s => /font-weight|font-style|font-size|fill/
    .test(s)),
  scripts: document.querySelectorAll('script').length,
  figures: document.querySelectorAll('.figure').length,
  ticks: Array.from(document.querySelectorAll('.xtick text')).map(t => t.textContent),
  legend: Array.from(document.querySelectorAll('.legendtext')).map(t => t.textContent),
  text: document.body.innerText,
})"""


@pytest.mark.parametrize("kind", ["private", "costs"])
def test_hostile_names_show_as_text_and_nothing_of_theirs_is_live(page, hostile_site, kind):
    p = page.page
    requests, dialogs = [], []
    p.on("request", lambda request: requests.append(request.url))
    p.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    url = f"{hostile_site}/{kind}/realdata.html"
    p.goto(url, wait_until="load")
    expected = 1 if kind == "costs" else 2
    p.wait_for_function(f"(n) => ({DRAWN}).length >= n", arg=expected, timeout=30_000)
    live = p.evaluate(LIVE)
    assert live["links"] == [] and live["images"] == 0 and live["styled"] == [], live
    assert live["scripts"] == 1 + live["figures"]  # plotly.js and one per figure
    assert not dialogs, dialogs
    assert not page.external, page.external
    assert {u for u in requests if not u.endswith("/favicon.ico")} == {url}, requests
    assert not page.console_errors, page.console_errors
    names = PRIVATE if kind == "private" else [c.strip() for c in COLUMNS]
    if kind == "costs":
        assert set(names) <= set(live["ticks"]), live["ticks"]  # the cost chart's axis
    for name in (LINK, MATH):
        assert name in live["text"]  # the answer or the tables, literally


# Every axis title of every figure, and how far it lies outside its figure's drawing (px).
TITLES = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).flatMap(gd => {
  const box = gd.querySelector('.main-svg').getBoundingClientRect();
  return Array.from(gd.querySelectorAll('.g-xtitle text, .g-ytitle text')).map(t => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, out: Math.max(box.top - r.top, r.bottom - box.bottom,
                                                box.left - r.left, r.right - box.right)};
  });
})"""


@pytest.mark.parametrize("kind", ["private", "costs"])
def test_axis_titles_stay_whole_beside_long_slanted_names(page, hostile_site, kind):
    """The cost chart's y title was cut at the top ('... (%, ± 2 SE' without its ')'): 16
    long slanted column names took most of its fixed 440 px, leaving a plot shorter than it."""
    p = page.page
    p.set_viewport_size({"width": 1024, "height": 768})
    p.goto(f"{hostile_site}/{kind}/realdata.html", wait_until="load")
    expected = 1 if kind == "costs" else 2
    p.wait_for_function(f"(n) => ({DRAWN}).length >= n", arg=expected, timeout=30_000)
    titles = p.evaluate(TITLES)
    assert titles and all(t["out"] <= 1 for t in titles), titles
