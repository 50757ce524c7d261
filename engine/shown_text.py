"""One sanitiser for text that comes from data and is shown to a person.

A stream file's text, label, regime and meta columns, a news post, a model's reply: any
of them can hold what a terminal obeys rather than shows, an escape sequence that writes
the clipboard (OSC 52), sets the window title, clears the screen or makes a hyperlink; a
backspace or carriage return that overwrites what was printed before it; a bidi override
that makes a line read otherwise than it is. `shown(text)` keeps every character that is
only a glyph and replaces each of those with a visible stand-in, so the sequence is
printed, never executed:

- C0 controls and DEL by their Unicode control pictures (ESC ␛, BEL ␇, BS ␈, NUL ␀, DEL ␡),
  one column each, so a table's widths stay as they were;
- a line break (LF, CR LF, a lone CR, NEL, U+2028, U+2029) as ⏎ (a cell is one line);
  a tab as a space;
- C1 controls (U+0080-U+009F, among them the one-byte CSI U+009B) and the bidi
  embeddings, overrides, isolates and marks as ⟨U+XXXX⟩.

What stays: every other character, including spaces such as U+00A0, joiners inside emoji
and private-use icons (none of them is obeyed by a terminal). Markup (Rich's `[bold]`)
is another matter: whoever hands text to a renderer that parses markup passes it as
plain text (rich.text.Text) as well.

UI-free: the CLI's tables, `explain` and the lab's widgets all call it.
"""

from __future__ import annotations

import re
from typing import Any

LINE_BREAK = "⏎"

# a line break in any of its spellings (CR LF first: one break, one mark)
_BREAKS = re.compile("\r\n|[\n\r\x85\u2028\u2029]")
# what a terminal obeys, or reorders a line by: C0, DEL, C1, bidi controls
_OBEYED = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _stand_in(match: re.Match[str]) -> str:
    c = match.group()
    code = ord(c)
    if c == "\t":
        return " "
    if code < 0x20:
        return chr(0x2400 + code)  # the control pictures block: ␀ … ␟
    if code == 0x7F:
        return "␡"
    return f"⟨U+{code:04X}⟩"


def shown(text: Any) -> str:
    """`text` (made a string) as a terminal should show it: nothing in it obeyed."""
    text = text if isinstance(text, str) else str(text)
    if text.isprintable():  # the common case, a C speed check: no control, no bidi mark
        return text
    return _OBEYED.sub(_stand_in, _BREAKS.sub(LINE_BREAK, text))


def shown_lines(text: Any) -> str:
    """Like `shown`, but a text of several lines keeps its line breaks and tabs (a reply or
    a policy's code shown in a pane that wraps): each line is sanitised on its own."""
    text = text if isinstance(text, str) else str(text)
    if text.isprintable():
        return text
    return "\n".join("\t".join(shown(part) for part in line.split("\t")) for line in _BREAKS.split(text))
