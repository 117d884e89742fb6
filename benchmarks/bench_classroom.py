"""A class on one server: twenty students open the app within a minute; timings and memory.

``make app``'s server (voila.json: pre-heated app kernels, the classroom kernel manager with
its shipped times) serves ``--students`` websocket students (tests/browser/_classroom.py: the
server's share of each page; their browsers would run on their own laptops) arriving at even
intervals over ``--within`` seconds. Each requests the page, gets the widgets' state, reports
its figure box's width, moves a slider, and stays until the last one has redrawn; then half
close their page (Voila's beacon) and half vanish (their connection drops). Printed: p50, p90
and worst of the time from the request to the figure's data (``drawn``: a browser draws it
next; add the page's own start-up, ``bench_startup.py``), to the figure laid out for the
reported width (``fitted``), and from a slider move to the new figure (``redraw``); the peak
memory of the server and its kernels (resident, sampled every 0.25 s) and the peak number of
kernels; and how long after leaving their kernels were gone. By default one extra process
keeps a core busy (``--busy 1``).

Usage: ``python benchmarks/bench_classroom.py [--students 20] [--within 60] [--busy 1]``.
"""

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _timing import busy_cores  # noqa: E402

try:  # the browser tests' server helpers (they skip without Chromium or Playwright)
    from _classroom import (
        PROBE,
        ServerWatch,
        classroom,
        kernels,
        server_pid,
        settle,
        wait_for_kernels,
    )
    from conftest import BIN, _server, free_port
except BaseException as exc:  # pytest's Skipped is not an Exception
    print(f"bench_classroom: skipped ({exc})")
    sys.exit(0)

POOL = 2  # voila.json's pre-heated app kernels


def _row(name, values):
    values = np.asarray(values, dtype=float)
    return (f"  {name:38s} p50 {np.percentile(values, 50):5.1f} s   p90 "
            f"{np.percentile(values, 90):5.1f} s   worst {values.max():5.1f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--within", type=float, default=60.0, help="seconds (default 60)")
    parser.add_argument("--busy", type=int, default=1, help="processes kept busy (default 1)")
    args = parser.parse_args()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"bench_classroom: {args.students} students within {args.within:.0f} s, "
          f"{os.cpu_count()} cores, {args.busy} kept busy, load average {load}", flush=True)
    port = free_port()
    argv = [str(BIN / "voila"), "notebooks/app.ipynb", "--no-browser", f"--port={port}",
            "--Voila.ip=127.0.0.1"]
    env = {"JUPYTER_PATH": str(ROOT / "share" / "jupyter")}
    url = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as tmp, busy_cores(args.busy), \
            _server(argv, url + PROBE, Path(tmp) / "voila.log", env=env):
        pid = server_pid(port)
        settle(pid, POOL)
        with ServerWatch(pid) as watch:
            time.sleep(1)
            idle_bytes = watch.peak_bytes  # the server and its pre-heated kernels
            start = time.monotonic()
            students = asyncio.run(classroom(url, args.students, args.within, timeout=1200))
            left = time.monotonic()
            gone = wait_for_kernels(pid, POOL, timeout=300)
        failed = [s for s in students if s.error]
        done = [s for s in students if not s.error]
        print(f"class of {len(students)}: {len(done)} drew and redrew, {len(failed)} failed; "
              f"the last redrew {left - start:.0f} s after the first arrived")
        for student in failed:
            print(f"  {student.name}: {student.error}")
        if done:
            print(_row("request -> figure data (drawn)", [s.times["drawn"] for s in done]))
            print(_row("request -> figure laid out (fitted)", [s.times["fitted"] for s in done]))
            print(_row("slider moved -> new figure (redraw)", [s.times["redraw"] for s in done]))
        print(f"  server + kernels, resident memory: {idle_bytes / 2**30:.2f} GB with the "
              f"{POOL} pre-heated kernels, peak {watch.peak_bytes / 2**30:.2f} GB with "
              f"{watch.peak_kernels} kernels ({watch.samples} samples)")
        print(f"  kernels gone {gone:.0f} s after the students left" if gone is not None else
              f"  {len(kernels(pid)) - POOL} students' kernels still running 300 s after they "
              "left")
    print(f"load average at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
