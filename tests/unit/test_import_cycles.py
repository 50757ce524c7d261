"""No import cycles among the project's modules, counting the imports made inside
functions: a lazy import hides a cycle from start-up but not from a reader, and
a cycle is where a change in one module breaks another that seemed unrelated.
Nor among its packages: ael_lab is the floor the command line and the lab stand on,
and the command line reaches the lab only to open it (LAUNCHES)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "scenarios", "ael_lab", "ael_cli", "ael_tui", "bench")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path], at_load: bool = False) -> set[str]:
    """The project modules `name` imports anywhere in its file (`at_load`: only at its top
    level, as loading it does). `from pkg import sub` counts as importing `pkg.sub` when
    that is a module (a submodule naming its own package that way is no cycle), else as
    importing `pkg`."""
    out = set()
    tree, type_only = _parsed(path)
    for node in (tree.body if at_load else ast.walk(tree)):
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


@functools.lru_cache(maxsize=None)
def _parsed(path: Path) -> tuple[ast.Module, set[ast.AST]]:
    """A file's tree and its annotation-only imports, parsed once for every test here (the
    checks read each file several times)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return tree, _type_only(tree)


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


# The only arrows from the command line up to the lab: opening it, each imported in the one
# function that does so (never as a module loads), so `ael-lab run` loads no Textual.
LAUNCHES = {
    ("ael_cli.main", "ael_tui.app"): "`ael-lab`, `lab`, `open` open the lab",
    ("ael_cli.main", "ael_tui.serve.command"): "`ael-lab serve` is the lab served",
}
# what each package may import (the floor below it, nothing above): the arrows point down
BELOW = {
    "engine": set(),
    "scenarios": {"engine"},
    "ael_lab": {"engine", "scenarios"},
    "ael_cli": {"ael_lab"},  # the front ends stand on ael_lab alone (tests/unit/test_library_api.py)
    "ael_tui": {"ael_lab", "ael_cli"},  # the CLI's flags, defined once, read by the lab
    "bench": {"engine", "scenarios", "ael_lab", "ael_cli", "ael_tui"},
}


def _package_arrows(modules: dict[str, Path], launches: dict = LAUNCHES) -> list[str]:
    """Every import (in a function too) from one package into another that BELOW does not allow,
    but LAUNCHES, which must be made in a function; and a LAUNCHES entry no longer made."""
    wrong, seen = [], set()
    for name, path in modules.items():
        at_load = _imports(name, path, modules, at_load=True)
        for target in sorted(_imports(name, path, modules)):
            mine, theirs = name.split(".")[0], target.split(".")[0]
            if mine == theirs or theirs in BELOW.get(mine, set()):
                continue
            if (name, target) in launches:
                seen.add((name, target))
                if target in at_load:
                    wrong.append(f"{name} imports {target} as it loads: only in the function that opens the lab")
                continue
            wrong.append(f"{name} imports {target}: {mine} stands below {theirs}")
    wrong += [f"{a} no longer imports {b}: drop it from LAUNCHES" for a, b in launches if (a, b) not in seen]
    return wrong


def test_the_packages_point_one_way():
    assert _package_arrows(_modules()) == []


def test_the_package_check_sees_an_arrow_up_and_a_launch_made_as_a_module_loads(tmp_path):
    files = {"ael_lab.pictures": "from ael_tui.widgets import x\n",
             "ael_cli.main": "from ael_tui.app import run_app\n",
             "ael_cli.runner": "def f():\n    from ael_tui.widgets.readouts import status_of\n",
             "ael_tui.app": "", "ael_tui.widgets": "", "ael_tui.widgets.readouts": ""}
    modules = {}
    for name, text in files.items():
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        modules[name] = path
    wrong = _package_arrows(modules, {("ael_cli.main", "ael_tui.app"): "opens the lab"})
    assert "ael_lab.pictures imports ael_tui.widgets: ael_lab stands below ael_tui" in wrong
    assert "ael_cli.runner imports ael_tui.widgets.readouts: ael_cli stands below ael_tui" in wrong  # lazily too
    assert "ael_cli.main imports ael_tui.app as it loads: only in the function that opens the lab" in wrong


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
           *root.glob("compare/*.py"), *root.glob("tour/*.py"), *root.glob("widgets/**/*.py"), root / "app.py"]
    named = []
    for path in lab:
        for node in ast.walk(ast.parse(path.read_text())):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            named += [f"{path.relative_to(root)}: {m}" for m in modules if m.startswith("scenarios.")]
    assert named == []



