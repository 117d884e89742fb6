"""Serving the app to a class: the kernels of closed pages are shut down, and so are open
pages' kernels left idle for an hour.

Voila gives every page its own kernel (about 230 MB with the explorers). A page that is closed
normally tells the server (Voila's ``beforeunload`` beacon, which the ldpviz template lets
through); a page that dies without a word (a crashed tab, a laptop closed, a lost network)
leaves its kernel behind, and a class reloading the app would fill the instructor's laptop.
jupyter_server's culler has one idle timeout for all kernels; this kernel manager adds a short
one for the kernels Voila started for a page when no page is connected to them. Pre-heated
kernels waiting in Voila's pool are never culled (Voila's own kernel manager skips them).

The policy (``voila.json`` at the repository's root uses this class for ``make app``; Binder's
``postBuild`` installs it for the server Voila runs in there):

* ``closed_page_timeout`` (60 s): a page's kernel whose page has left (it was connected, and
  no page is now) is shut down that long after the page left or its last activity, checked
  every ``cull_interval`` (20 s): within 80 s of the page closing. A kernel no page has
  connected to yet (waiting in Voila's pool, or for its page to load) is not a closed page's.
* ``cull_idle_timeout`` (3600 s) with ``cull_connected``: any kernel, page open or not, idle
  for an hour (jupyter_server's culler). A busy kernel is never culled.

``voila.json`` also starts kernels on local sockets (``KernelManager.transport = "ipc"``, files
in Voila's private connection folder: ipykernel warned at every kernel start that TCP carries
the class's traffic unencrypted). Left as is: tornado's note at the first page that
jupyter_server's websocket ping timeout (90 s) is longer than its interval (30 s); setting the
timeout to 30 s silenced it but made jupyter_server drop live pages ("Connection lost").

Change them on the command line, e.g. ``make app APP_ARGS="--ClassroomKernelManager.
cull_idle_timeout=7200"``. This module is imported by the server, never by a kernel: it needs
jupyter_server (the ``lab`` extra).
"""

from __future__ import annotations

from datetime import UTC, datetime

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from traitlets import Integer, default

#: Voila sets this variable in the environment of every kernel it starts for a page (JupyterLab's
#: kernels, in the server Binder runs, keep jupyter_server's policy).
VOILA_KERNEL_MARK = "VOILA_PREHEAT"


class ClassroomKernelManager(AsyncMappingKernelManager):
    """jupyter_server's kernel manager with a second, short timeout for the kernels of pages
    that are gone (see the module docstring)."""

    closed_page_timeout = Integer(
        60, config=True,
        help="Seconds after its page left (and its last activity) that a kernel Voila started "
             "for a page is shut down, when no page is connected to it (0: never). Checked "
             "every cull_interval seconds.")

    @default("cull_idle_timeout")
    def _cull_idle_timeout(self):
        return 3600

    @default("cull_interval")
    def _cull_interval(self):
        return 20

    @default("cull_connected")
    def _cull_connected(self):
        return True

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        #: Kernels Voila started for a page -> when their last page left (None: none has
        #: connected yet: a kernel waiting in the pool or for its page to load).
        self.page_left = {}

    async def start_kernel(self, *args, **kwargs):
        kernel_id = await super().start_kernel(*args, **kwargs)
        if VOILA_KERNEL_MARK in (kwargs.get("env") or {}):
            self.page_left[kernel_id] = None
        return kernel_id

    async def shutdown_kernel(self, kernel_id, *args, **kwargs):
        await super().shutdown_kernel(kernel_id, *args, **kwargs)
        if kernel_id not in self._kernels:
            self.page_left.pop(kernel_id, None)

    def notify_disconnect(self, kernel_id):
        super().notify_disconnect(kernel_id)
        if kernel_id in self.page_left:
            self.page_left[kernel_id] = datetime.now(UTC)

    def page_is_gone(self, kernel_id):
        """Whether ``kernel_id`` is a page's kernel whose page has left: no page connected,
        and neither a page nor the kernel active for ``closed_page_timeout`` seconds."""
        kernel, left = self._kernels.get(kernel_id), self.page_left.get(kernel_id)
        if (left is None or kernel is None or self.closed_page_timeout <= 0
                or self._kernel_connections.get(kernel_id, 0)
                or getattr(kernel, "execution_state", None) == "busy"):
            return False
        last = max(left, getattr(kernel, "last_activity", None) or left)
        return (datetime.now(UTC) - last).total_seconds() > self.closed_page_timeout

    async def cull_kernel_if_idle(self, kernel_id):
        if self.page_is_gone(kernel_id):
            self.log.info("Shutting down kernel %s: its page left more than %d s ago",
                          kernel_id, self.closed_page_timeout)
            await self.shutdown_kernel(kernel_id)
            return
        await super().cull_kernel_if_idle(kernel_id)
