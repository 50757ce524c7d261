"""`import ael_lab` loads no Textual and no Rich module (a notebook or a script pays for neither,
and a plugin built on it pulls no UI into `ael-lab run`), nor pandas, the lab or the CLI: in a
fresh interpreter, where nothing else has loaded them first."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = ("import json, sys, ael_lab; "
         "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))")


def test_importing_ael_lab_loads_no_textual_no_rich_no_pandas_no_ui():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True)
    loaded = set(json.loads(out.stdout))
    assert "ael_lab" in loaded and "engine" in loaded
    assert loaded & {"textual", "rich", "pandas", "ael_tui", "ael_cli"} == set()
