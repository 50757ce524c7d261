"""`Files`: the lab's ways out of the session and back, as one object: compare it with
other selectors (the last comparison kept, reopened as it was), export its history,
save, load, start anew, and the settings (autosave, delay).

It draws nothing (`display: none`); `SettingsChanged` tells its screen to redraw (the
status shows the delay and the autosave)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.widget import Widget

from ael_lab import AELError

from ael_tui.widgets.dialogs import CompareSetupScreen, ConfirmScreen, PromptScreen, SettingsAnswer, SettingsScreen
from ael_tui.widgets.export_answer import export_answer
from ael_tui.widgets.opening import selectors_of
from ael_tui.lab.session_host import SessionHost

if TYPE_CHECKING:
    from ael_tui.compare.lockstep import CompareHost


class Files(Widget):
    DEFAULT_CSS = "Files { display: none; }"

    class SettingsChanged(Message):
        """The autosave or the delay changed: the status shows them."""

    def __init__(self, host: SessionHost, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.host = host
        self._compare: CompareHost | None = None  # the last comparison, reopened as it was if the same is asked

    # --------------------------------------------------------------- compare
    def compare(self) -> None:
        """Ask which selectors to run beside this one (the run pauses), then open the comparison."""
        from ael_tui.compare.compare_screen import CompareScreen  # the compare view: loaded when opened
        from ael_tui.compare.lockstep import default_selectors

        self.host.pause()
        config = self.host.read(lambda s: s.config)
        available = selectors_of(config.scenario)
        previous = self._compare
        same_world = previous is not None and previous.lead.config.seed == config.seed and \
            previous.lead.config.scenario == config.scenario
        chosen = previous.names if same_world else default_selectors(available)
        note = "They run offline: this session's LLM settings are not used." if config.llm else ""

        def picked(selectors: list[str] | None) -> None:
            if not selectors:
                return
            if same_world and previous is not None and selectors == previous.names:
                self.app.push_screen(CompareScreen(previous))
                return
            self.notify(f"Building {', '.join(selectors)} on {config.scenario}, seed {config.seed}…", timeout=2)
            self._build_compare(config, selectors)

        self.app.push_screen(CompareSetupScreen(config.scenario, config.seed, available, chosen, note=note), picked)

    @work(thread=True, exclusive=True, group="compare-build", exit_on_error=False)
    def _build_compare(self, config, selectors: list[str]) -> None:
        from ael_tui.compare.lockstep import CompareHost, build_compare

        try:
            host = CompareHost(build_compare(config, selectors), self.host.settings)
        except AELError as err:
            self.app.call_from_thread(self.notify, str(err), severity="error", title="Cannot compare")
            return
        self.app.call_from_thread(self.open_compare, host)

    def open_compare(self, host: CompareHost) -> None:
        from ael_tui.compare.compare_screen import CompareScreen

        self._compare = host
        self.app.push_screen(CompareScreen(host))

    # ---------------------------------------------------------------- export
    def screenshot_name(self) -> str:
        return f"lab-{self.host.session_name()}-e{self.host.read(lambda s: s.t)}"

    def export(self) -> None:
        """Ask where, then write the history as NAME.csv and NAME.json (`export_to`)."""
        exports = self.host.settings.exports_dir
        default = exports / f"{self.host.session_name()}-e{self.host.read(lambda s: s.t)}-history"
        self.app.push_screen(
            PromptScreen("Export the history as", value=str(default), placeholder=f"{exports}/name", ok="Export",
                         hint=f"Writes NAME.csv (one row per episode) and NAME.json (with reflections, new arms "
                              f"and decisions); the folder must exist ({exports}/ is created).",
                         input_id="export-path", required="a path"),
            self.export_to)

    def export_to(self, text: str | None) -> None:
        """Write NAME.csv and NAME.json for the answer of the export prompt (None: cancelled)."""
        export_answer(self, self.host, lambda: {self.host.session.config.selector: self.host.session}, text)

    # ------------------------------------------------------------- sessions
    def open_settings(self) -> None:
        """The autosave interval and the delay between episodes, in a dialog."""
        st = self.host.settings

        def done(answer: SettingsAnswer | None) -> None:
            if answer is not None:
                st.autosave_every, st.delay = answer.autosave_every, answer.delay
                self.post_message(self.SettingsChanged())

        self.app.push_screen(SettingsScreen(st.autosave_every, st.delay, str(self.host.autosave_path())), done)

    def save(self) -> None:
        """Ask where (asking again before overwriting a file), then `write`."""
        default = str(self.host.read(lambda s: self.host.default_save_path()))
        self.app.push_screen(
            PromptScreen("Save the session as", value=default, placeholder="saves/name.json", ok="Save",
                         hint="A JSON file; written atomically (the old file stays whole if anything fails).",
                         input_id="save-path", required="a path"),
            self._save_named)

    def _save_named(self, text: str | None) -> None:
        if not text or not text.strip():
            return
        try:
            path = self.host.settings.place(Path(text.strip()).expanduser(), "save")
        except AELError as err:  # before `exists`: a served lab tells nothing about other folders
            self.notify(str(err), severity="error", title="Not saved")
            return
        if path.exists():
            def confirmed(yes: bool | None) -> None:
                if yes:
                    self.write(path)

            self.app.push_screen(ConfirmScreen(f"{path} exists. Overwrite it?", yes="Overwrite", no="Keep it"),
                                 confirmed)
        else:
            self.write(path)

    def write(self, path: Path) -> None:
        """Save the session to `path` (placed by the settings: a served lab, in its folder)."""
        try:
            self.host.save(path)
        except AELError as err:
            self.notify(str(err), severity="error", title="Not saved")
            return
        self.notify(f"Saved episode {self.host.read(lambda s: s.t)} to {path}", title="Saved")

    def load(self) -> None:
        self.host.pause()

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.app.open_saved_session(path)

        from ael_tui.files.load_dialog import LoadScreen  # the files/ folder's dialog, imported where it opens

        self.app.push_screen(LoadScreen(self.host.settings.saves_dir), chosen)

    def new_session(self) -> None:
        self.host.pause()
        self.app.show_start(self.host.read(lambda s: s.config))
