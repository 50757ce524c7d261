"""A keyed MAC for what the lab caches on disk: a cache that changes a result must be ours.

A sha256 beside a cache file finds damage, not an editor who rewrites the file and its
checksum together (a finding: the support table rewritten with its sidecar turned an
overall of 0.7325 into 0.0642). So a cache file is trusted only when its sidecar holds an
HMAC-SHA256 of its bytes under a key the cache folder does not hold: 32 random bytes in
`$AEL_LAB_CACHE_KEY` (a file path, for tests), else `$XDG_STATE_HOME/ael-lab/cache.key`,
else `~/.local/state/ael-lab/cache.key`, made on first use, readable by its owner only
(the folder 0700, the file 0600). Whoever can write the cache folder but not that file
cannot make a cache entry the lab will read; a forged one is recomputed.

When no key can be read or made (a read-only home, a confined served lab, a key file that
is not a regular file of 32 bytes) `mac` returns None: the callers neither read nor
write their cache then (it only saves time), they compute.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import warnings
from pathlib import Path

from .cache_files import read_regular

KEY_BYTES = 32


def key_path() -> Path:
    explicit = os.environ.get("AEL_LAB_CACHE_KEY")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "ael-lab" / "cache.key"


def _make_key(path: Path) -> None:
    """Put a new key at `path` unless one is there: written whole to a private temporary
    file first, then linked into place (link never replaces a file, so two processes
    making it at once end up sharing the first one's key)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(KEY_BYTES))
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process made it first: its key is the key
    finally:
        os.unlink(tmp)


def cache_key() -> bytes | None:
    """The key (made now if there is none), or None when it cannot be had."""
    path = key_path()
    key = read_regular(path, KEY_BYTES)
    if key is None and not os.path.lexists(path):
        try:
            _make_key(path)
        except OSError:
            return None
        key = read_regular(path, KEY_BYTES)
    return key if key is not None and len(key) == KEY_BYTES else None


def mac(*parts: bytes) -> str | None:
    """HMAC-SHA256 (hex) of `parts`, each length-prefixed so no two splits of the same
    bytes agree; None when there is no key (then nothing is cached)."""
    key = cache_key()
    if key is None:
        return None
    h = hmac.new(key, digestmod=hashlib.sha256)
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


class CacheWarning(UserWarning):
    """A cache file that did not verify: recomputed, never used (the CLI prints it as a note)."""


def note_refused(path: str | os.PathLike) -> None:
    """One line saying the cache file at `path` was not ours and is computed again."""
    warnings.warn(f"{path}: a cache file that does not carry this lab's signature (edited, damaged or from "
                  "an older version); not used, computed again", CacheWarning, stacklevel=3)
