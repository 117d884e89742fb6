"""The course as a static JupyterLite site (``make lite``), offline in headless Chromium.

The site in build/lite/site is served on 127.0.0.1 by a plain file server. Notebook 01 runs top
to bottom in the browser's own Python (Pyodide); notebook 02's mechanism explorer is drawn (its
first code cell, then the explorer's), its slider dragged with the mouse, and its picture must
redraw; the app renders in Voici and redraws. With ``LDPVIZ_LITE_ALL=1`` an explorer of every
other notebook is checked the same way (several minutes each on a busy two-core machine, so
not in ``make test``). Every test fails on a request that leaves 127.0.0.1 (the kernel's
worker included) and on any browser console error. ``make lite-check`` builds the site and runs
this file with ``LDPVIZ_LITE_SITE`` set; without it every test here is skipped (``make unit``
runs before the site is built).
"""

from __future__ import annotations

import json
import os
import re
import time

import pytest
from _browser import ROOT, check_layout, resize
from _lite_site import PROGRESS, REQUESTED, SITE, drag_and_check_redraw, open_notebook, serve
from test_lab import DONE, ERRORS  # done: idle, no cell waiting; error outputs

pytestmark = pytest.mark.browser
if not REQUESTED:
    pytest.skip("the JupyterLite site is tested by `make lite-check` (it builds it first)",
                allow_module_level=True)
if not (SITE / "jupyter-lite.json").exists():
    pytest.fail(f"LDPVIZ_LITE_SITE={SITE} holds no JupyterLite site (make lite)",
                pytrace=False)

FULL = ["01_local_dp_fundamentals.ipynb"]
RUN_TIMEOUT_MS = 900_000  # a busy two-core machine: Pyodide runs numpy code 2-5x slower
# Where a notebook has no explorer: 00 runs its two cells (the plan reads the notebooks from
# the browser's file system), 07 its first two (the diabetes data, bundled: no download).
NO_EXPLORER = {"00_index.ipynb": [0, 1], "07_whatif_real_data.ipynb": [0, 1]}
EXPLORER = re.compile(r"\b\w+_explorer\(|\bdashboard\(")


@pytest.fixture(scope="module")
def site_url():
    with serve() as url:
        yield url


@pytest.fixture
def lite_page(browser):
    """A 1024 x 768 page (the lecture-hall projector) whose context, workers included,
    may only reach 127.0.0.1."""
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    record = {"external": [], "console": []}

    def route(r):
        if r.request.url.startswith(("http://127.0.0.1", "data:", "blob:")):
            r.continue_()
        else:
            record["external"].append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and record["console"].append(m.text))
    page.on("pageerror", lambda e: record["console"].append(f"page error: {e}"))
    page.on("worker", lambda w: w.on("console", lambda m: m.type == "error" and
                                     record["console"].append(f"worker: {m.text}")))
    try:
        yield page, record
    finally:
        context.close()


