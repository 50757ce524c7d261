"""Killing a sandboxed process and everything it started, wherever it went.

A worker starts in a session of its own (setsid), so it cannot join a process
group of ours: setpgid only moves a process within its own session, and a
session leader cannot move at all. Killing its group alone is still not enough
when a wall has failed: a process it forked can leave the group (setpgid) or
the session (setsid). So `kill_tree` finds, in /proc, the worker, its session,
its group and every descendant of any of them, stops them all first (a stopped
process cannot fork, exit or move on), looks again until nothing new turns up,
and then kills them all. Where there is no /proc, the group and the worker are
killed directly.
"""

from __future__ import annotations

import os
import signal

MAX_ROUNDS = 20   # rounds of look-and-stop; a tree that still grows after this many is killed as found


def kill_tree(root: int) -> None:
    """SIGKILL `root`, anything in its session or group, and all their descendants."""
    stopped: set[int] = set()
    for _ in range(MAX_ROUNDS):
        found = members(root) - stopped
        if not found:
            break
        for pid in found:
            _signal(pid, signal.SIGSTOP)
        stopped |= found
    for pid in stopped | {root}:
        _signal(pid, signal.SIGKILL)
    try:
        os.killpg(root, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def members(root: int) -> set[int]:
    """Live processes that belong to `root`'s tree: `root`, those whose session or group is
    `root`'s (its own id: it leads both), and their descendants. Empty without /proc."""
    table = _process_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    seeds = [pid for pid, (_, group, session) in table.items() if pid == root or group == root or session == root]
    found: set[int] = set()
    while seeds:
        pid = seeds.pop()
        if pid not in found and pid != os.getpid():
            found.add(pid)
            seeds.extend(children.get(pid, ()))
    return found


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead but not yet reaped, does not)."""
    entry = _stat(f"/proc/{pid}/stat")
    if entry is None:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return not os.path.isdir("/proc")
    return entry[0] not in ("Z", "X")


def _process_table() -> dict[int, tuple[int, int, int]]:
    """pid -> (parent, group, session) of every live process /proc shows."""
    table = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if not name.isdigit():
            continue
        entry = _stat(f"/proc/{name}/stat")
        if entry is not None and entry[0] not in ("Z", "X"):
            table[int(name)] = entry[1:]
    return table


def _stat(path: str) -> tuple[str, int, int, int] | None:
    """(state, parent, group, session) from a /proc/PID/stat file, or None when it is gone."""
    try:
        with open(path, "rb") as f:  # plain bytes: a scan reads a few hundred of these
            data = f.read()
    except OSError:
        return None
    # the command name is in parentheses and may itself hold ") ": the fields follow the last one
    fields = data.rpartition(b")")[2].split()
    try:
        return fields[0].decode("ascii", "replace"), int(fields[1]), int(fields[2]), int(fields[3])
    except (IndexError, ValueError):
        return None


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
