"""The JupyterLite site (``make lite``) served on 127.0.0.1, and how to drive it.

Shared by tests/browser/test_lite.py and benchmarks/bench_lite.py. The site is a folder of
static files: a plain HTTP server on the loopback address serves it (``_browser.serve_static``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from _browser import DRAWN_PLOTS, PLOT_SIGNATURE, ROOT, serve_static
from test_lab import KERNEL_READY  # the kernel's status once the notebook is open

# Set by `make lite-check`, which builds the site first (a stale one is never tested).
SITE = Path(os.environ.get("LDPVIZ_LITE_SITE", ROOT / "build" / "lite" / "site"))
REQUESTED = "LDPVIZ_LITE_SITE" in os.environ


def serve(site=SITE):
    """Serve ``site`` on 127.0.0.1 (a free port) in a thread; yields the base URL."""
    return serve_static(site)


# How many code cells have run (an execution count) and how many show an output.
PROGRESS = """() => {
  const cells = window.jupyterapp.shell.currentWidget.content.widgets
    .filter(c => c.model.type === 'code');
  return {cells: cells.length,
          ran: cells.filter(c => c.model.executionCount).length,
          outputs: cells.filter(c => c.model.outputs.length > 0).length};
}"""


def open_notebook(page, url, name, timeout_ms=180_000):
    """Open ``name`` in the site's JupyterLab and wait for its kernel."""
    page.goto(f"{url}/lab/index.html?path={name}", timeout=timeout_ms)
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
        " && window.jupyterapp.shell.currentWidget.sessionContext", timeout=timeout_ms)
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=timeout_ms)
    return page.evaluate(KERNEL_READY)


SHOW_CELL = """async (k) => {
  const notebook = window.jupyterapp.shell.currentWidget.content;
  const i = notebook.widgets.map((c, i) => [c, i]).filter(([c]) => c.model.type === 'code')[k][1];
  notebook.activeCellIndex = i;
  await notebook.scrollToItem(i, 'start');
}"""


def drag_and_check_redraw(page, where, cell=None):
    """Drag the first slider (epsilon) of the explorer in code cell ``cell`` (the app: the
    page's first); its picture must change."""
    if cell is not None:  # JupyterLab draws only the cells near the viewport
        page.evaluate(SHOW_CELL, cell)
    page.wait_for_function(f"() => ({DRAWN_PLOTS})(null).some(x => x.svg > 0 && x.points > 0)",
                           timeout=300_000)
    before = page.evaluate(PLOT_SIGNATURE)
    handle = page.locator(".widget-slider .noUi-handle").first  # epsilon: always enabled
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 40, y, steps=4)
    page.mouse.move(x + 80, y, steps=4)
    page.mouse.up()
    released = time.perf_counter()
    page.wait_for_function(f"(b) => ({PLOT_SIGNATURE})(null) !== b", arg=before,
                           timeout=30_000, polling=50)
    return time.perf_counter() - released
