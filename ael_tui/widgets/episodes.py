"""The episode log: what happened in each episode, newest at the bottom."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import DataTable

COLUMNS = (("ep", "ep"), ("phase", "phase"), ("policy", "policy"), ("action", "action"),
           ("outcome", "outcome"), ("reward", "reward"))


def _cells(r: dict[str, Any]) -> list:
    correct = r.get("correct")
    style = "green" if correct else ("red" if correct is False else "")
    return [Text(str(r["episode"]), justify="right"), Text(str(r.get("phase", ""))),
            Text(str(r.get("policy", "")), style="bold"), Text(str(r.get("action", ""))),
            Text(str(r.get("result", "")), style=style), Text(f"{float(r.get('reward', 0.0)):.2f}", justify="right")]


class EpisodeLog(DataTable):
    """Appends only the new records; follows the end unless the cursor was moved up."""

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        for label, key in COLUMNS:
            self.add_column(label, key=key)

    def show(self, history: list[dict[str, Any]]) -> None:
        n = self.row_count
        if n > len(history) or (n and str(self.get_row_at(n - 1)[0]).strip() != str(history[n - 1]["episode"])):
            self.clear()
            n = 0
        if n == len(history):
            return
        follow = n == 0 or self.cursor_row >= n - 1
        for r in history[n:]:
            self.add_row(*_cells(r), key=str(r["episode"]))
        if follow:
            self.move_cursor(row=self.row_count - 1, animate=False)
