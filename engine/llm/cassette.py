"""Record and replay LLM calls, for demos and tests that need no network.

A cassette is one JSON file mapping a request's stable hash
(`LLMRequest.hash`) to the request (provider, model, messages, schema,
temperature, max_tokens: never a key or a header) and the outcomes it got,
in order: replies, and errors such as a 429, so a replay retries and falls
back exactly as the recorded run did. Replaying the n-th identical request
gives the n-th recorded outcome (the last one once they run out).

Recording and replaying are provider wrappers, so they work for every
provider; `Cassette.wrap` picks the right one for the cassette's mode.

A recording cassette holds an advisory lock (`fcntl.flock` on `PATH.lock`)
from its creation to `close()`: a second process recording to the same file
is refused with one line instead of silently overwriting the first one's
calls. A resumed session appends to its cassette (`append=True`).
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable

from pydantic import ValidationError

from ..store.atomic import write_json_atomic
from ..store.documents import MAX_CASSETTE_BYTES, parse_json, read_capped, validation_error
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
                 clock: Callable[[], float] = time.monotonic, meta: dict[str, Any] | None = None) -> None:
        if mode not in ("record", "replay"):
            raise ValueError(f"cassette mode {mode!r}: expected 'record' or 'replay'")
        self.path = Path(path)
        self.mode = mode
        self.save_every_s = save_every_s
        self._clock = clock
        self._entries: dict[str, dict[str, Any]] = entries or {}
        # what the run learnt from the server besides replies: {"context_tokens": {provider: n or None}}
        self.meta: dict[str, Any] = meta or {}
        self._cursor: dict[str, int] = {}
        self._lock = threading.Lock()
        self._dirty = False
        self._saved_at = float("-inf")
        self._writer: _WriterLock | None = None

    @classmethod
    def record(cls, path: str | os.PathLike[str], *, save_every_s: float = 0.0,
               append: bool = False) -> "Cassette":
        """A cassette to record to, locked against other writers (`AELError` if one
        holds it). Fresh: the file is rewritten from the first recorded call on;
        `append`: the calls already in the file are kept and new ones added."""
        p = Path(path)
        lock = _WriterLock.take(p)
        try:
            old = cls.replay(p) if append and p.exists() else None
        except AELError:
            lock.release()
            raise
        cassette = cls(p, "record", old._entries if old else None, save_every_s=save_every_s,
                       meta=old.meta if old else None)
        cassette._writer = lock
        return cassette

    def __enter__(self) -> "Cassette":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Write what is left and let other processes record to the file."""
        try:
            self.flush()
        finally:
            if self._writer is not None:
                self._writer.release()
                self._writer = None

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
        return cls(p, "replay", data["entries"], meta=data.get("meta", {}))

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

    def note_context(self, provider: str, tokens: int | None) -> None:
        """Record what the server said its context is, so a replay trims prompts the same way."""
        with self._lock:
            self.meta.setdefault("context_tokens", {})[provider] = tokens
            self._dirty = True

    def context_of(self, provider: str) -> int | None:
        value = self.meta.get("context_tokens", {}).get(provider)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None

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
        data = {"kind": CASSETTE_KIND, "version": CASSETTE_VERSION, "entries": self._entries, "meta": self.meta}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_json_atomic(self.path, data, indent=1, sort_keys=True)
        except OSError as exc:
            raise AELError(f"llm record: cannot write {self.path}: {exc.strerror or exc}") from None
        self._dirty = False
        self._saved_at = self._clock()


class _WriterLock:
    """An exclusive advisory lock on `PATH.lock`, held while a cassette records.

    The lock file is removed on release; a writer that locked a file another
    process had just removed checks that it still holds the file at that path,
    and tries again if not."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def take(cls, target: Path) -> "_WriterLock":
        path = target.with_name(target.name + ".lock")
        for _ in range(10):
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise AELError(f"llm record: cannot write {target}: {exc.strerror or exc}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise AELError(f"llm record: {target} is being recorded by another session "
                               "(in this or another process); "
                               "wait for it to finish or record to another file") from None
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                same = False
            if same:
                return cls(path, fd)
            os.close(fd)  # the previous holder removed it between our open and our lock
        raise AELError(f"llm record: cannot lock {target}: the lock file keeps changing")

    def __del__(self) -> None:  # a session dropped without close() must not keep the file locked
        self.release()

    def release(self) -> None:
        if getattr(self, "_fd", None) is None:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self._fd)  # closing drops the lock
        self._fd = None


class RecordingProvider:
    """Sends through the wrapped provider and records every outcome."""

    def __init__(self, inner: Provider, cassette: Cassette) -> None:
        self.inner = inner
        self.cassette = cassette
        self.name = inner.name
        self.live = inner.live

    def context_tokens(self) -> int | None:
        tokens = self.inner.context_tokens()
        self.cassette.note_context(self.name, tokens)
        return tokens

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

    def context_tokens(self) -> int | None:
        return self.cassette.context_of(self.name)

    def send(self, request: LLMRequest) -> Reply:
        outcome = self.cassette.next_outcome(request)
        if "error" in outcome:
            raise ProviderError.from_dict(outcome["error"])
        return Reply.from_dict(outcome["reply"])
