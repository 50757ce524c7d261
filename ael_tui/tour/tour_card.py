"""The guided tour's card: one key moment explained, over the lab, which stays in view.

t closes the card and runs to the next moment; Escape closes it (t in the lab
carries on later); space, w and r close it and run as the lab's keys do. Any other
key says on the card what to press: no key on a card is silent. Returns "next",
"close" or "run:MODE" (step, window, reflection).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual import events
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Static

from ael_lab.text import shown_lines

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

    def keys_line(self) -> str:
        """What a card takes, for a key it does not."""
        key = self.app.key_for
        nxt = "decide the proposal" if self.waits else "the next moment"
        return (f"On this card: {key('tour.next')} {nxt} · {key('tour.close')} close · {key('tour.step')}, "
                f"{key('tour.window')} or {key('tour.reflection')} close it and run (step, window, reflection)")

    def on_key(self, event: events.Key) -> None:
        """A key the card does not take: the card says what to press instead of doing nothing.
        (A key event reaches the screen before the bindings are looked up, so a bound key,
        the card's or the app's, is left to its binding.)"""
        if event.key in self.active_bindings or not (event.is_printable or event.key == "enter"):
            return
        event.stop()
        self.note(self.keys_line())

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

    def action_run(self, mode: str) -> None:
        self.dismiss(f"run:{mode}")
