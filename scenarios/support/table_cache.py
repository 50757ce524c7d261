"""The prediction table on disk, keyed by a hash of the stream and of the policies.

A run and the resume of its save compute the same table; on disk (7 KB a seed)
the second process reads it instead. The key covers everything the table is a
function of: the tickets themselves (so a change to the generator changes the
key), the built-in policies' fingerprints and this file's format.

Each table `<key>.npy` has a sidecar `<key>.npy.sha256` that names the format,
the key (the hash of the table's inputs) and the HMAC of the format, the key and
the `.npy` file's bytes under the lab's cache key, which lives outside the cache
folder (engine/store/cache_mac.py). A table is used only when its sidecar names
this format and this key and holds that MAC; anything else (a missing, foreign,
edited, truncated or damaged file, a table whose editor also rewrote its sidecar,
or a table from a version with a plain checksum) is recomputed and written again,
so a cache file never changes a result. Only
regular files are read: a symlink, a FIFO or a device in a cache file's place
is refused without blocking (engine/store/cache_files.py: opened with O_NOFOLLOW |
O_NONBLOCK, checked with fstat) and replaced by the recomputed table. A cache that cannot be written
(read-only home, full disk) is skipped, because it only saves time.

An editor of the cache folder who also writes a matching sidecar has to know
the key: a plain sha256 (format 2) was forged that way. Without a key (a home
that cannot hold one) nothing is read or written: the table is computed.

Location: `$AEL_LAB_CACHE_DIR`, else `$XDG_CACHE_HOME/ael-lab/support`, else
`~/.cache/ael-lab/support`.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
from pathlib import Path
from typing import Iterable

import numpy as np

from engine.store.cache_files import read_regular, user_cache_dir, write_atomic
from engine.store.cache_mac import mac, note_refused

FORMAT = "support-table-3"   # 2: a sidecar with the table's sha256; 3: its keyed MAC instead
SIDECAR = ".sha256"
MAX_SIDECAR_BYTES = 4096
NPY_HEADER_BYTES = 4096      # a .npy header is 128 bytes for these tables; room to spare


def cache_dir() -> Path:
    return user_cache_dir("support", "AEL_LAB_CACHE_DIR")


def table_key(stream: Iterable[dict], fingerprints: Iterable[str]) -> str:
    h = hashlib.sha256(FORMAT.encode())
    for ticket in stream:
        h.update(json.dumps(ticket).encode())
    for fp in fingerprints:
        h.update(fp.encode())
    return h.hexdigest()[:24]


def _sidecar(key: str, tag: str) -> bytes:
    return json.dumps({"format": FORMAT, "key": key, "mac": tag}, sort_keys=True).encode()


def _signed(key: str, data: bytes) -> tuple[bytes, ...]:
    """What a sidecar's MAC covers: this format, the table's key and its bytes."""
    return FORMAT.encode(), key.encode(), data


def _trusted(key: str, data: bytes, sidecar: bytes | None) -> bool:
    """Whether `sidecar` is, byte for byte, the one `store` writes for `data` (never parsed)."""
    tag = mac(*_signed(key, data))
    return tag is not None and sidecar is not None and hmac.compare_digest(sidecar, _sidecar(key, tag))


def load(key: str, shape: tuple[int, int], n_routes: int) -> np.ndarray | None:
    """The table of `key` if the cache holds it whole and unchanged, else None (recompute)."""
    folder = cache_dir()
    data = read_regular(folder / f"{key}.npy", NPY_HEADER_BYTES + int(np.prod(shape)))
    if data is None:
        return None
    if not _trusted(key, data, read_regular(folder / f"{key}.npy{SIDECAR}", MAX_SIDECAR_BYTES)):
        note_refused(folder / f"{key}.npy")
        return None
    try:
        routes = np.load(io.BytesIO(data), allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if routes.shape != shape or routes.dtype != np.int8 or routes.min() < 0 or routes.max() >= n_routes:
        return None
    return routes


def store(key: str, routes: np.ndarray) -> None:
    """Write the table and its sidecar, each atomically (the table first: a reader between
    the two sees a table its sidecar does not match, and recomputes)."""
    buffer = io.BytesIO()
    np.save(buffer, routes, allow_pickle=False)
    data = buffer.getvalue()
    tag = mac(*_signed(key, data))
    if tag is None:
        return  # no key to sign it with: a table nobody could trust is not written
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(folder / f"{key}.npy", data)
        write_atomic(folder / f"{key}.npy{SIDECAR}", _sidecar(key, tag))
    except OSError:
        pass
