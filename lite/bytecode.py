"""Bytecode for the site's Pyodide files, compiled at build time by Pyodide's own CPython.

Pyodide's files carry only sources, so a first visit compiles every module it imports in
WebAssembly (about 1,100 for notebook 02's first cell). ``make lite`` adds to the zips of the
distribution (``python_stdlib.zip`` and the wheels in its lock) the bytecode of the modules a
course session imports, as PEP 552 *unchecked-hash* pycs: the files are unpacked at visit time,
so their mtimes say nothing, and an unchecked pyc is used without reading its source again.
The sources stay, so a traceback still shows the line. Where they go:

- ``python_stdlib.zip`` (imported by ``zipimport``, which looks beside each module):
  ``os.pyc`` next to ``os.py``;
- wheels (unpacked into site-packages): ``pkg/__pycache__/mod.cpython-312.pyc``.

Which modules: ``trace`` starts what the site's kernel loads at start (lite/jupyter-lite.json),
imports the kernel's modules and every ldpviz module, and builds every explorer; each module it
imported gets its pyc, and every module of a package it did not load. Compiling all of them
would add 31 MiB (plotly's 1,500 modules, fontTools, pygments' lexers...) to what a first
visit downloads, for modules a visit rarely imports; one outside the trace is compiled at
import, as before.

Every original member is kept byte for byte (the zip is appended to, in a fixed order with a
fixed timestamp, so the same inputs give the same file). Run under Pyodide, as
lite/pyodide_dist.py does::

    node lite/pyodide_tests.mjs DIST --load=PACKAGES -- lite/bytecode.py trace /dist
    node lite/pyodide_tests.mjs DIST --load= -- lite/bytecode.py compile /dist

(DIST is mounted at /dist; the files are the stdlib and those of DIST's lock), and ``verify``
recompiles the source of every pyc and compares the code objects (make lite-check).
``derived_problems`` (plain Python, any version) checks a derived zip against its original.
"""

from __future__ import annotations

import io
import json
import sys
import zipfile

PYC_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say: no build time in the file
CACHE_TAG = "cpython-312"
FLAGS_UNCHECKED_HASH = 0b01  # PEP 552: hash-based, not checked against the source
STDLIB_ZIP = "python_stdlib.zip"
PYODIDE_MAGIC = (3531).to_bytes(2, "little") + b"\r\n"  # CPython 3.12's, Pyodide 0.27's
# Where each file's modules live in the running Pyodide (the bytecode's file names); dynamic
# libraries (openblas, openssl) hold no Python.
RUN_DIRS = {"site": "/lib/python3.12/site-packages", "stdlib": "/lib/python3.12"}
STDLIB_RUN_DIR = "/lib/python312.zip"
TRACE = "bytecode-trace.json"  # in DIST: written by trace, read (and removed) by compile
KERNEL_MODULES = ("IPython", "jedi", "micropip", "piplite.piplite", "ipykernel",
                  "pyodide_kernel", "matplotlib_inline.backend_inline")


def dist_files(lock: dict) -> dict[str, str]:
    """{file name: where its modules live} of every file of a distribution with Python."""
    files = {STDLIB_ZIP: STDLIB_RUN_DIR}
    for entry in sorted(lock["packages"].values(), key=lambda e: e["file_name"]):
        if entry["install_dir"] in RUN_DIRS:
            files[entry["file_name"]] = RUN_DIRS[entry["install_dir"]]
    return files


def pyc_name(member: str, zipimport: bool) -> str:
    """Where the bytecode of source ``member`` goes in the same zip."""
    if zipimport:
        return member + "c"
    folder, _, name = member.rpartition("/")
    return f"{folder + '/' if folder else ''}__pycache__/{name[:-3]}.{CACHE_TAG}.pyc"


def sources(names) -> list[str]:
    """The importable ``.py`` members (not a wheel's metadata or data folders)."""
    return sorted(n for n in names if n.endswith(".py") and not any(
        part.endswith((".dist-info", ".data")) for part in n.split("/")[:-1]))


