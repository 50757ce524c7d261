"""`Session.chart(kind)`: one picture of a run, as `ael-lab chart SAVE --kind KIND --svg OUT` draws it.

The SVG is drawn by the one picture code the lab and `ael-lab chart` use (`picture`, in
ael_lab/drawing/picture.py, on the Textual-free side). It is
imported when a chart is drawn, never with `ael_lab`, so `import ael_lab` loads no Textual
and no Rich module. A `Chart` holds the SVG text: a notebook shows it inline
(`_repr_svg_`), `save(path)` writes it atomically.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import AELError

if TYPE_CHECKING:
    from engine.session import Session

KINDS = ("arms", "reward", "regret", "regimes")


@dataclass(frozen=True)
class Chart:
    """One picture: `kind` (arms, reward, regret, regimes) and its `svg` text."""

    kind: str
    svg: str

    def _repr_svg_(self) -> str:
        return self.svg

    def __repr__(self) -> str:  # a notebook's text form, and a terminal's: not 20 kB of SVG
        return f"<ael_lab.Chart {self.kind}: {len(self.svg):,} characters of SVG>"

    def save(self, path: str | os.PathLike) -> Path:
        """Write the SVG to `path` (atomically); refuses a folder, a symlink, a missing folder and
        an AEL Lab session (a picture never replaces a run). Returns the path."""
        from engine.store.atomic import check_target, write_text_atomic
        from engine.store.persistence import is_session_file

        if not isinstance(path, (str, os.PathLike)) or not str(path):
            raise AELError(f"chart.save: give a file's path, not {path!r}")
        target = Path(path).expanduser()
        folder = target.parent if str(target.parent) else Path(".")
        if not folder.is_dir():
            raise AELError(f"chart.save: cannot write {target}: folder {folder} does not exist")
        check_target(target)
        if target.exists() and target.stat().st_size and is_session_file(target):
            raise AELError(f"chart.save: {target} is an AEL Lab session; name another file for the picture")
        try:
            write_text_atomic(target, self.svg)
        except OSError as err:
            raise AELError(f"chart.save: cannot write {target}: {err.strerror or err}") from None
        return target


def chart(session: "Session", kind: str) -> Chart:
    if kind not in KINDS:
        raise AELError(f"chart({kind!r}): choose one of {', '.join(KINDS)}")
    if not session.history:
        raise AELError("chart: the run has no episode yet: step it first")
    from ael_lab.drawing.picture import picture

    return Chart(kind, picture(session, kind))
