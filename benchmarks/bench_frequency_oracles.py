"""Frequency oracles side by side: ldpviz, pure-ldp and multi-freq-ldpy (issue 34).

For GRR, SUE, OUE and OLH at epsilon = 1, k in {2, 16, 1024} and n in {10^5, 10^6, 10^7}
(``--quick``: n up to 10^6), each library randomizes every user's value and estimates the k
frequencies. Each cell runs in its own process: the best of up to three runs (fewer when a
run takes more than a few seconds), its peak extra memory (the process's peak resident set
above what it held before the run, data and imports included there; below 1 MiB counted as
1 MiB, the resolution of RSS pages and allocator arenas) and the largest error against the
true counts in theoretical standard deviations (Wang et al.'s variance at the true shares).

How the peers are called. Neither has a vectorised API: each documents a client call per user
and a server-side aggregation, and that is what runs here, in the fastest documented form.
pure-ldp 1.2: ``client.privatise`` and ``server.aggregate`` interleaved user by user (its
README's usage; no report list is kept), then ``server.estimate_all``: ``DEClient/DEServer``,
``UEClient/UEServer`` (``use_oue``), ``LHClient/LHServer`` (``use_olh=True``; its
``FastLH`` is a heuristic with a fixed set of hash functions, another mechanism).
multi-freq-ldpy 0.2.5: a list of ``*_Client`` reports (GRR and UE compiled with numba, warmed
up before timing), then ``*_Aggregator_MI`` (its estimates are clipped at 0 and renormalised,
so their error in standard deviations is not that of an unbiased estimate). Every library gets
its input in its own format before the clock starts (numpy array; Python ints for the peers).
ldpviz: :func:`ldpviz.frequency_oracles.estimate_frequencies` (unary encoding draws the
column sums from their exact distribution; GRR and OLH draw every user's report).

A peer's cell is skipped when the cell ten times smaller predicts more than ``--timeout``
seconds or ``--max-mib`` of memory (the prediction is printed), and stopped at ``--timeout``.
The peers are an optional extra: ``pip install -e .[bench]``; a missing one is reported.

Target (issue 34): in every cell where a peer offers the mechanism, ldpviz at most 0.5x the
faster peer's time and at most twice its extra memory. The last line is
``worst ratio to the faster peer: X``, X the largest ldpviz / faster-peer time ratio over
the cells where a peer was measured.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

EPSILON = 1.0
ORACLES = ("grr", "sue", "oue", "olh")
KS = (2, 16, 1024)
NS = (10**5, 10**6, 10**7)
LIBRARIES = ("ldpviz", "pure-ldp", "multi-freq-ldpy")
MIN_MIB = 1.0  # memory resolution (see the module docstring)
TIME_TARGET, MEMORY_TARGET = 0.5, 2.0


# ----------------------------------------------------------------------------------------------
# One cell, in its own process
# ----------------------------------------------------------------------------------------------
def _population(n, k, seed=0):
    """A Zipf-like population: value j with probability proportional to 1 / (j + 1)."""
    weights = 1.0 / np.arange(1, k + 1)
    return np.random.default_rng(seed).choice(k, size=n, p=weights / weights.sum())


def _ldpviz_runner(oracle, k):
    from ldpviz.frequency_oracles import estimate_frequencies

    def run(values, seed):
        return estimate_frequencies(values, k, EPSILON, oracle, rng=seed).estimate
    return run, lambda values: values


def _pure_ldp_runner(oracle, k):
    from pure_ldp.frequency_oracles.direct_encoding import DEClient, DEServer
    from pure_ldp.frequency_oracles.local_hashing import LHClient, LHServer
    from pure_ldp.frequency_oracles.unary_encoding import UEClient, UEServer

    def identity(x):
        return x

    def make():
        if oracle == "grr":
            return (DEClient(EPSILON, k, index_mapper=identity),
                    DEServer(EPSILON, k, index_mapper=identity))
        if oracle == "olh":
            return (LHClient(EPSILON, k, use_olh=True, index_mapper=identity),
                    LHServer(EPSILON, k, use_olh=True, index_mapper=identity))
        oue = oracle == "oue"
        return (UEClient(EPSILON, k, use_oue=oue, index_mapper=identity),
                UEServer(EPSILON, k, use_oue=oue, index_mapper=identity))

    def run(values, seed):
        import random
        random.seed(seed)
        np.random.seed(seed)  # noqa: NPY002 (the peers draw from numpy's global generator)
        client, server = make()
        for x in values:
            server.aggregate(client.privatise(x))
        return np.asarray(server.estimate_all(range(k), suppress_warnings=True), dtype=float)
    return run, lambda values: values.tolist()


def _multi_freq_runner(oracle, k):
    from multi_freq_ldpy.pure_frequency_oracles import GRR, LH, UE

    def run(values, seed):
        np.random.seed(seed)  # noqa: NPY002 (the peers draw from numpy's global generator)
        if oracle == "grr":
            reports = [GRR.GRR_Client(x, k, EPSILON) for x in values]
            shares = GRR.GRR_Aggregator_MI(reports, k, EPSILON)
        elif oracle == "olh":
            reports = [LH.LH_Client(x, k, EPSILON, True) for x in values]
            shares = LH.LH_Aggregator_MI(reports, k, EPSILON, True)
        else:
            optimal = oracle == "oue"
            reports = [UE.UE_Client(x, k, EPSILON, optimal) for x in values]
            shares = UE.UE_Aggregator_MI(reports, EPSILON, optimal)
        return np.asarray(shares, dtype=float) * len(values)
    return run, lambda values: values.tolist()


RUNNERS = {"ldpviz": _ldpviz_runner, "pure-ldp": _pure_ldp_runner,
           "multi-freq-ldpy": _multi_freq_runner}


def _status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1]) / 1024  # kB -> MiB
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_peak():
    """Reset the peak resident set (VmHWM) to the current one (Linux, clear_refs 5)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def run_cell(library, oracle, k, n, budget_seconds):
    """Time, peak extra memory and largest error in SDs of one library on one cell."""
    from ldpviz.frequency_oracles import oracle_variance

    run, prepare = RUNNERS[library](oracle, k)
    warm = prepare(_population(1000, k, seed=1))
    run(warm, 0)  # imports, numba compilation, first-call costs
    values = _population(n, k)
    truth = np.bincount(values, minlength=k)
    sd = np.sqrt(oracle_variance(oracle, n, k, EPSILON, truth / n))
    data = prepare(values)
    times, extra, errors = [], 0.0, []
    start = time.perf_counter()
    for repeat in range(3):
        _reset_peak()
        before = _status("VmRSS")
        t0 = time.perf_counter()
        estimate = run(data, repeat + 1)
        times.append(time.perf_counter() - t0)
        extra = max(extra, _status("VmHWM") - before)
        errors.append(float(np.max(np.abs(estimate - truth) / sd)))
        del estimate
        if time.perf_counter() - start + times[-1] > budget_seconds:
            break
    return {"seconds": min(times), "extra_mib": extra, "max_sd": max(errors),
            "runs": len(times)}


