"""Small dialogs: a yes/no confirmation, a one-line prompt, the run settings, the compare setup."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, SelectionList, Static

from ael_tui.actions import bindings_for
from ael_tui.widgets.tick_list import TickList


class ConfirmScreen(ModalScreen[bool]):
    """Yes (y) / No (n, Escape); No is focused, being the safe answer."""

    BINDINGS = bindings_for("confirm")

    def __init__(self, question: str, yes: str = "Yes", no: str = "No", classes: str = "") -> None:
        super().__init__(classes=f"dialog-screen {classes}".strip())
        self.question = question
        self.yes, self.no = yes, no

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small-dialog"):
            yield Static(self.question, classes="dialog-text", markup=False)
            with Horizontal(classes="dialog-buttons"):
                key = self.app.key_for
                yield Button(f"{self.yes} ({key('confirm.yes')})", id="yes", variant="warning", compact=True)
                yield Button(f"{self.no} ({key('confirm.no')})", id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class PromptScreen(ModalScreen[str | None]):
    """One line of text: Enter returns it, Escape returns None. The text is not selected when
    the field gets focus (the cursor is at its end), so a first key edits a given path instead
    of replacing it, unless `select`: the text is selected, so typing replaces it (a filter a
    person types anew) and an arrow key keeps it to edit; `required`: an empty answer is
    refused in the dialog, not returned."""

    BINDINGS = bindings_for("prompt")

    def __init__(self, title: str, value: str = "", placeholder: str = "", hint: str = "",
                 ok: str = "OK", input_id: str = "prompt-input", required: str = "", select: bool = False) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text, self.value, self.placeholder, self.hint, self.ok = title, value, placeholder, hint, ok
        self.input_id = input_id
        self.required = required  # what to type, said when the field is emptied ("a path")
        self.select = select

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small-dialog"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            yield Input(self.value, placeholder=self.placeholder, id=self.input_id, select_on_focus=False)
            if self.hint:
                yield Static(self.hint, classes="dialog-hint", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.ok} (enter)", id="ok", variant="primary", compact=True)
                yield Button(f"Cancel ({self.app.key_for('prompt.cancel')})", id="cancel", compact=True)

    def on_mount(self) -> None:
        field = self.query_one(Input)
        field.focus()
        if self.select:
            field.select_all()
        else:
            field.cursor_position = len(field.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._answer(event.value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self._answer(self.query_one(Input).value)
        else:
            self.dismiss(None)

    def _answer(self, text: str) -> None:
        if self.required and not text.strip():
            if not self.query("#prompt-error"):
                message = f"Empty: type {self.required}, or {self.app.key_for('prompt.cancel')} to cancel."
                self.query_one(".dialog", Vertical).mount(
                    Static(message, id="prompt-error", classes="error-text", markup=False), after=self.query_one(Input))
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)


@dataclass
class SettingsAnswer:
    autosave_every: int
    delay: float


class SettingsScreen(ModalScreen[SettingsAnswer | None]):
    """Autosave every N episodes (0 = off) and the delay between episodes."""

    BINDINGS = bindings_for("settings")

    def __init__(self, autosave_every: int, delay: float, autosave_path: str) -> None:
        super().__init__(classes="dialog-screen")
        self.autosave_every, self.delay, self.autosave_path = autosave_every, delay, autosave_path

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small-dialog"):
            yield Label("Options", classes="dialog-title")
            yield Label("Autosave every N episodes (0 = off)")
            yield Input(str(self.autosave_every), type="integer", id="autosave-every")
            yield Static(f"to {self.autosave_path}", classes="dialog-hint", markup=False)
            yield Label("Delay between episodes while running (seconds)")
            yield Input(f"{self.delay:g}", type="number", id="delay")
            yield Static("", id="settings-error", classes="error-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Apply (enter)", id="ok", variant="primary", compact=True)
                yield Button(f"Cancel ({self.app.key_for('settings.cancel')})", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#autosave-every", Input).focus()

    def _answer(self) -> None:
        try:
            every = int(self.query_one("#autosave-every", Input).value or 0)
            delay = float(self.query_one("#delay", Input).value or 0)
            if every < 0 or not 0 <= delay <= 10:
                raise ValueError
        except ValueError:
            self.query_one("#settings-error", Static).update(
                "Autosave needs a whole number ≥ 0 and the delay a number of seconds from 0 to 10.")
            return
        self.dismiss(SettingsAnswer(every, delay))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._answer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self._answer()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class CompareSetupScreen(ModalScreen[list[str] | None]):
    """Which selectors to run side by side: a ticked list (space or enter ticks),
    then Compare (c, the key that opened it, or the button). Between 2 and `limit`."""

    BINDINGS = bindings_for("compare_setup")

    def __init__(self, scenario: str, seed: int, available: list[str], chosen: list[str], limit: int = 5,
                 note: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.scenario, self.seed = scenario, seed
        self.available, self.chosen, self.limit, self.note = available, chosen, limit, note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small-dialog", id="compare-setup"):
            yield Label(f"Compare selectors on {self.scenario}, seed {self.seed}", classes="dialog-title",
                        markup=False)
            yield TickList[str](*((s, s, s in self.chosen) for s in self.available), id="compare-selectors")
            yield Static(f"Each runs the same stream from episode 0, in lockstep; proposals are approved "
                         f"automatically. Tick 2 to {self.limit}.{' ' + self.note if self.note else ''}",
                         classes="dialog-hint", markup=False)
            yield Static("", id="compare-setup-error", classes="error-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"Compare ({self.app.key_for('compare_setup.go')})", id="ok", variant="primary",
                             compact=True)
                yield Button(f"Cancel ({self.app.key_for('compare_setup.cancel')})", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one(SelectionList).focus()

    def action_go(self) -> None:
        picked = [s for s in self.available if s in self.query_one(SelectionList).selected]
        if not 2 <= len(picked) <= self.limit:
            self.query_one("#compare-setup-error", Static).update(
                f"Tick between 2 and {self.limit} selectors ({len(picked)} ticked).")
            return
        self.dismiss(picked)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self.action_go()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
