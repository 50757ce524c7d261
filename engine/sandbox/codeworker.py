"""The parent's side of the sandbox: one worker process per session, reused.

`CodeWorker.call(policy, entries, query)` sends the entries the policy may see
and the query to the worker (`engine.sandbox.child`), waits at most the call's
deadline, and returns the entries it chose, each checked against those it was
given. On overrun, crash, a reply that breaks the protocol or a fatal error
(memory, recursion) the worker and all it started are killed (`reaper.kill_tree`)
and the next call starts a fresh worker; the caller gets a `CodePolicyFailure`
saying what happened and decides what to fall back on. Nothing here runs policy
code in this process.

The worker keeps the entries it has seen; a call sends only entries that are
new or changed since the last one (the order is sent in full), which is what
makes a retrieval over 1,500 entries cost about a millisecond rather than the
few it takes to encode them all. That cache is the worker's only state, it
never changes what a policy sees, and it is rebuilt after a restart: nothing of
the worker belongs in a save.
"""

from __future__ import annotations

import json
import operator
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from .reaper import kill_tree
from .rules import ALLOWED_METHODS, SAFE_BUILTINS, CodePolicyError

CHILD = Path(__file__).with_name("child.py")
NOBODY = 65534
EXIT_GRACE_S = 1.0  # how long a worker whose output closed has to end on its own before it is killed
MAX_REPLY_BYTES = 4 * 2**20  # every id of the largest memory is well under 1 MB; more is an attack on our memory
# what the worker is sent of each entry, in `child._FIELDS` order but with metadata second
_FIELDS = operator.attrgetter("id", "metadata", "tier", "content", "quality", "episode", "retrieval_count",
                              "usefulness")


class CodePolicyFailure(CodePolicyError):
    """A code policy's call failed: it overran, crashed, broke the protocol or raised."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind   # timeout, crash, protocol, error


@dataclass(frozen=True)
class Limits:
    """What one worker may use. `cpu_s` is for the worker's whole life; it is
    replaced before it can run out (`recycle_cpu_s`), so only a runaway call meets it."""

    memory_mb: int = 256
    cpu_s: int = 60
    recycle_cpu_s: float = 30.0
    start_timeout_s: float = 15.0


def _rp_dir() -> str:
    import RestrictedPython

    return str(Path(RestrictedPython.__file__).resolve().parent.parent)


def _plain(value: Any) -> Any:
    """json.dumps' fallback for numpy scalars and other non-JSON values of metadata."""
    item = getattr(value, "item", None)
    if callable(item):
        return item()
    return str(value)


