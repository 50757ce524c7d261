"""The proposal editor: the JSON in a TextArea, validated on every change by the
session's own validator, with a diff against the proposal and the normalised
object that would be used. Accept is refused while the edit is invalid."""

from __future__ import annotations

import json
from typing import Any, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Static, TextArea

from ael_lab import AELError
from ael_lab.review import Proposal
from ael_lab.text import shown, shown_lines

from ael_tui.actions import bindings_for
from ael_tui.widgets.button_rows import ButtonRows
from ael_tui.widgets.proposal_diff import diff_text, pretty


class EditProposalScreen(ModalScreen[tuple[dict[str, Any], str] | None]):
    """Returns (normalised object, reason) on accept, None on Back."""

    BINDINGS = bindings_for("editor")

    def __init__(self, proposal: Proposal, validate: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        super().__init__(classes="dialog-screen")
        self.proposal = proposal
        self.validate = validate
        self.original = pretty(proposal.payload)
        self.normalised: dict[str, Any] | None = None
        self.problem: str = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="editor", classes="dialog big-dialog") as box:
            box.border_title = f"Edit proposal #{self.proposal.id} ({self.proposal.kind})"
            with Horizontal(id="editor-panes"):
                with Vertical(id="editor-left"):
                    yield Label("JSON (validated as you type)")
                    # tab_behavior "focus": Tab goes on to the reason field (an indent typed there put the
                    # reason into the JSON) and the first Escape leaves the editor, as the footer says
                    yield TextArea(self.original, id="editor-text", show_line_numbers=True,
                                   tab_behavior="focus", soft_wrap=False)
                    yield Input(placeholder="reason for the edit (optional; Tab from the JSON, Enter accepts)",
                                id="editor-reason")
                with VerticalScroll(id="editor-right"):
                    yield Static("", id="editor-status")
                    yield Label("Will be used", classes="section-label")
                    yield Static("", id="editor-normalised", markup=False)
                    yield Label("Diff against the proposal", classes="section-label")
                    yield Static("", id="editor-diff")
            with ButtonRows(classes="dialog-buttons"):
                key = self.app.key_for
                yield Button(f"Accept edit ({key('editor.accept')})", id="accept", variant="success", compact=True)
                yield Button(f"Reset ({key('editor.reset')})", id="reset", compact=True)
                yield Button(f"Back ({key('editor.cancel')})", id="cancel", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#editor-text", TextArea).focus()
        self._check(self.original)

    def _check(self, text: str) -> None:
        status = self.query_one("#editor-status", Static)
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as err:
            self.normalised, self.problem = None, f"not valid JSON: {err.msg} at line {err.lineno}, column {err.colno}"
            edited_pretty = text
        else:
            edited_pretty = pretty(obj)
            try:
                if not isinstance(obj, dict):
                    raise AELError("expected a JSON object")
                self.normalised, self.problem = self.validate(obj), ""
            except AELError as err:
                self.normalised, self.problem = None, str(err)
        if self.normalised is not None:
            status.update(Text("✓ valid: accept uses the object below", style="bold green"))
            self.query_one("#editor-normalised", Static).update(shown_lines(pretty(self.normalised)))
        else:
            status.update(Text.assemble(("✗ invalid: ", "bold red"), (self.problem, "red")))
            self.query_one("#editor-normalised", Static).update(Text("nothing (the edit is invalid)", style="dim"))
        self.query_one("#editor-diff", Static).update(diff_text(self.original, edited_pretty))
        self.query_one("#accept", Button).disabled = self.normalised is None
        status.set_class(self.normalised is None, "-invalid")

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._check(event.text_area.text)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.run_action(event.button.id or "cancel")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_accept()

    def action_accept(self) -> None:
        if self.normalised is None:
            # the status line above says why (a notification waits until a dialog closes: AelLab)
            self.query_one("#editor-status", Static).update(
                Text.assemble(("✗ edit refused: ", "bold red"), (self.problem or "", "red")))
            self.app.bell()
            return
        reason = self.query_one("#editor-reason", Input).value.strip()
        self.dismiss((self.normalised, reason))

    def action_reset(self) -> None:
        self.query_one("#editor-text", TextArea).load_text(self.original)

    def action_cancel(self) -> None:
        self.dismiss(None)
