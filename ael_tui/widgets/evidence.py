"""A reflection's or a proposal's evidence as text: the lab's reflection panel and the
decision dialog show the same lines."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text

from ael_lab.text import shown


def evidence_text(evidence: dict[str, Any], limit: int = 8) -> Text:
    """Evidence as `key: value` lines; long lists are cut with a count of what is left. A
    reflector's evidence quotes the data and a model's words: shown, never obeyed."""
    out = Text()
    for key, value in evidence.items():
        if value in ("", None, [], {}):  # an empty "pattern:" says nothing
            continue
        if isinstance(value, list) and len(value) > limit:
            head = json.dumps(value[:limit], ensure_ascii=False, default=str)
            value_text = f"{head[:-1]}, … {len(value) - limit} more]"
        elif isinstance(value, (dict, list)):
            value_text = json.dumps(value, ensure_ascii=False, default=str)
        elif isinstance(value, float):
            value_text = f"{value:.4g}"
        else:
            value_text = str(value)
        out.append(f"  {shown(key)}: ", style="dim")
        out.append(shown(value_text) + "\n")
    return out