FEATURES = ("lab", "compare", "decisions", "memory", "files", "tour", "serve")  # ael_tui's feature folders
APP_FLOOR = ("ael_tui.actions", "ael_tui.config", "ael_tui.clock", "ael_tui.compat")  # the top-level modules below every folder
# The few places one feature folder reaches another, each for a reason; nothing else may.
# Opening another folder's screen (or starting its object) imports it in the one function
# that does so, or in a module only such a function loads:
OPENS = {
    ("ael_tui.lab.lab_decisions", "ael_tui.decisions.approval"): "opens the decision dialog",
    ("ael_tui.lab.lab_decisions", "ael_tui.decisions.code_review"): "opens the code review",
    ("ael_tui.lab.lab_files", "ael_tui.compare.compare_screen"): "opens the compare view",
    ("ael_tui.lab.lab_files", "ael_tui.compare.lockstep"): "builds the sessions the compare view opens with",
    ("ael_tui.lab.lab_files", "ael_tui.files.load_dialog"): "opens the load dialog",
    ("ael_tui.lab.lab_tour", "ael_tui.tour.guide"): "starts the tour",
    ("ael_tui.lab.lab_tour", "ael_tui.tour.tour_card"): "opens a tour card",
    ("ael_tui.lab.session_host", "ael_tui.tour.guide"): "starts the tour (the run mode `tour`)",
    ("ael_tui.lab.branch_compare", "ael_tui.compare.compare_screen"): "the branch compared is a compare view",
    ("ael_tui.lab.branch_compare", "ael_tui.compare.lockstep"): "the branch compared is a compare view",
    ("ael_tui.serve.classroom", "ael_tui.tour.tour_card"): "the classroom knows when a tour card is open",
}
# the lab composes the memory panel (a core entry of its panel registry), so it imports it as it loads
COMPOSES = {
    ("ael_tui.lab.panels", "ael_tui.memory.memory_panel"): "the memory panel, a core panel of the registry",
    ("ael_tui.lab.lab_screen", "ael_tui.memory.memory_panel"): "the memory panel",
    ("ael_tui.lab.lab_screen", "ael_tui.memory.method_memory"): "the memory panel's tables of a prior method",
}


def _feature(module: str) -> str | None:
    """The feature folder of an ael_tui module (`widgets` and the top-level modules are none)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "ael_tui" and len(parts) > 2 and parts[1] in FEATURES else None


def _above_the_floor(module: str) -> bool:
    """A top-level ael_tui module that may import feature folders (app.py, help_screen.py, ...)."""
    parts = module.split(".")
    return parts[0] == "ael_tui" and len(parts) == 2 and module not in APP_FLOOR


def _feature_reaches(modules: dict[str, Path]) -> list[str]:
    """What breaks the floors: the widgets importing a feature folder, a feature folder
    importing another outside OPENS and COMPOSES, an opening import made as an eagerly
    loaded module loads, and an entry of OPENS or COMPOSES that no longer exists."""
    wrong, seen = [], set()
    at_load = {name: _imports(name, path, modules, at_load=True) for name, path in modules.items()}
    loaded_eagerly_by = {name: sorted(m for m, targets in at_load.items() if name in targets) for name in modules}
    for name, path in modules.items():
        mine = _feature(name)
        for target in sorted(_imports(name, path, modules)):
            theirs = _feature(target)
            if name.startswith("ael_tui.widgets") and (theirs or _above_the_floor(target)):
                wrong.append(f"{name} (the widgets' floor) imports {target}, which is above it")
            elif mine and theirs and mine != theirs:
                if (name, target) not in OPENS and (name, target) not in COMPOSES:
                    wrong.append(f"{name} imports {target}: feature folders meet in ael_tui.widgets")
                    continue
                seen.add((name, target))
                if (name, target) in OPENS and target in at_load[name] and loaded_eagerly_by[name]:
                    wrong.append(f"{name} imports {target} as it loads, and {loaded_eagerly_by[name]} load it")
    wrong += [f"{a} no longer imports {b}: drop it from the list" for a, b in [*OPENS, *COMPOSES] if (a, b) not in seen]
    return wrong


def test_feature_folders_meet_only_in_the_widgets_floor():
    """Feature folders import `ael_tui.widgets`, the app's floor and `engine`, not each
    other: a panel or a helper two features need moves to widgets/, and a feature opening
    another's screen imports it where it opens it (OPENS says each place and why)."""
    assert _feature_reaches(_modules()) == []


