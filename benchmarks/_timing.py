"""Timing helpers for the benchmark scripts: medians of repeated calls in one process, and
other processes keeping cores busy (the targets' condition on the two-core machine)."""

import subprocess
import sys
import time
from contextlib import contextmanager

import numpy as np


@contextmanager
def busy_cores(count):
    """``count`` processes spinning on a core each, for the duration."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(count)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def median_seconds(fn, repeats=7, warmup=1):
    """Median wall time of ``fn()`` over ``repeats`` calls, after ``warmup`` uncounted calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def paired_medians(fn, reference, repeats=7, warmup=1):
    """Median wall times of ``fn()`` and ``reference()`` called in alternation, so that a load
    change on a shared machine hits both alike (their ratio is what a benchmark reports)."""
    for _ in range(warmup):
        fn()
        reference()
    times, ref_times = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        start = time.perf_counter()
        reference()
        ref_times.append(time.perf_counter() - start)
    return float(np.median(times)), float(np.median(ref_times))
