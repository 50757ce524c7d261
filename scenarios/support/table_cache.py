"""The prediction table on disk, keyed by a hash of the stream and of the policies.

A run and the resume of its save compute the same table; on disk (7 KB a seed)
the second process reads it instead. The key covers everything the table is a
function of: the tickets themselves (so a change to the generator changes the
key), the built-in policies' fingerprints and this file's format. A missing,
foreign or damaged file is simply recomputed; a cache that cannot be written
(read-only home, full disk) is skipped, because it only saves time.

Location: `$AEL_LAB_CACHE_DIR`, else `$XDG_CACHE_HOME/ael-lab/support`, else
`~/.cache/ael-lab/support`.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Iterable

import numpy as np

FORMAT = "support-table-1"


def cache_dir() -> Path:
    explicit = os.environ.get("AEL_LAB_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ael-lab" / "support"


def table_key(stream: Iterable[dict], fingerprints: Iterable[str]) -> str:
    h = hashlib.sha256(FORMAT.encode())
    for ticket in stream:
        h.update(json.dumps(ticket).encode())
    for fp in fingerprints:
        h.update(fp.encode())
    return h.hexdigest()[:24]


def load(key: str, shape: tuple[int, int], n_routes: int) -> np.ndarray | None:
    path = cache_dir() / f"{key}.npy"
    try:
        routes = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if routes.shape != shape or routes.dtype != np.int8 or routes.min() < 0 or routes.max() >= n_routes:
        return None
    return routes


def store(key: str, routes: np.ndarray) -> None:
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key}.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                np.save(f, routes, allow_pickle=False)
            os.replace(tmp, folder / f"{key}.npy")  # readers see the old file or the whole new one
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        pass