def test_the_floor_check_sees_one_feature_importing_another(tmp_path):
    files = {"ael_tui.widgets.row_list": "from ael_tui.compare.chart import x\n",
             "ael_tui.widgets.throttle": "from ael_tui.app import AelLab\nfrom ael_tui.clock import Clock\n",
             "ael_tui.app": "", "ael_tui.clock": "",
             "ael_tui.compare.chart": "from ael_tui.lab.posteriors import arm_colour\n",
             "ael_tui.lab.posteriors": "from ael_tui.widgets.row_list import RowList\n",
             "ael_tui.lab.lab_decisions": "from ael_tui.decisions.approval import ApprovalScreen\n",
             "ael_tui.lab.lab_screen": "from ael_tui.lab.lab_decisions import Decisions\n",
             "ael_tui.decisions.approval": ""}
    modules = {}
    for name in files:
        path = tmp_path / name.replace(".", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.with_suffix(".py").write_text(files[name])
        modules[name] = path.with_suffix(".py")
    wrong = _feature_reaches(modules)
    assert "ael_tui.widgets.row_list (the widgets' floor) imports ael_tui.compare.chart, which is above it" in wrong
    assert "ael_tui.widgets.throttle (the widgets' floor) imports ael_tui.app, which is above it" in wrong
    assert not [w for w in wrong if "ael_tui.clock" in w]  # the app's floor is below the widgets
    assert "ael_tui.compare.chart imports ael_tui.lab.posteriors: feature folders meet in ael_tui.widgets" in wrong
    # an allowed opening, made as the module loads while the lab screen loads that module eagerly
    assert ("ael_tui.lab.lab_decisions imports ael_tui.decisions.approval as it loads, and "
            "['ael_tui.lab.lab_screen'] load it") in wrong


def test_the_runner_and_the_serve_command_name_no_world():
    """`run` and `serve` reach a world through the registry and its spec (a protocol's model
    settings: `ScenarioSpec.llm_settings`; what a served lab may read: `served_data`, `local_copy`),
    never by importing its package nor by testing for its name (issue 40)."""
    from scenarios import scenario_names

    serve = [ROOT / "ael_cli" / "serve_flags.py", *(ROOT / "ael_tui" / "serve").glob("*.py")]
    files = [ROOT / "ael_cli" / "runner.py", ROOT / "ael_cli" / "chart_command.py", *serve,
             *(ROOT / "ael_lab").rglob("*.py")]
    worlds, named = set(scenario_names()), []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            named += [f"{path.relative_to(ROOT)}: {m}" for m in modules if m.startswith("scenarios.")]
            if isinstance(node, ast.Constant) and node.value in worlds and path in serve:
                named.append(f"{path.relative_to(ROOT)}: {node.value!r}")
    assert sorted(set(named) - set(NAMED_FOR_A_REASON)) == []
    assert sorted(set(NAMED_FOR_A_REASON) - set(named)) == [], "no longer named: drop it from the list"


# The only world names the serve command's modules hold, neither choosing what a world may do:
NAMED_FOR_A_REASON = {
    "ael_tui/serve/mode.py: 'support'": "the folder of the support table's cache (AEL_LAB_CACHE_DIR) in .ael-lab/",
    "ael_tui/serve/zygote.py: 'news'": "the fork server imports scikit-learn once for a class opened on news",
}


def _third_party(package: str, names: tuple[str, ...]) -> list[str]:
    """Where a module of `package` imports one of `names` (a top-level package), in a function too."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            found += [f"{path.relative_to(ROOT)}: {m}" for m in modules if m.split(".")[0] in names]
    return found


def test_the_floor_imports_no_textual_nor_rich_and_the_command_line_no_textual():
    """ael_lab (and with it `ael-lab chart`, a notebook's pictures) draws without a terminal
    library; the command line reaches Textual only through the lab it opens (LAUNCHES)."""
    assert _third_party("ael_lab", ("textual", "rich", "textual_serve")) == []
    assert _third_party("ael_cli", ("textual", "textual_serve")) == []
