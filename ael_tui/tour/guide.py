"""The guided tour: the key moments of the method, found in a session's events.

A `TourGuide` is fed the events of every step (and of every decision) and
notices, once each, the first of these moments from where the tour started:

  posterior  the bandit learned from an episode (a Beta posterior moved)
  distilled  distillation wrote patterns to semantic memory
  reflected  the reflector looked back over a slow window
  regime     the hidden regime changed (scenarios that know regimes)
  arm        a new arm joined the pool

Each noticed moment becomes a `Card` (a title, a few sentences with this run's
numbers in them, and the panel to look at), queued in the order it happened.
The lab runs the session with `stop_on=guide.feed` and shows the cards; UI-free,
so it can be tested without a terminal.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

import ael_lab.run_events as ev
from ael_lab.runs import Session

from ael_tui.widgets.readouts import regime_name

MOMENTS = ("posterior", "distilled", "reflected", "regime", "arm")


@dataclass
class Card:
    moment: str
    episode: int
    title: str
    text: str
    panel: str            # which panel group to show on a small terminal: bandit, progress, memory


def default_key(binding_id: str) -> str:
    from ael_tui.actions import BY_ID, key_label
    return key_label(BY_ID[binding_id].key)


class TourGuide:
    def __init__(self, session: Session, key_for: Callable[[str], str] = default_key) -> None:
        self.key_for = key_for  # key hints in the cards follow the active keymap
        self.seen: set[str] = set()
        self.cards: deque[Card] = deque()
        h = session.history
        self._regime: Any = h[-1].get("regime") if h else None
        self._regime_known = bool(h)
        self.shown = 0

    @property
    def finished(self) -> bool:
        return self.seen >= set(MOMENTS) and not self.cards

    @property
    def remaining(self) -> list[str]:
        return [m for m in MOMENTS if m not in self.seen]

    def next_card(self) -> Card | None:
        if not self.cards:
            return None
        self.shown += 1
        return self.cards.popleft()

    def feed(self, events: list[ev.Event], session: Session) -> bool:
        """Note the moments in one step's (or decision's) events; True if a card was queued.
        Call with the session's lock held: the cards quote its state."""
        before = len(self.cards)
        for e in events:
            if isinstance(e, ev.EpisodeDone):
                self._episode(e, session)
            elif isinstance(e, ev.Distilled) and e.patterns > 0:
                self._add("distilled", e.episode, session, e)
            elif isinstance(e, ev.Reflected):
                self._add("reflected", e.episode, session, e)
            elif isinstance(e, ev.ArmAdded):
                self._add("arm", e.episode, session, e)
        return len(self.cards) > before

    def _episode(self, e: ev.EpisodeDone, session: Session) -> None:
        r = e.record
        regime = r.get("regime")
        if self._regime_known and regime is not None and regime != self._regime:
            self._add("regime", e.episode, session, (self._regime, regime))
        self._regime, self._regime_known = regime, True
        if r.get("phase") not in ("warmup", "test"):
            self._add("posterior", e.episode, session, r)

    def _add(self, moment: str, episode: int, session: Session, detail: Any) -> None:
        if moment in self.seen:
            return
        self.seen.add(moment)
        title, text, panel = WRITERS[moment](session, episode, detail, self.key_for)
        self.cards.append(Card(moment, episode, title, text, panel))


# ------------------------------------------------------------ the words
def _posterior(session: Session, episode: int, record: dict[str, Any], key: Callable) -> tuple[str, str, str]:
    arm = next((a for a in session.selector.arms if a.name == record["policy"]), None)
    reward = float(record["reward"])
    credited = float(record.get("credited", reward))  # what the bandit learned (a credit variant's share)
    how = ("Thompson sampling drew one sample from every arm's Beta posterior and played the highest"
           if session.selector.kind == "ts" else f"The {session.config.selector} selector chose it")
    earned = (f"It earned reward {reward:.2f}, of which the bandit was credited {credited:.2f}, "
              if credited != reward else f"It earned reward {reward:.2f}, ")
    text = (f"Episode {episode}: {how}: {record['policy']}. {earned}"
            f"which adds {credited:.2f} to that arm's α and {1 - credited:.2f} to its β")
    if arm is not None:
        text += f", so it is now Beta({arm.alpha:.1f}, {arm.beta:.1f}) with mean {arm.mean:.2f}"
    text += (". The other arms did not move. Watch the Posteriors table and the Beta densities: "
             "a curve narrows as its arm is played, and the best arm gets played more.")
    return "The bandit learns from one episode", text, "bandit"


