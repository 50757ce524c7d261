"""What `make quick` leaves out, and why: the kinds a test module is sorted into.

A module's kind is read from what it does, so a new test lands in the right loop
without a list to keep: `lab` drives the Textual app (the pilot), `served` starts
`ael-lab serve`, `process` starts a process (it names Python's module for
that, its process class, the interpreter's path or Dask's local cluster), `model` runs the
real local model (its module is marked slow). Everything
else is `unit`. `make quick` runs the unit tests, one case of each parametrized
test, and leaves out those marked `heavy` (seconds each; `make test` runs them).
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
    imported: `make quick` does not even collect the others)."""
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


def test_every_kind_is_found_where_it_should_be():
    here = Path(__file__).parent
    assert kind_of(here / "test_serve_class.py", set()) == "served"
    assert kind_of(here / "test_tui_lab.py", set()) == "lab"
    assert kind_of(here / "test_local_build.py", set()) == "process"
    assert kind_of(here / "test_session_parts.py", set()) == "unit"
    assert kind_of(here / "test_local_model.py") == "model"
    assert kind_of(Path(__file__)) == "unit"
