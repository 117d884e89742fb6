"""The what-if HTML report in headless Chromium: works with every request to the network
blocked, draws its plotly figures, and fits the window at 1024, 1366 and 1920 px."""

import numpy as np
import pytest

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
