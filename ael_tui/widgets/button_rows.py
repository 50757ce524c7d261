"""A dialog's buttons on as few rows as they fit: one row when the dialog is wide enough,
else two or more (the labels stay whole: "Always approve insights (A)" is not shortened to
a word that no longer says what it does)."""

from __future__ import annotations

from textual.containers import Container
from textual.widgets import Button

GAP = 2  # columns between two buttons


class ButtonRows(Container):
    """Buttons in a grid whose column count is the most that fit the width, centred."""

    DEFAULT_CSS = """
    ButtonRows {
        layout: grid;
        grid-columns: auto;
        grid-rows: 1;
        grid-gutter: 0 2;
        height: auto;
        width: 100%;
        margin-top: 1;
        align-horizontal: center;
    }
    ButtonRows Button { margin: 0; min-width: 0; width: auto; }
    """

    def on_mount(self) -> None:
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        buttons = list(self.query_children(Button))
        if not buttons:
            return
        width = self.size.width or self.app.size.width
        widths = [b.get_content_width(self.size, self.app.size) + b.styles.gutter.width + b.styles.margin.width
                  for b in buttons]
        columns = columns_that_fit(widths, width)
        if self.styles.grid_size_columns != columns:
            self.styles.grid_size_columns = columns


def columns_that_fit(widths: list[int], width: int, gap: int = GAP) -> int:
    """The most columns (at most one per button) whose rows, each column as wide as its
    widest button, fit `width`."""
    for n in range(len(widths), 1, -1):
        cols = [max(widths[i::n]) for i in range(n)]
        if sum(cols) + gap * (n - 1) <= width:
            return n
    return 1
