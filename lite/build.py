"""Build the course as a static JupyterLite site (``make lite``; README: "Launch in the browser").

    python lite/build.py [--out build/lite/site]

The site is made from this checkout only and always from scratch (an incremental JupyterLite
rebuild once dropped ``pyodideUrl``, and the kernel then silently went to the internet):

- ``static/pyodide/``: Pyodide with ldpviz and its dependencies pre-installed in a pre-solved
  ``pyodide-lock.json`` (lite/pyodide_dist.py: every package file checked against the official
  lock's sha256, then given the bytecode of its sources by lite/bytecode.py, so a visit
  imports without compiling), so ``import ldpviz`` works with no ``%pip`` cell and nothing is
  fetched from the internet; the kernel's own wheels (piplite, ipykernel, pyodide_kernel) are
  in the lock too, and lite/jupyter-lite.json has the kernel load them with the course's
  packages in one batch instead of installing them one after another at every start;
- ``lab/``, ``tree/``, ``notebooks/``: JupyterLab in the browser on every course notebook
  (``files/``), with the widget extensions of the ``lite`` extra in pyproject.toml;
- ``app/``: the dashboard (notebooks/app.ipynb) rendered by Voici, the JupyterLite flavour of
  Voila, sharing the same Pyodide; its kernel loads scipy, scikit-learn, matplotlib and plotly
  at start, which the course's kernel leaves until an import needs them
  (pyodide_dist.DEFERRED).

Serve the folder with any static web server (``python -m http.server -d build/lite/site``)
and open ``/lab/index.html?path=00_index.ipynb`` or ``/app/voici/render/app.html``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyodide_dist

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BIN = Path(sys.executable).parent
# Extensions of the build environment the site must not load: Voila's JupyterLab preview
# button needs a Voila server.
DROPPED_EXTENSIONS = ("@voila-dashboards/jupyterlab-preview",)


def _run(argv, cwd):
    print("+", " ".join(map(str, argv)), flush=True)
    log = Path(cwd) / "build.log"
    with open(log, "w") as out:
        result = subprocess.run(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    if result.returncode:
        sys.stdout.write(log.read_text()[-4000:])
        raise SystemExit(f"{argv[0]} failed (log: {log})")


def _start_all(kernel: dict):
    """The app draws a fitted model at once: its kernel loads what the course's defers."""
    packages = kernel["loadPyodideOptions"]["packages"]
    packages.extend(p for p in pyodide_dist.DEFERRED if p not in packages)


def _patch_config(site: Path, pyodide_url: str, app: bool = False):
    """Point the kernel at the site's own Pyodide and drop the extensions it cannot use."""
    path = site / "jupyter-lite.json"
    config = json.loads(path.read_text())
    data = config["jupyter-config-data"]
    data["federated_extensions"] = [e for e in data.get("federated_extensions", [])
                                    if e["name"] not in DROPPED_EXTENSIONS]
    kernel = data["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    kernel["pyodideUrl"] = pyodide_url
    if app:
        _start_all(kernel)
    if not kernel.get("disablePyPIFallback"):
        raise SystemExit("jupyter-lite.json must set disablePyPIFallback (no PyPI at run time)")
    path.write_text(json.dumps(config, indent=2, sort_keys=True))
    for name in DROPPED_EXTENSIONS:
        shutil.rmtree(site / "extensions" / name, ignore_errors=True)


CONFIG = re.compile(r'(<script id="jupyter-config-data" type="application/json">\s*)(.*?)'
                    r"(\s*</script>)", re.S)
CDN_LINK = re.compile(r"<link[^>]*https?://[^>]*>\n?")


def _patch_voici_pages(app: Path):
    """Voici writes each page's configuration into the page at build time, where relative
    URLs are read against the page itself (voici/render/): point them at the site's Pyodide
    and the app's extensions, and have its kernel load everything at start. Drop the pages'
    links to Font Awesome on a CDN (the app draws no icon; an offline classroom has no CDN)."""
    for page in (app / "voici").rglob("*.html"):
        html = CDN_LINK.sub("", page.read_text())
        match = CONFIG.search(html)
        if match:
            config = json.loads(match.group(2))
            up = "../" * (len(page.relative_to(app).parts) - 1)
            kernel = config["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
            kernel["pyodideUrl"] = f"{up}../static/pyodide/pyodide.js"
            kernel["pipliteUrls"] = [up + url.removeprefix("./")
                                     for url in kernel.get("pipliteUrls", [])]
            _start_all(kernel)
            html = html[:match.start(2)] + json.dumps(config) + html[match.end(2):]
        if re.search(r"https?://(?!127\.0\.0\.1)[^\s\"']*\.(css|js)\b", html):
            raise SystemExit(f"{page} still loads a script or style from the internet")
        page.write_text(html)


def build(out: Path) -> Path:
    work = out.parent / "work"
    for path in (out, work):
        shutil.rmtree(path, ignore_errors=True)
    lab_src, app_src = work / "lab", work / "app"
    for src in (lab_src, app_src):
        src.mkdir(parents=True)
        shutil.copyfile(HERE / "jupyter-lite.json", src / "jupyter-lite.json")
        shutil.copyfile(HERE / "jupyter_lite_config.json", src / "jupyter_lite_config.json")
        # the same JupyterLab settings as `make lab` (no news or update checks online)
        shutil.copyfile(ROOT / "share" / "jupyter" / "lab" / "settings" / "overrides.json",
                        src / "overrides.json")
    wheel = pyodide_dist.build_ldpviz_wheel(work / "wheel")
    pyodide = pyodide_dist.build(lab_src / "static" / "pyodide", ldpviz_wheel=wheel)
    notebooks = sorted(str(p) for p in (ROOT / "notebooks").glob("*.ipynb"))
    _run([BIN / "jupyter", "lite", "build", "--lite-dir", lab_src, "--output-dir", out,
          *[arg for nb in notebooks for arg in ("--contents", nb)]], cwd=lab_src)
    _run([BIN / "voici", "build", "--lite-dir", app_src, "--output-dir", out / "app",
          "--contents", ROOT / "notebooks" / "app.ipynb"], cwd=app_src)
    _patch_config(out, "./static/pyodide/pyodide.js")
    _patch_config(out / "app", "../static/pyodide/pyodide.js", app=True)  # the lab's Pyodide
    _patch_voici_pages(out / "app")
    for site in (out, out / "app"):
        stray = [p for p in site.rglob("pyodide.js") if "static/pyodide" not in p.as_posix()]
        if stray:
            raise SystemExit(f"unexpected Pyodide copies: {stray}")
    shutil.copyfile(pyodide / "CHECKED.txt", out / "PYODIDE-FILES-CHECKED.txt")
    shutil.rmtree(work)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 2**20
    print(f"JupyterLite site in {out} ({size:.0f} MiB): serve it with "
          f"'python -m http.server -d {out}' and open /lab/index.html?path=00_index.ipynb "
          "or /app/voici/render/app.html")
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "lite" / "site")
    build(parser.parse_args().out.resolve())
