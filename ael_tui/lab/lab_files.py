"""The lab's ways out of the session and back: compare it with other selectors, export
its history, save, load, start anew, and the settings (autosave, delay)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import work

from engine.errors import AELError

from ael_tui.compare.compare_screen import CompareScreen
from ael_tui.compare.lockstep import CompareHost, build_compare, default_selectors
from ael_tui.dialogs import CompareSetupScreen, ConfirmScreen, PromptScreen, SettingsAnswer, SettingsScreen
from ael_tui.files.export_answer import export_answer
from ael_tui.files.load_dialog import LoadScreen
from ael_tui.files.opening import selectors_of

if TYPE_CHECKING:
    from ael_tui.lab.session_host import SessionHost


class LabFiles:
    """Mixed into the lab screen (`host`, `redraw`, and RunControls' `_export_to`)."""

    host: SessionHost
    _compare: CompareHost | None = None  # the last comparison, reopened as it was if the same is asked

    # --------------------------------------------------------------- compare
    def action_compare(self) -> None:
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
        try:
            host = CompareHost(build_compare(config, selectors), self.host.settings)
        except AELError as err:
            self.app.call_from_thread(self.notify, str(err), severity="error", title="Cannot compare")
            return
        self.app.call_from_thread(self.open_compare, host)

    def open_compare(self, host: CompareHost) -> None:
        self._compare = host
        self.app.push_screen(CompareScreen(host))

    # ---------------------------------------------------------------- export
    def screenshot_name(self) -> str:
        return f"lab-{self.host.session_name()}-e{self.host.read(lambda s: s.t)}"

    def action_export(self) -> None:
        exports = self.host.settings.exports_dir
        default = exports / f"{self.host.session_name()}-e{self.host.read(lambda s: s.t)}-history"
        self.app.push_screen(
            PromptScreen("Export the history as", value=str(default), placeholder=f"{exports}/name", ok="Export",
                         hint=f"Writes NAME.csv (one row per episode) and NAME.json (with reflections, new arms "
                              f"and decisions); the folder must exist ({exports}/ is created).",
                         input_id="export-path", required="a path"),
            self._export_to)

    def _export_to(self, text: str | None) -> None:
        """Write NAME.csv and NAME.json for the answer of the export prompt (None: cancelled)."""
        export_answer(self, self.host, lambda: {self.host.session.config.selector: self.host.session}, text)

    # ------------------------------------------------------------- sessions
    def action_settings(self) -> None:
        st = self.host.settings

        def done(answer: SettingsAnswer | None) -> None:
            if answer is not None:
                st.autosave_every, st.delay = answer.autosave_every, answer.delay
                self.redraw()

        self.app.push_screen(SettingsScreen(st.autosave_every, st.delay, str(self.host.autosave_path())), done)

    def action_save(self) -> None:
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
                    self._write(path)

            self.app.push_screen(ConfirmScreen(f"{path} exists. Overwrite it?", yes="Overwrite", no="Keep it"),
                                 confirmed)
        else:
            self._write(path)

    def _write(self, path: Path) -> None:
        try:
            self.host.save(path)
        except AELError as err:
            self.notify(str(err), severity="error", title="Not saved")
            return
        self.notify(f"Saved episode {self.host.read(lambda s: s.t)} to {path}", title="Saved")

    def action_load(self) -> None:
        self.host.pause()

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.app.open_saved_session(path)

        self.app.push_screen(LoadScreen(self.host.settings.saves_dir), chosen)

    def action_new_session(self) -> None:
        self.host.pause()
        self.app.show_start(self.host.read(lambda s: s.config))
