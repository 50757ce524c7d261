"""What `ael-lab run` may write, checked before anything runs.

A run names its outputs (`--json`, `--save`, `--record`) and its inputs
(`--resume`, `--replay`). Refused, each in one line:
- one path named for two outputs, or for an output and an input (`--json X
  --resume X` would replace the session by the results); `--save X --resume X`
  is allowed: it continues a session in place;
- a target that is a symlink, a device, a FIFO or a folder, or whose folder
  does not exist;
- `--save` over an existing file that is not an AEL Lab session, and `--json`
  over one that is, unless `--force`: both would destroy a file of another
  kind that the user most likely did not mean to give up.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ael_lab import AELError
from ael_lab.store import check_target

OUTPUTS = (("json_path", "--json"), ("save", "--save"), ("record", "--record"))
STDOUT = "-"  # `--json -`: the results on standard output instead of a file
INPUTS = (("resume", "--resume"), ("replay", "--replay"))
# an output that may be the same file as an input: continuing a session in place
IN_PLACE = {("--save", "--resume")}


def _key(path: str) -> str:
    return os.path.realpath(os.path.expanduser(path))


def check_run_outputs(args: argparse.Namespace) -> None:
    named: dict[str, str] = {}  # real path -> the first flag naming it
    for attr, flag in OUTPUTS + INPUTS:
        value = getattr(args, attr, None)
        if not value:
            continue
        key = _key(value)
        other = named.get(key)
        if other is not None and (other, flag) not in IN_PLACE and (flag, other) not in IN_PLACE:
            raise AELError(f"{other} and {flag} name the same file {value}: give each its own path")
        named.setdefault(key, flag)
    force = getattr(args, "force", False)
    for attr, flag in OUTPUTS:
        value = getattr(args, attr, None)
        if not value or (attr == "json_path" and value == STDOUT):
            continue
        path = Path(value).expanduser()
        folder = path.parent if str(path.parent) else Path(".")
        if not folder.is_dir():
            raise AELError(f"{flag}: cannot write {path}: folder {folder} does not exist")
        try:
            check_target(path)
        except AELError as err:
            raise AELError(f"{flag}: {err}") from None
        if force or not path.exists() or path.stat().st_size == 0:
            continue
        # here, not at the top: persistence brings pydantic's save schema, which a run
        # writing no existing file does not need
        from ael_lab.store import is_session_file

        if flag == "--save" and not is_session_file(path):
            raise AELError(f"--save: {path} exists and is not an AEL Lab session; "
                           "name another file, or add --force to replace it")
        if flag == "--json" and is_session_file(path):
            raise AELError(f"--json: {path} is an AEL Lab session; name another file for the results, "
                           "or add --force to replace it")
