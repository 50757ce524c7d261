"""The review of a code policy that came from a file: its source and SHA-256, then
admit (y) / reject (n) / later (Esc).

A save can be shared, so code in it is as untrusted as a model's reply: the
lab quarantines every code arm of a loaded session, and nothing steps until a
person has looked at each one here. The hash is what the audit log records,
so the person can tell later exactly which text they admitted.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from ael_lab.review import PolicySpec
from ael_lab.text import shown, shown_lines

from ael_tui.actions import bindings_for
from ael_tui.widgets.button_rows import ButtonRows


@dataclass(frozen=True)
class MethodCode:
    """Code a method runs (HyperAgent's approved allocator), reviewed like a code policy."""
    name: str
    code: str
    description: str = ""
    what: str = "Allocation code"
    tiers: tuple[str, ...] = ()
    k: int = 0
    fallback: str = ""


class CodeReviewScreen(ModalScreen[str | None]):
    """Returns "admit", "reject", or None (later)."""

    BINDINGS = bindings_for("code_review")

    def __init__(self, spec: PolicySpec, sha256: str, remaining: int = 1) -> None:
        super().__init__(classes="dialog-screen")
        self.spec, self.sha256, self.remaining = spec, sha256, remaining

    def compose(self) -> ComposeResult:
        from rich.syntax import Syntax  # pygments: loaded when a review opens, not with the lab

        spec = self.spec
        what = getattr(spec, "what", "Code policy")
        with Vertical(id="code-review", classes="dialog big-dialog") as box:
            # the file's words (its name, description, code): plain text, a control shown where it sits
            box.border_title = Text(f"{what} {shown(spec.name)!r} from a saved file: quarantined")
            if self.remaining > 1:
                box.border_subtitle = f"{self.remaining} code policies to review"
            with VerticalScroll(id="code-review-body"):
                yield Static(Text.assemble(
                    "This session was loaded from a file, which anyone could have written. Its arm is not "
                    "sampled, and stepping waits, until you admit or reject the code below. Admitted code "
                    "runs only in a sandboxed worker process.\n",
                    ("SHA-256 ", "bold"), (self.sha256, "cyan")), id="code-review-why")
                if spec.tiers:
                    reads = shown(", ".join(spec.tiers))
                    yield Static(Text.assemble(("Reads ", "bold"), reads, f" · keeps at most {spec.k or 'all'}",
                                               f" · falls back to {shown(spec.fallback)}" if spec.fallback else "",
                                               f"\n{shown_lines(spec.description)}" if spec.description else ""))
                elif spec.description:
                    yield Static(Text(shown_lines(spec.description)))
                yield Static(Syntax(shown_lines(spec.code or ""), "python", line_numbers=True, word_wrap=True),
                             id="code-review-source")
            with ButtonRows(classes="dialog-buttons"):
                yield Button("Admit (y)", id="admit", variant="success", compact=True)
                yield Button("Reject (n)", id="reject", variant="error", compact=True)
                yield Button("Later (esc)", id="later", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#later", Button).focus()  # the safe default: nothing changes

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "later" else event.button.id)

    def action_admit(self) -> None:
        self.dismiss("admit")

    def action_reject(self) -> None:
        self.dismiss("reject")

    def action_later(self) -> None:
        self.dismiss(None)
