"""The course as a static JupyterLite site (``make lite``), offline in headless Chromium.

The site in build/lite/site is served on 127.0.0.1 by a plain file server. Notebook 01 runs top
to bottom in the browser's own Python (Pyodide); notebook 02's mechanism explorer is drawn (its
first code cell, then the explorer's), its slider dragged with the mouse, and its picture must
redraw, and so is an explorer of every other notebook (00 and 07: their first two cells; about
half a minute each, ``LDPVIZ_LITE_ALL=0`` checks notebook 02's only); the app renders in Voici
and redraws. Every test fails on a request that leaves 127.0.0.1 (the kernel's
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
                 if p.name not in FULL) if os.environ.get("LDPVIZ_LITE_ALL") != "0"
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


def test_the_course_kernel_leaves_the_deferred_packages_for_later_and_the_app_does_not():
    """The course's kernel starts without scipy, scikit-learn, matplotlib and plotly (ldpviz's
    finder loads them when a call needs them: notebook 01's run above reaches scipy and
    matplotlib, and every explorer plotly, through no import line of its own); the app draws a
    fitted model at once, so its kernel loads them at start."""
    import sys

    sys.path.insert(0, str(ROOT / "lite"))
    import pyodide_dist

    deferred = set(pyodide_dist.DEFERRED)
    kernel = "@jupyterlite/pyodide-kernel-extension:kernel"

    def start(config):
        return set(config["litePluginSettings"][kernel]["loadPyodideOptions"]["packages"])

    lock = json.loads((SITE / "static" / "pyodide" / "pyodide-lock.json").read_text())
    assert not deferred & set(lock["packages"]["ldpviz"]["depends"])
    assert deferred <= set(lock["packages"])
    course = json.loads((SITE / "jupyter-lite.json").read_text())["jupyter-config-data"]
    assert not deferred & pyodide_dist.closure(lock, start(course))
    assert "openblas" in start(course)
    assert pyodide_dist.UTC_ZONE in start(course)  # before pandas looks UTC up
    app_config = json.loads((SITE / "app" / "jupyter-lite.json").read_text())
    page = (SITE / "app" / "voici" / "render" / "app.html").read_text()
    embedded = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">'
                                    r"\s*(.*?)\s*</script>", page, re.S).group(1))
    for config in (app_config["jupyter-config-data"], embedded):
        assert deferred <= start(config)


def test_every_pyodide_file_is_an_official_one_with_its_bytecode():
    """The site's Pyodide files are the checked originals plus the bytecode of their sources.

    Each file's sha256 is its entry's in the site's lock. Its original is found again:
    Pyodide's own packages in lite/pyodide_dist.py's source, each with the official lock's
    sha256 (npm's pyodide package); the standard library in npm's package; the PyPI wheels
    where pip downloaded them; the kernel's wheels in the site's pypi/ folder. Every member of
    the original is in the site's file, byte for byte, and the only members added are
    unchecked-hash pycs of CPython 3.12 for the exact bytes of a source
    (lite/bytecode.py.derived_problems; ``make lite-check`` also recompiles the source of every
    pyc under Pyodide and compares the code); the modules a visit imports first have them. One
    member may differ, in one file: the matplotlib wheel's font list, regenerated by
    lite/fontlist.py, and only if it is current (its ``_version`` is the wheel's
    font_manager.py's, its fonts exactly the wheel's font files)."""
    import hashlib
    import sys
    import zipfile

    sys.path.insert(0, str(ROOT / "lite"))
    import bytecode
    import fontlist
    import pyodide_dist

    cache = pyodide_dist.cache_dir()
    core = pyodide_dist.npm_core(cache)
    official = json.loads((core / "pyodide-lock.json").read_text())
    dist = SITE / "static" / "pyodide"
    lock = json.loads((dist / "pyodide-lock.json").read_text())["packages"]
    by_file = {e["file_name"]: name for name, e in lock.items()}
    for name, entry in lock.items():
        digest = hashlib.sha256((dist / entry["file_name"]).read_bytes()).hexdigest()
        assert digest == entry["sha256"], f"{name}: not the file the lock names"
    ours = {n for n, e in lock.items()
            if official["packages"].get(n, {}).get("file_name") == e["file_name"]}
    assert len(ours) >= 30  # numpy, scipy, scikit-learn, pandas, matplotlib, ...
    originals = {bytecode.STDLIB_ZIP: (core / bytecode.STDLIB_ZIP).read_bytes()}
    for file_name, data in pyodide_dist.official_members(cache, official, ours):
        assert hashlib.sha256(data).hexdigest() == official["packages"][by_file[file_name]][
            "sha256"], f"{file_name}: the original is not the official one"
        originals[file_name] = data
    for spec in pyodide_dist.kernel_pins():
        path = pyodide_dist.pip_download(spec, cache / "downloads")
        originals[path.name] = path.read_bytes()
    served = SITE / "extensions" / "@jupyterlite" / "pyodide-kernel-extension" / "static" / "pypi"
    for wheel in pyodide_dist.KERNEL_WHEELS:
        path = next(served.glob(f"{wheel}*.whl"))
        assert path.name in by_file, f"{path.name} (served in pypi/) is not in the lock"
        originals[path.name] = path.read_bytes()
    files = bytecode.dist_files({"packages": lock})
    assert set(files) - set(originals) == {lock["ldpviz"]["file_name"]}, "an unchecked file"
    for file_name in files:
        original, derived = originals.get(file_name), (dist / file_name).read_bytes()
        if file_name == lock["matplotlib"]["file_name"]:
            problems = fontlist.derived_problems(original, derived)
        else:
            problems = bytecode.derived_problems(original, derived,
                                                 file_name == bytecode.STDLIB_ZIP)
        assert not problems, f"{file_name}: {problems[:5]}"
    first = {bytecode.STDLIB_ZIP: "json/__init__.py", lock["ldpviz"]["file_name"]:
             "ldpviz/viz/widgets.py", lock["numpy"]["file_name"]: "numpy/__init__.py",
             lock["scikit-learn"]["file_name"]: "sklearn/tree/_classes.py",
             lock["ipython"]["file_name"]: "IPython/core/interactiveshell.py",
             lock["pyodide-kernel"]["file_name"]: "pyodide_kernel/kernel.py"}
    for file_name, member in first.items():  # what a visit imports first is compiled
        with zipfile.ZipFile(dist / file_name) as zf:
            assert bytecode.pyc_name(member, file_name == bytecode.STDLIB_ZIP) in zf.namelist(), (
                f"{file_name}: {member} has no bytecode")
    zone = lock[pyodide_dist.UTC_ZONE]  # made by the build: one file of a checked original
    with zipfile.ZipFile(dist / zone["file_name"]) as zf:
        assert zf.namelist() == ["zoneinfo/UTC"] and zf.read("zoneinfo/UTC") == (
            pyodide_dist.utc_zone(originals[lock["python-dateutil"]["file_name"]]))
    for file_name in set(by_file) - set(files) - {zone["file_name"]}:  # no Python: as they were
        assert lock[by_file[file_name]]["sha256"] == official["packages"][by_file[file_name]][
            "sha256"], file_name


def test_matplotlib_imports_without_rebuilding_its_font_list():
    """In the site's Pyodide (Node.js), importing matplotlib.pyplot reads the wheel's font list
    (lite/fontlist.py regenerated it) instead of printing "Matplotlib is building the font
    cache" under a student's first cell, and finds its default font where it ships."""
    import shutil
    import subprocess

    node = shutil.which(os.environ.get("NODE", "node"))
    result = subprocess.run([node, "lite/pyodide_tests.mjs", SITE / "static" / "pyodide",
                             "--load=matplotlib", "--", "lite/fontlist.py", "check"],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert "building the font cache" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
    print("\n" + result.stdout.strip())
