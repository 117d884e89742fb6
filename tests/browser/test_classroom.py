"""A class on one server: twenty students open the app within a minute, and leave.

The server is ``make app``'s (voila.json: pre-heated app kernels, the classroom kernel manager),
with shorter culling times so that the test ends sooner (the shipped times are checked in
tests/test_app_server.py). Twenty websocket students (tests/browser/_classroom.py: the
server's share of a page, without twenty browsers competing for the two cores) arrive at even
intervals over 60 s; each must get a figure with data, its layout for the reported width, and
a new figure after moving a slider. Meanwhile one real page in Chromium must draw and redraw
after a slider drag. Then half the students close their page (Voila's beacon) and half vanish
(their connection drops): every kernel but the pre-heated ones must be gone. Timings and the
server's peak memory are benchmarks/bench_classroom.py's business, not this test's.
"""

import asyncio
import threading
import time

import pytest
from _browser import DRAWN_PLOTS, PLOT_SIGNATURE, ROOT
from _classroom import PROBE, classroom, kernels, server_pid, wait_for_kernels
from conftest import BIN, _free_port, _server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STUDENTS, WITHIN_S = 20, 60.0
POOL = 2  # voila.json's pre-heated app kernels
CLOSED_PAGE_S, CULL_INTERVAL_S = 15, 5


@pytest.fixture
def app_server(tmp_path):
    """``make app``'s server on a free port; yields (url, server pid)."""
    port = _free_port()
    argv = [str(BIN / "voila"), "notebooks/app.ipynb", "--no-browser", f"--port={port}",
            "--Voila.ip=127.0.0.1",
            f"--ClassroomKernelManager.closed_page_timeout={CLOSED_PAGE_S}",
            f"--ClassroomKernelManager.cull_interval={CULL_INTERVAL_S}"]
    env = {"JUPYTER_PATH": str(ROOT / "share" / "jupyter")}
    with _server(argv, f"http://127.0.0.1:{port}/{PROBE}", tmp_path / "voila.log", env=env):
        yield f"http://127.0.0.1:{port}/", server_pid(port)


def _drawn_and_redrawn(browser, url):
    """A real page: the partition plot drawn, then changed by a drag of the first slider."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    try:
        page = context.new_page()
        page.goto(url, timeout=300_000)
        page.wait_for_function(f"() => ({DRAWN_PLOTS})(null).some(p => p.points > 0)",
                               timeout=300_000)
        before = page.evaluate(PLOT_SIGNATURE)
        handle = page.locator(".widget-slider .noUi-handle").first
        box = handle.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 80, y, steps=6)
        page.mouse.up()
        page.wait_for_function(f"(before) => ({PLOT_SIGNATURE})(null) !== before", arg=before,
                               timeout=120_000)
        page.close(run_before_unload=True)
    finally:
        context.close()


def test_twenty_students_draw_redraw_and_leave_no_kernel_behind(app_server, browser):
    url, pid = app_server
    result = {}

    def run_class():
        result["students"] = asyncio.run(classroom(url, STUDENTS, WITHIN_S, timeout=900))

    lesson = threading.Thread(target=run_class)
    lesson.start()
    time.sleep(WITHIN_S / 2)  # half the class is in
    _drawn_and_redrawn(browser, url)
    lesson.join(timeout=1200)
    assert not lesson.is_alive(), "the class did not end within 20 minutes"
    students = result["students"]
    failed = [f"{s.name}: {s.error}" for s in students if s.error]
    assert not failed, "\n".join(failed)
    for student in students:
        assert {"page", "drawn", "fitted", "redrawn"} <= set(student.times), student
    assert len({s.kernel_id for s in students}) == STUDENTS  # a kernel each
    # every student has left: half closed their page, half vanished
    gone = wait_for_kernels(pid, POOL, timeout=CLOSED_PAGE_S + 3 * CULL_INTERVAL_S + 120)
    assert gone is not None, (f"{len(kernels(pid))} kernels are left, {POOL} pre-heated "
                              "ones expected")
    print(f"\n{STUDENTS} students in {WITHIN_S:.0f} s: all drew and redrew; their kernels "
          f"were gone {gone:.0f} s after they left")
