"""The packages are floors (docs/architecture.md): each imports only from the floors below it, and
no package's modules import each other in a circle. Imports inside functions count too: a lazy
import is still an arrow."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Bottom to top. A package may import its own floor and the floors before it.
FLOORS = ("engine", "calibration", "camera", "vision", "tracking", "webui", "keltis_cam")
#: Beside the top: renders tables with truth, may use anything but the app layer; the app layer's
#: `sim` command may use it.
SIMULATOR = "simulator"
PACKAGES = FLOORS + (SIMULATOR,)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every project module a file imports (absolute and relative, at any depth of the file)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            found.add(stem)
            found.update(f"{stem}.{alias.name}" for alias in node.names)
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None))
              == "import_module" and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)):
            found.add(node.args[0].value)  # importlib.import_module("vision.observer")
    return {name for name in found if name.split(".")[0] in PACKAGES}


def source_files() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def allowed(src: str, dst: str) -> bool:
    if src == dst:
        return True
    if src == SIMULATOR:
        return dst != "keltis_cam"
    if dst == SIMULATOR:
        return src == "keltis_cam"
    return FLOORS.index(dst) <= FLOORS.index(src)


def test_no_package_imports_from_a_floor_above_it():
    upward = []
    for path in source_files():
        src = module_name(path).split(".")[0]
        for name in sorted(imports_of(path)):
            if not allowed(src, name.split(".")[0]):
                upward.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not upward, "imports pointing up a floor:\n" + "\n".join(upward)


def module_graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in source_files()}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in imports_of(path):
            # `from pkg import mod` names a module; `from mod import func` names its module
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name and imported.split(".")[0] == name.split(".")[0]:
                # a package's __init__ importing its own submodules is how packages re-export
                if not name or not imported.startswith(name + ".") or path.name != "__init__.py":
                    targets.add(imported)
        graph[name] = targets
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, or None (iterative DFS, colours white/grey/black)."""
    colour: dict[str, int] = {}
    for start in sorted(graph):
        if colour.get(start):
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        colour[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                colour[node] = 2
                stack.pop()
                path.pop()
            elif colour.get(child) == 1:
                return path[path.index(child):] + [child]
            elif not colour.get(child):
                colour[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(graph.get(child, ())))))
    return None


def test_no_circular_imports_inside_a_package():
    cycle = find_cycle(module_graph())
    assert cycle is None, "circular import: " + " -> ".join(cycle or [])


@pytest.mark.parametrize("src,dst,ok", [("tracking", "engine", True), ("engine", "tracking", False),
                                        ("vision", "camera", True), ("camera", "vision", False),
                                        ("simulator", "webui", True), ("webui", "simulator", False),
                                        ("keltis_cam", "simulator", True), ("simulator", "keltis_cam", False)])
def test_the_contract_itself_rejects_an_upward_arrow(src, dst, ok):
    assert allowed(src, dst) is ok


def test_the_cycle_finder_finds_a_planted_cycle():
    assert find_cycle({"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}}) == ["a.x", "a.y", "a.z", "a.x"]
    assert find_cycle({"a.x": {"a.y"}, "a.y": set()}) is None
