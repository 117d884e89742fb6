"""Every numbered notebook, run in JupyterLab in headless Chromium.

Runs all cells through JupyterLab's own command, then checks what a student would see: no
error output, no "Error displaying widget", every plotly FigureWidget drawn with data, every
figure whole and legible at 1366 x 768, 1024 x 768 and 1920 x 1080 (``check_layout``: fits its
output area and the viewport, uses its width, no label clipped or overlapping, no explorer
scrolling sideways), and nothing fetched from the internet.
"""

import json
import re
import time
from pathlib import Path

import pytest
from _browser import DRAWN_PLOTS, ROOT, VIEWPORTS, check_layout, resize

pytestmark = pytest.mark.browser

NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
RUN_TIMEOUT_MS = 120_000  # every notebook runs in under two minutes

KERNEL_READY = """async () => {
  const panel = window.jupyterapp.shell.currentWidget;
  await panel.context.ready;
  await panel.sessionContext.ready;
  return panel.sessionContext.session.kernel.status;
}"""

RUN_ALL = """async () => {
  await window.jupyterapp.commands.execute('notebook:run-all-cells');
}"""

DONE = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  const pending = panel.content.widgets.some(
    c => c.model.type === 'code' && (c.promptNode && c.promptNode.textContent.includes('*')));
  return kernel && kernel.status === 'idle' && !pending;
}"""

ERRORS = """() => window.jupyterapp.shell.currentWidget.content.widgets
  .filter(c => c.model.type === 'code')
  .flatMap((c, i) => c.model.outputs.toJSON()
    .filter(o => o.output_type === 'error')
    .map(o => `cell ${i}: ${o.ename}: ${o.evalue}`))"""


def _explorers_displayed(name):
    """How many explorers the notebook displays (calls like ``lambda_explorer(n=n)``)."""
    cells = json.loads((ROOT / "notebooks" / name).read_text())["cells"]
    source = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    return len(re.findall(r"\b\w+_explorer\([^()]*\)|\bdashboard\([^()]*\)", source))


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_clean_in_jupyterlab(page, lab_url, name):
    p = page.page
    start = time.perf_counter()
    p.goto(f"{lab_url}/lab/tree/{name}?reset", timeout=120_000)
    p.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=120_000)
    p.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget",
                        timeout=60_000)
    p.evaluate(KERNEL_READY)
    p.evaluate(RUN_ALL)
    p.wait_for_function(DONE, timeout=RUN_TIMEOUT_MS, polling=500)
    errors = p.evaluate(ERRORS)
    assert not errors, f"{name}: cells failed: {errors}"
    assert not p.get_by_text("Error displaying widget").count(), (
        f"{name}: a widget could not be displayed")
    expected = _explorers_displayed(name)
    if expected:
        try:
            p.wait_for_function(
                f"(n) => {{ const v = ({DRAWN_PLOTS})(null); "
                "return v.length >= n && v.every(x => x.svg > 0 && x.points > 0); }",
                arg=expected, timeout=60_000)
        except Exception:
            plots = p.evaluate(DRAWN_PLOTS)
            pytest.fail(f"{name}: {expected} explorers, but the visible plots are {plots}")
        for width, height in VIEWPORTS:
            resize(p, width, height)
            check_layout(p, f"{name} in JupyterLab, {width} x {height}")
    assert not page.external, f"{name}: fetched from the internet: {page.external}"
    assert not page.console_errors, f"{name}: browser console errors: {page.console_errors}"
    print(f"\n{name}: ran in JupyterLab in {time.perf_counter() - start:.1f} s, "
          f"{expected} explorers drawn")


def test_notebooks_exist():
    assert len(NOTEBOOKS) >= 6, NOTEBOOKS
    assert Path(ROOT / "notebooks" / "app.ipynb").exists()
