"""What a student sees of a course notebook in any front-end (JupyterLab, VS Code, Colab,
GitHub): prose, a few lines of API and pictures. Collapsing a cell hides it in JupyterLab
only, so a notebook may hold no test code at all; its checks live in tests/test_notebook_NN.py.
"""

import json
import re

from _notebooks import notebook_path

MAX_LINE = 88  # a code line fits a notebook cell at 1024 px


def front_end_problems(prefix):
    """Test code and overlong lines in notebook ``prefix``: [] when there are none."""
    problems = []
    for index, cell in enumerate(json.loads(notebook_path(prefix).read_text())["cells"]):
        source = "".join(cell["source"])
        tags = set(cell["metadata"].get("tags", ()))
        if "check" in tags:
            problems.append(f"cell {index} is tagged check")
        if cell["cell_type"] == "code" and re.search(r"^\s*assert\b|\bassert_\w+\(",
                                                     source, re.MULTILINE):
            problems.append(f"cell {index} asserts")
        code = source if cell["cell_type"] == "code" else "\n".join(
            re.findall(r"```[^\n]*\n(.*?)```", source, re.DOTALL))
        problems += [f"cell {index}: a code line of {len(line)} characters"
                     for line in code.split("\n") if len(line) > MAX_LINE]
    return problems
