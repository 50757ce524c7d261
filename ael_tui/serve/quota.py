"""What one visitor's lab writes into the shared sessions folder, and the quota on it.

The folder is shared (a student may open the teacher's save), so a visitor's
share is what this lab wrote: each save, autosave, export and screenshot it made,
at its size now. A write is refused, with one line saying why, once that share
is over `quota_mib`, or once the whole folder (every visitor's files and the lab's
caches) is over `folder_quota_mib`: a visitor who keeps saving, or a class that
opens tab after tab, cannot fill the teacher's disk. The check comes before the
write, so a lab holds at most its quota plus one file.
"""

from __future__ import annotations

import os
from pathlib import Path

from ael_lab import AELError

from .mode import ServedMode

MIB = 1024 * 1024


def regular_size(path: Path) -> int:
    """Bytes of a regular file (0 for anything else, or nothing)."""
    try:
        st = os.lstat(path)
    except OSError:
        return 0
    return st.st_size if (st.st_mode & 0o170000) == 0o100000 else 0


def folder_size(folder: Path) -> int:
    """Bytes of every regular file under `folder` (symlinks are not followed)."""
    total = 0
    for parent, _dirs, files in os.walk(folder, followlinks=False, onerror=lambda err: None):
        total += sum(regular_size(Path(parent) / f) for f in files)
    return total


def mib(n: float) -> str:
    return f"{n / MIB:.1f} MiB"


class VisitorFiles:
    """The served lab's `LabSettings.served`: `confine` places every path a visitor
    writes (saves, autosaves, exports) and keeps the quota; `record` adds files
    written another way (screenshots)."""

    def __init__(self, mode: ServedMode) -> None:
        self.mode = mode
        self.written: set[Path] = set()

    def used(self) -> int:
        return sum(regular_size(p) for p in self.written)

    def check(self, what: str = "file") -> None:
        """AELError once this lab's files, or the whole folder, are over their quota."""
        mode = self.mode
        used = self.used()
        if used > mode.quota_mib * MIB:
            raise AELError(f"{what}: this lab's files in the sessions folder take {mib(used)}, over the "
                           f"{mode.quota_mib:g} MiB each visitor may write; the teacher can allow more "
                           "(ael-lab serve --quota-mib)")
        total = folder_size(mode.folder)
        if total > mode.folder_quota_mib * MIB:
            raise AELError(f"{what}: the sessions folder holds {mib(total)}, over its {mode.folder_quota_mib:g} "
                           "MiB; the teacher can allow more (ael-lab serve --folder-quota-mib)")

    def confine(self, path: Path, what: str = "file") -> Path:
        """The path inside the folder (`ServedMode.confine`) a write may use now, recorded
        as this visitor's (an export's base stands for its .csv and .json)."""
        placed = self.mode.confine(path, what)
        self.check(what)
        if what == "export":
            base = placed.with_suffix("") if placed.suffix in (".csv", ".json") else placed
            self.record(base.with_name(base.name + ".csv"), base.with_name(base.name + ".json"))
        else:
            self.record(placed)
        return placed

    def readable(self, path: Path, what: str = "file", example: str = "mysession.json") -> Path:
        """The path inside the folder (`ServedMode.confine`) a read may use: no quota, nothing
        is written."""
        return self.mode.confine(path, what, example)

    def record(self, *paths: Path) -> None:
        self.written.update(Path(p).resolve() for p in paths)
