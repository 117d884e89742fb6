"""On Pyodide (JupyterLite), a package of the site is installed the first time an import needs it.

The course site starts its kernel without scipy, scikit-learn, matplotlib and plotly
(lite/pyodide_dist.py, ``DEFERRED``): packages that a notebook's first cells never use, and
loading them at start delayed a first visit's first output by seconds. A cell that imports a
package gets it from the kernel as before (the kernel loads what a cell's import lines name
before running it). What no cell names, an import ldpviz makes inside a call
(``HistOfTree().fit`` imports scikit-learn, the first figure matplotlib), or a version lookup
(``importlib.metadata.version("plotly")``), this finder installs on the spot. Where the browser
can suspend WebAssembly (JSPI: Chromium 137 and later) it has Pyodide load the package as the
kernel would, waiting for it. Elsewhere (and in Node.js) it reads the package's file from the
site synchronously, which a Web Worker, where the kernel runs, allows; checks it against the
sha256 of the site's ``pyodide-lock.json``; unpacks it; and records it as loaded, so the kernel
never loads it twice. Its extension modules are then compiled as Python imports them, which
measured about 5 s slower for scipy and scikit-learn in Chromium.

It sits last on ``sys.meta_path``: an import that works without it never reaches it.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import re
import sys


class SitePackageFinder(importlib.abc.MetaPathFinder):
    """Install the site package that provides a missing top-level module, then find it.

    Parameters
    ----------
    packages : dict
        The site lock's packages: name -> entry with ``file_name``, ``sha256``, ``depends``,
        ``imports`` and ``package_type``, as in ``pyodide-lock.json``.
    is_loaded, mark_loaded : callable
        Whether the kernel has a package loaded, and record that it has.
    read : callable
        ``read(file_name) -> bytes``: the file as the site serves it.
    unpack : callable
        ``unpack(data, entry)``: install the checked file.
    load : callable, optional
        ``load(name) -> bool``: have the kernel load the package and its dependencies, waiting
        for it; False where it cannot wait, and the finder installs it itself.
    """

    def __init__(self, packages, *, is_loaded, mark_loaded, read, unpack, load=None):
        self.packages = packages
        self._is_loaded, self._mark_loaded = is_loaded, mark_loaded
        self._read, self._unpack, self._load = read, unpack, load
        self._by_import = {module: name for name, entry in packages.items()
                           for module in entry.get("imports", ())}
        self._by_name = {_canonical(name): name for name in packages}

    def find_spec(self, fullname, path=None, target=None):
        name = self._by_import.get(fullname) if path is None else None  # top level only
        if name is None or self._is_loaded(name):
            return None
        self._get(name)
        return importlib.machinery.PathFinder.find_spec(fullname)

    def find_distributions(self, context=None):
        """What ``importlib.metadata`` asks every finder: ``version("scikit-learn")`` installs
        the package as its import would, then reads its metadata."""
        wanted = getattr(context, "name", None)
        name = wanted and self._by_name.get(_canonical(wanted))
        if name is None or self._is_loaded(name):
            return iter(())
        self._get(name)
        # not PathFinder.find_distributions: the importlib_metadata backport deletes it
        return importlib.metadata.MetadataPathFinder.find_distributions(context)

    def _get(self, name):
        if not (self._load is not None and self._load(name)):
            self.install(name)
        if not self._is_loaded(name):
            raise ImportError(f"{name} could not be loaded from the site (see the messages above)")
        importlib.invalidate_caches()

    def install(self, name):
        entry = self.packages[name]
        for dependency in entry.get("depends", ()):
            if self._is_loaded(dependency):
                continue
            if self.packages[dependency].get("package_type") == "shared_library":
                # a shared library must be loaded the kernel's way (asynchronously, globally)
                module = (entry.get("imports") or [name])[0]  # a package may import nothing
                raise ImportError(f"{name} needs the shared library {dependency}, which this "
                                  "site's kernel did not load at start: run a cell with "
                                  f"'import {module}' first")
            self.install(dependency)
        data = self._read(entry["file_name"])
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise ImportError(f"{entry['file_name']} does not match the sha256 of the site's "
                              "pyodide-lock.json: the site is damaged, rebuild it (make lite)")
        self._unpack(data, entry)
        self._mark_loaded(name)


def _canonical(name):
    """A distribution's name as packaging compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _pyodide_finder():
    import js
    import pyodide_js
    from pyodide._package_loader import get_install_dir, unpack_buffer
    from pyodide.code import run_js
    from pyodide.ffi import can_run_sync, create_proxy, run_sync, to_js

    api = pyodide_js._api
    index_url = api.config.indexURL
    loaded = pyodide_js.loadedPackages

    # a Node.js Buffer as a plain Uint8Array (Pyodide cannot convert a Buffer)
    read_file = run_js("p => { const b = process.getBuiltinModule('fs').readFileSync(p); "
                       "return new Uint8Array(b.buffer, b.byteOffset, b.byteLength); }")

    def read(file_name):
        if hasattr(js, "XMLHttpRequest"):  # the browser: the kernel's Web Worker
            url = js.URL.new(file_name, js.URL.new(index_url, js.location.href)).href
            request = js.XMLHttpRequest.new()
            request.open("GET", url, False)
            request.responseType = "arraybuffer"
            request.send(None)
            if request.status != 200:
                raise ImportError(f"{url} could not be read (HTTP {request.status})")
            return request.response.to_bytes()
        return read_file(index_url + file_name).to_bytes()  # Node.js

    def unpack(data, entry):
        unpack_buffer(to_js(data), filename=entry["file_name"],
                      extract_dir=get_install_dir(entry.get("install_dir", "site")),
                      installer="pyodide.loadPackage", source="pyodide")

    quiet = to_js({"messageCallback": create_proxy(lambda message: None)},
                  dict_converter=js.Object.fromEntries)  # no "Loading scipy" under a cell

    def load(name):
        if not can_run_sync():  # no JSPI, or a call from outside a cell (a widget's callback)
            return False
        run_sync(pyodide_js.loadPackage(to_js([name]), quiet))
        return True

    return SitePackageFinder(
        api.lockfile_packages.to_py(),
        is_loaded=lambda name: getattr(loaded, name, None) is not None,
        mark_loaded=lambda name: setattr(loaded, name, "default channel"),
        read=read, unpack=unpack, load=load)


def install():
    """Put the finder last on ``sys.meta_path`` under Pyodide with a package lock (once)."""
    if sys.platform != "emscripten" or any(isinstance(f, SitePackageFinder)
                                           for f in sys.meta_path):
        return
    try:
        finder = _pyodide_finder()
    except (ImportError, AttributeError):  # a Pyodide without a lock file: nothing to install
        return
    sys.meta_path.append(finder)
