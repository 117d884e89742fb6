"""The JupyterLite site's packages installed on first import (ldpviz._site_packages).

Here with a lock of two small made-up packages. Under Pyodide, ``make lite-check`` takes the
fingerprint of lite/wasm32_check.py from the kernel's start packages (its fits install scipy and
scikit-learn through the finder, in Node.js by reading the files) and runs notebook 01 in
Chromium (tests/browser/test_lite.py), which reaches scipy through no import line of its own.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import sys
import zipfile
from types import SimpleNamespace

import pytest

from ldpviz import _site_packages
from ldpviz._site_packages import SitePackageFinder

PACKAGES = {"ldpviz_probe_base": "VALUE = 41\n",
            "ldpviz_probe_top": "import ldpviz_probe_base\nVALUE = ldpviz_probe_base.VALUE + 1\n"}


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A lock, a served folder and a site-packages folder (on sys.path) for the probes."""
    served, installed = tmp_path / "served", tmp_path / "site-packages"
    served.mkdir()
    installed.mkdir()
    lock = {"shared-lib": {"file_name": "shared.zip", "sha256": "", "depends": [],
                           "imports": [], "package_type": "shared_library"}}
    for name, source in PACKAGES.items():
        file_name = f"{name}-1.0-py3-none-any.whl"
        with zipfile.ZipFile(served / file_name, "w") as zf:
            zf.writestr(f"{name}/__init__.py", source)
            zf.writestr(f"{name}-1.0.dist-info/METADATA",
                        f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        lock[name] = {"file_name": file_name, "imports": [name], "package_type": "package",
                      "sha256": hashlib.sha256((served / file_name).read_bytes()).hexdigest(),
                      "depends": ["ldpviz_probe_base"] if name.endswith("top") else []}
    monkeypatch.syspath_prepend(str(installed))
    reads, loaded = [], set()

    def read(file_name):
        reads.append(file_name)
        return (served / file_name).read_bytes()

    def unpack(data, entry):
        (installed / "probe.whl").write_bytes(data)
        zipfile.ZipFile(installed / "probe.whl").extractall(installed)

    finder = SitePackageFinder(lock, is_loaded=loaded.__contains__, mark_loaded=loaded.add,
                               read=read, unpack=unpack)
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, finder])
    yield SimpleNamespace(finder=finder, lock=lock, reads=reads, loaded=loaded)
    for name in PACKAGES:
        sys.modules.pop(name, None)
    importlib.invalidate_caches()


def test_a_missing_package_and_its_dependency_are_installed_on_first_import(site):
    assert importlib.util.find_spec("ldpviz_probe_top") is not None  # installed by the finder
    import ldpviz_probe_top

    assert ldpviz_probe_top.VALUE == 42
    assert site.loaded == set(PACKAGES) and len(site.reads) == 2  # each once, dependency first
    assert site.reads[0].startswith("ldpviz_probe_base")


@pytest.mark.parametrize("backport", [False, True])
def test_a_version_lookup_installs_the_package_as_its_import_would(site, monkeypatch, backport):
    from importlib.metadata import PackageNotFoundError, version

    if backport:  # importing importlib_metadata deletes the stdlib PathFinder's lookup
        monkeypatch.delattr(importlib.machinery.PathFinder, "find_distributions", raising=False)

    assert version("LDPVIZ-probe.top") == "1.0"  # any spelling of the name (PEP 503)
    assert site.loaded == set(PACKAGES)  # with its dependency
    with pytest.raises(PackageNotFoundError):  # not in the lock: not found, as without it
        version("ldpviz-probe-absent")
    assert len(site.reads) == 2


def test_a_file_that_differs_from_the_lock_is_refused(site):
    site.lock["ldpviz_probe_base"]["sha256"] = "0" * 64
    with pytest.raises(ImportError, match=r"ldpviz_probe_base-1\.0.*sha256.*rebuild"):
        import ldpviz_probe_top  # noqa: F401
    assert not site.loaded


def test_a_shared_library_not_loaded_at_start_is_named(site):
    site.lock["ldpviz_probe_base"]["depends"] = ["shared-lib"]
    with pytest.raises(ImportError, match=r"library shared-lib.*'import ldpviz_probe_base'"):
        import ldpviz_probe_base
    assert not site.reads
    site.loaded.add("shared-lib")  # loaded by the kernel at start
    import ldpviz_probe_base

    assert ldpviz_probe_base.VALUE == 41


def test_where_the_kernel_can_wait_it_loads_the_package_itself(site):
    kernel = []

    def load(name):  # the kernel's loader, with dependencies, and without the finder's reads
        kernel.append(name)
        site.loaded.update(PACKAGES)
        site.finder._unpack(site.finder._read(site.lock["ldpviz_probe_base"]["file_name"]), {})
        site.finder._unpack(site.finder._read(site.lock["ldpviz_probe_top"]["file_name"]), {})
        return True

    site.finder._load = load
    import ldpviz_probe_top

    assert kernel == ["ldpviz_probe_top"] and ldpviz_probe_top.VALUE == 42


def test_a_kernel_load_that_loads_nothing_is_an_import_error(site):
    site.finder._load = lambda name: True  # claims success, loads nothing
    with pytest.raises(ImportError, match="ldpviz_probe_top could not be loaded"):
        import ldpviz_probe_top  # noqa: F401


def test_loaded_unknown_and_sub_modules_are_left_to_the_other_finders(site):
    site.loaded.add("ldpviz_probe_base")  # loaded, so not installed again (here: not found)
    assert site.finder.find_spec("ldpviz_probe_base") is None
    assert site.finder.find_spec("not_in_the_lock") is None
    assert site.finder.find_spec("ldpviz_probe_top.sub", path=["somewhere"]) is None
    assert not site.reads


def test_install_adds_one_finder_under_pyodide_only(monkeypatch):
    made = []
    monkeypatch.setattr(_site_packages, "_pyodide_finder",
                        lambda: made.append(SitePackageFinder({}, is_loaded=bool,
                                                              mark_loaded=print, read=bytes,
                                                              unpack=print)) or made[-1])
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    _site_packages.install()
    assert not made  # not Pyodide
    monkeypatch.setattr(sys, "platform", "emscripten")
    _site_packages.install()
    _site_packages.install()
    assert len(made) == 1 and sys.meta_path[-1] is made[0]