def _distilled(session: Session, episode: int, e: ev.Distilled, key: Callable) -> tuple[str, str, str]:
    counts = session.memory.counts()
    text = (f"Episode {episode}: every {session.config.distill_every} episodes the engine looks for patterns "
            f"across episodic memory and writes them to the semantic tier: {e.patterns} pattern(s), {e.new} new; "
            f"semantic memory now holds {counts.get('semantic', 0)}. A pattern corroborated again at later windows "
            f"is promoted to a procedural rule the agent always applies. In the Memory panel, {key('lab.tier')} shows "
            "the next tier.")
    return "Distillation: episodes become knowledge", text, "memory"


def _reflected(session: Session, episode: int, e: ev.Reflected, key: Callable) -> tuple[str, str, str]:
    r = session.reflections[e.index] if 0 <= e.index < len(session.reflections) else None
    proposed = []
    if r is not None and r.insight:
        proposed.append("an insight for the agent")
    if r is not None and r.policy is not None:
        proposed.append(f"a new retrieval policy, {r.policy.get('name', '?')}, as a new arm")
    diagnosis = words_within(e.diagnosis.strip(), DIAGNOSIS)
    if not diagnosis.endswith((".", "!", "?", "…")):
        diagnosis += "."  # a reflector's diagnosis may end without one: the card's next sentence follows it
    text = (f"Episode {episode}: the slow loop. The reflector looked back over {_looked_at(session, episode, r)} "
            f"(trigger: {e.trigger}) with side information the agent never sees. Diagnosis: {diagnosis} "
            + (f"It proposes {' and '.join(proposed)}: a person approves, edits or rejects each "
               f"({key('lab.decide')})."
               if proposed else "It proposes nothing this time: the pool looks good enough."))
    lesson = session.scenario.spec.lesson
    if lesson:
        text += f" What this world teaches: {lesson}"
    return "Reflection: diagnose, then prescribe", text, "progress"


DIAGNOSIS = 220  # characters of a diagnosis a card quotes (the Reflection panel has it whole)


def words_within(text: str, width: int) -> str:
    """`text` in at most `width` characters, cut after a whole word with "…" (never mid-word)."""
    if len(text) <= width:
        return text
    head = text[: width - 1]
    space = head.rfind(" ")
    return (head[:space] if space > width // 2 else head).rstrip(" ,;:—-") + "…"


def _span(window: Any) -> tuple[int, int] | None:
    if isinstance(window, (list, tuple)) and len(window) == 2 and all(isinstance(x, int) for x in window):
        return window[0], window[1]
    return None


def _looked_at(session: Session, episode: int, r: Any) -> str:
    """The episodes the reflection read, as its evidence names them (the Reflection panel beside
    the card quotes the same numbers), else the slow window."""
    evidence = r.evidence if r is not None else {}
    trailing, slow = _span(evidence.get("trailing_window")), _span(evidence.get("slow_window"))
    if trailing and slow and trailing != slow:
        return (f"episodes {trailing[0]}–{trailing[1]} (its gate's trailing window) and {slow[0]}–{slow[1]} "
                "(the slow window it diagnoses)")
    span = slow or trailing or (max(0, episode + 1 - session.slow_window), episode)
    return f"episodes {span[0]}–{span[1]}"


def _regime(session: Session, episode: int, change: tuple[Any, Any], key: Callable) -> tuple[str, str, str]:
    old, new = (regime_name(session, x) for x in change)
    text = (f"Episode {episode}: the hidden regime changed from {old} to {new}. Neither the agent nor the bandit "
            "is told. The arm that was best may stop working: watch the rolling curve on the Progress chart "
            "(the gray line marks the change) and how many episodes the posteriors take to follow.")
    return "The world changes", text, "progress"


def _arm(session: Session, episode: int, e: ev.ArmAdded, key: Callable) -> tuple[str, str, str]:
    arm = next((a for a in session.selector.arms if a.name == e.arm), None)
    prior = f"Beta({arm.alpha:.1f}, {arm.beta:.1f})" if arm is not None else "its prior"  # as the table shows it
    who = "you" if e.source == "human" else ("a standing rule" if "always" in e.source else "the approval mode")
    text = (f"Episode {episode}: the proposed policy {e.arm} joined the pool, approved by {who}. It starts from "
            f"{prior}: its samples spread wide, so Thompson sampling tries it soon, and if it works its posterior "
            "climbs past the old arms'. The green line on the Progress chart marks the moment; "
            "the arm is marked + in the Posteriors table, its name in its curve's colour.")
    return "A new arm joins the bandit", text, "bandit"


WRITERS = {"posterior": _posterior, "distilled": _distilled, "reflected": _reflected, "regime": _regime,
           "arm": _arm}
