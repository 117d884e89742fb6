"""How fast the JupyterLite site (``make lite``) is to teach from, in headless Chromium.

    python benchmarks/bench_lite.py [--runs 3]      (needs build/lite/site: make lite)

Each run is a first visit (a fresh browser profile, nothing cached) to the site served on
127.0.0.1. It prints, as the median of the runs:

- page load to the notebook's kernel session started (its status still "unknown": Pyodide and
  the course's packages, lite/jupyter-lite.json's loadPyodideOptions, load after this);
- page load to the first output of notebook 02: its first two code cells (the imports, then a
  table) run as soon as the kernel exists, and the table is the first output (a notice on
  stderr, such as matplotlib's "building the font cache", does not count): target 20 s;
- page load to its mechanism explorer drawn (the explorer's cell run next): target 30 s;
- page load to the app (Voici) drawn;
- the explorer's redraw in the browser, from a mouse drag of its epsilon slider released to
  the new picture (a redraw may start while the handle moves): target 500 ms; and the
  explorers' update in the Pyodide kernel (``last_update_seconds``, as
  benchmarks/bench_widgets.py measures natively).

Targets are for the two-core machine; the load average is printed with the numbers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from _browser import DRAWN_PLOTS  # noqa: E402
from _lite_site import SITE, drag_and_check_redraw, open_notebook, serve  # noqa: E402

TARGETS = {"first output": 20.0, "explorer drawn": 30.0, "redraw": 0.5}
NOTEBOOK = "02_semi_feature_ldp.ipynb"
CHROMIUM = os.environ.get("LDPVIZ_CHROMIUM", "/usr/bin/chromium")

RUN = """async (wanted) => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  await panel.context.ready;
  const code = panel.content.widgets.map((c, i) => [c, i]).filter(([c]) => c.model.type === 'code');
  for (const k of wanted) {
    panel.content.activeCellIndex = code[k][1];
    app.commands.execute('notebook:run-cell');
  }
  await panel.content.scrollToItem(code[wanted[wanted.length - 1]][1], 'start');
}"""
# Kernel-side update time of two explorers, printed by a cell the benchmark adds at the end.
KERNEL_CELL = """
import statistics as _st
from ldpviz.viz import widgets as _w
_times = {}
for _make in (_w.mechanism_explorer, _w.partition_explorer):
    _e, _t = _make(), []
    for _name, _c in _e.controls.items():
        if hasattr(_c, "min") and not isinstance(_c.value, str):
            for _v in (_c.min, _c.max, _c.value):
                _c.value = _v
                _t.append(_e.last_update_seconds * 1e3)
    _times[_make.__name__] = _st.median(_t)
print("KERNEL", _times)
"""
ADD_CELL = """async (source) => {
  const app = window.jupyterapp;
  const notebook = app.shell.currentWidget.content;
  notebook.activeCellIndex = notebook.widgets.length - 1;
  await app.commands.execute('notebook:insert-cell-below');
  notebook.activeCell.model.sharedModel.setSource(source);
  await app.commands.execute('notebook:run-cell');
}"""
# Whether code cell k shows an output other than a stream (stdout/stderr notices).
SHOWS = """(k) => { const cells = window.jupyterapp.shell.currentWidget.content.widgets
  .filter(c => c.model.type === 'code');
  return cells[k].model.outputs.toJSON().some(o => o.output_type !== 'stream'); }"""
KERNEL_OUTPUT = """() => { const c = window.jupyterapp.shell.currentWidget.content.widgets.at(-1);
  const o = c.model.outputs.toJSON(); return o.length ? JSON.stringify(o) : null; }"""


def _drawn(page, timeout_ms=600_000):
    page.wait_for_function(f"() => ({DRAWN_PLOTS})(null).some(x => x.svg > 0 && x.points > 0)",
                           timeout=timeout_ms, polling=100)


def one_visit(browser, url):
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(
        ("http://127.0.0.1", "data:", "blob:")) else r.abort())
    page = context.new_page()
    out = {}
    try:
        start = time.perf_counter()
        open_notebook(page, url, NOTEBOOK, timeout_ms=300_000)  # its kernel started
        out["session started"] = time.perf_counter() - start  # Pyodide not loaded yet
        page.evaluate(RUN, [0, 1, 13])
        page.wait_for_function(SHOWS, arg=1, timeout=600_000, polling=100)
        out["first output"] = time.perf_counter() - start
        _drawn(page)
        out["explorer drawn"] = time.perf_counter() - start
        page.wait_for_timeout(1000)
        out["redraws"] = [drag_and_check_redraw(page, NOTEBOOK, 13)]
        page.evaluate(ADD_CELL, KERNEL_CELL)
        page.wait_for_function(KERNEL_OUTPUT, timeout=300_000, polling=200)
        text = page.evaluate(KERNEL_OUTPUT)
        out["kernel"] = text[text.index("KERNEL") + 7:].split("\\n")[0]
        app = context.new_page()
        start = time.perf_counter()
        app.goto(f"{url}/app/voici/render/app.html", timeout=300_000)
        _drawn(app)
        out["app drawn"] = time.perf_counter() - start
    finally:
        context.close()
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    if not (SITE / "jupyter-lite.json").exists():
        print(f"bench_lite: no JupyterLite site in {SITE}; `make lite` builds it (skipped)")
        return
    from playwright.sync_api import sync_playwright

    visits = []
    with serve(SITE) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM,
                                     args=["--headless", "--no-sandbox", "--disable-gpu"])
        for i in range(runs):
            load = os.getloadavg()[0]
            visit = one_visit(browser, url)
            visit["load"] = load
            visits.append(visit)
            print(f"run {i + 1}: load {load:.1f}, "
                  f"session started {visit['session started']:.1f} s, "
                  f"first output {visit['first output']:.1f} s, "
                  f"explorer drawn {visit['explorer drawn']:.1f} s, app drawn "
                  f"{visit['app drawn']:.1f} s, redraws "
                  f"{', '.join(f'{r * 1000:.0f}' for r in visit['redraws'])} ms, "
                  f"kernel update (median ms) {visit['kernel']}", flush=True)
        browser.close()
    print(f"load average {statistics.median(v['load'] for v in visits):.1f} (1 min, median "
          f"over the runs; {os.cpu_count()} cores)")
    for key in ("session started", "first output", "explorer drawn", "app drawn"):
        value = statistics.median(v[key] for v in visits)
        target = TARGETS.get(key)
        verdict = f" (target {target:.0f} s, ratio {value / target:.2f})" if target else ""
        print(f"page load to {key}: median {value:.1f} s{verdict}")
    redraw = statistics.median(r for v in visits for r in v["redraws"])
    print(f"redraw after a slider drag is released: median {redraw * 1000:.0f} ms (target 500 ms, "
          f"ratio {redraw / TARGETS['redraw']:.2f})")


if __name__ == "__main__":
    main()
