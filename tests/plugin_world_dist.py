"""examples/plugin-world as an installer leaves it, in a folder of a test's own: a dist-info with
the entry points its pyproject.toml declares, and its modules. Put on a path (PYTHONPATH, or
`monkeypatch.syspath_prepend`), it is installed for that process alone: the shared virtual
environment is never touched. (tests/lab/test_plugins.py installs it for real, into a venv of its own.)"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "plugin-world"


def plugin_world_dist(folder: Path) -> Path:
    doc = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))
    project = doc["project"]
    info = folder / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()) + "\n"
        for group, entries in project["entry-points"].items()))
    for module in doc["tool"]["plugin-world"]["py-modules"]:
        shutil.copy(EXAMPLE / f"{module}.py", folder / f"{module}.py")
    return folder