# ----------------------------------------------------------------------------------------------
# The table
# ----------------------------------------------------------------------------------------------
def _cell_in_process(library, oracle, k, n, timeout, budget_seconds):
    cmd = [sys.executable, __file__, "--cell", library, oracle, str(k), str(n),
           "--budget", str(budget_seconds)]
    # A fixed mmap threshold: glibc's adaptive one keeps freed blocks of up to 32 MB in the
    # heap, where a later allocation reuses them unseen by the peak RSS; fixed, every block of
    # 128 KiB or more is mapped when allocated and unmapped when freed, for every library.
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": "131072"}
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "seconds": float(timeout)}
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"status": "failed", "error": tail[:120]}
    return {"status": "ok", **json.loads(done.stdout.strip().splitlines()[-1])}


def _available(library):
    module = {"ldpviz": "ldpviz", "pure-ldp": "pure_ldp",
              "multi-freq-ldpy": "multi_freq_ldpy"}[library]
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def _predict(previous, scale):
    """Linear extrapolation of a per-user loop from the cell ten times smaller: from its
    measurement, its own prediction when it was skipped, or its timeout (a lower bound)."""
    if previous is None or previous.get("status") not in ("ok", "skipped", "timeout"):
        return None
    extra = previous.get("extra_mib", 0.0)  # a timeout measured no memory: time decides
    return {"seconds": previous["seconds"] * scale, "extra_mib": max(extra, MIN_MIB) * scale}


def _show(result):
    if result is None:
        return f"{'-':>8} {'':>7} {'':>6}"
    status = result.get("status")
    if status == "ok":
        return (f"{result['seconds']:8.3g} {max(result['extra_mib'], MIN_MIB):7.1f} "
                f"{result['max_sd']:6.2f}")
    if status == "timeout":
        return f"{'>' + format(result['seconds'], '.0f'):>8} {'':>7} {'':>6}"
    if status == "skipped":
        return (f"{'~' + format(result['seconds'], '.3g'):>8} "
                f"{'~' + format(result['extra_mib'], '.0f'):>7} {'skip':>6}")
    return f"{'failed':>8} {'':>7} {'':>6}"


