"""`make lab` starts JupyterLab as root and on a headless machine, passes LAB_ARGS on, and opens
the course as a lecture needs it (tests/browser/test_lab.py starts it and looks)."""

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _lab_commands(**env):
    """The command lines `make lab` would run (make -n: nothing is started)."""
    environment = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    environment.update(env)
    out = subprocess.run(["make", "-n", "lab", "LAB_ARGS=--port 9000 --IdentityProvider.token=x"],
                         cwd=ROOT, capture_output=True, text=True, check=True, env=environment)
    return [" ".join(line.split()) for line in out.stdout.replace("\\\n", " ").splitlines()]


def _lab_command(**env):
    """The jupyter command line that starts JupyterLab."""
    return next(c for c in _lab_commands(**env) if "jupyter lab notebooks/" in c)


def test_lab_passes_lab_args_and_allows_root_only_for_root():
    command = _lab_command()
    assert command.split()[1:4] == [".venv/bin/jupyter", "lab", "notebooks/"]
    assert command.endswith("--port 9000 --IdentityProvider.token=x")
    assert ("--allow-root" in command) == (os.geteuid() == 0)


def test_lab_opens_the_index_in_the_course_layout():
    """The index first, the course's workspace laid anew before each start, in the course's
    own workspaces folder (the user's other workspaces untouched)."""
    commands = _lab_commands()
    start = _lab_command()
    assert "--LabApp.default_url=/lab/tree/00_index.ipynb" in start
    assert start.startswith("JUPYTERLAB_WORKSPACES_DIR=.venv/share/jupyter/lab/workspaces ")
    imports = [c for c in commands if "jupyter lab workspaces import" in c]
    assert imports and commands.index(imports[0]) < commands.index(start)
    assert "share/jupyter/lab/workspaces/course.jupyterlab-workspace" in imports[0]
    assert imports[0].lstrip("@").startswith(
        "JUPYTERLAB_WORKSPACES_DIR=.venv/share/jupyter/lab/workspaces ")


def test_the_course_layout_and_settings_ship_with_the_repository():
    workspace = json.loads((ROOT / "share/jupyter/lab/workspaces/course.jupyterlab-workspace")
                           .read_text())
    assert workspace["metadata"]["id"] == "default"
    assert workspace["data"]["layout-restorer:data"]["left"]["collapsed"] is True
    overrides = json.loads((ROOT / "share/jupyter/lab/settings/overrides.json").read_text())
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    post_build = (ROOT / "postBuild").read_text()  # Binder installs the same
    assert "share/jupyter/lab/settings/overrides.json" in post_build
    assert "share/jupyter/lab/workspaces/course.jupyterlab-workspace" in post_build


def test_the_environment_reads_the_repository_s_lab_settings():
    """JupyterLab reads overrides.json from <sys.prefix>/share/jupyter/lab/settings: the copy
    the Makefile installs there is the repository's (run make again after changing it)."""
    installed = Path(sys.prefix) / "share/jupyter/lab/settings/overrides.json"
    if not installed.exists():
        pytest.skip(f"not installed by the Makefile in {sys.prefix}")
    assert installed.read_text() == (ROOT / "share/jupyter/lab/settings/overrides.json"
                                     ).read_text()


@pytest.mark.skipif(platform.system() != "Linux", reason="headless detection is for Linux")
def test_lab_opens_no_browser_without_a_display():
    assert "--no-browser" in _lab_command()
    assert "--no-browser" not in _lab_command(DISPLAY=":0")
    assert "--no-browser" not in _lab_command(WAYLAND_DISPLAY="wayland-0")
