"""Record and replay LLM calls, for demos and tests that need no network.

A cassette is one JSON file mapping a request's stable hash
(`LLMRequest.hash`) to the request (provider, model, messages, schema,
temperature, max_tokens: never a key or a header) and the outcomes it got,
in order: replies, and errors such as a 429, so a replay retries and falls
back exactly as the recorded run did. Replaying the n-th identical request
gives the n-th recorded outcome (the last one once they run out).

Recording and replaying are provider wrappers, so they work for every
provider; `Cassette.wrap` picks the right one for the cassette's mode.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any, Callable

from pydantic import ValidationError

from ..atomic import write_json_atomic
from ..documents import MAX_CASSETTE_BYTES, parse_json, read_capped, validation_error
from ..errors import AELError
from .cassette_schema import CassetteDoc
from .request import LLMRequest, Provider, ProviderError, Reply

CASSETTE_KIND = "ael-llm-cassette"
CASSETTE_VERSION = 1


class Cassette:
    """The recorded calls of one run, in `record` or `replay` mode.

    Share one cassette between all clients of a session: they then write
    (or read) the same file. A recording cassette rewrites its file after
    every call by default; with `save_every_s` it writes at most that often
    (a long run then does not rewrite a growing file thousands of times),
    and `flush()` / leaving a `with` block writes what is left.
    """

    def __init__(self, path: str | os.PathLike[str], mode: str,
                 entries: dict[str, dict[str, Any]] | None = None, *, save_every_s: float = 0.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if mode not in ("record", "replay"):
            raise ValueError(f"cassette mode {mode!r}: expected 'record' or 'replay'")
        self.path = Path(path)
        self.mode = mode
        self.save_every_s = save_every_s
        self._clock = clock
        self._entries: dict[str, dict[str, Any]] = entries or {}
        self._cursor: dict[str, int] = {}
        self._lock = threading.Lock()
        self._dirty = False
        self._saved_at = float("-inf")

    @classmethod
    def record(cls, path: str | os.PathLike[str], *, save_every_s: float = 0.0) -> "Cassette":
        """A fresh cassette; the file is (re)written from the first recorded call on."""
        return cls(path, "record", save_every_s=save_every_s)

    def __enter__(self) -> "Cassette":
        return self

    def __exit__(self, *exc: object) -> None:
        self.flush()

    def flush(self) -> None:
        """Write what was recorded since the last write (nothing to do when replaying)."""
        with self._lock:
            if self._dirty:
                self._save()

    @classmethod
    def replay(cls, path: str | os.PathLike[str]) -> "Cassette":
        """Load a recorded cassette; raises `AELError` if it is missing or not one."""
        p = Path(path)
        if not p.exists():
            raise AELError(f"llm replay: no cassette at {p}; record one with --record {p}")
        try:  # size, depth and finite numbers first, then the schema (cassette_schema)
            data = parse_json(read_capped(p, MAX_CASSETTE_BYTES, "cassette"), p, "cassette")
        except AELError as exc:
            raise AELError(f"llm replay: cannot read the cassette: {exc}") from None
        if not isinstance(data, dict) or data.get("kind") != CASSETTE_KIND or not isinstance(data.get("entries"), dict):
            raise AELError(f"llm replay: {p} is not an LLM cassette")
        if not isinstance(data.get("version"), int) or data["version"] > CASSETTE_VERSION:
            raise AELError(f"llm replay: {p} has cassette version {data.get('version')!r}; "
                           f"this program reads up to {CASSETTE_VERSION}")
        try:
            CassetteDoc.model_validate(data)
        except ValidationError as err:
            raise AELError(f"llm replay: {validation_error(err, p)}") from None
        return cls(p, "replay", data["entries"])

    def __len__(self) -> int:
        return len(self._entries)

    def wrap(self, provider: Provider) -> Provider:
        """The provider that records through `provider`, or replays instead of it."""
        if self.mode == "record":
            return RecordingProvider(provider, self)
        return ReplayProvider(provider.name, self)

    def add(self, request: LLMRequest, outcome: dict[str, Any]) -> None:
        """Append one outcome ({"reply": ...} or {"error": ...}) and save atomically."""
        digest = request.hash()
        with self._lock:
            entry = self._entries.setdefault(
                digest, {"purpose": request.purpose, "request": request.key(), "outcomes": []})
            entry["outcomes"].append(outcome)
            self._dirty = True
            if self._clock() - self._saved_at >= self.save_every_s:
                self._save()

    def next_outcome(self, request: LLMRequest) -> dict[str, Any]:
        """The outcome to replay for `request`; `AELError` when it was never recorded."""
        digest = request.hash()
        with self._lock:
            entry = self._entries.get(digest)
            if entry is None or not entry.get("outcomes"):
                raise AELError(
                    f"llm replay: {self.path.name} holds no answer for purpose {request.purpose!r} "
                    f"(request {digest}, {request.provider}/{request.model}); "
                    "the prompt or settings changed since recording; record again with --record")
            i = self._cursor.get(digest, 0)
            self._cursor[digest] = i + 1
            outcomes = entry["outcomes"]
            return outcomes[min(i, len(outcomes) - 1)]

    def _save(self) -> None:
        data = {"kind": CASSETTE_KIND, "version": CASSETTE_VERSION, "entries": self._entries}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_json_atomic(self.path, data, indent=1, sort_keys=True)
        except OSError as exc:
            raise AELError(f"llm record: cannot write {self.path}: {exc.strerror or exc}") from None
        self._dirty = False
        self._saved_at = self._clock()


class RecordingProvider:
    """Sends through the wrapped provider and records every outcome."""

    def __init__(self, inner: Provider, cassette: Cassette) -> None:
        self.inner = inner
        self.cassette = cassette
        self.name = inner.name
        self.live = inner.live

    def send(self, request: LLMRequest) -> Reply:
        try:
            reply = self.inner.send(request)
        except ProviderError as exc:
            self.cassette.add(request, {"error": exc.to_dict()})
            raise
        self.cassette.add(request, {"reply": reply.to_dict()})
        return reply


class ReplayProvider:
    """Answers from a cassette and never touches the network."""

    live = False

    def __init__(self, name: str, cassette: Cassette) -> None:
        self.name = name
        self.cassette = cassette

    def send(self, request: LLMRequest) -> Reply:
        outcome = self.cassette.next_outcome(request)
        if "error" in outcome:
            raise ProviderError.from_dict(outcome["error"])
        return Reply.from_dict(outcome["reply"])
