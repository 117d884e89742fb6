"""A class opening the app at once, as the server sees it: one websocket client per student.

A student's laptop draws the page; the instructor's server does the rest. So a load test puts
only the server's share on the machine: each :class:`Student` requests the app page (taking a
kernel, pre-heated or not), connects to its kernel over Jupyter's websocket protocol (v1, as
the browser does), asks for the widgets' state as Voila's page does, reports the width of its
figure's box as the page's probe does, then moves a slider and waits for the figure update,
and finally leaves: closing the page (Voila's ``beforeunload`` beacon: a POST to
``voila/api/shutdown/<kernel>``) or just vanishing (the connection drops, as when a laptop is
closed). :class:`ServerWatch` samples the server's memory (the server and its kernels, from
/proc) and counts its kernels.

What is timed for each student, from the page request on: ``page`` (the HTML has arrived),
``drawn`` (the kernel has sent a figure with data: a browser draws it next), ``fitted`` (the
kernel has laid the figure out for the reported width: the first picture is final), and
``redrawn`` (after the slider moved, the kernel has sent the figure's new data).

Used by tests/browser/test_classroom.py (correctness) and benchmarks/bench_classroom.py
(timings and memory). Linux only (/proc).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

from jupyter_server.services.kernels.connection.base import (
    deserialize_msg_from_ws_v1,
    serialize_msg_to_ws_v1,
)
from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

PROTOCOL = "v1.kernel.websocket.jupyter.org"
WIDGET_CONTROL_VERSION = "1.0.0"  # ipywidgets' control comm protocol (request_states)
BOX_WIDTH = 1218  # what a 1366 px window reports for the app's figure box
SLIDERS = ("SelectionSliderModel", "FloatSliderModel", "IntSliderModel")
FIGURE_UPDATES = ("_py2js_update", "_py2js_restyle", "_py2js_addTraces", "_widget_data")


# ----------------------------------------------------------------------------------------------
# The server: memory and kernels, from /proc
# ----------------------------------------------------------------------------------------------
def _children(pid):
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found += [int(child) for child in handle.read().split()]
    except OSError:
        pass
    return found


def process_tree(pid):
    """``pid`` and its descendants."""
    todo, seen = [pid], []
    while todo:
        current = todo.pop()
        seen.append(current)
        todo += _children(current)
    return seen


def _rss(pid):
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _is_kernel(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return b"ipykernel" in handle.read()
    except OSError:
        return False


def server_pid(port):
    """The pid of the server this process started on ``port`` (its command line says so)."""
    for pid in process_tree(os.getpid())[1:]:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                argv = handle.read().split(b"\0")
        except OSError:
            continue
        if f"--port={port}".encode() in argv and not _is_kernel(pid):
            return pid
    raise LookupError(f"no server of this process listens on port {port}")


#: A page of Voila's that answers without starting a kernel (the app's page takes one).
PROBE = "voila/static/voila.js"


def kernels(pid):
    """The kernel processes of the server ``pid``."""
    return [p for p in process_tree(pid) if _is_kernel(p)]


def kernel_ids(pid):
    """The ids of the kernels of the server ``pid`` (from their connection files' names)."""
    found = set()
    for kernel in kernels(pid):
        try:
            with open(f"/proc/{kernel}/cmdline", "rb") as handle:
                argv = handle.read().decode(errors="replace")
        except OSError:
            continue
        found.update(re.findall(r"kernel-([0-9a-f-]{36})\.json", argv))
    return found


def _cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def settle(pid, kernels_at_least=0, quiet_s=2.0, timeout=600.0):
    """Wait until the server ``pid`` has ``kernels_at_least`` kernels and its kernels have used
    under 5% of a core for ``quiet_s`` seconds (pre-heated kernels have run the app);
    returns the seconds waited."""
    start = time.monotonic()
    last, quiet_since = None, None
    while time.monotonic() - start < timeout:
        ids = kernels(pid)
        used = sum(_cpu_seconds(p) for p in ids)
        now = time.monotonic()
        if len(ids) >= kernels_at_least and last is not None and used - last[0] < \
                0.05 * (now - last[1]):
            quiet_since = quiet_since or last[1]
            if now - quiet_since >= quiet_s:
                return now - start
        else:
            quiet_since = None
        last = (used, now)
        time.sleep(0.5)
    raise TimeoutError(f"the server's kernels did not settle within {timeout:.0f} s")


class ServerWatch:
    """Samples the memory (resident set, bytes) of a server and its kernels, and the number of
    kernels, every ``interval`` seconds in a thread, until :meth:`stop`."""

    def __init__(self, pid, interval=0.25):
        self.pid, self.interval = pid, interval
        self.peak_bytes, self.peak_kernels, self.samples = 0, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def _run(self):
        while not self._stop.is_set():
            tree = process_tree(self.pid)
            self.peak_bytes = max(self.peak_bytes, sum(_rss(p) for p in tree))
            self.peak_kernels = max(self.peak_kernels, sum(_is_kernel(p) for p in tree))
            self.samples += 1
            self._stop.wait(self.interval)

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=10)


