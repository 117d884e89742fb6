"""Time to first plot: the app in Voila, and a course notebook's first explorer in JupyterLab.

Drives headless Chromium (Debian's /usr/bin/chromium, as the browser tests do). By default one
extra process keeps a core busy for the whole run (``--busy 1``: the target's condition; the
load average is printed too).

* **The app** (``make app``'s server: voila.json pre-heats app kernels). Each of ``--repeats``
  fresh browser windows opens the app once the server is quiet; the time is from the request
  to the first plotly figure drawn with data (a figure still laid out for the default width
  counts: the picture is there). The page is closed between repeats, as a student leaves.
  The same is measured without pre-heated kernels (``--VoilaConfiguration.preheat_kernel=
  False``, Voila's default: every page starts a kernel, imports the stack and builds the
  explorer), in the same run, for the ratio. Target: worst under 10 s.
* **A course notebook in JupyterLab** (``--notebook``, default 03): each repeat opens a fresh
  copy (a new kernel), runs every cell above the first explorer, then runs the explorer's cell;
  the time is from running that cell to its figure drawn. Target: worst under 10 s.

Usage: ``python benchmarks/bench_startup.py [--repeats 5] [--busy 1] [--notebook NAME]
[--skip-lab] [--skip-app]``.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _timing import busy_cores  # noqa: E402

try:  # the browser tests' servers and probes (they skip without Chromium or Playwright)
    from _browser import DRAWN_PLOTS
    from _classroom import PROBE, server_pid, settle
    from conftest import BIN, CHROMIUM, CHROMIUM_ARGS, _server, free_port, lab_server
    from playwright.sync_api import sync_playwright
    from test_lab import DONE, KERNEL_READY
except BaseException as exc:  # pytest's Skipped is not an Exception
    print(f"bench_startup: skipped ({exc})")
    sys.exit(0)

TARGET_S = 10.0
POOL = 2  # voila.json's pre-heated app kernels
FIRST_PLOT = f"() => ({DRAWN_PLOTS})(null).some(p => p.points > 0 && p.svg > 0)"
EXPLORER_CALL = re.compile(r"\b\w+_explorer\([^()]*\)|\bdashboard\([^()]*\)")


def _load():
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _summary(times):
    return (f"median {statistics.median(times):5.1f} s, worst {max(times):5.1f} s  "
            f"({', '.join(f'{t:.1f}' for t in times)})")


def app_first_plots(browser, repeats, workdir, preheat=True):
    """Seconds from the app's request to its first drawn figure, one fresh window each."""
    port = free_port()
    argv = [str(BIN / "voila"), "notebooks/app.ipynb", "--no-browser", f"--port={port}",
            "--Voila.ip=127.0.0.1"]
    if not preheat:
        argv.append("--VoilaConfiguration.preheat_kernel=False")
    env = {"JUPYTER_PATH": str(ROOT / "share" / "jupyter")}
    times = []
    url = f"http://127.0.0.1:{port}/"
    with _server(argv, url + PROBE, workdir / f"voila-{port}.log", env=env):
        pid = server_pid(port)
        for _ in range(repeats):
            settle(pid, POOL if preheat else 0)
            context = browser.new_context(viewport={"width": 1366, "height": 768})
            page = context.new_page()
            start = time.perf_counter()
            page.goto(url, timeout=300_000)
            page.wait_for_function(FIRST_PLOT, timeout=300_000, polling=50)
            times.append(time.perf_counter() - start)
            page.close(run_before_unload=True)
            context.close()
            time.sleep(2)  # the beacon reaches the server
    return times


def _first_explorer_cell(path):
    cells = json.loads(path.read_text())["cells"]
    for index, cell in enumerate(cells):
        if cell["cell_type"] == "code" and EXPLORER_CALL.search("".join(cell["source"])):
            return index
    raise SystemExit(f"bench_startup: {path.name} displays no explorer")


