"""A proposal as a person reads it: its payload as indented JSON, and what an edit changed
as a coloured diff (the proposal editor, and the audit's record of an edited approval)."""

from __future__ import annotations

import difflib
import json
from typing import Any

from rich.text import Text

from ael_lab.text import shown


def pretty(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False)


def diff_text(before: str, after: str) -> Text:
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), "proposed", "edited",
                                      lineterm="", n=1))
    if not lines:
        return Text("no change from the proposal", style="dim")
    out = Text()
    for line in lines:
        style = ("green" if line.startswith("+") and not line.startswith("+++") else
                 "red" if line.startswith("-") and not line.startswith("---") else
                 "cyan" if line.startswith("@@") else "dim")
        out.append(shown(line) + "\n", style=style)  # a model's proposal: shown, never obeyed
    return out
