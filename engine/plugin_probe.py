"""A plugin distribution imported first in a child process, so that what no `except` can
catch in ours (`os._exit`, a hang, a segfault, an exit from an atexit hook) costs the
child, not the command.

`probe(dist, entries)` runs `python -c CHILD` with the parent's `sys.path` and
AEL_NO_PLUGINS=1 (a plugin importing the engine must not probe plugins in turn),
in a session of its own that is killed whole after AEL_PLUGIN_TIMEOUT seconds
(default 5). The child imports each entry point's object (and a world's `SPEC.factory`,
which a command imports later, when it builds one), writes one line on a
private copy of its stdout (the plugin's own prints go to its stderr, thrown away),
and ends with `os._exit(0)` so that nothing the plugin registered runs after it.
Its answer, per entry point, is None (imported) or the one line that says why not;
a child that says nothing (it exited, was killed, hung) fails the whole distribution.

Verdicts are cached (`verdict_cache.py`) under a key that is the sha256 of the
distribution's metadata and entry points, of every file of the modules they name
(read, not stat'ed: an edit of a plugin is a new key) and of this interpreter, so
`ael-lab --help` stays fast; a timeout is never cached (a busy machine is not a
broken plugin).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
from typing import Any

from . import verdict_cache

DEFAULT_TIMEOUT_S = 5.0
MAX_ANSWER_BYTES = 64 * 1024

# The child: sys.path from the parent, the plugin's prints to stderr, one answer line, no exit hooks.
CHILD = r"""
import json, os, sys
request = json.loads(sys.stdin.read())
sys.path[:] = request["path"]
answer = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr
from importlib.metadata import EntryPoint
verdicts = {}
for value in request["values"]:
    try:
        loaded = EntryPoint(name="probe", value=value, group="probe").load()
        factory = getattr(getattr(loaded, "SPEC", None), "factory", None)
        if isinstance(factory, str) and ":" in factory:  # a world's class, imported when one is built
            EntryPoint(name="probe", value=factory, group="probe").load()
        verdicts[value] = None
    except BaseException as err:
        text = " ".join(str(err).split())[:160]
        verdicts[value] = type(err).__name__ + (": " + text if text else "")
answer.write(request["nonce"] + json.dumps(verdicts) + "\n")
answer.flush()
os._exit(0)
"""


def timeout_s() -> float:
    """AEL_PLUGIN_TIMEOUT in seconds (0.5 to 300), else 5."""
    try:
        value = float(os.environ.get("AEL_PLUGIN_TIMEOUT", DEFAULT_TIMEOUT_S))
    except ValueError:
        return DEFAULT_TIMEOUT_S
    return min(max(value, 0.5), 300.0) if value == value else DEFAULT_TIMEOUT_S


def probe(dist_key: tuple[str, str], values: list[str], metadata: str) -> dict[str, Any]:
    """{"failed": None or why the distribution is out, "verdicts": {value: None or why it is out}}."""
    key = verdict_cache.key_of(dist_key, values, metadata, sys.path)
    cached = verdict_cache.read(key) if key else None
    if cached is not None:
        return cached
    outcome = _run_child(values)
    if key and not outcome.pop("transient", False):
        verdict_cache.write(key, outcome)
    return outcome


def _run_child(values: list[str]) -> dict[str, Any]:
    if not sys.executable:  # an embedded interpreter: nothing to start; the import guard alone
        return {"failed": None, "verdicts": {}}
    nonce = secrets.token_hex(16)
    request = json.dumps({"path": [p for p in sys.path if isinstance(p, str)], "values": values, "nonce": nonce})
    limit = timeout_s()
    try:
        child = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, env={**os.environ, "AEL_NO_PLUGINS": "1"},
                                 start_new_session=True)
    except OSError as err:
        return {"failed": f"its import could not be tried in a child process ({err.strerror or err})",
                "verdicts": {}, "transient": True}
    try:
        out, _ = child.communicate(request.encode(), timeout=limit)
    except subprocess.TimeoutExpired:
        _kill_group(child)
        return {"failed": f"its import did not finish within {limit:g} s (AEL_PLUGIN_TIMEOUT)", "verdicts": {},
                "transient": True}
    finally:
        _kill_group(child)  # whatever the plugin started in the child's session ends with it
    return _answer(out[:MAX_ANSWER_BYTES], nonce, child.returncode, values)


def _answer(out: bytes, nonce: str, code: int, values: list[str]) -> dict[str, Any]:
    line = out.decode("utf-8", "replace").splitlines()[-1:] or [""]
    if code == 0 and line[0].startswith(nonce):
        try:
            verdicts = json.loads(line[0][len(nonce):])
        except ValueError:
            verdicts = None
        if isinstance(verdicts, dict) and all(isinstance(verdicts.get(v), (str, type(None))) for v in values):
            return {"failed": None, "verdicts": {v: verdicts.get(v) for v in values}}
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return {"failed": f"importing it killed the process ({name})", "verdicts": {}}
    return {"failed": f"importing it ended the process (exit status {code})", "verdicts": {}}


def _kill_group(child: subprocess.Popen) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(child.pid, signal.SIGKILL)  # the child's session: it and whatever it started
        elif child.poll() is None:
            child.kill()
    except OSError:  # gone already (ProcessLookupError), or not ours to signal
        pass
    try:
        child.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
