"""Atomic JSON files: a crash or an error leaves the old file or the new one.

Used for session saves, the CLI's results and LLM cassettes alike. A write
goes to `.NAME.XXXXXXXX.tmp` beside the target, is fsynced and renamed over
it. Around that:
- the target must be a regular file (or not exist): a symlink, a device, a
  FIFO or a folder is refused, never replaced;
- writers of one target take an advisory lock (`fcntl.flock` on
  `.NAME.lock`, which holds the writer's pid), so a second writer is told who
  is writing instead of racing it;
- temp files of the target left by a killed writer are swept once the lock
  is held (no live writer can own them then);
- temp files in flight are removed on SIGTERM and SIGHUP when the program
  installed `remove_temp_files_on_signals` (SIGINT is a KeyboardInterrupt,
  which the write's own cleanup handles).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import signal
import stat
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from ..errors import AELError
from ..secrets import scrub

_in_flight: set[str] = set()       # temp files being written now, for the signal handler
_in_flight_lock = threading.RLock()  # re-entrant: the signal handler runs on the main thread


def write_json_atomic(path: str | os.PathLike, document: Any, *, indent: int | None = None,
                      sort_keys: bool = False) -> None:
    """Serialise first (a value JSON cannot hold fails before any file is touched),
    then write atomically."""
    separators = (",", ":") if indent is None else None
    text = json.dumps(document, separators=separators, indent=indent, sort_keys=sort_keys, allow_nan=False)
    write_text_atomic(path, text)


def check_target(path: str | os.PathLike) -> None:
    """Refuse a target that is not a regular file (or absent): replacing a symlink,
    a device node or a FIFO by a file is never what was meant."""
    path = Path(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as err:
        raise AELError(f"cannot write {path}: {err.strerror or err}") from None
    if stat.S_ISLNK(st.st_mode):
        raise AELError(f"cannot write {path}: it is a symbolic link; name the file itself")
    if stat.S_ISDIR(st.st_mode):
        raise AELError(f"cannot write {path}: it is a folder")
    if not stat.S_ISREG(st.st_mode):
        raise AELError(f"cannot write {path}: it is not a regular file (a device, FIFO or socket)")


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Temp file in the same folder + fsync + rename: the target is either the old
    file or the complete new one, never half of one. Every file the program writes
    passes here, so this is where secrets are scrubbed (`engine.secrets`)."""
    text = scrub(text)
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise AELError(f"cannot save to {path}: folder {folder} does not exist")
    check_target(path)
    with writer_lock(path):
        sweep_temp_files(path)
        _write_and_rename(path, folder, text)
    try:  # make the rename itself durable
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def _write_and_rename(path: Path, folder: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    with _in_flight_lock:
        _in_flight.add(tmp)
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
    finally:
        with _in_flight_lock:
            _in_flight.discard(tmp)


def temp_file_pattern(path: Path) -> re.Pattern[str]:
    """The names `mkstemp` gives this target's temp files (and no other target's)."""
    return re.compile(rf"\.{re.escape(path.name)}\.[a-z0-9_]{{8}}\.tmp")


def sweep_temp_files(path: Path) -> list[str]:
    """Remove temp files of `path` that a killed writer left; call with the lock held."""
    folder = path.parent if str(path.parent) else Path(".")
    pattern = temp_file_pattern(path)
    gone = []
    try:
        names = os.listdir(folder)
    except OSError:
        return gone
    for name in names:
        if pattern.fullmatch(name):
            try:
                os.unlink(folder / name)
                gone.append(name)
            except OSError:
                pass
    return gone


def lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


@contextmanager
def writer_lock(path: str | os.PathLike) -> Iterator[None]:
    """Hold the advisory lock of `path` for one write; AELError naming the holder's
    pid if another writer has it. The lock file is removed while still held, and
    a lock taken on a file that was removed meanwhile is taken again, so two
    writers never both believe they hold it."""
    lp = lock_path(Path(path))
    while True:
        try:
            fd = os.open(lp, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as err:
            raise AELError(f"cannot lock {path} for writing ({lp}: {err.strerror or err})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            holder = _read_pid(fd)
            os.close(fd)
            if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                who = f"process {holder}" if holder else "another process"
                raise AELError(f"cannot write {path}: {who} is writing it now (lock {lp}); "
                               "try again when it has finished") from None
            raise AELError(f"cannot lock {path} for writing: {err.strerror or err}") from None
        try:
            same = os.fstat(fd).st_ino == os.stat(lp).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the previous holder removed that lock file as we took it: again
    try:
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        try:
            os.unlink(lp)
        except OSError:
            pass
        os.close(fd)


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        return int(text) if text.isdigit() else None
    except OSError:
        return None


def remove_temp_files_on_signals(signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGHUP)) -> None:
    """On these signals, remove the temp files being written, then die of the signal
    as before (the targets are untouched either way). Main thread only."""
    def handler(signum, frame):
        with _in_flight_lock:
            pending = list(_in_flight)
        for tmp in pending:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    if threading.current_thread() is not threading.main_thread():
        return  # only the main thread may set handlers (main() called from a worker, say in tests)
    for sig in signals:
        if signal.getsignal(sig) in (signal.SIG_DFL, None):
            signal.signal(sig, handler)
