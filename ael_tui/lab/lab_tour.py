"""The lab's guided tour (t): run to the next key moment the session's events show
(`TourGuide`), and explain it on a card over the panel it is about."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ael_tui.tour.guide import TourGuide
from ael_tui.tour.tour_card import TourCardScreen

if TYPE_CHECKING:
    from ael_tui.lab.session_host import SessionHost


class LabTour:
    """Mixed into the lab screen (`host`, `compact`, `show_page`, `redraw`, `_start`,
    and the decisions mixin's `action_decide`)."""

    host: SessionHost

    def action_tour(self) -> None:
        """Show the next noticed moment, else decide what is pending, else run to the next moment."""
        host = self.host
        if host.tour is None:
            host.tour = host.read(lambda s: TourGuide(s, key_for=self.app.key_for))
        tour = host.tour
        if tour.cards:
            self._show_card()
            return
        pending, done = host.read(lambda s: (bool(s.queue.pending), s.done))
        if pending:
            self.action_decide()
            return
        if tour.finished or not tour.remaining:
            host.tour = None
            self.notify(f"That was every moment of the tour; {self.app.key_for('lab.tour')} starts it again "
                        "from here.", title="Tour over")
            return
        if done:
            self.notify("The run is finished: no moment left to run to.", title="Tour")
            return
        self.runs.start("tour")

    def _show_card(self) -> None:
        tour = self.host.tour
        if tour is None or any(isinstance(s, TourCardScreen) for s in self.app.screen_stack):
            return
        card = tour.next_card()
        if card is None:
            return
        if self.compact:
            self.show_page(card.panel)
        self.redraw(force=True)
        remaining = len(tour.remaining) + len(tour.cards)
        number = tour.shown  # cards shown so far, this one included: moments come in any order
        waits = self.host.read(lambda s: bool(s.queue.pending))  # t on the card opens it

        def closed(answer: str | None) -> None:
            if answer == "next":
                self.action_tour()

        self.app.push_screen(TourCardScreen(card, number, remaining, waits=waits), closed)
