"""The fork server of `ael-lab serve`: labs ready before the student is.

Started once by the server (`python -m ael_tui.serve.zygote FD`), with the
environment every visitor's lab gets (confined home and caches, downloads off,
textual-serve's driver variables, which Textual reads when it is imported). It
imports everything a lab needs (Textual, the lab, numpy, pandas, the engine, the
scenarios) and builds the teacher's first session once, then waits on FD, one end
of a SOCK_SEQPACKET socketpair only the server holds the other end of (no path on
disk a visitor could connect to).

Each request is one message: JSON (`{"env": {...}}`, the visitor's environment)
with four descriptors passed by SCM_RIGHTS: the lab's stdin, stdout and stderr
pipes and its control socket. The zygote forks; the child puts the pipes on 0, 1
and 2, takes the visitor's environment, closes the zygote's socket and runs the
lab on a copy-on-write copy of the prepared session: no new interpreter, no import,
pages shared with the zygote until written. The zygote stays single-threaded (it
starts no thread, runs no event loop) so forking it is safe.
"""

from __future__ import annotations

import array
import json
import os
import signal
import socket
import sys
import traceback

MAX_REQUEST = 256 * 1024
FDS = 4


def prepare():
    """Import what a lab needs and build the teacher's first session (None: the start screen)."""
    import importlib

    for name in ("numpy", "pandas", "textual.app", "textual.drivers.web_driver", "ael_tui.serve.lab"):
        importlib.import_module(name)  # the lab module imports the app, the engine and the scenarios
    from .mode import ServedMode, first_session

    mode = ServedMode.from_env()
    if mode is None:
        raise SystemExit("ael-lab: the fork server is started by `ael-lab serve`")
    os.chdir(mode.folder)
    try:
        session = first_session(mode)
    except Exception as err:  # a lab reports it to its visitor; the zygote still serves
        print(f"ael-lab: the first session could not be prepared: {err}", file=sys.stderr)
        session = None
    if mode.scenario == "news" or (session is not None and "sklearn" in sys.modules):
        importlib.import_module("sklearn")
    warm_up(mode)
    import gc
    gc.collect()
    gc.freeze()  # objects made so far never move to a young generation: fewer pages copied by the children's GC
    return mode, session


def warm_up(mode) -> None:
    """Run one lab headless, on a session of its own, and throw it away: what every lab
    would otherwise do for itself on its first frame (the modules Textual and the panels
    import when first used, the stylesheets parsed, the caches filled) is done once here,
    in pages the forked labs share. Threads it starts end before the zygote forks."""
    import asyncio
    import threading

    from .lab import ServedLab
    from .mode import first_session

    try:
        session = first_session(mode) if mode.scenario is not None else None
    except Exception:
        session = None
    width, height = int(os.environ.get("COLUMNS", 160)), int(os.environ.get("ROWS", 48))

    async def run() -> None:
        app = ServedLab(mode, session)
        async with app.run_test(size=(max(width, 160), max(height, 48))) as pilot:
            for _ in range(3):
                await pilot.pause()
            await app.workers.wait_for_complete()

    try:
        asyncio.run(run())
    except Exception as err:  # a lab that cannot warm up still forks (and says why to its visitor)
        print(f"ael-lab: the fork server's warm-up failed: {type(err).__name__}: {err}", file=sys.stderr)
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join(5.0)


def receive(sock: socket.socket) -> tuple[dict | None, list[int]]:
    msg, anc, _flags, _addr = sock.recvmsg(MAX_REQUEST, socket.CMSG_SPACE(FDS * 4))
    fds: list[int] = []
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            a = array.array("i")
            a.frombytes(data[:len(data) - len(data) % a.itemsize])
            fds.extend(a)
    if not msg:
        return None, fds
    try:
        request = json.loads(msg)
    except ValueError:
        request = {}
    return (request if isinstance(request, dict) else {}), fds


def child(sock: socket.socket, fds: list[int], request: dict, prepared) -> int:
    sock.close()
    for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):  # a lab ends on these (ServedLab)
        signal.signal(sig, signal.SIG_DFL)
    stdin, stdout, stderr, control = fds
    for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
        os.dup2(fd, target)
        os.close(fd)
    env = request.get("env")
    if isinstance(env, dict):
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in env.items()})
    from ..config import LabSettings
    from ..widgets.shared_heap import keep_shared_heap_frozen
    from .lab import ServedLab

    keep_shared_heap_frozen()
    mode, session = prepared
    os.chdir(mode.folder)
    app = ServedLab(mode, session, settings=LabSettings(tends_heap=True),
                    control=socket.socket(fileno=control),
                    visitor=str(request.get("visitor", "")))
    app.run()
    return app.return_code or 0


def main(argv: list[str]) -> int:
    try:
        sock = socket.socket(fileno=int(argv[0]))
    except (IndexError, ValueError, OSError):
        print("ael-lab: this module is started by `ael-lab serve`, not by hand", file=sys.stderr)
        return 2
    from .supervise import die_with_parent

    # Ctrl+C, SIGTERM and SIGHUP to the class's process group are the server's to act on: it
    # ends us by closing the socket (a restart on a signal the server is about to act on would be
    # wasted). Its death, kill -9 included, ends us at once, even while we import.
    server_signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for sig in server_signals:
        signal.signal(sig, signal.SIG_IGN)
    die_with_parent(signal.SIGKILL)
    if len(argv) > 1 and argv[1].isdigit() and os.getppid() != int(argv[1]):
        return 0  # the server died before we could ask to hear of it
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    prepared = prepare()
    for sig in server_signals:  # again: the warm-up's event loop may have put a default back
        signal.signal(sig, signal.SIG_IGN)
    sys.stdout.flush()
    sys.stderr.flush()
    sock.send(b"ready")
    while True:
        try:
            request, fds = receive(sock)
        except InterruptedError:
            continue
        except OSError:
            return 0
        if request is None:
            return 0  # the server is gone
        if len(fds) != FDS:
            for fd in fds:
                os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = child(sock, fds, request, prepared)
            except BaseException:
                traceback.print_exc()
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code)
        for fd in fds:
            os.close(fd)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
