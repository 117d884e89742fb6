"""Bytecode for the site's Pyodide files, compiled at build time by Pyodide's own CPython.

Pyodide's files carry only sources, so a first visit compiles every module it imports in
WebAssembly (about 1,100 for notebook 02's first cell). ``make lite`` adds to each zip of the
distribution (``python_stdlib.zip`` and every wheel in its lock) the bytecode of its ``.py``
members, as PEP 552 *unchecked-hash* pycs: the files are unpacked at visit time, so their
mtimes say nothing, and an unchecked pyc is used without reading its source again. The
sources stay, so a traceback still shows the line. Where they go:

- ``python_stdlib.zip`` (imported by ``zipimport``, which looks beside each module):
  ``os.pyc`` next to ``os.py``;
- wheels (unpacked into site-packages): ``pkg/__pycache__/mod.cpython-312.pyc``.

Every original member is kept byte for byte (the zip is appended to, in a fixed order with a
fixed timestamp, so the same inputs give the same file); a member that does not compile is left
without bytecode (Python would raise the same error importing it). Run under Pyodide, as
lite/pyodide_dist.py does::

    node lite/pyodide_tests.mjs DIST --bare -- lite/bytecode.py compile /dist

(DIST is mounted at /dist; the files are the stdlib and those of DIST's lock), and ``verify``
instead of ``compile`` recompiles every source and compares the code objects (make lite-check).
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


def compile_zip(path: str, run_dir: str) -> tuple[int, int]:
    """Append the bytecode of ``path``'s sources to it; returns (compiled, not compilable)."""
    zipimport = path.endswith(STDLIB_ZIP)
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        todo = [(m, zf.read(m)) for m in sources(names)]
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


def verify_zip(path: str, run_dir: str) -> list[str]:
    """Each pyc of ``path`` unmarshals to the code its source compiles to, here."""
    import marshal

    zipimport = path.endswith(STDLIB_ZIP)
    problems = []
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        for member in sources(names):
            code = _compiled(zf.read(member), f"{run_dir}/{member}")
            name = pyc_name(member, zipimport)
            if code is None:
                if name in names:
                    problems.append(f"{name}: bytecode of a source that does not compile")
            elif name not in names:
                problems.append(f"{member}: no bytecode")
            elif marshal.loads(zf.read(name)[16:]) != code:
                problems.append(f"{name}: not the code of {member}")
    return problems


def _source_hash(magic: bytes, source: bytes) -> bytes:
    """importlib.util.source_hash as the interpreter of ``magic`` computes it (keyed by its
    magic number), from any Python version."""
    import _imp

    return _imp.source_hash(int.from_bytes(magic, "little"), source)


def derived_problems(original: bytes | None, derived: bytes, zipimport: bool,
                     magic: bytes = PYODIDE_MAGIC) -> list[str]:
    """What makes ``derived`` more than ``original`` plus the bytecode of each of its
    sources: a member changed or missing, one added that is not the pyc of a source, a source
    without its pyc, or a pyc that is not an unchecked-hash pyc of ``magic`` for its source's
    exact bytes. With no original (ldpviz's wheel, built for the site), only the pycs are
    checked against the sources beside them. Empty when clean."""
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
        for name in set(pycs) - set(new):
            problems.append(f"{pycs[name]} has no bytecode")
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
    if len(argv) != 2 or argv[0] not in ("compile", "verify"):
        print("usage: bytecode.py compile|verify DIST", file=sys.stderr)
        return 2
    import importlib.util

    if importlib.util.MAGIC_NUMBER != PYODIDE_MAGIC:
        raise SystemExit(f"this Python's bytecode is {importlib.util.MAGIC_NUMBER!r}, not "
                         f"{PYODIDE_MAGIC!r}: run under the distribution's Pyodide")
    command, dist = argv
    with open(f"{dist}/pyodide-lock.json") as f:
        files = dist_files(json.load(f))
    problems, total = [], 0
    for name, run_dir in files.items():
        if command == "compile":
            done, failed = compile_zip(f"{dist}/{name}", run_dir)
            total += done
            if failed:
                print(f"{name}: {failed} sources do not compile (left without bytecode)")
        else:
            problems += verify_zip(f"{dist}/{name}", run_dir)
    for line in problems[:20]:
        print(line, file=sys.stderr)
    print(f"{total} modules compiled" if command == "compile" else
          f"bytecode of {len(files)} files: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
