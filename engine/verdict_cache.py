"""What a plugin's probe found (engine/plugin_probe.py), kept between commands.

The key is a sha256 over the cache's format, this interpreter (its path and
version), the distribution's name, version and metadata text, its entry points,
`sys.path`, and the bytes of every file of the modules the entry points name
(the top-level package's folder, or the single module file). Nothing is taken
from a file's date or size: a plugin edited in place is a new key, and a verdict
stored under another plugin's key never matches. A file is `<key>.json` naming
its own key; anything else in its place (another key, a symlink, a FIFO, a file
too big, not JSON) is ignored and the plugin probed again.

No key when the modules cannot be found without importing them, or are too many
or too big to read quickly: then the plugin is probed at every start. The cache
is only time saved: one that cannot be written is skipped.

Location: `$AEL_LAB_PLUGIN_CACHE`, else `$XDG_CACHE_HOME/ael-lab/plugins`, else
`~/.cache/ael-lab/plugins`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

from .store.cache_files import read_regular, user_cache_dir, write_atomic

FORMAT = "ael-lab-plugin-probe-1"
MAX_FILES = 2_000
MAX_BYTES = 64 * 1024 * 1024
MAX_ENTRY_BYTES = 64 * 1024


def cache_dir() -> Path:
    return user_cache_dir("plugins", "AEL_LAB_PLUGIN_CACHE")


def key_of(dist_key: tuple[str, str], values: list[str], metadata: str, path: list[str]) -> str | None:
    h = hashlib.sha256(json.dumps([FORMAT, sys.executable, sys.version, list(dist_key), sorted(values), metadata,
                                   [p for p in path if isinstance(p, str)]]).encode())
    tops = sorted({v.partition(":")[0].strip().split(".")[0] for v in values})
    budget = [MAX_FILES, MAX_BYTES]
    for top in tops:
        files = _files_of(top)
        if files is None:
            return None
        for file in files:
            data = read_regular(file, budget[1])
            budget[0] -= 1
            if data is None or budget[0] < 0:
                return None
            budget[1] -= len(data)
            h.update(f"\0{file}\0{len(data)}\0".encode())
            h.update(data)
    return h.hexdigest()


def _files_of(top: str) -> list[str] | None:
    """The files of top-level module `top`, found without running any of its code."""
    try:
        spec = importlib.util.find_spec(top)  # a top-level name: no parent package is imported
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None:
        return []  # not importable: the probe says so, and says it again next time
    folders = list(spec.submodule_search_locations or [])
    if not folders:
        return [spec.origin] if spec.origin and os.path.isfile(spec.origin) else None
    files: list[str] = []
    for folder in folders:
        for root, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            files += [os.path.join(root, n) for n in sorted(names) if not n.endswith((".pyc", ".pyo"))]
            if len(files) > MAX_FILES:
                return None
    return files


def read(key: str) -> dict[str, Any] | None:
    data = read_regular(cache_dir() / f"{key}.json", MAX_ENTRY_BYTES)
    try:
        doc = json.loads(data) if data is not None else None
    except ValueError:
        return None
    if not (isinstance(doc, dict) and doc.get("format") == FORMAT and doc.get("key") == key):
        return None
    failed, verdicts = doc.get("failed"), doc.get("verdicts")
    if not isinstance(failed, (str, type(None))) or not isinstance(verdicts, dict):
        return None
    if not all(isinstance(v, (str, type(None))) for v in verdicts.values()):
        return None
    return {"failed": failed, "verdicts": verdicts}


def write(key: str, outcome: dict[str, Any]) -> None:
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(folder / f"{key}.json", json.dumps({"format": FORMAT, "key": key, **outcome}).encode())
    except OSError:
        pass
