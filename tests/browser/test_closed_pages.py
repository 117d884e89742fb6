"""A class on one server, in small: the kernel of a page that closes is shut down, and so is the
kernel of a page that vanishes without a word.

The server is ``make app``'s (voila.json: pre-heated app kernels and the classroom kernel
manager), with a shorter closed-page timeout so that the test ends sooner (the shipped times
are checked in tests/test_app_server.py). Two pages in Chromium draw the app; one closes (its
``beforeunload`` beacon asks the server to shut its kernel down), the other's browser context is
torn down without running it (a crashed tab, a laptop closed): the server must shut down both
pages' kernels. Every wait is for a condition, with a generous bound for a busy machine. The
twenty-student load test (timings, memory) is benchmarks/bench_classroom.py.
"""

import re
import time

import pytest
from _browser import DRAWN_PLOTS, ROOT
from _classroom import PROBE, kernel_ids, server_pid, wait_until
from conftest import BIN, _server, free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CLOSED_PAGE_S, CULL_INTERVAL_S = 10, 3
FIRST_PLOT = f"() => ({DRAWN_PLOTS})(null).some(p => p.points > 0 && p.svg > 0)"


@pytest.fixture
def app_server(tmp_path):
    """``make app``'s server on a free port; yields (url, server pid)."""
    port = free_port()
    argv = [str(BIN / "voila"), "notebooks/app.ipynb", "--no-browser", f"--port={port}",
            "--Voila.ip=127.0.0.1",
            f"--ClassroomKernelManager.closed_page_timeout={CLOSED_PAGE_S}",
            f"--ClassroomKernelManager.cull_interval={CULL_INTERVAL_S}"]
    env = {"JUPYTER_PATH": str(ROOT / "share" / "jupyter")}
    with _server(argv, f"http://127.0.0.1:{port}/{PROBE}", tmp_path / "voila.log", env=env):
        yield f"http://127.0.0.1:{port}/", server_pid(port)


def _open_app(browser, url):
    """A page of the app in its own browser context, once its first plot is drawn; returns
    (context, page, the page's kernel id)."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    page.goto(url, timeout=300_000)
    page.wait_for_function(FIRST_PLOT, timeout=300_000, polling=200)
    kernel = re.search(r'"kernelId":\s*"([0-9a-f-]+)"', page.content())[1]
    return context, page, kernel


def test_the_kernels_of_a_closed_and_a_vanished_page_are_shut_down(app_server, browser):
    url, pid = app_server
    closing, closing_page, closing_kernel = _open_app(browser, url)
    vanishing, _, vanishing_kernel = _open_app(browser, url)
    assert closing_kernel != vanishing_kernel, "two pages shared a kernel"
    assert {closing_kernel, vanishing_kernel} <= kernel_ids(pid)
    closing_page.close(run_before_unload=True)  # Voila's beacon: shut my kernel down
    closing.close()
    vanishing.close()  # no beforeunload: the connection just drops
    left = time.monotonic()
    closed = wait_until(lambda: closing_kernel not in kernel_ids(pid), timeout=120)
    assert closed is not None, "the closed page's kernel still runs 120 s after it closed"
    bound = CLOSED_PAGE_S + 2 * CULL_INTERVAL_S + 120  # slack for a busy machine
    gone = wait_until(lambda: vanishing_kernel not in kernel_ids(pid), timeout=bound)
    assert gone is not None, f"the vanished page's kernel still runs {bound} s later"
    vanished = time.monotonic() - left
    assert vanished >= CLOSED_PAGE_S, "culled before closed_page_timeout"
    print(f"\nclosed page's kernel gone after {closed:.1f} s, vanished page's after "
          f"{vanished:.1f} s (closed_page_timeout {CLOSED_PAGE_S} s)")
