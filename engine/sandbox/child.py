"""The process a code policy runs in. Never imported by the lab or the CLI:
`engine.sandbox.codeworker` starts it as `python -S -s -P child.py RP_DIR CONFIG`
with an environment holding nothing but PYTHONHASHSEED, in a scratch folder,
in a session of its own (and, when the lab runs as root, as user nobody).

Before it reads a line of policy code it imports all it will ever need and
then closes its own doors, each a wall that holds on its own:

- no filesystem: Landlock (the kernel's unprivileged sandbox, through its three
  system calls) with no rule at all, so every file access it knows is denied:
  reading, listing, creating, removing, renaming, truncating, executing; TCP
  bind and connect too, and signals and abstract sockets outside the worker
  (on kernels whose Landlock knows them). A kernel without Landlock leaves the
  other walls standing, and the parent says once that this one is missing;
- no new file descriptor of any kind (RLIMIT_NOFILE 0: no file, socket, pipe
  or duplicate, even after closing one of the three it has);
- no change to any file's metadata, which Landlock does not cover: a seccomp
  filter refuses chmod, chown, utime and setxattr in all their forms (a
  worker of a lab not run as root is its user, and owns the user's files);
- no new processes, no file writes, no core dumps, a cap on address space and
  on CPU seconds; and should a process be made all the same, the worker is its
  subreaper, so the parent's kill (engine/sandbox/reaper.py) finds it.

Only then does it serve requests, one JSON line in, one JSON line out:

    in:  {"seq": n, "key": sha256, "source": text (only when the worker lacks it),
          "upsert": [[id, metadata, tier, content, quality, episode,
                      retrieval_count, usefulness], ...],
          "order": [ids of the entries to show, in order], "query": {...},
          "reset": bool (forget every cached entry first)}
    or, for another contract (engine/sandbox/contracts.py: allocate, plan):
         {"seq": n, "key": sha256, "source": ..., "fn": name, "args": [plain data]}
    first: {"ready": true, "cpu": seconds used so far, "notice": "a wall that is missing" (when one is)}
    out: {"ok": true, "ids": [...], "cpu": seconds used so far, "seq": n}
         {"ok": true, "value": number or list of numbers, "cpu": ..., "seq": n}
         {"ok": false, "error": "...", "fatal": bool, "cpu": ..., "seq": n}

The policy is compiled by RestrictedPython (attribute reads, subscripts,
writes and iteration go through the guards below) and sees entries and the
query as read-only mappings, so it cannot change what later calls see: the
same inputs give the same answer whether this worker is fresh or old.
"""

import builtins
import ctypes
import errno
import json
import operator
import os
import resource
import sys
from types import MappingProxyType


def _freeze(value):
    """A read-only copy of JSON data: mappings become mapping proxies, lists tuples."""
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


_FIELDS = ("id", "metadata", "tier", "content", "quality", "episode", "retrieval_count", "usefulness")


def _entry(row):
    return MappingProxyType({name: _freeze(v) for name, v in zip(_FIELDS, row)})


class _Answered(Exception):
    """A contract other than retrieve has its reply: skip retrieve's handling."""


_SCALARS = (int, float, bool, str, type(None))


def _answer(value, depth=0):
    """A contract's answer as JSON data, read by exact type only (no method of a
    look-alike object runs): numbers, texts, lists and tuples of them, one level deep."""
    if type(value) in _SCALARS:
        return value
    if type(value) in (list, tuple) and depth == 0 and len(value) <= 10000:
        return [_answer(v, 1) for v in value]
    raise TypeError("it must return a number or a list of numbers, not %s" % type(value).__name__)


def _drop_root(uid):
    # RLIMIT_NPROC is not enforced for root: as root, become an unprivileged user
    # first (which also drops every capability), groups before the user id.
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)


# Landlock: linux/landlock.h. The system call numbers are the same on every
# architecture that has the common table (x86-64, arm64, riscv, ...).
_SYS_CREATE_RULESET, _SYS_RESTRICT_SELF = 444, 446
_CREATE_RULESET_VERSION = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_CHILD_SUBREAPER = 36
# handled_access_fs by the ABI version that introduced each right: 1 has the
# first 13 (execute, write, read, read-dir, remove, make-*), 2 refer,
# 3 truncate, 5 ioctl on devices
_FS_RIGHTS = {1: (1 << 13) - 1, 2: 1 << 13, 3: 1 << 14, 5: 1 << 15}
_NET_TCP = 0b11        # ABI 4: bind and connect TCP
_SCOPED = 0b11         # ABI 6: abstract unix sockets and signals outside the domain


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