class CodeWorker:
    """One sandboxed worker process (started on the first call, restarted after a failure)."""

    def __init__(self, limits: Limits | None = None, *, plain_python: bool = False):
        """`plain_python` runs sources as plain Python with every builtin, no RestrictedPython:
        only for tests that show the process walls hold on their own."""
        self.limits = limits or Limits()
        self._config = json.dumps({"memory_mb": self.limits.memory_mb, "cpu_s": self.limits.cpu_s,
                                   "methods": sorted(ALLOWED_METHODS), "builtins": list(SAFE_BUILTINS),
                                   "plain": plain_python,
                                   # RLIMIT_NPROC does not bind root, so a root worker becomes nobody
                                   # (after its imports: it could not read root's interpreter as nobody)
                                   "drop_to": NOBODY})
        self._proc: subprocess.Popen | None = None
        self._scratch: str | None = None
        self._buffer = b""
        self._sent: dict[str, tuple] = {}
        self._loaded: set[str] = set()
        self._cpu = 0.0
        self._seq = 0            # numbers requests: a reply to another request is a protocol breach
        self.last_cpu_s = 0.0    # CPU seconds the worker spent on the last call that it answered
        self.starts = 0          # how many processes this worker has started (for tests and the lab)
        self.last_pid: int | None = None
        self._finalizer: weakref.finalize | None = None

    # ------------------------------------------------------------ process
    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _start(self) -> None:
        scratch = None
        try:
            scratch = tempfile.mkdtemp(prefix="ael-policy-")
            os.chmod(scratch, 0o711)  # a cwd the worker may enter but not list or write
            self._proc = subprocess.Popen(
                [sys.executable, "-S", "-s", "-P", "-X", "utf8", str(CHILD), _rp_dir(), self._config],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=scratch,
                env={"PYTHONHASHSEED": "0"},  # nothing of ours (no keys); a fixed hash seed keeps set order repeatable
                # a session of its own, not only a group: it cannot then move into one of ours
                start_new_session=True, close_fds=True)
        except OSError as err:  # no process to be had (limits, disk): the call fails, the lab goes on
            if scratch:
                shutil.rmtree(scratch, ignore_errors=True)
            raise CodePolicyFailure(f"the code-policy sandbox could not start ({err.strerror or err})",
                                    "crash") from None
        self._scratch = scratch
        self.starts += 1
        self.last_pid = self._proc.pid  # kept after a kill: tests check its group is gone
        self._finalizer = weakref.finalize(self, _kill, self._proc, self._scratch)
        for fd in (self._proc.stdin.fileno(), self._proc.stdout.fileno()):
            os.set_blocking(fd, False)
        self._buffer, self._sent, self._loaded, self._cpu = b"", {}, set(), 0.0
        try:
            ready = self._read(time.monotonic() + self.limits.start_timeout_s)
        except CodePolicyFailure as failure:
            self.close()
            raise CodePolicyFailure(f"the code-policy sandbox did not start ({failure})", "crash") from None
        if not isinstance(ready, dict) or ready.get("ready") is not True:
            self.close()
            why = _printable(str(ready.get("error", ""))[:200]) if isinstance(ready, dict) else ""
            raise CodePolicyFailure("the code-policy sandbox did not start" + (f" ({why})" if why else ""), "crash")
        cpu = ready.get("cpu")
        self._cpu = float(cpu) if isinstance(cpu, (int, float)) else 0.0
        if ready.get("notice"):  # a wall this kernel cannot build: the others stand, and a person should know
            _notice_once(_printable(str(ready["notice"])[:300]))

    def close(self) -> None:
        """Kill the worker and anything it started, even what left its group or session."""
        if self._finalizer is not None:
            self._finalizer()
        self._proc = self._finalizer = None

    # --------------------------------------------------------------- call
    def call(self, key: str, source: str, entries: Sequence[Any], query: dict[str, Any],
             deadline_s: float) -> list[Any]:
        """The entries (from `entries`) the policy `key` picks for `query`, in its order.

        `entries` are objects with the MemoryEntry fields. Raises `CodePolicyFailure`."""
        reply = self._exchange(key, lambda: self._request(key, source, entries, query), deadline_s)
        return self._chosen(reply.get("ids"), entries)

    def call_function(self, key: str, source: str, function: str, args: Sequence[Any], deadline_s: float) -> Any:
        """What `function` (another contract's, engine/sandbox/contracts.py) of the source `key`
        answers for `args` (plain JSON data), as plain data; the caller checks it against
        its contract. Same worker, deadline and failure rules as `call`."""
        def request() -> bytes:
            self._seq += 1
            req: dict[str, Any] = {"seq": self._seq, "key": key, "fn": function, "args": list(args)}
            if key not in self._loaded:
                req["source"] = source
                self._loaded.add(key)
            try:
                return (json.dumps(req, default=_plain, allow_nan=False) + "\n").encode()
            except (TypeError, ValueError) as err:
                raise CodePolicyFailure(f"its inputs are not plain finite data ({err})", "protocol") from None

        reply = self._exchange(key, request, deadline_s)
        if "value" not in reply:
            self.close()
            raise CodePolicyFailure("the sandbox broke the protocol", "protocol")
        return reply["value"]

    def _exchange(self, key: str, build, deadline_s: float) -> dict[str, Any]:
        """Send one request (`build()` makes it) and return the worker's successful reply;
        restart the worker first when it died or used up its CPU budget."""
        self.last_cpu_s = 0.0  # this call's, once it answers
        if self._proc is not None and (_exit_status(self._proc) is not None or self._cpu > self.limits.recycle_cpu_s):
            self.close()
        if self._proc is None:
            self._start()
        try:
            request = build()
        except CodePolicyFailure:
            self.close()  # what the worker was told it has no longer matches what it has
            raise
        try:
            reply = self._roundtrip(request, deadline_s)
        except CodePolicyFailure:
            self.close()
            raise
        if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool) or reply.get("seq") != self._seq \
                or self._buffer:  # a line more than one reply: something else wrote to the pipe
            self.close()
            raise CodePolicyFailure("the sandbox broke the protocol", "protocol")
        cpu = reply.get("cpu")
        before, self._cpu = self._cpu, float(cpu) if isinstance(cpu, (int, float)) else self.limits.cpu_s
        self.last_cpu_s = max(0.0, self._cpu - before)
        if not reply["ok"]:
            self._loaded.discard(key)  # it may have failed to compile: send the source again next time
            if reply.get("fatal"):
                self.close()
            raise CodePolicyFailure(_printable(str(reply.get("error", "it failed"))[:300]), "error")
        return reply

    def _request(self, key: str, source: str, entries: Sequence[Any], query: dict[str, Any]) -> bytes:
        self._seq += 1
        req: dict[str, Any] = {"seq": self._seq, "key": key, "query": query}
        if key not in self._loaded:
            req["source"] = source
            self._loaded.add(key)
        if len(self._sent) > 4 * max(len(entries), 1000):  # evicted entries pile up: start the cache over
            self._sent.clear()
            req["reset"] = True
        upsert = []
        sent = self._sent
        for e in entries:
            now = _FIELDS(e)
            # `==` on the tuples: metadata (kept as sent, see below) compares by value
            if sent.get(now[0]) != now:
                sent[now[0]] = (now[0], dict(now[1]), *now[2:])  # a copy: a change in place still shows next time
                upsert.append(now)
        req["upsert"] = upsert
        req["order"] = [e.id for e in entries]
        try:
            return (json.dumps(req, default=_plain) + "\n").encode()
        except (TypeError, ValueError) as err:
            raise CodePolicyFailure(f"its inputs are not plain data ({err})", "protocol") from None

    def _chosen(self, ids: Any, entries: Sequence[Any]) -> list[Any]:
        if not isinstance(ids, list):
            self.close()
            raise CodePolicyFailure("the sandbox broke the protocol", "protocol")
        by_id = {e.id: e for e in entries}
        chosen, seen = [], set()
        for i in ids:
            if not isinstance(i, str) or i not in by_id:
                self.close()
                raise CodePolicyFailure(f"it answered an id it was not given ({_printable(str(i)[:40])!r})",
                                        "protocol")
            if i not in seen:
                seen.add(i)
                chosen.append(by_id[i])
        return chosen

    # ---------------------------------------------------------------- I/O
    def _roundtrip(self, request: bytes, deadline_s: float) -> Any:
        end = time.monotonic() + deadline_s
        fd = self._proc.stdin.fileno()
        view = memoryview(request)
        while view:
            left = end - time.monotonic()
            if left <= 0 or not select.select([], [fd], [], left)[1]:
                raise CodePolicyFailure(f"it did not finish within {deadline_s:g} s", "timeout")
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError):
                raise CodePolicyFailure("the sandbox process died", "crash") from None
        return self._read(end, deadline_s)

    def _read(self, end: float, deadline_s: float | None = None) -> Any:
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise CodePolicyFailure(f"it did not finish within {deadline_s or 0:g} s", "timeout")
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                code = self._exit_code_after_eof()
                why = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
                raise CodePolicyFailure(f"the sandbox process died ({why}: over its CPU or memory limit?)",
                                        "crash")
            self._buffer += chunk
            if len(self._buffer) > MAX_REPLY_BYTES:
                raise CodePolicyFailure(f"it answered more than {MAX_REPLY_BYTES // 2**20} MB", "protocol")
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            return json.loads(line)
        except ValueError:
            raise CodePolicyFailure("the sandbox broke the protocol", "protocol") from None


    def _exit_code_after_eof(self) -> int:
        """How the worker ended, once its output has closed: it is usually gone a moment later
        (the exit, or the signal of a limit, is what the message reports); one that closed its
        output and runs on is killed with all it started."""
        end = time.monotonic() + EXIT_GRACE_S
        code = _exit_status(self._proc)
        while code is None and time.monotonic() < end:
            time.sleep(0.005)
            code = _exit_status(self._proc)
        if code is None:
            kill_tree(self._proc.pid)
            code = self._proc.wait()
        return code


