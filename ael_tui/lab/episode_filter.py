"""Which episodes the episode log shows: a filter a person types.

Words, all of which must hold (case does not matter):

- `✗` or `wrong` / `✓` or `right`: the episode's outcome (reward below / at least 0.5
  where a world gives no right-or-wrong);
- `policy=NAME`, `phase=NAME` (train, val, test, warmup), `regime=N` (`R3` or `3`);
- `#N`: from episode N on (the log's cursor goes to it);
- `text:WORD`: found in the episode's input, as the agent read it (a ticket's text and
  endpoint, an article's subject and body, a bar's description; episode_inputs.py);
- any other word: found in the episode's action, its outcome or its input.

`"two words"` in double quotes is one phrase (`text:"stream closed"` too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from ael_lab import AELError

FIELDS = ("policy", "phase", "regime")
INPUT = "text:"
_TOKEN = re.compile(r'(?:text:)?"[^"]*"|\S+')

Inputs = Callable[[dict[str, Any]], str]  # a record -> its episode's input text, lowercased


@dataclass(frozen=True)
class EpisodeFilter:
    text: str = ""
    outcome: bool | None = None        # True: right only, False: wrong only
    equals: dict[str, str] = field(default_factory=dict)
    start: int | None = None           # #N: episodes from N on
    words: tuple[str, ...] = ()        # in the action, the outcome or the input
    texts: tuple[str, ...] = ()        # text:WORD, in the input only

    def __bool__(self) -> bool:
        return bool(self.text.strip())

    @property
    def reads_inputs(self) -> bool:
        return bool(self.words or self.texts)

    def matches(self, record: dict[str, Any], inputs: Inputs | None = None) -> bool:
        """Whether the record is kept; `inputs` gives its episode's input text (read only when a
        word is not in the action or outcome; without it, `text:` words keep nothing)."""
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
        left = [w for w in self.words if w not in seen]
        if not left and not self.texts:
            return True
        given = inputs(record) if inputs is not None else ""
        return all(w in given for w in (*left, *self.texts))


def parse(text: str) -> EpisodeFilter:
    """The filter a person typed; `AELError` (one line) for a word it cannot read."""
    outcome, equals, start, words, texts = None, {}, None, [], []
    if text.count('"') % 2:
        raise AELError('a phrase is opened with " and not closed: e.g. text:"stream closed"')
    for word in _TOKEN.findall(text.lower()):
        if word.startswith(INPUT):
            phrase = word[len(INPUT):].strip('"')
            if not phrase:
                raise AELError(f"{word!r}: text:WORD looks for WORD in the episodes' input, e.g. text:refund")
            texts.append(phrase)
        elif word.startswith('"'):
            if word.strip('"'):
                words.append(word.strip('"'))
        elif word in ("✗", "wrong", "x"):
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
                raise AELError(f"{word!r}: filter by {', '.join(f + '=…' for f in FIELDS)}, or text:WORD in the input")
            equals[key] = value
        else:
            words.append(word)
    return EpisodeFilter(text, outcome, equals, start, tuple(words), tuple(texts))


def _right(record: dict[str, Any]) -> bool:
    correct = record.get("correct")
    return bool(correct) if correct is not None else float(record.get("reward", 0.0)) >= 0.5
