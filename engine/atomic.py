"""Atomic JSON files: a crash or an error leaves the old file or the new one.

Used for session saves, the CLI's results and LLM cassettes alike.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .errors import AELError
from .secrets import scrub


def write_json_atomic(path: str | os.PathLike, document: Any, *, indent: int | None = None,
                      sort_keys: bool = False) -> None:
    """Serialise first (a value JSON cannot hold fails before any file is touched),
    then write atomically."""
    separators = (",", ":") if indent is None else None
    text = json.dumps(document, separators=separators, indent=indent, sort_keys=sort_keys, allow_nan=False)
    write_text_atomic(path, text)


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Temp file in the same folder + fsync + rename: the target is either the old
    file or the complete new one, never half of one. Every file the program writes
    passes here, so this is where secrets are scrubbed (`engine.secrets`)."""
    text = scrub(text)
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise AELError(f"cannot save to {path}: folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes 0600; a save is an ordinary file
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    try:  # make the rename itself durable
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
