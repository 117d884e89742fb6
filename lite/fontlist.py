"""matplotlib's font list for the site's matplotlib wheel, made at build time by that matplotlib.

Pyodide 0.27.7's matplotlib 3.8.4 wheel ships a ``matplotlib/fontlist.json`` written by another
matplotlib (``_version`` 390, and the fonts of a Mac), while its ``font_manager.py`` (patched
by Pyodide to read and write the list beside itself, not in a cache folder) wants ``_version``
330. So every first visit rebuilt the list when ``matplotlib.font_manager`` was first
imported: "Matplotlib is building the font cache; this may take a moment." under the
student's first cell, and about a second of the first output's wait.

``make lite`` (lite/pyodide_dist.py, before the bytecode) runs ``regenerate`` under the site's
Pyodide in Node.js, where matplotlib finds exactly the fonts a browser's finds (those of its
``mpl-data``, stored relative to it as matplotlib itself writes them); the wheel keeps every
other member byte for byte and in its order, with the list at its place. Sorted by file name,
indented as matplotlib writes it, with the original member's zip time: the same wheel gives
the same list. Under Pyodide::

    node lite/pyodide_tests.mjs DIST --load=matplotlib -- lite/fontlist.py regenerate /dist
    node lite/pyodide_tests.mjs DIST --load=matplotlib -- lite/fontlist.py check

(``check``: importing matplotlib.pyplot rebuilds no list; prints the import times.)
``derived_problems`` (plain Python) accepts a derived matplotlib wheel only if this one
member changed and the list is current: its ``_version`` is the wheel's ``font_manager.py``'s
and its file names are exactly the wheel's font files.
"""

from __future__ import annotations

import ast
import io
import json
import sys
import zipfile

MEMBER = "matplotlib/fontlist.json"
FONT_MANAGER = "matplotlib/font_manager.py"
FONTS = "matplotlib/mpl-data/"  # the list's file names are relative to it
# matplotlib.font_manager.get_fontext_synonyms: what each list holds
SUFFIXES = {"afmlist": (".afm",), "ttflist": (".ttf", ".otf", ".ttc")}
NOTICE = "building the font cache"


def replace_member(wheel: bytes, member: str, data: bytes) -> bytes:
    """``wheel`` with ``member``'s content replaced by ``data``; every member keeps its place,
    its zip entry (time, attributes, compression) and, but for ``member``, its bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(wheel)) as src, zipfile.ZipFile(out, "w") as dst:
        if member not in src.namelist():
            raise ValueError(f"{member} is not in the wheel")
        for info in src.infolist():
            dst.writestr(info, data if info.filename == member else src.read(info))
    return out.getvalue()


def wanted_version(font_manager_source: bytes) -> int | None:
    """``FontManager.__version__`` in a font_manager.py (None if it has none)."""
    for node in ast.walk(ast.parse(font_manager_source)):
        if isinstance(node, ast.ClassDef) and node.name == "FontManager":
            for stmt in node.body:
                if (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant)
                        and any(getattr(t, "id", None) == "__version__" for t in stmt.targets)):
                    return stmt.value.value
    return None


def list_problems(wheel: bytes) -> list[str]:
    """What makes the wheel's font list one its matplotlib would rebuild or that names other
    fonts than the wheel's: empty when current."""
    with zipfile.ZipFile(io.BytesIO(wheel)) as zf:
        names = zf.namelist()
        if MEMBER not in names or FONT_MANAGER not in names:
            return [f"the wheel lacks {MEMBER} or {FONT_MANAGER}"]
        try:
            fonts = json.loads(zf.read(MEMBER))
        except ValueError as exc:
            return [f"{MEMBER} is not JSON: {exc}"]
        version = wanted_version(zf.read(FONT_MANAGER))
    problems = []
    if not isinstance(fonts, dict) or fonts.get("_version") != version:
        found = fonts.get("_version") if isinstance(fonts, dict) else None
        problems.append(f"{MEMBER}'s _version {found!r} is not {FONT_MANAGER}'s {version!r}"
                        " (matplotlib would rebuild it)")
        if not isinstance(fonts, dict):
            return problems
    for key, suffixes in SUFFIXES.items():
        entries = fonts.get(key)
        if not isinstance(entries, list) or not all(
                isinstance(e, dict) and isinstance(e.get("fname"), str) for e in entries):
            problems.append(f"{MEMBER}: {key} is not a list of fonts with file names")
            continue
        listed = sorted(e["fname"] for e in entries)
        shipped = sorted(n[len(FONTS):] for n in names if n.startswith(FONTS + "fonts/")
                         and n.lower().endswith(suffixes))
        if listed != shipped:
            extra = sorted(set(listed) - set(shipped)) or sorted(
                n for n in set(listed) if listed.count(n) > 1)
            missing = sorted(set(shipped) - set(listed))
            problems.append(f"{MEMBER}: {key} is not the wheel's {'/'.join(suffixes)} fonts "
                            f"(not shipped or twice: {extra[:3]}, missing: {missing[:3]})")
    return problems


