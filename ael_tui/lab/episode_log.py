"""The episode log: what happened in each episode, newest at the bottom."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from textual.binding import Binding
from textual.message import Message

from ael_lab import AELError

from ael_tui.lab.episode_filter import EpisodeFilter, Inputs
from ael_tui.lab.episode_filter import parse as parse_filter
from ael_tui.widgets.dialogs import PromptScreen
from ael_tui.widgets.row_list import PLAIN, RowList, cut_keeping_tail

GREEN, RED, BOLD = Style(color="green"), Style(color="red"), Style(bold=True)
FALLBACK = Style(color="yellow", bold=True)  # an LLM call answered offline


def no_match(filt: EpisodeFilter, history: list[dict[str, Any]]) -> str:
    """What an empty result says: nothing matches, and the names the filter's fields can take here."""
    parts = [f"No episode matches {filt.text.strip()}."]
    for key in ("policy", "phase", "regime"):
        names = sorted({str(r.get(key)) for r in history if r.get(key) not in (None, "")})
        if names and (key in filt.equals or key == "policy"):
            parts.append(f"{key}= is one of: {', '.join(names[:12])}{' …' if len(names) > 12 else ''}.")
    return " ".join(parts)


class EpisodeLog(RowList):
    """Follows the newest episode unless the cursor was moved up; Enter opens the highlighted
    episode in full (long actions and outcomes are cut in the table)."""

    # in the footer while the log has the focus: they are its own keys, and nothing else says so
    BINDINGS = [*RowList.BINDINGS, Binding("enter", "open", "Open episode"),
                Binding("slash", "filter", "Filter episodes", key_display="/")]

    filter: EpisodeFilter = EpisodeFilter()
    inputs: Inputs | None = None  # each episode's input text, for words the filter looks for (the screen sets it)
    _history: list[dict[str, Any]] = []

    def action_filter(self) -> None:
        """/ on the log: which episodes to show (episode_filter.py says what it reads)."""
        self.app.push_screen(
            PromptScreen("Show the episodes where", value=self.filter.text, placeholder="e.g. ✗ policy=compressed regime=3",
                         ok="Filter", input_id="episode-filter", select=True,
                         hint="✗ or wrong, ✓ or right; policy=NAME, phase=train|val|test, regime=N; #N from "
                              "episode N on; text:WORD in the input (the ticket, the article, the bar); other "
                              "words in the action, outcome or input; \"a phrase\" in quotes. Empty shows all."),
            self._filter_answered)

    def _filter_answered(self, text: str | None) -> None:
        if text is None:
            return
        try:
            filt = parse_filter(text)
        except AELError as err:
            self.app.notify(str(err), severity="error", title="Not a filter")
            return
        self.set_filter(filt)

    def set_filter(self, filt: EpisodeFilter) -> None:
        """Show only the episodes `filt` keeps (all with an empty one), the cursor on the first."""
        self.filter = filt
        history, self._history = self._history, []
        self.rows = []
        self.show(history)
        self.border_subtitle = f"filter: {filt.text.strip()} · {len(self.rows)} of {len(history)}" if filt else ""
        if filt and history and not self.rows:
            self.app.notify(no_match(filt, history), title="No episode matches", severity="warning", timeout=10)
        if filt and filt.start is not None:  # #N: the cursor on episode N, at the top
            self.cursor = 0
            self.scroll_to(y=0, animate=False)
            self.refresh()

    class Open(Message):
        def __init__(self, record: dict[str, Any]) -> None:
            super().__init__()
            self.record = record

    def action_open(self) -> None:
        if self.rows:
            self.post_message(self.Open(self.rows[min(self.cursor, len(self.rows) - 1)]))

    COLUMNS = (("ep", 4, True), ("phase", 5, False), ("policy", 14, False), ("action", None, False),
               ("outcome", None, False), ("reward", 6, True))
    GAP = 1
    FOLLOW = "end"
    ANNOUNCE = False  # Enter opens the row under the cursor; nothing follows the cursor itself

    POLICY_MAX = 20
    _policy_width = 6
    _action_len = 6    # the longest action and outcome shown: what each column would need
    _outcome_len = 7

    def _widths(self) -> list[int]:
        """The policy column as wide as the longest policy name shown (up to POLICY_MAX); the
        action and outcome columns take all that is left: each its longest text if both fit
        (the rest to the action), else shared in proportion to those lengths."""
        widths = self.fixed_widths()
        widths[2] = self._policy_width
        fixed = 1 + sum(w for w in widths if w is not None) + self.GAP * len(widths)
        left = max(2 * self.FLEX_MIN, self.size.width - fixed)
        need_a, need_o = self._action_len, self._outcome_len
        if need_a + need_o <= left:
            outcome = need_o
        else:
            outcome = max(self.FLEX_MIN, min(need_o, left * need_o // (need_a + need_o)))
        widths[3], widths[4] = max(self.FLEX_MIN, left - outcome), outcome
        return widths

    def whole_widths(self) -> dict[int, int]:
        """The episode number whole, however long the stream (the rows are in episode order)."""
        return {0: len(str(self.rows[-1]["episode"]))} if self.rows else {}

    def cut_cell(self, column: int, text: str, width: int) -> str:
        """What says right or wrong stays whole: the outcome's ✓/✗ (with the gold route before
        it cut in the middle, not the mark), and a portfolio action's cash share."""
        if column == 4 and text[-1:] in ("✓", "✗"):
            return cut_keeping_tail(text, width, text[text.rfind(" "):] if " " in text else text[-1:])
        if column == 3 and "; " in text:
            return cut_keeping_tail(text, width, text[text.rfind("; "):])
        return super().cut_cell(column, text, width)

    def row_key(self, row: dict[str, Any]) -> str:
        return str(row["episode"])

    def cells(self, r: dict[str, Any]) -> list[tuple[str, Style]]:
        correct = r.get("correct")
        style = GREEN if correct else (RED if correct is False else PLAIN)
        # an LLM call answered by the offline heuristic is marked where it happened
        fallback = (r.get("info") or {}).get("agent") == "fallback"
        action = ("⚠ fallback: " if fallback else "") + str(r.get("action", ""))
        return [(str(r["episode"]), PLAIN), (str(r.get("phase", "")), PLAIN), (str(r.get("policy", "")), BOLD),
                (action, FALLBACK if fallback else PLAIN), (str(r.get("result", "")), style),
                (f"{float(r.get('reward', 0.0)):.2f}", PLAIN)]

    def show(self, history: list[dict[str, Any]]) -> None:
        self._history = history
        if self.filter:
            history = [r for r in history if self.filter.matches(r, self.inputs)]
        if len(history) == len(self.rows) and (not history or history[-1] is self.rows[-1]):
            return
        new = history[len(self.rows):] if len(history) > len(self.rows) else history
        if len(history) < len(self.rows):
            self._policy_width, self._action_len, self._outcome_len = 6, 6, 7
        longest = max((len(str(r.get("policy", ""))) for r in new), default=0)
        self._policy_width = min(self.POLICY_MAX, max(self._policy_width, longest))
        self._action_len = max([self._action_len] + [len(str(r.get("action", ""))) + 12 * ((r.get("info") or {})
                               .get("agent") == "fallback") for r in new])
        self._outcome_len = max([self._outcome_len] + [len(str(r.get("result", ""))) for r in new])
        self.set_rows(list(history))