class SandboxWarning(UserWarning):
    """A wall of the code-policy sandbox could not be built on this machine (the others stand)."""


notices: list[str] = []   # what the sandbox had to say about its walls, once each, in this process


def _notice_once(text: str) -> None:
    """Say `text` once per process: kept in `notices`, and given as a `SandboxWarning`
    (the CLI prints it on stderr)."""
    if text not in notices:
        notices.append(text)
        warnings.warn(text, SandboxWarning, stacklevel=4)


def _printable(text: str) -> str:
    """The worker's error text, safe to show: no newlines or terminal control sequences."""
    return "".join(c if c.isprintable() else "?" for c in text)


def _exit_status(proc: subprocess.Popen) -> int | None:
    """The worker's exit code (negative: the signal), or None while it runs, left unreaped:
    its process id stays ours until `_kill` has looked for what it left behind."""
    if proc.returncode is not None:
        return proc.returncode
    try:
        info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except (AttributeError, ChildProcessError, OSError):  # no waitid here: ask Popen (which reaps)
        return proc.poll()
    if info is None:
        return None
    return -info.si_status if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED) else info.si_status


def _kill(proc: subprocess.Popen, scratch: str | None) -> None:
    if proc.returncode is None:  # not reaped, so its id is still its own: kill all it left, wherever it went
        kill_tree(proc.pid)
    else:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    for stream in (proc.stdin, proc.stdout):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    if scratch:
        shutil.rmtree(scratch, ignore_errors=True)
