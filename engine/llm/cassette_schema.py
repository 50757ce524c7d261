"""The explicit schema of an LLM cassette (`--replay FILE`), checked on load.

A cassette is `{"kind": "ael-llm-cassette", "version": N, "entries": {HASH:
{"purpose", "request", "outcomes": [{"reply": ...} | {"error": ...}]}}}`
(see `cassette.py`). Replies and errors are rebuilt by `Reply.from_dict` and
`ProviderError.from_dict`, which convert with `int()` and `str()`: the types
are checked here first, so a hostile cassette is one line, not a traceback.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

Count = Annotated[int, Field(ge=0, le=10**9)]
Text = Annotated[str, Field(max_length=10_000_000)]


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)


class ReplyDoc(Strict):
    text: Text
    input_tokens: Count = 0
    output_tokens: Count = 0
    model: Text = ""
    truncated: bool = False


class ErrorDoc(Strict):
    message: Text
    retryable: bool
    retry_after: Annotated[float, Field(ge=0, le=86_400)] | None = None
    status: Annotated[int, Field(ge=100, le=599)] | None = None


class Outcome(Strict):
    reply: ReplyDoc | None = None
    error: ErrorDoc | None = None

    @model_validator(mode="after")
    def _one_of(self) -> "Outcome":
        if (self.reply is None) == (self.error is None):
            raise ValueError("an outcome holds exactly one of reply or error")
        return self


class Entry(Strict):
    purpose: Text
    request: dict[str, Any]
    outcomes: Annotated[list[Outcome], Field(min_length=1, max_length=100_000)]


class MetaDoc(Strict):
    # what a recording learnt from the server besides replies (the context size it reported)
    context_tokens: dict[Annotated[str, Field(max_length=64)],
                         Annotated[int, Field(ge=1, le=100_000_000)] | None] = {}


class CassetteDoc(Strict):
    kind: Annotated[str, Field(pattern="^ael-llm-cassette$")]
    version: Annotated[int, Field(ge=1)]
    entries: Annotated[dict[Annotated[str, Field(max_length=128)], Entry], Field(max_length=1_000_000)]
    meta: MetaDoc = MetaDoc()
