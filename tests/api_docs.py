"""What docs/api.md documents: each public name of `ael_lab` is one heading,

    ### `Session.step(n=1)`
    *stable* ...

whose backticked text starts with the name (up to its parenthesis), and whose next line
says *stable* or *provisional*. A frame's columns are the table under its heading, one
column a row: | `name` | ... |. Read by tests/unit/test_library_api.py and the scripts'
checks (tests/unit/test_library_decisions.py)."""

from __future__ import annotations

import re
from pathlib import Path

API = Path(__file__).resolve().parents[1] / "docs" / "api.md"
HEADING = re.compile(r"^###\s+`([A-Za-z_][\w.]*)")
STATUS = re.compile(r"^\*(stable|provisional)\*")
COLUMN = re.compile(r"^\|\s*`(\w+)`\s*\|")


def sections() -> dict[str, tuple[str | None, list[str]]]:
    """Documented name -> (its status, the columns of the table under its heading)."""
    out: dict[str, tuple[str | None, list[str]]] = {}
    name = None
    for line in API.read_text(encoding="utf-8").splitlines():
        heading = HEADING.match(line)
        if heading:
            name = heading.group(1)
            out[name] = (None, [])
            continue
        if name is None:
            continue
        status, columns = out[name]
        found = STATUS.match(line)
        if found and status is None:
            out[name] = (found.group(1), columns)
        column = COLUMN.match(line)
        if column:
            columns.append(column.group(1))
        if line.startswith("## "):
            name = None
    return out


def documented() -> set[str]:
    """Every documented name, and its last part (`Session.step` gives `step`)."""
    names = set(sections())
    return names | {n.rsplit(".", 1)[-1] for n in names}
