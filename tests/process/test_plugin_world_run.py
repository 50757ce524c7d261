"""`ael-lab run plugin-world`, with the example installed (for the child alone) and its method
and variant chosen, imports no Textual module, no part of the lab, and not the variant's panel
module: the panel comes through `ael_lab.panels`, which only the lab reads. Nor Rich, with
`--quiet`: Rich is loaded only to draw the table and the progress bar a person asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.plugin_world_dist import plugin_world_dist

CHILD = """
import json, sys
from ael_cli.main import main
code = main(["run", "plugin-world", "--seeds", "1", "--selector", "ts,lamp-greedy", "--variant", "lamp-log",
             "--json", sys.argv[1], "--quiet"])
loaded = sorted({m.split(".")[0] for m in sys.modules})
print(json.dumps({"code": code, "loaded": loaded}), file=sys.stderr)
"""


@pytest.mark.heavy  # a child process that probes the plugin in a child of its own, then runs: seconds
def test_ael_lab_run_plugin_world_imports_no_textual(tmp_path):
    dist = plugin_world_dist(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(dist), os.environ.get("PYTHONPATH", "")]),
           "AEL_LAB_PLUGIN_CACHE": str(tmp_path / "cache"), "AEL_PLUGIN_TIMEOUT": "120"}
    env.pop("AEL_NO_PLUGINS", None)
    out = tmp_path / "run.json"
    ran = subprocess.run([sys.executable, "-c", CHILD, str(out)], capture_output=True, text=True, env=env,
                         timeout=600, cwd=tmp_path)
    report = json.loads(ran.stderr.strip().splitlines()[-1])
    assert report["code"] == 0, ran.stderr[-2000:]
    loaded = set(report["loaded"])
    assert {"ael_plugin_world", "ael_plugin_world_extensions", "ael_lab"} <= loaded
    assert loaded & {"textual", "rich", "ael_tui", "ael_plugin_world_panel"} == set()
    runs = json.loads(out.read_text())["runs"]
    assert [r["selector"] for r in runs] == ["ts · lamp-log", "lamp-greedy · lamp-log"]
    assert {p["distribution"] for p in json.loads(out.read_text())["plugins"]} == {"ael-plugin-world"}
