"""The input of each episode as searchable text, for the episode log's filter.

An episode record holds the action and the outcome, not the input: that is the
scenario's, by episode index (`Scenario.query(t)` and `input_seen`, what `ael-lab
explain` and `export-stream` show: a ticket's text and endpoint, an article's subject
and body, a bar's description, time and the regime the agent read). Nothing is
replayed: the scenario gives episode t's input directly, and the text is kept per
episode, with the record it was read for, so a filter over a long log reads each
input once. A record replaced by a rewind or a branch (a new record object) is read
again: a portfolio bar's regime label depends on the run up to it.
"""

from __future__ import annotations

from typing import Any, Callable

from ael_lab import AELError


def _strings(value: Any, out: list[str]) -> None:
    """Every string in a JSON value (prices and tool calls are numbers: nothing to search)."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out)


def input_text(scenario: Any, t: int) -> str:
    """Episode t's input as the agent read it, lowercased (the query's text and the strings
    of `input_seen`, each once)."""
    query = scenario.query(t)
    found = [query.text]
    _strings(scenario.input_seen(query), found)
    return "\n".join(dict.fromkeys(s for s in found if s)).lower()


class InputTexts:
    """`texts(record)`: the input text of the record's episode, read once per record."""

    def __init__(self, scenario: Callable[[], Any]) -> None:
        self._scenario = scenario                      # the session's scenario now (a load replaces it)
        self._seen: Any = None
        self._texts: dict[int, tuple[dict, str]] = {}  # episode -> (the record it was read for, text)
        self.reads = 0                                 # inputs read from the scenario (tests)

    def __call__(self, record: dict[str, Any]) -> str:
        scenario = self._scenario()
        if scenario is not self._seen:
            self._seen, self._texts = scenario, {}
        t = record.get("episode")
        if not isinstance(t, int):
            return ""
        kept = self._texts.get(t)
        if kept is not None and kept[0] is record:
            return kept[1]
        try:
            text = input_text(scenario, t)
        except (AELError, IndexError, KeyError):
            return ""  # the scenario cannot give it now (a portfolio rewound past it): not kept, read next time
        self.reads += 1
        self._texts[t] = (record, text)
        return text
