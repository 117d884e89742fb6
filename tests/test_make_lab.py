"""`make lab` starts JupyterLab as root and on a headless machine, and passes LAB_ARGS on."""

import os
import platform
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _lab_command(**env):
    """The jupyter command line `make lab` would run (make -n: nothing is started)."""
    environment = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    environment.update(env)
    out = subprocess.run(["make", "-n", "lab", 'LAB_ARGS=--port 9000 --ServerApp.token=x'],
                         cwd=ROOT, capture_output=True, text=True, check=True, env=environment)
    return next(line for line in out.stdout.splitlines() if "jupyter lab" in line)


def test_lab_passes_lab_args_and_allows_root_only_for_root():
    command = _lab_command()
    assert command.split()[:3] == [".venv/bin/jupyter", "lab", "notebooks/"]
    assert command.endswith("--port 9000 --ServerApp.token=x")
    assert ("--allow-root" in command) == (os.geteuid() == 0)


@pytest.mark.skipif(platform.system() != "Linux", reason="headless detection is for Linux")
def test_lab_opens_no_browser_without_a_display():
    assert "--no-browser" in _lab_command()
    assert "--no-browser" not in _lab_command(DISPLAY=":0")
    assert "--no-browser" not in _lab_command(WAYLAND_DISPLAY="wayland-0")
