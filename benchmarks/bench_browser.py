"""Redraw in the browser after a slider is released, per explorer, in Voila and JupyterLab.

Drives headless Chromium (Debian's /usr/bin/chromium, as the browser tests do) with real mouse
drags: press a slider's handle, move it a quarter of its track in a few fast steps, release.
The time is from the mouse release to the last redraw of the explorer's figure that it caused
(changes to the figure's DOM, timed in the page; 0 if the final picture was already
drawn at release), so it covers the kernel's recompute, the messages both ways and plotly's
drawing. Also one slow drag per explorer over half a track (about 1.2 s): the longest lag of
the picture behind the handle, from a change of the slider's value to the next redraw. Prints
the median and 90th percentile per explorer; targets: median <= 100 ms, p90 <= 250 ms,
longest lag while dragging <= 250 ms. The comparison explorer updates on release only (it
refits a grid of models) and is not in the list. Timings depend on the machine's load (the load
average is printed first): run it on a quiet machine and compare explorers within one run.

Usage: ``python benchmarks/bench_browser.py [DRAGS_PER_EXPLORER]`` (default 12).
"""

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

try:  # the browser tests' servers and probes (they skip without Chromium or Playwright)
    from conftest import BIN, CHROMIUM, CHROMIUM_ARGS, _server, free_port, lab_server
    from playwright.sync_api import sync_playwright
    from test_lab import DONE, KERNEL_READY, RUN_ALL
except BaseException as exc:  # pytest's Skipped is not an Exception
    print(f"bench_browser: skipped ({exc})")
    sys.exit(0)

EXPLORERS = ["partition_explorer", "surface_explorer", "lambda_explorer", "tradeoff_explorer",
             "mechanism_explorer", "bcdp_explorer"]
TABS = {"partition_explorer": "Partition", "surface_explorer": "Surface",
        "lambda_explorer": "λ* and masks", "tradeoff_explorer": "Trade-off",
        "bcdp_explorer": "BCDP (correlated)"}
QUIET_MS = 700  # a redraw this long after the last one is not caused by the drag

RECORD = """(root) => {
  window.__draws = []; window.__changes = [];
  // a redraw changes the figure's SVG; watching the DOM also sees a figure whose plotly
  // events were rebound (listeners on the plot itself missed those redraws)
  for (const gd of root.querySelectorAll('.js-plotly-plot'))
    new MutationObserver(() => window.__draws.push(performance.now()))
      .observe(gd.parentElement, {childList: true, attributes: true, subtree: true});
  for (const readout of root.querySelectorAll('.widget-slider .widget-readout'))
    new MutationObserver(() => window.__changes.push(performance.now()))
      .observe(readout, {childList: true, characterData: true, subtree: true});
  if (!window.__listening) {
    window.__listening = true; window.__ups = []; window.__downs = [];
    document.addEventListener('mouseup', () => window.__ups.push(performance.now()), true);
    document.addEventListener('mousedown', () => window.__downs.push(performance.now()), true);
  }
}"""
READOUT = "(h) => h.closest('.widget-slider').querySelector('.widget-readout').textContent"
TRACK = "(h) => h.closest('.widget-slider').querySelector('.slider-container').offsetWidth"


