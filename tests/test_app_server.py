"""The app's server policy: pre-heated app kernels, and the kernels of closed pages shut down.

A real kernel is started through :class:`ClassroomKernelManager` as Voila starts a page's
kernel; a page connects and leaves; the culler must shut it down after ``closed_page_timeout``
and not before, while a kernel whose page is still connected, one no page has reached yet and a
JupyterLab kernel stay. The shipped configuration (voila.json for ``make app``, postBuild for
Binder) is read as Voila and jupyter_server read it. tests/browser/test_app_server.py checks the
same with pages in Chromium.
"""

import asyncio
import importlib
import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("jupyter_server", reason="pip install -e '.[lab]'")
from traitlets.config.loader import JSONFileConfigLoader

from ldpviz.viz.app_server import VOILA_KERNEL_MARK, ClassroomKernelManager

ROOT = Path(__file__).resolve().parents[1]


def _voila_config():
    return JSONFileConfigLoader("voila.json", path=str(ROOT)).load_config()


def test_make_app_preheats_the_app_only_and_culls_with_the_classroom_policy():
    config = _voila_config()
    voila = config.VoilaConfiguration
    assert voila.preheat_kernel is True and voila.template == "ldpviz"
    assert voila.multi_kernel_manager_class == "ldpviz.viz.app_server.ClassroomKernelManager"
    # a quiet console: no unencrypted-TCP warning per kernel
    assert config.KernelManager.transport == "ipc"
    pools = config.VoilaKernelManager.kernel_pools_config
    assert pools["default"]["pool_size"] == 0  # the course notebooks start kernels on request
    assert pools["app.ipynb"]["pool_size"] >= 1
    manager = ClassroomKernelManager()
    # the README's promise: a closed page's kernel is gone within two minutes, an idle one
    # after an hour
    assert manager.closed_page_timeout + manager.cull_interval <= 120
    assert manager.cull_idle_timeout == 3600 and manager.cull_connected


def test_binder_installs_the_same_kernel_manager():
    text = (ROOT / "postBuild").read_text()
    block = re.search(r"ldpviz-app\.json\" <<'JSON'\n(.*?)\nJSON\n", text, re.S)
    assert block, "postBuild writes no jupyter_server config for the app"
    config = json.loads(block[1])
    path = config["ServerApp"]["kernel_manager_class"]
    module, name = path.rsplit(".", 1)
    assert getattr(importlib.import_module(module), name) is ClassroomKernelManager
    assert config["ClassroomKernelManager"] == {"cull_connected": False}


def _run(coroutine):
    """Run ``coroutine`` in a thread of its own: the browser tests' Playwright keeps an event
    loop running in the main thread for the whole session."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_a_closed_page_s_kernel_is_shut_down_and_no_other():
    async def scenario():
        manager = ClassroomKernelManager(closed_page_timeout=1)
        page = {"env": {VOILA_KERNEL_MARK: "True"}}
        gone = await manager.start_kernel(kernel_name="python3", **page)
        open_page = await manager.start_kernel(kernel_name="python3", **page)
        waiting = await manager.start_kernel(kernel_name="python3", **page)  # no page yet
        lab = await manager.start_kernel(kernel_name="python3")  # JupyterLab's
        try:
            for kernel_id in (gone, open_page, lab):
                manager.notify_connect(kernel_id)
            manager.notify_disconnect(gone)
            manager.notify_disconnect(lab)
            await manager.cull_kernels()
            assert gone in manager, "shut down before closed_page_timeout"
            time.sleep(1.5)
            await manager.cull_kernels()
            assert gone not in manager and gone not in manager.page_left
            assert {open_page, waiting, lab} <= set(manager.list_kernel_ids())
        finally:
            await manager.shutdown_all()

    _run(scenario())
