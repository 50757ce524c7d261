"""Files the lab writes for itself (caches) and reads back: only regular files, whole.

`read_regular` never follows a symlink in the file's place and never blocks on a
FIFO: the open is O_NOFOLLOW | O_NONBLOCK and fstat refuses everything but a
regular file before a byte is read; a file over its size limit is refused too.
`write_atomic` puts new bytes in a file's place through a temporary file and
`os.replace`, so a reader sees the old file or the new one whole, and a symlink,
FIFO or device that stood there is replaced, never written through. A sha256 of
what was written (`digest`) finds damage only: a cache that changes a result is
trusted by its keyed MAC (cache_mac.py), whose key the cache folder does not hold.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path


def user_cache_dir(name: str, override: str | None = None) -> Path:
    """The lab's cache folder `name`: `$override` when that variable is set, else
    `$XDG_CACHE_HOME/ael-lab/NAME`, else `~/.cache/ael-lab/NAME`."""
    explicit = os.environ.get(override) if override else None
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ael-lab" / name


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_regular(path: str | os.PathLike, limit: int) -> bytes | None:
    """The bytes of `path` if it is a regular file of at most `limit` bytes, else None
    (missing, a symlink, a FIFO, a device, a folder, unreadable, too big)."""
    flags = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
             | getattr(os, "O_NOCTTY", 0))  # a terminal device in the file's place never becomes ours
    try:
        fd = os.open(path, flags)
    except OSError:  # missing, a symlink (ELOOP), unreadable
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return None if size > limit else b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def write_atomic(path: str | os.PathLike, data: bytes, private: bool = True) -> None:
    """`path` holds `data`, whole (OSError when it cannot be written); readable by its
    owner only, or with `private=False` as an ordinary file (the umask's mode)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            if not private:
                umask = os.umask(0)
                os.umask(umask)
                os.fchmod(f.fileno(), 0o666 & ~umask)
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
