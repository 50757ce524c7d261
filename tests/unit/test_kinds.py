"""The kinds a test module is sorted into, and the folder each kind lives in.

A module sits in the folder of its kind: `tests/lab/` drives the Textual app (the
pilot), `tests/served/` starts `ael-lab serve`, `tests/process/` starts a process (it
names Python's module for that, its process class, the interpreter's path or Dask's
local cluster), `tests/model/` runs the real local model (its module is marked slow).
Everything else is `tests/unit/`. `make quick` runs the unit folder, one case of each
parametrized test, and leaves out those marked `heavy` (seconds each; `make test` runs
them). The kind is still read from what a module does, so a module in the wrong folder
(a unit test that starts to drive the lab, a new one dropped at `tests/`) fails here
instead of slowing the one-minute loop.
"""

from __future__ import annotations

import re
from pathlib import Path

KINDS = ("model", "served", "lab", "process", "unit")
_PROCESS = re.compile(r"\bsubprocess\b|\bsys\.executable\b|\bPopen\b|\bLocalCluster\b")
_MODEL = re.compile(r"^pytestmark\b.*\bslow\b", re.M)
_LAB = re.compile(r"\brun_test\(|\bPilot\b|\bmake_app\(")


def kind_of(path: Path, marks: set[str] = frozenset()) -> str:
    """The kind of the test module at `path`, from its name and its source (read, never
    imported), whatever folder it sits in."""
    source = path.read_text(encoding="utf-8", errors="replace")
    if "slow" in marks or _MODEL.search(source):
        return "model"
    name = path.stem
    if name.startswith("test_serve"):
        return "served"
    if name.startswith("test_tui") or _LAB.search(source):
        return "lab"
    if _PROCESS.search(source):
        return "process"
    return "unit"


TESTS = Path(__file__).resolve().parents[1]


def every_test_module() -> list[Path]:
    """Every test module under tests/, in a kind's folder or not."""
    return sorted(TESTS.rglob("test_*.py"))


def test_every_kind_is_found_where_it_should_be():
    assert kind_of(TESTS / "served" / "test_serve_class.py", set()) == "served"
    assert kind_of(TESTS / "lab" / "test_tui_lab.py", set()) == "lab"
    assert kind_of(TESTS / "process" / "test_local_build.py", set()) == "process"
    assert kind_of(TESTS / "unit" / "test_session_parts.py", set()) == "unit"
    assert kind_of(TESTS / "model" / "test_local_model.py") == "model"
    assert kind_of(Path(__file__)) == "unit"


def test_each_module_sits_in_the_folder_of_its_kind():
    misplaced = [f"{path.relative_to(TESTS.parent)}: git mv it to tests/{kind}/"
                 for path in every_test_module() if path.parent != TESTS / (kind := kind_of(path))]
    assert not misplaced, "a test module outside the folder of its kind:\n" + "\n".join(misplaced)


def test_each_kind_has_its_folder():
    for kind in KINDS:  # a package, so a module is imported as tests.<kind>.test_x
        assert (TESTS / kind / "__init__.py").is_file(), kind
        assert any((TESTS / kind).glob("test_*.py")), kind