def _settle(page, timeout=5.0):
    """Wait until the figures have not been redrawn for QUIET_MS."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        idle = page.evaluate("() => performance.now() - Math.max(0, ...window.__draws, "
                             "...window.__ups)")
        if idle > QUIET_MS:
            return
        time.sleep(0.05)


def _start(handle):
    box = handle.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _quick_drags(page, root, drags):
    """Release-to-redraw times (ms): press, move a quarter of the track in a few fast steps,
    release. Drags that did not change the slider's value are not counted."""
    handles = root.locator(".noUi-handle")
    sliders = min(3, handles.count())
    times, unchanged = [], 0
    for k in range(drags):
        handle = handles.nth(k % sliders)
        x, y = _start(handle)
        dx = (1 if (k // sliders) % 2 == 0 else -1) * max(40, handle.evaluate(TRACK) / 4)
        before = handle.evaluate(READOUT)
        page.evaluate("() => { window.__draws = []; }")
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + dx / 2, y, steps=3)
        page.mouse.move(x + dx, y, steps=3)
        page.mouse.up()
        _settle(page)
        if handle.evaluate(READOUT) == before:
            unchanged += 1
            continue
        draws, up = page.evaluate("() => [window.__draws, window.__ups.at(-1)]")
        after = [t for t in draws if t >= up]
        times.append(max(after) - up if after else 0.0)
    return times, unchanged


def _slow_drag(page, root, slider):
    """One slow drag over half a slider's track in about 1.2 s. Returns the longest lag of
    the picture behind the handle (from a change of the slider's value to the next redraw),
    the number of value changes and of redraws."""
    handle = root.locator(".noUi-handle").nth(slider)
    x, y = _start(handle)
    span = handle.evaluate(TRACK) / 2
    direction = -1 if handle.evaluate("(h) => { const t = h.closest('.slider-container')"
                                      ".getBoundingClientRect(); const r = "
                                      "h.getBoundingClientRect(); return r.x - t.x > t.width"
                                      " / 2; }") else 1
    page.evaluate("() => { window.__draws = []; window.__changes = []; }")
    page.mouse.move(x, y)
    page.mouse.down()
    for step in range(1, 25):
        page.mouse.move(x + direction * span * step / 24, y)
        time.sleep(0.05)
    page.mouse.up()
    _settle(page)
    draws, changes = page.evaluate("() => [window.__draws, window.__changes]")
    lags = [min((t for t in draws if t >= change), default=float("nan")) - change
            for change in changes]
    return max(lags, default=float("nan")), len(changes), len(draws)


SLOW_SLIDER = {"lambda_explorer": 2}  # the slider with the most positions (else epsilon)


def _measure(page, root, drags, name):
    root.evaluate(RECORD)
    times, unchanged = _quick_drags(page, root, drags)
    return (times, unchanged, *_slow_drag(page, root, SLOW_SLIDER.get(name, 0)))


def _report(env, name, times, unchanged, lag, changes, redraws):
    times = sorted(times)
    med = statistics.median(times)
    p90 = float(np.percentile(times, 90))
    ok = "ok" if med <= 100 and p90 <= 250 and lag <= 250 else "ABOVE TARGET"
    print(f"{env:10s} {name:20s} median {med:4.0f} ms  p90 {p90:4.0f} ms  (n = {len(times)}"
          f"{f', {unchanged} drags left the value' if unchanged else ''})  slow drag: "
          f"{changes:2d} values, {redraws:2d} redraws, longest lag {lag:4.0f} ms  {ok}",
          flush=True)


def _voila(browser, drags, workdir):
    port = free_port()
    argv = [str(BIN / "voila"), "notebooks/app.ipynb", "--no-browser", f"--port={port}",
            "--Voila.ip=127.0.0.1", "--template=ldpviz"]
    env = {"JUPYTER_PATH": str(ROOT / "share" / "jupyter")}
    with _server(argv, f"http://127.0.0.1:{port}/", workdir / "voila.log", env=env) as url:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        page.goto(url, timeout=180_000)
        page.wait_for_selector(".js-plotly-plot", timeout=180_000)
        for name in EXPLORERS:
            if name not in TABS:
                continue
            page.locator(".lm-TabBar-tab", has_text=TABS[name]).first.click()
            root = page.locator(".widget-tab-contents > .widget-vbox:not(.lm-mod-hidden)").first
            root.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
            time.sleep(1.5)
            _report("Voila", name, *_measure(page, root, drags, name))
        page.close()


def _lab(browser, drags, workdir):
    notebooks = workdir / "notebooks"
    notebooks.mkdir()
    cells = ["from ldpviz.viz import widgets"] + [f"widgets.{name}()" for name in EXPLORERS]
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}",
                     "metadata": {}, "outputs": [], "source": src}
                    for i, src in enumerate(cells)],
          "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                      "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    (notebooks / "bench.ipynb").write_text(json.dumps(nb))
    with lab_server(workdir) as url:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        page.goto(f"{url}/lab/tree/bench.ipynb?reset", timeout=180_000)
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget",
                               timeout=120_000)
        page.evaluate(KERNEL_READY)
        page.evaluate(RUN_ALL)
        page.wait_for_function(DONE, timeout=180_000, polling=500)
        outputs = page.locator(".jp-OutputArea-output:has(.js-plotly-plot)")
        outputs.nth(len(EXPLORERS) - 1).locator(".js-plotly-plot").wait_for(timeout=60_000)
        time.sleep(2)
        for k, name in enumerate(EXPLORERS):
            root = outputs.nth(k)
            root.locator(".noUi-handle").first.scroll_into_view_if_needed()
            time.sleep(0.8)
            _report("JupyterLab", name, *_measure(page, root, drags, name))
        page.close()


def main(drags=12):
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    workdir = Path(tempfile.mkdtemp(prefix="ldpviz-bench-"))
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                _voila(browser, drags, workdir)
                _lab(browser, drags, workdir)
            finally:
                browser.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 12)