def derived_problems(original: bytes | None, derived: bytes) -> list[str]:
    """lite/bytecode.py's ``derived_problems`` for the matplotlib wheel: the original's
    members are all kept byte for byte, but for its font list, which must be current
    (``list_problems``), and the members added are bytecode of its sources."""
    import bytecode

    if original is None:
        return ["no original to compare the derived matplotlib wheel with"]
    problems = list_problems(derived)
    with zipfile.ZipFile(io.BytesIO(derived)) as zf:
        data = zf.read(MEMBER) if MEMBER in zf.namelist() else None
    if data is None:
        return problems
    return problems + bytecode.derived_problems(replace_member(original, MEMBER, data), derived,
                                                zipimport=False)


def _fresh_list() -> bytes:
    """The font list this matplotlib writes when it has none, sorted by file name."""
    import logging

    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)  # its notice
    from matplotlib import font_manager

    manager = font_manager.FontManager()
    for entries in (manager.ttflist, manager.afmlist):
        entries.sort(key=lambda entry: entry.fname)
    return json.dumps(manager, cls=font_manager._JSONEncoder, indent=2).encode()


def regenerate(dist: str) -> str:
    """Put the font list of the distribution's matplotlib into its wheel (under Pyodide)."""
    with open(f"{dist}/pyodide-lock.json") as f:
        path = f"{dist}/{json.load(f)['packages']['matplotlib']['file_name']}"
    with open(path, "rb") as f:
        wheel = f.read()
    derived = replace_member(wheel, MEMBER, _fresh_list())
    problems = list_problems(derived)
    if problems:
        raise SystemExit(f"{path}: the regenerated font list is not current: {problems}")
    with open(path, "wb") as f:
        f.write(derived)
    with zipfile.ZipFile(io.BytesIO(wheel)) as zf:
        stale = json.loads(zf.read(MEMBER)).get("_version")
        version = wanted_version(zf.read(FONT_MANAGER))
    others = "; its fonts were not the wheel's" if any(
        "is not the wheel's" in p for p in list_problems(wheel)) else ""
    return (f"{MEMBER} regenerated (the wheel's had _version {stale}, its font_manager.py "
            f"wants {version}{others})")


def check() -> int:
    """Import matplotlib.font_manager, then pyplot, as a first visit does; 1 if matplotlib
    rebuilt its font list or cannot find its default font."""
    import contextlib
    import itertools
    import os
    import time

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        times = [time.perf_counter()]
        import matplotlib
        times.append(time.perf_counter())
        from matplotlib import font_manager
        times.append(time.perf_counter())
        import matplotlib.pyplot  # noqa: F401
        times.append(time.perf_counter())
        default = font_manager.findfont("DejaVu Sans", fallback_to_default=False)
    sys.stderr.write(err.getvalue())
    took = [f"{b - a:.3f}" for a, b in itertools.pairwise(times)]
    print(f"import matplotlib {took[0]} s, then matplotlib.font_manager {took[1]} s, then "
          f"matplotlib.pyplot {took[2]} s; {len(font_manager.fontManager.ttflist)} ttf and "
          f"{len(font_manager.fontManager.afmlist)} afm fonts; DejaVu Sans at {default}")
    if NOTICE in err.getvalue():
        print(f"matplotlib rebuilt its font list: {MEMBER} is stale", file=sys.stderr)
        return 1
    return 0 if os.path.exists(default) else 1


def regenerate_in(dist, lock: dict, log: dict[str, str], node: str):
    """lite/pyodide_dist.py's step: ``regenerate`` under the distribution's Pyodide (in
    Node.js, lite/pyodide_tests.mjs), noted in the matplotlib wheel's line of ``log``."""
    import subprocess
    from pathlib import Path

    here = Path(__file__).resolve().parent
    argv = [node, here / "pyodide_tests.mjs", dist, "--load=matplotlib", "--",
            "lite/fontlist.py", "regenerate", "/dist"]
    print("+", " ".join(map(str, argv)), flush=True)
    note = subprocess.run(argv, check=True, stdout=subprocess.PIPE, text=True).stdout
    log[lock["packages"]["matplotlib"]["file_name"]] += f" -> {note.strip().splitlines()[-1]}"


def main(argv) -> int:
    if argv[:1] == ["regenerate"] and len(argv) == 2:
        print(regenerate(argv[1]))
        return 0
    if argv == ["check"]:
        return check()
    print("usage: fontlist.py regenerate DIST | check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