def _landlock(libc):
    """Deny this process every filesystem access (no rule allows any), and what
    else the kernel's Landlock ABI knows. Returns "" when in force, or why the
    kernel offers no such wall; raises OSError when it should but fails."""
    abi = libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    if abi < 0:
        err = ctypes.get_errno()
        if err in (errno.ENOSYS, errno.EOPNOTSUPP, errno.EPERM):  # not built in, not enabled, or filtered out
            return {errno.ENOSYS: "Landlock is not in this kernel (ENOSYS)",
                    errno.EOPNOTSUPP: "Landlock is disabled (EOPNOTSUPP: not in the boot's lsm= list)",
                    errno.EPERM: "Landlock's system calls are refused (EPERM: a container's seccomp profile?)"}[err]
        raise OSError(err, "landlock_create_ruleset: " + os.strerror(err))
    attr = _RulesetAttr(sum(bits for since, bits in _FS_RIGHTS.items() if abi >= since),
                        _NET_TCP if abi >= 4 else 0, _SCOPED if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8  # the struct as this ABI knows it
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:  # required to restrict oneself unprivileged
        err = ctypes.get_errno()
        raise OSError(err, "prctl(PR_SET_NO_NEW_PRIVS): " + os.strerror(err))
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        err = ctypes.get_errno()
        raise OSError(err, "landlock_create_ruleset: " + os.strerror(err))
    try:
        if libc.syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            err = ctypes.get_errno()
            raise OSError(err, "landlock_restrict_self: " + os.strerror(err))
    finally:
        os.close(ruleset)
    return ""


# seccomp: the system calls that change a file's metadata by path or descriptor,
# by architecture (audit arch, syscall numbers); x86-64's x32 calls are refused whole
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_METADATA_CALLS = {
    "x86_64": (0xC000003E, {"chmod": 90, "fchmod": 91, "chown": 92, "fchown": 93, "lchown": 94, "utime": 132,
                            "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "removexattr": 197,
                            "lremovexattr": 198, "fremovexattr": 199, "utimes": 235, "fchownat": 260,
                            "futimesat": 261, "fchmodat": 268, "utimensat": 280, "fchmodat2": 452,
                            "setxattrat": 463, "removexattrat": 466}),
    "aarch64": (0xC00000B7, {"setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "removexattr": 14,
                             "lremovexattr": 15, "fremovexattr": 16, "fchmod": 52, "fchmodat": 53, "fchownat": 54,
                             "fchown": 55, "utimensat": 88, "fchmodat2": 452, "setxattrat": 463,
                             "removexattrat": 466}),
}


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _seccomp(libc, machine):
    """Refuse (EPERM) every system call that changes a file's metadata. Needs
    no_new_privs (set by `_landlock`, or here). Returns "" when in force, or why not."""
    if machine not in _METADATA_CALLS:
        return "no table of system calls for %s" % machine
    arch, calls = _METADATA_CALLS[machine]
    ld_word, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    numbers = sorted(calls.values())
    # 0: load the arch; 1: another arch is refused whole; 2: load the number;
    # 3: x32 numbers refused whole; then one test per call; allow; refuse
    count = 4 + len(numbers) + 2
    deny = count - 1

    def to_deny(i):
        return deny - i - 1

    program = [(ld_word, 0, 0, 4), (jeq, 0, to_deny(1), arch), (ld_word, 0, 0, 0),
               (jge, to_deny(3), 0, 0x40000000) if machine == "x86_64" else (0x05, 0, 0, 0)]  # else: jump 0
    program += [(jeq, to_deny(4 + i), 0, n) for i, n in enumerate(numbers)]
    program += [(ret, 0, 0, 0x7FFF0000), (ret, 0, 0, 0x00050000 | errno.EPERM)]
    filters = (_SockFilter * count)(*[_SockFilter(*op) for op in program])
    prog = _SockFprog(count, filters)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "prctl(PR_SET_NO_NEW_PRIVS): " + os.strerror(err))
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        err = ctypes.get_errno()
        if err == errno.EINVAL:  # a kernel built without seccomp filters
            return "seccomp filters are not in this kernel (EINVAL)"
        raise OSError(err, "prctl(PR_SET_SECCOMP): " + os.strerror(err))
    return ""


def _limit(config):
    # Each limit is set hard as well as soft, so the policy cannot raise it again.
    mb = config["memory_mb"] * 1024 * 1024
    limits = [(resource.RLIMIT_AS, mb), (resource.RLIMIT_CPU, config["cpu_s"]),
              (resource.RLIMIT_FSIZE, 0), (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NPROC, 0)]
    for which, value in limits:
        resource.setrlimit(which, (value, value))
    # Descriptors 0, 1 and 2 are open (requests, replies, /dev/null) and stay
    # usable; a limit of 0 means no new one, whatever the policy closes first
    # (a limit of 3 let it close 2 and open a file in its place): no file can
    # be opened, no socket created, no pipe made, no descriptor duplicated.
    resource.setrlimit(resource.RLIMIT_NOFILE, (0, 0))


