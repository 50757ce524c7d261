"""How a JSON request is phrased and how a reply is read.

The schema travels inside the system prompt between `SCHEMA_OPEN` and
`SCHEMA_CLOSE`, the same way for every provider: models follow it, and a fake
or local server can find it to answer generically.
"""

from __future__ import annotations

import json
from typing import Any

SCHEMA_OPEN = "<json-schema>"
SCHEMA_CLOSE = "</json-schema>"
ROLES = ("system", "user", "assistant")


def check_messages(messages: Any) -> list[dict[str, str]]:
    """Refuse anything but a non-empty list of {role, content: str} (a bug in the caller)."""
    if not isinstance(messages, list) or not messages:
        raise ValueError("messages: expected a non-empty list of {'role', 'content'} dicts")
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in ROLES or not isinstance(m.get("content"), str):
            raise ValueError(f"messages[{i}]: needs role in {ROLES} and string content")
    if all(m["role"] == "system" for m in messages):
        raise ValueError("messages: at least one user message is needed besides the system prompt")
    return [{"role": m["role"], "content": m["content"]} for m in messages]


def schema_instruction(schema: dict[str, Any]) -> str:
    return (
        "Answer with exactly one JSON object and nothing else: no prose, no code fences. "
        f"It must match this JSON schema:\n{SCHEMA_OPEN}{json.dumps(schema, sort_keys=True)}{SCHEMA_CLOSE}"
    )


def with_schema(messages: list[dict[str, str]], schema: dict[str, Any]) -> list[dict[str, str]]:
    """The messages as sent: the schema instruction appended to the system prompt."""
    instruction = schema_instruction(schema)
    system = [m["content"] for m in messages if m["role"] == "system"]
    rest = [m for m in messages if m["role"] != "system"]
    return [{"role": "system", "content": "\n\n".join([*system, instruction])}, *rest]


def split_system(messages: tuple[dict[str, str], ...] | list[dict[str, str]]) -> tuple[str, list[dict[str, str]]]:
    """(system text, the other messages) for APIs that take the system prompt apart."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    return system, [m for m in messages if m["role"] != "system"]


def parse_json(text: str) -> Any:
    """Parse a reply; a single surrounding code fence is tolerated, and so are raw
    control characters (a line break) inside strings: small models write them, and
    llama-cpp-python's JSON grammar lets them through.

    Raises `ValueError` with a short reason. NaN and Infinity are refused:
    they are not JSON, whatever Python's parser allows.
    """
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        if body.rstrip().endswith("```"):
            body = body.rstrip()[:-3]
    try:
        return json.loads(body, parse_constant=_refuse_constant, strict=False)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:  # "[[[[…" a hundred thousand deep: hostile or broken, never a traceback
        raise ValueError("not usable JSON (nested too deeply)") from None


def correction(error: str) -> str:
    """The follow-up user message after a reply that failed parsing or the schema."""
    return (
        f"Your previous reply was rejected: {error}. "
        "Reply again with exactly one JSON object that matches the schema, and nothing else."
    )


def _refuse_constant(name: str) -> Any:
    raise json.JSONDecodeError(f"{name} is not allowed", name, 0)
