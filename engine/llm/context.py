"""Prompts that fit the model's context window.

No tokenizer is loaded (the engine must not pull one in for each model), so
tokens are estimated from characters, on the safe side: common tokenizers
give 3.5-4.5 characters a token on English and JSON, we count 3. The room
left for the answer is `max_tokens`, cut to a quarter of a small context (a
2,048-token local model gets 512: these JSON answers are short), and servers
that check prompt + max_tokens against the context (vLLM, OpenAI) then accept
the request.

`fit` trims the lists a prompt is built from (the window's episodes, memory
excerpts, rules…), the longest first, halving it each round, until the
estimate fits. Callers order each list most informative first, so what is
cut is what matters least.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable

CHARS_PER_TOKEN = 3.0
MESSAGE_OVERHEAD = 8         # role markers and separators of one chat message
SAFETY = 0.95                # keep 5% of the window free: the estimate is an estimate
# What a provider's models offer when nothing more precise is known. An unknown
# local server gets the smallest common window: a prompt cut too short still
# works, one too long is refused outright.
DEFAULT_CONTEXT = {"anthropic": 200_000, "gemini": 1_000_000, "offline": 1_000_000}
UNKNOWN_LOCAL_CONTEXT = 2048

Messages = list[dict[str, str]]


def estimate_tokens(messages: Messages) -> int:
    return sum(math.ceil(len(m["content"]) / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD for m in messages)


def answer_room(context_tokens: int, max_tokens: int) -> int:
    """Tokens asked for the answer: `max_tokens`, but at most a quarter of the window."""
    return max(16, min(max_tokens, context_tokens // 4))


def prompt_budget(context_tokens: int, max_tokens: int) -> int:
    """Estimated tokens a prompt (schema instruction included) may take."""
    return int(context_tokens * SAFETY) - answer_room(context_tokens, max_tokens)


def fit(build: Callable[[dict[str, int]], Messages], sizes: dict[str, int], budget: int,
        extra_tokens: int = 0) -> tuple[Messages, dict[str, tuple[int, int]]]:
    """(the messages `build(limits)` gives within `budget` tokens, what was cut).

    `sizes` are the full lengths of the lists `build` takes a prefix of;
    `extra_tokens` is what the caller adds later (the schema instruction).
    Returns the smallest prompt tried when even empty lists do not fit: the
    server then refuses it, which is a failure like any other.
    """
    limits = dict(sizes)
    messages = build(limits)
    while estimate_tokens(messages) + extra_tokens > budget:
        longest = max(limits, key=lambda k: limits[k], default=None)
        if longest is None or limits[longest] == 0:
            break
        limits[longest] //= 2
        messages = build(limits)
    cut = {k: (sizes[k], limits[k]) for k in sizes if limits[k] < sizes[k]}
    return messages, cut


def describe_cut(cut: dict[str, tuple[int, int]], before: int, after: int) -> str:
    """The ledger's note on a trimmed prompt: which lists, and the estimated tokens."""
    if not cut:
        return ""
    lists = ", ".join(f"{k} {a}→{b}" for k, (a, b) in sorted(cut.items()))
    return f"{lists} (~{before}→~{after} tokens)"


def schema_tokens(schema: dict[str, Any]) -> int:
    """The schema instruction the client adds to the system prompt (estimated)."""
    return math.ceil((len(json.dumps(schema, sort_keys=True)) + 160) / CHARS_PER_TOKEN)