def _guards(allowed_methods, builtin_names):
    from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence

    def _getattr_(obj, name, *default):
        if not isinstance(name, str) or name.startswith("_") or name not in allowed_methods:
            raise AttributeError("attribute %r is not allowed" % (name,))
        return getattr(obj, name)

    def _write_(obj):
        if type(obj) in (dict, list, set):
            return obj
        raise TypeError("%s is read-only" % type(obj).__name__)

    inplace = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
               "//=": operator.ifloordiv, "%=": operator.imod}

    def _inplacevar_(op, x, y):
        if op not in inplace:
            raise TypeError("%s is not allowed" % op)
        return inplace[op](x, y)

    safe = {n: getattr(builtins, n) for n in builtin_names}
    return {
        "__builtins__": safe, "__name__": "policy", "_getattr_": _getattr_, "_getitem_": operator.getitem,
        "_getiter_": iter, "_write_": _write_, "_inplacevar_": _inplacevar_,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence, "_unpack_sequence_": guarded_unpack_sequence,
    }


def _cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return round(r.ru_utime + r.ru_stime, 3)


def main():
    sys.path.append(sys.argv[1])
    config = json.loads(sys.argv[2])
    # everything the worker will ever import, imported while it still may open files
    from RestrictedPython import compile_restricted
    from RestrictedPython.Guards import guarded_iter_unpack_sequence  # noqa: F401 - imported now, used later

    allowed = frozenset(config["methods"])
    builtin_names = tuple(config["builtins"])
    libc = ctypes.CDLL(None, use_errno=True)
    inp, out = sys.stdin.buffer, sys.stdout
    # Orphans of its children become its own, not init's: a grandchild that left the group and the
    # session (were there a way to fork) is still found under the worker when it is killed.
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    try:
        _drop_root(config["drop_to"])
        missing = _landlock(libc)
        unguarded = _seccomp(libc, os.uname().machine)
        _limit(config)
    except OSError as exc:  # the walls could not be built: say why, and serve nothing
        out.write(json.dumps({"ready": False, "error": "%s: %s" % (type(exc).__name__, exc)}) + "\n")
        out.flush()
        return
    ready = {"ready": True, "cpu": _cpu()}
    notices = []
    if missing:
        notices.append("the code sandbox's filesystem wall is unavailable on this kernel: " + missing)
    if unguarded:
        notices.append("the code sandbox's wall against changing file metadata is unavailable here: " + unguarded)
    if notices:
        ready["notice"] = "; ".join(notices)
    out.write(json.dumps(ready) + "\n")
    out.flush()

    policies = {}
    cache = {}   # entry id -> its read-only mapping
    owner = {}   # id() of a cached mapping -> its entry id (cached mappings stay alive, so ids stay unique)
    for line in inp:
        reply = {"ok": False, "error": "bad request", "fatal": True}
        seq = None
        try:
            req = json.loads(line)
            seq = req.get("seq")
            if req.get("reset"):
                cache.clear()
                owner.clear()
            for row in req.get("upsert", ()):
                old = cache.get(row[0])
                if old is not None:
                    del owner[id(old)]
                entry = cache[row[0]] = _entry(row)
                owner[id(entry)] = row[0]
            key = req["key"]
            fn = policies.get(key)
            if fn is None:
                if config.get("plain"):  # tests of the OS walls alone: plain Python, every builtin
                    namespace = {"__builtins__": builtins}
                    exec(compile(req["source"], "<policy>", "exec"), namespace)
                else:
                    namespace = _guards(allowed, builtin_names)
                    exec(compile_restricted(req["source"], "<policy>", "exec"), namespace)
                fn = policies[key] = namespace[req.get("fn", "retrieve")]
            if "fn" in req:  # another contract (engine/sandbox/contracts.py): plain data in, plain data out
                reply = {"ok": True, "value": _answer(fn(*_freeze(req["args"])))}
                raise _Answered
            picked = fn([cache[i] for i in req["order"]], _freeze(req["query"]))
            # identity, not the "id" inside: a made-up mapping with a real id is refused.
            # (Whether each entry was among those given, the parent checks.)
            if type(picked) is not list:
                reply = {"ok": False, "error": "it must return a list, not %s" % type(picked).__name__}
            elif not all(id(x) in owner for x in picked):
                reply = {"ok": False, "error": "it must return entries taken from `entries`, not new objects"}
            else:
                reply = {"ok": True, "ids": [owner[id(x)] for x in picked]}
        except _Answered:
            pass
        except MemoryError:
            reply = {"ok": False, "error": "it ran out of its %d MB memory limit" % config["memory_mb"], "fatal": True}
        except RecursionError:
            reply = {"ok": False, "error": "it recursed too deeply", "fatal": True}
        except BaseException as exc:  # the policy's failure is a reply, never the end of the worker
            reply = {"ok": False, "error": "%s: %s" % (type(exc).__name__, str(exc)[:200])}
        reply["cpu"] = _cpu()
        reply["seq"] = seq
        try:
            text = json.dumps(reply)
        except BaseException:  # a reply JSON cannot hold (a policy-made error text): say so plainly
            text = json.dumps({"ok": False, "error": "the policy's error could not be reported", "cpu": _cpu(),
                               "seq": seq})
        out.write(text + "\n")
        out.flush()
        if reply.get("fatal"):
            return


if __name__ == "__main__":
    main()
