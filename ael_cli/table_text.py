"""Text from data in a Rich table: shown, never obeyed or parsed.

A regime named in a stream file's column, a selector a plugin registers, an option's value
in a sweep's title reach the `run`, `sweep` and `reproduce` tables. Rich would parse a
plain string as markup (`[link=…]` writes a hyperlink escape, a stray `[/x]` is a
traceback) and pass an escape sequence to the terminal as it is; a `Text` of the
sanitised string (engine/shown_text.py) is printed as the characters it holds.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from ael_lab.text import shown


def cell(text: Any, style: str = "") -> Text:
    """`text` for a table's cell, header or title: plain, every control shown."""
    return Text(shown(text), style=style)
