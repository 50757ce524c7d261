"""The decision dialog's preview: the proposal's window replayed with and without it
(engine/preview.py), filled in when the replay is done; Enter on an episode opens it in
the inspector.

The panel only shows: the dialog runs the replay in a worker and hands it the `Preview`
(or the one line saying why there is none). The episode list is an `OptionList` whose
option ids are episode numbers; choosing one posts `PreviewPanel.OpenEpisode`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from ael_lab.review import Preview, Replayed

SHOWN = 12  # episode numbers listed in a summary line; the list below has them all
ROW_WIDTH = 66  # a row's cells before the panel is laid out (it fits 80 columns)


def numbers(rows: list["Replayed"]) -> str:
    """'#904 #905 … (+3)': the episode numbers, the first SHOWN of them."""
    if not rows:
        return "none"
    text = " ".join(f"#{r.episode}" for r in rows[:SHOWN])
    return text + (f" … (+{len(rows) - SHOWN})" if len(rows) > SHOWN else "")


REPLAYING = "Replaying the window with and without it… (what it finds shows here and further down)"


def outcome(pv: "Preview") -> str:
    """What the changed decisions did: fixed and broken where the world says right or wrong,
    else (rewards only, as the portfolio's returns) better and worse by reward."""
    if pv.graded:
        return f"{len(pv.fixed)} fixed, {len(pv.broken)} broken"
    return f"{len(pv.better)} better, {len(pv.worse)} worse by reward, {pv.reward_change:+.4g} in all"


def headline(pv: "Preview", name: str) -> Text:
    """What the replay found, in one line at the top of the dialog (the episodes further down)."""
    out = Text()
    out.append("Replayed: ", style="bold")
    if pv.kind == "arm":
        out.append(f"{name} fixes ")
        out.append(str(len(pv.fixed)), style="bold green")
        out.append(f" of the window's {pv.failures} failures and breaks ")
        out.append(str(len(pv.broken)), style="bold red")
    elif pv.changed:
        out.append(f"it changes {len(pv.changed)} of the agent's decisions ({outcome(pv)})")
    else:
        out.append("it changes none of the agent's decisions in the window")
    out.append(" · the episodes below", style="dim")
    return out


def summary(pv: "Preview", name: str) -> Text:
    """What the replay found, in a few lines: for an arm fixed and broken, else changed decisions."""
    lo, hi = pv.window
    n = len(pv.episodes)
    out = Text()
    out.append("Replayed before deciding", style="bold")
    if pv.kind == "arm":
        out.append(f": episodes {lo}–{hi} ({n}, {pv.failures} failures), each once with {name} played in place "
                   "of the policy the bandit chose, from the same state and draws\n")
        out.append("fixed ", style="bold green")
        out.append(f"{len(pv.fixed)}: {numbers(pv.fixed)}\n")
        out.append("broken ", style="bold red")
        out.append(f"{len(pv.broken)}: {numbers(pv.broken)}\n")
        if pv.reflector_fixed:
            counted = set(pv.reflector_fixed)
            here = sum(r.episode in counted for r in pv.fixed)
            out.append(f"The reflection's figure counts the {len(counted)} fixed failures that no current policy "
                       f"fixes either ({here} of them are in the list); the replay counts every failure {name} "
                       "fixes where it is played, and what it breaks.", style="dim")
        else:
            out.append(f"The decision changes in {len(pv.changed)} of the {n} episodes.", style="dim")
    else:
        what = "the insight applied" if pv.kind == "insight" else f"the {pv.kind} in force"
        out.append(f": episodes {lo}–{hi} ({n}), each once with {what} just before it, from the same state "
                   "and draws\n")
        out.append("decisions changed ", style="bold")
        out.append(f"{len(pv.changed)}: {numbers(pv.changed)}")
        if pv.changed:
            out.append(f"\n{outcome(pv)}", style="dim")
        else:
            out.append("\nThe agent would have decided every episode of the window as it did.", style="dim")
    return out


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 1)] + "…"


def _shared_head(a: str, b: str) -> int:
    """How much of b repeats a's start word for word ('route → x' and 'route → y': 'route → ')."""
    n = 0
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            break
        if x == " ":
            n = i + 1
    return n


def row(r: "Replayed", width: int = ROW_WIDTH) -> Text:
    """One episode in `width` cells: its tag, its number, the decision as it was ⇒ as it would
    have been (without the words the two share at the start), each with its outcome (✓ ✗)."""
    tag, style = ("fixed", "green") if r.fixed else ("broken", "red") if r.broken else ("changed", "yellow")
    head = f"{tag:<7} #{r.episode:<5} "
    after = r.action_with[_shared_head(r.action, r.action_with):] or r.action_with
    room = max(width - len(head) - len(" ✓  ⇒  ✓"), 12)
    before_w = min(len(r.action), max(room // 2, room - len(after)))
    return Text.assemble((head[:7], style), head[7:], _cut(r.action, before_w), " ", _mark(r.correct),
                         "  ⇒ ", (_cut(after, room - before_w), "bold"), " ", _mark(r.correct_with))


def _mark(right: bool) -> Text:
    return Text("✓", style="green") if right else Text("✗", style="red")


def listed(pv: "Preview") -> list["Replayed"]:
    """The episodes the list offers: for an arm what it fixes, then what it breaks; else the
    changed decisions, in order."""
    if pv.kind == "arm":
        return pv.fixed + pv.broken
    return pv.changed


class PreviewPanel(Vertical):
    """'replaying the window…' until `show` or `fail` is called."""

    class OpenEpisode(Message):
        def __init__(self, episode: int) -> None:
            super().__init__()
            self.episode = episode

    def __init__(self, window: tuple[int, int], **kw) -> None:
        super().__init__(**kw)
        self.window = window

    def compose(self) -> ComposeResult:
        lo, hi = self.window
        yield Static(Text(f"Replaying the window… (episodes {lo}–{hi}, with and without the proposal)",
                          style="italic"), id="preview-summary")
        yield OptionList(id="preview-list", classes="-empty")

    def show(self, pv: "Preview", name: str) -> None:
        self.query_one("#preview-summary", Static).update(summary(pv, name))
        rows = listed(pv)
        options = self.query_one("#preview-list", OptionList)
        options.clear_options()
        # the list's border, padding and scrollbar taken off, so no row wraps
        width = self.content_region.width - 5 if self.content_region.width > 20 else ROW_WIDTH
        options.add_options([Option(row(r, width), id=str(r.episode)) for r in rows])
        options.set_class(not rows, "-empty")
        options.highlighted = 0 if rows else None  # Enter opens the first at once
        if rows:
            options.border_subtitle = "Enter: the episode as it went, in the inspector"

    def fail(self, why: str) -> None:
        self.query_one("#preview-summary", Static).update(Text(f"No preview: {why}", style="dim"))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.OpenEpisode(int(event.option.id)))
