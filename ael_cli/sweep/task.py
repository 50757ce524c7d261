"""One run of a sweep, in whatever process runs it (a local worker or a Dask worker).

`sweep_task` is `ael_lab.batch.play` plus what the store keeps beside the
result: the per-episode rewards, timings, and the error of a run that failed
(returned, not raised, so one failure never stops the others). The result
itself is exactly the one `ael-lab run` computes for the same configuration.
"""

from __future__ import annotations

import os
import socket
import time
import traceback
from operator import itemgetter
from typing import Any

from ael_lab.runs import finite

from ael_lab.batch import RunTask, play

# episode record fields the rewards table keeps (the rest is in the session, not the store)
REWARD_FIELDS = ("episode", "reward", "regime", "phase", "policy")


def sweep_task(task: RunTask) -> dict[str, Any]:
    """{"result", "rewards", timings} of a finished run, or {"error", timings} of a failed one."""
    started, cpu0 = time.time(), time.process_time()
    out: dict[str, Any] = {}
    try:
        out.update(_run(task))
    except Exception as err:  # any failure of one run is that run's, recorded in the store
        from ael_lab.text import clip, scrub

        out["error"] = clip(scrub(f"{type(err).__name__}: {err}"))
        out["traceback"] = scrub("".join(traceback.format_exception(err))[-4000:])
    out.update(started=started, finished=time.time(), cpu_s=time.process_time() - cpu0,
               worker=f"{socket.gethostname()}:{os.getpid()}")
    return out


def _run(task: RunTask) -> dict[str, Any]:
    played = play(task)
    return {"result": finite(played.result), "rewards": rewards_of(played.history)}


_REWARD_ROW = itemgetter(*REWARD_FIELDS)


def rewards_of(history: list[dict[str, Any]]) -> list[tuple]:
    """The REWARD_FIELDS of each episode record, None for a field a record lacks. One
    itemgetter call a record where every record has them all (a generator of .get calls
    a field cost a sweep's workers a tenth of a second over 125,000 episodes)."""
    try:
        return [_REWARD_ROW(h) for h in history]
    except KeyError:
        return [tuple(h.get(f) for f in REWARD_FIELDS) for h in history]