# ----------------------------------------------------------------------------------------------
# A student
# ----------------------------------------------------------------------------------------------
def _message(msg_type, content, session, metadata=None):
    header = {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": session,
              "username": "student", "version": "5.3",
              "date": datetime.now(UTC).isoformat()}
    parts = [header, {}, metadata or {}, content]
    return serialize_msg_to_ws_v1([json.dumps(p).encode() for p in parts], "shell")


def _has_data(traces):
    """Whether plotly traces (as the widget state carries them) hold data points."""
    for trace in traces or []:
        for key in ("x", "y", "z"):
            value = trace.get(key)
            if isinstance(value, dict) and value.get("shape"):  # a binary array
                if all(n > 0 for n in value["shape"]):
                    return True
            elif isinstance(value, list | tuple) and len(value):
                return True
    return False


@dataclass
class Student:
    """One student: opens the app at ``url`` and times what the server does (see the module
    docstring). ``leave`` is "close" (the page says goodbye) or "drop" (it vanishes)."""

    url: str
    name: str = "student"
    leave: str = "close"
    timeout: float = 600.0
    times: dict = field(default_factory=dict)
    kernel_id: str | None = None
    error: str | None = None

    async def attend(self, stay):
        """Open the page, draw, redraw, then wait for ``stay`` (an asyncio.Event) and leave."""
        start = time.monotonic()
        try:
            await asyncio.wait_for(self._visit(start, stay), self.timeout)
        except Exception as exc:  # reported per student, the class goes on
            self.error = f"{type(exc).__name__}: {exc}"[:300]

    def _mark(self, what, start):
        self.times.setdefault(what, time.monotonic() - start)

    async def _visit(self, start, stay):
        xsrf = secrets.token_hex(16)  # the cookie the page sets (ldpviz's template)
        page = await AsyncHTTPClient().fetch(HTTPRequest(
            self.url, connect_timeout=self.timeout, request_timeout=self.timeout,
            headers={"Cookie": f"_xsrf={xsrf}"}))
        self._mark("page", start)
        self.kernel_id = re.search(r'"kernelId":\s*"([0-9a-f-]+)"', page.body.decode())[1]
        base = re.match(r"https?://[^/]+", self.url)[0]  # Voila's base URL is its root
        session = uuid.uuid4().hex
        socket = await websocket_connect(
            f"{base.replace('http', 'ws', 1)}/api/kernels/{self.kernel_id}/channels"
            f"?session_id={session}", subprotocols=[PROTOCOL], max_message_size=1 << 28)
        try:
            await self._use(socket, session, start)
            await stay.wait()
            if self.leave == "close":
                await AsyncHTTPClient().fetch(HTTPRequest(
                    f"{base}/voila/api/shutdown/{self.kernel_id}", method="POST",
                    body=f"_xsrf={xsrf}", headers={"Cookie": f"_xsrf={xsrf}"},
                    request_timeout=60))
        finally:
            socket.close()

    async def _receive(self, socket):
        raw = await socket.read_message()
        if raw is None:
            raise ConnectionError("the kernel's websocket closed")
        channel, parts = deserialize_msg_from_ws_v1(raw)
        header, _, _, content = (json.loads(p) for p in parts[:4])
        return channel, header["msg_type"], content, parts[4:]

    async def _comm_updates(self, socket, until):
        """Read messages until ``until(comm_id, data)`` is true for a comm message."""
        while True:
            _, msg_type, content, _ = await self._receive(socket)
            if msg_type == "comm_msg" and until(content["comm_id"], content["data"]):
                return

    async def _use(self, socket, session, start):
        control = uuid.uuid4().hex
        await socket.write_message(_message(
            "comm_open", {"comm_id": control, "target_name": "jupyter.widget.control",
                          "data": {}}, session, {"version": WIDGET_CONTROL_VERSION}),
            binary=True)
        await socket.write_message(_message(
            "comm_msg", {"comm_id": control, "data": {"method": "request_states"}}, session),
            binary=True)
        states = {}

        def got_states(comm_id, data):
            if comm_id == control and data.get("method") == "update_states":
                states.update(data["states"])
                return True
            return False

        await self._comm_updates(socket, got_states)
        figures = {k for k, v in states.items() if "_widget_data" in v["state"]}
        if not any(_has_data(states[k]["state"]["_widget_data"]) for k in figures):
            raise AssertionError(f"no figure with data among {len(figures)} figures")
        self._mark("drawn", start)
        probes = [k for k, v in states.items() if {"width", "seq", "ack"} <= set(v["state"])]
        for probe in probes:
            await socket.write_message(_message("comm_msg", {"comm_id": probe, "data": {
                "method": "update", "state": {"width": BOX_WIDTH, "seq": 1},
                "buffer_paths": []}}, session), binary=True)
        acknowledged = set()

        def acked(comm_id, data):
            if comm_id in probes and (data.get("state") or {}).get("ack") == 1:
                acknowledged.add(comm_id)
            return acknowledged == set(probes)

        if probes:
            await self._comm_updates(socket, acked)
        self._mark("fitted", start)
        slider = next(k for k, v in states.items() if v["model_name"] in SLIDERS)
        state = states[slider]["state"]
        if "index" in state:  # a SelectionSlider: move three stops along
            moved = {"index": (state["index"] + 3) % len(state["_options_labels"])}
        else:
            moved = {"value": state["max"] if state["value"] != state["max"] else state["min"]}
        moved_at = time.monotonic()
        await socket.write_message(_message("comm_msg", {"comm_id": slider, "data": {
            "method": "update", "state": moved, "buffer_paths": []}}, session), binary=True)
        await self._comm_updates(socket, lambda comm_id, data: comm_id in figures and any(
            (data.get("state") or {}).get(key) for key in FIGURE_UPDATES))
        self.times["redrawn"] = time.monotonic() - start
        self.times["redraw"] = time.monotonic() - moved_at


