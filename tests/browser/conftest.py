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
BIN = Path(sys.executable).parent

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[browser]'")
if not Path(CHROMIUM).exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)",
                allow_module_level=True)


def _free_port():
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
    port = _free_port()
    argv = [str(BIN / "voila"), "notebooks/", "--no-browser", f"--port={port}",
            "--Voila.ip=127.0.0.1", "--template=ldpviz"]
    env = {"JUPYTER_PATH": str(ROOT / "share" / "jupyter")}
    log = tmp_path_factory.mktemp("voila") / "voila.log"
    with _server(argv, f"http://127.0.0.1:{port}/", log, env=env) as url:
        yield url


@contextmanager
def lab_server(root):
    """JupyterLab on the notebooks in ``root / "notebooks"``, its settings and logs in ``root``;
    yields the server's base URL."""
    settings = root / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # Keep every cell in the DOM (no virtual scrolling), so all outputs can be inspected.
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    port = _free_port()
    argv = [str(BIN / "jupyter"), "lab", "--no-browser", f"--port={port}",
            "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--ServerApp.password=",
            "--allow-root",
            f"--ServerApp.root_dir={root / 'notebooks'}", "--LabApp.expose_app_in_browser=True",
            f"--LabApp.user_settings_dir={root / 'settings'}",
            f"--LabApp.workspaces_dir={root / 'workspaces'}"]
    with _server(argv, f"http://127.0.0.1:{port}/lab", root / "lab.log") as url:
        yield url.removesuffix("/lab")


@pytest.fixture(scope="session")
def lab_url(tmp_path_factory):
    """JupyterLab on a copy of notebooks/ (so running cells never edits the repository)."""
    root = tmp_path_factory.mktemp("lab")
    shutil.copytree(ROOT / "notebooks", root / "notebooks")
    with lab_server(root) as url:
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
    """A page that records console errors and blocks (and records) non-local requests."""

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
        if message.type == "error":
            self.console_errors.append(message.text)


@pytest.fixture
def page(browser):
    """A 1366 x 768 page (a laptop, or a projector's common resolution)."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    try:
        yield Page(context.new_page())
    finally:
        context.close()
