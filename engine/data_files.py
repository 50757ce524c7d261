"""Data files a person or a save names (a stream's table, the news world's archive): opened
only when they are regular files within a size cap, checked before a byte is read.

A save is untrusted: its data path may name /dev/zero, /dev/urandom, a FIFO or a folder,
and hashing or reading one of those never ends (opening a FIFO for reading alone waits for
a writer). `open_data` looks first (stat, which never blocks), then opens with O_NONBLOCK
(a FIFO put in the file's place meanwhile returns at once) and O_NOCTTY, and checks the
open file again (fstat), so what is read is the regular file that was checked. Symlinks
are followed: a researcher's data may be a link (a served lab resolves every path into
its folder first, `ServedMode.confine`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from engine.errors import AELError

_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
          | getattr(os, "O_CLOEXEC", 0))


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, in a person's words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "something else"


def check_data(where: str, info: os.stat_result, limit: int) -> None:
    """AELError unless `info` is a regular file of at most `limit` bytes; `where` starts the
    line (e.g. "--data rows.csv")."""
    if not stat.S_ISREG(info.st_mode):
        raise AELError(f"{where}: {kind_of(info.st_mode)}, not a regular file; name a data file")
    if info.st_size > limit:
        raise AELError(f"{where}: {info.st_size:,} bytes is more than the {limit:,} bytes "
                       f"({limit / 2**20:g} MB) a data file may have; take a sample of the rows")


def open_data(path: str | os.PathLike, where: str, limit: int) -> BinaryIO:
    """`path` opened for reading (binary) once it is a regular file of at most `limit` bytes;
    AELError in one line (starting with `where`) for anything else: missing, a folder, a
    FIFO, a device, too big, unreadable."""
    p = Path(path).expanduser()
    try:
        check_data(where, os.stat(p), limit)  # before the open: a device's open may do something
        fd = os.open(p, _FLAGS)
    except FileNotFoundError:
        raise AELError(f"{where}: no such file") from None
    except OSError as err:
        raise AELError(f"{where}: cannot read it: {err.strerror or err}") from None
    try:
        check_data(where, os.fstat(fd), limit)  # the file opened is the one checked
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_data(path: str | os.PathLike, where: str, limit: int) -> bytes:
    """The bytes of `path` (`open_data`'s checks), at most `limit` of them."""
    with open_data(path, where, limit) as f:
        try:
            data = f.read(limit + 1)
        except OSError as err:
            raise AELError(f"{where}: cannot read it: {err.strerror or err}") from None
    if len(data) > limit:  # grew since it was checked
        raise AELError(f"{where}: more than the {limit:,} bytes a data file may have; take a sample of the rows")
    return data