RUN_ABOVE = """async (index) => {
  const panel = window.jupyterapp.shell.currentWidget;
  panel.content.activeCellIndex = index;
  await window.jupyterapp.commands.execute('notebook:run-all-above');
}"""
RUN_CELL = """async (index) => {
  const panel = window.jupyterapp.shell.currentWidget;
  panel.content.activeCellIndex = index;
  await window.jupyterapp.commands.execute('notebook:run-cell');
}"""
CELL_DRAWN = f"""(index) => {{
  const cell = window.jupyterapp.shell.currentWidget.content.widgets[index];
  return ({DRAWN_PLOTS})(cell.node).some(p => p.points > 0 && p.svg > 0);
}}"""
SHUTDOWN = """async () => {
  await window.jupyterapp.shell.currentWidget.sessionContext.shutdown(); }"""


def lab_first_explorers(browser, repeats, workdir, name):
    """Seconds from running a notebook's first explorer cell to its drawn figure, each in a
    fresh kernel after the cells above it ran."""
    source = ROOT / "notebooks" / name
    index = _first_explorer_cell(source)
    notebooks = workdir / "notebooks"
    notebooks.mkdir()
    for file in (ROOT / "notebooks").iterdir():  # data files the notebook may read
        if file.is_file() and file.suffix != ".ipynb":
            shutil.copy(file, notebooks)
    copies = [f"bench{k}_{name}" for k in range(repeats)]
    for copy in copies:  # a new path, a new kernel
        shutil.copy(source, notebooks / copy)
    times = []
    with lab_server(workdir) as url:
        for copy in copies:
            context = browser.new_context(viewport={"width": 1366, "height": 768})
            page = context.new_page()
            page.goto(f"{url}/lab/tree/{copy}?reset", timeout=300_000)
            page.wait_for_function("() => window.jupyterapp && "
                                   "window.jupyterapp.shell.currentWidget", timeout=300_000)
            page.evaluate(KERNEL_READY)
            if index:
                page.evaluate(RUN_ABOVE, index)
                page.wait_for_function(DONE, timeout=600_000, polling=200)
            start = time.perf_counter()
            page.evaluate(RUN_CELL, index)
            page.wait_for_function(CELL_DRAWN, arg=index, timeout=300_000, polling=50)
            times.append(time.perf_counter() - start)
            page.evaluate(SHUTDOWN)
            context.close()
    return times, index


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--busy", type=int, default=1, help="processes kept busy (default 1)")
    parser.add_argument("--notebook", default="03_histoftree_step_by_step.ipynb")
    parser.add_argument("--skip-lab", action="store_true")
    parser.add_argument("--skip-app", action="store_true")
    args = parser.parse_args()
    print(f"bench_startup: {os.cpu_count()} cores, {args.busy} kept busy, load average "
          f"{_load()}; {args.repeats} fresh windows each", flush=True)
    worst = []
    with busy_cores(args.busy), sync_playwright() as pw, \
            tempfile.TemporaryDirectory() as tmp:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            if not args.skip_app:
                hot = app_first_plots(browser, args.repeats, Path(tmp))
                print(f"app, pre-heated kernels (make app):   {_summary(hot)}", flush=True)
                cold = app_first_plots(browser, args.repeats, Path(tmp), preheat=False)
                print(f"app, a kernel started per page:       {_summary(cold)}", flush=True)
                print(f"  pre-heated / per page, medians: "
                      f"{statistics.median(hot) / statistics.median(cold):.2f}x")
                worst.append(("the app", max(hot)))
            if not args.skip_lab:
                lab, index = lab_first_explorers(browser, args.repeats, Path(tmp),
                                                 args.notebook)
                print(f"{args.notebook}, cell {index} (first explorer) in JupyterLab: "
                      f"{_summary(lab)}", flush=True)
                worst.append((args.notebook, max(lab)))
        finally:
            browser.close()
    print(f"load average at the end {_load()}")
    for what, seconds in worst:
        print(f"{what}: worst {seconds:.1f} s (target < {TARGET_S:g} s): "
              f"{'met' if seconds < TARGET_S else 'NOT met'}")


if __name__ == "__main__":
    main()
