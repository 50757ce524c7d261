"""A scrollbar that repaints only when what it draws changes.

Textual repaints a scrollbar whenever its position or its content's length
changes. The episode log and the memory table grow by a row each step, and
the log scrolls by one: their thumbs move by a fraction of an eighth of a
cell, so most steps draw the same bar, and repainting the log's bar was a
tenth of a step's frame. `SteadyScrollBar` keeps what it last drew (the
bar's cells and style, from Textual's own renderer) and lets a refresh
through only when that would differ; a widget uses it by mixing in
`SteadyScrollbars`, and holds it (`held`) while it changes several things.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, Self

from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender

from ael_tui.compat import vertical_scrollbar


class SteadyScrollBar(ScrollBar):
    _drawn: Any = None   # (style, length, the bar's segments) of the last render
    _held = False        # inside `held()`: a repaint asked for waits for its end
    _asked = False

    @contextmanager
    def held(self) -> Iterator[None]:
        """Several changes as one: a new length, then the scroll that follows it, ask for
        one repaint at the end, judged on the bar they leave (between them the thumb
        stands elsewhere for a moment, and that moment was a repaint)."""
        self._held, self._asked = True, False
        try:
            yield
        finally:
            self._held = False
            if self._asked:
                self.refresh()

    def _picture(self, bar: object) -> Any:
        if not isinstance(bar, ScrollBarRender):
            return None  # (a bar drawn otherwise: always repainted)
        # (as the bar is drawn into its region: its length, and its width as the thickness, without
        # which the eighth-of-a-cell glyphs at the thumb's ends are empty and their moves unseen)
        length, across = (self.size.height, self.size.width) if self.vertical else (self.size.width, self.size.height)
        cells = ScrollBarRender.render_bar(length, bar.virtual_size, bar.window_size, bar.position, across,
                                           bar.vertical)
        return bar.style, length, list(cells.segments)

    def render(self):
        bar = super().render()
        self._drawn = self._picture(bar)
        return bar

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn = None

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        if repaint and not regions and not layout and not recompose:
            if self._held:
                self._asked = True
                return self
            if self._drawn is not None and self.parent is not None and \
                    self._picture(super().render()) == self._drawn:
                return self  # the same bar: nothing to repaint
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


class SteadyScrollbars:
    """Mixed into a scrolling widget: its vertical scrollbar is a `SteadyScrollBar` (the
    property as Textual's own, which creates the bar on first use, in Textual's own slot:
    ael_tui/compat.py)."""

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return vertical_scrollbar(self, lambda: SteadyScrollBar(  # type: ignore[arg-type]
            vertical=True, name="vertical", thickness=self.scrollbar_size_vertical))  # type: ignore[attr-defined]
