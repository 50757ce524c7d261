"""`Tour`: the lab's guided tour (t) as one object. It runs to the next key moment the
session's events show (`TourGuide`, kept on the host, which feeds it every step) and
explains it on a card over the panel it is about.

It draws nothing (`display: none`) and asks its screen by messages for what is not its
own: `CardDue` (bring the card's panel into view, then `open_card`), `DecisionFirst` (a
proposal waits: open it), `RunToMoment` (run in the mode "tour")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message
from textual.widget import Widget

from ael_tui.lab.session_host import SessionHost
if TYPE_CHECKING:
    from ael_tui.tour.tour_card import TourCardScreen


class Tour(Widget):
    DEFAULT_CSS = "Tour { display: none; }"

    class CardDue(Message):
        """A card is ready for `panel` (a page of the compact lab): show that, then `open_card`."""

        def __init__(self, panel: str) -> None:
            super().__init__()
            self.panel = panel

    class DecisionFirst(Message):
        """A proposal is pending: the tour goes on once it is decided."""

    class RunToMoment(Message):
        """Run to the next moment of the tour (the run mode "tour")."""

    class RunAsked(Message):
        """A run key pressed on a card (space, w, r): the card closed, run as the lab's key does."""

        def __init__(self, mode: str) -> None:
            super().__init__()
            self.mode = mode

    def __init__(self, host: SessionHost, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.host = host
        self._due: TourCardScreen | None = None  # the card taken from the guide, until it is open

    @property
    def has_cards(self) -> bool:
        """Moments noticed and not shown yet (a run that stops shows them first)."""
        return self.host.tour is not None and bool(self.host.tour.cards)

    def advance(self) -> None:
        """Show the next noticed moment, else decide what is pending, else run to the next moment."""
        host = self.host
        if host.tour is None:
            from ael_tui.tour.guide import TourGuide  # the tour/ folder's guide, made when a tour starts

            host.tour = host.read(lambda s: TourGuide(s, key_for=self.app.key_for))
        tour = host.tour
        if tour.cards:
            self.show_card()
            return
        pending, done = host.read(lambda s: (bool(s.queue.pending), s.done))
        if pending:
            self.post_message(self.DecisionFirst())
            return
        if tour.finished or not tour.remaining:
            host.tour = None
            self.notify(f"That was every moment of the tour; {self.app.key_for('lab.tour')} starts it again "
                        "from here.", title="Tour over")
            return
        if done:
            self.notify("The run is finished: no moment left to run to.", title="Tour")
            return
        self.post_message(self.RunToMoment())

    def show_card(self) -> None:
        """Take the next noticed moment's card (one at a time) and ask for its panel."""
        from ael_tui.tour.tour_card import TourCardScreen  # the tour/ folder's card, imported where it opens

        tour = self.host.tour
        if tour is None or self._due is not None or any(isinstance(s, TourCardScreen) for s in self.app.screen_stack):
            return
        card = tour.next_card()
        if card is None:
            return
        remaining = len(tour.remaining) + len(tour.cards)
        number = tour.shown  # cards shown so far, this one included: moments come in any order
        waits = self.host.read(lambda s: bool(s.queue.pending))  # t on the card opens it
        self._due = TourCardScreen(card, number, remaining, waits=waits)
        self.post_message(self.CardDue(card.panel))

    def open_card(self) -> None:
        """The card taken by `show_card`, over the lab (its panel in view by now)."""
        screen, self._due = self._due, None
        if screen is None:
            return

        def closed(answer: str | None) -> None:
            if answer == "next":
                self.advance()
            elif answer is not None and answer.startswith("run:"):
                self.post_message(self.RunAsked(answer.removeprefix("run:")))

        self.app.push_screen(screen, closed)
