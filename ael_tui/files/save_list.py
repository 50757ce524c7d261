"""The list of saved sessions, read from each file's document (no session is built)."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import DataTable

from ael_tui.widgets.readouts import SaveInfo


class SaveTable(DataTable):
    """Narrow (a start screen below 100 columns), only the file (without .json) and its
    episode: the file's name says its scenario and seed, and two whole columns read better
    than six cut ones."""

    COLUMNS = ("file", "scenario", "seed", "episode", "phase", "saved")
    NARROW_COLUMNS = ("file", "episode")

    infos: list[SaveInfo] = []
    _narrow = False

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        self._columns()

    def _columns(self) -> None:
        self.clear(columns=True)
        for label in self.NARROW_COLUMNS if self._narrow else self.COLUMNS:
            self.add_column(label, key=label)

    @property
    def narrow(self) -> bool:
        return self._narrow

    @narrow.setter
    def narrow(self, narrow: bool) -> None:
        if narrow != self._narrow:
            self._narrow = narrow
            if self.is_mounted:
                self._columns()
                self.show(self.infos)

    def show(self, infos: list[SaveInfo]) -> None:
        self.clear()
        self.infos = list(infos)
        for info in infos:
            if info.problem:
                row = [Text(info.path.name, style="dim"), Text(info.problem, style="red"), "", "", "", ""]
            else:
                row = [info.path.name, info.scenario, str(info.seed), str(info.episode), info.phase, info.saved_at]
            if self._narrow:  # every save is a .json: its stem says it
                name = info.path.stem if info.path.suffix == ".json" else info.path.name
                row = [Text(name, style="dim") if info.problem else name, row[1] if info.problem else row[3]]
            self.add_row(*row, key=str(info.path))

    @property
    def selected_path(self) -> Path | None:
        if not self.row_count or not 0 <= self.cursor_row < self.row_count:
            return None
        key = self.coordinate_to_cell_key((self.cursor_row, 0)).row_key.value
        return Path(key) if key else None
