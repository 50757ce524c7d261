"""A chart written alone as NAME.svg into the session's exports folder: the place a
served lab confines it to (`LabSettings.place`), never over an older file (NAME-2.svg,
NAME-3.svg... beside it), written atomically (`write_text_atomic`)."""

from __future__ import annotations

from pathlib import Path

from ael_lab import AELError
from ael_lab.store import write_text_atomic


def free_path(path: Path) -> Path:
    """`path`, or NAME-2.svg, NAME-3.svg… beside it if it exists: a file nobody named
    here is never replaced."""
    candidate, n = path, 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate


def write_chart(settings, stem: str, svg: str) -> Path:
    """Write `svg` as exports/STEM.svg (or a free name beside it); AELError in one line
    (a folder that cannot be made, a full disk, a served lab's quota)."""
    folder = settings.place(Path(settings.exports_dir), "export")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = free_path(folder / f"{stem}.svg")
        write_text_atomic(path, svg)
    except OSError as err:
        raise AELError(f"chart not saved: {err.strerror or err}") from None
    return path
