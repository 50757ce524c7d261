"""The private names of Textual and textual-serve stay behind ael_tui/compat.py: each one
it uses is still in the installed packages (an upgrade that drops one fails here, not in
a visitor's lab), the versions it was read from are the ones pinned and installed, and no
other module of the project names one of them."""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import importlib.util
import inspect
import pkgutil
import re
import textwrap
from functools import cache
from pathlib import Path

from ael_tui import compat

ROOT = Path(__file__).resolve().parents[2]
COMPAT = ROOT / "ael_tui" / "compat.py"
SCANNED = ("ael_tui", "ael_cli", "engine", "scenarios", "bench", "tests")
LIBRARIES = ("textual", "textual_serve")
WRAPPED = {name for _, name in compat.PRIVATE_NAMES}
# every offence below names one of these in the module's text: a module that names none is
# not parsed (exact, and most of the project's 700 files; parsing them all was 2.7 s)
_MENTIONS = re.compile("|".join(map(re.escape, sorted(WRAPPED | set(LIBRARIES)))))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _owner(where: str) -> object:
    module, _, cls = where.partition(":")
    owner = importlib.import_module(module)
    return getattr(owner, cls) if cls else owner


def _assigned_to_self(cls: type, name: str) -> bool:
    """An instance attribute: some class of the MRO assigns `self.name` in its source."""
    return any(name in _self_assigned(klass) for klass in cls.__mro__
               if klass.__module__.split(".")[0] in LIBRARIES)


@cache
def _self_assigned(klass: type) -> frozenset[str]:
    """The names a library class assigns on `self` in its source (parsed once per class: App's
    source alone is thousands of lines, and the table names several of its attributes)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
    return frozenset(n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                     and isinstance(n.value, ast.Name) and n.value.id == "self")


def _present(where: str, name: str) -> bool:
    owner = _owner(where)
    if inspect.ismodule(owner):
        return hasattr(owner, name) or importlib.util.find_spec(f"{owner.__name__}.{name}") is not None
    return hasattr(owner, name) or _assigned_to_self(owner, name)


def test_every_private_name_compat_uses_is_still_there():
    """One test for the whole table (`make quick` runs one case of a parametrized test)."""
    gone = [f"{where}.{name}" for where, name in compat.PRIVATE_NAMES if not _present(where, name)]
    assert not gone, f"gone from the installed packages: {gone}; read ael_tui/compat.py against the new version"


def test_the_checker_fails_for_a_name_that_is_not_there():
    assert not _present("textual.app:App", "_no_such_name")
    assert not _present("textual.widgets", "_no_such_module")
    assert _assigned_to_self(_owner("textual.app:App"), "_notifications")  # set in __init__, not on the class


def test_the_versions_compat_was_read_from_are_pinned_and_installed():
    pins = {"textual": compat.TEXTUAL_VERSION, "textual-serve": compat.TEXTUAL_SERVE_VERSION}
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    constraints = (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
    for package, version in pins.items():
        assert importlib.metadata.version(package) == version
        assert re.search(rf'"{package}=={re.escape(version)}"', pyproject), f"{package} not pinned exactly"
        assert f"{package}=={version}" in constraints


def _offences(path: Path) -> list[str]:
    """Where the module at `path` names a private name of Textual or textual-serve: one of
    those compat wraps (read, assigned, defined as an override, imported), or any private
    module or name imported from either package."""
    text = path.read_text(encoding="utf-8")
    if not _MENTIONS.search(text):
        return []
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError:  # a test's hostile corpus (tests/escape_corpus), data and never imported
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in WRAPPED:
            found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in WRAPPED:
            found.append(f"{node.lineno}: def {node.name}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in LIBRARIES:
            if any(map(_private, node.module.split(".") + [a.name for a in node.names])):
                found.append(f"{node.lineno}: from {node.module} import {', '.join(a.name for a in node.names)}")
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names
                      if a.name.split(".")[0] in LIBRARIES and any(map(_private, a.name.split(".")))]
    return found


def test_no_module_but_compat_names_a_private_name_of_textual():
    offences = {}
    for package in SCANNED:
        for path in (ROOT / package).rglob("*.py"):
            if path != COMPAT and (found := _offences(path)):
                offences[str(path.relative_to(ROOT))] = found
    assert not offences, (
        f"private names of Textual or textual-serve outside ael_tui/compat.py: {offences} (use, or add, "
        "a function of compat; a private name of the project's own that happens to be one of these: rename it)")


def test_the_scan_finds_each_kind_of_use(tmp_path):
    module = tmp_path / "uses.py"
    module.write_text("from textual.widgets._toast import ToastRack\nimport textual._compositor\n"
                      "from textual.keys import _character_to_key\n"
                      "class Lab:\n    def _on_notify(self, event):\n        return self._notifications\n")
    assert sorted(int(f.split(":")[0]) for f in _offences(module)) == [1, 2, 3, 5, 6]


@cache
def _library_names(cls: type) -> frozenset[str]:
    """The names a class of Textual or textual-serve defines: on the class, or on `self`."""
    names = set(vars(cls))
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
    return frozenset(names)


def test_no_class_of_the_lab_reads_or_overrides_a_private_name_of_its_textual_base():
    """Beyond the names compat lists: a class of ael_tui built on a Textual (or textual-serve)
    class, naming a private name that base defines (`self._driver`, an override of
    `_on_mount`...), would reach inside the library unseen by the scan above."""
    import ael_tui
    offences = []
    for info in pkgutil.walk_packages(ael_tui.__path__, "ael_tui."):
        if info.name == "ael_tui.compat":
            continue
        module = importlib.import_module(info.name)
        for cls in vars(module).values():
            if not inspect.isclass(cls) or cls.__module__ != info.name:
                continue
            bases = [b for b in cls.__mro__ if b.__module__.split(".")[0] in LIBRARIES]
            if not bases:
                continue
            tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
            used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
            used |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            offences += [f"{info.name}.{cls.__name__}.{name}" for name in sorted(filter(_private, used))
                         if any(name in _library_names(b) for b in bases)]
    assert not offences, f"private names of a Textual base class, outside ael_tui/compat.py: {offences}"


def test_a_stylesheet_source_is_parsed_once_per_process_and_again_under_other_variables():
    from textual.app import App

    source = "Screen { background: $panel; }"

    def parsed(**changed):
        app = App()
        compat.share_parsed_css(app)
        if changed:
            app.stylesheet.set_variables({**app.get_css_variables(), **changed})
        app.stylesheet.add_source(source, read_from=("test_textual_compat.py", "Probe.CSS"))
        app.stylesheet.parse()
        return app.stylesheet.rules

    first, second = parsed(), parsed()
    assert first and all(a is b for a, b in zip(first, second))  # the second app reused the rules
    other = parsed(panel="#123456")
    assert other[0] is not first[0]
    assert other[0].styles.background != first[0].styles.background  # the variable is read again
