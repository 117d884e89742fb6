"""The project's own files stay in step: pyproject.toml, environment.yml (Binder), Makefile."""

import contextlib
import io
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _name_and_spec(requirement):
    match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*(.*?)\s*", requirement)
    return match.group(1).lower().replace("_", "-"), match.group(3).replace(" ", "")


def _conda_dependencies():
    """The conda packages listed under `dependencies:` (the file is plain, one per line)."""
    deps, in_deps, in_pip = {}, False, False
    for line in (ROOT / "environment.yml").read_text().splitlines():
        stripped = line.split("#")[0].rstrip()
        if not stripped:
            continue
        if not line.startswith(" "):
            in_deps = stripped == "dependencies:"
            continue
        if in_deps and stripped.strip() == "- pip:":
            in_pip = True
            continue
        if in_deps and not in_pip and stripped.strip().startswith("- "):
            name, spec = _name_and_spec(stripped.strip()[2:])
            deps[name] = spec
    return deps


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_environment_yml_lists_the_same_dependencies_as_pyproject():
    project = _pyproject()
    wanted = dict(_name_and_spec(r) for r in project["dependencies"])
    for extra in ("lab", "test"):  # Binder opens the lab and can run the tests (not dask/browser)
        wanted.update(_name_and_spec(r) for r in project["optional-dependencies"][extra])
    conda = _conda_dependencies()
    python = conda.pop("python")
    conda.pop("pip")
    assert conda == wanted
    minimum = tuple(int(v) for v in project["requires-python"].removeprefix(">=").split("."))
    pinned = tuple(int(v) for v in python.removeprefix("=").split("."))
    assert python.startswith("=") and pinned >= minimum  # repo2docker needs an = pin


def test_environment_yml_installs_the_package_itself():
    text = (ROOT / "environment.yml").read_text()
    assert re.search(r"- pip:\s*\n\s*- -e \.\s*$", text, re.MULTILINE)
    assert "conda-forge" in text


def test_readme_quick_start_is_the_two_make_targets():
    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^\s*(make \S+)\s*$", quick, re.MULTILINE)
    assert commands == ["make lab", "make test"]
    makefile = (ROOT / "Makefile").read_text()
    for target in ("lab", "test"):
        assert re.search(rf"^{target}:", makefile, re.MULTILINE)


def test_ci_runs_the_readme_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_notebooks_are_stored_clean_and_small():
    """No outputs, counts or widget state in the repo (an executed explorer embeds ~5 MB)."""
    import json

    assert NOTEBOOKS
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text())
        assert path.stat().st_size < 200_000, f"{path.name} is {path.stat().st_size} bytes"
        assert "widgets" not in nb["metadata"], f"{path.name} stores widget state"
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                assert not cell["outputs"] and cell["execution_count"] is None, (
                    f"{path.name} stores outputs; clear them before committing")


def test_each_numbered_notebook_opens_with_its_learning_goal():
    import json

    for path in NOTEBOOKS:
        if path.name[:2].isdigit():
            first = json.loads(path.read_text())["cells"][0]
            assert first["cell_type"] == "markdown"
            assert "learning goal" in "".join(first["source"]).lower(), path.name


def test_readme_example_prints_what_its_comment_says():
    """The first Python block of the README runs, and its last line prints what the comment
    after it promises (so the example's number cannot go stale)."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("```python\n", 1)[1].split("```", 1)[0]
    promised = re.search(r"^print\(.*\)\s*#\s*(.+)$", block, re.MULTILINE).group(1).strip()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    assert out.getvalue().strip() == promised


def test_docstring_examples_run():
    """Every ``>>>`` example in the package's docstrings prints what it shows."""
    import doctest
    import importlib
    import pkgutil
    import warnings

    import ldpviz

    failed, tried = 0, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the old module paths
        for info in pkgutil.walk_packages(ldpviz.__path__, "ldpviz."):
            if info.name.endswith("__main__"):
                continue
            result = doctest.testmod(importlib.import_module(info.name), verbose=False)
            failed, tried = failed + result.failed, tried + result.attempted
    assert tried >= 3 and failed == 0


def test_the_command_runs_from_the_folder_that_holds_a_clone_named_ldpviz(tmp_path):
    """`python -m` puts the working directory first on sys.path, where a clone named `ldpviz`
    (no __init__.py at its root) would be a namespace package; the installed package must win."""
    import subprocess
    import sys

    (tmp_path / "ldpviz").symlink_to(ROOT, target_is_directory=True)
    done = subprocess.run([sys.executable, "-m", "ldpviz", "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "reproduce" in done.stdout


def test_make_test_runs_every_part_and_names_the_ones_that_failed(tmp_path):
    """A failing lint must not hide the unit tests and notebooks (issue: a newcomer's `make
    test` stopped at the first failing part and never checked the notebooks)."""
    import os
    import shutil
    import subprocess

    if shutil.which("make") is None:
        import pytest

        pytest.skip("make is not installed")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    log = tmp_path / "calls.log"
    for tool, status in (("ruff", 1), ("python", 0), ("node", 0)):
        script = venv / "bin" / tool
        script.write_text(f'#!/bin/sh\necho "{tool} $*" >> "{log}"\nexit {status}\n')
        script.chmod(0o755)
    (venv / ".installed-stamp").touch()
    os.utime(venv / ".installed-stamp", (4e9, 4e9))  # newer than pyproject.toml: no install
    done = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "test",
                           f"VENV={venv}", f"LITE_VENV={venv}", f"NODE={venv / 'bin' / 'node'}"],
                          capture_output=True, text=True, timeout=60)
    calls = log.read_text().splitlines()
    assert done.returncode != 0
    assert calls[0].startswith("ruff check")
    assert any("pytest tests" in c for c in calls) and any("--nbval" in c for c in calls)
    assert any("lite/build.py" in c for c in calls) and any("pyodide_tests.mjs" in c
                                                            for c in calls)
    assert done.stdout.strip().splitlines()[-1] == "make test: FAILED: lint"