def _compiled(source: bytes, filename: str):
    import warnings

    with warnings.catch_warnings():  # a source's SyntaxWarning is not the build's concern
        warnings.simplefilter("ignore")
        try:
            return compile(source, filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return None


def _pyc(code, source: bytes) -> bytes:
    import importlib.util
    from importlib._bootstrap_external import _code_to_hash_pyc

    return bytes(_code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False))


def compile_zip(path: str, run_dir: str, only=None) -> tuple[int, int]:
    """Append the bytecode of ``path``'s sources (those in ``only``, if given) to it; returns
    (compiled, not compilable)."""
    zipimport = path.endswith(STDLIB_ZIP)
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        todo = [(m, zf.read(m)) for m in sources(names) if only is None or m in only]
    if any(pyc_name(m, zipimport) in names for m, _ in todo):
        raise SystemExit(f"{path} already holds bytecode: compile the original")
    done, failed = 0, 0
    with zipfile.ZipFile(path, "a") as zf:
        for member, source in todo:
            code = _compiled(source, f"{run_dir}/{member}")
            if code is None:
                failed += 1
                continue
            info = zipfile.ZipInfo(pyc_name(member, zipimport), date_time=PYC_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            zf.writestr(info, _pyc(code, source))
            done += 1
    return done, failed


def verify_zip(path: str, run_dir: str) -> tuple[int, list[str]]:
    """Each pyc of ``path`` unmarshals to the code its source compiles to, here; returns
    (pycs checked, problems)."""
    import marshal

    zipimport = path.endswith(STDLIB_ZIP)
    problems, checked = [], 0
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        for member in sources(names):
            name = pyc_name(member, zipimport)
            if name not in names:
                continue
            checked += 1
            code = _compiled(zf.read(member), f"{run_dir}/{member}")
            if code is None or marshal.loads(zf.read(name)[16:]) != code:
                problems.append(f"{name}: not the code of {member}")
    return checked, problems


def _session():
    """What a course session imports: the kernel, every ldpviz module, every explorer built
    and a matplotlib figure drawn (failures are ignored: this only chooses modules)."""
    import importlib
    import pkgutil

    def attempt(call, *args):
        try:
            return call(*args)
        except Exception:  # a module Node cannot import is simply not traced
            return None

    streams = sys.stdout, sys.stderr
    for name in KERNEL_MODULES:
        attempt(importlib.import_module, name)
    sys.stdout, sys.stderr = streams  # pyodide_kernel's streams publish to no front end
    kernel = sys.modules.get("pyodide_kernel")
    if kernel is not None:  # as the kernel's worker does, for the widgets' comms
        kernel.kernel_instance.interpreter.send_comm = lambda *args, **kwargs: None
    import ldpviz

    for info in pkgutil.walk_packages(ldpviz.__path__, "ldpviz."):
        attempt(importlib.import_module, info.name)
    from ldpviz.viz import widgets

    for name in sorted(dir(widgets)):
        if name.endswith("_explorer"):
            attempt(getattr(widgets, name))
    import matplotlib.pyplot as plt

    fig = plt.figure()
    plt.plot([0, 1], [1, 0])
    fig.savefig(io.BytesIO(), format="png")


def trace(dist: str) -> dict[str, list[str]]:
    """{file name: its members imported by ``_session``} for the stdlib and every file of a
    loaded package (those of packages not loaded are absent: all their modules get pycs)."""
    import pyodide_js

    _session()
    imported = list(sys.modules.values())  # before this function's own import below
    from packaging.utils import canonicalize_name

    with open(f"{dist}/pyodide-lock.json") as f:
        lock = json.load(f)
    file_of = {canonicalize_name(name): entry["file_name"]
               for name, entry in lock["packages"].items()}
    loaded = {file_of.get(canonicalize_name(name))
              for name in pyodide_js.loadedPackages.object_keys()}
    where, traced = {}, {}
    for name, run_dir in dist_files(lock).items():
        if name != STDLIB_ZIP and name not in loaded:
            continue
        traced[name] = []
        with zipfile.ZipFile(f"{dist}/{name}") as zf:
            for member in sources(zf.namelist()):
                where[f"{run_dir}/{member}"] = (name, member)
                where[f"/repo/src/{member}"] = (name, member)  # ldpviz: the checkout's
    for module in imported:
        found = where.get(getattr(module, "__file__", None) or "")
        if found:
            traced[found[0]].append(found[1])
    return {name: sorted(set(members)) for name, members in traced.items()}


def _source_hash(magic: bytes, source: bytes) -> bytes:
    """importlib.util.source_hash as the interpreter of ``magic`` computes it (keyed by its
    magic number), from any Python version."""
    import _imp

    return _imp.source_hash(int.from_bytes(magic, "little"), source)


def derived_problems(original: bytes | None, derived: bytes, zipimport: bool,
                     magic: bytes = PYODIDE_MAGIC) -> list[str]:
    """What makes ``derived`` more than ``original`` plus the bytecode of some of its sources:
    a member changed or missing, one added that is not the pyc of a source, or a pyc that is
    not an unchecked-hash pyc of ``magic`` for its source's exact bytes. With no original
    (ldpviz's wheel, built for the site), only the pycs are checked against the sources beside
    them. Empty when clean."""
    problems = []
    with zipfile.ZipFile(io.BytesIO(derived)) as b:
        new = b.namelist()
        if original is None:
            added = {pyc_name(m, zipimport) for m in sources(new)}
            old = [n for n in new if n not in added]
            a = b
        else:
            a = zipfile.ZipFile(io.BytesIO(original))
            old = a.namelist()
        if new[:len(old)] != old:
            problems.append("the original members are not all kept, first and in their order")
        for name in old:
            if name in new and a.read(name) != b.read(name):
                problems.append(f"{name} differs from the original")
        pycs = {pyc_name(m, zipimport): m for m in sources(old)}
        for name in new[len(old):]:
            if name not in pycs:
                problems.append(f"{name} is added and is not the bytecode of a source")
                continue
            pyc = b.read(name)
            if pyc[:4] != magic or int.from_bytes(pyc[4:8], "little") != FLAGS_UNCHECKED_HASH:
                problems.append(f"{name} is not an unchecked-hash pyc of {magic!r}")
            elif pyc[8:16] != _source_hash(magic, a.read(pycs[name])):
                problems.append(f"{name} is not the bytecode of {pycs[name]}'s bytes")
    return problems


def main(argv) -> int:
    if len(argv) != 2 or argv[0] not in ("trace", "compile", "verify"):
        print("usage: bytecode.py trace|compile|verify DIST", file=sys.stderr)
        return 2
    import importlib.util

    if importlib.util.MAGIC_NUMBER != PYODIDE_MAGIC:
        raise SystemExit(f"this Python's bytecode is {importlib.util.MAGIC_NUMBER!r}, not "
                         f"{PYODIDE_MAGIC!r}: run under the distribution's Pyodide")
    command, dist = argv
    if command == "trace":
        traced = trace(dist)
        with open(f"{dist}/{TRACE}", "w") as f:
            json.dump(traced, f, indent=0, sort_keys=True)
        print(f"a session imports {sum(map(len, traced.values()))} modules of "
              f"{len(traced)} files")
        return 0
    with open(f"{dist}/pyodide-lock.json") as f:
        files = dist_files(json.load(f))
    traced = {}
    if command == "compile":
        with open(f"{dist}/{TRACE}") as f:
            traced = json.load(f)
    problems, total = [], 0
    for name, run_dir in files.items():
        if command == "compile":
            only = set(traced[name]) if name in traced else None
            done, failed = compile_zip(f"{dist}/{name}", run_dir, only)
            total += done
            if failed:
                print(f"{name}: {failed} sources do not compile (left without bytecode)")
        else:
            checked, found = verify_zip(f"{dist}/{name}", run_dir)
            total += checked
            problems += found
    for line in problems[:20]:
        print(line, file=sys.stderr)
    print(f"{total} modules compiled" if command == "compile" else
          f"{total} pycs of {len(files)} files checked: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