async def classroom(url, students=20, within=60.0, leave=("close", "drop"), stay_s=1.0,
                    timeout=600.0):
    """``students`` open ``url`` at even intervals over ``within`` seconds; each draws,
    redraws and stays until the last one has redrawn (plus ``stay_s``), then they leave,
    alternating the ways in ``leave``. Returns the students."""
    # every student's request is in flight at once (tornado queues beyond 10 by default)
    AsyncHTTPClient.configure(None, max_clients=max(10, 2 * students))
    stay = asyncio.Event()
    class_ = [Student(url, f"student {i + 1}", leave[i % len(leave)], timeout)
              for i in range(students)]
    tasks = []
    for i, student in enumerate(class_):
        tasks.append(asyncio.ensure_future(student.attend(stay)))
        if i + 1 < students:
            await asyncio.sleep(within / max(students - 1, 1))

    async def release():
        while not all("redrawn" in s.times or s.error for s in class_):
            await asyncio.sleep(0.2)
        await asyncio.sleep(stay_s)
        stay.set()

    await asyncio.gather(release(), *tasks)
    return class_


def wait_until(condition, timeout, interval=0.5):
    """Seconds until ``condition()`` is true (None: not within ``timeout`` seconds)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if condition():
            return time.monotonic() - start
        time.sleep(interval)
    return None


def wait_for_kernels(pid, at_most, timeout):
    """Seconds until the server ``pid`` has at most ``at_most`` kernels (None: timed out)."""
    return wait_until(lambda: len(kernels(pid)) <= at_most, timeout)