def _faster_peer(peers):
    """(seconds, extra MiB, measured?) of the faster peer: measured times first."""
    measured = [r for r in peers if r and r.get("status") == "ok"]
    bounds = [r for r in peers if r and r.get("status") in ("timeout", "skipped")]
    if measured:
        best = min(measured, key=lambda r: r["seconds"])
        if all(b["seconds"] >= best["seconds"] for b in bounds):
            return best["seconds"], max(best["extra_mib"], MIN_MIB), True
    if bounds:
        return min(b["seconds"] for b in bounds), None, False
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n up to 10^6")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds a peer's cell may take (default 300)")
    parser.add_argument("--max-mib", type=float, default=4096.0,
                        help="memory a peer's cell may be predicted to need (default 4096)")
    parser.add_argument("--oracles", nargs="+", default=list(ORACLES), choices=ORACLES)
    parser.add_argument("--cell", nargs=4, metavar=("LIBRARY", "ORACLE", "K", "N"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--budget", type=float, default=20.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cell:
        library, oracle, k, n = args.cell
        print(json.dumps(run_cell(library, oracle, int(k), int(n), args.budget)))
        return
    ns = [n for n in NS if n <= 10**6] if args.quick else list(NS)
    peers = [lib for lib in LIBRARIES[1:] if _available(lib)]
    missing = [lib for lib in LIBRARIES[1:] if lib not in peers]
    print(f"epsilon = {EPSILON}; load average at start {os.getloadavg()[0]:.2f} on "
          f"{os.cpu_count()} cores; peers: {', '.join(peers) or 'none'}"
          + (f" (missing: {', '.join(missing)}; pip install -e .[bench])" if missing else ""))
    print("each library: seconds, peak extra MiB, largest |error| in SDs; ~ predicted and "
          f"skipped, > stopped at the timeout; ratios to the faster peer (memory below "
          f"{MIN_MIB:g} MiB counted as {MIN_MIB:g})")
    head = " ".join(f"{lib:^23}" for lib in LIBRARIES)
    print(f"{'oracle':6} {'k':>5} {'n':>9} | {head} | {'time':>6} {'mem':>5}")
    worst, misses, started = None, [], time.time()
    for oracle in args.oracles:
        for k in KS:
            previous = {}
            for n in ns:
                row = {"ldpviz": _cell_in_process("ldpviz", oracle, k, n, 10 * args.timeout,
                                                  20.0)}
                for lib in peers:
                    guess = _predict(previous.get(lib), 10)
                    if guess and (guess["seconds"] > args.timeout
                                  or guess["extra_mib"] > args.max_mib):
                        row[lib] = {"status": "skipped", **guess}
                    else:
                        row[lib] = _cell_in_process(lib, oracle, k, n, args.timeout, 20.0)
                previous = row
                ours = row["ldpviz"]
                faster = _faster_peer([row.get(lib) for lib in peers])
                ratio = mem = ""
                if ours.get("status") == "ok" and faster:
                    seconds, peer_mib, measured = faster
                    r = ours["seconds"] / seconds
                    ratio = f"{r:6.3f}" if measured else f"<{r:5.3f}"
                    if measured:
                        worst = r if worst is None else max(worst, r)
                        m = max(ours["extra_mib"], MIN_MIB) / peer_mib
                        mem = f"{m:5.2f}"
                        if r > TIME_TARGET or m > MEMORY_TARGET:
                            misses.append(f"{oracle} k={k} n={n:.0e}")
                    elif r > TIME_TARGET:
                        misses.append(f"{oracle} k={k} n={n:.0e} (bound)")
                cells = " ".join(_show(row.get(lib)) for lib in LIBRARIES)
                print(f"{oracle:6} {k:5d} {n:9.0e} | {cells} | {ratio:>6} {mem:>5}",
                      flush=True)
    print(f"load average at end {os.getloadavg()[0]:.2f}; {time.time() - started:.0f} s in all")
    print("cells missing the target (time <= 0.5x and memory <= 2x the faster peer): "
          + (", ".join(misses) if misses else "none"))
    shown = "none measured (no peer ran)" if worst is None else f"{worst:.3f}"
    print(f"worst ratio to the faster peer: {shown}")


if __name__ == "__main__":
    main()
