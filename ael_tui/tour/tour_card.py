"""The guided tour's card: one key moment explained, over the lab, which stays in view.

t closes the card and runs to the next moment; Escape closes it (t in the lab
carries on later). Returns "next" or "close".
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Static

from engine.shown_text import shown_lines

from ael_tui.actions import bindings_for
from ael_tui.tour.guide import MOMENTS, Card


class TourCardScreen(ModalScreen[str]):
    BINDINGS = bindings_for("tour")

    def __init__(self, card: Card, number: int, remaining: int, waits: bool = False) -> None:
        # a class, not an id: the card just closed is still being removed when the next one is
        # pushed, and two screens with one id end the app (DuplicateIds)
        super().__init__(classes="tour-screen")
        self.card, self.number, self.remaining = card, number, remaining
        self.waits = waits  # a proposal waits for a decision: t opens it, and the tour stops until it is decided

    def compose(self) -> ComposeResult:
        with Vertical(id="tour-card") as box:
            box.border_title = f"Tour {self.number}/{len(MOMENTS)} · {self.card.title}"
            key = self.app.key_for
            text = Text(shown_lines(self.card.text))  # it names regimes and policies the data and a model named
            if self.waits:
                text.append(f"\n\nA proposal waits for your decision: decide to go on ({key('tour.next')} opens it; "
                            "the tour runs on once it is decided).", style="bold")
            yield Static(text, id="tour-text")
            if self.waits:
                nxt = f"{key('tour.next')}: decide the proposal"
            else:
                nxt = f"{key('tour.next')}: " + ("run to the next moment" if self.remaining else "end of the tour")
            box.border_subtitle = nxt + f" · {key('tour.close')}: close"

    def note(self, text: str) -> None:
        """A line at the top of the card, for what would otherwise be a notification held
        until the card closes (the teacher moving the class here, say)."""
        try:
            self.query_one("#tour-note", Static).update(text)
        except NoMatches:
            self.query_one("#tour-card").mount(Static(text, id="tour-note", markup=False), before=0)

    def action_next(self) -> None:
        self.dismiss("next")

    def action_close(self) -> None:
        self.dismiss("close")
