"""Which episodes the episode log shows: a filter a person types.

Words, all of which must hold (case does not matter):

- `✗` or `wrong` / `✓` or `right`: the episode's outcome (reward below / at least 0.5
  where a world gives no right-or-wrong);
- `policy=NAME`, `phase=NAME` (train, val, test, warmup), `regime=N` (`R3` or `3`);
- `#N`: from episode N on (the log's cursor goes to it);
- any other word: found in the episode's action or outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import AELError

FIELDS = ("policy", "phase", "regime")


@dataclass(frozen=True)
class EpisodeFilter:
    text: str = ""
    outcome: bool | None = None        # True: right only, False: wrong only
    equals: dict[str, str] = field(default_factory=dict)
    start: int | None = None           # #N: episodes from N on
    words: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.text.strip())

    def matches(self, record: dict[str, Any]) -> bool:
        if self.start is not None and int(record.get("episode", -1)) < self.start:
            return False
        if self.outcome is not None and _right(record) is not self.outcome:
            return False
        for key, want in self.equals.items():
            got = str(record.get(key, "")).lower()
            if key == "regime":
                got, want = got.lstrip("r"), want.lstrip("r")
            if got != want:
                return False
        seen = f"{record.get('action', '')} {record.get('result', '')}".lower()
        return all(w in seen for w in self.words)


def parse(text: str) -> EpisodeFilter:
    """The filter a person typed; `AELError` (one line) for a word it cannot read."""
    outcome, equals, start, words = None, {}, None, []
    for word in text.lower().split():
        if word in ("✗", "wrong", "x"):
            outcome = False
        elif word in ("✓", "right"):
            outcome = True
        elif word.startswith("#"):
            if not word[1:].isdigit():
                raise AELError(f"{word!r}: #N jumps to episode N, e.g. #920")
            start = int(word[1:])
        elif "=" in word:
            key, _, value = word.partition("=")
            if key not in FIELDS or not value:
                raise AELError(f"{word!r}: filter by {', '.join(f + '=…' for f in FIELDS)}")
            equals[key] = value
        else:
            words.append(word)
    return EpisodeFilter(text, outcome, equals, start, tuple(words))


def _right(record: dict[str, Any]) -> bool:
    correct = record.get("correct")
    return bool(correct) if correct is not None else float(record.get("reward", 0.0)) >= 0.5
