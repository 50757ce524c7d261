"""The load dialog: the saves folder as a list, and a path for anything else."""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Static

from ael_tui.actions import bindings_for
from ael_tui.widgets.readouts import SaveInfo, list_saves
from ael_tui.files.save_list import SaveTable


class LoadScreen(ModalScreen[Path | None]):
    BINDINGS = bindings_for("load")

    def __init__(self, saves_dir: Path) -> None:
        super().__init__(classes="dialog-screen")
        self.saves_dir = saves_dir

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog big-dialog", id="load") as box:
            box.border_title = "Load a session"
            yield Label(f"Saved sessions in {self.saves_dir}/ (enter opens)", markup=False)
            yield SaveTable(id="load-table")
            yield Static("", id="load-empty", classes="dialog-hint")
            yield Label("…or a file path (enter opens)")
            yield Input(placeholder="path/to/session.json", id="load-path")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Open", id="open", variant="primary", compact=True)
                yield Button(f"Cancel ({self.app.key_for('load.cancel')})", id="cancel", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(SaveTable).focus()
        self.scan()

    @work(thread=True, exclusive=True, group="scan")
    def scan(self) -> list[SaveInfo]:
        infos = list_saves(self.saves_dir)
        self.app.call_from_thread(self._show, infos)
        return infos

    def _show(self, infos: list[SaveInfo]) -> None:
        if not self.is_mounted:
            return
        self.query_one(SaveTable).show(infos)
        self.query_one("#load-empty", Static).update("" if infos else "No saves yet.")

    def _open(self) -> None:
        typed = self.query_one("#load-path", Input).value.strip()
        if typed:
            self.dismiss(Path(typed).expanduser())
            return
        path = self.query_one(SaveTable).selected_path
        if path is None:
            # said in the dialog: a notification waits until a dialog closes (AelLab)
            self.query_one("#load-empty", Static).update("Choose a save or type a path.")
            self.app.bell()
            return
        self.dismiss(path)

    def on_data_table_row_selected(self, event) -> None:
        event.stop()
        path = self.query_one(SaveTable).selected_path
        if path is not None:
            self.dismiss(path)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._open()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "open":
            self._open()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
