"""The list of saved sessions, read from each file's document (no session is built)."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import DataTable

from ael_tui.readouts import SaveInfo


class SaveTable(DataTable):
    COLUMNS = ("file", "scenario", "seed", "episode", "phase", "saved")

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        for label in self.COLUMNS:
            self.add_column(label, key=label)
        self.infos: list[SaveInfo] = []

    def show(self, infos: list[SaveInfo]) -> None:
        self.clear()
        self.infos = list(infos)
        for info in infos:
            if info.problem:
                self.add_row(Text(info.path.name, style="dim"), Text(info.problem, style="red"), "", "", "", "",
                             key=str(info.path))
                continue
            self.add_row(info.path.name, info.scenario, str(info.seed), str(info.episode), info.phase,
                         info.saved_at, key=str(info.path))

    @property
    def selected_path(self) -> Path | None:
        if not self.row_count or not 0 <= self.cursor_row < self.row_count:
            return None
        key = self.coordinate_to_cell_key((self.cursor_row, 0)).row_key.value
        return Path(key) if key else None
