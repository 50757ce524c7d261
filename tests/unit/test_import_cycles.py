"""No import cycles among the project's modules, counting the imports made inside
functions: a lazy import hides a cycle from start-up but not from a reader, and
a cycle is where a change in one module breaks another that seemed unrelated."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "scenarios", "ael_tui", "bench")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules `name` imports anywhere in its file. `from pkg import sub`
    counts as importing `pkg.sub` when that is a module (a submodule naming its own
    package that way is no cycle), else as importing `pkg`."""
    out = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = _type_only(tree)
    for node in ast.walk(tree):
        if node in type_only:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                if path.name != "__init__.py":
                    base = base[:-1]
                base = base[: len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            subs = [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in modules]
            targets = subs or [source]
        else:
            continue
        out.update(t for t in targets if t in modules and t != name)
    return out


def _type_only(tree: ast.Module) -> set[ast.AST]:
    """What sits under `if TYPE_CHECKING:`: imports for annotations, never run, so no cycle."""
    return {inner for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for stmt in node.body for inner in ast.walk(stmt)}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_project_has_no_import_cycles():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_sees_an_import_made_inside_a_function(tmp_path):
    (tmp_path / "pkg").mkdir()
    late = tmp_path / "pkg" / "a.py"
    late.write_text("def f():\n    from .b import helper\n    return helper\n")
    modules = {"pkg": tmp_path / "pkg" / "__init__.py", "pkg.a": late, "pkg.b": tmp_path / "pkg" / "b.py",
               "pkg.c": tmp_path / "pkg" / "c.py"}
    assert _imports("pkg.a", late, modules) == {"pkg.b"}
    typed = tmp_path / "pkg" / "c.py"
    typed.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\n")
    assert _imports("pkg.c", typed, modules) == set()  # annotations only: never imported at run time
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_lab_knows_no_world_by_name():
    """The lab's screens and readouts reach a world through the registry and the contracts
    (`scenarios.make_scenario`, a scenario's methods), never by importing its package: a
    new world then needs no edit to the lab."""
    import ast

    root = Path(__file__).resolve().parents[2] / "ael_tui"
    lab = [*root.glob("lab/*.py"), *root.glob("decisions/*.py"), *root.glob("memory/*.py"),
           *root.glob("compare/*.py"), *root.glob("tour/*.py"), root / "variant_readouts.py", root / "app.py"]
    named = []
    for path in lab:
        for node in ast.walk(ast.parse(path.read_text())):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            named += [f"{path.relative_to(root)}: {m}" for m in modules if m.startswith("scenarios.")]
    assert named == []
