"""Servers and a headless Chromium for the browser tests (marked ``browser``).

The servers bind to 127.0.0.1 on a free port, run in their own process group and are always
stopped, also when a test fails. The browser is Debian's Chromium driven by Playwright; every
request that would leave the machine is blocked and recorded, so a test can assert that the
pages need nothing from the internet.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from _browser import ROOT

CHROMIUM = os.environ.get("LDPVIZ_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"]
LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")
# Notes on the browser's and JupyterLab's own speed, not faults of the page: headless
# Chromium's software GPU about the 3-D surfaces' WebGL readbacks (the same for any WebGL page),
# and JupyterLab's plugins that take more than 5 s to start on a busy machine.
ENGINE_NOTES = ("GL Driver Message", "Canvas2D: Multiple readback operations",
                "ms to activate.", "is taking too long to activate.")
BIN = Path(sys.executable).parent

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[browser]'")
if not Path(CHROMIUM).exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)",
                allow_module_level=True)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _checkout_first():
    """PYTHONPATH for the servers: their kernels import ldpviz from this checkout (a git
    worktree, say), not from wherever the environment installed it."""
    return os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])


@contextmanager
def _server(argv, url, log_path, env=None, timeout=120):
    """Start a server, wait until ``url`` answers, always stop its whole process group."""
    env = {**os.environ, "PYTHONPATH": _checkout_first(), **(env or {})}
    with open(log_path, "w") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
                                start_new_session=True, env=env)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                urllib.request.urlopen(url, timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"server did not start: {' '.join(argv)}\n"
                                       f"{Path(log_path).read_text()[-3000:]}") from None
                time.sleep(0.3)
        yield url
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
                proc.wait(timeout=20)
                break
            except ProcessLookupError:  # already gone
                break
            except subprocess.TimeoutExpired:
                continue


@pytest.fixture(scope="session")
def voila_url(tmp_path_factory):
    """Voila with ldpviz's offline-safe template on notebooks/: the app is at
    ``{url}voila/render/app.ipynb``, a course notebook at ``{url}voila/render/<name>``."""
    port = free_port()
    argv = [str(BIN / "voila"), str(ROOT / "notebooks"), "--no-browser", f"--port={port}",
            "--Voila.ip=127.0.0.1", "--template=ldpviz"]
    env = {"JUPYTER_PATH": str(ROOT / "share" / "jupyter")}
    log = tmp_path_factory.mktemp("voila") / "voila.log"
    with _server(argv, f"http://127.0.0.1:{port}/", log, env=env) as url:
        yield url


COURSE_WORKSPACE = ROOT / "share" / "jupyter" / "lab" / "workspaces" / "course.jupyterlab-workspace"


def course_layout(workspaces):
    """Lay the course's layout (``make lab``'s: the file browser collapsed) as the default
    workspace in the folder ``workspaces``: the next page opened starts from it."""
    from jupyterlab_server.workspaces_handler import WorkspacesManager

    WorkspacesManager(str(workspaces)).save("default", COURSE_WORKSPACE.read_text())


@contextmanager
def lab_server(root):
    """JupyterLab on the notebooks in ``root / "notebooks"``, its settings and logs in ``root``,
    as ``make lab`` starts it (the settings the repository ships, the course's layout: see
    :func:`course_layout`); yields the server's base URL."""
    settings = root / "settings" / "@jupyterlab"
    (settings / "notebook-extension").mkdir(parents=True)
    (settings / "docmanager-extension").mkdir(parents=True)
    # Keep every cell in the DOM (no virtual scrolling), so all outputs can be inspected.
    (settings / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none"}))
    (settings / "docmanager-extension" / "plugin.jupyterlab-settings").write_text(
        json.dumps({"autosave": False}))  # never write a notebook the test opened
    course_layout(root / "workspaces")
    port = free_port()
    argv = [str(BIN / "jupyter"), "lab", "--no-browser", f"--port={port}",
            "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--ServerApp.password=",
            "--allow-root", "--ServerApp.jpserver_extensions=notebook_shim=False",
            f"--ServerApp.root_dir={root / 'notebooks'}", "--LabApp.expose_app_in_browser=True",
            f"--LabApp.user_settings_dir={root / 'settings'}",
            f"--LabApp.workspaces_dir={root / 'workspaces'}"]
    with _server(argv, f"http://127.0.0.1:{port}/lab", root / "lab.log") as url:
        yield url.removesuffix("/lab")


@pytest.fixture(scope="session")
def lab_root(tmp_path_factory):
    """The folder of the session's JupyterLab: a copy of notebooks/ (so running cells never
    edits the repository), its settings, workspaces and log."""
    root = tmp_path_factory.mktemp("lab")
    shutil.copytree(ROOT / "notebooks", root / "notebooks")
    return root


@pytest.fixture(scope="session")
def lab_url(lab_root):
    """JupyterLab on a copy of notebooks/, as ``make lab`` lays it out."""
    with lab_server(lab_root) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    with playwright_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class Page:
    """A page that records console errors and warnings (a version mismatch between a widget
    extension and the page's JupyterLab is only a warning: the page may still break) and
    blocks (and records) non-local requests."""

    def __init__(self, page):
        self.page = page
        self.external = []
        self.console_errors = []
        page.route("**/*", self._route)
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.console_errors.append(
            f"page error: {exc} {(getattr(exc, 'stack', None) or '')[:600]}"))

    def _route(self, route):
        url = route.request.url
        if url.startswith(LOCAL):
            route.continue_()
        else:
            self.external.append(url)
            route.abort()

    def _console(self, message):
        if message.type == "error" or (message.type == "warning" and not any(
                note in message.text for note in ENGINE_NOTES)):
            self.console_errors.append(f"{message.type}: {message.text}")


@pytest.fixture
def page(browser):
    """A 1366 x 768 page (a laptop, or a projector's common resolution)."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    try:
        yield Page(context.new_page())
    finally:
        context.close()
