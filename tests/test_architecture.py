"""The layout is the architecture: no import cycles, and lower layers never import higher ones.

The import graph is built from the source (every ``import`` statement, also those inside
functions), so a cycle hidden behind a lazy import fails here too. Importing a submodule runs
its parent packages' ``__init__`` first; those implicit edges are not counted.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "ldpviz"

# Layer of each module (higher may import lower or equal, never the other way round).
LIBRARY, DRAWING, REPRODUCTION, EXPLORERS, COMMAND_LINE = range(5)
DRAWING_MODULES = {"ldpviz.viz", "ldpviz.viz.views", "ldpviz.viz.plots",
                   # the views by explorer family (``views`` gathers their names)
                   "ldpviz.viz._paper_setting", "ldpviz.viz.axis_ticks", "ldpviz.viz.model_views",
                   "ldpviz.viz.comparison_views", "ldpviz.viz.theory_views",
                   "ldpviz.viz.mechanism_views",
                   "ldpviz.viz._lazy"}  # matplotlib and plotly imported at first use


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _layer(module):
    if module == "ldpviz.__main__":
        return COMMAND_LINE
    if module in DRAWING_MODULES:
        return DRAWING
    if module.startswith("ldpviz.reproduce"):
        return REPRODUCTION
    if module.startswith("ldpviz.viz"):
        return EXPLORERS
    return LIBRARY


def _imports(module, path):
    """Modules of ldpviz that ``module`` imports (resolving relative imports)."""
    is_package = path.name == "__init__.py"
    base = module.split(".") if is_package else module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                prefix = base[: len(base) - node.level + 1]
                target = ".".join(prefix + ([node.module] if node.module else []))
            else:
                target = node.module
            subs = [f"{target}.{alias.name}" for alias in node.names]
            # ``from pkg import submodule`` needs only the submodule (pkg runs anyway as its
            # parent); ``from pkg import name`` needs pkg's own code.
            names = subs + ([target] if any(s not in MODULES for s in subs) else [])
        else:
            continue
        found.update(name for name in names if name in MODULES and name != module)
    return found


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def _find_cycle():
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(GRAPH[node]):
            if state.get(nxt) == "open":
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(GRAPH):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_graph_sees_the_known_edges():
    # Guards the parser itself: these imports exist, so a graph without them is wrong.
    assert "ldpviz.estimators" in GRAPH["ldpviz"]
    assert "ldpviz.partition" in GRAPH["ldpviz.estimators"]
    assert "ldpviz.viz.views" in GRAPH["ldpviz.viz.plots"]
    assert "ldpviz.bcdp.mechanisms" in GRAPH["ldpviz.bcdp.estimators"]


def test_no_import_cycles():
    cycle = _find_cycle()
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_lower_layers_never_import_higher_ones(module):
    upward = sorted(m for m in GRAPH[module] if _layer(m) > _layer(module))
    assert not upward, f"{module} (layer {_layer(module)}) imports higher layers: {upward}"


def test_modules_stay_small():
    sizes = {m: len(p.read_text().splitlines()) for m, p in MODULES.items()}
    big = {m: n for m, n in sizes.items() if n > 650}
    assert not big, f"modules over ~600 lines (split them): {big}"