def _code_cells(name):
    cells = json.loads((ROOT / "notebooks" / name).read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def _cells_to_run(name):
    """Its first code cell and its first explorer's cell (or NO_EXPLORER's choice)."""
    if name in NO_EXPLORER:
        return NO_EXPLORER[name]
    code = _code_cells(name)
    return [0, next(i for i, c in enumerate(code) if EXPLORER.search(c))]


RUN_CODE_CELLS = """async (wanted) => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  const code = panel.content.widgets.map((c, i) => [c, i]).filter(([c]) => c.model.type === 'code');
  for (const k of wanted) {
    panel.content.activeCellIndex = code[k][1];
    await app.commands.execute('notebook:run-cell');
  }
}"""


def _run(page, cells, timeout_ms=RUN_TIMEOUT_MS):
    if cells is None:
        page.evaluate("async () => { await window.jupyterapp.commands.execute("
                      "'notebook:run-all-cells'); }")
    else:
        page.evaluate(RUN_CODE_CELLS, cells)
    page.wait_for_timeout(500)
    page.wait_for_function(DONE, timeout=timeout_ms, polling=1000)
    errors = page.evaluate(ERRORS)
    assert not errors, f"cells failed: {errors}"


def _check_clean(record, where):
    assert not record["external"], f"{where}: requests left 127.0.0.1: {record['external']}"
    assert not record["console"], f"{where}: browser console errors: {record['console']}"


@pytest.mark.parametrize("name", FULL)
def test_notebook_runs_top_to_bottom_in_the_browser(lite_page, site_url, name, tmp_path):
    page, record = lite_page
    start = time.perf_counter()
    open_notebook(page, site_url, name)
    _run(page, None)
    progress = page.evaluate(PROGRESS)
    assert progress["ran"] == progress["cells"] == len(_code_cells(name)), progress
    assert not page.get_by_text("Error displaying widget").count()
    explorers = [i for i, c in enumerate(_code_cells(name)) if EXPLORER.search(c)]
    if explorers:
        redraw = drag_and_check_redraw(page, name, explorers[-1])
        check_layout(page, f"{name} in JupyterLite at 1024 x 768")
        print(f"\n{name}: redraw {redraw * 1000:.0f} ms after release")
    _check_clean(record, name)
    print(f"\n{name}: {progress['cells']} code cells ran in JupyterLite in "
          f"{time.perf_counter() - start:.0f} s")


OTHERS = (sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")
                 if p.name not in FULL) if os.environ.get("LDPVIZ_LITE_ALL") == "1"
          else ["02_semi_feature_ldp.ipynb"])


@pytest.mark.parametrize("name", OTHERS)
def test_an_explorer_of_another_notebook_draws_and_redraws(lite_page, site_url, name):
    page, record = lite_page
    open_notebook(page, site_url, name)
    cells = _cells_to_run(name)
    _run(page, cells)
    if name not in NO_EXPLORER:
        redraw = drag_and_check_redraw(page, name, cells[-1])
        resize(page, 1024, 768)
        check_layout(page, f"{name} in JupyterLite at 1024 x 768")
        print(f"\n{name}: code cells {cells} ran, redraw {redraw * 1000:.0f} ms after release")
    _check_clean(record, name)


def test_the_app_renders_in_voici_and_redraws(lite_page, site_url):
    page, record = lite_page
    page.goto(f"{site_url}/app/voici/render/app.html", timeout=180_000)
    redraw = drag_and_check_redraw(page, "the app")
    check_layout(page, "the app in Voici at 1024 x 768")
    _check_clean(record, "the app")
    print(f"\napp: redraw {redraw * 1000:.0f} ms after release")


def test_every_pyodide_file_matches_the_official_lock():
    """The site's Pyodide files: those of Pyodide's own packages have the sha256 of the
    official lock (npm's pyodide package, as lite/pyodide_dist.py checked them when it
    built the site), the added ones (ldpviz, plotly, ...) the sha256 their lock entry names."""
    import hashlib
    import sys

    sys.path.insert(0, str(ROOT / "lite"))
    import pyodide_dist

    official = json.loads((pyodide_dist.npm_core(pyodide_dist.cache_dir())
                           / "pyodide-lock.json").read_text())["packages"]
    lock = json.loads((SITE / "static" / "pyodide" / "pyodide-lock.json").read_text())
    from_pyodide = 0
    for name, entry in lock["packages"].items():
        digest = hashlib.sha256((SITE / "static" / "pyodide" / entry["file_name"])
                                .read_bytes()).hexdigest()
        assert digest == entry["sha256"], name
        if official.get(name, {}).get("file_name") == entry["file_name"]:
            assert digest == official[name]["sha256"], f"{name} differs from Pyodide's build"
            from_pyodide += 1
    assert from_pyodide >= 30  # numpy, scipy, scikit-learn, pandas, matplotlib, ...
